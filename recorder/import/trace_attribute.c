/* Lining a guest's ftrace up with a vm-record trace: recorder/import/trace_attribute.h. */
#include "recorder/import/trace_attribute.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/json.h"
#include "db/db.h"
#include "model/trace_rows.h"
#include "model/trace_stream.h"
#include "recorder/import/ftrace.h"
#include "model/policy.h"
#include "model/tpm/tpm_cc.h"

struct tx {
	uint32_t cc;	/* from the function around it; 0 when none names it */
	const char *fn; /* that function */
	uint8_t user, hwrng;
};

struct txs {
	struct tx *v;
	size_t n, cap;
};

static int on_tx(void *ctx, const struct ftrace_op *o)
{
	struct txs *t = ctx;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct tx *v = realloc(t->v, cap * sizeof *v);
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = (struct tx){o->cc, o->fn, (uint8_t)o->user, (uint8_t)o->hwrng};
	return 0;
}

struct wcmd {
	int64_t rowid;
	uint64_t seq;
	uint32_t cc;
	uint8_t origin;
};

/* Whether the transmissions fit the commands from index b on; the first
 * misfit is described in why. */
static int fits(const struct txs *t, const struct wcmd *w, size_t n, size_t b, uint64_t *checked,
		char *why, size_t whylen)
{
	uint64_t c = 0;
	if (t->n > n - b) {
		if (why)
			snprintf(why, whylen,
				 "the ftrace has %zu transmissions, the trace only %zu commands "
				 "from seq %llu on",
				 t->n, n - b, b < n ? (unsigned long long)w[b].seq : 0ull);
		return 0;
	}
	for (size_t i = 0; i < t->n; i++) {
		if (!t->v[i].cc)
			continue;
		if (t->v[i].cc != w[b + i].cc) {
			if (why) {
				const char *a = tpm_cc_name(t->v[i].cc),
					   *bn = tpm_cc_name(w[b + i].cc);
				snprintf(why, whylen,
					 "transmission %zu (in %s) is %s, the trace's command at "
					 "seq %llu is %s",
					 i + 1, t->v[i].fn ? t->v[i].fn : "?", a ? a : "?",
					 (unsigned long long)w[b + i].seq, bn ? bn : "?");
			}
			return 0;
		}
		c++;
	}
	if (checked)
		*checked = c;
	return 1;
}

