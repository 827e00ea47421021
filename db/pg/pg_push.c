/* tpmtrace push: a file's traces into the fleet server, small ones in
 * batches of one transaction (a trace all or nothing: a batch that fails
 * goes again one trace at a time), rows by COPY, a trace the server has (by
 * UUID) never sent again. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/pg/pg.h"
#include "db/pg/pg_copy.h"
#include "db/trace_kind.h"
#include "db/utf8.h"
#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "model/trace_chip.h"

/* The response codes of the rows a transaction sends, ascending, each once
 * (the rows' own: the file is not read again for them). */
struct rc_set {
	uint32_t *v;
	size_t n, cap;
	int oom;
};

static void rc_add(struct rc_set *s, uint32_t rc)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->v[mid] == rc)
			return;
		if (s->v[mid] < rc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		uint32_t *nv = realloc(s->v, cap * sizeof *nv);
		if (!nv) {
			s->oom = 1;
			return;
		}
		s->v = nv;
		s->cap = cap;
	}
	memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof *s->v);
	s->v[lo] = rc;
	s->n++;
}

/* Their texts for tpm_rc_text() on the server, one statement in ascending
 * order (concurrent pushers lock in one order): malloc'd SQL, or NULL. */
static char *rc_texts_sql(PGconn *c, const struct rc_set *s)
{
	size_t cap = 4096, n;
	char *sql = malloc(cap);
	if (!sql)
		return NULL;
	n = (size_t)snprintf(sql, cap, "INSERT INTO tpm_rc VALUES ");
	for (size_t i = 0; i < s->n; i++) {
		const char *t = tpm_rc_str(s->v[i]);
		char *lit = PQescapeLiteral(c, t, strlen(t));
		if (!lit)
			goto fail;
		if (n + strlen(lit) + 40 > cap) {
			char *ns = realloc(sql, cap * 2 + strlen(lit));
			if (!ns) {
				PQfreemem(lit);
				goto fail;
			}
			sql = ns;
			cap = cap * 2 + strlen(lit);
		}
		n += (size_t)snprintf(sql + n, cap - n, "%s(%u,%s)", i ? "," : "", s->v[i], lit);
		PQfreemem(lit);
	}
	snprintf(sql + n, cap - n, " ON CONFLICT (rc) DO NOTHING");
	return sql;
fail:
	free(sql);
	return NULL;
}

static const char q_traces[] =
    "SELECT t.id, t.uuid, t.name, t.kind, t.source, t.started_at, t.start_ns, t.end_ns,"
    " t.payloads, t.host, t.tool_version, p.uuid, t.policy, t.emulated, t.status, t.commands,"
    " t.events, t.dropped, t.notes, h.hostname, h.machine_id_sha256, h.kernel_release,"
    " h.kernel_cmdline, h.boot_id, k.kind"
    " FROM trace t LEFT JOIN trace p ON p.id = t.parent_id"
    " LEFT JOIN trace_host h ON h.trace_id = t.id LEFT JOIN trace_kind k ON k.trace_id = t.id"
    " WHERE ?1 = 0 OR t.id = ?1 ORDER BY t.id";

/* The trace row: its server id, or nothing when the server has the UUID
 * already (then, if another pusher's transaction holds it, after that one
 * ends). Its host goes after its rows (q_host, one row a trace), in the same
 * transaction: the TPM's identity is read from the command rows as sent. */
static const char q_insert[] =
    "INSERT INTO trace (uuid, local_id, name, kind, source, started_at, start_ns,"
    " end_ns, payloads, host, tool_version, parent_uuid, parent_id, policy, emulated, status,"
    " commands, events, dropped, notes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,"
    " $12::uuid, (SELECT id FROM trace WHERE uuid = $12::uuid), $13, $14, $15, $16, $17, $18,"
    " $19) ON CONFLICT (uuid) DO NOTHING RETURNING id";
