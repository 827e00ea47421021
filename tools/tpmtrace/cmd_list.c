/* tpmtrace list: the traces in a database. */
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/trace_list.h"

enum { O_JSON = 256, O_WIDE };
static const struct cli_opt opts[] = {
    {"wide", O_WIDE, NULL, 0, "every column, names and sources whole (wider than\n100 columns)"},
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
    "Lists the traces in a database, one line each in 100 columns: id, trace kind,\n"
    "status (complete, recording = unfinished, incomplete), commands and TPM time\n"
    "(the clients': those tpmtrace sent itself left out, as in stats;\n"
    "docs/schema.md, \"Figures\"; \"no timing\" for a trace without latencies),\n"
    "the replay's policy and the name (cut to fit). --wide adds the start time,\n"
    "records dropped, the emulated profile, the parent trace and the source.\n"
    "The kinds (docs/schema.md, \"Trace kinds\"): record (a live recording),\n"
    "replay (on a real target), replay-emulated (on swtpm emulating a profile),\n"
    "derived (advise --rewrite, strip), import-timed (pcap, ftrace),\n"
    "import-untimed (IMA list, TCG log, swtpm log), unfinished (killed, failed\n"
    "or still running). Without --trace, commands read the newest record or\n"
    "import-timed trace (docs/cli.md, \"Which trace\").\n",
    NULL,
    "tpmtrace list tpmtrace-demo.db\n",
};

/* A trace's TPM time, or "no timing" (never 0 for a trace without one). */
static const char *tpm_time(const struct db_trace_row *r, char *b, size_t n)
{
	if (!r->has_tpm_ns)
		snprintf(b, n, "no timing");
	else if (r->tpm_ns < 1000000000LL)
		snprintf(b, n, "%.2f ms", (double)r->tpm_ns / 1e6);
	else
		snprintf(b, n, "%.3f s", (double)r->tpm_ns / 1e9);
	return b;
}

/* s escaped (db_text_safe), cut to cols columns with "..." when longer (a cut
 * never splits a UTF-8 sequence; a multi-byte character counts as one). */
static const char *fit(const char *s, size_t cols, char *b, size_t n)
{
	db_text_safe(s, b, n);
	size_t c = 0, i = 0, cut = 0;
	for (; b[i]; i++) {
		if (((unsigned char)b[i] & 0xC0) == 0x80)
			continue;
		if (++c == cols - 2)
			cut = i; /* where "..." starts if it does not fit */
		if (c > cols) {
			memcpy(b + cut, "...", 4);
			break;
		}
	}
	return b;
}

/* 100 columns, the name cut to what is left; --wide: every column, nothing
 * cut. */
#define POLICY_COLS 16
#define NAME_COLS   27

static void print_text(const struct db_trace_list *l, int wide)
{
	if (wide)
		printf("%4s  %-15s %-10s %-20s %8s %7s  %-10s  %-27s  %-24s %6s  %s\n", "id",
		       "kind", "status", "started", "commands", "dropped", "TPM time", "policy",
		       "emulated", "parent", "name / source");
	else
		printf("%4s  %-15s %-10s %8s  %-10s  %-16s  %s\n", "id", "kind", "status",
		       "commands", "TPM time", "policy", "name");
	for (size_t n = 0; n < l->n; n++) {
		const struct db_trace_row *r = &l->rows[n];
		/* Names and sources are whatever the file holds: escaped. */
		char stt[64], at[64], pol[256], em[256], nm[1024], sr[1024], tt[32], par[24];
		const char *kind = db_trace_kind_rule(r->tkind)->name;
		tpm_time(r, tt, sizeof tt);
		fit(r->status, 10, stt, sizeof stt);
		if (!wide) {
			fit(r->policy ? r->policy : "-", POLICY_COLS, pol, sizeof pol);
			fit(r->name ? r->name : r->source, NAME_COLS, nm, sizeof nm);
			printf("%4lld  %-15s %-10s %8lld  %-10s  %-16s  %s\n", (long long)r->id,
			       kind, stt, (long long)r->commands, tt, pol, nm);
			continue;
		}
		snprintf(par, sizeof par, "%lld", (long long)r->parent_id);
		printf("%4lld  %-15s %-10s %-20s %8lld %7lld  %-10s  %-27s  %-24s %6s  %s%s%s\n",
		       (long long)r->id, kind, stt,
		       r->started_at ? db_text_safe(r->started_at, at, sizeof at) : "-",
		       (long long)r->commands, (long long)r->dropped, tt,
		       db_text_safe(r->policy ? r->policy : "-", pol, sizeof pol),
		       db_text_safe(r->emulated ? r->emulated : "-", em, sizeof em),
		       r->has_parent ? par : "-", db_text_safe(r->name, nm, sizeof nm),
		       r->name && r->source ? " / " : "", db_text_safe(r->source, sr, sizeof sr));
	}
}

static int run(int argc, char **argv)
{
	int json = 0, wide = 0, k;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_list, argc, argv);
	while ((k = cli_next(&p)) > 0)
		if (k == O_JSON)
			json = 1;
		else if (k == O_WIDE)
			wide = 1;
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
		return cli_error("list", "%s", err);
	}
	/* A failure part-way (l.incomplete): the rows read are printed, then
	 * the error, and the exit status is 1. */
	int bad_json = json && db_trace_list_json(stdout, &l);
	if (!json)
		print_text(&l, wide);
	int incomplete = l.incomplete;
	db_trace_list_free(&l);
	if (bad_json)
		return cli_error("list", "the JSON output went wrong");
	if (incomplete) {
		fflush(stdout);
		return cli_error("list", "%s", err);
	}
	return 0;
}
