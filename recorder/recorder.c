/* The recording core (recorder/recorder.h): recorder_forward sends one command
 * through the backend transport and times its round trip (CLOCK_MONOTONIC,
 * db_mono_ns), holding the response for the emulated latency when emulation is on
 * (model/emulate.h) and noting when the backend is lost and comes back;
 * recorder_log decodes both directions (decode.h, rec_fill.h) and queues the
 * record on the batched writer without waiting. Also recorder_own_command (a
 * command tpmtrace sends itself), recorder_malformed, recorder_event and
 * recorder_stop_event, and the client table: recorder_client_pid,
 * recorder_client_peer, recorder_client_proc and recorder_client_add give each
 * process or peer one client id and store its client row once. */
#include "recorder/recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "db/db.h"
#include "model/tpm/decode.h"
#include "model/tpm/constants.h"
#include "model/tpm/wire.h"
#include "model/tpm/tpm_cc.h"
#include "db/rec_fill.h"
#include "model/emulate.h"

void recorder_init(struct recorder *r, struct writer *w, struct transport *backend, int payloads)
{
	memset(r, 0, sizeof(*r));
	r->w = w;
	r->backend = backend;
	r->payloads = payloads;
}

static int store_client(struct recorder *r, struct recorder_client_key *k);

/* Client rows a full queue refused, tried again before the next command;
 * the first refusal ends the round (the queue is still full). */
static void retry_clients(struct recorder *r)
{
	unsigned n = r->n_keys < RECORDER_MAX_CLIENTS ? r->n_keys : RECORDER_MAX_CLIENTS;
	for (unsigned i = 0; i < n && r->unstored; i++)
		if (r->keys[i].pending && !store_client(r, &r->keys[i]))
			break;
}

int recorder_forward(struct recorder *r, uint32_t client, uint8_t locality, const uint8_t *cmd,
		     size_t len, uint8_t *rsp, size_t cap, size_t *rsp_len, struct rec_timing *tm)
{
	int rc;

	tm->t_submit = db_mono_ns();
	rc = r->backend->ops->transmit(r->backend, locality, cmd, len, rsp, cap, rsp_len);
	tm->t_done = db_mono_ns();
	if (r->backend->stale) {
		tm->stale = r->backend->stale;
		r->backend->stale = 0;
	}
	if (rc > 0) {
		/* Not sent; the transport's answer is the client's. */
		tm->refused = (uint32_t)rc;
		*rsp_len = transport_error_response(rsp, (uint32_t)rc);
		rc = 0;
	} else {
		r->forwarded++;
	}
	tm->rc = rc;
	if (r->emu && !rc) {
		/* The client sees the profiled TPM: its response is held until
		 * the drawn latency has passed since the command went out. */
		tm->t_done =
		    emulate_hold(r->emu, tm->t_submit, emulate_latency_ns(r->emu, cmd, len), 0);
		tm->flags |= REC_F_EMULATED;
	}
	if (rc) {
		r->backend_errors++;
		*rsp_len = transport_error_response(rsp, TPM_RC_FAILURE);
		if (!r->backend_down) {
			tm->backend_change = REC_BACKEND_LOST;
			r->backend_down = 1;
		}
	} else if (r->backend_down) {
		tm->backend_change = REC_BACKEND_BACK;
		r->backend_down = 0;
	}
	return rc;
}

/* The event recorder_forward noted, before the command's own row. */
static void log_backend_change(struct recorder *r, uint32_t client, const struct rec_timing *tm)
{
	char detail[400];
	if (tm->backend_change == REC_BACKEND_LOST) {
		snprintf(detail, sizeof detail, "%s: %s", r->backend->desc,
			 tm->rc == -EMSGSIZE ? "answered more bytes than its response header "
					       "declares (backend desync; connection reset)"
					     : strerror(-tm->rc));
		recorder_event(r, "backend-lost", detail, client);
	} else if (tm->backend_change == REC_BACKEND_BACK) {
		recorder_event(r, "backend-back", r->backend->desc, client);
	}
}