static const char q_host[] =
    "INSERT INTO trace_host (trace_id, hostname, machine_id_sha256, kernel_release,"
    " kernel_cmdline, boot_id, tpm_manufacturer, tpm_vendor, tpm_firmware, tpm_profile) VALUES ";
/* One row of q_host, its parameters from $(k + 1). */
#define HOST_ROW                                                                                   \
	"%s($%d, $%d, $%d, $%d, $%d, $%d, nullif($%d, ''), nullif($%d, ''), nullif($%d, ''),"      \
	" nullif($%d, ''))"

struct copy_spec {
	const char *into, *select;
	const char *types; /* of the selected columns: i bigint, t text, b bytea */
};
static const struct copy_spec copies[] = {
    {"client (trace_id, id, pid, uid, comm, peer, first_ns)",
     "SELECT id, pid, uid, comm, peer, first_ns FROM client WHERE trace_id=? ORDER BY id",
     "iiitti"},
    {"command (trace_id, seq, t_submit_ns, t_done_ns, latency_ns, cc, locality, tag, cmd_size,"
     " rsp_size, rc, handle1, handle2, handle3, rsp_handle, n_sessions, sess_handle, sess_attrs,"
     " auth_kind, pcr, client_id, flags, malformed, cmd, rsp)",
     "SELECT seq, t_submit_ns, t_done_ns, latency_ns, cc, locality, tag, cmd_size, rsp_size, rc,"
     " handle1, handle2, handle3, rsp_handle, n_sessions, sess_handle, sess_attrs, auth_kind,"
     " pcr, client_id, flags, malformed, cmd, rsp FROM command WHERE trace_id=? ORDER BY seq",
     "iiiiiiiiiiiiiiiiiiiiitbb"},
    {"event (trace_id, seq, t_ns, kind, detail, client_id)",
     "SELECT seq, t_ns, kind, detail, client_id FROM event WHERE trace_id=? ORDER BY seq", "iitti"},
};

/* A batch: at most this many traces, of at most this many commands in all
 * (a larger trace goes alone). */
#define PUSH_BATCH_TRACES   256
#define PUSH_BATCH_COMMANDS 40000

static int exec_ok(PGconn *c, const char *sql, const char *what, char *err, size_t errlen)
{
	PGresult *r = PQexec(c, sql);
	int ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		pg_res_err(c, r, what, err, errlen);
	PQclear(r);
	return ok ? 0 : -EIO;
}

/* A trace to send: its row's values as the INSERTs' parameters (owned
 * copies: the file's row is gone by the time its batch goes). */
struct item {
	int64_t local;
	uint64_t commands;	       /* the file's count: the batch's size */
	char *pv[24];		       /* q_insert's 19 parameters, q_host's 5 of the file */
	char uuid[4 * 36 + 1];	       /* for messages: cut, converted as text */
	struct trace_chip_reader chip; /* its rows' GetCapability answers, as sent */
};

static void item_free(struct item *it)
{
	for (int i = 0; i < 24; i++)
		free(it->pv[i]);
	memset(it, 0, sizeof *it);
}

static int keep(char **dst, const char *v)
{
	return !v || (*dst = strdup(v)) ? 0 : -ENOMEM;
}

/* The trace row tr is on (q_traces) as an item: pv[0] (the UUID) and
 * pv[2..23] its columns, pv[1] its local id. A text value with NUL or bytes
 * of no UTF-8 character goes converted (pg_text_convert), as COPY's text
 * columns. 0, or -ENOMEM. */
