/* The numbers behind `tpmtrace report` (model/report_data.h). */
#include "model/report_data.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "db/stats.h"
#include "model/profile.h"

const char *report_origin_name(enum rd_origin o)
{
	static const char *const n[RD_ORG__COUNT] = {"unknown", "firmware", "kernel", "userspace"};
	return (unsigned)o < RD_ORG__COUNT ? n[o] : "unknown";
}

static char *dup_col(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? strdup(s) : NULL;
}

static int io_err(sqlite3 *db, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", sqlite3_errmsg(db));
	return -EIO;
}

/* A trace without latencies: the axis is the records' order (seq). */
static int order_axis(struct report_data *d, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->db,
			       "SELECT min(s), max(s) FROM (SELECT seq s FROM command WHERE "
			       "trace_id=?1 UNION ALL SELECT seq FROM event WHERE trace_id=?1)",
			       -1, &st, NULL) != SQLITE_OK)
		return io_err(d->db, err, errlen);
	sqlite3_bind_int64(st, 1, d->id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		d->t0 = (uint64_t)sqlite3_column_int64(st, 0);
		d->t1 = (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return 0;
}

/* The time axis covers commands and events: one scan for the counts, the
 * range and the TPM time. */
static int load_axis(struct report_data *d, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int64_t c0 = -1, c1 = -1, e0 = -1, e1 = -1;
	if (sqlite3_prepare_v2(d->db,
			       "SELECT count(*), min(t_submit_ns), "
			       "max(coalesce(t_done_ns,t_submit_ns)), "
			       "coalesce(sum(latency_ns),0), count(latency_ns) FROM command "
			       "WHERE trace_id=?1 AND " DB_CLIENT_CMDS
			       " UNION ALL SELECT count(*), min(t_ns), max(t_ns), "
			       "0, 0 FROM event "
			       "WHERE trace_id=?1",
			       -1, &st, NULL) != SQLITE_OK)
		return io_err(d->db, err, errlen);
	sqlite3_bind_int64(st, 1, d->id);
	int k = 0;
	for (; k < 2 && sqlite3_step(st) == SQLITE_ROW; k++) {
		int64_t n = sqlite3_column_int64(st, 0);
		int64_t lo =
		    sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
		int64_t hi =
		    sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
		if (k == 0) {
			d->n_cmd = (uint64_t)n;
			c0 = lo;
			c1 = hi;
			d->tpm_ns = sqlite3_column_double(st, 3);
			/* has timing: the one definition (db/stats.h) */
			d->timed = db_trace_has_timing(d->db, d->id) > 0;
		} else {
			d->n_ev = (uint64_t)n;
			e0 = lo;
			e1 = hi;
		}
	}
	if (k < 2) { /* two aggregate rows, unless the read failed */
		int rc = io_err(d->db, err, errlen);
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	int64_t lo = c0 >= 0 ? c0 : e0, hi = c1 >= 0 ? c1 : e1;
	if (e0 >= 0 && e0 < lo)
		lo = e0;
	if (e1 > hi)
		hi = e1;
	d->t0 = lo > 0 ? (uint64_t)lo : 0;
	d->t1 = hi > 0 ? (uint64_t)hi : d->t0;
	return d->timed ? 0 : order_axis(d, err, errlen);
}

static int load_trace_row(struct report_data *d)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->db,
			       "SELECT name, kind, source, started_at, status, host, dropped "
			       "FROM trace WHERE id=?",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, d->id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		d->name = dup_col(st, 0);
		d->kind = dup_col(st, 1);
		d->source = dup_col(st, 2);
		d->started = dup_col(st, 3);
		d->status = dup_col(st, 4);
		d->host = dup_col(st, 5);
		d->dropped = sqlite3_column_int64(st, 6);
	}
	sqlite3_finalize(st);
	return 0;
}

