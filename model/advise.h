/* tpmtrace advise: what makes a trace slow and what to change. Detectors over
 * a trace's commands in memory (pure: no I/O), each finding priced on the
 * trace's own recorded latencies and, with a profile, on the profile's
 * figures (the lookup predict prices with, model/profile.h): what the
 * pattern's commands cost now and what is left after the change.
 * docs/advise.md gives each pattern, its public source and the change. */
#ifndef TPMTRACE_ADVISE_H
#define TPMTRACE_ADVISE_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "model/profile.h"

/* advise_cmd.flags */
#define ADVISE_F_RC	     0x01  /* a response code is known */
#define ADVISE_F_OK	     0x02  /* ... and it is TPM_RC_SUCCESS */
#define ADVISE_F_RETRY	     0x04  /* ... or TPM_RC_RETRY, YIELDED or TESTING: sent again */
#define ADVISE_F_KEY	     0x08  /* key was read from the command's bytes */
#define ADVISE_F_FLUSHED     0x10  /* FlushContext: key is the flushed handle */
#define ADVISE_F_HWRNG	     0x20  /* a read of the kernel's TPM hwrng */
#define ADVISE_F_CONTINUE    0x40  /* its first session has continueSession set */
#define ADVISE_F_POLICY	     0x80  /* a Policy command (TPM 2.0 Part 3, 23) */
#define ADVISE_F_RC_RETRY    0x100 /* ADVISE_F_RETRY, and the code is TPM_RC_RETRY itself */
#define ADVISE_F_ADDED	     0x200 /* a replay's command its policy added (command flag 128) */
#define ADVISE_F_PCR_CHANGED 0x400 /* answered TPM_RC_PCR_CHANGED */
#define ADVISE_F_NV_DEFINED  0x800 /* answered TPM_RC_NV_DEFINED */

/* One command, compact: 32 bytes (a million take 32 MB). */
struct advise_cmd {
	uint32_t seq;
	uint32_t rsp_handle;
	/* The first session of the authorization area; for a Policy command
	 * the policy session it extends; for StartAuthSession the kind of
	 * session (a hash of sessionType, symmetric and authHash). */
	uint32_t sess_handle;
	/* CreatePrimary: a hash of its hierarchy and inPublic (the hierarchy
	 * alone without bytes); StartAuthSession: tpmKey; a Policy command: a
	 * hash of its code and parameters; FlushContext: the flushed handle
	 * (ADVISE_F_FLUSHED); ContextSave (its response) and ContextLoad: a hash
	 * of the context's sequence and savedHandle (ADVISE_F_KEY), the saved
	 * handle in rsp_handle for a ContextSave. */
	uint32_t key;
	float lat_ms;	   /* < 0: not recorded */
	uint16_t cc;	   /* the command code (0xffff: beyond 16 bits) */
	uint16_t client;   /* client id */
	uint16_t flags;	   /* ADVISE_F_* */
	uint8_t origin;	   /* enum pol_origin */
	uint8_t auth_kind; /* enum tpm_auth_kind */
	uint8_t variant;   /* enum pol_variant */
};

enum advise_kind {
	ADVISE_REPEATED_PRIMARY = 0, /* CreatePrimary of the same template again */
	ADVISE_SESSION_PER_CMD,	     /* an HMAC session set up for one command */
	ADVISE_USER_INTERLEAVE,	     /* the kernel's session re-created after user space */
	ADVISE_POLICY_REBUILT,	     /* a policy session rebuilt with the same policy */
	ADVISE_HWRNG_SESSION,	     /* hwrng reads ending the kernel's session */
	ADVISE_OUTLIERS,	     /* retries, self-test waits, commands far above p95 */
	ADVISE_CONTEXT_CHURN,	     /* a resource manager's ContextSave/ContextLoad swaps */
	ADVISE_FAILED_REDONE,	     /* work lost to failures: PCR_CHANGED, NV_DEFINED */
	ADVISE__COUNT,
};

/* The name of a kind (repeated-primary, session-per-command, ...). */
const char *advise_kind_name(int kind);

#define ADVISE_MAX_CLIENTS 8

struct advise_finding {
	int kind;		      /* enum advise_kind */
	uint64_t count;		      /* occurrences: re-creations, sessions, reads, outliers */
	uint64_t groups;	      /* templates, policies (1 where it does not apply) */
	uint64_t involved;	      /* commands of the pattern */
	uint64_t removed;	      /* of those, the commands the change removes */
	uint64_t first_seq, last_seq; /* where: the pattern's first and last command */
	uint64_t by_origin[4];	      /* involved commands per enum pol_origin */
	uint16_t clients[ADVISE_MAX_CLIENTS];
	unsigned n_clients;
	double rec_ms;		  /* recorded time of the pattern's commands */
	double rec_after_ms;	  /* of that, the recorded time of the commands kept */
	double now_ms;		  /* the pattern's commands priced on the profile */
	double after_ms;	  /* the same after the change (priced) */
	uint64_t rec_unknown;	  /* involved commands without a recorded latency */
	uint64_t priced_fallback; /* involved commands priced at the profile's fallback */
};

