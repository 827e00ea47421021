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

#include "db/json.h"
#include "db/stats.h"
#include "db/trace_kind.h"
#include "model/run_stats.h"
#include "model/tpm/tpm_cc.h"

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

int trace_diff_trace_load(struct trace_diff_trace *x, char *err, size_t errlen)
{
	db_trace_kind_policy(x->db, x->id, x->kind, sizeof x->kind, x->policy, sizeof x->policy);
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(x->db, "SELECT coalesce(emulated,'') FROM trace WHERE id=?", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, x->id);
		if (sqlite3_step(st) == SQLITE_ROW)
			snprintf(x->emulated, sizeof x->emulated, "%s",
				 (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	return db_trace_summary_load(x->db, x->id, &x->sum, err, errlen);
}

static void json_side(struct json_w *w, const char *key, const struct tdiff_side *s)
{
	json_key(w, key);
	json_begin_object(w);
	json_kuint(w, "count", s->count);
	json_kuint(w, "timed", s->timed);
	json_kint(w, "total_ns", s->total_ns);
	if (s->p50_ns >= 0) {
		json_kint(w, "p50_ns", s->p50_ns);
		json_kint(w, "p95_ns", s->p95_ns);
	} else {
		json_knull(w, "p50_ns");
		json_knull(w, "p95_ns");
	}
	json_end_object(w);
}

/* b/a, null where there is none (json_double: NaN and infinities too). */
static void json_ratio(struct json_w *w, const char *key, int64_t a, int64_t b)
{
	json_kdouble(w, key, (a >= 0 && b >= 0) ? trace_diff_ratio(a, b) : NAN, 6);
}

int trace_diff_json(FILE *f, const struct trace_diff_trace *A, const struct trace_diff_trace *B,
		    const struct tdiff *d)
{
	const struct trace_diff_trace *s[2] = {A, B};
	const struct tdiff_side *t[2] = {&d->total_a, &d->total_b};
	struct json_w w;
	json_init_file(&w, f, JSON_COMPACT);
	json_begin_object(&w);
	json_kint(&w, "version", 1);
	for (int i = 0; i < 2; i++) {
		json_key(&w, i ? "b" : "a");
		json_begin_object(&w);
		json_kstr(&w, "db", s[i]->path);
		json_kint(&w, "trace", s[i]->id);
		json_kstr(&w, "kind", s[i]->kind);
		json_kstr(&w, "policy", s[i]->policy[0] ? s[i]->policy : NULL);
		json_kstr(&w, "figures", model_figure_kind(s[i]->emulated));
		json_kstr(&w, "emulated", s[i]->emulated[0] ? s[i]->emulated : NULL);
		json_kint(&w, "runs", 1);
		json_kuint(&w, "commands", t[i]->count);
		json_kint(&w, "total_ns", t[i]->total_ns);
		json_kint(&w, "tpm_ns", t[i]->total_ns);
		json_kdouble(&w, "span_ns", s[i]->sum.span_ns, 0);
		json_kint(&w, "tpmtrace_commands", s[i]->sum.own);
		json_end_object(&w);
	}
	/* One trace a side: every ratio is between single runs. */
	json_kstr(&w, "ratios", "single runs");
	json_key(&w, "commands");
	json_begin_array(&w);
	for (unsigned i = 0; i < d->n; i++) {
		const struct tdiff_row *r = &d->rows[i];
		json_begin_object(&w);
		json_kuint(&w, "cc", r->cc);
		json_kstr(&w, "name", tpm_cc_name(r->cc));
		json_side(&w, "a", &r->a);
		json_side(&w, "b", &r->b);
		json_kint(&w, "count_delta", (long long)r->b.count - (long long)r->a.count);
		json_kint(&w, "total_delta_ns", trace_diff_delta_ns(r));
		json_kint(&w, "added_ns", trace_diff_added_ns(r));
		json_ratio(&w, "count_ratio", (int64_t)r->a.count, (int64_t)r->b.count);
		json_ratio(&w, "total_ratio", r->a.total_ns, r->b.total_ns);
		json_ratio(&w, "p50_ratio", r->a.p50_ns, r->b.p50_ns);
		json_ratio(&w, "p95_ratio", r->a.p95_ns, r->b.p95_ns);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
	json_newline(&w);
	return json_done(&w);
}