/* The origin rule predict and replay use (trace_client_origin). */
static int load_clients(struct report_data *d)
{
	static const uint8_t org_of[POL_ORIGIN__COUNT] = {
	    [POL_ORIGIN_UNKNOWN] = RD_ORG_UNKNOWN,
	    [POL_ORIGIN_KERNEL] = RD_ORG_KERNEL,
	    [POL_ORIGIN_USER] = RD_ORG_USER,
	    [POL_ORIGIN_FIRMWARE] = RD_ORG_FIRMWARE,
	};
	int rc = trace_origins_load(d->db, d->id, &d->client_org);
	if (rc)
		return rc;
	for (size_t i = 0; i < TRACE_MAX_CLIENTS; i++)
		d->client_org[i] =
		    org_of[(d->client_org[i] & ~TRACE_ORIGIN_HWRNG) % POL_ORIGIN__COUNT];
	return 0;
}

static int load_events(struct report_data *d, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(d->db,
			       "SELECT seq, t_ns, kind, detail FROM event WHERE trace_id=? "
			       "ORDER BY seq LIMIT ?",
			       -1, &st, NULL) != SQLITE_OK)
		return io_err(d->db, err, errlen);
	sqlite3_bind_int64(st, 1, d->id);
	sqlite3_bind_int(st, 2, RD_MAX_EV);
	d->ev = calloc(RD_MAX_EV, sizeof *d->ev);
	if (!d->ev) {
		sqlite3_finalize(st);
		return -ENOMEM;
	}
	int s = SQLITE_DONE;
	while (d->n_evk < RD_MAX_EV && (s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rd_event *e = &d->ev[d->n_evk++];
		e->seq = sqlite3_column_int64(st, 0);
		e->t = d->timed ? (uint64_t)sqlite3_column_int64(st, 1) : (uint64_t)e->seq;
		e->kind = dup_col(st, 2);
		e->detail = dup_col(st, 3);
	}
	if (s != SQLITE_ROW && s != SQLITE_DONE) {
		sqlite3_finalize(st);
		return io_err(d->db, err, errlen);
	}
	sqlite3_finalize(st);
	return 0;
}

int report_data_open(struct report_data *d, sqlite3 *db, int64_t id, unsigned max_marks, char *err,
		     size_t errlen)
{
	int rc;
	memset(d, 0, sizeof *d);
	d->db = db;
	d->id = id;
	d->max_marks = max_marks;
	if ((rc = load_axis(d, err, errlen)))
		return rc;
	/* The figures, as every command gives them (db/stats.h). */
	struct db_trace_summary fig;
	if ((rc = db_trace_summary_load(db, id, &fig, err, errlen)))
		return rc;
	d->fig_commands = fig.commands;
	d->fig_own = fig.own;
	d->fig_span_ns = fig.span_ns;
	d->fig_tpm_ns_all = fig.tpm_ns_all;
	d->fig_span_ns_all = fig.span_ns_all;
	db_trace_summary_free(&fig);
	d->aggregate = d->n_cmd > max_marks;
	if (d->aggregate) {
		d->bins = calloc((size_t)TPM_FAM__COUNT * RD_NBINS, sizeof *d->bins);
		d->bin_max = calloc((size_t)TPM_FAM__COUNT * RD_NBINS, sizeof *d->bin_max);
		if (!d->bins || !d->bin_max)
			return -ENOMEM;
	}
	if ((rc = load_clients(d)) || (rc = load_trace_row(d)))
		return rc == -EIO ? io_err(db, err, errlen) : rc;
	return load_events(d, err, errlen);
}

void report_data_free(struct report_data *d)
{
	for (size_t i = 0; i < d->n_ccs; i++)
		free(d->ccs[i].v);
	free(d->ccs);
	free(d->bins);
	free(d->bin_max);
	free(d->client_org);
	for (unsigned i = 0; i < d->n_evk; i++) {
		free(d->ev[i].kind);
		free(d->ev[i].detail);
	}
	free(d->ev);
	free(d->name);
	free(d->kind);
	free(d->source);
	free(d->started);
	free(d->status);
	free(d->host);
	memset(d, 0, sizeof *d);
}

double report_xpos(const struct report_data *d, uint64_t t)
{
	if (d->t1 <= d->t0)
		return 0;
	if (t < d->t0)
		t = d->t0;
	return 1000.0 * (double)(t - d->t0) / (double)(d->t1 - d->t0);
}

/* ---- the one pass over the trace ---- */

