/* The pcap importer's stream side (pcap_int.h): each TCP connection to the TPM
 * (pcap_conn_get, kept in a hash table with a least-recently-used list for
 * eviction, pcap_lru_touch, pcap_conn_free) has two directions whose segments
 * pcap_dir_segment puts back in order, holding out-of-order data and marking
 * gaps. Each direction is framed as raw TPM 2.0 messages (frame.h) or in the MS
 * simulator's framing (TPM_SEND_COMMAND and its responses; the platform port's
 * u32 codes become events); commands wait in a per-connection queue for their
 * response and go, paired, to the importer's callbacks. pcap_conn_finish
 * flushes a connection at its end. */
#include "recorder/import/pcap_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/writer.h"
#include "model/tpm/wire.h"

/* ---- callbacks ---- */

static void emit_event(struct pcap_import *pi, struct conn *c, const char *kind, const char *detail)
{
	struct pcap_tpm_event e = {pi->t, kind, detail, c ? c->id : 0, pi->pkt};
	pi->st.events++;
	if (pi->ops.event && !pi->rc)
		pi->rc = pi->ops.event(pi->ctx, &e);
}

static void emit_command(struct pcap_import *pi, struct conn *c, struct pending *p,
			 const uint8_t *rsp, size_t rsp_len)
{
	struct pcap_tpm_cmd x;

	memset(&x, 0, sizeof(x));
	x.t_submit_ns = p->t;
	x.t_done_ns = rsp ? pi->t : 0;
	x.cmd = p->cmd;
	x.cmd_len = p->cmd_len;
	x.rsp = rsp;
	x.rsp_len = rsp ? rsp_len : 0;
	x.locality = p->locality;
	x.client_id = c->id;
	x.client = c->peer;
	x.flags = pi->cfg.flags;
	x.ts_res_ns = pi->cfg.ts_res_ns;
	x.cmd_packet = p->pkt;
	x.rsp_packet = rsp ? pi->pkt : 0;
	tpm_cmd_decode(p->cmd, p->cmd_len, &x.dc);
	if (rsp)
		tpm_rsp_decode(rsp, rsp_len, x.dc.info ? x.dc.cc : 0, &x.dr);
	else
		x.flags |= REC_F_NO_RESPONSE;
	x.malformed = x.dc.malformed ? x.dc.malformed : x.dr.malformed;
	if (x.malformed) {
		x.flags |= REC_F_MALFORMED;
		pi->st.malformed++;
	}
	if (!rsp)
		pi->st.no_response++;
	pi->st.commands++;
	if (pi->ops.command && !pi->rc)
		pi->rc = pi->ops.command(pi->ctx, &x);
}

/* ---- commands waiting for responses ---- */

static int pending_push(struct conn *c, const uint8_t *cmd, size_t len, uint32_t rsp_bytes,
			int locality, uint64_t t, uint64_t pkt)
{
	/* One command at a time is the rule (a TPM answers in order): the
	 * one answered last is used again, no allocation per command. */
	size_t need = len ? len : 1;
	struct pending *p = c->spare;
	if (p && p->cap >= need)
		c->spare = NULL;
	else if (!(p = malloc(sizeof(*p) + need)))
		return -ENOMEM;
	else
		p->cap = need;
	p->next = NULL;
	p->cmd = cmd ? p->data : NULL;
	if (cmd)
		memcpy(p->data, cmd, len);
	p->cmd_len = len;
	*c->held += sizeof(*p) + len;
	p->rsp_bytes = rsp_bytes;
	p->locality = locality;
	p->t = t;
	p->pkt = pkt;
	if (c->tail)
		c->tail->next = p;
	else
		c->head = p;
	c->tail = p;
	return 0;
}

static struct pending *pending_pop(struct conn *c)
{
	struct pending *p = c->head;
	if (p) {
		c->head = p->next;
		if (!c->head)
			c->tail = NULL;
	}
	return p;
}

static void pending_free(struct conn *c, struct pending *p)
{
	if (p) {
		*c->held -= sizeof(*p) + p->cmd_len;
		if (!c->spare || c->spare->cap < p->cap) {
			free(c->spare);
			c->spare = p;
		} else {
			free(p);
		}
	}
}

/* A response (framing stripped): the oldest unanswered command gets it; the
 * TPM answers one command at a time, in order (Part 1 section 18). */
