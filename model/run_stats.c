/* model_run_stats_add and model_run_stats_sd (model/run_stats.h): the running mean and
 * sample standard deviation of repeated measurements by Welford's method, for
 * replay --repeat. */
#include "model/run_stats.h"

#include <math.h>

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