static struct rd_cc *cc_get(struct report_data *d, uint32_t cc)
{
	if (d->last_cc < d->n_ccs && d->ccs[d->last_cc].cc == cc)
		return &d->ccs[d->last_cc];
	for (size_t i = 0; i < d->n_ccs; i++)
		if (d->ccs[i].cc == cc) {
			d->last_cc = i;
			return &d->ccs[i];
		}
	if (d->n_ccs == d->cap_ccs) {
		size_t nc = d->cap_ccs ? 2 * d->cap_ccs : 32;
		struct rd_cc *p = realloc(d->ccs, nc * sizeof *p);
		if (!p)
			return NULL;
		d->ccs = p;
		d->cap_ccs = nc;
	}
	memset(&d->ccs[d->n_ccs], 0, sizeof d->ccs[0]);
	d->ccs[d->n_ccs].cc = cc;
	d->last_cc = d->n_ccs;
	return &d->ccs[d->n_ccs++];
}

static int lat_push(struct rd_cc *c, uint64_t v)
{
	if (c->n == c->cap) {
		size_t nc = c->cap ? 2 * c->cap : 64;
		uint64_t *p = realloc(c->v, nc * sizeof *p);
		if (!p)
			return -ENOMEM;
		c->v = p;
		c->cap = nc;
	}
	c->v[c->n++] = v;
	c->total += (double)v;
	return 0;
}

static void top_add(struct report_data *d, const struct rd_top *t)
{
	unsigned i;
	if (d->n_top == RD_TOP_N && t->lat <= d->top[RD_TOP_N - 1].lat)
		return;
	i = d->n_top < RD_TOP_N ? d->n_top++ : RD_TOP_N - 1;
	while (i > 0 && d->top[i - 1].lat < t->lat) {
		d->top[i] = d->top[i - 1];
		i--;
	}
	d->top[i] = *t;
}

static void bin_add(struct report_data *d, const struct rd_cmd *c)
{
	int b = (int)(report_xpos(d, c->t) * RD_NBINS / 1000.0);
	if (b >= RD_NBINS)
		b = RD_NBINS - 1;
	if (b < 0)
		b = 0;
	d->bins[c->fam * RD_NBINS + b]++;
	if (c->lat > 0 && (uint64_t)c->lat > d->bin_max[c->fam * RD_NBINS + b])
		d->bin_max[c->fam * RD_NBINS + b] = (uint64_t)c->lat;
}

/* Phases: runs of commands from the same kind of client. */
static void run_add(struct report_data *d, const struct rd_cmd *c, int64_t client, uint8_t *cur_org)
{
	uint8_t org = client >= 0 && client < TRACE_MAX_CLIENTS ? d->client_org[client] : 0;
	if (org)
		d->any_known_org = 1;
	uint64_t tend = c->lat > 0 ? c->t + (uint64_t)c->lat : c->t;
	if (org == *cur_org && d->n_runs) {
		d->runs[d->n_runs - 1].t1 = tend;
		d->runs[d->n_runs - 1].n++;
	} else if (d->n_runs < RD_MAX_RUNS) {
		d->runs[d->n_runs++] = (struct rd_run){c->t, tend, org, 1};
		*cur_org = org;
	} else {
		d->runs_cut = 1;
	}
}

static int cmd_add(struct report_data *d, const struct rd_cmd *c, int64_t client)
{
	struct rd_cc *k = cc_get(d, c->cc);
	if (!k)
		return -ENOMEM;
	k->count++;
	d->fam_n[c->fam]++;
	if (c->lat >= 0) {
		if (lat_push(k, (uint64_t)c->lat))
			return -ENOMEM;
		d->fam_ns[c->fam] += (double)c->lat;
		d->n_lat++;
		struct rd_top tp = {c->seq,    c->t,  (uint64_t)c->lat, c->cc, c->rc,
				    c->has_rc, client};
		top_add(d, &tp);
	}
	return 0;
}

