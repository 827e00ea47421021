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
#include "model/trace_chip.h"

/* Response-code texts of every code in the file, for tpm_rc_text() on the
 * server: one statement, ascending (concurrent pushers lock in one order). */
static int push_rc_texts(sqlite3 *db, PGconn *c, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	size_t cap = 4096, n = 0;
	char *sql = malloc(cap);
	int rc = 0;
	if (!sql)
		return -ENOMEM;
	n = (size_t)snprintf(sql, cap, "INSERT INTO tpm_rc VALUES ");
	if (sqlite3_prepare_v2(db,
			       "SELECT DISTINCT rc FROM command WHERE typeof(rc)='integer'"
			       " AND rc BETWEEN 0 AND 4294967295 ORDER BY rc",
			       -1, &st, NULL) != SQLITE_OK) {
		free(sql);
		return -EIO;
	}
	int rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t v = (uint32_t)sqlite3_column_int64(st, 0);
		char *lit = PQescapeLiteral(c, tpm_rc_str(v), strlen(tpm_rc_str(v)));
		if (!lit)
			continue;
		if (n + strlen(lit) + 40 > cap) {
			char *ns = realloc(sql, cap * 2 + strlen(lit));
			if (!ns) {
				PQfreemem(lit);
				rc = -ENOMEM;
				break;
			}
			sql = ns;
			cap = cap * 2 + strlen(lit);
		}
		n += (size_t)snprintf(sql + n, cap - n, "%s(%u,%s)", rows++ ? "," : "", v, lit);
		PQfreemem(lit);
	}
	sqlite3_finalize(st);
	if (!rc && rows) {
		snprintf(sql + n, cap - n, " ON CONFLICT (rc) DO NOTHING");
		PGresult *r = PQexec(c, sql);
		if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
			pg_res_err(c, r, "storing response-code texts", err, errlen);
			rc = -EIO;
		}
		PQclear(r);
	}
	free(sql);
	return rc;
}

static const char q_traces[] =
    "SELECT t.id, t.uuid, t.name, t.kind, t.source, t.started_at, t.start_ns, t.end_ns,"
    " t.payloads, t.host, t.tool_version, p.uuid, t.policy, t.emulated, t.status, t.commands,"
    " t.events, t.dropped, t.notes, h.hostname, h.machine_id_sha256, h.kernel_release,"
    " h.kernel_cmdline, h.boot_id, k.kind"
    " FROM trace t LEFT JOIN trace p ON p.id = t.parent_id"
    " LEFT JOIN trace_host h ON h.trace_id = t.id LEFT JOIN trace_kind k ON k.trace_id = t.id"
    " WHERE ?1 = 0 OR t.id = ?1 ORDER BY t.id";

/* The trace row and its host in one statement: nothing when the server has
 * the UUID already (then, if another pusher's transaction holds it, after
 * that one ends). */
static const char q_insert[] =
    "WITH t AS (INSERT INTO trace (uuid, local_id, name, kind, source, started_at, start_ns,"
    " end_ns, payloads, host, tool_version, parent_uuid, parent_id, policy, emulated, status,"
    " commands, events, dropped, notes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,"
    " $12::uuid, (SELECT id FROM trace WHERE uuid = $12::uuid), $13, $14, $15, $16, $17, $18,"
    " $19) ON CONFLICT (uuid) DO NOTHING RETURNING id)"
    " INSERT INTO trace_host SELECT id, $20, $21, $22, $23, $24, nullif($25, ''),"
    " nullif($26, ''), nullif($27, ''), nullif($28, '') FROM t RETURNING trace_id";

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
#define PUSH_BATCH_TRACES   64
#define PUSH_BATCH_COMMANDS 20000

static int exec_ok(PGconn *c, const char *sql, const char *what, char *err, size_t errlen)
{
	PGresult *r = PQexec(c, sql);
	int ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		pg_res_err(c, r, what, err, errlen);
	PQclear(r);
	return ok ? 0 : -EIO;
}

/* A trace to send: its row's values as the INSERT's parameters (owned
 * copies: the file's row is gone by the time its batch goes). */
struct item {
	int64_t local;
	uint64_t commands;     /* the file's count: the batch's size */
	char *pv[28];	       /* the INSERT's parameters, NULL for NULL */
	char uuid[4 * 36 + 1]; /* for messages: cut, converted as text */
};

static void item_free(struct item *it)
{
	for (int i = 0; i < 28; i++)
		free(it->pv[i]);
	memset(it, 0, sizeof *it);
}

static int keep(char **dst, const char *v)
{
	return !v || (*dst = strdup(v)) ? 0 : -ENOMEM;
}

/* The trace row tr is on (q_traces) as an item: pv[0] (the UUID) and
 * pv[2..23] its columns, pv[1] its local id, pv[24..27] the TPM as predict
 * names it (model/trace_chip.h, from its own answers). A text value with NUL
 * or bytes of no UTF-8 character goes converted (pg_text_convert), as
 * COPY's text columns. 0, or -ENOMEM. */
static int item_fill(sqlite3 *db, sqlite3_stmt *tr, struct item *it)
{
	char lid[24], why[256], prof[128] = "";
	struct trace_chip chip;
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
	if (trace_chip_load(db, it->local, &chip, why, sizeof why))
		memset(&chip, 0, sizeof chip);
	else if (trace_chip_profile(&chip, prof, sizeof prof))
		prof[0] = 0;
	rc |= keep(&it->pv[24], chip.manufacturer);
	rc |= keep(&it->pv[25], chip.vendor);
	rc |= keep(&it->pv[26], chip.firmware);
	rc |= keep(&it->pv[27], prof);
	return rc ? -ENOMEM : 0;
}

