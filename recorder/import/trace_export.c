/* export's table formats (CSV and JSON lines of a trace's commands or events)
 * and the one entry point that also dispatches to the pcapng writer. */
#include "recorder/import/trace_export.h"

#include <errno.h>
#include <string.h>

#include "db/json.h"
#include "recorder/import/pcapng_write.h"

static const char rows_sql[] =
    "SELECT c.trace_id, c.seq, c.t_submit_ns, c.t_done_ns, c.latency_ns, c.cc,"
    " tpm_cc_name(c.cc) AS cc_name, c.locality, c.tag, c.cmd_size, c.rsp_size, c.rc,"
    " tpm_rc_text(c.rc) AS rc_text, c.handle1, c.handle2, c.handle3, c.rsp_handle,"
    " c.n_sessions, c.sess_handle, c.sess_attrs, c.auth_kind,"
    " tpm_auth_name(c.auth_kind) AS auth,"
    " c.pcr, c.client_id, coalesce(cl.peer, cl.comm) AS client, c.flags, c.malformed"
    " FROM command c LEFT JOIN client cl ON cl.trace_id = c.trace_id AND cl.id = c.client_id"
    " WHERE c.trace_id = ? ORDER BY c.seq";

/* Events (record start/stop, backend lost/back, IMA and TCG log lines, replay
 * notes...) share the commands' seq numbering, so the two exports merge in
 * order on seq. */
static const char events_sql[] =
    "SELECT e.trace_id, e.seq, e.t_ns, e.kind, e.detail, e.client_id,"
    " coalesce(cl.peer, cl.comm) AS client"
    " FROM event e LEFT JOIN client cl ON cl.trace_id = e.trace_id AND cl.id = e.client_id"
    " WHERE e.trace_id = ? ORDER BY e.seq";

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* One result row as a JSON object on a line of its own: the columns as keys,
 * integers as numbers, NULL as null, anything else as a string. */
static void export_row_json(sqlite3_stmt *st, int n, FILE *f)
{
	struct json_w w;
	json_init_file(&w, f, JSON_SPACED);
	json_begin_object(&w);
	for (int i = 0; i < n; i++) {
		int t = sqlite3_column_type(st, i);
		json_key(&w, sqlite3_column_name(st, i));
		if (t == SQLITE_INTEGER)
			json_int(&w, sqlite3_column_int64(st, i));
		else if (t == SQLITE_NULL)
			json_null(&w);
		else {
			/* the text first, then its length (SQLite's order) */
			const char *text = (const char *)sqlite3_column_text(st, i);
			json_strn(&w, text, (size_t)sqlite3_column_bytes(st, i));
		}
	}
	json_end_object(&w);
	json_newline(&w);
}

/* One result row as CSV or as a JSON object, with its line end. */
static void export_row(sqlite3_stmt *st, int n, FILE *f, int json)
{
	if (json) {
		export_row_json(st, n, f);
		return;
	}
	for (int i = 0; i < n; i++) {
		int t = sqlite3_column_type(st, i);
		if (i)
			fputc(',', f);
		if (t == SQLITE_INTEGER)
			fprintf(f, "%lld", (long long)sqlite3_column_int64(st, i));
		else if (t != SQLITE_NULL)
			csv_field(f, (const char *)sqlite3_column_text(st, i));
	}
	fputs("\n", f);
}

/* The rows of sql (one trace, bound as its parameter) as CSV with a header
 * line, or as JSON lines. */
static int export_rows(sqlite3 *db, const char *sql, int64_t trace, FILE *f, int json,
		       uint64_t *count, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, trace);
	int n = sqlite3_column_count(st);
	if (!json) {
		for (int i = 0; i < n; i++)
			fprintf(f, "%s%s", i ? "," : "", sqlite3_column_name(st, i));
		fputc('\n', f);
	}
	*count = 0;
	int src;
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		export_row(st, n, f, json);
		(*count)++;
	}
	if (src != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		rc = -EIO;
	}
	sqlite3_finalize(st);
	if (!rc && ferror(f)) {
		errno = 0; /* the failed write's error, kept in the buffer */
		fflush(f);
		snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
		rc = -EIO;
	}
	return rc;
}

const char *import_trace_export_unit(enum trace_export_fmt fmt)
{
	switch (fmt) {
	case TRACE_EXPORT_PCAPNG:
		return "packets";
	case TRACE_EXPORT_CSV:
	case TRACE_EXPORT_JSONL:
		return "rows";
	default:
		return "events";
	}
}

int import_trace_export(sqlite3 *db, int64_t trace, enum trace_export_fmt fmt, FILE *f,
			const struct trace_export_opts *o, uint64_t *count, uint64_t *left_out,
			char *err, size_t errlen)
{
	*count = 0;
	*left_out = 0;
	switch (fmt) {
	case TRACE_EXPORT_PCAPNG:
		return import_pcapng_export(db, trace, f, o->link, o->port, count, left_out, err,
					    errlen);
	case TRACE_EXPORT_CSV:
	case TRACE_EXPORT_JSONL:
		return export_rows(db, rows_sql, trace, f, fmt == TRACE_EXPORT_JSONL, count, err,
				   errlen);
	case TRACE_EXPORT_EVENTS_CSV:
	case TRACE_EXPORT_EVENTS_JSONL:
		return export_rows(db, events_sql, trace, f, fmt == TRACE_EXPORT_EVENTS_JSONL,
				   count, err, errlen);
	}
	snprintf(err, errlen, "unknown export format %d", (int)fmt);
	return -EINVAL;
}
