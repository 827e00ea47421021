/* The numbers of 'tpmtrace stats' read from a trace: latency statistics per
 * command code (the command_stats view for the clients' commands, the same
 * definitions for tpmtrace's own, flag 32) and a one-row summary of the
 * trace. Prints nothing. */
#ifndef TPMTRACE_DB_STATS_H
#define TPMTRACE_DB_STATS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The one definition of a trace's figures (docs/schema.md, "Figures"), used by
 * stats, diff, report, predict and replay, and spelt the same in the
 * trace_summary and command_stats views: a trace's commands are the clients'
 * rows, those tpmtrace sent itself (flag 32: the Startup of a spawned swtpm,
 * the resource manager's flushes, a replay's clean-up) left out. Command
 * count = those rows; TPM time = the sum of their latencies; span = the last
 * response of one of them minus the first submit of one of them; total = span
 * (TPM time plus the gaps between commands). The figures including
 * tpmtrace's own commands carry "incl. tpmtrace's own" in their name. */
#define DB_CLIENT_CMDS "flags & 32 = 0"
/* The other rows: those tpmtrace sent itself (REC_F_OWN, db/writer.h), 1 or 0. */
#define DB_OWN_CMDS "flags & 32 <> 0"

/* Whether a trace has timing, decided from the data, in one place: how many
 * of its clients' commands have a latency (for a trace row aliased t). A
 * trace with none (an IMA list, a TCG log, a swtpm log: their times are
 * ordinals) has no TPM time, span or gaps: each is printed as "no timing",
 * never 0 (docs/schema.md, "Figures"). */
#define DB_TIMED_SQL                                                                               \
	"SELECT count(latency_ns) FROM command c WHERE c.trace_id=t.id AND c." DB_CLIENT_CMDS

/* 1 if trace id has timing (DB_TIMED_SQL > 0), 0 if not (or no such
 * trace), -EIO if the database could not say. */
int db_trace_has_timing(sqlite3 *db, int64_t id);

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
	int64_t commands;	    /* the clients' commands (DB_CLIENT_CMDS) */
	int64_t events, dropped, malformed, no_response, own;
	double tpm_ns;			/* latency total of the clients' commands */
	double span_ns;			/* their last completion minus their first submit */
	double tpm_ns_all, span_ns_all; /* the same incl. tpmtrace's own */
	/* the clients' commands with a latency (DB_TIMED_SQL): 0 = no timing,
	 * and then tpm_ns and span_ns mean nothing (printed "no timing") */
	int64_t timed;
};

struct db_stats {
	/* the clients' commands, by total time; for a trace without timing
	 * (sum.timed 0), by count, with the count alone */
	struct db_cc_stats *cmds;
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

/* The summary alone (the figures above): 0, or -EIO / -ENOMEM with err set. */
int db_trace_summary_load(sqlite3 *db, int64_t id, struct db_trace_summary *t, char *err,
			  size_t errlen);
void db_trace_summary_free(struct db_trace_summary *t);

#endif
