/* The report's answer: one row per session policy with the TPM time, the
 * total, the factors against password and against the recording, how much
 * of the time the profile priced at its fallback and the profile's range;
 * for the replays measured on the trace's own TPM and for each profile's
 * prediction. `report` shows it first, `report --json` prints it. */
#ifndef TPMTRACE_REPORT_HEADLINE_H
#define TPMTRACE_REPORT_HEADLINE_H

#include <stdio.h>

#include "model/report_data.h"

/* A prediction with more than this share of its TPM time priced at the
 * profile's fallback (commands the profile lacks) is marked "mostly
 * fallback": a guess, not a measurement. A quarter: beyond it the fallback
 * figure, not the profile, decides the factor. */
#define REPORT_FALLBACK_WARN PREDICT_FALLBACK_WARN

struct report_row {
	char source[160]; /* "measured", "emulated on PROFILE" or the profile's name */
	char policy[128];
	char kind[12];	    /* recorded | replay | emulated | predicted */
	char emulated[128]; /* kind emulated: the profile the latencies came from */
	unsigned runs;
	/* recorded, replay and emulated: the runs' TPM time (ms) and, where
	 * there is a password row to compare with (of the same profile for
	 * emulated rows), the noise rule's verdict (model/run_stats.h). */
	struct run_stats st;
	int has_cmp;
	struct run_cmp cmp;
	uint64_t commands;
	double tpm_ms, total_ms;
	double lo_ms, hi_ms; /* TPM time's range; lo == hi: no spread known */
	/* 0 where there is nothing to compare with. */
	double x_password_tpm, x_password_total, x_recorded_total;
	double fallback_ms, fallback_share;
	double derived_share; /* priced from derived entries (another command's figures) */
	uint64_t fallback_cmds;
	char fell_back[256]; /* the command codes priced at the fallback */
	int mostly_fallback;
};

#define REPORT_MAX_ROWS (RD_MAX_BARS + 4 * PREDICT_MAX_POLICIES)

struct report_headline {
	int64_t trace_id;
	int timed;
	double recorded_tpm_ms, non_tpm_ms, recorded_total_ms;
	/* db/stats.h's figures of the trace */
	int64_t recorded_commands, tpmtrace_commands;
	double recorded_span_ms, tpm_ms_incl_tpmtrace;
	struct report_row rows[REPORT_MAX_ROWS];
	unsigned n;
};

/* Everything the answer and the policy charts need: the measured bars, the
 * emulated ones, one prediction per profile asked for, and the headline
 * built from them. */
#define REPORT_MAX_PROFILES 4
struct report_answer {
	struct report_bar bars[RD_MAX_BARS];
	unsigned nbars;
	int base; /* the password replay's bar, or 0 (the recording) */
	struct report_bar ebars[RD_MAX_BARS];
	unsigned nebars;
	int ebase; /* the emulated password replay's bar (one profile), or -1 */
	struct report_prediction pred[REPORT_MAX_PROFILES];
	unsigned npred;
	struct report_headline h;
};

/* After report_data_stream(). host may be NULL (the constant estimate).
 * Returns 0 or an error with err set; free with report_answer_free() either
 * way. */
int report_answer_compute(struct report_answer *a, const struct report_data *d, const int64_t *cmp,
			  unsigned ncmp, const char *const *profiles, unsigned nprof,
			  const struct pred_host *host, char *err, size_t errlen);
void report_answer_free(struct report_answer *a);

void report_headline_init(struct report_headline *h, const struct report_data *d);
/* The recording and its replays (not the compared traces) from
 * report_measured_bars(), or (emulated 1) the emulated replays from
 * report_emulated_bars(), each compared with the password replay of its
 * kind (and profile). */
void report_headline_measured(struct report_headline *h, const struct report_bar *bars, unsigned n,
			      int base, int emulated);
void report_headline_predicted(struct report_headline *h, const struct report_prediction *p);

#endif