static int item_fill(sqlite3_stmt *tr, struct item *it)
{
	char lid[24];
	int rc = 0;
	memset(it, 0, sizeof *it);
	it->local = sqlite3_column_int64(tr, 0);
	it->commands = (uint64_t)sqlite3_column_int64(tr, 15);
	const unsigned char *u = sqlite3_column_text(tr, 1);
	size_t ul = (size_t)sqlite3_column_bytes(tr, 1);
	it->uuid[pg_text_convert(u ? u : (const unsigned char *)"", ul < 36 ? ul : 36, it->uuid)] =
	    0;
	snprintf(lid, sizeof lid, "%lld", (long long)it->local);
	rc |= keep(&it->pv[1], lid);
	for (int i = 0; i < 24 && !rc; i++) {
		if (i == 1)
			continue;
		int col = i ? i : 1;
		const unsigned char *v = sqlite3_column_text(tr, col);
		size_t len = (size_t)sqlite3_column_bytes(tr, col);
		if (!v || db_utf8_text_ok(v, len)) {
			rc |= keep(&it->pv[i], (const char *)v);
			continue;
		}
		if (!(it->pv[i] = malloc(4 * len + 1)))
			rc = -ENOMEM;
		else
			it->pv[i][pg_text_convert(v, len, it->pv[i])] = 0;
	}
	return rc ? -ENOMEM : 0;
}

/* The results of q statements sent in pipeline mode, then its sync, and
 * pipeline mode left: 0, or -EIO with the first error in err (bad: one was
 * seen while sending). id (may be NULL): the first value of each statement
 * that returns rows, -1 when it returned none; *got counts them. */
static int pipeline_end(PGconn *c, size_t q, int bad, int64_t *id, size_t *got, const char *what,
			char *err, size_t errlen)
{
	PGresult *r;
	if (bad || PQpipelineSync(c) != 1) {
		pg_res_err(c, NULL, what, err, errlen);
		PQexitPipelineMode(c);
		return -EIO;
	}
	/* Each statement's result and a NULL after it, then the sync. */
	for (size_t k = 0; k < q; k++) {
		int have = 0;
		while ((r = PQgetResult(c))) {
			ExecStatusType st = PQresultStatus(r);
			if (id && st == PGRES_TUPLES_OK && !have) {
				have = 1;
				id[(*got)++] =
				    PQntuples(r) ? strtoll(PQgetvalue(r, 0, 0), NULL, 10) : -1;
			} else if (st != PGRES_COMMAND_OK && !bad++) {
				pg_res_err(c, r, what, err, errlen);
			}
			PQclear(r);
		}
	}
	r = PQgetResult(c);
	if ((!r || PQresultStatus(r) != PGRES_PIPELINE_SYNC) && !bad++)
		pg_res_err(c, r, what, err, errlen);
	PQclear(r);
	if (PQexitPipelineMode(c) != 1 && !bad++)
		pg_res_err(c, NULL, what, err, errlen);
	return bad ? -EIO : 0;
}

/* TPMTRACE_FAULT_PUSH_AUTOCOMMIT (fault proof): no BEGIN, every statement
 * commits on its own. */
static int in_transaction(void)
{
	return !getenv("TPMTRACE_FAULT_PUSH_AUTOCOMMIT");
}

/* BEGIN and the n traces' INSERTs in one round trip (libpq's pipeline
 * mode): id[i] the server's id of trace i, or -1 when the server has it
 * already. 0, or -EIO with err set. */
static int begin_insert(PGconn *c, const struct item *it, size_t n, int64_t *id, char *err,
			size_t errlen)
{
	int tx = in_transaction(), bad = 0;
	size_t got = 0;
	if (PQenterPipelineMode(c) != 1)
		return pipeline_end(c, 0, 1, NULL, NULL, "inserting the trace", err, errlen);
	if (tx && PQsendQueryParams(c, "BEGIN", 0, NULL, NULL, NULL, NULL, 0) != 1)
		bad = 1;
	for (size_t i = 0; i < n && !bad; i++)
		if (PQsendQueryPrepared(c, "tpmtrace_insert", 19, (const char *const *)it[i].pv,
					NULL, NULL, 0) != 1)
			bad = 1;
	if (pipeline_end(c, n + (size_t)tx, bad, id, &got, "inserting the trace", err, errlen))
		return -EIO;
	if (got != n) {
		pg_res_err(c, NULL, "inserting the trace", err, errlen);
		return -EIO;
	}
	return 0;
}

/* What push reads from the command rows as they are sent: the TPM of each
 * trace (its GetCapability answers) and the response codes. */
