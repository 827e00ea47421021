/* The numbers behind `tpmtrace report`: one trace's commands, latencies,
 * phases and events, the replays and compared traces stored beside it, and
 * the prediction per policy on a latency profile. No printing: the HTML is
 * rendered from these structures by model/report_html.c.
 *
 * The trace is streamed once in seq order; a callback sees every command as
 * it passes (the timeline draws its marks from it), so memory does not grow
 * with the trace beyond the latency arrays per command code. Past max_marks
 * commands the data holds per (family, time bin) counts instead. */
#ifndef TPMTRACE_REPORT_DATA_H
#define TPMTRACE_REPORT_DATA_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "model/predict.h"
#include "model/run_stats.h"
#include "model/tpm/cc_family.h"
#include "model/trace_stream.h"

#define RD_NBINS    1200 /* time bins per family when marks are aggregated */
#define RD_TOP_N    20
#define RD_MAX_RUNS 400	 /* phase runs kept */
#define RD_MAX_EV   2000 /* events kept */
#define RD_MAX_BARS 48

enum rd_origin { RD_ORG_UNKNOWN, RD_ORG_FIRMWARE, RD_ORG_KERNEL, RD_ORG_USER, RD_ORG__COUNT };
const char *report_origin_name(enum rd_origin o);

struct rd_cc {
	uint32_t cc;
	uint64_t *v; /* latencies, sorted after report_data_stream() */
	size_t n, cap;
	double total;
	uint64_t count; /* commands, with or without latency */
};

struct rd_top {
	uint64_t seq, t, lat;
	uint32_t cc, rc;
	int has_rc;
	int64_t client;
};

struct rd_run {
	uint64_t t0, t1;
	uint8_t org; /* enum rd_origin */
	uint64_t n;
};

struct rd_event {
	int64_t seq;
	uint64_t t;
	char *kind, *detail;
};

/* One command as the stream passes it. */
struct rd_cmd {
	uint64_t seq, t;
	int64_t lat; /* < 0: not recorded */
	uint32_t cc, rc;
	int has_rc;
	enum tpm_family fam;
};

struct report_data {
	sqlite3 *db;
	int64_t id;
	/* The trace row (NULL where unknown). */
	char *name, *kind, *source, *started, *status, *host;
	int64_t dropped;
	uint64_t t0, t1; /* the time axis: commands and events */
	uint64_t n_cmd, n_ev, n_lat;
	double tpm_ns; /* sum of recorded latencies (the trace's commands) */
	/* The figures of db/stats.h: command count, span, tpmtrace's own
	 * commands, and TPM time and span incl. them. */
	int64_t fig_commands, fig_own;
	double fig_span_ns, fig_tpm_ns_all, fig_span_ns_all;
	double gap_ns; /* non-TPM time: gaps between a response and the next command,
			* summed as predict sums them */
	/* 0: no command has a latency (an imported log): the axis is the order
	 * of records (seq), t0..t1 and every t below are seq numbers. */
	int timed;
	unsigned max_marks;
	int aggregate;	   /* n_cmd > max_marks: bins instead of one mark per command */
	struct rd_cc *ccs; /* by total time, the costliest first, after streaming */
	size_t n_ccs, cap_ccs, last_cc;
	struct rd_top top[RD_TOP_N];
	unsigned n_top;
	uint64_t fam_n[TPM_FAM__COUNT];
	double fam_ns[TPM_FAM__COUNT];
	uint32_t *bins;	     /* [TPM_FAM__COUNT][RD_NBINS] counts when aggregated */
	uint64_t *bin_max;   /* the slowest latency in the bin */
	uint8_t *client_org; /* enum rd_origin by client id (TRACE_MAX_CLIENTS) */
	struct rd_run runs[RD_MAX_RUNS];
	unsigned n_runs;
	int runs_cut, any_known_org;
	struct rd_event *ev;
	unsigned n_evk; /* events kept (at most RD_MAX_EV) */
};

/* Reads the trace row, the time axis, the clients' origins and the first
 * RD_MAX_EV events. Returns 0, -ENOMEM or -EIO (err set). */
int report_data_open(struct report_data *d, sqlite3 *db, int64_t id, unsigned max_marks, char *err,
		     size_t errlen);
/* Streams the commands; mark (may be NULL) is called for each when not
 * aggregated. Sorts the per-code tables at the end. */
int report_data_stream(struct report_data *d,
		       void (*mark)(void *ctx, const struct report_data *d, const struct rd_cmd *c),
		       void *ctx, char *err, size_t errlen);
void report_data_free(struct report_data *d);

/* Position of time t on the 0..1000 axis. */
double report_xpos(const struct report_data *d, uint64_t t);
/* Nearest rank, as the command_stats view. */
uint64_t report_pctl(const struct rd_cc *c, double p);

/* A bar of the policy comparison: segments (by family for traces; TPM, host
 * crypto and non-TPM time for predictions) summing to total, in ns. */
struct report_bar {
	char label[160];
	char kind[16];	    /* recorded | replay | compare | predicted */
	char emulated[128]; /* the profile a replay's latencies came from; "" measured */
	char policy[128];   /* a replay's policy, with " @ TARGET" off the spawned swtpm */
	double seg[TPM_FAM__COUNT + 3];
	int nseg;
	double total;
	unsigned runs;
	uint64_t commands;
	int64_t trace_id;
	struct run_stats tpm; /* the runs' TPM time in ms (model/run_stats.h) */
};

/* This trace (from the stream), its replays on a real target (averaged per
 * policy) and the traces in cmp that are not emulated: what was measured.
 * *base: the password replay's bar, or 0 (the recording). */
int report_measured_bars(const struct report_data *d, const int64_t *cmp, unsigned ncmp,
			 struct report_bar *bars, unsigned *nb, int *base);
/* The replays of the trace on a target that emulated a profile (averaged per
 * policy and profile) and the traces in cmp that are such replays: what a
 * profile gave, never measured. *base: the password replay's bar when one
 * profile was emulated, else -1 (compare within a profile: the headline). */
int report_emulated_bars(const struct report_data *d, const int64_t *cmp, unsigned ncmp,
			 struct report_bar *bars, unsigned *nb, int *base);

/* The prediction of every preset policy on one profile. */
struct report_prediction {
	char profile[128], chip[128], from[256];
	struct predictor *pr;
	struct report_bar bars[PREDICT_MAX_POLICIES];
	unsigned n;
	int base; /* the password policy */
};

/* host may be NULL (the constant estimate). Returns 0, or an error with err
 * set; *p is released with report_prediction_free() in either case. */
int report_predict(const struct report_data *d, const char *profname, const struct pred_host *host,
		   struct report_prediction *p, char *err, size_t errlen);
void report_prediction_free(struct report_prediction *p);

#endif
