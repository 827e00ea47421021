/* tpmtrace diff: two traces compared per command code (model/trace_diff.h),
 * in the manner of perf diff. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/trace_kind.h"
#include "db/db.h"
#include "db/stats.h"
#include "model/tpm/tpm_cc.h"
#include "model/run_stats.h"
#include "model/trace_diff.h"

enum { O_JSON = 256, O_LIMIT, O_SORT, O_WIDE };
static const struct cli_opt opts[] = {
    {"limit", O_LIMIT, "N", CLI_NUM, "print the first N command codes only (text)", NULL, 1,
     1000000},
    {"sort", O_SORT, "KEY", CLI_CHOICE,
     "added (default): largest time that commands added\n"
     "or removed account for first (count difference x\n"
     "mean latency), then by time; time: largest\n"
     "difference in total time first; count: largest\n"
     "difference in the number of commands first",
     "added time count"},
    {"json", O_JSON, NULL, 0,
     "one JSON object {\"version\":1,\"a\":{...},\"b\":{...},\n"
     "\"commands\":[...]} with latencies in ns"},
    {"wide", O_WIDE, NULL, 0, "the p50 and p95 columns too (lines longer than 100 columns)"},
};
static const struct cli_form forms[] = {{0, "DB A B", NULL}, {0, "DB1:A DB2:B", NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_diff = {
    "diff",
    run,
    "compare two traces per command code",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Compares trace B with trace A per command code, in the manner of perf diff:\n"
    "the count, total latency, p50 and p95 (with --wide; nearest rank, as the command_stats view\n"
    "and the percentile() SQL function) in each, the differences B - A and the\n"
    "ratios B / A. Rows come sorted by the time that the commands added or removed\n"
    "account for (the count difference times the mean latency), then by the\n"
    "difference in total time, largest first: what a policy adds (StartAuthSession,\n"
    "ContextLoad, FlushContext under linux-6.10) comes before the commands that\n"
    "both traces have and that got slower on another TPM. A and B are trace ids\n"
    "(or latest, latest-replay) in one DB, or DB1:A and DB2:B for traces in two\n"
    "databases. It is how a recorded boot is compared with its replay\n"
    "under another policy, or two kernels' boots. The commands tpmtrace sent itself\n"
    "(a replay's clean-up, flag 32) are left out; counts include commands without a\n"
    "latency (imported logs), times only those with one. --sort time orders by\n"
    "the difference in total time alone, --sort count by the count difference.\n",
    NULL,
    "tpmtrace diff boot.db 1 3\n"
    "tpmtrace diff boot.db 1 3 --sort count --limit 5\n"
    "tpmtrace diff boot.db:1 demo.db:4 --json\n",
};

/* "DB:ID" split at its last colon. */
static int split_operand(const char *s, struct trace_diff_trace *x, char *buf, size_t n)
{
	const char *c = strrchr(s, ':');
	if (!c || c == s || !c[1] || (size_t)(c - s) >= n)
		return -1;
	memcpy(buf, s, (size_t)(c - s));
	buf[c - s] = 0;
	x->path = buf;
	x->id_arg = c + 1;
	return 0;
}

static int open_side(struct trace_diff_trace *x)
{
	char err[512];
	if (!(x->db = cli_open_db("diff", x->path, 0)))
		return 1;
	if (!(x->id = cli_pick_trace("diff", x->db, x->id_arg)))
		return 1;
	if (trace_diff_trace_load(x, err, sizeof err))
		return cli_error("diff", "%s: %s", x->path, err);
	return 0;
}

/* "12.345" ms, or "-" when there is no latency. */
static const char *ms_or_dash(char *b, size_t n, int64_t ns)
{
	if (ns < 0)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.3f", (double)ns / 1e6);
	return b;
}

static const char *ratio_str(char *b, size_t n, int64_t a, int64_t x)
{
	double r = (a >= 0 && x >= 0) ? trace_diff_ratio(a, x) : NAN;
	if (isnan(r))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.2fx", r);
	return b;
}