/* Non-TPM time as predict_cmd() sums it (model/predict.c). */
static void gap_add(struct report_data *d, uint64_t t_submit, uint64_t t_done, uint64_t *prev_done)
{
	if (!d->timed) /* ordinals, not times: no gaps */
		return;
	if (t_submit && *prev_done && t_submit > *prev_done)
		d->gap_ns += (double)(t_submit - *prev_done);
	if (t_done)
		*prev_done = t_done;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_cc_total(const void *a, const void *b)
{
	const struct rd_cc *x = a, *y = b;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->cc < y->cc ? -1 : x->cc > y->cc;
}

static void sort_ccs(struct report_data *d)
{
	for (size_t i = 0; i < d->n_ccs; i++)
		if (d->ccs[i].n > 1)
			qsort(d->ccs[i].v, d->ccs[i].n, sizeof(uint64_t), cmp_u64);
	if (d->n_ccs > 1) /* ccs is NULL for a trace without commands */
		qsort(d->ccs, d->n_ccs, sizeof *d->ccs, cmp_cc_total);
	d->last_cc = 0;
}

int report_data_stream(struct report_data *d,
		       void (*mark)(void *ctx, const struct report_data *d, const struct rd_cmd *c),
		       void *ctx, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc = 0, s;
	uint8_t cur_org = 255;
	uint64_t prev_done = 0;
	if (sqlite3_prepare_v2(d->db,
			       "SELECT seq, t_submit_ns, latency_ns, cc, rc, client_id, t_done_ns "
			       "FROM command WHERE trace_id=? AND " DB_CLIENT_CMDS " ORDER BY seq",
			       -1, &st, NULL) != SQLITE_OK)
		return io_err(d->db, err, errlen);
	sqlite3_bind_int64(st, 1, d->id);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rd_cmd c;
		c.seq = (uint64_t)sqlite3_column_int64(st, 0);
		c.t = sqlite3_column_type(st, 1) == SQLITE_NULL
			  ? d->t0
			  : (uint64_t)sqlite3_column_int64(st, 1);
		c.lat =
		    sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
		c.cc = (uint32_t)sqlite3_column_int64(st, 3);
		c.has_rc = sqlite3_column_type(st, 4) != SQLITE_NULL;
		c.rc = (uint32_t)sqlite3_column_int64(st, 4);
		c.fam = tpm_cc_family(c.cc);
		int64_t client = sqlite3_column_int64(st, 5);
		gap_add(d, (uint64_t)sqlite3_column_int64(st, 1),
			(uint64_t)sqlite3_column_int64(st, 6), &prev_done);
		if (!d->timed)
			c.t = c.seq;
		if ((rc = cmd_add(d, &c, client)))
			break;
		if (d->aggregate)
			bin_add(d, &c);
		else if (mark)
			mark(ctx, d, &c);
		run_add(d, &c, client, &cur_org);
	}
	if (!rc && s != SQLITE_DONE)
		rc = io_err(d->db, err, errlen);
	else if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	sqlite3_finalize(st);
	if (!rc)
		sort_ccs(d);
	return rc;
}

/* Nearest rank, as the command_stats view: the smallest v with rank >= p% of n. */
uint64_t report_pctl(const struct rd_cc *c, double p)
{
	return c->n ? c->v[db_nearest_rank(c->n, p) - 1] : 0;
}

/* ---- policy comparison ---- */

/* Sums a trace's TPM time per family into b (added, for averaging runs),
 * and the run's TPM time into b->tpm. */
static int bar_add_trace(sqlite3 *db, int64_t id, struct report_bar *b)
{
	sqlite3_stmt *st;
	double run = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT cc, coalesce(sum(latency_ns),0), count(*) FROM command "
			       "WHERE trace_id=? AND " DB_CLIENT_CMDS " GROUP BY cc",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		enum tpm_family fam = tpm_cc_family((uint32_t)sqlite3_column_int64(st, 0));
		b->seg[fam] += sqlite3_column_double(st, 1);
		run += sqlite3_column_double(st, 1);
		b->commands += (uint64_t)sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (s != SQLITE_DONE)
		return -EIO;
	b->nseg = TPM_FAM__COUNT;
	b->runs++;
	model_run_stats_add(&b->tpm, run / 1e6);
	return 0;
}

static void bar_finish(struct report_bar *b)
{
	b->total = 0;
	for (int i = 0; i < b->nseg; i++) {
		if (b->runs > 1)
			b->seg[i] /= b->runs;
		b->total += b->seg[i];
	}
	if (b->runs > 1)
		b->commands /= b->runs;
}

/* The replays of d's trace, one bar per policy and emulated profile,
 * averaged: those on a real target (emulated 0) or those emulating a
 * profile (emulated 1). */
