/* The findings of 'tpmtrace verify' (db/verify.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/json.h"
#include "db/verify.h"
#include "db/stats.h"

#include "db/db.h"

static void integrity_check(sqlite3 *db, char *out, size_t len)
{
	sqlite3_stmt *st;
	out[0] = 0;
	if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL) != SQLITE_OK) {
		snprintf(out, len, "%s", sqlite3_errmsg(db));
		return;
	}
	int src;
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		size_t l = strlen(out);
		snprintf(out + l, len - l, "%s%s", l ? "; " : "",
			 (const char *)sqlite3_column_text(st, 0));
	}
	if (src != SQLITE_DONE && !out[0])
		snprintf(out, len, "%s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
}

/* The verdict on one trace row of the query below. */
static void judge(sqlite3_stmt *st, struct db_verify_trace *t)
{
	long long want_c = sqlite3_column_int64(st, 2), want_e = sqlite3_column_int64(st, 3),
		  have_c = sqlite3_column_int64(st, 5), have_e = sqlite3_column_int64(st, 6),
		  dup = sqlite3_column_int64(st, 7), badlat = sqlite3_column_int64(st, 8),
		  maxseq = sqlite3_column_int64(st, 9);
	t->id = sqlite3_column_int64(st, 0);
	t->own = sqlite3_column_int64(st, 10);
	t->commands = have_c - t->own;
	t->events = have_e;
	t->dropped = sqlite3_column_int64(st, 4);
	const char *kind = (const char *)sqlite3_column_text(st, 12);
	t->unfinished = sqlite3_column_int(st, 11);
	snprintf(t->detail, sizeof t->detail, "ok");
	if (dup) {
		snprintf(t->detail, sizeof t->detail, "%lld duplicate sequence numbers", dup);
		t->bad = 1;
	} else if (badlat) {
		snprintf(t->detail, sizeof t->detail, "%lld latencies differ from done - submit",
			 badlat);
		t->bad = 1;
	} else if (!t->unfinished && (want_c != have_c || want_e != have_e)) {
		snprintf(t->detail, sizeof t->detail,
			 "stored %lld commands and %lld events, but %lld and %lld were "
			 "recorded",
			 have_c, have_e, want_c, want_e);
		t->bad = 1;
	} else if (t->unfinished && kind && !strcmp(kind, "import")) {
		/* An import is one transaction (all or nothing): one left
		 * unfinished (by a tpmtrace before that) is a part of a file. */
		snprintf(t->detail, sizeof t->detail,
			 "unfinished import: %lld commands and %lld events of a file whose "
			 "import never ended (an import is all of a file or nothing)",
			 have_c, have_e);
		t->bad = 1;
	} else if (t->unfinished) {
		snprintf(t->detail, sizeof t->detail,
			 "unfinished: the recorder did not close this trace; %lld commands "
			 "and %lld events were committed (last sequence number %lld)",
			 have_c, have_e, maxseq);
	}
}

static const char q_traces[] =
    "SELECT t.id, t.status, t.commands, t.events, t.dropped,"
    " (SELECT count(*) FROM command c WHERE c.trace_id=t.id),"
    " (SELECT count(*) FROM event e WHERE e.trace_id=t.id),"
    " (SELECT count(*) - count(DISTINCT seq) FROM (SELECT seq FROM command WHERE"
    "   trace_id=t.id UNION ALL SELECT seq FROM event WHERE trace_id=t.id)),"
    " (SELECT count(*) FROM command c WHERE c.trace_id=t.id AND c.latency_ns IS NOT"
    "   NULL AND c.latency_ns != c.t_done_ns - c.t_submit_ns),"
    " (SELECT max(seq) FROM (SELECT seq FROM command WHERE trace_id=t.id UNION ALL"
    "   SELECT seq FROM event WHERE trace_id=t.id)),"
    " (SELECT count(*) FROM command c WHERE c.trace_id=t.id AND NOT c." DB_CLIENT_CMDS "),"
    /* not closed by its writer (status 'recording'): its counts were never
     * written, so they are not compared; an 'incomplete' trace was closed */
    " t.status = 'recording', t.kind"
    " FROM trace t ORDER BY t.id";

int db_verify(sqlite3 *db, struct db_verify *v, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int src = SQLITE_DONE, ret = 0;
	memset(v, 0, sizeof *v);
	integrity_check(db, v->integrity, sizeof v->integrity);
	if (strcmp(v->integrity, "ok"))
		v->problems++;
	if (sqlite3_prepare_v2(db, q_traces, -1, &st, NULL) != SQLITE_OK) {
		snprintf(v->query_error, sizeof v->query_error, "%s", sqlite3_errmsg(db));
		st = NULL;
	}
	while (st && (src = sqlite3_step(st)) == SQLITE_ROW) {
		if (v->n_traces == cap) {
			size_t nc = cap ? 2 * cap : 16;
			struct db_verify_trace *p = realloc(v->traces, nc * sizeof *p);
			if (!p)
				goto nomem;
			v->traces = p;
			cap = nc;
		}
		struct db_verify_trace *t = &v->traces[v->n_traces];
		const char *status = (const char *)sqlite3_column_text(st, 1);
		memset(t, 0, sizeof *t);
		if (status && !(t->status = strdup(status)))
			goto nomem;
		judge(st, t);
		v->problems += t->bad;
		v->n_traces++;
	}
	if (st && src != SQLITE_DONE)
		snprintf(v->query_error, sizeof v->query_error, "%s", sqlite3_errmsg(db));
	if (v->query_error[0])
		v->problems++;
	sqlite3_finalize(st);
	return ret;
nomem:
	snprintf(err, errlen, "out of memory");
	sqlite3_finalize(st);
	return -ENOMEM;
}

void db_verify_free(struct db_verify *v)
{
	for (size_t i = 0; i < v->n_traces; i++)
		free(v->traces[i].status);
	free(v->traces);
	memset(v, 0, sizeof *v);
}

int db_verify_json(FILE *f, const struct db_verify *v)
{
	struct json_w w;
	json_init_file(&w, f, JSON_COMPACT);
	json_begin_object(&w);
	json_kint(&w, "version", 1);
	json_kstr(&w, "integrity", v->integrity);
	json_key(&w, "traces");
	json_begin_array(&w);
	for (size_t n = 0; n < v->n_traces; n++) {
		const struct db_verify_trace *t = &v->traces[n];
		json_begin_object(&w);
		json_kint(&w, "id", t->id);
		json_kstr(&w, "status", t->status);
		json_kint(&w, "commands", t->commands);
		json_kint(&w, "tpmtrace_commands", t->own);
		json_kint(&w, "events", t->events);
		json_kint(&w, "dropped", t->dropped);
		json_kbool(&w, "ok", !t->bad);
		json_kbool(&w, "unfinished", t->unfinished);
		json_kstr(&w, "detail", t->detail);
		json_end_object(&w);
	}
	json_end_array(&w);
	if (v->query_error[0])
		json_kstr(&w, "error", v->query_error);
	json_kint(&w, "problems", v->problems);
	json_end_object(&w);
	json_newline(&w);
	return json_done(&w);
}

int db_verify_json_error(FILE *f, const char *err)
{
	struct json_w w;
	json_init_file(&w, f, JSON_COMPACT);
	json_begin_object(&w);
	json_kint(&w, "version", 1);
	json_kstr(&w, "error", err);
	json_knull(&w, "integrity");
	json_key(&w, "traces");
	json_begin_array(&w);
	json_end_array(&w);
	json_kint(&w, "problems", 1);
	json_end_object(&w);
	json_newline(&w);
	return json_done(&w);
}
