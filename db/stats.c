/* The numbers of 'tpmtrace stats' (db/stats.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/stats.h"

/* A copy of column i's text, NULL for NULL; *oom set when the copy failed. */
static char *col_text(sqlite3_stmt *st, int i, int *oom)
{
	const char *t = (const char *)sqlite3_column_text(st, i);
	char *c = t ? strdup(t) : NULL;
	if (t && !c)
		*oom = 1;
	return c;
}

static struct db_stat_val col_val(sqlite3_stmt *st, int i)
{
	struct db_stat_val v = {sqlite3_column_int64(st, i), sqlite3_column_double(st, i)};
	return v;
}

/* Reads rows of (name, cc, count, total, min, mean, p50, p95, p99, max,
 * first) into *out; returns the last sqlite3_step status (SQLITE_DONE when
 * all went well) or SQLITE_NOMEM. */
static int read_rows(sqlite3_stmt *st, struct db_cc_stats **out, size_t *n)
{
	int src;
	size_t cap = 0;
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			size_t nc = cap ? 2 * cap : 32;
			struct db_cc_stats *p = realloc(*out, nc * sizeof *p);
			if (!p)
				return SQLITE_NOMEM;
			*out = p;
			cap = nc;
		}
		struct db_cc_stats *r = &(*out)[*n];
		int oom = 0;
		memset(r, 0, sizeof *r);
		r->name = col_text(st, 0, &oom);
		if (oom)
			return SQLITE_NOMEM;
		r->cc = sqlite3_column_int64(st, 1);
		r->count = sqlite3_column_int64(st, 2);
		r->total = col_val(st, 3);
		r->min = col_val(st, 4);
		r->mean = sqlite3_column_double(st, 5);
		r->p50 = col_val(st, 6);
		r->p95 = col_val(st, 7);
		r->p99 = col_val(st, 8);
		r->max = col_val(st, 9);
		r->first = col_val(st, 10);
		(*n)++;
	}
	return src;
}

static int read_summary(sqlite3_stmt *sum, struct db_trace_summary *t)
{
	int src = sqlite3_step(sum), oom = 0;
	if (src != SQLITE_ROW)
		return src;
	t->name = col_text(sum, 0, &oom);
	t->kind = col_text(sum, 1, &oom);
	t->status = col_text(sum, 2, &oom);
	t->commands = sqlite3_column_int64(sum, 3);
	t->events = sqlite3_column_int64(sum, 4);
	t->dropped = sqlite3_column_int64(sum, 5);
	t->tpm_ns = sqlite3_column_double(sum, 6);
	t->span_ns = sqlite3_column_double(sum, 7);
	t->malformed = sqlite3_column_int64(sum, 8);
	t->no_response = sqlite3_column_int64(sum, 9);
	t->own = sqlite3_column_int64(sum, 10);
	t->tpm_ns_all = sqlite3_column_double(sum, 11);
	t->span_ns_all = sqlite3_column_double(sum, 12);
	t->timed = sqlite3_column_int64(sum, 13);
	return oom ? SQLITE_NOMEM : SQLITE_ROW;
}

/* The clients' commands from the command_stats view; tpmtrace's own (flag
 * 32) by the same definitions, apart. Counts are of the rows stored, so that
 * a recording that was killed before it closed its trace row agrees with
 * 'tpmtrace verify'. */
static const char q_cmds[] = "SELECT name, cc, count, total_ns, min_ns, mean_ns, p50_ns, p95_ns,"
			     " p99_ns, max_ns, first_ns FROM command_stats WHERE trace_id=?"
			     " ORDER BY total_ns DESC, cc";
static const char q_own[] =
    "SELECT coalesce(tpm_cc_name(cc), printf('0x%08X', cc)), cc, count(*),"
    " sum(latency_ns), min(latency_ns), avg(latency_ns), percentile(latency_ns, 50),"
    " percentile(latency_ns, 95), percentile(latency_ns, 99), max(latency_ns),"
    " (SELECT c2.latency_ns FROM command c2 WHERE c2.trace_id=c.trace_id AND"
    "  c2.cc=c.cc AND c2." DB_OWN_CMDS " ORDER BY c2.seq LIMIT 1)"
    " FROM command c WHERE trace_id=? AND " DB_OWN_CMDS " AND latency_ns IS NOT NULL"
    " GROUP BY cc ORDER BY sum(latency_ns) DESC, cc";
static const char q_sum[] =
    "SELECT t.name, t.kind, t.status,"
    " (SELECT count(*) FROM command c WHERE c.trace_id=t.id AND c." DB_CLIENT_CMDS "),"
    " (SELECT count(*) FROM event e WHERE e.trace_id=t.id), t.dropped,"
    " coalesce((SELECT sum(latency_ns) FROM command c WHERE"
    "  c.trace_id=t.id AND c." DB_CLIENT_CMDS "),0),"
    " coalesce((SELECT max(t_done_ns) - min(t_submit_ns) FROM command c"
    "  WHERE c.trace_id=t.id AND c." DB_CLIENT_CMDS "),0),"
    " (SELECT count(*) FROM command c WHERE c.trace_id=t.id AND c.flags & 2),"
    " (SELECT count(*) FROM command c WHERE c.trace_id=t.id AND c.flags & 8),"
    " (SELECT count(*) FROM command c WHERE c.trace_id=t.id AND NOT c." DB_CLIENT_CMDS "),"
    " coalesce((SELECT sum(latency_ns) FROM command c WHERE c.trace_id=t.id),0),"
    " coalesce((SELECT max(t_done_ns) - min(t_submit_ns) FROM command c"
    "  WHERE c.trace_id=t.id),0),"
    " (" DB_TIMED_SQL ")"
    " FROM trace t WHERE t.id=?";

