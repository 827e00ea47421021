/* The named rewrites of tpmtrace advise (model/advise.h): a trace with a
 * finding's change made, for replay. The session rewrites are
 * model/advise_rewrite_sess.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "model/advise.h"
#include "model/advise_rw.h"
#include "model/tpm/constants.h"
#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/wire.h"

#define MAX_GROUPS 64

static int load(sqlite3 *db, int64_t src, struct rw_row **out, size_t *n_out)
{
	sqlite3_stmt *st;
	struct rw_row *v = NULL;
	size_t n = 0, cap = 0;
	if (sqlite3_prepare_v2(
		db,
		"SELECT id, coalesce(cc, 0), handle1, rsp_handle, rc,"
		" CASE WHEN cc IN (tpm_cc('CreatePrimary'), tpm_cc('FlushContext')) THEN cmd END,"
		" coalesce(handle2, 0), coalesce(handle3, 0), coalesce(client_id, -1)"
		" FROM command WHERE trace_id=? ORDER BY seq",
		-1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, src);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			struct rw_row *nv = realloc(v, cap * sizeof *v);
			if (!nv) {
				free(v);
				sqlite3_finalize(st);
				return -ENOMEM;
			}
			v = nv;
		}
		struct rw_row *r = &v[n++];
		memset(r, 0, sizeof *r);
		r->id = sqlite3_column_int64(st, 0);
		r->cc = (uint32_t)sqlite3_column_int64(st, 1);
		r->rsp_handle = (uint32_t)sqlite3_column_int64(st, 3);
		for (int k = 0; k < 3; k++)
			r->h[k] = (uint32_t)sqlite3_column_int64(st, k ? 5 + k : 2);
		r->client = sqlite3_column_int64(st, 8);
		r->ok =
		    sqlite3_column_type(st, 4) != SQLITE_NULL && sqlite3_column_int64(st, 4) == 0;
		const uint8_t *b = sqlite3_column_blob(st, 5);
		size_t bl = (size_t)sqlite3_column_bytes(st, 5);
		if (r->cc == TPM_CC_CreatePrimary)
			r->key = advise_primary_key(b, bl, (uint32_t)sqlite3_column_int64(st, 2));
		if (r->cc == TPM_CC_FlushContext && b && bl >= TPM_HEADER_SIZE + 4) {
			r->flushed = wire_get_u32(b + TPM_HEADER_SIZE);
			r->has_flushed = 1;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return -EIO;
	}
	*out = v;
	*n_out = n;
	return 0;
}

/* In a per-client-space trace (one space per process) the replay flushes
 * an object after its creator's last command: a kept primary that later
 * processes use is their last user's (its CreatePrimary's client). */
static void primary_owners(struct rw_row *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (w[i].drop || w[i].cc != TPM_CC_CreatePrimary || !w[i].ok)
			continue;
		uint32_t h = w[i].rsp_handle;
		int64_t last = -1;
		for (size_t j = i + 1; j < n; j++) {
			const struct rw_row *r = &w[j];
			if (r->drop)
				continue;
			if ((r->cc == TPM_CC_CreatePrimary || r->cc == TPM_CC_ContextLoad ||
			     r->cc == TPM_CC_Load) &&
			    r->ok && r->rsp_handle == h)
				break; /* the handle is another object's from here on */
			int names = (r->has_flushed && r->flushed == h) || r->h[0] == h ||
				    r->h[1] == h || r->h[2] == h;
			if (names && r->client >= 0)
				last = r->client;
			if (r->has_flushed && r->flushed == h)
				break;
		}
		if (last >= 0 && last != w[i].client) {
			w[i].has_client = 1;
			w[i].patch_client = last;
		}
	}
}

/* Whether another object takes the kept primary's handle while the rewrite
 * keeps it (from its first creation to its last re-creation): a
 * ContextLoad of a saved copy after a flush that the rewrite drops, say.
 * The trace would need its handles remapped. */
static int handle_taken(const struct rw_row *w, size_t n, uint32_t key, uint32_t h, char *err,
			size_t errlen)
{
	size_t first = n, last = 0;
	for (size_t i = 0; i < n; i++)
		if (w[i].cc == TPM_CC_CreatePrimary && w[i].ok && w[i].key == key) {
			if (first == n)
				first = i;
			last = i;
		}
	for (size_t i = first + 1; i < last; i++) {
		const struct rw_row *r = &w[i];
		if (r->drop || !r->ok || r->rsp_handle != h ||
		    (r->cc == TPM_CC_CreatePrimary && r->key == key))
			continue;
		if (r->cc == TPM_CC_ContextLoad || r->cc == TPM_CC_Load ||
		    r->cc == TPM_CC_CreatePrimary || r->cc == TPM_CC_CreateLoaded ||
		    r->cc == TPM_CC_LoadExternal) {
			snprintf(
			    err, errlen,
			    "repeated-primary: a %s returned 0x%08x, the handle of the primary "
			    "the rewrite keeps loaded (the trace would need its handles "
			    "remapped)",
			    tpm_cc_name(r->cc), h);
			return 1;
		}
	}
	return 0;
}

