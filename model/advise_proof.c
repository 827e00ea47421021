/* advise --prove's proofs in the database, table advise_proof
 * (model/advise_proof.h). */
#include "model/advise_proof.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int advise_proof_store(sqlite3 *db, struct advise_proof *p, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	struct tm tm;
	time_t now = time(NULL);
	int rc;
	strftime(p->created_at, sizeof p->created_at, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	p->replayed_saving_ms = p->replayed_before_ms - p->replayed_after_ms;
	if (sqlite3_prepare_v2(
		db,
		"INSERT INTO advise_proof (trace_id, kind, profile, predicted_saving_ms,"
		" replayed_saving_ms, replayed_before_ms, replayed_after_ms,"
		" before_trace, after_trace, before_policy, after_policy, created_at)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
		-1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, p->trace_id);
	sqlite3_bind_text(st, 2, p->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, p->profile, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 4, p->predicted_saving_ms);
	sqlite3_bind_double(st, 5, p->replayed_saving_ms);
	sqlite3_bind_double(st, 6, p->replayed_before_ms);
	sqlite3_bind_double(st, 7, p->replayed_after_ms);
	sqlite3_bind_int64(st, 8, p->before_trace);
	sqlite3_bind_int64(st, 9, p->after_trace);
	sqlite3_bind_text(st, 10, p->before_policy, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, p->after_policy, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 12, p->created_at, -1, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	if (!rc)
		p->id = sqlite3_last_insert_rowid(db);
	else
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

static void col_text(sqlite3_stmt *st, int i, char *out, size_t len)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	snprintf(out, len, "%s", s ? s : "");
}

int advise_proof_latest(sqlite3 *db, int64_t trace_id, const char *kind, const char *profile,
			struct advise_proof *out)
{
	sqlite3_stmt *st;
	int rc;
	memset(out, 0, sizeof *out);
	/* A file of schema version 2 opened read-only has no such table. */
	if (sqlite3_prepare_v2(
		db, "SELECT 1 FROM sqlite_schema WHERE type='table' AND name='advise_proof'", -1,
		&st, NULL) != SQLITE_OK)
		return -EIO;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : -EIO;
	if (sqlite3_prepare_v2(
		db,
		"SELECT p.id, predicted_saving_ms, replayed_saving_ms, replayed_before_ms,"
		" replayed_after_ms, before_trace, after_trace, before_policy,"
		" after_policy, created_at, t.emulated, t.source FROM advise_proof p"
		" LEFT JOIN trace t ON t.id = p.before_trace"
		" WHERE trace_id=? AND p.kind=? AND profile=? ORDER BY p.id DESC LIMIT 1",
		-1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, profile, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->id = sqlite3_column_int64(st, 0);
		out->trace_id = trace_id;
		snprintf(out->kind, sizeof out->kind, "%s", kind);
		snprintf(out->profile, sizeof out->profile, "%s", profile);
		out->predicted_saving_ms = sqlite3_column_double(st, 1);
		out->replayed_saving_ms = sqlite3_column_double(st, 2);
		out->replayed_before_ms = sqlite3_column_double(st, 3);
		out->replayed_after_ms = sqlite3_column_double(st, 4);
		out->before_trace = sqlite3_column_int64(st, 5);
		out->after_trace = sqlite3_column_int64(st, 6);
		col_text(st, 7, out->before_policy, sizeof out->before_policy);
		col_text(st, 8, out->after_policy, sizeof out->after_policy);
		col_text(st, 9, out->created_at, sizeof out->created_at);
		col_text(st, 10, out->emulated, sizeof out->emulated);
		col_text(st, 11, out->target, sizeof out->target);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -EIO;
}

void advise_proof_basis(char *b, size_t n, const char *emulated, const char *target, int rewrite)
{
	const char *on = target && *target ? target : "swtpm (spawned)";
	if (emulated && *emulated)
		snprintf(b, n,
			 "replayed on %s: %s valid, time from the profile (emulated, latency "
			 "from profile %s)",
			 on, rewrite ? "rewrite" : "policy change", emulated);
	else
		snprintf(b, n, "measured on %s", on);
}
