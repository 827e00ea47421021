/* report --population: the trace predicted on the population of shipped
 * profiles (model/predict_population.h, as 'predict --profile all'), drawn
 * as one strip per policy (each profile's p50 to p95) with its table, and in
 * --json as "population". */
#ifndef TPMTRACE_MODEL_REPORT_POPULATION_H
#define TPMTRACE_MODEL_REPORT_POPULATION_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "model/predict_population.h"

struct json_w;

struct report_population {
	const char *vendor; /* NULL: every shipped profile */
	struct pred_population pp;
	struct policy pols[PREDICT_MAX_POLICIES];
	unsigned npol;			    /* the shown policies, pols[0..npol) */
	unsigned idx[PREDICT_MAX_POLICIES]; /* their index in the predictors */
	struct pred_pop_row *rows;	    /* npol x pp.n, each policy's sorted by p50 */
};

/* which: "all" or a vendor prefix. Predicts trace_id of db on every profile
 * under the preset policies, host crypto priced with host. Returns 0, or
 * -ENOENT (no profile of that vendor), -ENOMEM, -EIO with err set. */
int report_population_compute(struct report_population *rp, sqlite3 *db, int64_t trace_id,
			      const char *which, const struct pred_host *host, char *err,
			      size_t errlen);
void report_population_html(FILE *f, const struct report_population *rp);
/* "population":[{"policy",...}] as predict --json has it. */
void report_population_json(struct json_w *w, const struct report_population *rp);
void report_population_free(struct report_population *rp);

#endif
