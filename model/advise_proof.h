/* The proofs of advise --prove, stored (table advise_proof, db/schema.sql):
 * a finding of a trace, the profile it was priced on and emulated, the
 * predicted saving and the replayed one with the two replay runs behind it.
 * advise stores each proof it makes; report shows the newest one of a trace,
 * finding and profile beside the finding (docs/advise.md). */
#ifndef TPMTRACE_ADVISE_PROOF_H
#define TPMTRACE_ADVISE_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct advise_proof {
	int64_t id, trace_id;
	char kind[32];	   /* advise_kind_name() */
	char profile[160]; /* the profile's name */
	double predicted_saving_ms, replayed_saving_ms;
	double replayed_before_ms, replayed_after_ms;
	int64_t before_trace, after_trace;	    /* the replay runs */
	char before_policy[128], after_policy[256]; /* after: a policy and a rewrite */
	char created_at[32];			    /* ISO 8601 UTC */
	/* read back from the "before" run (table trace): the profile it
	 * emulated ("" when it was timed on its target) and its target */
	char emulated[160], target[320];
};

/* What a proof's figures are, one phrase for advise's text and JSON and the
 * report: runs that emulated a profile show that the change runs and take
 * their time from the profile by construction ("replayed on swtpm (spawned):
 * rewrite valid, time from the profile"); only runs timed on their target
 * measure the saving ("measured on device:/dev/tpmrm0"). rewrite: the proof
 * replayed a rewrite as recorded (else a policy knob). */
void advise_proof_basis(char *b, size_t n, const char *emulated, const char *target, int rewrite);

/* Stores p (its id and created_at are set here, replayed_saving_ms is
 * before - after). Returns 0, or -EIO with err set (a file too old to have
 * the table is migrated when opened for writing: db/db.c). */
int advise_proof_store(sqlite3 *db, struct advise_proof *p, char *err, size_t errlen);

/* The newest proof of trace_id's finding kind on profile into *out: 1 found,
 * 0 none (also in a read-only file of schema version 2, which has no such
 * table), -EIO on an error. */
int advise_proof_latest(sqlite3 *db, int64_t trace_id, const char *kind, const char *profile,
			struct advise_proof *out);

#endif
