/* tpmtrace stats: per-command-code latency statistics of a trace. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/stats.h"
#include "model/origin_stats.h"

enum { O_TRACE = 256, O_JSON, O_BY, O_WIDE };
static const struct cli_opt opts[] = {
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP},
    {"by", O_BY, "WHAT", CLI_CHOICE,
     "command (default): per command code; origin: per\n"
     "origin of the commands (firmware, kernel, userspace,\n"
     "unknown), the one predict and replay use\n"
     "(docs/policies.md); column hwrng: how many of them are\n"
     "the kernel's TPM hwrng's (its reads and their sessions)",
     "command origin"},
    {"json", O_JSON, NULL, 0,
     "{\"version\":1,\"trace\":{...},\"commands\":[...]} (--by\n"
     "origin: \"origins\" instead of \"commands\"), times in ns"},
    {"wide", O_WIDE, NULL, 0,
     "the first occurrence's latency too (lines longer than\n"
     "100 columns)"},
};
static const struct cli_form forms[] = {{0, "DB", NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_stats = {
    "stats",
    run,
    "per-command latency statistics",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Per command code: count, total, min, mean, p50, p95, p99 and max latency in\n"
    "milliseconds, and the latency of the first occurrence (cold TPM, cold caches),\n"
    "sorted by total time (the first occurrence with --wide); then a summary of the\n"
    "trace: its commands, TPM time and span (docs/schema.md, \"Figures\"). Percentiles are\n"
    "nearest-rank, as in the command_stats view (docs/schema.md). Commands tpmtrace\n"
    "sent itself (the Startup of a spawned swtpm, the resource manager's flushes;\n"
    "flag 32) are counted apart from the clients'.\n",
    NULL,
    "tpmtrace stats tpmtrace-demo.db --trace 1\n"
    "tpmtrace stats tpmtrace-demo.db --by origin\n",
};

/* Prints rows of per-command-code statistics: 94 columns for a name of 22
 * characters and times below 10 s; the first occurrence with wide. */
static void print_rows(const struct db_cc_stats *r, size_t nr, struct json_w *w, int wide)
{
	for (size_t n = 0; n < nr; n++, r++) {
		if (w) {
			json_begin_object(w);
			json_kstr(w, "name", r->name);
			json_kint(w, "cc", r->cc);
			json_kint(w, "count", r->count);
			json_kint(w, "total_ns", r->total.i);
			json_kint(w, "min_ns", r->min.i);
			json_kdouble(w, "mean_ns", r->mean, 0);
			json_kint(w, "p50_ns", r->p50.i);
			json_kint(w, "p95_ns", r->p95.i);
			json_kint(w, "p99_ns", r->p99.i);
			json_kint(w, "max_ns", r->max.i);
			json_kint(w, "first_ns", r->first.i);
			json_end_object(w);
		} else {
			char nb[256];
			if (!wide) {
				printf("%-22s %6lld %10.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f\n",
				       db_text_safe(r->name, nb, sizeof nb), (long long)r->count,
				       cli_ns_to_ms(r->total.d), cli_ns_to_ms(r->min.d),
				       cli_ns_to_ms(r->mean), cli_ns_to_ms(r->p50.d),
				       cli_ns_to_ms(r->p95.d), cli_ns_to_ms(r->p99.d),
				       cli_ns_to_ms(r->max.d));
				continue;
			}
			printf("%-26s %7lld %11.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n",
			       db_text_safe(r->name, nb, sizeof nb), (long long)r->count,
			       cli_ns_to_ms(r->total.d), cli_ns_to_ms(r->min.d),
			       cli_ns_to_ms(r->mean), cli_ns_to_ms(r->p50.d),
			       cli_ns_to_ms(r->p95.d), cli_ns_to_ms(r->p99.d),
			       cli_ns_to_ms(r->max.d), cli_ns_to_ms(r->first.d));
		}
	}
}

