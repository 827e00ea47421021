/* tpmtrace push: a file's traces into the fleet server, one transaction per
 * trace, rows by COPY, a trace the server has (by UUID) never sent again. */
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

static int exec_ok(PGconn *c, const char *sql, const char *what, char *err, size_t errlen)
{
	PGresult *r = PQexec(c, sql);
	int ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		pg_res_err(c, r, what, err, errlen);
	PQclear(r);
	return ok ? 0 : -EIO;
}

/* BEGIN and the trace's INSERT in one round trip (libpq's pipeline mode):
 * the INSERT's result, or NULL with err set. TPMTRACE_FAULT_PUSH_AUTOCOMMIT
 * (fault proof): no BEGIN, every statement commits on its own. */
static PGresult *begin_insert(PGconn *c, const char *const *pv, char *err, size_t errlen)
{
	int tx = !getenv("TPMTRACE_FAULT_PUSH_AUTOCOMMIT"), bad = 0;
	PGresult *r, *ins = NULL;
	if (PQenterPipelineMode(c) != 1 ||
	    (tx && PQsendQueryParams(c, "BEGIN", 0, NULL, NULL, NULL, NULL, 0) != 1) ||
	    PQsendQueryPrepared(c, "tpmtrace_insert", 28, pv, NULL, NULL, 0) != 1 ||
	    PQpipelineSync(c) != 1) {
		pg_res_err(c, NULL, "inserting the trace", err, errlen);
		PQexitPipelineMode(c);
		return NULL;
	}
	/* Each statement's result and a NULL after it, then the sync. */
	for (int q = 0; q <= tx; q++) {
		while ((r = PQgetResult(c))) {
			ExecStatusType st = PQresultStatus(r);
			if (q == tx && st == PGRES_TUPLES_OK && !ins) {
				ins = r;
				continue;
			}
			if (st != PGRES_COMMAND_OK && !bad++)
				pg_res_err(c, r, "inserting the trace", err, errlen);
			PQclear(r);
		}
	}
	r = PQgetResult(c);
	if ((!r || PQresultStatus(r) != PGRES_PIPELINE_SYNC) && !bad++)
		pg_res_err(c, r, "inserting the trace", err, errlen);
	PQclear(r);
	if (PQexitPipelineMode(c) != 1 && !bad++)
		pg_res_err(c, NULL, "inserting the trace", err, errlen);
	if (bad || !ins) {
		if (!bad)
			pg_res_err(c, NULL, "inserting the trace", err, errlen);
		PQclear(ins);
		return NULL;
	}
	return ins;
}

/* pv[0] (the UUID) and pv[2..23], the trace row's columns as the INSERT's
 * parameters. A parameter is a C string: a value with NUL or bytes of no
 * UTF-8 character goes converted (pg_text_convert), as COPY's text columns,
 * into conv[i], which the caller frees. 0, or -ENOMEM. */
static int trace_params(sqlite3_stmt *tr, const char **pv, char **conv)
{
	for (int i = 0; i < 24; i++) {
		if (i == 1)
			continue;
		int col = i ? i : 1;
		const unsigned char *v = sqlite3_column_text(tr, col);
		size_t len = (size_t)sqlite3_column_bytes(tr, col);
		pv[i] = (const char *)v;
		if (!v || db_utf8_text_ok(v, len))
			continue;
		conv[i] = malloc(4 * len + 1);
		if (!conv[i])
			return -ENOMEM;
		conv[i][pg_text_convert(v, len, conv[i])] = 0;
		pv[i] = conv[i];
	}
	return 0;
}

/* One trace, in one transaction. Returns 1 sent, 0 the server had it,
 * -errno. */
static int push_one(sqlite3 *db, PGconn *c, sqlite3_stmt *tr, sqlite3_stmt *const sel[3],
		    struct pg_push_result *res, char *err, size_t errlen)
{
	const char *pv[28];
	char lid[24], why[256], prof[128] = "";
	struct trace_chip chip;
	int64_t local = sqlite3_column_int64(tr, 0);
	uint64_t rows[3] = {0};

