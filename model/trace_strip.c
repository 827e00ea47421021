/* The password-equivalent of a trace: model/trace_strip.h. */
#include "model/trace_strip.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/json.h"
#include "db/stats.h"
#include "model/tpm/constants.h"
#include "db/db.h"
#include "model/trace_rows.h"
#include "model/trace_stream.h"
#include "model/tpm/decode.h"
#include "model/policy.h"
#include "model/tpm/wire.h"

#define MAX_LIVE 8

/* The null key's objectAttributes (tpm2-sessions.c, TPM2_OA_NULL_KEY): noDA,
 * fixedTPM, fixedParent, sensitiveDataOrigin, userWithAuth, decrypt,
 * restricted (TPM 2.0 Part 2, 8.3). */
#define NULL_KEY_ATTRS 0x00030472u

/* The kernel's HMAC session area in a command (handle, 32-byte nonce,
 * attributes, 32-byte HMAC) and a response (nonce, attributes, HMAC), and the
 * empty password session that replaces it (Part 1, 18.7 and 19.6.5). */
#define HMAC_CMD_SESSION 73
#define HMAC_RSP_SESSION 69
#define PW_CMD_SESSION	 9
#define PW_RSP_SESSION	 5

enum act { KEEP = 0, DROP_REG, DROP_SETUP, DROP_END, REWRITE };

struct row {
	int64_t id;
	uint32_t cc, h1, h2, rsp_handle, rc, sess_handle, flushed;
	uint8_t has_rc, kernel, n_sessions, attrs, has_flushed, null_key_tpl, act;
	uint8_t own; /* sent by tpmtrace itself (flag 32): counted apart */
};

/* CreatePrimary's inPublic is the kernel's null key template (Part 3, 24.1:
 * primaryHandle, auth area, inSensitive, inPublic). */
static int null_key_template(const uint8_t *cmd, size_t len)
{
	struct tpm_cmd c;
	struct wire_rd r;
	uint16_t sz;
	if (tpm_cmd_decode(cmd, len, &c) || c.cc != TPM_CC_CreatePrimary)
		return 0;
	wire_rd_init(&r, cmd, len);
	wire_skip(&r, c.param_off);
	wire_tpm2b(&r, &sz); /* inSensitive */
	wire_u16(&r);	     /* inPublic's size */
	uint16_t type = wire_u16(&r);
	wire_u16(&r); /* nameAlg */
	uint32_t attrs = wire_u32(&r);
	return !r.err && type == TPM_ALG_ECC && attrs == NULL_KEY_ATTRS;
}

static int live_has(const uint32_t *live, unsigned n, uint32_t h)
{
	for (unsigned i = 0; i < n; i++)
		if (live[i] == h)
			return 1;
	return 0;
}

static void live_drop(uint32_t *live, unsigned *n, uint32_t h)
{
	for (unsigned i = 0; i < *n; i++)
		if (live[i] == h) {
			live[i] = live[--*n];
			return;
		}
}

