/* The rows of 'tpmtrace list': the traces in a database. Prints nothing. */
#ifndef TPMTRACE_DB_TRACE_LIST_H
#define TPMTRACE_DB_TRACE_LIST_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "db/trace_kind.h"

struct db_trace_row {
	int64_t id;
	char *kind, *status, *started_at; /* NULL when the row has none */
	enum db_trace_kind tkind;	  /* the trace kind (db/trace_kind.h) */
	int64_t commands;		  /* the clients' commands (db/stats.h) */
	int has_tpm_ns;			  /* 0: none of them has a latency */
	int64_t tpm_ns;			  /* TPM time: the sum of their latencies */
	int64_t dropped;
	char *name, *source, *policy, *emulated; /* NULL when the row has none */
	int has_parent;				 /* parent_id is not NULL */
	int64_t parent_id;
};

struct db_trace_list {
	struct db_trace_row *rows; /* by id */
	size_t n;
	int incomplete; /* reading stopped at an error after n rows (message in err) */
};

/* Reads the traces of db into *l (zeroed first; free with
 * db_trace_list_free, also after an error). Returns 0, or -EIO (the query
 * could not be prepared) / -ENOMEM with a message in err. When SQLite fails
 * while stepping, returns 0 with l->incomplete set, the message in err and
 * the rows read so far in *l. */
int db_trace_list(sqlite3 *db, struct db_trace_list *l, char *err, size_t errlen);
void db_trace_list_free(struct db_trace_list *l);

/* list --json of l into f: 0, or -1 when the JSON writer saw a bug. */
int db_trace_list_json(FILE *f, const struct db_trace_list *l);

#endif