#define ADVISE_MAX_FINDINGS ADVISE__COUNT

struct advise_result {
	struct advise_finding f[ADVISE_MAX_FINDINGS]; /* largest saving first */
	unsigned n;
	uint64_t commands;
	double rec_ms; /* the whole trace, recorded */
	double now_ms; /* the whole trace priced on the profile (0 without one) */
	int priced;    /* a profile was given */
};

/* The saving of a finding: priced when a profile was given, else recorded. */
double advise_saving_ms(const struct advise_result *r, const struct advise_finding *f);

/* Runs every detector over cmds (in seq order). prof may be NULL (recorded
 * figures only). Findings are sorted by saving, largest first. */
void advise_run(const struct advise_cmd *cmds, size_t n, const struct profile *prof,
		struct advise_result *r);

/* What took each command of cmds (the run advise_run makes, without a
 * profile): marks[i] is 0 (no finding) or the finding's kind + 1, with
 * ADVISE_MARK_REMOVED when the change removes the command. For the named
 * rewrites. Returns 0 or -ENOMEM. */
#define ADVISE_MARK_REMOVED 0x80
#define ADVISE_MARK_KIND(m) ((int)((m)&0x7f) - 1)
int advise_marks(const struct advise_cmd *cmds, size_t n, uint8_t *marks);

/* The kind of the session StartAuthSession c[i] starts, by which
 * session-per-command groups sessions: its type, symmetric and authHash,
 * and whether its salt key was loaded for it (ContextLoad just before). */
uint32_t advise_session_kind(const struct advise_cmd *c, size_t n, size_t i);

/* Loads trace_id's commands (tpmtrace's own, flag 32, left out) into an
 * array (*out freed by the caller). Returns 0, -ENOMEM or -EIO. */
int advise_load(sqlite3 *db, int64_t trace_id, struct advise_cmd **out, size_t *n);

/* The key repeated-primary groups a CreatePrimary by: a hash of its
 * hierarchy and inPublic (of the hierarchy alone when cmd is NULL). */
uint32_t advise_primary_key(const uint8_t *cmd, size_t len, uint32_t hierarchy);

/* context-churn (model/advise_churn.c): one swap of a resource manager, as
 * indices into the commands: the ContextSave, the FlushContext of its object
 * (NONE, (size_t)-1, for a session) and the ContextLoad of what it saved. */
struct advise_swap {
	size_t save, flush, load;
};

/* The swaps of cmds, those of clients with fewer than two left out (*out
 * freed by the caller). Returns 0 or -ENOMEM. */
int advise_churn_swaps(const struct advise_cmd *cmds, size_t n, struct advise_swap **out,
		       size_t *n_out);

/* The detector: take(ctx, i, removed) for each command of the swaps not
 * taken already, *count the swaps. */
void advise_detect_churn(const struct advise_cmd *cmds, size_t n, const uint8_t *taken,
			 void (*take)(void *ctx, size_t i, int removed), void *ctx,
			 uint64_t *count);

/* The context-churn rewrite's plan: trace src's swaps, each as the ids
 * (command.id) of its ContextSave, FlushContext (0: none) and ContextLoad,
 * in the trace's order (*out freed by the caller). Returns 0, -ENOMEM or
 * -EIO. */
struct advise_swap_ids {
	int64_t save, flush, load;
};
int advise_churn_plan(sqlite3 *db, int64_t src, struct advise_swap_ids **out, size_t *n);

/* The named rewrites (docs/advise.md): the trace with a finding's change
 * made, stored as a new trace of kind 'derived' whose parent is src.
 *  - "repeated-primary": every CreatePrimary of a hierarchy and template
 *    made before is dropped, with each FlushContext of such a primary that
 *    is created again later (tpmtrace's own, flag 32, too): the first one
 *    stays loaded and serves them all (as a persistent key would), under a
 *    handle of its own (0x80fff0NN) wherever the trace names the primary.
 *  - "context-churn": every swap of a resource manager dropped (its
 *    ContextSave, FlushContext and ContextLoad): the objects and sessions
 *    stay loaded (advise_churn_plan), each object named by the handle its
 *    creation gave it (or 0x80ffe0NN when a swapped-out object held it).
 * Returns 0 (*new_id, *dropped), -EINVAL (unknown rewrite, or a trace it
 * cannot rewrite: err says why), -ENOENT or -EIO. */
int advise_rewrite(sqlite3 *db, int64_t src, const char *rewrite, int64_t *new_id,
		   uint64_t *dropped, char *err, size_t errlen);

#endif