static void on_response(struct pcap_import *pi, struct conn *c, const uint8_t *rsp, size_t len)
{
	struct pending *p = c->head;
	char detail[96];

	if (!p || !p->cmd) {
		pi->st.unmatched++;
		snprintf(detail, sizeof detail,
			 "%zu-byte response without a command, code 0x%08" PRIx32, len,
			 len >= 10 ? wire_get_u32(rsp + 6) : 0);
		emit_event(pi, c, "unmatched_response", detail);
		return;
	}
	pending_pop(c);
	emit_command(pi, c, p, rsp, len);
	pending_free(c, p);
}

/* ---- framing ---- */

static void dir_consume(struct dir *d, size_t n)
{
	/* n == 0 on an empty direction, whose buffer may not exist yet. */
	if (n && d->len > n)
		memmove(d->buf, d->buf + n, d->len - n);
	d->len -= n;
}

/* A message whose size field cannot be right: everything buffered becomes one
 * message, so the bytes stay visible (the decoder says what is wrong) and
 * framing restarts with the next segment. */
static void frame_garbage(struct pcap_import *pi, struct conn *c, int di)
{
	struct dir *d = &c->d[di];
	if (di == TO_TPM) {
		if (pending_push(c, d->buf, d->len, 0, -1, pi->t, pi->pkt) < 0 && !pi->rc)
			pi->rc = -ENOMEM;
	} else {
		on_response(pi, c, d->buf, d->len);
	}
	d->len = 0;
}

/* The framers below each look at the start of a direction's buffer: they
 * return 1 when they consumed a message (framing goes on), 0 when the buffer
 * holds no whole one (framing waits for more bytes). final: the capture
 * ended, a partial message is passed on as it is (the decoder reports it
 * truncated). */

/* Platform port (TPM port + 1): the client sends u32 codes, the simulator
 * answers each with a u32; only requests matter. */
static int pcap_frame_platform(struct pcap_import *pi, struct conn *c, int di, int final)
{
	struct dir *d = &c->d[di];
	char detail[96], kind[32];

	if (di == FROM_TPM) {
		d->len = 0;
		return 0;
	}
	if (d->len < 4) {
		if (final)
			d->len = 0;
		return 0;
	}
	uint32_t code = wire_get_u32(d->buf);
	const char *name = frame_ms_name(code);
	if (!name) {
		snprintf(kind, sizeof kind, "PLATFORM_%" PRIu32, code);
		name = kind;
	}
	snprintf(detail, sizeof detail, "simulator platform port %u", (unsigned)c->key.tpm_port);
	emit_event(pi, c, name, detail);
	dir_consume(d, 4);
	return 1;
}

/* Raw TPM messages, by the recorders' rule (frame_tpm: exactly the size
 * field's bytes, Part 1 section 18.2), up to MAX_FRAME. */
static int frame_raw(struct pcap_import *pi, struct conn *c, int di, int final)
{
	struct dir *d = &c->d[di];
	uint32_t size;
	int reason;

	switch (frame_tpm(d->buf, d->len, MAX_FRAME, &size, &reason)) {
	case FRAME_TPM_BAD:
		frame_garbage(pi, c, di);
		return 0;
	case FRAME_TPM_MORE:
		if (final)
			frame_garbage(pi, c, di);
		return 0;
	}
	if (di == TO_TPM) {
		if (pending_push(c, d->buf, size, 0, -1, pi->t, pi->pkt) < 0)
			pi->rc = -ENOMEM;
	} else {
		on_response(pi, c, d->buf, size);
	}
	dir_consume(d, size);
	return 1;
}

/* Simulator framing (TpmTcpProtocol.h), from the TPM. */
static int frame_mssim_rsp(struct pcap_import *pi, struct conn *c, int final)
{
	struct dir *d = &c->d[FROM_TPM];

	if (c->head && !c->head->cmd) {
		/* A fixed-size reply to a non-command request. */
		if (d->len < c->head->rsp_bytes) {
			if (final)
				d->len = 0;
			return 0;
		}
		dir_consume(d, c->head->rsp_bytes);
		pending_free(c, pending_pop(c));
		return 1;
	}
	/* u32 size | response | u32 0 (sent as three writes). */
	if (d->len < 4) {
		if (final)
			frame_garbage(pi, c, FROM_TPM);
		return 0;
	}
	uint32_t size = wire_get_u32(d->buf);
	if (size > MAX_FRAME) {
		frame_garbage(pi, c, FROM_TPM);
		return 0;
	}
	if (d->len < 4 + (size_t)size) {
		if (final) {
			dir_consume(d, 4);
			frame_garbage(pi, c, FROM_TPM);
		}
		return 0;
	}
	on_response(pi, c, d->buf + 4, size);
	dir_consume(d, 4 + size);
	d->skip = 4;
	return 1;
}

