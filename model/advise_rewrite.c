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
#include "model/tpm/tpm_ht.h"
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

/* repeated-primary keeps the first creation of each re-created primary
 * loaded for the rest of the trace. Its handle may be another object's in
 * the meantime (tpm2-tools: the primary's context saved to a file and
 * flushed, then another object loaded into the freed slot), so in the
 * rewrite the kept primary has a handle of its own, KEPT_PRIMARY + its
 * group, wherever the recorded trace names a handle while that handle is
 * the primary's (after a creation of it, until its flush). The replay maps
 * that handle onto the one its CreatePrimary gets, as it maps any. */
#define KEPT_PRIMARY 0x80fff000u

struct primary_group {
	uint32_t key;
	uint64_t total, seen;
	int64_t last_client; /* the last client that names it (-1: none) */
};

/* Recorded transient handles bound, at a row, to what a rewrite keeps
 * (a re-created primary's group, a kept object): no more than the TPM's
 * object slots are loaded at once in a recording. */
#define MAX_BOUND 64
struct bindings {
	struct {
		uint32_t h;
		int k;
	} b[MAX_BOUND];
	unsigned n;
};

static int bound(const struct bindings *bs, uint32_t h)
{
	for (unsigned i = 0; i < bs->n; i++)
		if (bs->b[i].h == h)
			return bs->b[i].k;
	return -1;
}

static void unbind(struct bindings *bs, uint32_t h)
{
	for (unsigned i = 0; i < bs->n; i++)
		if (bs->b[i].h == h)
			bs->b[i] = bs->b[--bs->n];
}

static void bind(struct bindings *bs, uint32_t h, int k)
{
	unbind(bs, h);
	if (bs->n < MAX_BOUND) {
		bs->b[bs->n].h = h;
		bs->b[bs->n++].k = k;
	}
}

/* r's command bytes (cmd_of: SELECT cmd FROM command WHERE id=?, prepared
 * once per rewrite) with each handle (the handle area; FlushContext's
 * parameter) h written as rename(ctx, h), and its response handle rsp, as
 * r's patch. 0, -ENOMEM or -EIO. */
static int patch_handles(sqlite3_stmt *cmd_of, struct rw_row *r,
			 uint32_t (*rename)(void *, uint32_t), void *ctx, uint32_t rsp)
{
	struct tpm_cmd c;
	int rc = -EIO;
	sqlite3_reset(cmd_of);
	sqlite3_bind_int64(cmd_of, 1, r->id);
	if (sqlite3_step(cmd_of) == SQLITE_ROW) {
		size_t len = (size_t)sqlite3_column_bytes(cmd_of, 0);
		const uint8_t *b = sqlite3_column_blob(cmd_of, 0);
		if (b && len >= TPM_HEADER_SIZE && (r->patch = malloc(len))) {
			memcpy(r->patch, b, len);
			r->patch_len = len;
			r->patch_rsp = rsp;
			r->has_patch = 1;
			unsigned nh = 0;
			if (r->cc == TPM_CC_FlushContext)
				nh = len >= TPM_HEADER_SIZE + 4;
			else if (!tpm_cmd_decode(r->patch, len, &c))
				nh = c.n_handles;
			for (unsigned i = 0; i < nh; i++) {
				uint8_t *at = r->patch + TPM_HEADER_SIZE + 4 * i;
				wire_put_u32(at, rename(ctx, wire_get_u32(at)));
			}
			rc = 0;
		} else {
			rc = b && len >= TPM_HEADER_SIZE ? -ENOMEM : -EIO;
		}
	}
	sqlite3_reset(cmd_of);
	return rc;
}

/* Handle j of r (j < ROW_HANDLES): its handle area's, then FlushContext's
 * parameter; 0 when it has none there. */
#define ROW_HANDLES 4
static uint32_t row_handle(const struct rw_row *r, int j)
{
	return j < 3 ? r->h[j] : r->has_flushed ? r->flushed : 0;
}