/* Marks what to remove and what to rewrite. */
static void plan(struct row *w, size_t n, struct strip_result *res)
{
	uint32_t live[MAX_LIVE];
	unsigned nl = 0;
	for (size_t i = 0; i < n; i++) {
		struct row *a = &w[i], *b = i + 1 < n ? &w[i + 1] : NULL,
			   *c = i + 2 < n ? &w[i + 2] : NULL;
		int ok = a->has_rc && a->rc == 0;
		if (a->cc == TPM_CC_Startup && ok)
			nl = 0; /* TPM Reset or Restart: no session survives (Part 1, 19.4) */
		if (!a->kernel)
			continue;
		/* tpm2_create_null_primary: CreatePrimary, ContextSave, FlushContext. */
		if (a->cc == TPM_CC_CreatePrimary && a->h1 == TPM_RH_NULL && ok &&
		    a->null_key_tpl && b && c && b->kernel && c->kernel &&
		    b->cc == TPM_CC_ContextSave && b->h1 == a->rsp_handle &&
		    c->cc == TPM_CC_FlushContext &&
		    (!c->has_flushed || c->flushed == a->rsp_handle)) {
			a->act = b->act = c->act = DROP_REG;
			res->registration += 3;
			i += 2;
			continue;
		}
		/* tpm2_start_auth_session: ContextLoad of the null key,
		 * StartAuthSession salted with it and bound to TPM_RH_NULL,
		 * FlushContext of it. */
		if (a->cc == TPM_CC_ContextLoad && ok && b && c && b->kernel && c->kernel &&
		    b->cc == TPM_CC_StartAuthSession && b->h1 == a->rsp_handle &&
		    b->h2 == TPM_RH_NULL && c->cc == TPM_CC_FlushContext &&
		    (!c->has_flushed || c->flushed == a->rsp_handle)) {
			a->act = b->act = c->act = DROP_SETUP;
			res->setup += 3;
			if (b->has_rc && b->rc == 0 && nl < MAX_LIVE)
				live[nl++] = b->rsp_handle;
			i += 2;
			continue;
		}
		if (a->cc == TPM_CC_FlushContext && nl &&
		    (a->has_flushed ? live_has(live, nl, a->flushed) : 1)) {
			a->act = DROP_END;
			res->ends++;
			if (a->has_flushed)
				live_drop(live, &nl, a->flushed);
			else
				nl = 0;
			continue;
		}
		if (a->n_sessions == 1 && live_has(live, nl, a->sess_handle)) {
			a->act = REWRITE;
			res->rewritten++;
			/* Part 1 19.6.4: without continueSession the TPM ends it. */
			if (ok && !(a->attrs & TPMA_SESSION_CONTINUESESSION))
				live_drop(live, &nl, a->sess_handle);
		}
	}
}

/* The command without the kernel's session: an empty password session, or
 * none (tag NO_SESSIONS) when the command has no authorization handle.
 * Returns the new length, 0 when it does not parse. */
static size_t rewrite_cmd(const uint8_t *in, size_t len, int pw, uint8_t *out, size_t cap)
{
	struct tpm_cmd c;
	if (tpm_cmd_decode(in, len, &c) || c.n_sessions != 1 || c.param_off > len)
		return 0;
	size_t hs = TPM_HEADER_SIZE + 4u * c.n_handles, o = hs;
	size_t need = hs + (pw ? 4 + PW_CMD_SESSION : 0) + (len - c.param_off);
	if (need > cap)
		return 0;
	memcpy(out, in, hs);
	if (pw) {
		static const uint8_t pws[4 + PW_CMD_SESSION] = {
		    0, 0, 0, PW_CMD_SESSION, 0x40, 0, 0, 0x09, 0, 0, 0, 0, 0};
		memcpy(out + o, pws, sizeof pws);
		o += sizeof pws;
	} else {
		wire_put_u16(out, TPM_ST_NO_SESSIONS);
	}
	memcpy(out + o, in + c.param_off, len - c.param_off);
	o += len - c.param_off;
	wire_put_u32(out + 2, (uint32_t)o);
	return o;
}

/* Its response: the password session's (empty nonce, continueSession, empty
 * HMAC), or none. Error responses (a header only) stay. */
static size_t rewrite_rsp(const uint8_t *in, size_t len, uint32_t cc, int pw, uint8_t *out,
			  size_t cap)
{
	struct tpm_rsp p;
	if (tpm_rsp_decode(in, len, cc, &p) || p.rc || p.tag != TPM_ST_SESSIONS)
		return 0;
	size_t hs = TPM_HEADER_SIZE + 4u * p.n_handles;
	if (p.param_off < hs + 4 || p.param_off + p.param_size > len)
		return 0;
	size_t o = hs;
	if (hs + 4 + p.param_size + PW_RSP_SESSION > cap)
		return 0;
	memcpy(out, in, hs);
	if (pw) {
		memcpy(out + o, in + hs, 4 + p.param_size); /* parameterSize, parameters */
		o += 4 + p.param_size;
		static const uint8_t pws[PW_RSP_SESSION] = {0, 0, TPMA_SESSION_CONTINUESESSION, 0,
							    0};
		memcpy(out + o, pws, sizeof pws);
		o += sizeof pws;
	} else {
		wire_put_u16(out, TPM_ST_NO_SESSIONS);
		memcpy(out + o, in + p.param_off, p.param_size);
		o += p.param_size;
	}
	wire_put_u32(out + 2, (uint32_t)o);
	return o;
}

