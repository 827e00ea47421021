/* A profile entry's latency distribution, the one definition predict's
 * sampled boots and timeout risk (model/predict_spread.c) and the latency
 * emulation (model/emulate.c) both draw from (docs/profiles.md, "Spread and
 * tail risk"):
 *  - the entry's quantiles (min, p50, p90, p95, p99, max: those known and in
 *    order) joined linearly as an inverse CDF and scaled so that its mean is
 *    the entry's, when one lies between min and max;
 *  - else, with a stdev, a log-normal of the entry's mean and stdev;
 *  - else the mean itself (no spread). */
#ifndef TPMTRACE_PROFILE_DIST_H
#define TPMTRACE_PROFILE_DIST_H

#include "model/profile.h"

struct prof_dist {
	double u[6], x[6];
	unsigned n;	  /* joined points (>= 3); 0: log-normal; 1: the constant x[0] */
	double mean, sd;  /* of the distribution (ms) */
	double scale;	  /* entry mean / the joined points' mean */
	double mu, sigma; /* the log-normal's (n == 0) */
};

/* e's distribution; e NULL: the constant fallback. */
void profile_dist_of(const struct prof_entry *e, double fallback, struct prof_dist *d);
/* One latency (ms) from u uniform in (0, 1) and z standard normal (the
 * log-normal's; the joined points use u, a constant neither). */
double profile_dist_draw(const struct prof_dist *d, double u, double z);
/* The share of latencies above t ms. */
double profile_dist_exceed(const struct prof_dist *d, double t);

#endif