static sqlite3_stmt *prepare_cmd_of(sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT cmd FROM command WHERE id=?", -1, &st, NULL) !=
	    SQLITE_OK) {
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

/* A handle bound to a kept primary: that primary's own handle. */
static uint32_t kept_name(void *ctx, uint32_t h)
{
	int k = bound(ctx, h);
	return k >= 0 ? KEPT_PRIMARY + (uint32_t)k : h;
}

/* Marks what repeated-primary drops and renames the kept primaries'
 * handles (above). In a per-client-space trace (one space per process)
 * the replay flushes an object after its creator's last command: a kept
 * primary that later processes use is made its last user's (its
 * CreatePrimary's client). 0, -ENOMEM or -EIO. */
static int plan_primary(sqlite3 *db, struct rw_row *w, size_t n, uint64_t *dropped)
{
	struct primary_group g[MAX_GROUPS];
	struct bindings bs = {.n = 0};
	size_t first[MAX_GROUPS];
	unsigned ng = 0;
	int rc = 0;
	sqlite3_stmt *cmd_of = prepare_cmd_of(db);
	if (!cmd_of)
		return -EIO;
	for (size_t i = 0; i < n; i++) {
		if (w[i].cc != TPM_CC_CreatePrimary || !w[i].ok)
			continue;
		unsigned k = 0;
		while (k < ng && g[k].key != w[i].key)
			k++;
		if (k == ng && ng < MAX_GROUPS) {
			g[ng] = (struct primary_group){w[i].key, 0, 0, -1};
			first[ng++] = i;
		}
		if (k < ng)
			g[k].total++;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		struct rw_row *r = &w[i];
		int kp = -1;
		if (r->cc == TPM_CC_CreatePrimary && r->ok)
			for (unsigned k = 0; k < ng && kp < 0; k++)
				if (g[k].key == r->key && g[k].total > 1)
					kp = (int)k;
		if (kp >= 0) {
			/* a creation of a kept primary: the first stays, under
			 * its own handle; the others go */
			r->drop = g[kp].seen++ > 0;
			if (!r->drop)
				rc = patch_handles(cmd_of, r, kept_name, &bs,
						   KEPT_PRIMARY + (uint32_t)kp);
			bind(&bs, r->rsp_handle, kp);
			*dropped += r->drop;
			continue;
		}
		/* a row that names a kept primary: renamed, and its client the
		 * primary's last user so far */
		int named = 0;
		for (int j = 0; j < ROW_HANDLES; j++) {
			int k = row_handle(r, j) ? bound(&bs, row_handle(r, j)) : -1;
			if (k >= 0 && r->client >= 0)
				g[k].last_client = r->client;
			named |= k >= 0;
		}
		if (named) {
			/* its flush: kept loaded while it is created again */
			int k = r->cc == TPM_CC_FlushContext && r->has_flushed
				    ? bound(&bs, r->flushed)
				    : -1;
			r->drop = k >= 0 && g[k].seen < g[k].total;
			*dropped += r->drop;
			if (!r->drop)
				rc = patch_handles(cmd_of, r, kept_name, &bs, r->rsp_handle);
			if (k >= 0)
				unbind(&bs, r->flushed);
		}
		/* an object made now takes its handle: no longer a primary's */
		if (r->ok && r->rsp_handle)
			unbind(&bs, r->rsp_handle);
	}
	for (unsigned k = 0; k < ng; k++)
		if (g[k].total > 1 && g[k].last_client >= 0 &&
		    g[k].last_client != w[first[k]].client) {
			w[first[k]].has_client = 1;
			w[first[k]].patch_client = g[k].last_client;
		}
	sqlite3_finalize(cmd_of);
	return rc;
}

/* A rewritten row's bytes and the columns decoded from them, in the copy. */
static int apply_patch(sqlite3 *db, int64_t id, const struct rw_row *r)
{
	struct tpm_cmd c;
	sqlite3_stmt *st;
	tpm_cmd_decode(r->patch, r->patch_len, &c);
	if (sqlite3_prepare_v2(
		db,
		"UPDATE command SET cmd=?3,"
		" rsp_handle=CASE WHEN ?4 = 0 AND rsp_handle IS NULL THEN NULL ELSE ?4 END,"
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

/* context-churn keeps each swapped object loaded: a swap's ContextSave,
 * FlushContext and ContextLoad go. An object keeps the name its creation
 * gave it (its recorded handle) for as long as it lives in the rewrite, also
 * while the recording had it swapped out and its handle was another's, and
 * whatever handle its reload got in the recording; an object created while a
 * swapped-out one holds its handle gets a name of its own (CHURN_NAME + n).
 * Every command names objects by these names (handle area, FlushContext's
 * parameter, a creation's response handle). */
#define CHURN_NAME 0x80ffe000u

struct churn_ent {
	uint32_t name;
};

struct churn {
	struct churn_ent *e;
	size_t n;
	struct bindings bs;  /* recorded handle -> entity, while the recording has it loaded */
	struct bindings out; /* name -> entity, while the recording has it swapped out */
	uint32_t next;	     /* synthetic names given */
};

static uint32_t churn_name(void *ctx, uint32_t h)
{
	struct churn *ch = ctx;
	int e = bound(&ch->bs, h);
	return e >= 0 ? ch->e[e].name : h;
}

/* Whether an object alive in the rewrite has name: one swapped out in the
 * recording, or one loaded there under another handle (a reload's). */
static int churn_name_used(const struct churn *ch, uint32_t name)
{
	if (bound(&ch->out, name) >= 0)
		return 1;
	for (unsigned i = 0; i < ch->bs.n; i++)
		if (ch->e[ch->bs.b[i].k].name == name)
			return 1;
	return 0;
}

static int churn_renames(struct churn *ch, const struct rw_row *r)
{
	for (int j = 0; j < ROW_HANDLES; j++)
		if (row_handle(r, j) && churn_name(ch, row_handle(r, j)) != row_handle(r, j))
			return 1;
	return 0;
}

/* A row of a swap: its id, the swap (index into the plan) and which of
 * its rows (0 save, 1 flush, 2 load); sorted by id for bsearch. */
struct swap_row {
	int64_t id;
	size_t k;
	int which;
};

static int cmp_swap_row(const void *a, const void *b)
{
	int64_t x = ((const struct swap_row *)a)->id, y = ((const struct swap_row *)b)->id;
	return x < y ? -1 : x > y;
}

static int plan_churn(sqlite3 *db, int64_t src, struct rw_row *w, size_t n, uint64_t *dropped,
		      char *err, size_t errlen)
{
	struct advise_swap_ids *sw = NULL;
	size_t nsw = 0;
	int rc = advise_churn_plan(db, src, &sw, &nsw);
	struct churn *ch = rc ? NULL : calloc(1, sizeof *ch);
	long *saved = NULL;	    /* per swap: the entity it saved */
	struct swap_row *sr = NULL; /* the swaps' rows, by id */
	size_t nsr = 0;
	sqlite3_stmt *cmd_of = rc ? NULL : prepare_cmd_of(db);
	if (!rc && !cmd_of)
		rc = -EIO;
	if (!rc && (!ch || !(ch->e = calloc(n + 1, sizeof *ch->e)) ||
		    !(saved = malloc((nsw + 1) * sizeof *saved)) ||
		    !(sr = malloc((3 * nsw + 1) * sizeof *sr))))
		rc = -ENOMEM;
	for (size_t k = 0; !rc && k < nsw; k++) {
		saved[k] = -1;
		sr[nsr++] = (struct swap_row){sw[k].save, k, 0};
		if (sw[k].flush)
			sr[nsr++] = (struct swap_row){sw[k].flush, k, 1};
		sr[nsr++] = (struct swap_row){sw[k].load, k, 2};
	}
	if (!rc)
		qsort(sr, nsr, sizeof *sr, cmp_swap_row);
	for (size_t i = 0; !rc && i < n; i++) {
		struct rw_row *r = &w[i];
		const struct swap_row key = {r->id, 0, 0},
				      *q = nsr ? bsearch(&key, sr, nsr, sizeof *sr, cmp_swap_row)
					       : NULL;
		if (q) {
			/* a swap: the object stays loaded under its name */
			size_t k = q->k;
			r->drop = 1;
			(*dropped)++;
			if (q->which == 0 && (saved[k] = bound(&ch->bs, r->h[0])) >= 0) {
				unbind(&ch->bs, r->h[0]);
				bind(&ch->out, ch->e[saved[k]].name, (int)saved[k]);
			} else if (q->which == 1 && r->has_flushed) {
				unbind(&ch->bs, r->flushed);
			} else if (q->which == 2 && saved[k] >= 0 && r->rsp_handle) {
				bind(&ch->bs, r->rsp_handle, (int)saved[k]);
				unbind(&ch->out, ch->e[saved[k]].name);
			}
			continue;
		}
		int e = r->has_flushed && r->cc == TPM_CC_FlushContext ? bound(&ch->bs, r->flushed)
								       : -1;
		uint32_t rsp = r->rsp_handle;
		int made = r->ok && r->rsp_handle && tpm_ht_of(r->rsp_handle) == TPM_HT_TRANSIENT;
		if (made) {
			/* a creation: its recorded handle as its name, unless
			 * an object alive in the rewrite has that name */
			struct churn_ent *ne = &ch->e[ch->n];
			ne->name = churn_name_used(ch, r->rsp_handle) ? CHURN_NAME + ch->next++
								      : r->rsp_handle;
			rsp = ne->name;
		}
		if ((churn_renames(ch, r) || rsp != r->rsp_handle) &&
		    (rc = patch_handles(cmd_of, r, churn_name, ch, rsp)))
			break;
		if (e >= 0) /* a flush ends the object */
			unbind(&ch->bs, r->flushed);
		if (made)
			bind(&ch->bs, r->rsp_handle, (int)ch->n++);
	}
	if (rc == -EIO && !err[0])
		snprintf(err, errlen, "trace %lld: %s", (long long)src, sqlite3_errmsg(db));
	else if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (ch)
		free(ch->e);
	free(ch);
	sqlite3_finalize(cmd_of);
	free(saved);
	free(sr);
	free(sw);
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
	else if ((rc = plan_primary(db, w, n, dropped)))
		snprintf(err, errlen, "trace %lld: %s", (long long)src,
			 rc == -ENOMEM ? "out of memory" : sqlite3_errmsg(db));
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