static int replay_bars(const struct report_data *d, int emulated, struct report_bar *bars,
		       unsigned *np, unsigned first, int *base)
{
	sqlite3_stmt *st;
	unsigned n = *np;
	if (sqlite3_prepare_v2(d->db,
			       "SELECT id, coalesce(policy,'as-recorded'), coalesce(emulated,''), "
			       "coalesce(source,'') FROM trace WHERE parent_id=? AND kind='replay' "
			       "AND (coalesce(emulated,'')<>'')=? "
			       "ORDER BY emulated, policy, source, id",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, d->id);
	sqlite3_bind_int(st, 2, emulated);
	int s = SQLITE_DONE, rc = 0;
	while (!rc && n < RD_MAX_BARS && (s = sqlite3_step(st)) == SQLITE_ROW) {
		char label[160];
		const char *pol = (const char *)sqlite3_column_text(st, 1);
		const char *emu = (const char *)sqlite3_column_text(st, 2);
		const char *tgt = (const char *)sqlite3_column_text(st, 3);
		/* Runs of one source, policy, profile and target are one set of
		 * repeated runs; the target is named where it is not the usual
		 * spawned swtpm. */
		int own = !*tgt || !strcmp(tgt, "swtpm (spawned)");
		snprintf(label, sizeof label, "replay: %s%s%s%s%.60s", pol, *emu ? " on " : "", emu,
			 own ? "" : " @ ", own ? "" : tgt);
		unsigned j;
		for (j = first; j < n; j++)
			if (!strcmp(bars[j].kind, "replay") && !strcmp(bars[j].label, label))
				break;
		if (j == n) {
			memset(&bars[n], 0, sizeof bars[n]);
			snprintf(bars[n].label, sizeof bars[n].label, "%s", label);
			snprintf(bars[n].emulated, sizeof bars[n].emulated, "%s", emu);
			snprintf(bars[n].policy, sizeof bars[n].policy, "%.60s%s%.60s", pol,
				 own ? "" : " @ ", own ? "" : tgt);
			strcpy(bars[n].kind, "replay");
			bars[n].trace_id = sqlite3_column_int64(st, 0);
			n++;
		}
		rc = bar_add_trace(d->db, sqlite3_column_int64(st, 0), &bars[j]);
		/* The first password bar: measured, base 0 is the recording's. */
		if (!strcmp(pol, "password") && (emulated ? *base < 0 : *base == 0))
			*base = (int)j;
	}
	sqlite3_finalize(st);
	*np = n;
	return rc ? rc : s == SQLITE_ROW || s == SQLITE_DONE ? 0 : -EIO;
}

/* A compared trace's bar, if its figures are of the kind asked for
 * (emulated or measured); *added 0 when not. */
static int compare_bar(sqlite3 *db, int64_t id, int emulated, struct report_bar *c, int *added)
{
	sqlite3_stmt *st;
	char *name = NULL;
	memset(c, 0, sizeof *c);
	*added = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT coalesce(name,''), kind, coalesce(emulated,''), "
			       "coalesce(policy,'') FROM trace WHERE id=?",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			name = strdup((const char *)sqlite3_column_text(st, 0));
			snprintf(c->emulated, sizeof c->emulated, "%s",
				 (const char *)sqlite3_column_text(st, 2));
			snprintf(c->policy, sizeof c->policy, "%s",
				 (const char *)sqlite3_column_text(st, 3));
		}
		sqlite3_finalize(st);
	}
	if (!*c->emulated != !emulated) {
		free(name);
		return 0;
	}
	snprintf(c->label, sizeof c->label, "compare: trace %lld %.100s", (long long)id,
		 name ? name : "");
	free(name);
	strcpy(c->kind, "compare");
	c->trace_id = id;
	*added = 1;
	return bar_add_trace(db, id, c);
}

static int compare_bars(const struct report_data *d, const int64_t *cmp, unsigned ncmp,
			int emulated, struct report_bar *bars, unsigned *np)
{
	int rc, added;
	for (unsigned k = 0; k < ncmp && *np < RD_MAX_BARS; k++) {
		if ((rc = compare_bar(d->db, cmp[k], emulated, &bars[*np], &added)))
			return rc;
		*np += (unsigned)added;
	}
	for (unsigned i = 0; i < *np; i++)
		bar_finish(&bars[i]);
	return 0;
}