/* A trace without timing: the clients' commands per code, counts alone. */
static const char q_counts[] =
    "SELECT coalesce(tpm_cc_name(cc), printf('0x%08X', cc)), cc, count(*), NULL, NULL, NULL,"
    " NULL, NULL, NULL, NULL, NULL FROM command WHERE trace_id=? AND " DB_CLIENT_CMDS
    " GROUP BY cc ORDER BY count(*) DESC, cc";

/* The message for a failed read: what it means, not SQLite's "no more rows
 * available" or a bare "integer overflow". */
static int read_error(sqlite3 *db, int64_t id, int src, char *err, size_t errlen)
{
	if (src == SQLITE_NOMEM) {
		snprintf(err, errlen, "trace %lld: out of memory", (long long)id);
		return -ENOMEM;
	}
	if (src == SQLITE_DONE)
		snprintf(err, errlen, "trace %lld has no row in the trace table", (long long)id);
	else if (strstr(sqlite3_errmsg(db), "integer overflow"))
		snprintf(err, errlen,
			 "trace %lld: the sum of its latencies or the span of its "
			 "timestamps overflows 64 bits; its times are not ones a recording "
			 "makes (a damaged or hand-made file)",
			 (long long)id);
	else
		snprintf(err, errlen, "trace %lld: %s", (long long)id, sqlite3_errmsg(db));
	return -EIO;
}

int db_stats_load(sqlite3 *db, int64_t id, int rows, struct db_stats *s, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL, *own = NULL, *sum = NULL;
	int ret = 0, src = SQLITE_DONE;
	memset(s, 0, sizeof *s);
	if (sqlite3_prepare_v2(db, q_cmds, -1, &st, NULL) ||
	    sqlite3_prepare_v2(db, q_own, -1, &own, NULL) ||
	    sqlite3_prepare_v2(db, q_sum, -1, &sum, NULL)) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		ret = -EIO;
		goto out;
	}
	s->started = 1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(own, 1, id);
	sqlite3_bind_int64(sum, 1, id);
	if (rows) {
		src = read_rows(st, &s->cmds, &s->n_cmds);
		if (src == SQLITE_DONE) {
			s->cmds_done = 1;
			src = read_rows(own, &s->own, &s->n_own);
		}
	}
	if (src == SQLITE_DONE)
		src = read_summary(sum, &s->sum);
	if (src == SQLITE_ROW)
		s->have_sum = 1;
	else
		ret = read_error(db, id, src, err, errlen);
	/* No timing: command_stats has no row; the counts are what there is. */
	if (s->have_sum && !s->sum.timed && rows && !s->n_cmds) {
		sqlite3_finalize(st);
		st = NULL;
		if (sqlite3_prepare_v2(db, q_counts, -1, &st, NULL)) {
			s->have_sum = 0;
			ret = read_error(db, id, SQLITE_ERROR, err, errlen);
			goto out;
		}
		sqlite3_bind_int64(st, 1, id);
		if ((src = read_rows(st, &s->cmds, &s->n_cmds)) != SQLITE_DONE) {
			s->have_sum = 0;
			ret = read_error(db, id, src, err, errlen);
		}
	}
out:
	sqlite3_finalize(st);
	sqlite3_finalize(own);
	sqlite3_finalize(sum);
	return ret;
}

static void free_rows(struct db_cc_stats *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].name);
	free(r);
}

void db_stats_free(struct db_stats *s)
{
	free_rows(s->cmds, s->n_cmds);
	free_rows(s->own, s->n_own);
	db_trace_summary_free(&s->sum);
	memset(s, 0, sizeof *s);
}

void db_trace_summary_free(struct db_trace_summary *t)
{
	free(t->name);
	free(t->kind);
	free(t->status);
	memset(t, 0, sizeof *t);
}

int db_trace_summary_load(sqlite3 *db, int64_t id, struct db_trace_summary *t, char *err,
			  size_t errlen)
{
	struct db_stats s;
	int rc = db_stats_load(db, id, 0, &s, err, errlen);
	*t = s.sum;
	memset(&s.sum, 0, sizeof s.sum);
	db_stats_free(&s);
	if (rc)
		db_trace_summary_free(t);
	return rc;
}

int db_trace_has_timing(sqlite3 *db, int64_t id)
{
	sqlite3_stmt *st = NULL;
	int rc = -EIO;
	if (sqlite3_prepare_v2(db, "SELECT (" DB_TIMED_SQL ") FROM trace t WHERE t.id=?", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		int src = sqlite3_step(st);
		if (src == SQLITE_ROW)
			rc = sqlite3_column_int64(st, 0) > 0;
		else if (src == SQLITE_DONE)
			rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}
