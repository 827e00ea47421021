/* `tpmtrace report`'s section "What to change": advise's findings of the
 * report's trace (model/advise.h), one advise run per --profile (or one on
 * the recorded figures without one), each finding's cost now and after the
 * change as bars on one axis per run, and the replayed saving of the newest
 * proof advise --prove stored for the trace, finding and profile
 * (model/advise_proof.h). Rendered into the page after the headline and
 * into report --json as "advise" (docs/advise.md, "In the report"). */
#ifndef TPMTRACE_MODEL_REPORT_ADVISE_H
#define TPMTRACE_MODEL_REPORT_ADVISE_H

#include <stdio.h>

#include <sqlite3.h>

#include "db/json.h"
#include "model/advise.h"
#include "model/advise_proof.h"
#include "model/report_headline.h"

struct report_advise_finding {
	struct advise_finding f;
	double before_ms, after_ms, saving_ms; /* priced on the run's profile, else recorded */
	const char *what, *who, *change;       /* advise's words (advise_words) */
	int proved;			       /* proof holds the newest stored proof */
	int proof_stale;		       /* ... made on another predicted saving */
	struct advise_proof proof;
};

struct report_advise_run {
	char profile[160]; /* "" without a profile: recorded figures */
	int priced;
	uint64_t commands;
	double rec_ms, now_ms;
	double axis_ms; /* the top of the run's axis: the largest bar */
	struct report_advise_finding f[ADVISE_MAX_FINDINGS];
	unsigned n;
};

struct report_advise {
	int64_t trace_id;
	struct report_advise_run runs[REPORT_MAX_PROFILES];
	unsigned nruns;
};

/* advise of trace id, on each of profiles (resolved as report resolves
 * them) or once on the record when nprof is 0. Returns 0, or an error with
 * err set (-ENOMEM, -EIO, -EINVAL: a profile not found). */
int report_advise_compute(struct report_advise *ra, sqlite3 *db, int64_t id,
			  const char *const *profiles, unsigned nprof, char *err, size_t errlen);
/* The section, <section id="advise-section">. */
void report_advise_html(FILE *f, const struct report_advise *ra);
/* The key "advise" and its array, inside report --json's object. */
void report_advise_json(struct json_w *w, const struct report_advise *ra);

#endif