	char *conv[24] = {0};
	snprintf(lid, sizeof lid, "%lld", (long long)local);
	pv[1] = lid;
	int oom = trace_params(tr, pv, conv);
	/* The TPM as predict names it (model/trace_chip.h): its own answers. */
	if (trace_chip_load(db, local, &chip, why, sizeof why))
		memset(&chip, 0, sizeof chip);
	else if (trace_chip_profile(&chip, prof, sizeof prof))
		prof[0] = 0;
	pv[24] = chip.manufacturer;
	pv[25] = chip.vendor;
	pv[26] = chip.firmware;
	pv[27] = prof;
	PGresult *r = oom ? NULL : begin_insert(c, pv, err, errlen);
	for (int i = 0; i < 24; i++)
		free(conv[i]);
	if (oom) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (!r)
		goto fail;
	if (PQntuples(r) == 0) {
		PQclear(r);
		res->present++;
		return exec_ok(c, "ROLLBACK", "ROLLBACK", err, errlen) ? -EIO : 0;
	}
	int64_t id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	for (int k = 0; k < 3; k++) {
		sqlite3_reset(sel[k]);
		sqlite3_bind_int64(sel[k], 1, local);
		if (pg_copy_rows(c, copies[k].into, copies[k].types, id, sel[k], &rows[k], err,
				 errlen))
			goto fail;
	}
	if (exec_ok(c, "COMMIT", "COMMIT", err, errlen))
		return -EIO;
	res->pushed++;
	res->clients += rows[0];
	res->commands += rows[1];
	res->events += rows[2];
	return 1;
fail:
	if (PQstatus(c) == CONNECTION_OK)
		exec_ok(c, "ROLLBACK", "ROLLBACK", NULL, 0);
	return -EIO;
}

int pg_push(sqlite3 *db, PGconn *c, int64_t trace_id, struct pg_push_result *res,
	    pg_push_fail_fn *on_fail, void *ctx, char *err, size_t errlen)
{
	sqlite3_stmt *tr = NULL, *sel[3] = {0};
	int rc = 0, found = 0;
	char what[600], msg[800];
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
		char uuid[4 * 36 + 1];
		int one = push_one(db, c, tr, sel, res, what, sizeof what);
		if (one >= 0)
			continue;
		/* Its UUID, cut and converted as text (a file's could be any
		 * bytes). */
		const unsigned char *u = sqlite3_column_text(tr, 1);
		size_t ul = (size_t)sqlite3_column_bytes(tr, 1);
		uuid[pg_text_convert(u, ul < 36 ? ul : 36, uuid)] = 0;
		snprintf(msg, sizeof msg, "trace %lld (%s): %s; none of its rows are stored", local,
			 uuid, what);
		/* A lost connection, or one left inside the transaction, ends the
		 * push; any other failure is this trace's alone: the next goes on. */
		if (one == -ENOMEM || PQstatus(c) != CONNECTION_OK ||
		    PQtransactionStatus(c) != PQTRANS_IDLE ||
		    PQpipelineStatus(c) != PQ_PIPELINE_OFF) {
			snprintf(err, errlen, "%s", msg);
			rc = one;
			goto out;
		}
		res->failed++;
		if (on_fail)
			on_fail(ctx, msg);
	}
	if (src != SQLITE_DONE)
		goto dberr;
	if (trace_id && !found) {
		snprintf(err, errlen, "no trace %lld", (long long)trace_id);
		rc = -ENOENT;
	}
	goto out;
dberr:
	snprintf(err, errlen, "reading the file: %s", sqlite3_errmsg(db));
	rc = -EIO;
out:
	sqlite3_finalize(tr);
	for (int k = 0; k < 3; k++)
		sqlite3_finalize(sel[k]);
	return rc;
}
