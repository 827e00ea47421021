/* model/run_stats.h: mean, sample sd, the 95% interval of the mean and the
 * noise rule (Welch's interval of the difference of two means) on sets of
 * runs chosen so that each verdict is known by hand. */
#include <math.h>
#include <string.h>

#include "model/run_stats.h"
#include "testlib.h"

static struct run_stats of(const double *v, unsigned n)
{
	struct run_stats s = {0};
	for (unsigned i = 0; i < n; i++)
		model_run_stats_add(&s, v[i]);
	return s;
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-3;
}

int main(void)
{
	const double a[] = {10, 11, 12}, b[] = {11, 12, 13}, c[] = {20, 21, 22}, one[] = {30};
	const double flat[] = {5, 5, 5}, flat2[] = {6, 6, 6};
	struct run_stats A = of(a, 3), B = of(b, 3), C = of(c, 3), O = of(one, 1);
	struct run_stats F = of(flat, 3), F2 = of(flat2, 3);
	struct run_cmp r;
	char s[96];

	CHECK(A.n == 3 && near(A.mean, 11) && near(model_run_stats_sd(&A), 1), "mean 11, sd 1");
	/* t(0.975, 2) = 4.303: 4.303 * 1 / sqrt(3) */
	CHECK(near(model_run_stats_ci95(&A), 4.303 / sqrt(3)), "95%% interval of the mean: %f",
	      model_run_stats_ci95(&A));
	CHECK(model_run_stats_ci95(&O) == 0 && model_run_stats_sd(&O) == 0, "one run: no spread");
	CHECK(near(model_run_stats_t95(4.7), 2.776) && near(model_run_stats_t95(1e9), 1.96),
	      "t95 rounds df down; the normal's at the limit");

	/* Means 11 and 12, sd 1 each, n 3: se sqrt(2/3), Welch df 4, t 2.776,
	 * half 2.267 > 1: within noise. */
	model_run_stats_compare(&A, &B, &r);
	CHECK(r.verdict == RUN_WITHIN_NOISE && near(r.diff, 1) &&
		  near(r.half, 2.776 * sqrt(2.0 / 3)),
	      "overlapping runs: within noise (%s, diff %f half %f)",
	      model_run_verdict_name(r.verdict), r.diff, r.half);
	model_run_stats_compare(&A, &A, &r);
	CHECK(r.verdict == RUN_WITHIN_NOISE && r.diff == 0, "the same runs: within noise");
	model_run_stats_compare(&A, &C, &r);
	CHECK(r.verdict == RUN_HIGHER && near(r.ratio, 21.0 / 11), "10 ms apart: higher");
	model_run_stats_compare(&C, &A, &r);
	CHECK(r.verdict == RUN_LOWER, "and the other way: lower");
	model_run_stats_compare(&F, &F2, &r);
	CHECK(r.verdict == RUN_HIGHER && r.half == 0, "no spread, different means: higher");
	model_run_stats_compare(&F, &F, &r);
	CHECK(r.verdict == RUN_WITHIN_NOISE, "no spread, same means: within noise");
	model_run_stats_compare(&A, &O, &r);
	CHECK(r.verdict == RUN_SINGLE && near(r.ratio, 30.0 / 11), "one run: single");
	model_run_cmp_str(s, sizeof s, &r);
	CHECK(!strcmp(s, "2.73x, single runs (no spread known)"), "single: '%s'", s);
	model_run_stats_compare(&A, &B, &r);
	model_run_cmp_str(s, sizeof s, &r);
	CHECK(!strcmp(s, "1.09x, within noise (+1.000 +- 2.267)"), "within noise: '%s'", s);
	model_run_stats_str(s, sizeof s, &O);
	CHECK(!strcmp(s, "30.000 +- -"), "one run: '%s'", s);
	model_run_stats_str(s, sizeof s, &A);
	CHECK(!strcmp(s, "11.000 +- 1.000 (9.1%)"), "three runs: '%s'", s);
	model_figure_label(s, sizeof s, "slb9670");
	CHECK(!strcmp(s, "emulated (latency from profile slb9670)") &&
		  !strcmp(model_figure_kind(""), "measured") &&
		  !strcmp(model_figure_kind(NULL), "measured"),
	      "labels: '%s'", s);
	return tl_finish("test_run_stats");
}
