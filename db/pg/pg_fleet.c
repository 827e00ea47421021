/* The queries of `tpmtrace fleet`: per TPM model x firmware x kernel x
 * policy (the fleet_trace view of db/pg/schema.sql). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/pg/pg.h"
#include "db/pg/pg_copy.h"
#include "db/stats.h"

#define KEY "tpm_model, firmware, kernel, policy"
/* The trace kinds (docs/schema.md): boots are recordings and imports; a
 * replay is a run of its policy's group, not a boot. Derived traces are not
 * pushed (db/trace_kind.def); one an older tpmtrace pushed is left out. */
#define BOOTS                                                                                      \
	"count(DISTINCT coalesce(boot_id, uuid::text)) FILTER (WHERE kind IN ('record', "          \
	"'import'))"
#define FLEET "(SELECT * FROM fleet_trace WHERE kind <> 'derived') AS ft"

static const char q_groups[] =
    "SELECT " KEY ", count(DISTINCT host_key), " BOOTS ","
    " count(*), percentile(tpm_ns, 50), percentile(tpm_ns, 95), max(tpm_ns),"
    " string_agg(DISTINCT tpm_profile, ', ')"
    " FROM " FLEET " GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4";

/* The commands that dominate a group: the largest shares of its TPM time
 * (the clients' commands, as tpm_ns). */
static const char q_top[] =
    "WITH c AS (SELECT " KEY ", x.cc, sum(x.latency_ns)::double precision AS ns"
    "  FROM fleet_trace f JOIN command x ON x.trace_id = f.trace_id AND x." DB_CLIENT_CMDS
    "  AND f.kind <> 'derived'"
    "  AND x.latency_ns IS NOT NULL GROUP BY 1, 2, 3, 4, 5),"
    " r AS (SELECT *, row_number() OVER (PARTITION BY " KEY " ORDER BY ns DESC, cc) AS k,"
    "  sum(ns) OVER (PARTITION BY " KEY ") AS tot FROM c)"
    " SELECT " KEY ", coalesce(tpm_cc_name(cc), tpm_cc_hex(cc)), ns, ns / nullif(tot, 0)"
    " FROM r WHERE k <= 3 ORDER BY 1, 2, 3, 4, k";

/* The slowest hosts of a group: by their slowest trace. */
static const char q_slow[] =
    "WITH h AS (SELECT " KEY ", hostname, max(tpm_ns)::double precision AS ns"
    "  FROM " FLEET " GROUP BY 1, 2, 3, 4, 5),"
    " r AS (SELECT *, row_number() OVER (PARTITION BY " KEY " ORDER BY ns DESC, hostname)"
    "  AS k FROM h)"
    " SELECT " KEY ", hostname, ns FROM r WHERE k <= 3 ORDER BY 1, 2, 3, 4, k";

static PGresult *query(PGconn *c, const char *sql, char *err, size_t errlen)
{
	PGresult *r = PQexec(c, sql);
	if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
		pg_res_err(c, r, "fleet query", err, errlen);
		PQclear(r);
		return NULL;
	}
	return r;
}

static char *dup_val(PGresult *r, int row, int col, int *oom)
{
	char *s = strdup(PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col));
	if (!s)
		*oom = 1;
	return s;
}

static double num(PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0 : strtod(PQgetvalue(r, row, col), NULL);
}

/* The group of row's first four columns. */
static struct pg_fleet_group *group_of(struct pg_fleet *f, PGresult *r, int row)
{
	for (size_t i = 0; i < f->n; i++) {
		struct pg_fleet_group *g = &f->g[i];
		if (!strcmp(g->model, PQgetvalue(r, row, 0)) &&
		    !strcmp(g->firmware, PQgetvalue(r, row, 1)) &&
		    !strcmp(g->kernel, PQgetvalue(r, row, 2)) &&
		    !strcmp(g->policy, PQgetvalue(r, row, 3)))
			return g;
	}
	return NULL;
}

static int fill_groups(struct pg_fleet *f, PGresult *r)
{
	int oom = 0, n = PQntuples(r);
	f->g = calloc((size_t)n + 1, sizeof *f->g);
	if (!f->g)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct pg_fleet_group *g = &f->g[f->n++];
		g->model = dup_val(r, i, 0, &oom);
		g->firmware = dup_val(r, i, 1, &oom);
		g->kernel = dup_val(r, i, 2, &oom);
		g->policy = dup_val(r, i, 3, &oom);
		g->hosts = (long long)num(r, i, 4);
		g->boots = (long long)num(r, i, 5);
		g->traces = (long long)num(r, i, 6);
		g->p50_ns = num(r, i, 7);
		g->p95_ns = num(r, i, 8);
		g->max_ns = num(r, i, 9);
		g->profile = dup_val(r, i, 10, &oom);
	}
	return oom ? -ENOMEM : 0;
}

