/* The writer's INSERTs (db/writer_rows.h): db_wrows_prepare, db_wrows_add, db_wrows_flush,
 * db_wrows_drop and db_wrows_finalize; each parameter bound through a record of what it holds
 * (bind_int, bind_null, bind_other), so that a value the statement has already is not bound again.
 */
#include "db/writer_rows.h"

#include <stdlib.h>
#include <string.h>

#include "model/tpm/decode.h"

#define CMD_COLUMNS 25
#define EV_COLUMNS  6

static const char ins_cmd_sql[] =
    "INSERT INTO command (trace_id, seq, t_submit_ns, t_done_ns, latency_ns, cc, locality,"
    " tag, cmd_size, rsp_size, rc, handle1, handle2, handle3, rsp_handle, n_sessions,"
    " sess_handle, sess_attrs, auth_kind, pcr, client_id, flags, malformed, cmd, rsp)"
    " VALUES ";
static const char ins_ev_sql[] =
    "INSERT INTO event (trace_id, seq, t_ns, kind, detail, client_id) VALUES ";
static const char ins_client_sql[] =
    "INSERT OR REPLACE INTO client (trace_id, id, pid, uid, comm, peer, first_ns)"
    " VALUES (?,?,?,?,?,?,?)";

/* Parameter i (from 1) of s holds the integer v. */
static void bind_int(const struct wrows_stmt *s, int i, uint64_t v)
{
	struct wrows_bound *b = &s->b[i - 1];
	if (b->kind == 2 && b->v == (int64_t)v)
		return;
	b->kind = 2;
	b->v = (int64_t)v;
	sqlite3_bind_int64(s->st, i, (int64_t)v);
}

static void bind_null(const struct wrows_stmt *s, int i)
{
	struct wrows_bound *b = &s->b[i - 1];
	if (b->kind == 1)
		return;
	b->kind = 1;
	sqlite3_bind_null(s->st, i);
}

/* v, or NULL when the record does not have it. */
static void bind_opt(const struct wrows_stmt *s, int i, int have, uint64_t v)
{
	if (have)
		bind_int(s, i, v);
	else
		bind_null(s, i);
}

/* Parameter i is about to be bound to a text or a blob (always bound: its bytes are the
 * record's, in the queue). */
static sqlite3_stmt *bind_other(const struct wrows_stmt *s, int i)
{
	s->b[i - 1].kind = 0;
	return s->st;
}

static void bind_text(const struct wrows_stmt *s, int i, const char *text)
{
	if (text)
		sqlite3_bind_text(bind_other(s, i), i, text, -1, SQLITE_STATIC);
	else
		bind_null(s, i);
}

static void bind_blob(const struct wrows_stmt *s, int i, const uint8_t *p, uint32_t len)
{
	if (len)
		sqlite3_bind_blob(bind_other(s, i), i, p, (int)len, SQLITE_STATIC);
	else
		bind_null(s, i);
}

/* Binds a command row to parameters i .. i + CMD_COLUMNS - 1 of s. */
static void bind_command(const struct wrows *x, const struct wrows_stmt *s, int i,
			 const struct rec *r)
{
	/* ftrace rows (no_bytes) know no tag, sizes or rc; logs carry no
	 * timing, so an ordinal stands for time and there is no latency. */
	int bytes = !r->no_bytes, rsp = r->has_rsp;
	int latency = rsp && !((r->flags & REC_F_SYNTHETIC_TIME) && r->t_done == r->t_submit);
	bind_int(s, i++, (uint64_t)x->trace_id);
	bind_int(s, i++, r->seq);
	bind_int(s, i++, r->t_submit);
	bind_opt(s, i++, rsp, r->t_done);
	bind_opt(s, i++, latency, r->t_done - r->t_submit);
	bind_int(s, i++, r->cc);
	bind_int(s, i++, r->locality);
	bind_opt(s, i++, bytes, r->tag);
	bind_opt(s, i++, bytes, r->cmd_size);
	bind_opt(s, i++, bytes && rsp, r->rsp_size);
	bind_opt(s, i++, bytes && rsp, r->rc);
	for (int h = 0; h < 3; h++)
		bind_opt(s, i++, h < r->n_handles, r->handles[h]);
	bind_opt(s, i++, r->has_rsp_handle, r->rsp_handle);
	bind_int(s, i++, r->n_sessions);
	bind_opt(s, i++, r->n_sessions, r->sess_handle);
	bind_opt(s, i++, r->n_sessions, r->sess_attrs);
	bind_int(s, i++, r->auth_kind);
	bind_opt(s, i++, r->pcr >= 0, (uint64_t)r->pcr);
	bind_int(s, i++, r->client_id);
	bind_int(s, i++, r->flags);
	bind_text(s, i++, r->malformed ? tpm_malformed_str(r->malformed) : NULL);
	bind_blob(s, i++, r->payload, r->cmd_len);
	bind_blob(s, i++, r->payload + r->cmd_len, r->rsp_len);
}

static int run_insert(sqlite3_stmt *st) /* a bound INSERT: 0 or SQLite's error code */
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : rc;
}

/* Two NUL-terminated strings in the payload. */
static const char *second_str(const struct rec *r)
{
	size_t n = strnlen((const char *)r->payload, r->cmd_len);
	return n + 1 < r->cmd_len ? (const char *)r->payload + n + 1 : "";
}

