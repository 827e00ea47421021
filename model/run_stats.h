/* Mean and standard deviation of repeated measurements (replay --repeat, in
 * the manner of perf stat -r), accumulated one run at a time (Welford's
 * method: no list of values kept, no cancellation). */
#ifndef TPMTRACE_RUN_STATS_H
#define TPMTRACE_RUN_STATS_H

#include <stdint.h>

struct run_stats {
	uint64_t n;
	double mean, m2;
};

void model_run_stats_add(struct run_stats *s, double x);
/* The sample standard deviation (n - 1); 0 with fewer than two values. */
double model_run_stats_sd(const struct run_stats *s);

#endif
