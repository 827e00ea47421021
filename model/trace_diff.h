/* Two traces compared per command code, in the manner of `perf diff`: count,
 * total latency and nearest-rank p50/p95 (the percentile() SQL function) in
 * each, sorted first by the time that commands added or removed account for,
 * then by the difference in total time. The traces may live in one
 * database or two. Only the clients' commands count: those tpmtrace sent
 * itself (flag 32, a replay's clean-up) are left out, as in command_stats. */
#ifndef TPMTRACE_TRACE_DIFF_H
#define TPMTRACE_TRACE_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "db/stats.h"

struct tdiff_side {
	uint64_t count;	  /* commands of this code */
	uint64_t timed;	  /* of which with a recorded latency */
	int64_t total_ns; /* sum of latencies (0 when none) */
	int64_t p50_ns;	  /* -1 when no latency */
	int64_t p95_ns;	  /* -1 when no latency */
};

struct tdiff_row {
	uint32_t cc;
	struct tdiff_side a, b;
};

struct tdiff {
	struct tdiff_row *rows; /* sorted (trace_diff_sort), TDIFF_BY_ADDED at load */
	unsigned n;
	struct tdiff_side total_a, total_b; /* every command (p50/p95 -1) */
};

/* Loads trace ida of da and idb of db (da may equal db) and compares them.
 * Returns 0, -ENOENT (a trace does not exist; err names it), -ENOMEM or
 * -EIO (err set). */
int trace_diff_load(sqlite3 *da, int64_t ida, sqlite3 *db, int64_t idb, struct tdiff *out,
		    char *err, size_t errlen);
void trace_diff_release(struct tdiff *d);

enum tdiff_order {
	TDIFF_BY_ADDED = 0, /* largest |trace_diff_added_ns| first, then by time (the default) */
	TDIFF_BY_TIME,	    /* largest |b.total - a.total| first */
	TDIFF_BY_COUNT,	    /* largest |b.count - a.count| first */
};
/* Orders the rows (ties: the other key, then the code). */
void trace_diff_sort(struct tdiff *d, enum tdiff_order by);

/* The part of the time difference that the change in count accounts for:
 * (b.count - a.count) times the mean latency on the side that has more of
 * them (0 without latencies). The rest of b - a is the commands both have
 * becoming slower or faster. */
int64_t trace_diff_added_ns(const struct tdiff_row *r);
/* b - a of the totals in ns; b / a of the totals (NAN when a is 0). */
int64_t trace_diff_delta_ns(const struct tdiff_row *r);
double trace_diff_ratio(int64_t a, int64_t b);

/* One side of a diff: a trace of a database, what it is and its figures. */
struct trace_diff_trace {
	const char *path, *id_arg; /* the database and the trace as given */
	sqlite3 *db;
	int64_t id;
	char kind[16], policy[128];
	char emulated[128];	     /* the profile a replay's latencies came from, or "" */
	struct db_trace_summary sum; /* its figures (docs/schema.md, "Figures") */
};
/* x's kind, policy, emulated profile and figures, once x->db and x->id are
 * set. 0, or -errno with err set. */
int trace_diff_trace_load(struct trace_diff_trace *x, char *err, size_t errlen);
/* diff --json of d, B against A, into f: 0, or -1 when the JSON writer saw a
 * bug (db/json.h). */
int trace_diff_json(FILE *f, const struct trace_diff_trace *A, const struct trace_diff_trace *B,
		    const struct tdiff *d);

#endif
