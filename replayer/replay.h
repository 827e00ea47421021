/* The replay engine: re-issues a stored trace against a TPM (a private swtpm
 * or any tss2-tctildr target) under a session policy, and stores the run in
 * the same database as a new trace (kind 'replay', parent_id = the source).
 *
 * What is faithful and what is not (docs/replay.md):
 * - handles the target returns (transient objects, sessions, saved and loaded
 *   contexts) are mapped onto the recorded ones; persistent, NV, PCR and
 *   permanent handles pass through;
 * - password sessions pass through (a redacted password is sent empty);
 * - recorded HMAC and policy sessions are started again and every HMAC is
 *   computed here (empty authValue unless --auth gives one); every response
 *   HMAC is verified, and a mismatch ends the run as an error;
 * - bytes that were redacted when recording are replaced by a valid
 *   substitute where one exists (reported with the reason), else the command
 *   is refused (reported);
 * - on anything but the spawned swtpm, destructive commands are refused
 *   unless allow_destructive is set or they act on what the run made itself,
 *   and what the run leaves on the target is removed at its end (cleaned,
 *   cleanup_left).
 *
 * Return convention: 0 when the run was stored complete, -errno otherwise
 * (res->err says why; a partial run is stored with status 'incomplete'). */
#ifndef TPMTRACE_REPLAY_H
#define TPMTRACE_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/policy.h"

/* What a command sent was for: a pol_role (model/policy.h), then the
 * replay's own: the Startup it adds, its clean-up of an external target, a
 * recorded client's space flushed. */
enum replay_role {
	REPLAY_ROLE_STARTUP = POL_ROLE__COUNT,
	REPLAY_ROLE_CLEANUP,
	REPLAY_ROLE_CLIENT_END,
	REPLAY_N_ROLES
};

#define REPLAY_MAX_AUTHS   16
#define REPLAY_MAX_REASONS 32
#define REPLAY_MAX_CC	   128

/* --auth HANDLE=VALUE: the authValue of an entity, by its recorded handle. */
struct replay_auth {
	uint32_t handle;
	uint16_t len;
	uint8_t value[64];
};

struct replay_opts {
	const char *db_path;
	int64_t trace_id;   /* 0: the newest trace */
	const char *policy; /* preset or knob spec; NULL: as-recorded */
	const char *target; /* NULL: spawn a private swtpm; else a TCTI string */
	int allow_destructive;
	const struct replay_auth *auths;
	unsigned n_auths;
	/* Latency injection (model/emulate.h): a profile file, a profile
	 * stored in the database, or a shipped one; NULL: none. */
	const char *emulate;
	uint64_t emulate_seed;
	/* called after each source command: done of total */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
};

enum replay_outcome {
	REPLAY_FAITHFUL = 0,
	REPLAY_SUBSTITUTED,
	REPLAY_REFUSED,
	REPLAY_SKIPPED, /* not sent when recorded either (malformed, unanswered) */
	REPLAY__OUTCOMES
};

/* One distinct reason, how often, and where first. */
struct replay_reason {
	uint8_t outcome;
	uint32_t cc;
	uint64_t first_seq;
	uint64_t count;
	char text[200];
};

/* Per command code: recorded vs replayed. */
struct replay_cc_stat {
	uint32_t cc;
	uint64_t n_src, n_rep;
	uint64_t src_ns, rep_ns; /* sum of latencies */
	uint64_t rc_differs;	 /* replayed rc != recorded rc */
};

struct replay_bank {
	uint16_t alg;
	uint32_t mask; /* PCRs read */
	uint8_t size;
	uint8_t v[24][64];
};

