/* 'tpmtrace stats --by origin': commands, latency total and maximum per
 * origin of the clients of a trace (trace_origins_load). Prints nothing. */
#ifndef TPMTRACE_ORIGIN_STATS_H
#define TPMTRACE_ORIGIN_STATS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "model/policy.h"

struct origin_stats {
	int origin;	    /* enum pol_origin */
	long long n, n_lat; /* commands; those with a latency */
	long long hwrng;    /* commands of the kernel's TPM hwrng client */
	double total, max;  /* latency total and maximum, ns */
	double mean;	    /* total / n_lat, 0 without latencies */
};

/* Fills out[] with the origins that have commands, in boot order (firmware,
 * kernel, user space, then unknown); returns how many, or -errno with a
 * message in err. */
int model_origin_stats_load(sqlite3 *db, int64_t id, struct origin_stats out[POL_ORIGIN__COUNT],
			    char *err, size_t errlen);

#endif
