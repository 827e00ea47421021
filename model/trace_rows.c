/* A trace's command rows in an array (model/trace_rows.h). */
#include "model/trace_rows.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/policy.h"
#include "model/trace_stream.h"

/* The trace's commands, all of them. */
static size_t trace_command_count(sqlite3 *db, int64_t trace_id)
{
	sqlite3_stmt *st;
	size_t n = 0;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM command WHERE trace_id=?", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, trace_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (size_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int trace_rows_load(sqlite3 *db, int64_t trace_id, const char *sql, int client_col,
		    size_t elem_size, trace_row_fn fill, void **out, size_t *n_out)
{
	sqlite3_stmt *st = NULL;
	uint8_t *org = NULL;
	char *v = NULL;
	size_t n = 0, cap = 0;
	int rc = trace_origins_load(db, trace_id, &org);
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		free(org);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, trace_id);
	/* Made once at the trace's size (an upper bound of the rows selected),
	 * not grown by doubling: a million rows cost their size, not twice it. */
	cap = trace_command_count(db, trace_id);
	if (cap && !(v = malloc(cap * elem_size))) {
		rc = -ENOMEM;
		goto out;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			char *nv = realloc(v, cap * elem_size);
			if (!nv) {
				rc = -ENOMEM;
				goto out;
			}
			v = nv;
		}
		int64_t cl = sqlite3_column_int64(st, client_col);
		int origin = POL_ORIGIN_UNKNOWN;
		if (sqlite3_column_type(st, client_col) != SQLITE_NULL && cl >= 0 &&
		    cl < TRACE_MAX_CLIENTS)
			origin = org[cl];
		void *e = v + n++ * elem_size;
		memset(e, 0, elem_size);
		fill(e, st, origin);
	}
	rc = rc == SQLITE_DONE ? 0 : -EIO;
out:
	sqlite3_finalize(st);
	free(org);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}