struct row_seen {
	struct item *it;
	const size_t *idx; /* the COPY's trace i is it[idx[i]] */
	struct rc_set rcs;
};

/* Columns of copies[1]'s SELECT. */
enum { SEL_CC = 4, SEL_RC = 9, SEL_RSP = 23 };

static void command_seen(void *ctx, size_t t, sqlite3_stmt *st)
{
	struct row_seen *s = ctx;
	if (sqlite3_column_type(st, SEL_RC) == SQLITE_INTEGER) {
		sqlite3_int64 rc = sqlite3_column_int64(st, SEL_RC);
		if (rc >= 0 && rc <= 0xFFFFFFFFll)
			rc_add(&s->rcs, (uint32_t)rc);
	}
	if (sqlite3_column_type(st, SEL_CC) == SQLITE_INTEGER &&
	    sqlite3_column_int64(st, SEL_CC) == TPM_CC_GetCapability &&
	    sqlite3_column_type(st, SEL_RSP) != SQLITE_NULL) {
		const void *p = sqlite3_column_blob(st, SEL_RSP); /* NULL when empty */
		trace_chip_add(&s->it[s->idx[t]].chip, TPM_CC_GetCapability, p ? p : "",
			       (size_t)sqlite3_column_bytes(st, SEL_RSP));
	}
}

/* After the rows, in one round trip: the m new traces' hosts in one
 * statement (the TPM as predict names it, model/trace_chip.h, from the
 * answers read), the texts of the response codes sent, and COMMIT. 0, or
 * -errno with err set. */
