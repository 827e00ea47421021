/* The named rewrites of tpmtrace advise, shared between their files
 * (model/advise_rewrite.c: loading, repeated-primary and storing;
 * model/advise_rewrite_sess.c: the session rewrites). Not an interface:
 * advise_rewrite (model/advise.h) is. */
#ifndef TPMTRACE_ADVISE_RW_H
#define TPMTRACE_ADVISE_RW_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* One row of the source trace (every row, tpmtrace's own too, in seq order). */
struct rw_row {
	int64_t id;
	uint32_t cc, rsp_handle, key, flushed;
	uint32_t h[3];	/* handle1..3 */
	int64_t client; /* client_id (-1: none) */
	uint8_t ok, has_flushed, drop;
	/* a rewrite that changes the row: its new command bytes (malloc'd) and
	 * response handle */
	uint8_t *patch;
	size_t patch_len;
	uint32_t patch_rsp;
	uint8_t has_patch;
	/* ... and its new client (a kept session's set-up: the client of its
	 * last use, so that a per-client-space replay keeps it that long) */
	uint8_t has_client;
	int64_t patch_client;
};

/* session-per-command (kind ADVISE_SESSION_PER_CMD) or policy-rebuilt
 * (ADVISE_POLICY_REBUILT): marks what goes and what is rewritten in w (the
 * rows of src). Returns 0, -EINVAL with err (a trace it cannot rewrite),
 * -ENOMEM or -EIO. */
int advise_rw_plan_sessions(sqlite3 *db, int64_t src, int kind, struct rw_row *w, size_t n,
			    uint64_t *dropped, char *err, size_t errlen);

#endif
