/* The numbers of 'tpmtrace stats' read from a trace: latency statistics per
 * command code (the command_stats view for the clients' commands, the same
 * definitions for tpmtrace's own, flag 32) and a one-row summary of the
 * trace. Prints nothing. */
#ifndef TPMTRACE_DB_STATS_H
#define TPMTRACE_DB_STATS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* One value as the database holds it, read both as an integer and as a real
 * (a hand-made file may store a real where a recording stores an integer). */
struct db_stat_val {
	int64_t i;
	double d;
};

/* Per command code: count, latency total, min, mean, percentiles (nearest
 * rank), max and the latency of the first occurrence, in ns. */
struct db_cc_stats {
	char *name; /* NULL when the database gives none */
	int64_t cc, count;
	struct db_stat_val total, min, p50, p95, p99, max, first;
	double mean;
};

struct db_trace_summary {
	char *name, *kind, *status; /* NULL when the trace row has none */
	int64_t commands;	    /* rows stored, tpmtrace's own included */
	int64_t events, dropped, malformed, no_response, own;
	double tpm_ns;	/* latency total of the clients' commands */
	double span_ns; /* last completion minus first submit */
};

struct db_stats {
	struct db_cc_stats *cmds; /* the clients' commands, by total time */
	size_t n_cmds;
	struct db_cc_stats *own; /* tpmtrace's own (flag 32), by total time */
	size_t n_own;
	int started;   /* the queries were prepared: what follows may be partial */
	int cmds_done; /* every client row was read (then own was read) */
	struct db_trace_summary sum;
	int have_sum;
};

/* Reads the statistics of trace id into *s (zeroed first; free with
 * db_stats_free, also after an error). rows = 0 reads only the summary.
 * Returns 0, or -EIO / -ENOMEM with a message in err. A failure before
 * anything was read leaves s->started 0; after that, what was read stays in
 * *s (rows up to the failure; have_sum 0) and err names the trace. */
int db_stats_load(sqlite3 *db, int64_t id, int rows, struct db_stats *s, char *err, size_t errlen);
void db_stats_free(struct db_stats *s);

#endif