static int host_commit(PGconn *c, struct row_seen *s, size_t m, const int64_t *sid, char *err,
		       size_t errlen)
{
	int tx = in_transaction(), bad = 0;
	char *sql = s->rcs.n ? rc_texts_sql(c, &s->rcs) : NULL;
	struct {
		char id[24], chip[3][48], prof[128];
	} *h = calloc(m, sizeof *h);
	const char **pv = calloc(10 * m, sizeof *pv);
	size_t hn = sizeof q_host - 1 + m * (sizeof HOST_ROW + 40);
	char *hsql = malloc(hn);
	if (!h || !pv || !hsql || s->rcs.oom || (s->rcs.n && !sql)) {
		bad = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	size_t at = (size_t)snprintf(hsql, hn, "%s", q_host);
	for (size_t i = 0; i < m; i++) {
		struct item *it = &s->it[s->idx[i]];
		struct trace_chip chip;
		trace_chip_end(&it->chip, &chip);
		if (trace_chip_profile(&chip, h[i].prof, sizeof h[i].prof))
			h[i].prof[0] = 0;
		snprintf(h[i].id, sizeof h[i].id, "%lld", (long long)sid[i]);
		snprintf(h[i].chip[0], sizeof h[i].chip[0], "%s", chip.manufacturer);
		snprintf(h[i].chip[1], sizeof h[i].chip[1], "%s", chip.vendor);
		snprintf(h[i].chip[2], sizeof h[i].chip[2], "%s", chip.firmware);
		const char *row[10] = {h[i].id,	     it->pv[19], it->pv[20],   it->pv[21],
				       it->pv[22],   it->pv[23], h[i].chip[0], h[i].chip[1],
				       h[i].chip[2], h[i].prof};
		memcpy(pv + 10 * i, row, sizeof row);
		int k = (int)(10 * i);
		at += (size_t)snprintf(hsql + at, hn - at, HOST_ROW, i ? ", " : "", k + 1, k + 2,
				       k + 3, k + 4, k + 5, k + 6, k + 7, k + 8, k + 9, k + 10);
	}
	if (PQenterPipelineMode(c) != 1) {
		bad = pipeline_end(c, 0, 1, NULL, NULL, "inserting the trace's host", err, errlen);
		goto out;
	}
	if (PQsendQueryParams(c, hsql, (int)(10 * m), NULL, pv, NULL, NULL, 0) != 1 ||
	    (sql && PQsendQueryParams(c, sql, 0, NULL, NULL, NULL, NULL, 0) != 1) ||
	    (tx && PQsendQueryParams(c, "COMMIT", 0, NULL, NULL, NULL, NULL, 0) != 1))
		bad = 1;
	bad = pipeline_end(c, 1 + (s->rcs.n > 0) + (size_t)tx, bad, NULL, NULL,
			   "inserting the trace's host", err, errlen);
out:
	free(h);
	free(pv);
	free(hsql);
	free(sql);
	return bad;
}

/* n traces in one transaction, their rows one COPY a table: all of them
 * stored, or none. Returns 0 (counted in res) or -errno. */
static int push_set(PGconn *c, struct item *it, size_t n, sqlite3_stmt *const sel[3],
		    struct pg_push_result *res, char *err, size_t errlen)
{
	int64_t id[PUSH_BATCH_TRACES], sid[PUSH_BATCH_TRACES], lid[PUSH_BATCH_TRACES];
	size_t idx[PUSH_BATCH_TRACES];
	uint64_t rows[3] = {0};
	size_t m = 0;
	struct row_seen seen = {.it = it, .idx = idx};
	int rc = -EIO;
	if (begin_insert(c, it, n, id, err, errlen))
		goto fail;
	for (size_t i = 0; i < n; i++) {
		memset(&it[i].chip, 0, sizeof it[i].chip);
		if (id[i] >= 0) {
			sid[m] = id[i];
			idx[m] = i;
			lid[m++] = it[i].local;
		}
	}
	for (int k = 0; k < 3 && m; k++)
		if (pg_copy_traces(c, copies[k].into, copies[k].types, sid, lid, m, sel[k],
				   k == 1 ? command_seen : NULL, &seen, &rows[k], err, errlen))
			goto fail;
	/* Nothing new: nothing to commit. */
	if (m ? (rc = host_commit(c, &seen, m, sid, err, errlen))
	      : exec_ok(c, "ROLLBACK", "ROLLBACK", err, errlen))
		goto fail;
	free(seen.rcs.v);
	res->pushed += (unsigned)m;
	res->present += (unsigned)(n - m);
	res->clients += rows[0];
	res->commands += rows[1];
	res->events += rows[2];
	return 0;
fail:
	free(seen.rcs.v);
	if (PQstatus(c) == CONNECTION_OK)
		exec_ok(c, "ROLLBACK", "ROLLBACK", NULL, 0);
	return rc == -ENOMEM ? rc : -EIO;
}

/* The traces of a batch: together, or (when that fails) one by one, so that
 * a trace the server refuses is told (on_fail) and the others are stored. A
 * lost connection, or one left inside a transaction, ends the push: -errno,
 * err naming the trace. */
static int push_batch(PGconn *c, struct item *it, size_t n, sqlite3_stmt *const sel[3],
		      struct pg_push_result *res, pg_push_fail_fn *on_fail, void *ctx, char *err,
		      size_t errlen)
{
	char what[600], msg[800];
	if (n > 1 && !push_set(c, it, n, sel, res, what, sizeof what))
		return 0;
	for (size_t i = 0; i < n; i++) {
		int one = push_set(c, it + i, 1, sel, res, what, sizeof what);
		if (!one)
			continue;
		snprintf(msg, sizeof msg, "trace %lld (%s): %s; none of its rows are stored",
			 (long long)it[i].local, it[i].uuid, what);
		if (one == -ENOMEM || PQstatus(c) != CONNECTION_OK ||
		    PQtransactionStatus(c) != PQTRANS_IDLE ||
		    PQpipelineStatus(c) != PQ_PIPELINE_OFF) {
			snprintf(err, errlen, "%s", msg);
			return one;
		}
		res->failed++;
		if (on_fail)
			on_fail(ctx, msg);
	}
	return 0;
}

int pg_push(sqlite3 *db, PGconn *c, int64_t trace_id, struct pg_push_result *res,
	    pg_push_fail_fn *on_fail, void *ctx, char *err, size_t errlen)
{
	sqlite3_stmt *tr = NULL, *sel[3] = {0};
	int rc = 0, found = 0;
	char what[600];
	struct item *batch = NULL;
	size_t nb = 0;
	uint64_t batch_cmds = 0;
	memset(res, 0, sizeof *res);
	pg_fault_stall_file = getenv("TPMTRACE_FAULT_PUSH_STALL_FILE");
	/* A trace lost with the server's last commits before a crash is sent
	 * again by the next push (the file keeps it): no commit waits for
	 * the server's disk. */
	if (exec_ok(c, "SET synchronous_commit = off", "SET", err, errlen))
		return -EIO;
	/* Parsed and planned once for all the traces of the push. */
	PGresult *pr = PQprepare(c, "tpmtrace_insert", q_insert, 19, NULL);
	if (!pr || PQresultStatus(pr) != PGRES_COMMAND_OK) {
		pg_res_err(c, pr, "preparing the trace insert", err, errlen);
		PQclear(pr);
		return -EIO;
	}
	PQclear(pr);
	if (!(batch = calloc(PUSH_BATCH_TRACES, sizeof *batch))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	char q[4096]; /* the trace kinds' definition first (db/trace_kind.h) */
	snprintf(q, sizeof q, "%s%s", db_trace_kind_with(), q_traces);
	if (sqlite3_prepare_v2(db, q, -1, &tr, NULL) != SQLITE_OK)
		goto dberr;
	for (int k = 0; k < 3; k++)
		if (sqlite3_prepare_v2(db, copies[k].select, -1, &sel[k], NULL) != SQLITE_OK)
			goto dberr;
	sqlite3_bind_int64(tr, 1, trace_id);
	int src;
	while ((src = sqlite3_step(tr)) == SQLITE_ROW) {
		found = 1;
		const char *status = (const char *)sqlite3_column_text(tr, 14);
		if (status && !strcmp(status, "recording")) {
			res->recording++;
			continue;
		}
		/* Derived, untimed and failed traces are no boots: not sent. */
		int kind = db_trace_kind_by_name((const char *)sqlite3_column_text(tr, 24));
		if (kind < 0 || !db_trace_kind_rule((enum db_trace_kind)kind)->push) {
			res->skipped++;
			continue;
		}
		long long local = sqlite3_column_int64(tr, 0);
		if (sqlite3_column_type(tr, 1) == SQLITE_NULL) {
			snprintf(what, sizeof what, "trace %lld has no UUID", local);
			res->failed++;
			if (on_fail)
				on_fail(ctx, what);
			continue;
		}
		/* Small traces go together (one transaction, one COPY a table):
		 * a trace's round trips, not its rows, were most of its time. */
		if (nb &&
		    (nb == PUSH_BATCH_TRACES ||
		     batch_cmds + (uint64_t)sqlite3_column_int64(tr, 15) > PUSH_BATCH_COMMANDS)) {
			rc = push_batch(c, batch, nb, sel, res, on_fail, ctx, err, errlen);
			while (nb)
				item_free(&batch[--nb]);
			batch_cmds = 0;
			if (rc)
				goto out;
		}
		if ((rc = item_fill(tr, &batch[nb++]))) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		batch_cmds += batch[nb - 1].commands;
	}
	if (src != SQLITE_DONE)
		goto dberr;
	if (nb && (rc = push_batch(c, batch, nb, sel, res, on_fail, ctx, err, errlen)))
		goto out;
	if (trace_id && !found) {
		snprintf(err, errlen, "no trace %lld", (long long)trace_id);
		rc = -ENOENT;
	}
	goto out;
dberr:
	snprintf(err, errlen, "reading the file: %s", sqlite3_errmsg(db));
	rc = -EIO;
out:
	while (nb)
		item_free(&batch[--nb]);
	free(batch);
	sqlite3_finalize(tr);
	for (int k = 0; k < 3; k++)
		sqlite3_finalize(sel[k]);
	return rc;
}
