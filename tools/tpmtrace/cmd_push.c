/* tpmtrace push: a file's traces into the fleet's PostgreSQL server. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"
#include "db/host_id.h"
#include "db/pg/pg.h"
#include "db/pg/pg_fleet_doc.h"

enum { O_TRACE = 256, O_ALL, O_JSON, O_QUIET };
static const struct cli_opt opts[] = {
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP "; default: --all", NULL, 0, 0, 0, 1},
    {"all", O_ALL, NULL, 0, "every finished trace of the file (the default)", NULL, 0, 0, 0, 1},
    {"json", O_JSON, NULL, 0, "the counts as one JSON object"},
    {"quiet", 'q', NULL, 0, "no summary line"},
};
static const struct cli_form forms[] = {{0, "DB", "[URL]"}};

static int run(int argc, char **argv);
const struct subcommand subcmd_push = {
    "push",
    run,
    "send a database's traces to a PostgreSQL fleet server",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Sends the traces of DB to a PostgreSQL server (docs/fleet.md): URL is a\n"
    "postgresql:// URL or a libpq key=value string; without it libpq reads the\n"
    "PG* environment variables and the service file (PGSERVICE). A password in\n"
    "URL is refused: put it in ~/.pgpass or the file PGPASSFILE names. TLS is\n"
    "libpq's (sslmode=verify-full in URL).\n"
    "\n"
    "The first push creates the server's schema; a server with another\n"
    "application's tables or another schema version is refused. Each trace is\n"
    "known by its UUID (trace.uuid): one the server has is not sent again, so a\n"
    "push sends only what is new. Each trace goes in one transaction (rows by\n"
    "COPY): a push stopped at any point leaves no part of a trace on the server,\n"
    "and the next push sends it whole. DB is read only, except that traces of\n"
    "an older file without a UUID get one first (one write transaction).\n"
    "Unfinished traces (status recording) are left for a later push. Derived\n"
    "traces (advise --rewrite, strip), imports without timing (IMA lists, TCG\n"
    "logs) and failed runs are not boots and are not sent (docs/schema.md,\n"
    "\"Trace kinds\"); replays are, as runs of their policy. A trace the server\n"
    "refuses is reported and the push goes on with the next. Text that is not\n"
    "UTF-8, or holds NUL, goes with those bytes as \\xhh and '\\' doubled\n"
    "(docs/fleet.md).\n",
    "Exit status: 0 everything asked for is on the server, 1 an error or a\n"
    "trace not pushed (the server's own message is shown; the URL never is),\n"
    "2 usage.\n",
    "tpmtrace push boot.db postgresql://fleet.example.org/tpmtrace\n"
    "tpmtrace push boot.db --trace latest --json postgresql://fleet.example.org/tpmtrace\n",
};

/* Gives the file's traces UUIDs if some have none (db_uuid_ensure). 0 or 1
 * with the error printed. */
static int ensure_uuids(const char *path)
{
	char err[1024];
	if (!db_uuid_ensure(path, err, sizeof err))
		return 0;
	return cli_error("push", "%s", err);
}

/* A trace the server refused: told now, the push goes on. */
static void trace_failed(void *ctx, const char *msg)
{
	char buf[1024];
	(void)ctx;
	cli_error("push", "%s", db_text_safe(msg, buf, sizeof buf));
}

static int run(int argc, char **argv)
{
	int json = 0, quiet = 0, k;
	const char *trace = NULL;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_push, argc, argv);
	while ((k = cli_next(&p)) > 0)
		if (k == O_TRACE)
			trace = p.arg;
		else if (k == O_JSON)
			json = 1;
		else if (k == 'q')
			quiet = 1;
	if (k < 0)
		return EXIT_USAGE;
	if (p.ind >= argc || argc - p.ind > 2)
		return cli_usage_error(&subcmd_push, p.ind >= argc
							 ? "which database? (DB)"
							 : "expected DB and at most one URL");
	const char *path = argv[p.ind], *url = p.ind + 1 < argc ? argv[p.ind + 1] : NULL;
	char err[1024], where[512];
	PGconn *c = NULL;
	/* A password in the URL is refused before the file is touched. */
	int rc = pg_connect(url, &c, err, sizeof err);
	if (rc)
		return cli_error("push", "%s", err);
	/* The server as libpq reached it: the URL is never shown. */
	pg_conn_describe(c, where, sizeof where);
	if (ensure_uuids(path)) {
		PQfinish(c);
		return 1;
	}
	sqlite3 *db = cli_open_db("push", path, 0);
	if (!db) {
		PQfinish(c);
		return 1;
	}
	int64_t id = trace ? cli_pick_trace("push", db, trace) : 0;
	if (trace && !id) {
		db_close(db);
		PQfinish(c);
		return 1;
	}
	struct pg_push_result r = {0};
	rc = pg_schema_ensure(c, 1, err, sizeof err);
	if (!rc)
		rc = pg_push(db, c, id, &r, trace_failed, NULL, err, sizeof err);
	db_close(db);
	PQfinish(c);
	char safe[1024];
	if (rc)
		return cli_error("push", "server (%s): %s (pushed before it: %u traces)", where,
				 db_text_safe(err, safe, sizeof safe),
				 rc == -EPROTO ? 0 : r.pushed);
	if (json)
		pg_push_json(stdout, &r);
	else if (!quiet)
		k = printf("pushed %u traces (%llu commands, %llu events); %u already on the "
			   "server; %u unfinished left; %u failed\n",
			   r.pushed, (unsigned long long)r.commands, (unsigned long long)r.events,
			   r.present, r.recording, r.failed);
	if (!json && !quiet && k >= 0 && r.skipped)
		k = printf("not pushed: %u derived, untimed or failed traces (not boots)\n",
			   r.skipped);
	if (k < 0 || ferror(stdout) || fflush(stdout))
		return cli_error("push", "cannot write the summary: %s", strerror(errno));
	/* Each failed trace was told when it failed. */
	if (r.failed)
		return cli_error("push", "%u traces could not be pushed (the others were)",
				 r.failed);
	return 0;
}
