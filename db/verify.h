/* The findings of 'tpmtrace verify': SQLite's integrity check, then per trace
 * that the stored commands and events match the counts written when
 * recording ended, that sequence numbers are unique and that latencies equal
 * completion minus submit time. Prints nothing. */
#ifndef TPMTRACE_DB_VERIFY_H
#define TPMTRACE_DB_VERIFY_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

struct db_verify_trace {
	int64_t id;
	char *status;			   /* NULL when the trace row has none */
	int64_t commands, events, dropped; /* stored (dropped: as recorded) */
	/* commands: the clients' (docs/schema.md, "Figures"); own: tpmtrace's
	 * own (flag 32). The check counts both against the trace row. */
	int64_t own;
	int bad;	  /* an inconsistency (counted in problems) */
	int unfinished;	  /* never closed by its writer (status 'recording'): an error for an
			     import only */
	char detail[256]; /* "ok", or what is wrong / unfinished */
};

struct db_verify {
	char integrity[512]; /* "ok", or what PRAGMA integrity_check (or SQLite) said */
	struct db_verify_trace *traces;
	size_t n_traces;
	char query_error[512]; /* reading the traces failed ("" when it did not) */
	int problems;	       /* integrity not ok + bad traces + a query error */
};

/* Checks db into *v (zeroed first; free with db_verify_free, also after an
 * error). What the checks find are findings, not errors: returns 0, or
 * -ENOMEM with a message in err (then the traces read so far stay in *v). */
int db_verify(sqlite3 *db, struct db_verify *v, char *err, size_t errlen);
void db_verify_free(struct db_verify *v);

/* verify --json of v into f: 0, or -1 when the JSON writer saw a bug; the
 * same document for a database that cannot be opened (err), problems 1. */
int db_verify_json(FILE *f, const struct db_verify *v);
int db_verify_json_error(FILE *f, const char *err);

#endif
