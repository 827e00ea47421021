/* The writer's INSERTs (db/writer_rows.h): db_wrows_prepare, db_wrows_add, db_wrows_flush,
 * db_wrows_drop and db_wrows_finalize; each parameter bound through a record of what it holds
 * (bind_int, bind_null, bind_other), so that a value the statement has already is not bound
 * again; WROWS_PER_INSERT command rows go through an INSERT of only the columns not all NULL in
 * them (variant_for). */
#include "db/writer_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tpm/decode.h"

#define CMD_COLUMNS 25
#define EV_COLUMNS  6

/* The command table's columns, in the order of command_mask's bits and bind_command's values. */
static const char *const cmd_cols[CMD_COLUMNS] = {
    "trace_id",	  "seq",	"t_submit_ns", "t_done_ns",  "latency_ns", "cc",      "locality",
    "tag",	  "cmd_size",	"rsp_size",    "rc",	     "handle1",	   "handle2", "handle3",
    "rsp_handle", "n_sessions", "sess_handle", "sess_attrs", "auth_kind",  "pcr",     "client_id",
    "flags",	  "malformed",	"cmd",	       "rsp"};
#define CMD_ALL ((1u << CMD_COLUMNS) - 1)
static const char *const ev_cols[EV_COLUMNS] = {"trace_id", "seq",    "t_ns",
						"kind",	    "detail", "client_id"};
#define EV_ALL ((1u << EV_COLUMNS) - 1)
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

/* What a command row stores, column by column (cmd_cols' order): ftrace rows (no_bytes) know
 * no tag, sizes or rc; logs carry no timing, so an ordinal stands for time and there is no
 * latency. */
struct cmd_row {
	int rsp, latency, bytes;
	const char *malformed;
};

static struct cmd_row command_row(const struct rec *r)
{
	struct cmd_row w = {.rsp = r->has_rsp, .bytes = !r->no_bytes};
	w.latency = w.rsp && !((r->flags & REC_F_SYNTHETIC_TIME) && r->t_done == r->t_submit);
	w.malformed = r->malformed ? tpm_malformed_str(r->malformed) : NULL;
	return w;
}

/* The mask of r's columns that are not NULL (bit c: cmd_cols[c]). */
static uint32_t command_mask(const struct rec *r)
{
	struct cmd_row w = command_row(r);
	uint32_t b = (uint32_t)w.bytes, rsp = (uint32_t)w.rsp, n = r->n_handles;
	/* trace_id, seq, t_submit_ns, cc, locality, n_sessions, auth_kind, client_id, flags */
	return 0x348067u | rsp << 3 | (uint32_t)w.latency << 4 | b * (3u << 7) |
	       (b & rsp) * (3u << 9) | (uint32_t)(n > 0) << 11 | (uint32_t)(n > 1) << 12 |
	       (uint32_t)(n > 2) << 13 | (uint32_t) !!r->has_rsp_handle << 14 |
	       (uint32_t)(r->n_sessions > 0) * (3u << 16) | (uint32_t)(r->pcr >= 0) << 19 |
	       (uint32_t) !!w.malformed << 22 | (uint32_t)(r->cmd_len > 0) << 23 |
	       (uint32_t)(r->rsp_len > 0) << 24;
}

/* Binds the columns of mask of a command row to parameters i, i + 1, ... of s; returns the
 * next parameter's index. */