/* The simulator's SEND_COMMAND: u32 8 | u8 locality | u32 size | command. */
static int frame_mssim_send(struct pcap_import *pi, struct conn *c, int final)
{
	struct dir *d = &c->d[TO_TPM];

	if (d->len < 9) {
		if (final)
			frame_garbage(pi, c, TO_TPM);
		return 0;
	}
	uint32_t size = wire_get_u32(d->buf + 5);
	if (size > MAX_FRAME) {
		frame_garbage(pi, c, TO_TPM);
		return 0;
	}
	if (d->len < 9 + (size_t)size) {
		if (final) {
			/* Keep what arrived of the command. */
			int loc = d->buf[4];
			dir_consume(d, 9);
			if (pending_push(c, d->buf, d->len, 0, loc, pi->t, pi->pkt) < 0)
				pi->rc = -ENOMEM;
			d->len = 0;
		}
		return 0;
	}
	if (pending_push(c, d->buf + 9, size, 0, d->buf[4], pi->t, pi->pkt) < 0)
		pi->rc = -ENOMEM;
	dir_consume(d, 9 + size);
	return 1;
}

/* Simulator framing (TpmTcpProtocol.h), to the TPM: a u32 code, then what
 * that code carries; requests other than SEND_COMMAND become events. */
static int frame_mssim_cmd(struct pcap_import *pi, struct conn *c, int final)
{
	struct dir *d = &c->d[TO_TPM];
	char detail[96];

	if (d->len < 4) {
		if (final)
			frame_garbage(pi, c, TO_TPM);
		return 0;
	}
	uint32_t code = wire_get_u32(d->buf);
	size_t need = 4;
	uint32_t reply = 0;
	uint32_t arg = 0;
	switch (code) {
	case MS_SEND_COMMAND:
		return frame_mssim_send(pi, c, final);
	case MS_REMOTE_HANDSHAKE: /* u32 client version -> version, flags, 0 */
		need = 8;
		reply = 12;
		break;
	case MS_SIGNAL_HASH_START:
	case MS_SIGNAL_HASH_END:
		reply = 4;
		break;
	case MS_SIGNAL_HASH_DATA: /* u32 size | data -> 0 */
		if (d->len < 8) {
			if (final)
				d->len = 0;
			return 0;
		}
		arg = wire_get_u32(d->buf + 4);
		if (arg > MAX_FRAME) {
			snprintf(detail, sizeof detail, "HASH_DATA of %" PRIu32 " bytes", arg);
			emit_event(pi, c, "framing_error", detail);
			d->len = 0;
			return 0;
		}
		need = 8 + (size_t)arg;
		reply = 4;
		break;
	case MS_SESSION_END:
	case MS_STOP:
		break;
	default:
		snprintf(detail, sizeof detail,
			 "unknown simulator code %" PRIu32 "; %zu bytes dropped", code, d->len);
		emit_event(pi, c, "framing_error", detail);
		d->len = 0;
		return 0;
	}
	if (d->len < need) {
		if (final)
			d->len = 0;
		return 0;
	}
	if (code == MS_SIGNAL_HASH_DATA)
		snprintf(detail, sizeof detail, "%" PRIu32 " bytes", arg);
	else if (code == MS_REMOTE_HANDSHAKE)
		snprintf(detail, sizeof detail, "client version %" PRIu32,
			 wire_get_u32(d->buf + 4));
	else
		snprintf(detail, sizeof detail, "simulator command port");
	emit_event(pi, c, frame_ms_name(code), detail);
	if (reply && pending_push(c, NULL, 0, reply, -1, pi->t, pi->pkt) < 0)
		pi->rc = -ENOMEM;
	dir_consume(d, need);
	return 1;
}

/* Frames as many whole messages as the buffer holds (final: see above). */
static void dir_frame(struct pcap_import *pi, struct conn *c, int di, int final)
{
	struct dir *d = &c->d[di];
	int more;

	while (!pi->rc) {
		if (d->skip) {
			uint32_t n = d->skip < d->len ? d->skip : (uint32_t)d->len;
			dir_consume(d, n);
			d->skip -= n;
			if (d->skip)
				break;
		}
		if (!d->len)
			break;
		if (c->platform) {
			more = pcap_frame_platform(pi, c, di, final);
		} else {
			if (c->mode == FRAME_MODE_UNKNOWN) {
				c->mode = frame_detect_mode(d->buf, d->len, 1);
				if (c->mode == FRAME_MODE_UNKNOWN) {
					if (final)
						frame_garbage(pi, c, di);
					break;
				}
			}
			if (c->mode == FRAME_MODE_RAW)
				more = frame_raw(pi, c, di, final);
			else if (di == FROM_TPM)
				more = frame_mssim_rsp(pi, c, final);
			else
				more = frame_mssim_cmd(pi, c, final);
		}
		if (!more)
			break;
	}
}

