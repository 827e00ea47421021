/* tpmtrace verify: integrity check and consistency of counts. */
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"

enum { O_JSON = 256 };
static const struct cli_opt opts[] = {
    {"json", O_JSON, NULL, 0,
     "{\"version\":1,\"integrity\":\"ok\",\"problems\":N,\"traces\":[...]};\n"
     "a file that cannot be opened gives {\"version\":1,\"error\":...}"},
};
static const struct cli_form forms[] = {{0, "DB", NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_verify = {
    "verify",
    run,
    "check integrity and counts",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Checks a database: SQLite's PRAGMA integrity_check, then per trace that the\n"
    "stored commands and events match the counts written when recording ended, that\n"
    "sequence numbers are unique, and that latencies equal completion minus submit\n"
    "time. A trace still marked 'recording' was not closed (the recorder was killed\n"
    "or the machine lost power): everything committed before that is reported as its\n"
    "unfinished tail, which is not an error.\n",
    "Exit status: 0 consistent, 1 a problem was found (or the file is not a\n"
    "tpmtrace database), 2 usage error.\n",
    "tpmtrace verify tpmtrace-demo.db\n",
};

static int run(int argc, char **argv)
{
	int json = 0, k, problems = 0;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_verify, argc, argv);
	while ((k = cli_next(&p)) > 0)
		if (k == O_JSON)
			json = 1;
	if (k < 0)
		return EXIT_USAGE;
	if (p.ind != argc - 1)
		return usage_error(&subcmd_verify, p.ind >= argc ? "which database? (DB)"
								 : "expected one database file");
	sqlite3 *db = NULL;
	char err[512];
	if (db_open(argv[p.ind], DB_READ, &db, err, sizeof err)) {
		if (json) {
			printf("{\"version\":1,\"error\":");
			json_str(stdout, err);
			printf(",\"integrity\":null,\"traces\":[],\"problems\":1}\n");
		}
		return die("verify", "%s", err);
	}
	sqlite3_stmt *st;
	char integrity[512] = "";
	if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) == SQLITE_OK) {
		int src;
		while ((src = sqlite3_step(st)) == SQLITE_ROW) {
			size_t l = strlen(integrity);
			snprintf(integrity + l, sizeof integrity - l, "%s%s", l ? "; " : "",
				 (const char *)sqlite3_column_text(st, 0));
		}
		if (src != SQLITE_DONE && !integrity[0])
			snprintf(integrity, sizeof integrity, "%s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
	} else {
		snprintf(integrity, sizeof integrity, "%s", sqlite3_errmsg(db));
	}
	if (strcmp(integrity, "ok"))
		problems++;
	if (json) {
		printf("{\"version\":1,\"integrity\":");
		json_str(stdout, integrity);
		printf(",\"traces\":[");
	} else {
		printf("integrity_check: %s\n", integrity);
	}
	static const char q[] =
	    "SELECT t.id, t.status, t.commands, t.events, t.dropped,"
	    " (SELECT count(*) FROM command c WHERE c.trace_id=t.id),"
	    " (SELECT count(*) FROM event e WHERE e.trace_id=t.id),"
	    " (SELECT count(*) - count(DISTINCT seq) FROM (SELECT seq FROM command WHERE"
	    "   trace_id=t.id UNION ALL SELECT seq FROM event WHERE trace_id=t.id)),"
	    " (SELECT count(*) FROM command c WHERE c.trace_id=t.id AND c.latency_ns IS NOT"
	    "   NULL AND c.latency_ns != c.t_done_ns - c.t_submit_ns),"
	    " (SELECT max(seq) FROM (SELECT seq FROM command WHERE trace_id=t.id UNION ALL"
	    "   SELECT seq FROM event WHERE trace_id=t.id))"
	    " FROM trace t ORDER BY t.id";
	int n = 0, src = SQLITE_DONE;
	char qerr[512] = "";
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK) {
		snprintf(qerr, sizeof qerr, "%s", sqlite3_errmsg(db));
		st = NULL;
	}
	while (st && (src = sqlite3_step(st)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		const char *status = (const char *)sqlite3_column_text(st, 1);
		long long want_c = sqlite3_column_int64(st, 2),
			  want_e = sqlite3_column_int64(st, 3),
			  dropped = sqlite3_column_int64(st, 4),
			  have_c = sqlite3_column_int64(st, 5),
			  have_e = sqlite3_column_int64(st, 6), dup = sqlite3_column_int64(st, 7),
			  badlat = sqlite3_column_int64(st, 8),
			  maxseq = sqlite3_column_int64(st, 9);
		int unfinished = status && !strcmp(status, "recording");
		char verdict[256] = "ok";
		int bad = 0;
		if (dup) {
			snprintf(verdict, sizeof verdict, "%lld duplicate sequence numbers", dup);
			bad = 1;
		} else if (badlat) {
			snprintf(verdict, sizeof verdict,
				 "%lld latencies differ from done - submit", badlat);
			bad = 1;
		} else if (!unfinished && (want_c != have_c || want_e != have_e)) {
			snprintf(verdict, sizeof verdict,
				 "stored %lld commands and %lld events, but %lld and %lld were "
				 "recorded",
				 have_c, have_e, want_c, want_e);
			bad = 1;
		} else if (unfinished) {
			snprintf(verdict, sizeof verdict,
				 "unfinished: the recorder did not close this trace; %lld commands "
				 "and %lld events were committed (last sequence number %lld)",
				 have_c, have_e, maxseq);
		}
		problems += bad;
		if (json) {
			printf("%s{\"id\":%lld,\"status\":", n ? "," : "", id);
			json_str(stdout, status);
			printf(",\"commands\":%lld,\"events\":%lld,\"dropped\":%lld,\"ok\":%s,"
			       "\"unfinished\":%s,\"detail\":",
			       have_c, have_e, dropped, bad ? "false" : "true",
			       unfinished ? "true" : "false");
			json_str(stdout, verdict);
			printf("}");
		} else {
			printf("trace %lld (%s): %lld commands, %lld events, %lld dropped: %s\n",
			       id, status, have_c, have_e, dropped, verdict);
		}
		n++;
	}
	if (st && src != SQLITE_DONE)
		snprintf(qerr, sizeof qerr, "%s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (qerr[0])
		problems++;
	if (json) {
		printf("]");
		if (qerr[0]) {
			printf(",\"error\":");
			json_str(stdout, qerr);
		}
		printf(",\"problems\":%d}\n", problems);
	} else {
		if (qerr[0])
			printf("reading the traces failed: %s\n", qerr);
		printf("%s\n", problems ? "problems found" : "consistent");
	}
	return problems ? 1 : 0;
}
