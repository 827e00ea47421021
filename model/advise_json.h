/* advise --json: the trace's findings, each with its words, clients and
 * figures, and with --prove its proof (docs/advise.md); and the pieces the
 * text shares with it. */
#ifndef TPMTRACE_MODEL_ADVISE_JSON_H
#define TPMTRACE_MODEL_ADVISE_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "model/advise.h"
#include "model/advise_prove.h"

struct advise_json_opts {
	const char *profile; /* --profile's name, NULL: none */
	const char *target;  /* --target, NULL: a private swtpm */
	int measure;	     /* the proofs' runs were timed on the target */
};

/* The document into f; pf: the proofs (NULL without --prove). 0, or -1 when
 * the JSON writer saw a bug (db/json.h). */
int advise_json_write(FILE *f, sqlite3 *db, int64_t id, const struct advise_result *r,
		      const struct advise_prove_result *pf, const struct advise_json_opts *o);
/* What the trace's own figures are: "measured", or "emulated: latency from
 * profile NAME" for a replay on a swtpm that emulated a profile (its times
 * are the profile's); kind gets model_figure_kind's word. */
void advise_trace_figures(sqlite3 *db, int64_t id, char *label, size_t n, const char **kind);
/* A proof's replayed saving against the predicted one, relative (0 when
 * nothing was predicted). */
double advise_proof_diff(const struct advise_result *r, const struct advise_finding *f,
			 const struct advise_prove_result *p);
/* What a proof's figures are (advise_proof_basis) for profile prof, on
 * target, measured or emulated. */
void advise_prove_basis(char *b, size_t n, const char *prof, const char *target, int measure,
			const struct advise_prove_result *p);

#endif