static int dir_append(struct pcap_import *pi, struct dir *d, size_t *held, const uint8_t *data,
		      size_t len)
{
	if (!d->cap && pi->spare_buf) {
		d->buf = pi->spare_buf;
		d->cap = DIR_BUF;
		*held += DIR_BUF;
		pi->spare_buf = NULL;
	}
	if (d->len + len > d->cap) {
		size_t cap = d->cap ? d->cap : DIR_BUF;
		while (cap < d->len + len)
			cap *= 2;
		uint8_t *b = realloc(d->buf, cap);
		if (!b)
			return -ENOMEM;
		*held += cap - d->cap;
		d->buf = b;
		d->cap = cap;
	}
	memcpy(d->buf + d->len, data, len);
	d->len += len;
	return 0;
}

/* Bytes are missing from the capture: what was buffered cannot be completed. */
static void dir_gap(struct pcap_import *pi, struct conn *c, int di, uint32_t missing)
{
	struct dir *d = &c->d[di];
	char detail[128];
	pi->st.gaps++;
	snprintf(detail, sizeof detail, "%" PRIu32 " bytes missing %s; %zu buffered bytes dropped",
		 missing, di == TO_TPM ? "to the TPM" : "from the TPM", d->len);
	emit_event(pi, c, "capture_gap", detail);
	d->len = 0;
	d->skip = 0;
	d->next_seq += missing;
}

static void dir_data(struct pcap_import *pi, struct conn *c, int di, const uint8_t *data,
		     size_t len)
{
	if (dir_append(pi, &c->d[di], c->held, data, len) < 0) {
		pi->rc = -ENOMEM;
		return;
	}
	c->d[di].next_seq += (uint32_t)len;
	dir_frame(pi, c, di, 0);
}

/* Processes held segments that now follow on. */
static void dir_drain(struct pcap_import *pi, struct conn *c, int di)
{
	struct dir *d = &c->d[di];
	while (d->ooo && !pi->rc) {
		struct seg *s = d->ooo;
		int32_t diff = (int32_t)(s->seq - d->next_seq);
		if (diff > 0)
			break;
		d->ooo = s->next;
		d->n_ooo--;
		uint32_t old = d->next_seq - s->seq; /* already seen */
		if (old < s->len)
			dir_data(pi, c, di, s->data + old, s->len - old);
		*c->held -= sizeof(*s) + s->len;
		free(s);
	}
}

static void dir_hold(struct pcap_import *pi, struct conn *c, int di, uint32_t seq,
		     const uint8_t *data, size_t len)
{
	struct dir *d = &c->d[di];
	struct seg *s = malloc(sizeof(*s) + len), **pp;
	if (!s) {
		pi->rc = -ENOMEM;
		return;
	}
	s->seq = seq;
	s->len = (uint32_t)len;
	*c->held += sizeof(*s) + len;
	s->t = pi->t;
	s->pkt = pi->pkt;
	memcpy(s->data, data, len);
	for (pp = &d->ooo; *pp && (int32_t)((*pp)->seq - seq) <= 0; pp = &(*pp)->next)
		;
	s->next = *pp;
	*pp = s;
	d->n_ooo++;
	if (d->n_ooo > MAX_OOO) {
		/* The hole will not be filled: give up on the missing bytes. */
		dir_gap(pi, c, di, d->ooo->seq - d->next_seq);
		dir_drain(pi, c, di);
	}
}

/* One TCP segment of a direction (RFC 9293 sequence space). */
void pcap_dir_segment(struct pcap_import *pi, struct conn *c, int di, uint32_t seq, uint8_t flags,
		      const uint8_t *data, size_t len, size_t missing)
{
	struct dir *d = &c->d[di];

	if (flags & TCP_SYN) {
		if (d->seq_valid && (d->len || d->ooo))
			dir_gap(pi, c, di, 0);
		d->seq_valid = 1;
		d->next_seq = ++seq;
	}
	if (!len && !missing)
		return;
	if (!d->seq_valid) {
		d->seq_valid = 1;
		d->next_seq = seq;
	}
	int32_t diff = (int32_t)(seq - d->next_seq);
	if (diff > 0) {
		if (len)
			dir_hold(pi, c, di, seq, data, len);
		return;
	}
	if (diff < 0) { /* retransmission or overlap */
		uint32_t old = d->next_seq - seq;
		if (old >= len + missing)
			return;
		if (old >= len) {
			missing -= old - len;
			len = 0;
		} else {
			data += old;
			len -= old;
		}
	}
	if (len)
		dir_data(pi, c, di, data, len);
	if (missing && !pi->rc) /* cut by the snapshot length */
		dir_gap(pi, c, di, (uint32_t)missing);
	dir_drain(pi, c, di);
}