int report_measured_bars(const struct report_data *d, const int64_t *cmp, unsigned ncmp,
			 struct report_bar *bars, unsigned *nb, int *base)
{
	unsigned n = 0;
	int rc;
	*base = 0;
	struct report_bar *b = &bars[n++];
	memset(b, 0, sizeof *b);
	snprintf(b->label, sizeof b->label, "trace %lld as recorded", (long long)d->id);
	strcpy(b->kind, "recorded");
	b->trace_id = d->id;
	/* This trace's sums come from the pass over it, not another scan. */
	for (int i = 0; i < TPM_FAM__COUNT; i++)
		b->seg[i] = d->fam_ns[i];
	b->nseg = TPM_FAM__COUNT;
	b->runs = 1;
	b->commands = d->n_cmd;
	model_run_stats_add(&b->tpm, d->tpm_ns / 1e6);
	if ((rc = replay_bars(d, 0, bars, &n, 1, base)) ||
	    (rc = compare_bars(d, cmp, ncmp, 0, bars, &n)))
		return rc;
	*nb = n;
	return 0;
}

int report_emulated_bars(const struct report_data *d, const int64_t *cmp, unsigned ncmp,
			 struct report_bar *bars, unsigned *nb, int *base)
{
	unsigned n = 0;
	int rc;
	*base = -1;
	if ((rc = replay_bars(d, 1, bars, &n, 0, base)) ||
	    (rc = compare_bars(d, cmp, ncmp, 1, bars, &n)))
		return rc;
	/* One chart, one base: a factor only where every bar has one profile. */
	for (unsigned i = 1; i < n && *base >= 0; i++)
		if (strcmp(bars[i].emulated, bars[0].emulated))
			*base = -1;
	*nb = n;
	return 0;
}

int report_predict(const struct report_data *d, const char *profname, const struct pred_host *host,
		   struct report_prediction *p, char *err, size_t errlen)
{
	struct policy pols[PREDICT_MAX_POLICIES];
	struct profile prof;
	const char *from = "", *n;
	unsigned npol = 0;
	uint64_t ncmd = 0;
	int rc;

	memset(p, 0, sizeof *p);
	p->base = -1;
	profile_init(&prof);
	for (unsigned j = 0; (n = policy_preset_name(j)) && npol < PREDICT_MAX_POLICIES; j++)
		if (!policy_parse(n, &pols[npol], err, errlen))
			npol++;
	for (unsigned k = 0; k < npol; k++)
		if (pols[k].mode == POL_MODE_PASSWORD && p->base < 0)
			p->base = (int)k;
	if ((rc = profile_resolve(d->db, profname, &prof, &from, err, errlen)))
		goto out;
	snprintf(p->profile, sizeof p->profile, "%s", prof.name ? prof.name : profname);
	snprintf(p->chip, sizeof p->chip, "%s", prof.chip ? prof.chip : "");
	snprintf(p->from, sizeof p->from, "%s", from ? from : "");
	p->pr = malloc(sizeof *p->pr);
	if (!p->pr || predict_init(p->pr, &prof, pols, npol)) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if (host)
		predict_set_host(p->pr, host);
	if ((rc = trace_stream_predict(d->db, d->id, p->pr, &ncmd, err, errlen)))
		goto out;
	predict_finish(p->pr);
	p->pr->prof = NULL; /* the profile is released below */
	for (unsigned k = 0; k < npol; k++) {
		struct report_bar *b = &p->bars[k];
		const struct pred_result *r = &p->pr->r[k];
		snprintf(b->label, sizeof b->label, "%s", r->pol.name);
		strcpy(b->kind, "predicted");
		b->seg[0] = r->tpm_ms * 1e6;
		b->seg[1] = r->host_ms * 1e6;
		b->seg[2] = p->pr->gap_ms * 1e6;
		b->nseg = 3;
		b->runs = 1;
		b->commands = r->commands;
		b->total = predict_total_ms(p->pr, k) * 1e6;
	}
	p->n = npol;
out:
	profile_release(&prof);
	return rc;
}

void report_prediction_free(struct report_prediction *p)
{
	free(p->pr);
	p->pr = NULL;
}