/* One command row of the source (the columns of rows_sql). */
static void fill_row(void *elem, sqlite3_stmt *st, int origin)
{
	struct row *r = elem;
	r->id = sqlite3_column_int64(st, 0);
	r->cc = (uint32_t)sqlite3_column_int64(st, 1);
	r->h1 = (uint32_t)sqlite3_column_int64(st, 2);
	r->h2 = (uint32_t)sqlite3_column_int64(st, 3);
	r->rsp_handle = (uint32_t)sqlite3_column_int64(st, 4);
	r->has_rc = sqlite3_column_type(st, 5) != SQLITE_NULL;
	r->rc = (uint32_t)sqlite3_column_int64(st, 5);
	origin &= ~TRACE_ORIGIN_HWRNG;
	r->kernel = origin == POL_ORIGIN_KERNEL || origin == POL_ORIGIN_UNKNOWN;
	r->n_sessions = (uint8_t)sqlite3_column_int(st, 7);
	r->sess_handle = (uint32_t)sqlite3_column_int64(st, 8);
	r->attrs = (uint8_t)sqlite3_column_int64(st, 9);
	const uint8_t *b = sqlite3_column_blob(st, 10);
	size_t bl = (size_t)sqlite3_column_bytes(st, 10);
	/* FlushContext's flushHandle is a parameter (Part 3, 28.4). */
	if (b && r->cc == TPM_CC_FlushContext && bl >= TPM_HEADER_SIZE + 4) {
		r->flushed = wire_get_u32(b + TPM_HEADER_SIZE);
		r->has_flushed = 1;
	}
	/* Without the bytes the pattern (and the origin) must do. */
	r->null_key_tpl = r->cc == TPM_CC_CreatePrimary && (!b || null_key_template(b, bl));
	r->own = sqlite3_column_int64(st, 11) != 0;
}

static int load_rows(sqlite3 *db, int64_t src, struct row **out, size_t *n_out)
{
	static const char rows_sql[] =
	    "SELECT id, coalesce(cc, 0), handle1, handle2, rsp_handle, rc,"
	    " client_id, n_sessions, sess_handle, sess_attrs,"
	    " CASE WHEN cc IN (tpm_cc('CreatePrimary'), tpm_cc('FlushContext')) THEN cmd "
	    "END, " DB_OWN_CMDS " FROM command WHERE trace_id=? ORDER BY seq";
	void *v = NULL;
	int rc = trace_rows_load(db, src, rows_sql, 6, sizeof **out, fill_row, &v, n_out);
	*out = v;
	return rc;
}

/* A rewritten command: its copy (the last row inserted) gets the password
 * session or none in place of the HMAC one, in its bytes and sizes.
 * Returns -1 on a database error. */
