/* COPY in text format from SQLite rows. */
#include "db/pg/pg_copy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *pg_fault_stall_file;

struct cbuf {
	char *p;
	size_t n, cap;
	int oom;
};

static char *cb_room(struct cbuf *b, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 18;
		while (cap < b->n + n)
			cap *= 2;
		char *np = realloc(b->p, cap);
		if (!np) {
			b->oom = 1;
			return NULL;
		}
		b->p = np;
		b->cap = cap;
	}
	return b->p + b->n;
}

/* Text with COPY's escapes: backslash, newline, carriage return, tab. */
static void cb_text(struct cbuf *b, const unsigned char *s, size_t len)
{
	char *o = cb_room(b, 2 * len);
	if (!o)
		return;
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = s[i];
		if (ch == '\\' || ch == '\n' || ch == '\r' || ch == '\t') {
			*o++ = '\\';
			*o++ = ch == '\n' ? 'n' : ch == '\r' ? 'r' : ch == '\t' ? 't' : '\\';
		} else {
			*o++ = (char)ch;
		}
	}
	b->n = (size_t)(o - b->p);
}

/* bytea in hex form, its backslash escaped for COPY: \\x0102... */
static void cb_blob(struct cbuf *b, const unsigned char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char *o = cb_room(b, 2 * len + 3);
	if (!o)
		return;
	*o++ = '\\';
	*o++ = '\\';
	*o++ = 'x';
	for (size_t i = 0; i < len; i++) {
		*o++ = hex[s[i] >> 4];
		*o++ = hex[s[i] & 15];
	}
	b->n = (size_t)(o - b->p);
}

static void cb_str(struct cbuf *b, const char *s)
{
	size_t l = strlen(s);
	char *o = cb_room(b, l);
	if (o) {
		memcpy(o, s, l);
		b->n += l;
	}
}

static void cb_row(struct cbuf *b, int64_t trace_id, sqlite3_stmt *st)
{
	char num[32];
	snprintf(num, sizeof num, "%lld", (long long)trace_id);
	cb_str(b, num);
	for (int i = 0, n = sqlite3_column_count(st); i < n; i++) {
		cb_str(b, "\t");
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_NULL:
			cb_str(b, "\\N");
			break;
		case SQLITE_INTEGER:
			snprintf(num, sizeof num, "%lld", (long long)sqlite3_column_int64(st, i));
			cb_str(b, num);
			break;
		case SQLITE_FLOAT:
			snprintf(num, sizeof num, "%.17g", sqlite3_column_double(st, i));
			cb_str(b, num);
			break;
		case SQLITE_BLOB:
			cb_blob(b, sqlite3_column_blob(st, i), (size_t)sqlite3_column_bytes(st, i));
			break;
		default:
			cb_text(b, sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
		}
	}
	cb_str(b, "\n");
}

void pg_res_err(PGconn *c, PGresult *r, const char *what, char *err, size_t errlen)
{
	char m[512];
	snprintf(m, sizeof m, "%s", r ? PQresultErrorMessage(r) : "");
	if (!m[0])
		snprintf(m, sizeof m, "%s", PQerrorMessage(c));
	m[strcspn(m, "\n")] = 0;
	if (!m[0])
		snprintf(m, sizeof m, "the connection was lost");
	snprintf(err, errlen, "%s: %s", what, m);
}

/* The test hook: the rows sent so far are on the server's side (flushed);
 * wait while the file the test removes exists. */
static void stall(PGconn *c)
{
	int fd = open(pg_fault_stall_file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	close(fd);
	PQflush(c);
	struct timespec ts = {0, 20 * 1000 * 1000};
	for (int i = 0; i < 3000 && access(pg_fault_stall_file, F_OK) == 0; i++)
		nanosleep(&ts, NULL);
}

static int cb_send(PGconn *c, struct cbuf *b, const char *what, char *err, size_t errlen)
{
	if (b->oom) {
		snprintf(err, errlen, "%s: out of memory", what);
		return -ENOMEM;
	}
	if (b->n && PQputCopyData(c, b->p, (int)b->n) != 1) {
		pg_res_err(c, NULL, what, err, errlen);
		return -EIO;
	}
	b->n = 0;
	return 0;
}

int pg_copy_rows(PGconn *c, const char *into, int64_t trace_id, sqlite3_stmt *st, uint64_t *rows,
		 char *err, size_t errlen)
{
	struct cbuf b = {0};
	char sql[512], what[128];
	int src = sqlite3_step(st), rc = 0;
	/* The hook holds the COPY of command rows, the bulk of a trace. */
	int stalled = !pg_fault_stall_file || strncmp(into, "command ", 8);
	*rows = 0;
	snprintf(what, sizeof what, "COPY %.*s", (int)strcspn(into, " ("), into);
	if (src != SQLITE_ROW) {
		if (src != SQLITE_DONE)
			snprintf(err, errlen, "reading the rows for %s: %s", what,
				 sqlite3_errmsg(sqlite3_db_handle(st)));
		return src == SQLITE_DONE ? 0 : -EIO;
	}
	snprintf(sql, sizeof sql, "COPY %s FROM STDIN", into);
	PGresult *r = PQexec(c, sql);
	if (!r || PQresultStatus(r) != PGRES_COPY_IN) {
		pg_res_err(c, r, what, err, errlen);
		PQclear(r);
		return -EIO;
	}
	PQclear(r);
	for (; src == SQLITE_ROW && !rc; src = sqlite3_step(st)) {
		cb_row(&b, trace_id, st);
		(*rows)++;
		if (b.n >= 1 << 18 || b.oom) {
			rc = cb_send(c, &b, what, err, errlen);
			if (!rc && !stalled++)
				stall(c);
		}
	}
	if (!rc && src != SQLITE_DONE) {
		snprintf(err, errlen, "reading the rows for %s: %s", what,
			 sqlite3_errmsg(sqlite3_db_handle(st)));
		rc = -EIO;
	}
	if (!rc)
		rc = cb_send(c, &b, what, err, errlen);
	if (!rc && !stalled++)
		stall(c);
	free(b.p);
	/* An error ends the COPY with a message: the server rolls it back. */
	if (PQputCopyEnd(c, rc ? "tpmtrace push stopped" : NULL) != 1 && !rc) {
		pg_res_err(c, NULL, what, err, errlen);
		rc = -EIO;
	}
	while ((r = PQgetResult(c))) {
		if (PQresultStatus(r) != PGRES_COMMAND_OK && !rc) {
			pg_res_err(c, r, what, err, errlen);
			rc = -EIO;
		}
		PQclear(r);
		if (PQstatus(c) == CONNECTION_BAD)
			break;
	}
	return rc;
}