/* Commands, latency total and maximum per origin. */
static int print_origins(sqlite3 *db, int64_t id, struct json_w *w)
{
	struct origin_stats org[POL_ORIGIN__COUNT];
	char err[512];
	int no = model_origin_stats_load(db, id, org, err, sizeof err);
	if (no < 0)
		return cli_error("stats", "%s", err);
	if (w) {
		json_begin_object(w);
		json_kint(w, "version", 1);
		json_key(w, "origins");
		json_begin_array(w);
	} else
		printf("%-12s %7s %11s %9s %9s %7s\n", "origin", "count", "total ms", "mean", "max",
		       "hwrng");
	for (int n = 0; n < no; n++) {
		const struct origin_stats *o = &org[n];
		if (w) {
			json_begin_object(w);
			json_kstr(w, "origin", policy_origin_str(o->origin));
			json_kint(w, "count", o->n);
			json_kdouble(w, "total_ns", o->total, 0);
			json_kdouble(w, "mean_ns", o->mean, 0);
			json_kdouble(w, "max_ns", o->max, 0);
			json_kint(w, "hwrng", o->hwrng);
			json_end_object(w);
		} else
			printf("%-12s %7lld %11.3f %9.3f %9.3f %7lld\n",
			       policy_origin_str(o->origin), o->n, cli_ns_to_ms(o->total),
			       cli_ns_to_ms(o->mean), cli_ns_to_ms(o->max), o->hwrng);
	}
	return 0;
}

/* A trace without timing (an IMA list, a TCG log: db/stats.h, DB_TIMED_SQL):
 * one line that says so, then the counts it has, per command code. */
static void print_counts(const struct db_stats *s, struct json_w *w)
{
	if (w) {
		json_begin_object(w);
		json_kint(w, "version", 1);
		json_kbool(w, "timing", 0);
		json_key(w, "commands");
		json_begin_array(w);
	} else {
		printf(
		    "no timing in this trace (its commands are ordered, not timed): counts only\n");
		printf("%-22s %6s\n", "command", "count");
	}
	for (size_t n = 0; n < s->n_cmds; n++) {
		const struct db_cc_stats *r = &s->cmds[n];
		char nb[256];
		if (w) {
			json_begin_object(w);
			json_kstr(w, "name", r->name);
			json_kint(w, "cc", r->cc);
			json_kint(w, "count", r->count);
			json_end_object(w);
		} else {
			printf("%-22s %6lld\n", db_text_safe(r->name, nb, sizeof nb),
			       (long long)r->count);
		}
	}
	if (w) {
		json_end_array(w);
		json_key(w, "tpmtrace_commands");
		json_begin_array(w);
	}
}

/* The per-command-code tables: the clients' commands, then tpmtrace's own
 * (when all of the clients' were read). */
static void print_commands(const struct db_stats *s, struct json_w *w, int wide)
{
	if (s->have_sum && !s->sum.timed) {
		print_counts(s, w);
		return;
	}
	if (w) {
		json_begin_object(w);
		json_kint(w, "version", 1);
		json_key(w, "commands");
		json_begin_array(w);
	} else if (!wide) {
		printf("%-22s %6s %10s %8s %8s %8s %8s %8s %8s\n", "command", "count", "total ms",
		       "min", "mean", "p50", "p95", "p99", "max");
	} else {
		printf("%-26s %7s %11s %9s %9s %9s %9s %9s %9s %9s\n", "command", "count",
		       "total ms", "min", "mean", "p50", "p95", "p99", "max", "first");
	}
	print_rows(s->cmds, s->n_cmds, w, wide);
	if (!s->cmds_done)
		return;
	if (w) {
		json_end_array(w);
		json_key(w, "tpmtrace_commands");
		json_begin_array(w);
	} else if (s->n_own) {
		printf("sent by tpmtrace itself (flag 32: Startup of the spawned swtpm,\n"
		       "resource-manager flushes):\n");
	}
	print_rows(s->own, s->n_own, w, wide);
}