/* BEGIN and the n traces' INSERTs in one round trip (libpq's pipeline
 * mode): id[i] the server's id of trace i, or -1 when the server has it
 * already. 0, or -EIO with err set. TPMTRACE_FAULT_PUSH_AUTOCOMMIT (fault
 * proof): no BEGIN, every statement commits on its own. */
static int begin_insert(PGconn *c, const struct item *it, size_t n, int64_t *id, char *err,
			size_t errlen)
{
	int tx = !getenv("TPMTRACE_FAULT_PUSH_AUTOCOMMIT"), bad = 0;
	size_t got = 0;
	PGresult *r;
	if (PQenterPipelineMode(c) != 1 ||
	    (tx && PQsendQueryParams(c, "BEGIN", 0, NULL, NULL, NULL, NULL, 0) != 1))
		bad = 1;
	for (size_t i = 0; i < n && !bad; i++)
		if (PQsendQueryPrepared(c, "tpmtrace_insert", 28, (const char *const *)it[i].pv,
					NULL, NULL, 0) != 1)
			bad = 1;
	if (bad || PQpipelineSync(c) != 1) {
		pg_res_err(c, NULL, "inserting the trace", err, errlen);
		PQexitPipelineMode(c);
		return -EIO;
	}
	/* Each statement's result and a NULL after it, then the sync. */
	for (size_t q = 0; q < n + (size_t)tx; q++) {
		int ins = q >= (size_t)tx, have = 0;
		while ((r = PQgetResult(c))) {
			ExecStatusType st = PQresultStatus(r);
			if (ins && st == PGRES_TUPLES_OK && !have) {
				have = 1;
				id[got++] =
				    PQntuples(r) ? strtoll(PQgetvalue(r, 0, 0), NULL, 10) : -1;
			} else if (st != PGRES_COMMAND_OK && !bad++) {
				pg_res_err(c, r, "inserting the trace", err, errlen);
			}
			PQclear(r);
		}
	}
	r = PQgetResult(c);
	if ((!r || PQresultStatus(r) != PGRES_PIPELINE_SYNC) && !bad++)
		pg_res_err(c, r, "inserting the trace", err, errlen);
	PQclear(r);
	if (PQexitPipelineMode(c) != 1 && !bad++)
		pg_res_err(c, NULL, "inserting the trace", err, errlen);
	if (!bad && got != n) {
		pg_res_err(c, NULL, "inserting the trace", err, errlen);
		bad = 1;
	}
	return bad ? -EIO : 0;
}

/* n traces in one transaction, their rows one COPY a table: all of them
 * stored, or none. Returns 0 (counted in res) or -errno. */
static int push_set(PGconn *c, const struct item *it, size_t n, sqlite3_stmt *const sel[3],
		    struct pg_push_result *res, char *err, size_t errlen)
{
	int64_t id[PUSH_BATCH_TRACES], sid[PUSH_BATCH_TRACES], lid[PUSH_BATCH_TRACES];
	uint64_t rows[3] = {0};
	size_t m = 0;
	if (begin_insert(c, it, n, id, err, errlen))
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (id[i] >= 0) {
			sid[m] = id[i];
			lid[m++] = it[i].local;
		}
	for (int k = 0; k < 3 && m; k++)
		if (pg_copy_traces(c, copies[k].into, copies[k].types, sid, lid, m, sel[k],
				   &rows[k], err, errlen))
			goto fail;
	/* Nothing new: nothing to commit. */
	if (exec_ok(c, m ? "COMMIT" : "ROLLBACK", m ? "COMMIT" : "ROLLBACK", err, errlen))
		return -EIO;
	res->pushed += (unsigned)m;
	res->present += (unsigned)(n - m);
	res->clients += rows[0];
	res->commands += rows[1];
	res->events += rows[2];
	return 0;
fail:
	if (PQstatus(c) == CONNECTION_OK)
		exec_ok(c, "ROLLBACK", "ROLLBACK", NULL, 0);
	return -EIO;
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
	struct item batch[PUSH_BATCH_TRACES];
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
	PGresult *pr = PQprepare(c, "tpmtrace_insert", q_insert, 28, NULL);
	if (!pr || PQresultStatus(pr) != PGRES_COMMAND_OK) {
		pg_res_err(c, pr, "preparing the trace insert", err, errlen);
		PQclear(pr);
		return -EIO;
	}
	PQclear(pr);
	char q[4096]; /* the trace kinds' definition first (db/trace_kind.h) */
	snprintf(q, sizeof q, "%s%s", db_trace_kind_with(), q_traces);
	if (sqlite3_prepare_v2(db, q, -1, &tr, NULL) != SQLITE_OK)
		goto dberr;
	for (int k = 0; k < 3; k++)
		if (sqlite3_prepare_v2(db, copies[k].select, -1, &sel[k], NULL) != SQLITE_OK)
			goto dberr;
	rc = push_rc_texts(db, c, err, errlen);
	if (rc)
		goto out;
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
		if ((rc = item_fill(db, tr, &batch[nb++]))) {
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
	sqlite3_finalize(tr);
	for (int k = 0; k < 3; k++)
		sqlite3_finalize(sel[k]);
	return rc;
}