static int rw_cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Marks what repeated-primary drops; -EINVAL with err when a re-creation
 * returned another handle than the first (the rest of the trace would
 * need remapping). */
static int plan_primary(struct rw_row *w, size_t n, uint64_t *dropped, char *err, size_t errlen)
{
	struct {
		uint32_t key, handle;
		uint64_t total, seen;
	} g[MAX_GROUPS];
	unsigned ng = 0;
	for (size_t i = 0; i < n; i++) {
		if (w[i].cc != TPM_CC_CreatePrimary || !w[i].ok)
			continue;
		unsigned k = 0;
		while (k < ng && g[k].key != w[i].key)
			k++;
		if (k == ng && ng < MAX_GROUPS) {
			g[ng].key = w[i].key;
			g[ng].handle = w[i].rsp_handle;
			g[ng].total = g[ng].seen = 0;
			ng++;
		}
		if (k < ng)
			g[k].total++;
	}
	for (size_t i = 0; i < n; i++) {
		struct rw_row *r = &w[i];
		for (unsigned k = 0; k < ng; k++) {
			if (g[k].total < 2)
				continue;
			if (r->cc == TPM_CC_CreatePrimary && r->ok && r->key == g[k].key) {
				if (g[k].seen++ && r->rsp_handle != g[k].handle) {
					snprintf(
					    err, errlen,
					    "repeated-primary: a re-creation returned 0x%08x, the "
					    "first 0x%08x (the trace would need its handles "
					    "remapped)",
					    r->rsp_handle, g[k].handle);
					return -EINVAL;
				}
				r->drop = g[k].seen > 1;
			} else if (r->cc == TPM_CC_FlushContext && r->has_flushed &&
				   r->flushed == g[k].handle && g[k].seen &&
				   g[k].seen < g[k].total) {
				r->drop = 1; /* the primary is created again later: keep it */
			}
		}
		*dropped += r->drop;
	}
	for (unsigned k = 0; k < ng; k++)
		if (g[k].total > 1 && handle_taken(w, n, g[k].key, g[k].handle, err, errlen))
			return -EINVAL;
	primary_owners(w, n);
	return 0;
}

/* A rewritten row's bytes and the columns decoded from them, in the copy. */
static int apply_patch(sqlite3 *db, int64_t id, const struct rw_row *r)
{
	struct tpm_cmd c;
	sqlite3_stmt *st;
	tpm_cmd_decode(r->patch, r->patch_len, &c);
	if (sqlite3_prepare_v2(db,
			       "UPDATE command SET cmd=?3, rsp_handle=?4,"
			       " handle1=CASE WHEN ?5 > 0 THEN ?6 ELSE handle1 END,"
			       " handle2=CASE WHEN ?5 > 1 THEN ?7 ELSE handle2 END,"
			       " handle3=CASE WHEN ?5 > 2 THEN ?8 ELSE handle3 END,"
			       " sess_handle=CASE WHEN ?9 > 0 THEN ?10 ELSE sess_handle END,"
			       " sess_attrs=CASE WHEN ?9 > 0 THEN ?11 ELSE sess_attrs END"
			       " WHERE trace_id=?1 AND seq=(SELECT seq FROM command WHERE id=?2)",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, r->id);
	sqlite3_bind_blob(st, 3, r->patch, (int)r->patch_len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, r->patch_rsp);
	sqlite3_bind_int(st, 5, c.n_handles);
	for (int k = 0; k < 3; k++)
		sqlite3_bind_int64(st, 6 + k, c.handles[k]);
	sqlite3_bind_int(st, 9, c.n_sessions);
	sqlite3_bind_int64(st, 10, c.n_sessions ? c.sess[0].handle : 0);
	sqlite3_bind_int64(st, 11, tpm_pack_attrs(c.sess_attrs, c.n_sessions));
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	return rc;
}

static int apply_client(sqlite3 *db, int64_t id, const struct rw_row *r)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "UPDATE command SET client_id=?3 WHERE trace_id=?1 AND"
			       " seq=(SELECT seq FROM command WHERE id=?2)",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, r->id);
	sqlite3_bind_int64(st, 3, r->patch_client);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	return rc;
}

/* context-churn: the rows advise_churn_plan drops. */
static int plan_churn(sqlite3 *db, int64_t src, struct rw_row *w, size_t n, uint64_t *dropped,
		      char *err, size_t errlen)
{
	int64_t *ids;
	size_t nd;
	int rc = advise_churn_plan(db, src, &ids, &nd, err, errlen);
	for (size_t i = 0; !rc && i < n; i++)
		if (nd && bsearch(&w[i].id, ids, nd, sizeof *ids, rw_cmp_id)) {
			w[i].drop = 1;
			(*dropped)++;
		}
	if (!rc)
		free(ids);
	return rc;
}

