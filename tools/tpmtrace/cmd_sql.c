/* tpmtrace sql: plain SQL with tpmtrace's functions registered. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "common.h"

static const char usage[] =
    "usage: tpmtrace sql DB 'QUERY' [--json] [--no-header] [--write]\n"
    "\n"
    "Runs SQL on a tpmtrace database with the functions tpm_cc_name(cc) and\n"
    "percentile(x, p) (nearest-rank) registered. Output is one row per line, columns\n"
    "separated by '|', with a header line. The file is opened read-only unless\n"
    "--write is given. Tables and views: docs/schema.md.\n"
    "\n"
    "Options:\n"
    "  --json       rows as a JSON array of objects\n"
    "  --no-header  no header line\n"
    "  --write      open the database for writing\n"
    "  -h, --help   this text\n"
    "\n"
    "Example:\n"
    "  tpmtrace sql tpmtrace-demo.db \\\n"
    "    'SELECT tpm_cc_name(cc), percentile(latency_ns, 95) FROM command GROUP BY cc'\n";

static int run(int argc, char **argv);
const struct subcommand subcmd_sql = {"sql", run, "run SQL with tpmtrace's functions", usage};

static int run(int argc, char **argv)
{
	int json = 0, header = 1, write = 0, o, ret = 1;
	static const struct option opts[] = {{"json", no_argument, 0, 'j'},
					     {"no-header", no_argument, 0, 'n'},
					     {"write", no_argument, 0, 'w'},
					     {0, 0, 0, 0}};
	optind = 1;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'j')
			json = 1;
		else if (o == 'n')
			header = 0;
		else if (o == 'w')
			write = 1;
		else
			return usage_error(&subcmd_sql, "unknown option");
	}
	if (optind != argc - 2)
		return usage_error(&subcmd_sql, "expected a database file and one query");
	sqlite3 *db = cli_open_db("sql", argv[optind], write);
	if (!db)
		return 1;
	const char *sql = argv[optind + 1], *tail;
	sqlite3_stmt *st = NULL;
	int first_row = 1;
	if (json)
		printf("[");
	while (sql && *sql) {
		if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
			die("sql", "%s", sqlite3_errmsg(db));
			goto out;
		}
		if (!st) /* whitespace or comment */
			break;
		int cols = sqlite3_column_count(st), rc, printed_header = 0;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (json) {
				printf("%s{", first_row ? "" : ",");
				for (int i = 0; i < cols; i++) {
					if (i)
						printf(",");
					json_str(stdout, sqlite3_column_name(st, i));
					printf(":");
					switch (sqlite3_column_type(st, i)) {
					case SQLITE_NULL:
						printf("null");
						break;
					case SQLITE_INTEGER:
						printf("%lld",
						       (long long)sqlite3_column_int64(st, i));
						break;
					case SQLITE_FLOAT:
						printf("%.17g", sqlite3_column_double(st, i));
						break;
					default:
						json_str(stdout,
							 (const char *)sqlite3_column_text(st, i));
					}
				}
				printf("}");
			} else {
				if (header && !printed_header) {
					for (int i = 0; i < cols; i++)
						printf("%s%s", i ? "|" : "",
						       sqlite3_column_name(st, i));
					printf("\n");
					printed_header = 1;
				}
				for (int i = 0; i < cols; i++) {
					const unsigned char *v = sqlite3_column_text(st, i);
					printf("%s%s", i ? "|" : "", v ? (const char *)v : "");
				}
				printf("\n");
			}
			first_row = 0;
		}
		if (rc != SQLITE_DONE) {
			die("sql", "%s", sqlite3_errmsg(db));
			goto out;
		}
		sqlite3_finalize(st);
		st = NULL;
		sql = tail;
	}
	ret = 0;
out:
	if (json)
		printf("]\n");
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ret;
}
