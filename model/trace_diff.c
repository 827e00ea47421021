/* Two traces compared per command code (model/trace_diff.h): trace_diff_load
 * runs one grouped query per side (count, timed count, total latency and the
 * nearest-rank p50/p95 of the percentile() SQL function, over the clients'
 * commands only: DB_CLIENT_CMDS of db/stats.h) and merges them into rows,
 * trace_diff_sort orders them by added or removed time, by total time or by
 * count, and trace_diff_release frees them. The two sides may be in one
 * database or two. */
#include "model/trace_diff.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/stats.h"

/* The percentile() function db_open registers gives the nearest rank, the
 * same definition as the command_stats view. */
static const char q_side[] =
    "SELECT cc, count(*), count(latency_ns), coalesce(sum(latency_ns), 0),"
    " coalesce(percentile(latency_ns, 50), -1), coalesce(percentile(latency_ns, 95), -1)"
    " FROM command WHERE trace_id = ? AND " DB_CLIENT_CMDS " GROUP BY cc ORDER BY cc";

static int trace_exists(sqlite3 *db, int64_t id, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc = -EIO;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM trace WHERE id = ?", -1, &st, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_int64(st, 1, id);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		rc = 0;
	else if (s == SQLITE_DONE) {
		snprintf(err, errlen, "no trace %lld", (long long)id);
		rc = -ENOENT;
	} else
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
out:
	sqlite3_finalize(st);
	return rc;
}

static struct tdiff_row *row_for(struct tdiff *d, uint32_t cc, unsigned *cap)
{
	for (unsigned i = 0; i < d->n; i++)
		if (d->rows[i].cc == cc)
			return &d->rows[i];
	if (d->n == *cap) {
		unsigned nc = *cap ? *cap * 2 : 32;
		struct tdiff_row *nr = realloc(d->rows, nc * sizeof *nr);
		if (!nr)
			return NULL;
		d->rows = nr;
		*cap = nc;
	}
	struct tdiff_row *r = &d->rows[d->n++];
	memset(r, 0, sizeof *r);
	r->cc = cc;
	r->a.p50_ns = r->a.p95_ns = r->b.p50_ns = r->b.p95_ns = -1;
	return r;
}

/* Fills side (0: a, 1: b) of every row from trace id of db. */
static int load_side(sqlite3 *db, int64_t id, int side, struct tdiff *d, unsigned *cap, char *err,
		     size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc = trace_exists(db, id, err, errlen), s;
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(db, q_side, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, id);
	struct tdiff_side *tot = side ? &d->total_b : &d->total_a;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct tdiff_row *r = row_for(d, (uint32_t)sqlite3_column_int64(st, 0), cap);
		if (!r) {
			rc = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		struct tdiff_side *x = side ? &r->b : &r->a;
		x->count = (uint64_t)sqlite3_column_int64(st, 1);
		x->timed = (uint64_t)sqlite3_column_int64(st, 2);
		x->total_ns = sqlite3_column_int64(st, 3);
		x->p50_ns = sqlite3_column_int64(st, 4);
		x->p95_ns = sqlite3_column_int64(st, 5);
		tot->count += x->count;
		tot->timed += x->timed;
		tot->total_ns += x->total_ns;
	}
	if (s != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		rc = -EIO;
	}
out:
	sqlite3_finalize(st);
	return rc;
}

int64_t trace_diff_delta_ns(const struct tdiff_row *r)
{
	return r->b.total_ns - r->a.total_ns;
}

double trace_diff_ratio(int64_t a, int64_t b)
{
	return a ? (double)b / (double)a : NAN;
}

static uint64_t mag(int64_t v)
{
	return v < 0 ? (uint64_t)-v : (uint64_t)v;
}

static uint64_t count_delta(const struct tdiff_row *r)
{
	return mag((int64_t)r->b.count - (int64_t)r->a.count);
}

int64_t trace_diff_added_ns(const struct tdiff_row *r)
{
	int64_t dc = (int64_t)r->b.count - (int64_t)r->a.count;
	const struct tdiff_side *more = dc >= 0 ? &r->b : &r->a;
	if (!dc || !more->timed)
		return 0;
	return (int64_t)((double)dc * ((double)more->total_ns / (double)more->timed));
}

/* Largest time difference first; then the larger count difference; then
 * by code, so the order is total. */
static int cmp_time(const void *x, const void *y)
{
	const struct tdiff_row *a = x, *b = y;
	uint64_t da = mag(trace_diff_delta_ns(a)), db = mag(trace_diff_delta_ns(b));
	if (da != db)
		return da < db ? 1 : -1;
	if (count_delta(a) != count_delta(b))
		return count_delta(a) < count_delta(b) ? 1 : -1;
	return a->cc < b->cc ? -1 : a->cc > b->cc;
}

static int cmp_count(const void *x, const void *y)
{
	const struct tdiff_row *a = x, *b = y;
	if (count_delta(a) != count_delta(b))
		return count_delta(a) < count_delta(b) ? 1 : -1;
	return cmp_time(x, y);
}

static int cmp_added(const void *x, const void *y)
{
	uint64_t da = mag(trace_diff_added_ns(x)), db = mag(trace_diff_added_ns(y));
	if (da != db)
		return da < db ? 1 : -1;
	return cmp_time(x, y);
}

void trace_diff_sort(struct tdiff *d, enum tdiff_order by)
{
	if (d->n > 1)
		qsort(d->rows, d->n, sizeof d->rows[0],
		      by == TDIFF_BY_COUNT  ? cmp_count
		      : by == TDIFF_BY_TIME ? cmp_time
					    : cmp_added);
}

int trace_diff_load(sqlite3 *da, int64_t ida, sqlite3 *db, int64_t idb, struct tdiff *out,
		    char *err, size_t errlen)
{
	unsigned cap = 0;
	int rc;
	memset(out, 0, sizeof *out);
	out->total_a.p50_ns = out->total_a.p95_ns = -1;
	out->total_b.p50_ns = out->total_b.p95_ns = -1;
	if ((rc = load_side(da, ida, 0, out, &cap, err, errlen)) ||
	    (rc = load_side(db, idb, 1, out, &cap, err, errlen))) {
		trace_diff_release(out);
		return rc;
	}
	trace_diff_sort(out, TDIFF_BY_ADDED);
	return 0;
}

void trace_diff_release(struct tdiff *d)
{
	free(d->rows);
	d->rows = NULL;
	d->n = 0;
}
