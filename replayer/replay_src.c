/* The source trace read ahead (replay_int.h, rp_src_*): a thread steps the
 * two cursors (commands and events, each on its (trace_id, seq) index),
 * merges them in seq order and copies each row into a ring the replay
 * consumes. Reading a row (a b-tree step and eleven columns) then runs beside
 * the exchange with the TPM instead of between two exchanges. The replay's
 * thread does not touch the connection while the reader runs (rp_src_stop
 * joins it first). */
#include "replayer/replay_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows read ahead at most; the reader is woken again when half are taken. */
#define SRC_RING 256

struct rp_src {
	sqlite3 *db;
	sqlite3_stmt *st, *ev;
	struct slot {
		struct rp_src_row row;
		uint8_t *buf; /* the row's bytes */
		size_t cap;   /* bytes allocated */
	} ring[SRC_RING];
	_Atomic uint64_t head; /* rows published by the reader */
	_Atomic uint64_t tail; /* rows the replay has finished with */
	_Atomic int done;      /* the reader has published its last row */
	_Atomic int stop;      /* the replay needs no more rows */
	_Atomic int r_waits, c_waits;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	int started;
	uint64_t taken; /* rows rp_src_next handed out */
	int end_rc;	/* once done: 0, or -EIO / -ENOMEM with err */
	char err[256];
};