static void print_text(const struct trace_diff_trace *A, const struct trace_diff_trace *B,
		       const struct tdiff *d, long limit, int wide)
{
	const struct trace_diff_trace *s[2] = {A, B};
	const struct tdiff_side *t[2] = {&d->total_a, &d->total_b};
	for (int i = 0; i < 2; i++) {
		char own[64] = "";
		if (s[i]->sum.own)
			snprintf(own, sizeof own, " (%lld more sent by tpmtrace)",
				 (long long)s[i]->sum.own);
		char fig[200], head[PATH_MAX + 200];
		model_figure_label(fig, sizeof fig, s[i]->emulated);
		/* 100 columns whatever the path (escaped: a name from the
		 * command line) */
		snprintf(head, sizeof head, "%s trace %lld (%s%s%s)", cli_name(s[i]->path),
			 (long long)s[i]->id, s[i]->kind, s[i]->policy[0] ? ", policy " : "",
			 s[i]->policy);
		db_text_wrap(stdout, i ? "B: " : "A: ", 3, head, strlen(head), DB_TEXT_WIDTH);
		printf("   %llu commands%s, TPM time %.3f ms, span %.3f ms\n",
		       (unsigned long long)t[i]->count, own, (double)t[i]->total_ns / 1e6,
		       s[i]->sum.span_ns / 1e6);
		printf("   figures: %s, one run (n=1)\n", fig);
	}
	/* What the ratios are: between single runs, and across kinds of figure
	 * when one side is emulated (docs/cli.md, "Measured, emulated,
	 * predicted"). */
	char note[512];
	int mixed = strcmp(model_figure_kind(A->emulated), model_figure_kind(B->emulated));
	snprintf(note, sizeof note,
		 "ratios between single runs (n=1 each: no spread known, so no difference can be "
		 "told from noise; replay --repeat N and report give n, mean and spread)%s",
		 mixed ? "; one side is emulated: its times are the profile's, not measured" : "");
	db_text_wrap(stdout, "", 0, note, strlen(note), DB_TEXT_WIDTH);
	if (!wide) {
		printf("\n%-26s %7s %7s %7s %12s %12s %12s %8s\n", "command", "count A", "count B",
		       "delta", "total A ms", "total B ms", "delta ms", "ratio");
		for (unsigned i = 0; i < d->n && (limit <= 0 || i < (unsigned long)limit); i++) {
			const struct tdiff_row *r = &d->rows[i];
			char nb[16], q[24];
			printf("%-26s %7llu %7llu %+7lld %12.3f %12.3f %+12.3f %8s\n",
			       tpm_cc_label(r->cc, nb, sizeof nb), (unsigned long long)r->a.count,
			       (unsigned long long)r->b.count,
			       (long long)r->b.count - (long long)r->a.count,
			       (double)r->a.total_ns / 1e6, (double)r->b.total_ns / 1e6,
			       (double)trace_diff_delta_ns(r) / 1e6,
			       ratio_str(q, sizeof q, r->a.total_ns, r->b.total_ns));
		}
		if (limit > 0 && d->n > (unsigned long)limit)
			printf("... %u more command codes (--limit)\n", d->n - (unsigned)limit);
		return;
	}
	printf("\n%-26s %7s %7s %7s %12s %12s %12s %8s %9s %9s %9s %9s\n", "command", "count A",
	       "count B", "delta", "total A ms", "total B ms", "delta ms", "ratio", "p50 A",
	       "p50 B", "p95 A", "p95 B");
	for (unsigned i = 0; i < d->n && (limit <= 0 || i < (unsigned long)limit); i++) {
		const struct tdiff_row *r = &d->rows[i];
		char nb[16], q[6][24];
		const char *nm = tpm_cc_label(r->cc, nb, sizeof nb);
		printf("%-26s %7llu %7llu %+7lld %12.3f %12.3f %+12.3f %8s %9s %9s %9s %9s\n", nm,
		       (unsigned long long)r->a.count, (unsigned long long)r->b.count,
		       (long long)r->b.count - (long long)r->a.count, (double)r->a.total_ns / 1e6,
		       (double)r->b.total_ns / 1e6, (double)trace_diff_delta_ns(r) / 1e6,
		       ratio_str(q[0], sizeof q[0], r->a.total_ns, r->b.total_ns),
		       ms_or_dash(q[1], sizeof q[1], r->a.p50_ns),
		       ms_or_dash(q[2], sizeof q[2], r->b.p50_ns),
		       ms_or_dash(q[3], sizeof q[3], r->a.p95_ns),
		       ms_or_dash(q[4], sizeof q[4], r->b.p95_ns));
	}
	if (limit > 0 && d->n > (unsigned long)limit)
		printf("... %u more command codes (--limit)\n", d->n - (unsigned)limit);
}

static int run(int argc, char **argv)
{
	int json = 0, k, rc = 1, wide = 0;
	enum tdiff_order order = TDIFF_BY_ADDED;
	long limit = 0;
	struct cli_parse p;
	struct trace_diff_trace A = {0}, B = {0};
	char pa[4096], pb[4096], err[512];
	cli_parse_init(&p, &subcmd_diff, argc, argv);
	while ((k = cli_next(&p)) > 0) {
		if (k == O_JSON)
			json = 1;
		else if (k == O_WIDE)
			wide = 1;
		else if (k == O_SORT)
			order = !strcmp(p.arg, "count")	 ? TDIFF_BY_COUNT
				: !strcmp(p.arg, "time") ? TDIFF_BY_TIME
							 : TDIFF_BY_ADDED;
		else if (k == O_LIMIT)
			limit = (long)p.num;
	}
	if (k < 0)
		return EXIT_USAGE;
	int nop = argc - p.ind;
	if (nop == 3) {
		A.path = B.path = argv[p.ind];
		A.id_arg = argv[p.ind + 1];
		B.id_arg = argv[p.ind + 2];
	} else if (nop == 2 && strchr(argv[p.ind], ':')) {
		if (split_operand(argv[p.ind], &A, pa, sizeof pa) ||
		    split_operand(argv[p.ind + 1], &B, pb, sizeof pb))
			return cli_usage_error(&subcmd_diff,
					       "two traces in two databases are DB1:A "
					       "DB2:B (e.g. boot.db:1 other.db:2)");
	} else {
		return cli_usage_error(&subcmd_diff, "give DB A B, or DB1:A DB2:B");
	}
	struct tdiff d = {0};
	if (open_side(&A) || open_side(&B))
		goto out;
	if (trace_diff_load(A.db, A.id, B.db, B.id, &d, err, sizeof err)) {
		cli_error("diff", "%s", err);
		goto out;
	}
	trace_diff_sort(&d, order);
	if (json && trace_diff_json(stdout, &A, &B, &d)) {
		cli_error("diff", "the JSON output went wrong");
		goto out;
	}
	if (!json)
		print_text(&A, &B, &d, limit, wide);
	rc = 0;
out:
	trace_diff_release(&d);
	db_trace_summary_free(&A.sum);
	db_trace_summary_free(&B.sum);
	db_close(A.db);
	db_close(B.db);
	return rc;
}