void recorder_log(struct recorder *r, uint32_t client, uint8_t locality, const uint8_t *cmd,
		  size_t len, const uint8_t *rsp, size_t rsp_len, const struct rec_timing *tm)
{
	struct tpm_cmd c;
	struct tpm_rsp p;

	if (!r->w)
		return;
	if (tm->stale) {
		char detail[420];
		snprintf(detail, sizeof detail,
			 "%s: %u bytes beyond the size its last response declared were waiting "
			 "before this command; dropped (with the connection where it can be made "
			 "again)",
			 r->backend->desc, tm->stale);
		recorder_event(r, "backend-desync", detail, client);
	}
	if (tm->refused) {
		char detail[360];
		snprintf(detail, sizeof detail, "%s: locality %u refused; not sent, answered 0x%x",
			 r->backend->desc, locality, tm->refused);
		recorder_event(r, "backend-refused", detail, client);
	}
	if (tm->backend_change)
		log_backend_change(r, client, tm);
	if (r->unstored)
		retry_clients(r);
	tpm_cmd_decode(cmd, len, &c);
	const uint8_t *seen = tm->rc ? NULL : rsp;
	struct rec *x = db_writer_reserve(r->w, REC_COMMAND,
					  db_rec_payload_len(r->payloads, len, seen ? rsp_len : 0));
	if (!x)
		return;
	x->locality = locality;
	x->client_id = client;
	x->t_submit = tm->t_submit;
	x->t_done = tm->t_done;
	x->flags |= tm->flags;
	if (seen)
		tpm_rsp_decode(rsp, rsp_len, c.malformed ? 0 : c.cc, &p);
	db_rec_fill_decoded(x, &c, len, seen ? &p : NULL, rsp_len);
	db_rec_fill_payload(x, r->payloads, cmd, len, &c, seen, rsp_len, &p);
	db_writer_publish(r->w);
}

static struct recorder_client_key *slot_for_new(struct recorder *r);

uint32_t recorder_own_client(struct recorder *r)
{
	if (!r->own_client) {
		struct recorder_client_key *k = slot_for_new(r);
		snprintf(k->comm, sizeof k->comm, "tpmtrace");
		snprintf(k->peer, sizeof k->peer, "tpmtrace itself");
		k->id = r->own_client = ++r->next_client;
		store_client(r, k);
	}
	return r->own_client;
}

int recorder_own_command(struct recorder *r, const uint8_t *cmd, size_t len, uint8_t *rsp,
			 size_t cap, size_t *rsp_len)
{
	struct rec_timing tm = {.flags = REC_F_OWN};
	uint32_t own = recorder_own_client(r);
	int rc = recorder_forward(r, own, 0, cmd, len, rsp, cap, rsp_len, &tm);
	recorder_log(r, own, 0, cmd, len, rsp, *rsp_len, &tm);
	r->own++;
	return rc;
}

void recorder_malformed(struct recorder *r, uint32_t client, uint8_t locality, const uint8_t *buf,
			size_t len, int reason, uint32_t declared)
{
	struct tpm_cmd c;
	if (!r->w)
		return;
	tpm_cmd_decode(buf, len, &c);
	/* The framing's reason wins: the decoder only sees what arrived. */
	if (reason)
		c.malformed = reason;
	size_t keep = len > TPM_MAX_MESSAGE ? TPM_MAX_MESSAGE : len;
	struct rec *x =
	    db_writer_reserve(r->w, REC_COMMAND, db_rec_payload_len(r->payloads, keep, 0));
	if (!x)
		return;
	db_rec_fill_decoded(x, &c, declared ? declared : len, NULL, 0);
	x->locality = locality;
	x->client_id = client;
	x->t_submit = x->t_done = db_mono_ns();
	db_rec_fill_payload(x, r->payloads, buf, keep, &c, NULL, 0, NULL);
	db_writer_publish(r->w);
}

void recorder_event(struct recorder *r, const char *kind, const char *detail, uint32_t client)
{
	if (r->w)
		db_writer_event(r->w, db_mono_ns(), kind, detail, client);
}

void recorder_stop_event(struct recorder *r, const char *kind, const char *detail)
{
	if (!r->w)
		return;
	/* The TPM path is closed: wait for the queue to drain so that this
	 * last row is stored and every drop before it shows as a gap in seq. */
	db_writer_flush(r->w);
	db_writer_event(r->w, db_mono_ns(), kind, detail, 0);
}

/* Queues the client row of k; 1 if it was queued. A full queue leaves it
 * pending and the next command retries (recorder_log), so no client row
 * is lost. */
