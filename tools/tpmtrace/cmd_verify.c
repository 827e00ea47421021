/* tpmtrace verify: integrity check and consistency of counts. */
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"
#include "db/verify.h"

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

static void print_text(const struct db_verify *v)
{
	printf("integrity_check: %s\n", v->integrity);
	for (size_t n = 0; n < v->n_traces; n++) {
		const struct db_verify_trace *t = &v->traces[n];
		char own[64] = "";
		if (t->own)
			snprintf(own, sizeof own, " (and %lld own)", (long long)t->own);
		/* 100 columns: the verdict wrapped after the counts */
		char line[512];
		int ln = snprintf(line, sizeof line,
				  "trace %lld (%s): %lld commands%s, %lld events, %lld dropped: %s",
				  (long long)t->id, t->status, (long long)t->commands, own,
				  (long long)t->events, (long long)t->dropped, t->detail);
		db_text_wrap(stdout, "", 2, line,
			     ln < (int)sizeof line ? (size_t)ln : sizeof line - 1, DB_TEXT_WIDTH);
	}
	if (v->query_error[0])
		printf("reading the traces failed: %s\n", v->query_error);
	printf("%s\n", v->problems ? "problems found" : "consistent");
}

static int run(int argc, char **argv)
{
	int json = 0, k;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_verify, argc, argv);
	while ((k = cli_next(&p)) > 0)
		if (k == O_JSON)
			json = 1;
	if (k < 0)
		return EXIT_USAGE;
	const char *dbpath = cli_db_operand(&p);
	if (!dbpath)
		return EXIT_USAGE;
	sqlite3 *db = NULL;
	char err[512];
	int orc = db_open(dbpath, DB_READ, &db, err, sizeof err);
	if (orc) {
		if (json && orc != DB_OPEN_IS_STDOUT)
			db_verify_json_error(stdout, err);
		return cli_error("verify", "%s", err);
	}
	struct db_verify v;
	int rc = db_verify(db, &v, err, sizeof err);
	sqlite3_close(db);
	if (rc) {
		db_verify_free(&v);
		return cli_error("verify", "%s", err);
	}
	int problems = v.problems;
	if (json && db_verify_json(stdout, &v))
		problems = cli_error("verify", "the JSON output went wrong");
	else if (!json)
		print_text(&v);
	db_verify_free(&v);
	return problems ? 1 : 0;
}
