/* Repeated measurements (replay --repeat, the replays report averages, in
 * the manner of perf stat -r): mean, sample standard deviation and the 95%
 * interval of the mean, accumulated one run at a time (Welford's method: no
 * list of values kept, no cancellation), and the one noise rule that says
 * whether two sets of runs differ (docs/cli.md, "Measured, emulated,
 * predicted"). replay, diff, report and advise use it. */
#ifndef TPMTRACE_RUN_STATS_H
#define TPMTRACE_RUN_STATS_H

#include <stddef.h>
#include <stdint.h>

struct run_stats {
	uint64_t n;
	double mean, m2;
};

void model_run_stats_add(struct run_stats *s, double x);
/* The sample standard deviation (n - 1); 0 with fewer than two values. */
double model_run_stats_sd(const struct run_stats *s);
/* Half the width of the 95% interval of the mean (Student's t with n - 1
 * degrees of freedom times sd / sqrt(n)); 0 with fewer than two values. */
double model_run_stats_ci95(const struct run_stats *s);
/* The two-sided 95% quantile of Student's t with df degrees of freedom
 * (df rounded down: the wider interval). */
double model_run_stats_t95(double df);

/* What a comparison of x with base says. */
enum run_verdict {
	RUN_SINGLE,	  /* a side has one run: no spread known, the ratio is between
			   * single runs */
	RUN_WITHIN_NOISE, /* the difference is inside its 95% interval: no effect */
	RUN_HIGHER,	  /* x above base by more than the noise */
	RUN_LOWER,	  /* x below base by more than the noise */
};
struct run_cmp {
	enum run_verdict verdict;
	double ratio; /* x.mean / base.mean (0 when base.mean is 0) */
	double diff;  /* x.mean - base.mean */
	double half;  /* half the 95% interval of diff (0 for RUN_SINGLE) */
};
/* The noise rule: Welch's interval of the difference of the means, diff +-
 * t95(Welch-Satterthwaite df) * sqrt(sd_b^2/n_b + sd_x^2/n_x); a difference
 * whose interval holds 0 is within noise. */
void model_run_stats_compare(const struct run_stats *base, const struct run_stats *x,
			     struct run_cmp *out);
/* "single runs" (no spread known), "within noise", "higher", "lower". */
const char *model_run_verdict_name(enum run_verdict v);
/* The verdict in a few words for a table: "1.05x, within noise",
 * "3.21x (+12.3 +- 0.4)", "0.98x, single runs". unit: of diff. */
void model_run_cmp_str(char *b, size_t n, const struct run_cmp *c);
/* "12.345 +- 0.123 (1.0%)"; for one run "12.345 +- -" (no spread known). */
void model_run_stats_str(char *b, size_t n, const struct run_stats *s);

struct json_w;
/* The members sd_key (the sd) and ci_key (half the 95% interval of the
 * mean; NULL: none), null for one run: it has no spread. */
void model_run_stats_json(struct json_w *w, const char *sd_key, const char *ci_key,
			  const struct run_stats *s);
/* key: {"ratio","diff_ms","diff_ms_ci95" (null for single runs),"verdict"},
 * or null when c is NULL (nothing to compare with). */
void model_run_cmp_json(struct json_w *w, const char *key, const struct run_cmp *c);

/* What a figure of a trace is: "measured" (a recording or a replay on a
 * real target), "emulated" (a replay whose latencies a profile gave: the
 * trace's emulated column) or "predicted" (priced from a profile). */
const char *model_figure_kind(const char *emulated);
/* "measured", or "emulated (latency from profile NAME)". */
void model_figure_label(char *b, size_t n, const char *emulated);

#endif
