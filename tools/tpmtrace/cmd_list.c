/* tpmtrace list: the traces in a database. */
#include <string.h>

#include "cli.h"
#include "common.h"

enum { O_JSON = 256 };
static const struct cli_opt opts[] = {
    {"json", O_JSON, NULL, 0, "one JSON object {\"version\":1,\"traces\":[...]}"},
};
static const struct cli_form forms[] = {{0, "DB", NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_list = {
    "list",
    run,
    "list the traces in a database",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Lists the traces in a database: id, kind (record, replay, import), status\n"
    "(complete, recording = unfinished, incomplete), start time, commands stored,\n"
    "records dropped, name and source.\n",
    NULL,
    "tpmtrace list tpmtrace-demo.db\n",
};

static int run(int argc, char **argv)
{
	int json = 0, k;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_list, argc, argv);
	while ((k = cli_next(&p)) > 0)
		if (k == O_JSON)
			json = 1;
	if (k < 0)
		return EXIT_USAGE;
	if (p.ind != argc - 1)
		return usage_error(&subcmd_list, p.ind >= argc ? "which database? (DB)"
							       : "expected one database file");
	sqlite3 *db = cli_open_db("list", argv[p.ind], 0);
	if (!db)
		return 1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "SELECT t.id, t.kind, t.status, t.started_at, "
			       "(SELECT count(*) FROM command c WHERE c.trace_id=t.id), t.dropped, "
			       "t.name, t.source, t.parent_id, t.policy FROM trace t ORDER BY t.id",
			       -1, &st, NULL) != SQLITE_OK) {
		die("list", "%s", sqlite3_errmsg(db));
		sqlite3_close(db);
		return 1;
	}
	if (json)
		printf("{\"version\":1,\"traces\":[");
	else
		printf("%4s  %-7s %-10s %-20s %9s %8s  %s\n", "id", "kind", "status", "started",
		       "commands", "dropped", "name / source");
	int n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 6);
		const char *src = (const char *)sqlite3_column_text(st, 7);
		if (json) {
			printf("%s{\"id\":%lld,\"kind\":", n ? "," : "",
			       (long long)sqlite3_column_int64(st, 0));
			json_str(stdout, (const char *)sqlite3_column_text(st, 1));
			printf(",\"status\":");
			json_str(stdout, (const char *)sqlite3_column_text(st, 2));
			printf(",\"started_at\":");
			json_str(stdout, (const char *)sqlite3_column_text(st, 3));
			printf(",\"commands\":%lld,\"dropped\":%lld,\"name\":",
			       (long long)sqlite3_column_int64(st, 4),
			       (long long)sqlite3_column_int64(st, 5));
			json_str(stdout, name);
			printf(",\"source\":");
			json_str(stdout, src);
			printf(",\"parent_id\":");
			if (sqlite3_column_type(st, 8) == SQLITE_NULL)
				printf("null");
			else
				printf("%lld", (long long)sqlite3_column_int64(st, 8));
			printf(",\"policy\":");
			json_str(stdout, (const char *)sqlite3_column_text(st, 9));
			printf("}");
		} else {
			/* Names and sources are whatever the file holds: escaped. */
			char kd[64], stt[64], at[64], nm[1024], sr[1024];
			printf(
			    "%4lld  %-7s %-10s %-20s %9lld %8lld  %s%s%s\n",
			    (long long)sqlite3_column_int64(st, 0),
			    safe_text((const char *)sqlite3_column_text(st, 1), kd, sizeof kd),
			    safe_text((const char *)sqlite3_column_text(st, 2), stt, sizeof stt),
			    sqlite3_column_text(st, 3)
				? safe_text((const char *)sqlite3_column_text(st, 3), at, sizeof at)
				: "-",
			    (long long)sqlite3_column_int64(st, 4),
			    (long long)sqlite3_column_int64(st, 5), safe_text(name, nm, sizeof nm),
			    name && src ? " / " : "", safe_text(src, sr, sizeof sr));
		}
		n++;
	}
	if (json)
		printf("]}\n");
	sqlite3_finalize(st);
	sqlite3_close(db);
	return 0;
}