static void wake(struct rp_src *s, _Atomic int *waiting)
{
	if (atomic_load(waiting)) {
		pthread_mutex_lock(&s->mu);
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
}

/* Waits until ready(s) holds; *waiting tells the other side to wake it. */
static void wait_for(struct rp_src *s, _Atomic int *waiting, int (*ready)(struct rp_src *))
{
	pthread_mutex_lock(&s->mu);
	atomic_store(waiting, 1);
	while (!ready(s))
		pthread_cond_wait(&s->cv, &s->mu);
	atomic_store(waiting, 0);
	pthread_mutex_unlock(&s->mu);
}

static int room_or_stop(struct rp_src *s)
{
	return atomic_load(&s->stop) ||
	       atomic_load(&s->head) - atomic_load(&s->tail) <= SRC_RING / 2;
}

static int row_or_done(struct rp_src *s)
{
	return atomic_load(&s->head) > s->taken || atomic_load(&s->done);
}

/* Copies the current row of q (is_event: the events' cursor) into slot i. */
static int copy_row(struct rp_src *s, size_t i, sqlite3_stmt *q, int is_event)
{
	struct slot *sl = &s->ring[i];
	struct rp_src_row *r = &sl->row;
	const void *cmd = sqlite3_column_blob(q, 2), *rsp = sqlite3_column_blob(q, 3);
	size_t len = cmd ? (size_t)sqlite3_column_bytes(q, 2) : 0;
	size_t rsp_len = rsp ? (size_t)sqlite3_column_bytes(q, 3) : 0;
	const char *kind = is_event ? (const char *)sqlite3_column_text(q, 7) : NULL;
	size_t kind_len = kind ? strlen(kind) + 1 : 0;
	size_t need = len + rsp_len + kind_len;
	if (need > sl->cap) {
		uint8_t *b = realloc(sl->buf, need);
		if (!b)
			return -ENOMEM;
		sl->buf = b;
		sl->cap = need;
	}
	r->event = is_event;
	r->seq = (uint64_t)sqlite3_column_int64(q, 1);
	r->len = len;
	r->rsp_len = rsp_len;
	r->cmd = cmd ? sl->buf : NULL;
	r->rsp = rsp ? sl->buf + len : NULL;
	if (len)
		memcpy(sl->buf, cmd, len);
	if (rsp_len)
		memcpy(sl->buf + len, rsp, rsp_len);
	r->kind = kind ? (const char *)sl->buf + len + rsp_len : NULL;
	if (kind)
		memcpy(sl->buf + len + rsp_len, kind, kind_len);
	r->flags = (uint32_t)sqlite3_column_int64(q, 4);
	r->has_rc = sqlite3_column_type(q, 5) != SQLITE_NULL;
	r->rc = (uint32_t)sqlite3_column_int64(q, 5);
	r->rsp_handle = (uint32_t)sqlite3_column_int64(q, 6);
	/* An event's code, time and client are NULL: none is left from the
	 * slot's previous row. */
	r->has_cc = sqlite3_column_type(q, 8) != SQLITE_NULL;
	r->cc = (uint32_t)sqlite3_column_int64(q, 8);
	r->latency_ns = (uint64_t)sqlite3_column_int64(q, 9);
	r->has_client = sqlite3_column_type(q, 10) != SQLITE_NULL;
	r->client = sqlite3_column_int64(q, 10);
	return 0;
}

static void *reader_main(void *arg)
{
	struct rp_src *s = arg;
	int rc = sqlite3_step(s->st), rc_ev = sqlite3_step(s->ev);
	while (!atomic_load(&s->stop) && (rc == SQLITE_ROW || rc_ev == SQLITE_ROW)) {
		uint64_t h = atomic_load_explicit(&s->head, memory_order_relaxed);
		if (h - atomic_load(&s->tail) >= SRC_RING) {
			wait_for(s, &s->r_waits, room_or_stop);
			continue;
		}
		/* An event at the seq of a command comes first. */
		int is_event = rc_ev == SQLITE_ROW &&
			       (rc != SQLITE_ROW ||
				sqlite3_column_int64(s->ev, 1) <= sqlite3_column_int64(s->st, 1));
		if (copy_row(s, h % SRC_RING, is_event ? s->ev : s->st, is_event)) {
			s->end_rc = -ENOMEM;
			snprintf(s->err, sizeof s->err, "out of memory reading ahead");
			break;
		}
		/* seq_cst: the store comes before the read of c_waits (wake) */
		atomic_store(&s->head, h + 1);
		wake(s, &s->c_waits);
		if (is_event)
			rc_ev = sqlite3_step(s->ev);
		else
			rc = sqlite3_step(s->st);
	}
	if (!s->end_rc && !atomic_load(&s->stop) && (rc != SQLITE_DONE || rc_ev != SQLITE_DONE)) {
		s->end_rc = -EIO;
		snprintf(s->err, sizeof s->err, "%s", sqlite3_errmsg(s->db));
	}
	atomic_store(&s->done, 1);
	wake(s, &s->c_waits);
	return NULL;
}

int rp_src_start(struct rp_src **out, sqlite3 *db, int64_t trace_id, char *err, size_t errlen)
{
	struct rp_src *s = calloc(1, sizeof *s);
	*out = s;
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->db = db;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	/* Commands and events share one sequence: two cursors in seq order,
	 * merged by the reader. A UNION ordered by seq would sort the whole
	 * trace, blobs included, before the first row. */
	if (sqlite3_prepare_v2(
		db,
		"SELECT 0, seq, cmd, rsp, flags, rc, rsp_handle, NULL, cc, latency_ns, client_id"
		" FROM command WHERE trace_id=? ORDER BY seq",
		-1, &s->st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "SELECT 1, seq, NULL, NULL, 0, NULL, NULL, kind, NULL, NULL, NULL"
			       " FROM event"
			       " WHERE trace_id=? ORDER BY seq",
			       -1, &s->ev, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(s->st, 1, trace_id);
	sqlite3_bind_int64(s->ev, 1, trace_id);
	int rc = db_thread_start(&s->thread, reader_main, s); /* no process signals */
	if (rc) {
		snprintf(err, errlen, "cannot start the source reader: %s", strerror(rc));
		return -rc;
	}
	s->started = 1;
	return 0;
}

const struct rp_src_row *rp_src_next(struct rp_src *s)
{
	/* The row handed out last is finished with: its slot goes back. */
	if (s->taken) {
		atomic_store(&s->tail, s->taken); /* before r_waits is read */
		/* Only once there is the room the reader waits for: a wake per
		 * row would ping-pong the two threads. */
		if (room_or_stop(s))
			wake(s, &s->r_waits);
	}
	if (atomic_load(&s->head) <= s->taken)
		wait_for(s, &s->c_waits, row_or_done);
	if (atomic_load(&s->head) <= s->taken)
		return NULL; /* done, and every row taken */
	return &s->ring[s->taken++ % SRC_RING].row;
}

int rp_src_end(const struct rp_src *s, char *err, size_t errlen)
{
	if (s->end_rc)
		snprintf(err, errlen, "%s", s->err);
	return s->end_rc;
}

void rp_src_stop(struct rp_src *s)
{
	if (!s)
		return;
	if (s->started) {
		atomic_store(&s->stop, 1);
		pthread_mutex_lock(&s->mu);
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->thread, NULL);
	}
	sqlite3_finalize(s->ev);
	sqlite3_finalize(s->st);
	for (size_t i = 0; i < SRC_RING; i++)
		free(s->ring[i].buf);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}
