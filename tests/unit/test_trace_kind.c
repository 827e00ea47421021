/* Trace kinds (db/trace_kind.h): every kind of db/trace_kind.def made from the
 * rows that tools write, classified by the trace_kind view (also on a file
 * whose schema predates the view), and the default trace picked by the rule
 * of docs/cli.md "Which trace". */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "db/db.h"
#include "db/trace_kind.h"
#include "testlib.h"

static sqlite3 *db;

/* A trace row as its maker leaves it; timed: a client's command with a
 * latency, else one with synthetic time and none; own: a tpmtrace command
 * with a latency besides. */
static int64_t add(const char *kind, const char *status, const char *emulated, int timed, int own)
{
	struct trace_info ti = {
	    .kind = kind, .name = kind, .payloads = "none", .emulated = emulated};
	char sql[512];
	int64_t id = db_trace_begin(db, &ti);
	CHECK(id > 0, "trace begin: %s", sqlite3_errmsg(db));
	snprintf(sql, sizeof sql,
		 "UPDATE trace SET status='%s' WHERE id=%lld;"
		 " INSERT INTO command (trace_id, seq, cc, latency_ns, flags)"
		 " VALUES (%lld, 1, 386, %s, %d)",
		 status, (long long)id, (long long)id, timed ? "1000" : "NULL", timed ? 0 : 16);
	CHECK(db_exec(db, sql, NULL, 0) == 0, "%s", sqlite3_errmsg(db));
	if (own) {
		snprintf(sql, sizeof sql,
			 "INSERT INTO command (trace_id, seq, cc, latency_ns, flags)"
			 " VALUES (%lld, 2, 324, 5000, 32)",
			 (long long)id);
		CHECK(db_exec(db, sql, NULL, 0) == 0, "%s", sqlite3_errmsg(db));
	}
	return id;
}

static void expect_kind(int64_t id, enum db_trace_kind want)
{
	enum db_trace_kind k = DB_TRACE_KIND_N;
	CHECK(db_trace_kind_of(db, id, &k) == 0 && k == want, "trace %lld: kind %s, expected %s",
	      (long long)id, k < DB_TRACE_KIND_N ? db_trace_kind_rule(k)->name : "?",
	      db_trace_kind_rule(want)->name);
}

static void expect_default(int64_t want, const char *why_has)
{
	char why[256] = "";
	int64_t id = db_trace_default(db, why, sizeof why);
	CHECK(id == want, "default trace %lld, expected %lld (%s)", (long long)id, (long long)want,
	      why);
	if (why_has)
		CHECK(strstr(why, why_has) != NULL, "why: %s", why);
}

int main(void)
{
	char path[600], err[256];
	snprintf(path, sizeof path, "%s/kinds.db", tl_tmpdir());
	CHECK(db_open(path, DB_CREATE, &db, err, sizeof err) == 0, "%s", err);
	CHECK(db_trace_kind_with()[0] != 0, "the embedded schema has no trace_kind view");

	expect_default(0, "holds no trace");
	int64_t untimed = add("import", "complete", NULL, 0, 0);
	/* An untimed import is the default only while nothing better exists. */
	expect_default(untimed, NULL);
	int64_t rec = add("record", "complete", NULL, 1, 1);
	expect_default(rec, NULL);
	int64_t replay = add("replay", "complete", NULL, 1, 1);
	int64_t emulated = add("replay", "complete", "slb9670-linux-integrity", 1, 1);
	int64_t derived = add("derived", "complete", NULL, 1, 0);
	int64_t killed = add("record", "recording", NULL, 1, 0);
	int64_t failed = add("import", "incomplete", NULL, 1, 0);
	/* Only tpmtrace's own commands carry a latency: not a timed import. */
	int64_t own_only = add("import", "complete", NULL, 0, 1);
	expect_kind(untimed, DB_TRACE_KIND_IMPORT_UNTIMED);
	expect_kind(own_only, DB_TRACE_KIND_IMPORT_UNTIMED);
	expect_kind(rec, DB_TRACE_KIND_RECORD);
	expect_kind(replay, DB_TRACE_KIND_REPLAY);
	expect_kind(emulated, DB_TRACE_KIND_REPLAY_EMULATED);
	expect_kind(derived, DB_TRACE_KIND_DERIVED);
	expect_kind(killed, DB_TRACE_KIND_UNFINISHED);
	expect_kind(failed, DB_TRACE_KIND_UNFINISHED);
	enum db_trace_kind k;
	CHECK(db_trace_kind_of(db, 999, &k) == -ENOENT, "trace 999 has a kind");
	/* None of the later kinds displaces the recording. */
	expect_default(rec, NULL);
	int64_t pcap = add("import", "complete", NULL, 1, 0);
	expect_kind(pcap, DB_TRACE_KIND_IMPORT_TIMED);
	expect_default(pcap, NULL);

	/* The view a new file holds says what the function says. */
	sqlite3_stmt *st;
	CHECK(sqlite3_prepare_v2(db, "SELECT trace_id, kind FROM trace_kind", -1, &st, NULL) ==
		  SQLITE_OK,
	      "%s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		CHECK(db_trace_kind_of(db, id, &k) == 0 &&
			  !strcmp(db_trace_kind_rule(k)->name,
				  (const char *)sqlite3_column_text(st, 1)),
		      "trace %lld: the view and db_trace_kind_of differ", (long long)id);
	}
	sqlite3_finalize(st);

	/* A file made before the view: read-only it classifies the same, and
	 * the next writer gives it the view. */
	CHECK(db_exec(db, "DROP VIEW trace_kind", err, sizeof err) == 0, "%s", err);
	db_close(db);
	CHECK(db_open(path, DB_READ, &db, err, sizeof err) == 0, "%s", err);
	expect_kind(derived, DB_TRACE_KIND_DERIVED);
	expect_default(pcap, NULL);
	db_close(db);
	CHECK(db_open(path, DB_WRITE, &db, err, sizeof err) == 0, "%s", err);
	CHECK(sqlite3_prepare_v2(db, "SELECT count(*) FROM trace_kind", -1, &st, NULL) == SQLITE_OK,
	      "the writer did not add the view: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);

	/* Only replays, derived and unfinished traces: no default, and why. */
	CHECK(db_exec(db,
		      "DELETE FROM command WHERE trace_id IN (SELECT id FROM trace WHERE kind IN "
		      "('record','import') AND status='complete');"
		      " DELETE FROM trace WHERE kind IN ('record','import') AND status='complete'",
		      err, sizeof err) == 0,
	      "%s", err);
	expect_default(0, "--trace ID");
	db_close(db);

	for (int i = 0; i < DB_TRACE_KIND_N; i++)
		CHECK(db_trace_kind_by_name(db_trace_kind_rule(i)->name) == i, "kind %d", i);
	return tl_finish("test_trace_kind");
}