static int strip_rewrite(sqlite3 *db, sqlite3_stmt *get, sqlite3_stmt *upd, const struct row *r,
			 struct strip_result *res, uint8_t *cbuf, size_t cbufsz, uint8_t *rbuf,
			 size_t rbufsz)
{
	int64_t new_id = sqlite3_last_insert_rowid(db);
	const struct tpm_cc_info *ci = tpm_cc_lookup(r->cc);
	int pw = ci && ci->auth_handles;
	sqlite3_bind_int64(get, 1, r->id);
	if (sqlite3_step(get) != SQLITE_ROW)
		return -1;
	const uint8_t *cb = sqlite3_column_blob(get, 0), *rb = sqlite3_column_blob(get, 1);
	size_t cl = (size_t)sqlite3_column_bytes(get, 0), rl = (size_t)sqlite3_column_bytes(get, 1);
	int64_t csz = sqlite3_column_int64(get, 2), rsz = sqlite3_column_int64(get, 3);
	int rsz_null = sqlite3_column_type(get, 3) == SQLITE_NULL;
	size_t ncl = cb ? rewrite_cmd(cb, cl, pw, cbuf, cbufsz) : 0;
	size_t nrl = rb ? rewrite_rsp(rb, rl, r->cc, pw, rbuf, rbufsz) : 0;
	int ok = r->has_rc && r->rc == 0;
	if (cb && ncl)
		csz = (int64_t)ncl;
	else
		csz -= HMAC_CMD_SESSION - (pw ? PW_CMD_SESSION : -4);
	if (rb && (nrl || !ok))
		rsz = nrl ? (int64_t)nrl : rsz;
	else if (ok && !rsz_null)
		rsz -= HMAC_RSP_SESSION - (pw ? PW_RSP_SESSION : -4);
	if (!cb || !ncl || (ok && (!rb || !nrl)))
		res->sizes_assumed++;
	sqlite3_bind_int(upd, 1, pw ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS);
	sqlite3_bind_int64(upd, 2, csz);
	if (rsz_null)
		sqlite3_bind_null(upd, 3);
	else
		sqlite3_bind_int64(upd, 3, rsz);
	sqlite3_bind_int(upd, 4, pw ? 1 : 0);
	if (pw) {
		sqlite3_bind_int64(upd, 5, TPM_RS_PW);
		sqlite3_bind_int(upd, 6, 0);
	} else {
		sqlite3_bind_null(upd, 5);
		sqlite3_bind_null(upd, 6);
	}
	sqlite3_bind_int(upd, 7, pw ? TPM_AUTH_PASSWORD : TPM_AUTH_NONE);
	if (cb && ncl)
		sqlite3_bind_blob(upd, 8, cbuf, (int)ncl, SQLITE_TRANSIENT);
	else if (cb)
		sqlite3_bind_blob(upd, 8, cb, (int)cl, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(upd, 8);
	if (rb && nrl)
		sqlite3_bind_blob(upd, 9, rbuf, (int)nrl, SQLITE_TRANSIENT);
	else if (rb)
		sqlite3_bind_blob(upd, 9, rb, (int)rl, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(upd, 9);
	sqlite3_bind_int64(upd, 10, new_id);
	sqlite3_reset(get);
	if (sqlite3_step(upd) != SQLITE_DONE)
		return -1;
	sqlite3_reset(upd);
	sqlite3_clear_bindings(upd);
	return 0;
}

#define COLS                                                                                       \
	"seq, t_submit_ns, t_done_ns, latency_ns, cc, locality, tag, cmd_size, rsp_size, rc,"      \
	" handle1, handle2, handle3, rsp_handle, n_sessions, sess_handle, sess_attrs, auth_kind,"  \
	" pcr, client_id, flags, malformed, cmd, rsp"

int trace_strip(sqlite3 *db, int64_t src, const char *name, struct strip_result *res, char *err,
		size_t errlen)
{
	struct row *w = NULL;
	size_t n = 0;
	sqlite3_stmt *st = NULL, *ins = NULL, *get = NULL, *upd = NULL;
	int rc, in_tx = 0;
	char nm[64], source[64], payloads[16] = "", emulated[128] = "";
	uint8_t cbuf[TPM_MAX_MESSAGE + 64], rbuf[TPM_MAX_MESSAGE + 64];

	memset(res, 0, sizeof *res);
	if (sqlite3_prepare_v2(db, "SELECT payloads, emulated FROM trace WHERE id=?", -1, &st,
			       NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(st, 1, src);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		snprintf(err, errlen, "no trace %lld in the database", (long long)src);
		return -ENOENT;
	}
	if (sqlite3_column_text(st, 0))
		snprintf(payloads, sizeof payloads, "%s", sqlite3_column_text(st, 0));
	if (sqlite3_column_text(st, 1))
		snprintf(emulated, sizeof emulated, "%s", sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = load_rows(db, src, &w, &n))) {
		if (rc == -EIO)
			goto dberr;
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	for (size_t i = 0; i < n; i++)
		res->source_own += w[i].own;
	res->source_commands = n - res->source_own;
	plan(w, n, res);
	if (!res->registration && !res->setup && !res->ends && !res->rewritten) {
		/* Nothing to strip: the trace is its own password-equivalent, and
		 * a copy of it would only be one more trace to tell apart. */
		res->commands = n;
		rc = 0;
		goto out;
	}

	if (db_exec(db, "BEGIN IMMEDIATE", err, errlen)) {
		rc = -EIO;
		goto out;
	}
	in_tx = 1;
	snprintf(nm, sizeof nm, "password-equivalent of %lld", (long long)src);
	snprintf(source, sizeof source, "strip of trace %lld", (long long)src);
	struct trace_info ti = {.name = name ? name : nm,
				.kind = "derived",
				.source = source,
				.payloads = payloads[0] ? payloads : NULL,
				.emulated = emulated[0] ? emulated : NULL,
				.parent_id = src};
	int64_t id = db_trace_begin(db, &ti);
	if (id < 0)
		goto dberr;
	res->trace_id = id;
	char sql[512];
	snprintf(sql, sizeof sql,
		 "INSERT INTO client (trace_id, id, pid, uid, comm, peer, first_ns)"
		 " SELECT %lld, id, pid, uid, comm, peer, first_ns FROM client WHERE trace_id=%lld;"
		 "INSERT INTO event (trace_id, seq, t_ns, kind, detail, client_id)"
		 " SELECT %lld, seq, t_ns, kind, detail, client_id FROM event WHERE trace_id=%lld",
		 (long long)id, (long long)src, (long long)id, (long long)src);
	if (db_exec(db, sql, err, errlen)) {
		rc = -EIO;
		goto out;
	}
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO command (trace_id, " COLS ") SELECT ?, " COLS
			       " FROM command WHERE id=?",
			       -1, &ins, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT cmd, rsp, cmd_size, rsp_size FROM command WHERE id=?",
			       -1, &get, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "UPDATE command SET tag=?, cmd_size=?, rsp_size=?, n_sessions=?,"
			       " sess_handle=?, sess_attrs=?, auth_kind=?, cmd=?, rsp=? WHERE id=?",
			       -1, &upd, NULL) != SQLITE_OK)
		goto dberr;
	for (size_t i = 0; i < n; i++) {
		if (w[i].act != KEEP && w[i].act != REWRITE)
			continue;
		sqlite3_bind_int64(ins, 1, id);
		sqlite3_bind_int64(ins, 2, w[i].id);
		if (sqlite3_step(ins) != SQLITE_DONE)
			goto dberr;
		sqlite3_reset(ins);
		if (w[i].own)
			res->own++;
		else
			res->commands++;
		if (w[i].act != REWRITE)
			continue;
		if (strip_rewrite(db, get, upd, &w[i], res, cbuf, sizeof cbuf, rbuf, sizeof rbuf))
			goto dberr;
	}
	sqlite3_finalize(ins);
	sqlite3_finalize(get);
	sqlite3_finalize(upd);
	ins = get = upd = NULL;
	int64_t n_ev = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM event WHERE trace_id=?", -1, &st, NULL) !=
	    SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n_ev = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (db_trace_end(db, id, res->commands + res->own, (uint64_t)n_ev, 0, "complete"))
		goto dberr;
	if (db_exec(db, "COMMIT", err, errlen)) {
		rc = -EIO;
		goto out;
	}
	in_tx = 0;
	rc = 0;
	goto out;
dberr:
	snprintf(err, errlen, "trace %lld: %s", (long long)src, sqlite3_errmsg(db));
	rc = -EIO;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	sqlite3_finalize(get);
	sqlite3_finalize(upd);
	if (in_tx)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	free(w);
	return rc;
}

int trace_strip_json(FILE *f, int64_t id, const struct strip_result *r)
{
	struct json_w w;
	json_init_file(&w, f, JSON_COMPACT);
	json_begin_object(&w);
	json_kint(&w, "version", 1);
	json_kint(&w, "source", id);
	if (r->trace_id)
		json_kint(&w, "trace", r->trace_id);
	else
		json_knull(&w, "trace"); /* nothing to strip */
	json_kuint(&w, "source_commands", r->source_commands);
	json_kuint(&w, "commands", r->commands);
	json_kuint(&w, "source_tpmtrace_commands", r->source_own);
	json_kuint(&w, "tpmtrace_commands", r->own);
	json_kuint(&w, "registration", r->registration);
	json_kuint(&w, "setup", r->setup);
	json_kuint(&w, "ends", r->ends);
	json_kuint(&w, "rewritten", r->rewritten);
	json_kuint(&w, "sizes_assumed", r->sizes_assumed);
	json_end_object(&w);
	json_newline(&w);
	return json_done(&w);
}
