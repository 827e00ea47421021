/* COPY in text format from SQLite rows. */
#include "db/pg/pg_copy.h"
#include "db/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *pg_fault_stall_file;

/* The COPY data goes in messages of about this many bytes. The server
 * reads a whole CopyData message before it parses any row of it, and a
 * socket buffer holds ~200 KiB: with 256 KiB messages the pusher and the
 * server took turns (the big trace of tools/bench push in 1.43-2.02 s,
 * alternated rounds, against 1.10-1.73 s with 32 KiB and 1.25-1.89 s with
 * 64 KiB); with 32 KiB the next message is built while the server parses
 * the last. */
#define COPY_CHUNK (32u << 10)

struct cbuf {
	char *p;
	size_t n, cap;
	int oom;
};

static char *cb_room(struct cbuf *b, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 2 * COPY_CHUNK;
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

static void cb_bytes(struct cbuf *b, const void *p, size_t n)
{
	char *o = cb_room(b, n);
	if (o && n) {
		memcpy(o, p, n);
		b->n += n;
	}
}

static void cb_be(struct cbuf *b, uint64_t v, int bytes)
{
	char *o = cb_room(b, (size_t)bytes);
	if (!o)
		return;
	for (int i = 0; i < bytes; i++)
		o[i] = (char)(v >> (8 * (bytes - 1 - i)));
	b->n += (size_t)bytes;
}

static void cb_be_at(char *o, size_t v)
{
	for (int i = 0; i < 4; i++)
		o[i] = (char)(v >> (8 * (3 - i)));
}

size_t pg_text_convert(const unsigned char *s, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t k = s[i] && s[i] != '\\' ? db_utf8_seq(s + i, n - i) : 0;
		if (k) {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		} else if (s[i] == '\\') {
			out[o++] = '\\';
			out[o++] = '\\';
			i++;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[s[i] >> 4];
			out[o++] = hex[s[i++] & 15];
		}
	}
	return o;
}

/* One row in COPY's binary format (PostgreSQL docs, COPY, "Binary Format"):
 * a 16-bit field count, then each field as a 32-bit length (-1: NULL) and
 * its bytes; bigint as 8 bytes big-endian, bytea as it is, text as it is
 * when PostgreSQL takes it, else converted (pg_text_convert).
 * types: one letter per column of st, i bigint, t text, b bytea. Returns 0,
 * or the 1-based column whose value is no integer for a bigint. */
static int cb_row(struct cbuf *b, int64_t trace_id, sqlite3_stmt *st, const char *types)
{
	int n = sqlite3_column_count(st);
	cb_be(b, (uint64_t)(n + 1), 2);
	cb_be(b, 8, 4);
	cb_be(b, (uint64_t)trace_id, 8);
	for (int i = 0; i < n; i++) {
		int t = sqlite3_column_type(st, i);
		if (t == SQLITE_NULL) {
			cb_be(b, 0xFFFFFFFFu, 4);
		} else if (types[i] == 'i') {
			/* A REAL holding an integer goes as that integer. */
			double d = t == SQLITE_FLOAT ? sqlite3_column_double(st, i) : 0;
			if (t != SQLITE_INTEGER && !(t == SQLITE_FLOAT && d == (double)(int64_t)d))
				return i + 1;
			cb_be(b, 8, 4);
			cb_be(b, (uint64_t)sqlite3_column_int64(st, i), 8);
		} else if (types[i] == 'b') {
			const void *p = sqlite3_column_blob(st, i);
			size_t len = (size_t)sqlite3_column_bytes(st, i);
			cb_be(b, len, 4);
			cb_bytes(b, p, len);
		} else {
			const unsigned char *p = sqlite3_column_text(st, i);
			size_t len = (size_t)sqlite3_column_bytes(st, i);
			char *o;
			if (db_utf8_text_ok(p, len)) {
				cb_be(b, len, 4);
				cb_bytes(b, p, len);
			} else if ((o = cb_room(b, 4 + 4 * len))) {
				/* The length, known once converted, before the text. */
				size_t m = pg_text_convert(p, len, o + 4);
				b->n += 4;
				cb_be_at(o, m);
				b->n += m;
			}
		}
	}
	return 0;
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

/* Starts the COPY and writes the binary header (once, at the first row). */
static int copy_start(PGconn *c, const char *into, const char *what, struct cbuf *b, char *err,
		      size_t errlen)
{
	char sql[512];
	snprintf(sql, sizeof sql, "COPY %s FROM STDIN (FORMAT binary)", into);
	PGresult *r = PQexec(c, sql);
	if (!r || PQresultStatus(r) != PGRES_COPY_IN) {
		pg_res_err(c, r, what, err, errlen);
		PQclear(r);
		return -EIO;
	}
	PQclear(r);
	cb_bytes(b, "PGCOPY\n\377\r\n\0", 11);
	cb_be(b, 0, 4); /* flags */
	cb_be(b, 0, 4); /* header extension */
	return 0;
}

int pg_copy_traces(PGconn *c, const char *into, const char *types, const int64_t *server_id,
		   const int64_t *local_id, size_t n, sqlite3_stmt *st, pg_copy_row_fn *on_row,
		   void *ctx, uint64_t *rows, char *err, size_t errlen)
{
	struct cbuf b = {0};
	char what[128];
	int rc = 0, started = 0, src = SQLITE_DONE;
	/* The hook holds the COPY of command rows, the bulk of a trace. */
	int stalled = !pg_fault_stall_file || strncmp(into, "command ", 8);
	*rows = 0;
	snprintf(what, sizeof what, "COPY %.*s", (int)strcspn(into, " ("), into);
	for (size_t t = 0; t < n && !rc; t++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, local_id[t]);
		for (src = sqlite3_step(st); src == SQLITE_ROW && !rc; src = sqlite3_step(st)) {
			if (!started++ && (rc = copy_start(c, into, what, &b, err, errlen)))
				return rc;
			int col = cb_row(&b, server_id[t], st, types);
			if (col) {
				snprintf(err, errlen,
					 "%s: the file's column %s holds no integer (row %llu)",
					 what, sqlite3_column_name(st, col - 1),
					 (unsigned long long)*rows + 1);
				rc = -EINVAL;
				break;
			}
			(*rows)++;
			if (on_row)
				on_row(ctx, t, st);
			if (b.n >= COPY_CHUNK || b.oom) {
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
	}
	if (!started) { /* no rows: nothing was sent */
		free(b.p);
		return rc;
	}
	cb_be(&b, 0xFFFFu, 2); /* trailer */
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
	PGresult *r;
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
