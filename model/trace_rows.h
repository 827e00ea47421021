/* A trace's command rows loaded into an array, each with its client's origin
 * (the rule of model/trace_stream.h): for the passes that need the whole
 * trace in memory (strip, attribute), where trace_stream's single pass does
 * not do. */
#ifndef TPMTRACE_TRACE_ROWS_H
#define TPMTRACE_TRACE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* Fills one element from the current row of st; origin is its client's
 * (enum pol_origin, with TRACE_ORIGIN_HWRNG or'ed in for the hwrng's client),
 * POL_ORIGIN_UNKNOWN when the client column is NULL or out of range. */
typedef void (*trace_row_fn)(void *elem, sqlite3_stmt *st, int origin);

/* Runs sql (a SELECT of the trace's commands, the trace id bound as its
 * parameter, in the order wanted) and makes an array of elem_size-byte
 * elements, zeroed and passed to fill one per row; column client_col is the
 * row's client_id. On success *out (freed by the caller; NULL when there is
 * no row) and *n. Returns 0, -ENOMEM or -EIO. */
int trace_rows_load(sqlite3 *db, int64_t trace_id, const char *sql, int client_col,
		    size_t elem_size, trace_row_fn fill, void **out, size_t *n);

#endif