/* The id of the client (comm, peer) of the trace, made if missing. */
static int64_t client_get(sqlite3 *db, int64_t trace_id, const char *comm, const char *peer,
			  int want_origin)
{
	sqlite3_stmt *st = NULL;
	int64_t id = -1;
	if (sqlite3_prepare_v2(db, "SELECT id, pid, comm, peer FROM client WHERE trace_id=?", -1,
			       &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, trace_id);
	int src = SQLITE_DONE;
	while (id < 0 && (src = sqlite3_step(st)) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 2);
		const char *p = (const char *)sqlite3_column_text(st, 3);
		int hw;
		/* The firmware: whatever client the rule calls so (vm-record's). */
		if (want_origin == POL_ORIGIN_FIRMWARE
			? trace_client_origin(c, p, 0, 0, &hw) == POL_ORIGIN_FIRMWARE
			: (c && p && !strcmp(c, comm) && !strcmp(p, peer)))
			id = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (id >= 0)
		return id;
	if (src != SQLITE_DONE)
		return -1;
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO client (trace_id, id, comm, peer) SELECT ?1,"
			       " coalesce(max(id), 0) + 1, ?2, ?3 FROM client WHERE trace_id=?1",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, trace_id);
	if (comm)
		sqlite3_bind_text(st, 2, comm, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, peer, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return -1;
	return client_get(db, trace_id, comm, peer, want_origin);
}

static void fill_cmd(void *elem, sqlite3_stmt *st, int origin)
{
	struct wcmd *c = elem;
	c->rowid = sqlite3_column_int64(st, 0);
	c->seq = (uint64_t)sqlite3_column_int64(st, 1);
	c->cc = (uint32_t)sqlite3_column_int64(st, 2);
	c->origin = (uint8_t)origin;
}

static int load_commands(sqlite3 *db, int64_t trace_id, struct wcmd **out, size_t *n_out)
{
	void *v = NULL;
	int rc = trace_rows_load(db, trace_id,
				 "SELECT id, seq, coalesce(cc, 0), client_id FROM command"
				 " WHERE trace_id=? ORDER BY seq",
				 3, sizeof **out, fill_cmd, &v, n_out);
	*out = v;
	return rc;
}

int import_trace_attribute_ftrace(sqlite3 *db, int64_t trace_id, const char *buf, size_t len,
				  const char *name, struct attribute_result *res, char *err,
				  size_t errlen)
{
	struct txs t = {0};
	struct wcmd *w = NULL;
	size_t n = 0, b0 = 0, b = 0;
	sqlite3_stmt *up = NULL, *st = NULL;
	int rc, in_tx = 0;

	memset(res, 0, sizeof *res);
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM trace WHERE id=?", -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(st, 1, trace_id);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_ROW) {
		snprintf(err, errlen, "no trace %lld in the database", (long long)trace_id);
		return -ENOENT;
	}
	if ((rc = ftrace_parse_transmissions(buf, len, name, on_tx, &t, NULL, err, errlen)))
		goto out;
	if (!t.n) {
		snprintf(err, errlen,
			 "%s: no TPM transmission in it (was the guest booted with `tpmtrace "
			 "attribute --kernel-cmdline`?)",
			 name);
		rc = -EINVAL;
		goto out;
	}
	if ((rc = load_commands(db, trace_id, &w, &n))) {
		if (rc == -EIO)
			goto dberr;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	res->commands = n;
	res->transmissions = t.n;
	/* Where vm-record saw the kernel start; else the one place that fits. */
	while (b0 < n && w[b0].origin == POL_ORIGIN_FIRMWARE)
		b0++;
	if (fits(&t, w, n, b0, &res->checked, res->mismatch, sizeof res->mismatch)) {
		b = b0;
	} else {
		size_t found = 0;
		for (size_t i = 0; t.n <= n && i <= n - t.n; i++)
			if (i != b0 && fits(&t, w, n, i, NULL, NULL, 0) && !found++)
				b = i;
		if (found != 1) {
			snprintf(err, errlen, "%s does not line up with trace %lld: %s%s", name,
				 (long long)trace_id, res->mismatch,
				 found ? " (and it fits more than one place elsewhere)"
				       : " (and it fits nowhere else: not the same boot?)");
			rc = -EINVAL;
			goto out;
		}
		fits(&t, w, n, b, &res->checked, NULL, 0);
		res->boundary_moved = 1;
		res->mismatch[0] = 0;
	}
	res->first_seq = w[b].seq;

	if (db_exec(db, "BEGIN IMMEDIATE", err, errlen))
		goto out_rc;
	in_tx = 1;
	int64_t cl_fw = b ? client_get(db, trace_id, NULL, "firmware", POL_ORIGIN_FIRMWARE) : 0;
	int64_t cl_k = client_get(db, trace_id, "kernel", "guest", POL_ORIGIN_KERNEL);
	int64_t cl_hw = client_get(db, trace_id, "kernel", "hwrng", POL_ORIGIN_KERNEL);
	int64_t cl_u = client_get(db, trace_id, "userspace", "guest", POL_ORIGIN_USER);
	if (cl_fw < 0 || cl_k < 0 || cl_hw < 0 || cl_u < 0)
		goto dberr;
	if (sqlite3_prepare_v2(db, "UPDATE command SET client_id=? WHERE id=?", -1, &up, NULL) !=
	    SQLITE_OK)
		goto dberr;
	for (size_t i = 0; i < b + t.n; i++) {
		int64_t cl;
		if (i < b) {
			res->firmware++;
			if (w[i].origin == POL_ORIGIN_FIRMWARE)
				continue;
			cl = cl_fw;
		} else {
			const struct tx *x = &t.v[i - b];
			cl = x->user ? cl_u : x->hwrng ? cl_hw : cl_k;
			if (x->user)
				res->user++;
			else if (x->hwrng)
				res->hwrng++;
			else
				res->kernel++;
		}
		sqlite3_bind_int64(up, 1, cl);
		sqlite3_bind_int64(up, 2, w[i].rowid);
		if (sqlite3_step(up) != SQLITE_DONE)
			goto dberr;
		sqlite3_reset(up);
	}
	res->uncovered = n - b - t.n;
	char detail[400];
	snprintf(detail, sizeof detail,
		 "ftrace=%.200s transmissions=%zu first_seq=%llu checked=%llu uncovered=%llu%s",
		 name, t.n, (unsigned long long)res->first_seq, (unsigned long long)res->checked,
		 (unsigned long long)res->uncovered, res->boundary_moved ? " boundary-moved" : "");
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO event (trace_id, seq, kind, detail) SELECT ?1,"
			       " max(coalesce((SELECT max(seq) FROM command WHERE trace_id=?1), 0),"
			       " coalesce((SELECT max(seq) FROM event WHERE trace_id=?1), 0)) + 1,"
			       " 'attribute', ?2",
			       -1, &st, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_text(st, 2, detail, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto dberr;
	sqlite3_finalize(st);
	st = NULL;
	/* verify compares the stored rows with the trace's counts. */
	if (sqlite3_prepare_v2(db, "UPDATE trace SET events = events + 1 WHERE id=?", -1, &st,
			       NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(st, 1, trace_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto dberr;
	if (db_exec(db, "COMMIT", err, errlen))
		goto out_rc;
	in_tx = 0;
	rc = 0;
	goto out;
out_rc:
	rc = -EIO;
	goto out;
dberr:
	snprintf(err, errlen, "trace %lld: %s", (long long)trace_id, sqlite3_errmsg(db));
	rc = -EIO;
out:
	sqlite3_finalize(up);
	sqlite3_finalize(st);
	if (in_tx)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	free(t.v);
	free(w);
	return rc;
}

int import_trace_attribute_json(FILE *f, int64_t id, const struct attribute_result *r)
{
	struct json_w w;
	json_init_file(&w, f, JSON_COMPACT);
	json_begin_object(&w);
	json_kint(&w, "version", 1);
	json_kint(&w, "trace", id);
	json_kuint(&w, "commands", r->commands);
	json_kuint(&w, "transmissions", r->transmissions);
	json_kuint(&w, "firmware", r->firmware);
	json_kuint(&w, "kernel", r->kernel);
	json_kuint(&w, "hwrng", r->hwrng);
	json_kuint(&w, "userspace", r->user);
	json_kuint(&w, "uncovered", r->uncovered);
	json_kuint(&w, "checked", r->checked);
	json_kuint(&w, "first_seq", r->first_seq);
	json_kbool(&w, "boundary_moved", r->boundary_moved);
	json_end_object(&w);
	json_newline(&w);
	return json_done(&w);
}
