/* The rows of 'tpmtrace list' (db/trace_list.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/json.h"
#include "db/stats.h"
#include "db/trace_list.h"

/* A copy of column i's text, NULL for NULL; *oom set when the copy failed. */
static char *col_text(sqlite3_stmt *st, int i, int *oom)
{
	const char *t = (const char *)sqlite3_column_text(st, i);
	char *c = t ? strdup(t) : NULL;
	if (t && !c)
		*oom = 1;
	return c;
}

static int read_row(sqlite3_stmt *st, struct db_trace_row *r)
{
	int oom = 0;
	memset(r, 0, sizeof *r);
	r->id = sqlite3_column_int64(st, 0);
	r->kind = col_text(st, 1, &oom);
	r->status = col_text(st, 2, &oom);
	r->started_at = col_text(st, 3, &oom);
	r->commands = sqlite3_column_int64(st, 4);
	r->dropped = sqlite3_column_int64(st, 5);
	r->name = col_text(st, 6, &oom);
	r->source = col_text(st, 7, &oom);
	r->has_parent = sqlite3_column_type(st, 8) != SQLITE_NULL;
	r->parent_id = sqlite3_column_int64(st, 8);
	r->policy = col_text(st, 9, &oom);
	r->has_tpm_ns = sqlite3_column_type(st, 10) != SQLITE_NULL;
	r->tpm_ns = sqlite3_column_int64(st, 10);
	int k = db_trace_kind_by_name((const char *)sqlite3_column_text(st, 11));
	r->tkind = k < 0 ? DB_TRACE_KIND_UNFINISHED : (enum db_trace_kind)k;
	r->emulated = col_text(st, 12, &oom);
	return oom ? -ENOMEM : 0;
}

static void free_row(struct db_trace_row *r)
{
	free(r->kind);
	free(r->status);
	free(r->started_at);
	free(r->name);
	free(r->source);
	free(r->policy);
	free(r->emulated);
}

int db_trace_list(sqlite3 *db, struct db_trace_list *l, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int src, ret = 0;
	memset(l, 0, sizeof *l);
	char sql[4096];
	/* The command count and TPM time of db/stats.h: the clients'. */
	snprintf(sql, sizeof sql,
		 "%sSELECT t.id, t.kind, t.status, t.started_at, "
		 "(SELECT count(*) FROM command c WHERE c.trace_id=t.id AND c." DB_CLIENT_CMDS
		 "), t.dropped, t.name, t.source, t.parent_id, t.policy, "
		 "(SELECT sum(latency_ns) FROM command c WHERE c.trace_id=t.id AND "
		 "c." DB_CLIENT_CMDS "), k.kind, t.emulated "
		 "FROM trace t LEFT JOIN trace_kind k ON k.trace_id = t.id ORDER BY t.id",
		 db_trace_kind_with());
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		if (l->n == cap) {
			size_t nc = cap ? 2 * cap : 16;
			struct db_trace_row *p = realloc(l->rows, nc * sizeof *p);
			if (!p)
				break;
			l->rows = p;
			cap = nc;
		}
		if (read_row(st, &l->rows[l->n])) {
			free_row(&l->rows[l->n]);
			break;
		}
		l->n++;
	}
	if (src == SQLITE_ROW) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
	} else if (src != SQLITE_DONE) {
		l->incomplete = 1;
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	return ret;
}

void db_trace_list_free(struct db_trace_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free_row(&l->rows[i]);
	free(l->rows);
	memset(l, 0, sizeof *l);
}

int db_trace_list_json(FILE *f, const struct db_trace_list *l)
{
	struct json_w w;
	json_init_file(&w, f, JSON_COMPACT);
	json_begin_object(&w);
	json_kint(&w, "version", 1);
	json_key(&w, "traces");
	json_begin_array(&w);
	for (size_t n = 0; n < l->n; n++) {
		const struct db_trace_row *r = &l->rows[n];
		json_begin_object(&w);
		json_kint(&w, "id", r->id);
		json_kstr(&w, "kind", r->kind);
		json_kstr(&w, "trace_kind", db_trace_kind_rule(r->tkind)->name);
		json_kstr(&w, "status", r->status);
		json_kstr(&w, "started_at", r->started_at);
		json_kint(&w, "commands", r->commands);
		if (r->has_tpm_ns)
			json_kint(&w, "tpm_ns", r->tpm_ns);
		else
			json_knull(&w, "tpm_ns"); /* no timing */
		json_kint(&w, "dropped", r->dropped);
		json_kstr(&w, "name", r->name);
		json_kstr(&w, "source", r->source);
		if (!r->has_parent)
			json_knull(&w, "parent_id");
		else
			json_kint(&w, "parent_id", r->parent_id);
		json_kstr(&w, "policy", r->policy);
		json_kstr(&w, "emulated", r->emulated);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
	json_newline(&w);
	return json_done(&w);
}
