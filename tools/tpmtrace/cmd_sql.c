/* tpmtrace sql: plain SQL with tpmtrace's functions registered. */
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"

enum { O_JSON = 256, O_NOHEADER, O_WRITE };
static const struct cli_opt opts[] = {
    {"json", O_JSON, NULL, 0,
     "{\"version\":1,\"rows\":[{column: value, ...}, ...]}; BLOBs\nas hex strings"},
    {"no-header", O_NOHEADER, NULL, 0, "no header line"},
    {"write", O_WRITE, NULL, 0, "open the database for writing"},
};
static const struct cli_form forms[] = {{0, "DB QUERY", NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_sql = {
    "sql",
    run,
    "run SQL with tpmtrace's functions",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Runs SQL on a tpmtrace database with the functions tpm_cc_name(cc),\n"
    "tpm_cc_destructive(cc), tpm_rc_text(rc), tpm_auth_name(auth_kind),\n"
    "percentile(x, p) (nearest-rank) and tpm_cc(name), tpm_cc_is_policy(cc),\n"
    "tpm_cc_family(cc), tpm_rc_is_retry(rc), tpm_ht_of(handle) (protocol facts\n"
    "by name) registered. Output is one row per line, columns separated by '|',\n"
    "with a header line; BLOB values (raw command bytes) are printed as hex. The\n"
    "file is opened read-only unless --write is given.\n"
    "Tables and views: docs/schema.md.\n",
    NULL,
    "tpmtrace sql tpmtrace-demo.db \\\n"
    "  'SELECT tpm_cc_name(cc), percentile(latency_ns, 95) FROM command GROUP BY cc'\n",
};

/* A BLOB as lower-case hex (json_hex for JSON). */
static void blob_hex(sqlite3_stmt *st, int i)
{
	const unsigned char *b = sqlite3_column_blob(st, i);
	int n = sqlite3_column_bytes(st, i);
	for (int k = 0; k < n; k++)
		printf("%02x", b[k]);
}

/* One row as text, columns separated by '|', preceded by the header line
 * when with_header. */
static void print_row_text(sqlite3_stmt *st, int cols, int with_header)
{
	if (with_header) {
		for (int i = 0; i < cols; i++)
			printf("%s%s", i ? "|" : "", sqlite3_column_name(st, i));
		printf("\n");
	}
	for (int i = 0; i < cols; i++) {
		if (i)
			putchar('|');
		if (sqlite3_column_type(st, i) == SQLITE_BLOB) {
			blob_hex(st, i);
			continue;
		}
		const unsigned char *v = sqlite3_column_text(st, i);
		printf("%s", v ? (const char *)v : "");
	}
	printf("\n");
}

/* Runs every statement of sql in turn, printing its rows. Returns 0, or 1
 * with errbuf set to SQLite's message (already reported). */
static int run_statements(sqlite3 *db, const char *sql, struct json_w *json, int header,
			  char *errbuf, size_t errlen)
{
	const char *tail;
	sqlite3_stmt *st = NULL;
	while (sql && *sql) {
		if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
			snprintf(errbuf, errlen, "%s", sqlite3_errmsg(db));
			return cli_error("sql", "%s", errbuf);
		}
		if (!st) /* whitespace or comment */
			break;
		int cols = sqlite3_column_count(st), rc, printed_header = 0;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (json) {
				db_row_json(json, st, cols);
			} else {
				print_row_text(st, cols, header && !printed_header);
				printed_header = 1;
			}
		}
		if (rc != SQLITE_DONE) {
			snprintf(errbuf, errlen, "%s", sqlite3_errmsg(db));
			sqlite3_finalize(st);
			return cli_error("sql", "%s", errbuf);
		}
		sqlite3_finalize(st);
		st = NULL;
		sql = tail;
	}
	return 0;
}

static int run(int argc, char **argv)
{
	int json = 0, header = 1, write = 0, k, ret;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_sql, argc, argv);
	while ((k = cli_next(&p)) > 0) {
		if (k == O_JSON)
			json = 1;
		else if (k == O_NOHEADER)
			header = 0;
		else if (k == O_WRITE)
			write = 1;
	}
	if (k < 0)
		return EXIT_USAGE;
	if (p.ind != argc - 2)
		return cli_usage_error(&subcmd_sql, "expected a database file and one query");
	sqlite3 *db = NULL;
	char errbuf[512] = "";
	int orc = db_open(argv[p.ind], write ? DB_WRITE : DB_READ, &db, errbuf, sizeof errbuf);
	/* Not even a JSON error into a database that is standard output. */
	if (orc && (!json || orc == DB_OPEN_IS_STDOUT))
		return cli_error("sql", "%s", errbuf);
	struct json_w w;
	json_init_file(&w, stdout, JSON_COMPACT);
	if (json) {
		json_begin_object(&w);
		json_kint(&w, "version", 1);
		json_key(&w, "rows");
		json_begin_array(&w);
	}
	/* A database that does not open: still one JSON object, no rows. */
	ret = orc ? cli_error("sql", "%s", errbuf)
		  : run_statements(db, argv[p.ind + 1], json ? &w : NULL, header, errbuf,
				   sizeof errbuf);
	if (json) {
		json_end_array(&w);
		/* Still one JSON object: the rows so far and what went wrong. */
		if (ret)
			json_kstr(&w, "error", errbuf);
		json_end_object(&w);
		json_newline(&w);
		if (json_done(&w))
			ret = cli_error("sql", "the JSON output went wrong");
	}
	sqlite3_close(db);
	return ret;
}