static int fill_top(struct pg_fleet *f, PGresult *top, PGresult *slow)
{
	int oom = 0;
	for (int i = 0; i < PQntuples(top); i++) {
		struct pg_fleet_group *g = group_of(f, top, i);
		for (int k = 0; g && k < PG_FLEET_TOP; k++)
			if (!g->top[k].name) {
				g->top[k].name = dup_val(top, i, 4, &oom);
				g->top[k].total_ns = num(top, i, 5);
				g->top[k].share = num(top, i, 6);
				break;
			}
	}
	for (int i = 0; i < PQntuples(slow); i++) {
		struct pg_fleet_group *g = group_of(f, slow, i);
		for (int k = 0; g && k < PG_FLEET_TOP; k++)
			if (!g->slow[k].host) {
				g->slow[k].host = dup_val(slow, i, 4, &oom);
				g->slow[k].tpm_ns = num(slow, i, 5);
				break;
			}
	}
	return oom ? -ENOMEM : 0;
}

int pg_fleet_stats(PGconn *c, struct pg_fleet *f, char *err, size_t errlen)
{
	PGresult *g = NULL, *top = NULL, *slow = NULL, *tot = NULL;
	int rc = -EIO;
	memset(f, 0, sizeof *f);
	if (!(g = query(c, q_groups, err, errlen)) || !(top = query(c, q_top, err, errlen)) ||
	    !(slow = query(c, q_slow, err, errlen)) ||
	    !(tot = query(c, "SELECT count(DISTINCT host_key), count(*) FROM fleet_trace", err,
			  errlen)))
		goto out;
	f->hosts = (long long)num(tot, 0, 0);
	f->traces = (long long)num(tot, 0, 1);
	rc = fill_groups(f, g);
	if (!rc)
		rc = fill_top(f, top, slow);
	if (rc)
		snprintf(err, errlen, "out of memory");
out:
	PQclear(g);
	PQclear(top);
	PQclear(slow);
	PQclear(tot);
	return rc;
}

void pg_fleet_free(struct pg_fleet *f)
{
	for (size_t i = 0; i < f->n; i++) {
		struct pg_fleet_group *g = &f->g[i];
		free(g->model);
		free(g->firmware);
		free(g->profile);
		free(g->kernel);
		free(g->policy);
		for (int k = 0; k < PG_FLEET_TOP; k++) {
			free(g->top[k].name);
			free(g->slow[k].host);
		}
	}
	free(f->g);
	memset(f, 0, sizeof *f);
}

static const char q_hosts[] =
    "SELECT hostname, host_key, string_agg(DISTINCT tpm_model, ', '),"
    " string_agg(DISTINCT kernel, ', '), count(*), " BOOTS ","
    " to_char(max(pushed_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
    " FROM " FLEET " GROUP BY 1, 2 ORDER BY 1, 2";

int pg_fleet_hosts(PGconn *c, struct pg_fleet_host **out, size_t *n, char *err, size_t errlen)
{
	int oom = 0;
	*out = NULL;
	*n = 0;
	PGresult *r = query(c, q_hosts, err, errlen);
	if (!r)
		return -EIO;
	struct pg_fleet_host *h = calloc((size_t)PQntuples(r) + 1, sizeof *h);
	if (!h) {
		PQclear(r);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < PQntuples(r); i++) {
		h[i].hostname = dup_val(r, i, 0, &oom);
		h[i].host_key = dup_val(r, i, 1, &oom);
		h[i].models = dup_val(r, i, 2, &oom);
		h[i].kernels = dup_val(r, i, 3, &oom);
		h[i].traces = (long long)num(r, i, 4);
		h[i].boots = (long long)num(r, i, 5);
		h[i].last_pushed = dup_val(r, i, 6, &oom);
	}
	*n = (size_t)PQntuples(r);
	*out = h;
	PQclear(r);
	if (oom) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

void pg_fleet_hosts_free(struct pg_fleet_host *h, size_t n)
{
	for (size_t i = 0; h && i < n; i++) {
		free(h[i].hostname);
		free(h[i].host_key);
		free(h[i].models);
		free(h[i].kernels);
		free(h[i].last_pushed);
	}
	free(h);
}
