/* A prediction on a population of TPMs (predict --profile all, --vendor V):
 * one predictor per profile, the trace read once and fed to all of them
 * (docs/profiles.md, "The population"). */
#ifndef TPMTRACE_PREDICT_POPULATION_H
#define TPMTRACE_PREDICT_POPULATION_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "model/predict.h"

struct pred_population {
	unsigned n;	       /* profiles */
	struct profile *prof;  /* n, loaded */
	struct predictor **pr; /* n, one per profile, the same policies */
};

/* Every shipped profile (vendor: only those whose vendor starts with it, any
 * case; NULL: all), each with a predictor of the npol policies, host crypto
 * priced with host. Returns 0, -ENOENT (no profile of that vendor) or
 * -ENOMEM / -EINVAL with err set. */
int predict_population_init(struct pred_population *pp, const char *vendor,
			    const struct policy *pols, unsigned npol, const struct pred_host *host,
			    char *err, size_t errlen);
/* Streams trace_id of db once into every predictor (trace_stream). */
int predict_population_trace(struct pred_population *pp, sqlite3 *db, int64_t trace_id,
			     uint64_t *n_cmds, char *err, size_t errlen);
/* A synthetic trace (predict_synthetic) into every predictor. */
int predict_population_synthetic(struct pred_population *pp, const char *spec, double gap_ms,
				 char *desc, size_t dlen, char *err, size_t errlen);
void predict_population_free(struct pred_population *pp);

/* One profile's figures under one policy. */
struct pred_pop_row {
	const struct profile *prof;
	struct pred_spread sp; /* over the sampled boots */
	double tpm_ms;	       /* the mean prediction */
	double fallback;       /* share of tpm_ms priced at the profile's fallback */
	double derived;	       /* share priced from derived entries */
};
/* The rows of policy k (pp->n of them), sorted by p50 (then name), each
 * profile's spread over boots sampled with seed. Returns 0 or -ENOMEM. */
int predict_population_rows(const struct pred_population *pp, unsigned k, unsigned boots,
			    uint64_t seed, struct pred_pop_row *rows);

struct json_w;
/* One policy's population table as JSON: {"policy","profiles":[...],
 * "above_p50","above_p95"} (null without over_ms >= 0): predict --json and
 * report --json. */
void predict_population_json(struct json_w *w, const struct pred_population *pp, const char *policy,
			     const struct pred_pop_row *rows, double over_ms);

/* One policy's population table as predict prints it into f: each profile's
 * p50 and p95 over boots sampled with seed, sorted by p50, and how many put
 * it above over_ms (none when over_ms < 0). */
void predict_population_text(FILE *f, const struct pred_population *pp, const struct policy *pol,
			     const struct pred_pop_row *rows, unsigned boots, uint64_t seed,
			     double over_ms);

#endif