static int store_client(struct recorder *r, struct recorder_client_key *k)
{
	if (!r->w)
		return 1;
	size_t cl = strlen(k->comm) + 1, pl = strlen(k->peer) + 1;
	struct rec *x = db_writer_reserve(r->w, REC_CLIENT, (uint32_t)(cl + pl));
	if (x) {
		memcpy(x->payload, k->comm, cl);
		memcpy(x->payload + cl, k->peer, pl);
		x->cmd_len = (uint32_t)(cl + pl);
		x->client_id = k->id;
		x->pid = k->is_pid ? k->pid : 0;
		x->uid = (int32_t)k->uid;
		x->t_submit = k->t_first ? k->t_first : db_mono_ns();
		db_writer_publish(r->w);
	}
	int pending = !x;
	if (pending && !k->pending)
		r->unstored++;
	else if (!pending && k->pending)
		r->unstored--;
	k->pending = pending;
	return !pending;
}

static struct recorder_client_key *slot_for_new(struct recorder *r)
{
	/* A fixed table; the oldest entry is reused when full (its id stays
	 * valid in the database, the process just gets a new id if it returns). */
	struct recorder_client_key *k = &r->keys[r->n_keys % RECORDER_MAX_CLIENTS];
	r->n_keys++;
	if (k->pending)
		r->unstored--;
	memset(k, 0, sizeof(*k));
	return k;
}

uint32_t recorder_client_pid(struct recorder *r, pid_t pid, uid_t uid)
{
	unsigned n = r->n_keys < RECORDER_MAX_CLIENTS ? r->n_keys : RECORDER_MAX_CLIENTS;
	for (unsigned i = 0; i < n; i++) {
		struct recorder_client_key *k = &r->keys[i];
		if (k->is_pid && k->pid == pid)
			return k->id;
	}
	struct recorder_client_key *k = slot_for_new(r);
	k->is_pid = 1;
	k->pid = pid;
	k->uid = uid;
	if (r->w) /* nothing reads it when nothing is recorded (--forward-only) */
		recorder_proc_name(pid, NULL, k->comm, sizeof k->comm);
	k->id = ++r->next_client;
	store_client(r, k);
	return k->id;
}

uint32_t recorder_client_peer(struct recorder *r, const char *peer)
{
	unsigned n = r->n_keys < RECORDER_MAX_CLIENTS ? r->n_keys : RECORDER_MAX_CLIENTS;
	for (unsigned i = 0; i < n; i++) {
		struct recorder_client_key *k = &r->keys[i];
		if (!k->is_pid && !strcmp(k->peer, peer))
			return k->id;
	}
	uint32_t id = ++r->next_client;
	recorder_client_add(r, id, peer, 0);
	return id;
}

/* A new client row: id, a process (pid > 0) or none, its program and peer. */
static void add_key(struct recorder *r, uint32_t id, pid_t pid, const char *comm, const char *peer,
		    uint64_t t_first)
{
	struct recorder_client_key *k = slot_for_new(r);
	k->is_pid = pid > 0;
	k->pid = pid > 0 ? pid : 0;
	k->uid = (uid_t)-1; /* not known */
	if (pid > 0 && comm && r->w)
		recorder_proc_name(pid, comm, k->comm, sizeof k->comm);
	else
		snprintf(k->comm, sizeof k->comm, "%s", comm ? comm : "");
	snprintf(k->peer, sizeof k->peer, "%s", peer ? peer : "");
	k->id = id;
	k->t_first = t_first;
	store_client(r, k);
}

void recorder_client_add(struct recorder *r, uint32_t id, const char *peer, uint64_t t_first)
{
	add_key(r, id, 0, NULL, peer, t_first);
}

uint32_t recorder_client_proc(struct recorder *r, pid_t pid, const char *comm, const char *peer,
			      uint64_t t_first)
{
	uint32_t id = ++r->next_client;
	add_key(r, id, pid, comm, peer, t_first);
	return id;
}

int recorder_startup(struct recorder *r, char *err, size_t errlen)
{
	uint8_t su[TPM_STARTUP_SIZE], rsp[64];
	size_t rl = 0;
	tpm_startup_cmd(su, TPM_SU_CLEAR);
	int rc = recorder_own_command(r, su, sizeof su, rsp, sizeof rsp, &rl);
	if (rc) {
		snprintf(err, errlen, "TPM2_Startup of the spawned swtpm: %s", strerror(-rc));
		return rc;
	}
	uint32_t code = rl >= TPM_HEADER_SIZE ? wire_get_u32(rsp + 6) : TPM_RC_FAILURE;
	if (code && code != TPM_RC_INITIALIZE) {
		snprintf(err, errlen, "TPM2_Startup of the spawned swtpm answered 0x%x (%s)", code,
			 tpm_rc_str(code));
		return -EPROTO;
	}
	return 0;
}