struct replay_result {
	int64_t source_id, trace_id; /* trace_id: the stored run, 0 if none */
	char policy[128];
	char target[320];
	const char *status;	  /* "complete" | "incomplete" */
	uint64_t source_commands; /* the source trace's commands (the clients') */
	uint64_t source_own;	  /* and tpmtrace's own in it (flag 32), replayed as well */
	uint64_t processed;	  /* source commands handled, its own included */
	uint64_t sent;		  /* commands sent to the TPM, policy extras included */
	uint64_t sent_own;	  /* of them tpmtrace's own (flag 32), left out of tpm_ns and cc */
	uint64_t first_ns, last_ns; /* first submit, last response of the others: the span */
	uint64_t outcome[REPLAY__OUTCOMES];
	uint64_t by_role[REPLAY_N_ROLES]; /* commands sent per pol_role (and the replay's own) */
	uint64_t failed;		  /* TPM errors where the recording had success */
	uint64_t hmac_checked;		  /* response HMACs verified */
	uint64_t retries;		  /* resubmissions after TPM_RC_RETRY/YIELDED/TESTING */
	uint64_t tpm_ns;		  /* sum of latencies, tpmtrace's own left out */
	uint64_t crypto_ns;		  /* host session cryptography */
	uint64_t wall_ns;
	uint64_t src_tpm_ns;
	struct replay_reason reasons[REPLAY_MAX_REASONS];
	unsigned n_reasons;
	struct replay_cc_stat cc[REPLAY_MAX_CC];
	unsigned n_cc;
	/* With emulation: the profile, the seed, and how its lookups went. */
	char emulated[128];
	uint64_t emulate_seed;
	uint64_t emu_commands, emu_approx, emu_missing, emu_late;
	uint64_t emu_late_ns, emu_debt_ns; /* lateness in all, not made up at the end */
	struct replay_bank banks[4];
	unsigned n_banks;
	/* On a target other than the spawned swtpm: what the run created and
	 * removed again at the end, and what it could not remove. */
	unsigned cleaned, cleanup_left;
	char cleanup_err[256];
	char err[512];
};

int rp_replay_run(const struct replay_opts *o, struct replay_result *res);

/* A role's name ("original", "session-setup", ..., "rm-client-end") and an
 * outcome's ("faithful", ...; "failed" for REPLAY__OUTCOMES: the commands
 * answered with an error where the recording had success). */
const char *replay_role_name(unsigned role);
const char *replay_outcome_name(unsigned outcome);
/* The source commands re-issued faithfully and answered as when recorded
 * (no TPM error where the recording had success), and their share of the
 * processed ones in percent (100 when none was processed): the fidelity,
 * stored with a complete run (trace.fidelity). */
uint64_t replay_faithful(const struct replay_result *r);
double replay_fidelity(const struct replay_result *r);
/* Whether run r (rp_replay_run's result rc) ends a series of runs: it failed,
 * left something on the target, fell below min_fid percent, or below the
 * fidelity of the newest earlier complete run of the same source, policy and
 * target in db_path. 1 with the reason in why (naming what cost fidelity),
 * else 0. */
/* The run's span (docs/schema.md, "Figures"): first submit to last
 * response of its commands, tpmtrace's own left out. */
uint64_t replay_span_ns(const struct replay_result *r);
struct json_w;
/* Run r (rp_replay_run's result rc) as one object of replay --json's
 * "runs" (docs/replay.md). */
void replay_result_json(struct json_w *w, const struct replay_result *r, int rc);
/* Run r as replay prints it into f: the run, its fidelity, what was sent,
 * the reasons, per command code, the PCRs read. */
void replay_result_text(FILE *f, const struct replay_result *r, int rc);
int replay_run_verdict(const char *db_path, double min_fid, const struct replay_result *r, int rc,
		       char *why, size_t n);

/* Parses HANDLE=VALUE (handle in hex or decimal; VALUE text, or hex:HEX). */
int rp_replay_auth_parse(const char *s, struct replay_auth *a, char *err, size_t errlen);

/* True for commands that destroy or change persistent TPM state that a trace
 * did not create (hierarchy auth and seeds, NV indices, persistent objects,
 * dictionary-attack settings, PCR allocation, clock, firmware): the
 * destructive column of model/tpm/tpm_cc.def. */
int rp_replay_is_destructive(uint32_t cc);

#endif