static int bind_command(const struct wrows *x, const struct wrows_stmt *s, int i,
			const struct rec *r, uint32_t mask)
{
	struct cmd_row w = command_row(r);
	int c = 0;
#define COL(have, v)                                                                               \
	do {                                                                                       \
		if (mask >> c++ & 1)                                                               \
			bind_opt(s, i++, (have), (uint64_t)(v));                                   \
	} while (0)
	COL(1, x->trace_id);
	COL(1, r->seq);
	COL(1, r->t_submit);
	COL(w.rsp, r->t_done);
	COL(w.latency, r->t_done - r->t_submit);
	COL(1, r->cc);
	COL(1, r->locality);
	COL(w.bytes, r->tag);
	COL(w.bytes, r->cmd_size);
	COL(w.bytes && w.rsp, r->rsp_size);
	COL(w.bytes && w.rsp, r->rc);
	for (int h = 0; h < 3; h++)
		COL(h < r->n_handles, r->handles[h]);
	COL(r->has_rsp_handle, r->rsp_handle);
	COL(1, r->n_sessions);
	COL(r->n_sessions, r->sess_handle);
	COL(r->n_sessions, r->sess_attrs);
	COL(1, r->auth_kind);
	COL(r->pcr >= 0, r->pcr);
	COL(1, r->client_id);
	COL(1, r->flags);
#undef COL
	if (mask >> c++ & 1)
		bind_text(s, i++, w.malformed);
	if (mask >> c++ & 1)
		bind_blob(s, i++, r->payload, r->cmd_len);
	if (mask >> c++ & 1)
		bind_blob(s, i++, r->payload + r->cmd_len, r->rsp_len);
	return i;
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

static int prepare_rows(sqlite3 *db, const char *table, uint32_t mask, int rows,
			struct wrows_stmt *s);

/* The statement of WROWS_PER_INSERT command rows whose columns outside mask are all NULL, or
 * NULL for the one of every column: mask's own (prepared now if the budget allows: one for
 * every 256 INSERTs after the first WROWS_VARIANTS * 2, so that rows whose NULLs change all
 * the time do not prepare a statement each), else the narrowest one prepared that has every
 * column of mask. A column left out is stored as NULL (none of them has a default), and a
 * column left out is a value neither bound nor copied by the statement, twice for each row. */
static struct wrows_variant *variant_for(struct wrows *x, uint32_t mask)
{
	struct wrows_variant *best = NULL, *old = &x->var[0];
	x->inserts++;
	if (mask == CMD_ALL)
		return NULL;
	for (int k = 0; k < x->nvar; k++) {
		struct wrows_variant *v = &x->var[k];
		if (v->mask == mask) {
			v->used = x->inserts;
			return v;
		}
		if ((v->mask & mask) == mask && (!best || v->ncols < best->ncols))
			best = v;
		if (v->used < old->used)
			old = v;
	}
	if (x->prepared >= WROWS_VARIANTS * 2 + x->inserts / 256)
		return best;
	struct wrows_variant *v = x->nvar < WROWS_VARIANTS ? &x->var[x->nvar] : old;
	struct wrows_stmt s = {NULL, NULL};
	x->prepared++;
	if (prepare_rows(x->db, "command", mask, WROWS_PER_INSERT, &s)) {
		sqlite3_finalize(s.st);
		free(s.b);
		return best;
	}
	if (v == &x->var[x->nvar])
		x->nvar++;
	sqlite3_finalize(v->s.st);
	free(v->s.b);
	v->s = s;
	v->mask = mask;
	v->used = x->inserts;
	v->ncols = __builtin_popcount(mask);
	return v;
}

/* Stores WROWS_PER_INSERT command rows in one INSERT. */
static int insert_commands(struct wrows *x, const struct wrows_pending *p)
{
	uint32_t mask = 0;
	for (int k = 0; k < WROWS_PER_INSERT; k++)
		mask |= command_mask(p->r[k]);
	const struct wrows_variant *var = variant_for(x, mask);
	const struct wrows_stmt *s = var ? &var->s : &x->cmd_n;
	mask = var ? var->mask : CMD_ALL;
	for (int k = 0, i = 1; k < WROWS_PER_INSERT; k++)
		i = bind_command(x, s, i, p->r[k], mask);
	return run_insert(s->st);
}

/* Stores the pending rows: one INSERT for WROWS_PER_INSERT, else one a row. */
static int flush_rows(struct wrows *x, struct wrows_pending *p, int cmd)
{
	int rc = 0;
	if (cmd && p->n == WROWS_PER_INSERT) {
		rc = insert_commands(x, p);
	} else if (p->n == WROWS_PER_INSERT) {
		for (int k = 0; k < p->n; k++)
			bind_event(x, &x->ev_n, 1 + k * EV_COLUMNS, p->r[k]);
		rc = run_insert(x->ev_n.st);
	} else {
		for (int k = 0; k < p->n && !rc; k++) {
			if (cmd) {
				bind_command(x, &x->cmd, 1, p->r[k], CMD_ALL);
			} else {
				bind_event(x, &x->ev, 1, p->r[k]);
			}
			rc = run_insert(cmd ? x->cmd.st : x->ev.st);
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

int db_wrows_idle(const struct wrows *x)
{
	return !x->pc.n && !x->pe.n;
}

void db_wrows_drop(struct wrows *x)
{
	x->pc.n = x->pe.n = 0;
}

/* INSERT INTO table (the columns of mask) VALUES (?,?),(?,?) for rows rows; s->b for its
 * parameters. table: command (cmd_cols) or event (ev_cols). */
static int prepare_rows(sqlite3 *db, const char *table, uint32_t mask, int rows,
			struct wrows_stmt *s)
{
	int cmd = !strcmp(table, "command"), cols = 0;
	const char *const *names = cmd ? cmd_cols : ev_cols;
	char *sql = malloc(1024 + (size_t)rows * (2 + 2 * CMD_COLUMNS)), *p = sql;
	if (!sql)
		return SQLITE_NOMEM;
	p += sprintf(p, "INSERT INTO %s (", table);
	for (int c = 0; c < (cmd ? CMD_COLUMNS : EV_COLUMNS); c++)
		if (mask >> c & 1)
			p += sprintf(p, "%s%s", cols++ ? "," : "", names[c]);
	p += sprintf(p, ") VALUES ");
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
	x->db = db;
	if ((rc = prepare_rows(db, "command", CMD_ALL, 1, &x->cmd)) ||
	    (rc = prepare_rows(db, "command", CMD_ALL, WROWS_PER_INSERT, &x->cmd_n)) ||
	    (rc = prepare_rows(db, "event", EV_ALL, 1, &x->ev)) ||
	    (rc = prepare_rows(db, "event", EV_ALL, WROWS_PER_INSERT, &x->ev_n)))
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
	for (int k = 0; k < x->nvar; k++) {
		sqlite3_finalize(x->var[k].s.st);
		free(x->var[k].s.b);
	}
	x->nvar = 0;
	for (size_t k = 0; k < sizeof all / sizeof *all; k++) {
		sqlite3_finalize(all[k]->st);
		free(all[k]->b);
		all[k]->st = NULL;
		all[k]->b = NULL;
	}
}
