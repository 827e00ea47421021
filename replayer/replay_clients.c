/* The replay engine's clients (replay_int.h): the run's client rows copied
 * from its source's and their first_ns set at the end, and a per-client-space
 * trace's clients ended as its resource manager ended them. */
#include "replayer/replay_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* FlushContext of a target handle, sent for the replay's own bookkeeping
 * (role rm-client-end); a TPM error is not the trace's and is ignored. */
static int flush_target(struct rp *x, uint32_t rep)
{
	uint8_t cmd[14];
	wire_put_u16(cmd, TPM_ST_NO_SESSIONS);
	wire_put_u32(cmd + 2, sizeof cmd);
	wire_put_u32(cmd + 6, TPM_CC_FlushContext);
	wire_put_u32(cmd + 10, rep);
	int saved = x->now.cur_role, rc;
	x->now.cur_role = REPLAY_ROLE_CLIENT_END;
	rc = rp_xfer(x, cmd, sizeof cmd);
	x->now.cur_role = saved;
	return rc < 0 ? rc : 0;
}

/* A client of a per-client-space trace sent its last command: what it still
 * has loaded goes, as when it closed /dev/tpmrm0. */
void rp_client_end(struct rp *x, uint32_t client)
{
	for (int i = 0; i < MAX_OBJS && !x->now.fatal; i++) {
		struct obj *o = &x->ent.objs[i];
		if (o->used && o->created && o->client == client &&
		    tpm_ht_of(o->rec) == TPM_HT_TRANSIENT && !flush_target(x, o->rep))
			o->used = 0;
	}
	for (int i = 0; i < MAX_SESS && !x->now.fatal; i++) {
		struct rsess *r = &x->sessions.sess[i];
		if (r->used && r->client == client && !flush_target(x, r->s.handle))
			r->used = 0;
	}
}

/* rm_spaces: the trace came from tpm-cuse-proxy in front of a /dev/tpmrmN
 * node (source "cuse:NODE <- .../tpmrmN"), where each client had its own
 * resource-manager space; cl_last: each client's last command. */
int rp_rm_spaces_init(struct rp *x, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	const char *src = NULL, *be;
	/* a derived trace (strip, advise --rewrite) was recorded as its parent was */
	if (sqlite3_prepare_v2(db,
			       "SELECT CASE WHEN t.kind = 'derived' THEN p.source ELSE t.source END"
			       " FROM trace t LEFT JOIN trace p ON p.id = t.parent_id WHERE t.id=?",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, x->res->source_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		src = (const char *)sqlite3_column_text(st, 0);
	be = src && !strncmp(src, "cuse:", 5) ? strstr(src, " <- ") : NULL;
	if (be) {
		const char *base = strrchr(be + 4, '/');
		x->cl.rm_spaces = !strncmp(base ? base + 1 : be + 4, "tpmrm", 5);
	}
	sqlite3_finalize(st);
	if (!x->cl.rm_spaces)
		return 0;
	if (sqlite3_prepare_v2(
		db,
		"SELECT client_id, max(seq) FROM command WHERE trace_id=? AND"
		" client_id BETWEEN 0 AND 65535 GROUP BY client_id ORDER BY client_id",
		-1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, x->res->source_id);
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		size_t id = (size_t)sqlite3_column_int64(st, 0);
		if (id >= x->cl.n_cl) {
			uint64_t *n = realloc(x->cl.cl_last, (id + 1) * sizeof *n);
			if (!n) {
				sqlite3_finalize(st);
				return -ENOMEM;
			}
			memset(n + x->cl.n_cl, 0, (id + 1 - x->cl.n_cl) * sizeof *n);
			x->cl.cl_last = n;
			x->cl.n_cl = id + 1;
		}
		x->cl.cl_last[id] = (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : -EIO;
}

/* The run's clients are its source's (each replayed command keeps its
 * source command's client): their rows copied (their first_ns the run's,
 * set by rp_clients_finish), the numbers after them free for the replay's own
 * client, which is the source's tpmtrace client when it has one. */
int rp_clients_copy(struct rp *x, sqlite3 *db, int64_t id, uint32_t *last, uint32_t *own)
{
	sqlite3_stmt *st = NULL;
	int rc = -EIO;
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO client (trace_id, id, pid, uid, comm, peer)"
			       " SELECT ?1, id, pid, uid, comm, peer FROM client WHERE trace_id=?2",
			       -1, &st, NULL) != SQLITE_OK)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, x->res->source_id);
	int done = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	if (!done || sqlite3_prepare_v2(db,
					"SELECT coalesce(max(id), 0), (SELECT min(id) FROM client"
					" WHERE trace_id=?1 AND comm='tpmtrace' AND pid IS NULL AND"
					" peer='tpmtrace itself') FROM client WHERE trace_id=?1",
					-1, &st, NULL) != SQLITE_OK)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*last = (uint32_t)sqlite3_column_int64(st, 0);
		*own = (uint32_t)sqlite3_column_int64(st, 1);
		rc = 0;
	}
	sqlite3_finalize(st);
	/* Every client's number is at most last + 1 (the replay's own, when
	 * the source has none): its first command is noted by number
	 * (rp_client_sent); numbers beyond the table are left to SQL. */
	size_t n = rc ? 0 : (size_t)*last + 2;
	if (n > TRACE_MAX_CLIENTS)
		n = TRACE_MAX_CLIENTS;
	x->cl.first_ns = n ? calloc(n, sizeof *x->cl.first_ns) : NULL;
	x->cl.n_first = x->cl.first_ns ? n : 0;
	return rc;
}

/* sql with the parameters ?1 = a, ?2 = b: 0 or -EIO. */
static int run2(sqlite3 *db, const char *sql, int64_t a, int64_t b)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	return rc;
}

/* Each client's first_ns: its first command in the run (the source's times
 * are another run's clock), i.e. the least t_submit_ns of its rows. Those
 * the run noted as it sent them (rp_client_sent) are set from the note: the
 * same value, without reading the run's rows again once per client (4 ms of
 * a 10,000-command run, on the measured path); SQL finds it for the rest
 * (numbers beyond the table), and for all of them when the run could not
 * store every row (exact = 0). */
int rp_clients_finish(struct rp *x, sqlite3 *db, int64_t id, int exact)
{
	sqlite3_stmt *st;
	int64_t n = exact ? (int64_t)x->cl.n_first : 0;
	if (n) {
		if (run2(db,
			 "UPDATE client SET first_ns=NULL WHERE trace_id=?1 AND id BETWEEN 0 AND "
			 "?2 - 1"
			 " AND first_ns IS NOT NULL",
			 id, n) ||
		    sqlite3_prepare_v2(db,
				       "UPDATE client SET first_ns=?3 WHERE trace_id=?1 AND id=?2",
				       -1, &st, NULL) != SQLITE_OK)
			return -EIO;
		int rc = 0;
		for (int64_t i = 0; i < n && !rc; i++) {
			if (!x->cl.first_ns[i])
				continue;
			sqlite3_bind_int64(st, 1, id);
			sqlite3_bind_int64(st, 2, i);
			sqlite3_bind_int64(st, 3, (int64_t)x->cl.first_ns[i]);
			rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
			sqlite3_reset(st);
		}
		sqlite3_finalize(st);
		if (rc)
			return rc;
	}
	return run2(
	    db,
	    "UPDATE client SET first_ns = (SELECT min(t_submit_ns) FROM command WHERE"
	    " trace_id=?1 AND client_id=client.id) WHERE trace_id=?1 AND (id < 0 OR id >= ?2)",
	    id, n);
}