static void print_summary(int64_t id, const struct db_trace_summary *t, struct json_w *w)
{
	if (w) {
		json_end_array(w);
		json_key(w, "trace");
		json_begin_object(w);
		json_kint(w, "id", id);
		json_kstr(w, "name", t->name);
		json_kstr(w, "kind", t->kind);
		json_kstr(w, "status", t->status);
		json_kint(w, "commands", t->commands);
		json_kint(w, "tpmtrace_commands", t->own);
		json_kint(w, "events", t->events);
		json_kint(w, "dropped", t->dropped);
		json_kint(w, "malformed", t->malformed);
		json_kint(w, "no_response", t->no_response);
		json_kbool(w, "timing", t->timed > 0);
		/* "no timing" is null (the writer's NAN), never 0 (docs/schema.md) */
		double no = t->timed ? 0 : NAN;
		json_kdouble(w, "tpm_ns", t->tpm_ns + no, 0);
		json_kdouble(w, "span_ns", t->span_ns + no, 0);
		json_kdouble(w, "tpm_ns_incl_tpmtrace", t->tpm_ns_all + no, 0);
		json_kdouble(w, "span_ns_incl_tpmtrace", t->span_ns_all + no, 0);
		json_end_object(w);
		json_end_object(w);
		json_newline(w);
	} else {
		char nb[1024], kb[64], sb[64], tm[96] = "no timing";
		if (t->timed)
			snprintf(tm, sizeof tm, "TPM time %.3f ms, span %.3f ms",
				 cli_ns_to_ms(t->tpm_ns), cli_ns_to_ms(t->span_ns));
		/* 100 columns: the name is cut ("...") to what the counts leave. */
		char tail[200];
		int tl = snprintf(
		    tail, sizeof tail, " (%s, %s): %lld commands, %lld events, %lld dropped,",
		    db_text_safe(t->kind, kb, sizeof kb), db_text_safe(t->status, sb, sizeof sb),
		    (long long)t->commands, (long long)t->events, (long long)t->dropped);
		int hl = printf("trace %lld", (long long)id);
		if (t->name) {
			int room = 100 - hl - tl - 3,
			    nl = (int)strlen(db_text_safe(t->name, nb, sizeof nb));
			if (nl > room && room > 3)
				printf(" '%.*s...'", room - 3, nb);
			else
				printf(" '%s'", nb);
		}
		printf("%s\n  %lld malformed, %lld without response; %s\n", tail,
		       (long long)t->malformed, (long long)t->no_response, tm);
		if (t->own)
			printf(
			    "  and %lld sent by tpmtrace; incl. tpmtrace's own: TPM time %.3f ms, "
			    "span %.3f ms\n",
			    (long long)t->own, cli_ns_to_ms(t->tpm_ns_all),
			    cli_ns_to_ms(t->span_ns_all));
	}
}

static int run(int argc, char **argv)
{
	const char *trace_arg = NULL;
	int json = 0, k, ret = 1, origin = 0, wide = 0;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_stats, argc, argv);
	while ((k = cli_next(&p)) > 0) {
		if (k == O_TRACE)
			trace_arg = p.arg;
		else if (k == O_JSON)
			json = 1;
		else if (k == O_WIDE)
			wide = 1;
		else if (k == O_BY)
			origin = !strcmp(p.arg, "origin");
	}
	if (k < 0)
		return EXIT_USAGE;
	const char *dbpath = cli_db_operand(&p);
	if (!dbpath)
		return EXIT_USAGE;
	sqlite3 *db = cli_open_db("stats", dbpath, 0);
	if (!db)
		return 1;
	struct db_stats s;
	char err[1024];
	memset(&s, 0, sizeof s);
	int64_t id = cli_pick_trace("stats", db, trace_arg);
	if (!id)
		goto out;
	/* Per origin instead of per command code; the summary follows. */
	if (db_stats_load(db, id, !origin, &s, err, sizeof err) && !s.started) {
		cli_error("stats", "%s", err);
		goto out;
	}
	struct json_w jw, *w = json ? &jw : NULL;
	json_init_file(&jw, stdout, JSON_COMPACT);
	if (origin) {
		if (print_origins(db, id, w))
			goto out;
	} else {
		print_commands(&s, w, wide);
	}
	if (!s.have_sum) {
		if (w) {
			json_end_array(w);
			json_end_object(w);
			json_newline(w);
		} else
			putchar('\n');
		fflush(stdout);
		cli_error("stats", "%s: %s", dbpath, err);
		goto out;
	}
	print_summary(id, &s.sum, w);
	ret = w && json_done(w) ? cli_error("stats", "the JSON output went wrong") : 0;
out:
	db_stats_free(&s);
	sqlite3_close(db);
	return ret;
}
