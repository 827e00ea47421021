/* The password-equivalent of a trace: what a kernel without HMAC sessions
 * (CONFIG_TCG_TPM2_HMAC=n) would have sent for the same boot. The inverse of a
 * kernel session policy's expansion (model/policy.h): from the kernel's
 * commands (origin kernel or unknown, never the firmware's or user space's;
 * model/trace_stream.h) it removes
 *  - the null key's registration: CreatePrimary under TPM_RH_NULL with the
 *    kernel's template, ContextSave of it, FlushContext of it;
 *  - each session set-up: ContextLoad, StartAuthSession salted with the key
 *    just loaded and bound to TPM_RH_NULL, FlushContext of that key;
 *  - each FlushContext of such a session;
 * and turns the commands that used such a session into what the kernel sends
 * without one: an empty password session (attributes 0) where the command
 * has an authorization handle (PCR_Extend, trusted keys), no session at all
 * where it has none (GetRandom, tag TPM_ST_NO_SESSIONS). Raw bytes, when
 * stored, are rewritten to match (sizes follow from them); parameters the
 * kernel encrypted stay as recorded (their plaintext is not in the trace).
 * Without raw bytes the sizes assume the kernel's sessions (SHA-256: 32-byte
 * nonces and HMACs) and a FlushContext while a session is live is taken to
 * end it. Everything else is copied unchanged: commands with their seq,
 * times and latencies, events, clients. The result is a new trace of kind
 * 'derived' whose parent is the source. */
#ifndef TPMTRACE_TRACE_STRIP_H
#define TPMTRACE_TRACE_STRIP_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct strip_result {
	int64_t trace_id; /* the new trace; 0: nothing to strip, none made */
	/* The figures' counts (docs/schema.md, "Figures"): the clients'
	 * commands; tpmtrace's own (flag 32) are copied and counted apart. */
	uint64_t source_commands, source_own;
	uint64_t commands, own; /* in the new trace */
	uint64_t registration;	/* commands removed, per kind */
	uint64_t setup;
	uint64_t ends;
	uint64_t rewritten;	/* authorizations turned into passwords (or dropped) */
	uint64_t sizes_assumed; /* rewritten without raw bytes */
};

/* Makes the password-equivalent of trace src (named name, or "password-
 * equivalent of N") in the same database, in one transaction. Returns 0,
 * -ENOENT (no such trace), -ENOMEM, -EIO with err set. A trace with nothing
 * to strip (no registration, set-up, session flush or authorization to
 * rewrite) makes no trace: 0 with res->trace_id 0. */
int trace_strip(sqlite3 *db, int64_t src, const char *name, struct strip_result *res, char *err,
		size_t errlen);

/* strip --json of r (from trace id) into f: 0, or -1 when the JSON writer
 * saw a bug. */
int trace_strip_json(FILE *f, int64_t id, const struct strip_result *r);

#endif