/* Copies src into a new derived trace without the dropped rows. */
static int copy(sqlite3 *db, int64_t src, const char *rewrite, const struct rw_row *w, size_t n,
		int64_t *new_id, char *err, size_t errlen)
{
	char name[96], source[96], payloads[16] = "", sql[512];
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT coalesce(payloads, '') FROM trace WHERE id=?", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, src);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(payloads, sizeof payloads, "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	snprintf(name, sizeof name, "%s rewrite of %lld", rewrite, (long long)src);
	snprintf(source, sizeof source, "advise --rewrite %s of trace %lld", rewrite,
		 (long long)src);
	struct trace_info ti = {.name = name,
				.kind = "derived",
				.source = source,
				.payloads = payloads[0] ? payloads : NULL,
				.parent_id = src};
	int64_t id = db_trace_begin(db, &ti);
	if (id < 0)
		return -EIO;
	snprintf(sql, sizeof sql,
		 "INSERT INTO client (trace_id, id, pid, uid, comm, peer, first_ns)"
		 " SELECT %lld, id, pid, uid, comm, peer, first_ns FROM client WHERE trace_id=%lld;"
		 "INSERT INTO event (trace_id, seq, t_ns, kind, detail, client_id)"
		 " SELECT %lld, seq, t_ns, kind, detail, client_id FROM event WHERE trace_id=%lld",
		 (long long)id, (long long)src, (long long)id, (long long)src);
	if (db_exec(db, sql, err, errlen))
		return -EIO;
	if (sqlite3_prepare_v2(
		db,
		"INSERT INTO command (trace_id, seq, t_submit_ns, t_done_ns, latency_ns,"
		" cc, locality, tag, cmd_size, rsp_size, rc, handle1, handle2, handle3,"
		" rsp_handle, n_sessions, sess_handle, sess_attrs, auth_kind, pcr,"
		" client_id, flags, malformed, cmd, rsp) SELECT ?, seq, t_submit_ns,"
		" t_done_ns, latency_ns, cc, locality, tag, cmd_size, rsp_size, rc,"
		" handle1, handle2, handle3, rsp_handle, n_sessions, sess_handle,"
		" sess_attrs, auth_kind, pcr, client_id, flags, malformed, cmd, rsp"
		" FROM command WHERE id=?",
		-1, &st, NULL) != SQLITE_OK)
		return -EIO;
	uint64_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (w[i].drop)
			continue;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, w[i].id);
		if (sqlite3_step(st) != SQLITE_DONE) {
			sqlite3_finalize(st);
			return -EIO;
		}
		sqlite3_reset(st);
		kept++;
		if ((w[i].has_patch && apply_patch(db, id, &w[i])) ||
		    (w[i].has_client && apply_client(db, id, &w[i]))) {
			sqlite3_finalize(st);
			return -EIO;
		}
	}
	sqlite3_finalize(st);
	int64_t n_ev = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM event WHERE trace_id=?", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW)
			n_ev = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	if (db_trace_end(db, id, kept, (uint64_t)n_ev, 0, "complete"))
		return -EIO;
	*new_id = id;
	return 0;
}

int advise_rewrite(sqlite3 *db, int64_t src, const char *rewrite, int64_t *new_id,
		   uint64_t *dropped, char *err, size_t errlen)
{
	struct rw_row *w = NULL;
	size_t n = 0;
	*dropped = 0;
	if (errlen)
		err[0] = 0;
	int kind = -1;
	if (!strcmp(rewrite, "session-per-command"))
		kind = ADVISE_SESSION_PER_CMD;
	else if (!strcmp(rewrite, "policy-rebuilt"))
		kind = ADVISE_POLICY_REBUILT;
	else if (strcmp(rewrite, "repeated-primary") && strcmp(rewrite, "context-churn")) {
		snprintf(err, errlen,
			 "no rewrite '%s' (there are: repeated-primary, session-per-command, "
			 "policy-rebuilt, context-churn)",
			 rewrite);
		return -EINVAL;
	}
	int rc = load(db, src, &w, &n);
	if (rc) {
		snprintf(err, errlen, "trace %lld: %s", (long long)src,
			 rc == -ENOMEM ? "out of memory" : sqlite3_errmsg(db));
		return rc;
	}
	if (!n) {
		free(w);
		snprintf(err, errlen, "trace %lld has no commands", (long long)src);
		return -ENOENT;
	}
	if (kind >= 0)
		rc = advise_rw_plan_sessions(db, src, kind, w, n, dropped, err, errlen);
	else if (!strcmp(rewrite, "context-churn"))
		rc = plan_churn(db, src, w, n, dropped, err, errlen);
	else
		rc = plan_primary(w, n, dropped, err, errlen);
	if (rc)
		goto out;
	if (db_exec(db, "BEGIN IMMEDIATE", err, errlen)) {
		rc = -EIO;
		goto out;
	}
	rc = copy(db, src, rewrite, w, n, new_id, err, errlen);
	if (rc) {
		if (rc == -EIO && !err[0])
			snprintf(err, errlen, "trace %lld: %s", (long long)src, sqlite3_errmsg(db));
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	} else if (db_exec(db, "COMMIT", err, errlen)) {
		rc = -EIO;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(w[i].patch);
	free(w);
	return rc;
}
