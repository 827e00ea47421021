/* Rows of an SQLite statement sent with COPY ... FROM STDIN (PostgreSQL's
 * binary COPY format), the private part of db/pg. */
#ifndef TPMTRACE_DB_PG_COPY_H
#define TPMTRACE_DB_PG_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "db/pg/pq.h"
#include <sqlite3.h>

/* Test hook (TPMTRACE_FAULT_PUSH_STALL_FILE, docs/fleet.md): the COPY of
 * command rows, once it has sent its first rows, creates this file and waits while it exists. */
extern const char *pg_fault_stall_file;

/* Called with each row sent: the trace's index (0..n-1) and the statement
 * on the row, for what the caller reads from the rows as they go. */
typedef void pg_copy_row_fn(void *ctx, size_t trace, sqlite3_stmt *st);

/* Sends the rows of n traces through one "COPY <into> FROM STDIN" in the
 * binary format: st is run once a trace, its parameter 1 bound to
 * local_id[i], and each of its rows is prefixed by server_id[i]; types: a
 * letter per column of st (i bigint, t text, b bytea). *rows: the rows
 * sent; on_row (may be NULL) is called with each. No rows at all send
 * nothing. 0, or -EIO with the server's message, -EINVAL for a value that
 * is no integer in a bigint column. */
int pg_copy_traces(PGconn *c, const char *into, const char *types, const int64_t *server_id,
		   const int64_t *local_id, size_t n, sqlite3_stmt *st, pg_copy_row_fn *on_row,
		   void *ctx, uint64_t *rows, char *err, size_t errlen);

/* A text value PostgreSQL refuses (db_utf8_text_ok: not well-formed UTF-8,
 * or holding NUL) as push sends it (docs/fleet.md): each byte that begins no
 * well-formed UTF-8 sequence, and NUL, as \xHH (lower-case hex), each '\' as
 * '\\', the rest as it is. out has room for 4 * n bytes; returns its length.
 * A value PostgreSQL takes is sent unconverted. */
size_t pg_text_convert(const unsigned char *s, size_t n, char *out);

/* The server's message of a failed result (or the connection's), one line. */
void pg_res_err(PGconn *c, PGresult *r, const char *what, char *err, size_t errlen);

#endif