/* ---- connections ---- */

static uint32_t key_hash(const struct conn_key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h % HASH_SIZE;
}

static void format_peer(const struct conn_key *k, char *out, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	if (k->family == 4) {
		inet_ntop(AF_INET, k->client, a, sizeof a);
		snprintf(out, len, "%s:%u", a, (unsigned)k->client_port);
	} else {
		inet_ntop(AF_INET6, k->client, a, sizeof a);
		snprintf(out, len, "[%s]:%u", a, (unsigned)k->client_port);
	}
}

static void lru_unlink(struct pcap_import *pi, struct conn *c)
{
	*(c->lprev ? &c->lprev->lnext : &pi->lru) = c->lnext;
	*(c->lnext ? &c->lnext->lprev : &pi->mru) = c->lprev;
	c->lprev = c->lnext = NULL;
}

/* c had a packet now: the most recently seen. */
void pcap_lru_touch(struct pcap_import *pi, struct conn *c)
{
	c->last_t = pi->t;
	if (pi->mru == c)
		return;
	if (c->lprev || c->lnext || pi->lru == c)
		lru_unlink(pi, c);
	c->lprev = pi->mru;
	*(pi->mru ? &pi->mru->lnext : &pi->lru) = c;
	pi->mru = c;
}

struct conn *pcap_conn_get(struct pcap_import *pi, const struct conn_key *k, int platform)
{
	/* Packets come in runs of one connection: the last one seen first. */
	if (pi->mru && !memcmp(&pi->mru->key, k, sizeof(*k)))
		return pi->mru;
	uint32_t h = key_hash(k);
	struct conn *c;

	for (c = pi->hash[h]; c; c = c->hnext)
		if (!memcmp(&c->key, k, sizeof(*k)))
			return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->key = *k;
	c->platform = platform;
	c->id = ++pi->last_id;
	c->held = &pi->bytes;
	pi->bytes += sizeof(*c);
	format_peer(k, c->peer, sizeof c->peer);
	c->hnext = pi->hash[h];
	pi->hash[h] = c;
	c->prev = pi->last;
	*(pi->last ? &pi->last->next : &pi->first) = c;
	pi->last = c;
	pi->n_open++;
	pi->st.clients++;
	if (pi->ops.client && !pi->rc)
		pi->rc = pi->ops.client(pi->ctx, c->id, c->peer, pi->t);
	return c;
}

/* Takes c out of the importer (hash, lists) and frees it. */
void pcap_conn_free(struct pcap_import *pi, struct conn *c)
{
	struct conn **pp = &pi->hash[key_hash(&c->key)];
	while (*pp && *pp != c)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = c->hnext;
	*(c->prev ? &c->prev->next : &pi->first) = c->next;
	*(c->next ? &c->next->prev : &pi->last) = c->prev;
	if (c->lprev || c->lnext || pi->lru == c)
		lru_unlink(pi, c);
	for (int di = 0; di < 2; di++) {
		pi->bytes -= c->d[di].cap;
		free(c->d[di].buf);
		while (c->d[di].ooo) {
			struct seg *s = c->d[di].ooo;
			c->d[di].ooo = s->next;
			pi->bytes -= sizeof(*s) + s->len;
			free(s);
		}
	}
	while (c->head)
		pending_free(c, pending_pop(c));
	free(c->spare);
	pi->bytes -= sizeof(*c);
	pi->n_open--;
	free(c);
}

/* The connection is over (FIN both ways, RST, an idle gap, the end of the
 * capture or section): what it still holds is framed as it is, commands
 * without a response are emitted as such, and its memory is given back. */
void pcap_conn_finish(struct pcap_import *pi, struct conn *c)
{
	for (int di = 0; di < 2 && !pi->rc; di++) {
		struct dir *d = &c->d[di];
		if (d->ooo) {
			dir_gap(pi, c, di, d->ooo->seq - d->next_seq);
			dir_drain(pi, c, di);
		}
		dir_frame(pi, c, di, 1);
	}
	struct pending *p;
	while (!pi->rc && (p = pending_pop(c))) {
		if (p->cmd)
			emit_command(pi, c, p, NULL, 0);
		pending_free(c, p);
	}
	pcap_conn_free(pi, c);
}