/* Binds an event row to parameters i .. i + EV_COLUMNS - 1 of s. */
static void bind_event(const struct wrows *x, const struct wrows_stmt *s, int i,
		       const struct rec *r)
{
	const char *detail = second_str(r);
	bind_int(s, i, (uint64_t)x->trace_id);
	bind_int(s, i + 1, r->seq);
	bind_int(s, i + 2, r->t_submit);
	bind_text(s, i + 3, (const char *)r->payload);
	bind_text(s, i + 4, *detail ? detail : NULL);
	bind_int(s, i + 5, r->client_id);
}

/* Stores the pending rows: one INSERT for WROWS_PER_INSERT, else one a row. */
static int flush_rows(struct wrows *x, struct wrows_pending *p, int cmd)
{
	int rc = 0, cols = cmd ? CMD_COLUMNS : EV_COLUMNS;
	void (*bind)(const struct wrows *, const struct wrows_stmt *, int, const struct rec *) =
	    cmd ? bind_command : bind_event;
	if (p->n == WROWS_PER_INSERT) {
		const struct wrows_stmt *s = cmd ? &x->cmd_n : &x->ev_n;
		for (int k = 0; k < p->n; k++)
			bind(x, s, 1 + k * cols, p->r[k]);
		rc = run_insert(s->st);
	} else {
		const struct wrows_stmt *s = cmd ? &x->cmd : &x->ev;
		for (int k = 0; k < p->n && !rc; k++) {
			bind(x, s, 1, p->r[k]);
			rc = run_insert(s->st);
		}
	}
	p->n = 0;
	return rc;
}

/* Queues a row; stores its table's pending rows once they fill an INSERT. */
static int add_row(struct wrows *x, struct wrows_pending *p, int cmd, const struct rec *r)
{
	p->r[p->n++] = r;
	return p->n == WROWS_PER_INSERT ? flush_rows(x, p, cmd) : 0;
}

static int insert_client(struct wrows *x, const struct rec *r)
{
	const struct wrows_stmt *s = &x->client;
	const char *peer = second_str(r);
	bind_int(s, 1, (uint64_t)x->trace_id);
	bind_int(s, 2, r->client_id);
	bind_opt(s, 3, r->pid > 0, (uint64_t)r->pid);
	bind_opt(s, 4, r->uid >= 0 && r->pid > 0, (uint64_t)r->uid);
	bind_text(s, 5, *(const char *)r->payload ? (const char *)r->payload : NULL);
	bind_text(s, 6, *peer ? peer : NULL);
	bind_int(s, 7, r->t_submit);
	return run_insert(s->st);
}

int db_wrows_add(struct wrows *x, const struct rec *r)
{
	switch (r->type) {
	case REC_COMMAND:
		return add_row(x, &x->pc, 1, r);
	case REC_EVENT:
		return add_row(x, &x->pe, 0, r);
	case REC_CLIENT:
		return insert_client(x, r);
	}
	return 0;
}

int db_wrows_flush(struct wrows *x)
{
	int rc = flush_rows(x, &x->pc, 1);
	if (!rc)
		rc = flush_rows(x, &x->pe, 0);
	db_wrows_drop(x);
	return rc;
}

void db_wrows_drop(struct wrows *x)
{
	x->pc.n = x->pe.n = 0;
}

/* head, then rows groups of cols parameters: "(?,?),(?,?)"; s->b for its parameters. */
static int prepare_rows(sqlite3 *db, const char *head, int rows, int cols, struct wrows_stmt *s)
{
	size_t hl = strlen(head), len = hl + (size_t)rows * (2 + 2 * (size_t)cols) + 1;
	char *sql = malloc(len), *p = sql;
	if (!sql)
		return SQLITE_NOMEM;
	memcpy(p, head, hl);
	p += hl;
	for (int r = 0; r < rows; r++) {
		if (r)
			*p++ = ',';
		*p++ = '(';
		for (int c = 0; c < cols; c++) {
			if (c)
				*p++ = ',';
			*p++ = '?';
		}
		*p++ = ')';
	}
	*p = 0;
	int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->st, NULL);
	free(sql);
	if (rc == SQLITE_OK && !(s->b = calloc((size_t)rows * (size_t)cols, sizeof(*s->b))))
		rc = SQLITE_NOMEM;
	return rc;
}

int db_wrows_prepare(struct wrows *x, sqlite3 *db)
{
	int rc;
	memset(x, 0, sizeof(*x));
	if ((rc = prepare_rows(db, ins_cmd_sql, 1, CMD_COLUMNS, &x->cmd)) ||
	    (rc = prepare_rows(db, ins_cmd_sql, WROWS_PER_INSERT, CMD_COLUMNS, &x->cmd_n)) ||
	    (rc = prepare_rows(db, ins_ev_sql, 1, EV_COLUMNS, &x->ev)) ||
	    (rc = prepare_rows(db, ins_ev_sql, WROWS_PER_INSERT, EV_COLUMNS, &x->ev_n)))
		return rc;
	rc = sqlite3_prepare_v3(db, ins_client_sql, -1, SQLITE_PREPARE_PERSISTENT, &x->client.st,
				NULL);
	if (rc == SQLITE_OK && !(x->client.b = calloc(7, sizeof(*x->client.b))))
		rc = SQLITE_NOMEM;
	return rc;
}

void db_wrows_finalize(struct wrows *x)
{
	struct wrows_stmt *all[] = {&x->cmd, &x->cmd_n, &x->ev, &x->ev_n, &x->client};
	for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
		sqlite3_finalize(all[k]->st);
		free(all[k]->b);
		all[k]->st = NULL;
		all[k]->b = NULL;
	}
}
