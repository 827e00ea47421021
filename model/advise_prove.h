/* advise --prove: each finding's change proved by replay (docs/advise.md).
 * A change that is a policy knob (session-per-command: reuse=lazy;
 * user-interleave: user-flush=off; hwrng-session: hwrng=off) is proved on a
 * replay by replaying its source under the replay's policy and under the
 * changed one; a change that is a rewrite (repeated-primary, an
 * application's session-per-command, policy-rebuilt, context-churn) by
 * replaying the trace and its rewrite as recorded. The replays themselves
 * are the caller's (advise_prove_opts.replay: tpmtrace replay); this module
 * decides which runs prove which finding and reads their TPM time. */
#ifndef TPMTRACE_MODEL_ADVISE_PROVE_H
#define TPMTRACE_MODEL_ADVISE_PROVE_H

#include <stdint.h>

#include <sqlite3.h>

#include "model/advise.h"

struct advise_prove_opts {
	const char *target; /* where the replays run (NULL: a private swtpm each) */
	/* Replays trace src of the database under policy pol as a new replay
	 * trace (its parent src); 0 when it ran, else non-zero (said by it). */
	int (*replay)(void *ctx, int64_t src, const char *pol);
	/* A message for the user (a rewrite or a replay that failed, a proof not
	 * stored); NULL: none. */
	void (*say)(void *ctx, const char *msg);
	void *ctx;
};

/* One finding's proof. */
struct advise_prove_result {
	int done;
	const char *why; /* not proved: why */
	int failed;	 /* ... because a replay or a rewrite failed (said) */
	char fail[200];
	char before[128], after[256]; /* the two runs' policies */
	int64_t trace_before, trace_after;
	double before_ms, after_ms; /* replayed TPM time of the two runs */
};

/* Proves each finding of r (trace id) it can, into pf[0..r->n). Returns how
 * many were proved. */
unsigned advise_prove(sqlite3 *db, int64_t id, const struct advise_result *r,
		      const struct advise_prove_opts *o, struct advise_prove_result *pf);
/* Each proof made stored for the report (model/advise_proof.h) under
 * profile prof; one not stored is said. */
void advise_prove_keep(sqlite3 *db, int64_t id, const struct advise_result *r, const char *prof,
		       const struct advise_prove_result *pf, const struct advise_prove_opts *o);

#endif
