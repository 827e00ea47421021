/* One prediction of `tpmtrace predict` on one profile: the profile, the
 * predictor fed with a trace (or a synthetic one), the host crypto, the
 * spread over sampled boots, the timeout risks and the warnings; and its
 * document for predict --json. */
#ifndef TPMTRACE_MODEL_PREDICT_RUN_H
#define TPMTRACE_MODEL_PREDICT_RUN_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "model/predict.h"
#include "model/profile.h"

/* The prediction and what it was made from. */
struct predict_run {
	struct profile prof;
	const char *from;
	sqlite3 *db;
	struct predictor *pr;
	struct pred_host host;
	char desc[512];
	struct policy pols[PREDICT_MAX_POLICIES];
	int show[PREDICT_MAX_POLICIES];
	unsigned npol, base, nwarn;
	int64_t own; /* tpmtrace's own commands in the trace, not predicted */
	/* A trace without timing (db_trace_has_timing: an IMA list, a TCG log):
	 * its commands are priced from the profile, but it has no gaps and no
	 * total to price or compare (docs/schema.md, "Figures"). */
	int untimed;
	char why[200]; /* how the profile was chosen, when no --profile */
	char warns[32][256];
	/* The TPM time's spread over sampled boots and the timeout risks. */
	unsigned boots;
	uint64_t seed;
	struct pred_spread spread[PREDICT_MAX_POLICIES];
	struct pred_timeout risk[PREDICT_MAX_POLICIES][8];
	unsigned nrisk[PREDICT_MAX_POLICIES];
};

/* The trace's description for the output ("DB trace N: C commands, E
 * events"), tpmtrace's own commands in it (not predicted) and whether it
 * has timing, once n of its commands were fed to s->pr. */
void predict_run_describe(struct predict_run *s, const char *dbpath, int64_t id, uint64_t n);
/* After predict_finish: each policy's spread over boots sampled with seed,
 * its timeout risks, and the warnings. 0, or -ENOMEM. */
int predict_run_figures(struct predict_run *s, unsigned boots, uint64_t seed);
/* The predict --json document into f: 0, or -1 when the JSON writer saw a
 * bug (db/json.h). */
int predict_run_json(FILE *f, const struct predict_run *s);

/* predict's text into f: the table of policies, then the ranges, the spread
 * over sampled boots and the notes (at most 100 columns; wide: every
 * column). */
void predict_run_text(FILE *f, const struct predict_run *s, int wide);
/* The warnings into f: each with verbose (or when there are at most 3),
 * else one line that counts them and names the commands priced at the
 * fallback. */
void predict_run_warnings(FILE *f, const struct predict_run *s, int verbose);

#endif
