/* Mean, spread and the noise rule of repeated measurements
 * (model/run_stats.h). */
#include "model/run_stats.h"

#include <math.h>
#include <stdio.h>

#include "db/json.h"

void model_run_stats_add(struct run_stats *s, double x)
{
	s->n++;
	double d = x - s->mean;
	s->mean += d / (double)s->n;
	s->m2 += d * (x - s->mean);
}

double model_run_stats_sd(const struct run_stats *s)
{
	return s->n > 1 ? sqrt(s->m2 / (double)(s->n - 1)) : 0.0;
}

double model_run_stats_t95(double df)
{
	/* t(0.975, df) for df 1..30, then 40, 60, 120 and the normal's. */
	static const double t[30] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
				     2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
				     2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
				     2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
	if (!(df >= 1))
		return t[0];
	if (df < 31)
		return t[(int)df - 1];
	return df < 40 ? t[29] : df < 60 ? 2.021 : df < 120 ? 2.000 : df < 1e6 ? 1.980 : 1.960;
}

double model_run_stats_ci95(const struct run_stats *s)
{
	if (s->n < 2)
		return 0;
	return model_run_stats_t95((double)(s->n - 1)) * model_run_stats_sd(s) / sqrt((double)s->n);
}

void model_run_stats_compare(const struct run_stats *base, const struct run_stats *x,
			     struct run_cmp *out)
{
	out->ratio = base->mean != 0 ? x->mean / base->mean : 0;
	out->diff = x->mean - base->mean;
	out->half = 0;
	if (base->n < 2 || x->n < 2) {
		out->verdict = RUN_SINGLE;
		return;
	}
	double vb = model_run_stats_sd(base) * model_run_stats_sd(base) / (double)base->n;
	double vx = model_run_stats_sd(x) * model_run_stats_sd(x) / (double)x->n;
	double se2 = vb + vx;
	/* Welch-Satterthwaite; two sets without spread have no noise. */
	double df =
	    se2 > 0 ? se2 * se2 / (vb * vb / (double)(base->n - 1) + vx * vx / (double)(x->n - 1))
		    : 1e9;
	out->half = model_run_stats_t95(df) * sqrt(se2);
	out->verdict = fabs(out->diff) <= out->half ? RUN_WITHIN_NOISE
		       : out->diff > 0		    ? RUN_HIGHER
						    : RUN_LOWER;
}

const char *model_run_verdict_name(enum run_verdict v)
{
	switch (v) {
	case RUN_SINGLE:
		return "single runs";
	case RUN_WITHIN_NOISE:
		return "within noise";
	case RUN_HIGHER:
		return "higher";
	case RUN_LOWER:
		return "lower";
	}
	return "?";
}

void model_run_cmp_str(char *b, size_t n, const struct run_cmp *c)
{
	switch (c->verdict) {
	case RUN_SINGLE:
		snprintf(b, n, "%.2fx, single runs (no spread known)", c->ratio);
		break;
	case RUN_WITHIN_NOISE:
		snprintf(b, n, "%.2fx, within noise (%+.3f +- %.3f)", c->ratio, c->diff, c->half);
		break;
	default:
		snprintf(b, n, "%.2fx, %s (%+.3f +- %.3f)", c->ratio,
			 model_run_verdict_name(c->verdict), c->diff, c->half);
	}
}

void model_run_stats_str(char *b, size_t n, const struct run_stats *s)
{
	double sd = model_run_stats_sd(s);
	if (s->n < 2)
		snprintf(b, n, "%.3f +- -", s->mean);
	else
		snprintf(b, n, "%.3f +- %.3f (%.1f%%)", s->mean, sd,
			 s->mean > 0 ? 100 * sd / s->mean : 0);
}

const char *model_figure_kind(const char *emulated)
{
	return emulated && *emulated ? "emulated" : "measured";
}

void model_figure_label(char *b, size_t n, const char *emulated)
{
	if (emulated && *emulated)
		snprintf(b, n, "emulated (latency from profile %s)", emulated);
	else
		snprintf(b, n, "measured");
}

void model_run_stats_json(struct json_w *w, const char *sd_key, const char *ci_key,
			  const struct run_stats *s)
{
	if (s->n < 2) {
		json_knull(w, sd_key);
		if (ci_key)
			json_knull(w, ci_key);
		return;
	}
	json_kdouble(w, sd_key, model_run_stats_sd(s), 6);
	if (ci_key)
		json_kdouble(w, ci_key, model_run_stats_ci95(s), 6);
}

void model_run_cmp_json(struct json_w *w, const char *key, const struct run_cmp *c)
{
	if (!c) {
		json_knull(w, key);
		return;
	}
	json_key(w, key);
	json_begin_object(w);
	json_kdouble(w, "ratio", c->ratio, 6);
	json_kdouble(w, "diff_ms", c->diff, 6);
	if (c->verdict == RUN_SINGLE)
		json_knull(w, "diff_ms_ci95");
	else
		json_kdouble(w, "diff_ms_ci95", c->half, 6);
	json_kstr(w, "verdict", model_run_verdict_name(c->verdict));
	json_end_object(w);
}
