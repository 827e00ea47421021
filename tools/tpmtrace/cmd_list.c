/* tpmtrace list: the traces in a database. */
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/trace_list.h"

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
    "(complete, recording = unfinished, incomplete), start time, commands (the\n"
    "clients': those tpmtrace sent itself left out, as in stats; docs/schema.md,\n"
    "\"Figures\"), records dropped, name and source.\n",
    NULL,
    "tpmtrace list tpmtrace-demo.db\n",
};

static int print_json(const struct db_trace_list *l)
{
	struct json_w w;
	json_init_file(&w, stdout, JSON_COMPACT);
	json_begin_object(&w);
	json_kint(&w, "version", 1);
	json_key(&w, "traces");
	json_begin_array(&w);
	for (size_t n = 0; n < l->n; n++) {
		const struct db_trace_row *r = &l->rows[n];
		json_begin_object(&w);
		json_kint(&w, "id", r->id);
		json_kstr(&w, "kind", r->kind);
		json_kstr(&w, "status", r->status);
		json_kstr(&w, "started_at", r->started_at);
		json_kint(&w, "commands", r->commands);
		json_kint(&w, "dropped", r->dropped);
		json_kstr(&w, "name", r->name);
		json_kstr(&w, "source", r->source);
		if (!r->has_parent)
			json_knull(&w, "parent_id");
		else
			json_kint(&w, "parent_id", r->parent_id);
		json_kstr(&w, "policy", r->policy);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
	json_newline(&w);
	return json_done(&w);
}

static void print_text(const struct db_trace_list *l)
{
	printf("%4s  %-7s %-10s %-20s %9s %8s  %s\n", "id", "kind", "status", "started", "commands",
	       "dropped", "name / source");
	for (size_t n = 0; n < l->n; n++) {
		const struct db_trace_row *r = &l->rows[n];
		/* Names and sources are whatever the file holds: escaped. */
		char kd[64], stt[64], at[64], nm[1024], sr[1024];
		printf("%4lld  %-7s %-10s %-20s %9lld %8lld  %s%s%s\n", (long long)r->id,
		       safe_text(r->kind, kd, sizeof kd), safe_text(r->status, stt, sizeof stt),
		       r->started_at ? safe_text(r->started_at, at, sizeof at) : "-",
		       (long long)r->commands, (long long)r->dropped,
		       safe_text(r->name, nm, sizeof nm), r->name && r->source ? " / " : "",
		       safe_text(r->source, sr, sizeof sr));
	}
}

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
	const char *dbpath = cli_db_operand(&p);
	if (!dbpath)
		return EXIT_USAGE;
	sqlite3 *db = cli_open_db("list", dbpath, 0);
	if (!db)
		return 1;
	struct db_trace_list l;
	char err[512];
	int rc = db_trace_list(db, &l, err, sizeof err);
	sqlite3_close(db);
	if (rc) {
		db_trace_list_free(&l);
		return die("list", "%s", err);
	}
	/* A failure part-way (l.incomplete): the rows read are printed, then
	 * the error, and the exit status is 1. */
	int bad_json = json && print_json(&l);
	if (!json)
		print_text(&l);
	int incomplete = l.incomplete;
	db_trace_list_free(&l);
	if (bad_json)
		return die("list", "the JSON output went wrong");
	if (incomplete) {
		fflush(stdout);
		return die("list", "%s", err);
	}
	return 0;
}
