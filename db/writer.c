/* The batched asynchronous writer (db/writer.h). db_writer_reserve and db_writer_publish put
 * records into a bounded ring of slots with their payloads in a byte ring (both mapped memory; the
 * pages of committed records go back to the kernel, the payload ring grows only when more than
 * half of it is queued) without ever waiting on SQLite; the writer thread (writer_main) commits
 * them to the command, event and client tables in batches of one transaction each (commands and
 * events WROWS_PER_INSERT rows to a statement), and a second connection runs the WAL checkpoints so
 * that commits never wait for them. A full queue or a failing database drops records and counts
 * them, with one warning per failure and one message on recovery; under cfg.whole (the importers)
 * every batch goes into one transaction, committed or rolled back at the end (whole_end). Also
 * db_writer_start, db_writer_event, db_writer_flush, db_writer_queue_resident, db_writer_stats,
 * db_writer_stop and db_writer_discard. */
#include "db/writer.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "db/queue_mem.h"
#include "db/writer_rows.h"

#define BATCH_MAX	    8192
#define IDLE_SLEEP_MIN_US   500
#define IDLE_SLEEP_MAX_US   16000
#define BATCH_MIN	    512
#define BATCH_WAIT_NS	    20000000ull /* a killed recorder loses at most ~20 ms */
#define CHECKPOINT_EVERY_US 250000
#define WAL_RESTART_FRAMES  4096 /* 16 MiB of 4 KiB pages */
#define RECOVERED_NS	    200000000ull
#define RING_START	    (256u << 10)
#define RELEASE_EVERY	    256 /* cfg.whole: records handed back during a batch */

struct writer {
	struct writer_cfg cfg;
	char *path;
	/* The slots are mapped memory whose pages the writer hands back to the kernel once every
	 * record on them is committed (release_slots): only the slots of the records queued at the
	 * moment are resident, so a queue sized for a long burst costs nothing between bursts. */
	struct rec *slots;
	size_t slots_bytes;
	size_t page;
	/* The producer stays this many slots (a page's worth) and payload bytes (a page) behind the
	 * tail, so that the writer may hand back the page it shares with the previous batch
	 * (release_slots); 0 for a queue of a few pages, which keeps them all. */
	uint32_t guard_slots;
	uint32_t guard_bytes;
	uint32_t mask;
	uint8_t *ring;
	uint64_t ring_cap; /* bytes allocated */

	/* Producer side. A payload at position pos (bytes reserved so far, a running count) lies at
	 * ring + (pos - p_base) % p_cap. p_cap, the bytes in use as the ring, is RING_START until
	 * more than half of it is queued at once, then ring_cap (the rest of the allocation is
	 * never touched, so a recorder of small commands keeps a small RSS); the writer reads it
	 * for its commit threshold. */
	uint64_t p_bytes;
	uint64_t p_base;
	_Atomic uint64_t p_cap;
	int p_grow; /* more than half of p_cap was queued: grow at the next lap */
	uint64_t seq;
	int reserved;
	_Atomic uint64_t head; /* records published */
	_Atomic uint64_t q_dropped;
	_Atomic uint64_t q_dropped_cmds;
	_Atomic uint64_t waits; /* reservations that waited for room */

	/* Consumer side. */
	_Atomic uint64_t tail;	  /* records consumed */
	_Atomic uint64_t c_bytes; /* payload bytes released */
	_Atomic uint64_t commands, own_commands, events, db_dropped, db_dropped_cmds, batches,
	    failed;
	_Atomic uint64_t ext_dropped; /* db_writer_add_dropped */
	_Atomic int stop;
	/* The writer sleeps between batches; a producer whose backlog reaches
	 * a batch (backlog_full) while it sleeps (armed) wakes it through
	 * wake_fd, once per sleep. */
	int wake_fd;
	_Atomic int armed;
	_Atomic int flush_req; /* db_writer_flush waits: commit what is queued now */
	pthread_t thread;
	pthread_t ckpt_thread;
	int ckpt_started;
	pthread_mutex_t ckpt_mu; /* with ckpt_cv: wakes the checkpointer at stop */
	pthread_cond_t ckpt_cv;
	sqlite3 *db;
	sqlite3 *ckpt_db;
	/* Commands and events go WROWS_PER_INSERT rows to an INSERT: a statement's set-up
	 * (cursors opened and closed, its transaction checked, its memory) cost about a third of
	 * the writer's time for rows stored one by one. */
	struct wrows rows;
	int failing;
	int whole_failed;	 /* cfg.whole: a write failed, the transaction is rolled back */
	uint64_t ok_since;	 /* while failing: first success since the last failure */
	unsigned stall_ms;	 /* fault injection: TPMTRACE_FAULT_WRITER_STALL_MS */
	unsigned stall_every_ms; /* ... once per this period (0: before every batch) */
	unsigned stop_gap_us;	 /* fault injection: TPMTRACE_FAULT_WRITER_STOP_GAP_US */
};

static const char *getenv_or0(const char *name)
{
	const char *v = getenv(name);
	return v ? v : "0";
}

static void sleep_us(unsigned us)
{
	struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
	nanosleep(&ts, NULL);
}

/* A batch is worth committing now: BATCH_MIN records, or payloads filling a quarter of the ring
 * (large messages fill the ring long before the queue; 4 KiB commands at ~15,000/s were dropped
 * while a batch grew). h, t: head and tail; bytes: payload bytes queued. */
static int backlog_full(const struct writer *w, uint64_t h, uint64_t t, uint64_t bytes)
{
	return h - t >= BATCH_MIN ||
	       bytes >= atomic_load_explicit(&w->p_cap, memory_order_relaxed) / 4;
}

/* Consumer: payload bytes of the published records not yet committed. */
static uint64_t queued_bytes(struct writer *w, uint64_t h, uint64_t t)
{
	if (h == t)
		return 0;
	return w->slots[(h - 1) & w->mask].payload_end -
	       atomic_load_explicit(&w->c_bytes, memory_order_relaxed);
}

/* The writer's sleep: up to us, or until a producer's backlog is full. */
static void writer_wait(struct writer *w, unsigned us)
{
	atomic_store(&w->armed, 1);
	uint64_t h = atomic_load(&w->head), t = atomic_load(&w->tail);
	if (!backlog_full(w, h, t, queued_bytes(w, h, t)) && !atomic_load(&w->stop) &&
	    !atomic_load(&w->flush_req)) {
		struct pollfd pf = {.fd = w->wake_fd, .events = POLLIN};
		struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
		ppoll(&pf, 1, &ts, NULL);
	}
	/* A producer that took 'armed' wrote (or is about to write) a token:
	 * take it, or the next sleep would end at once (harmless if it comes
	 * after this read). After a plain timeout there is none to read. */
	uint64_t v;
	if (!atomic_exchange(&w->armed, 0) && read(w->wake_fd, &v, sizeof v) < 0) {
		/* not written yet */
	}
}

static void report_failure(struct writer *w, int rc)
{
	if (w->cfg.whole) {
		if (!w->whole_failed && !w->cfg.quiet)
			fprintf(stderr, "tpmtrace: cannot write to %s (%s): nothing is stored\n",
				w->path, sqlite3_errstr(rc));
		w->whole_failed = 1;
		return;
	}
	if (!w->failing && !w->cfg.quiet)
		fprintf(stderr,
			"tpmtrace: cannot write to %s (%s); TPM traffic continues, records are "
			"dropped and counted until writes succeed again\n",
			w->path, sqlite3_errstr(rc));
	w->failing = 1;
	w->ok_since = 0;
}

/* A full disk can let a transaction through now and then (a restarted WAL reuses its file): the
 * failure counts as over only once writes have succeeded for a while, so one episode gives one
 * warning and one recovery message. */
static void check_recovered(struct writer *w)
{
	if (w->failing && w->ok_since && db_mono_ns() - w->ok_since >= RECOVERED_NS) {
		if (!w->cfg.quiet)
			fprintf(stderr, "tpmtrace: writes to %s succeed again\n", w->path);
		w->failing = 0;
		w->ok_since = 0;
	}
}

/* cfg.nice (writer.h): on Linux a nice value applies to one thread. */
static void background_thread(const struct writer *w)
{
	if (w->cfg.nice)
		setpriority(PRIO_PROCESS, (id_t)gettid(), w->cfg.nice);
}

/* Hands the pages that only hold slots of records [t - guard, t + n) back to the kernel (their next
 * use faults in a zero page). Called before the tail moves past them: until then the producer never
 * writes there (it stays guard_slots behind the tail), so nothing it wrote is lost; and the page a
 * batch shares with the one before goes back too. */
static void release_slots(struct writer *w, uint64_t t, uint64_t n)
{
	t -= w->guard_slots;
	n += w->guard_slots;
	uint64_t first = t & w->mask, count = n > w->mask + 1ull ? w->mask + 1ull : n;
	while (count) {
		uint64_t piece = count < w->mask + 1ull - first ? count : w->mask + 1ull - first;
		uintptr_t a = (uintptr_t)(w->slots + first),
			  b = (uintptr_t)(w->slots + first + piece);
		a = (a + w->page - 1) & ~(uintptr_t)(w->page - 1);
		b &= ~(uintptr_t)(w->page - 1);
		if (b > a)
			madvise((void *)a, b - a, MADV_DONTNEED);
		count -= piece;
		first = 0;
	}
}

/* The same for the payload ring: pages inside the payloads of records [t, t + n) (in ring order; a
 * lap's end or the ring's growth starts a new run), and the guard_bytes before the first, before
 * c_bytes moves past them. Between bursts only the payloads queued at the moment (and the page at
 * the last batch's end) stay resident. */
static void release_range(struct writer *w, const uint8_t *a0, const uint8_t *b0)
{
	uintptr_t a = ((uintptr_t)a0 + w->page - 1) & ~(uintptr_t)(w->page - 1);
	uintptr_t b = (uintptr_t)b0 & ~(uintptr_t)(w->page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

static void release_payloads(struct writer *w, uint64_t t, uint64_t n)
{
	const uint8_t *run = NULL, *end = NULL;
	for (uint64_t k = 0; k < n; k++) {
		const struct rec *r = &w->slots[(t + k) & w->mask];
		const uint8_t *p = r->payload, *e = p + r->cmd_len + r->rsp_len;
		if (!run || p < end) {
			if (run)
				release_range(w, run, end);
			run = p;
			if (k == 0) /* the bytes behind the tail: see guard_bytes */
				run = (size_t)(p - w->ring) > w->guard_bytes ? p - w->guard_bytes
									     : w->ring;
		}
		end = e;
	}
	if (run)
		release_range(w, run, end);
}

/* The producer may use records [t, t + n) again (the tail moves past them). */
static void release_records(struct writer *w, uint64_t t, uint64_t n)
{
	uint64_t end = w->slots[(t + n - 1) & w->mask].payload_end;
	release_payloads(w, t, n);
	release_slots(w, t, n);
	atomic_store_explicit(&w->c_bytes, end, memory_order_release);
	atomic_store_explicit(&w->tail, t + n, memory_order_release);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	background_thread(w);
	unsigned idle = IDLE_SLEEP_MIN_US;
	uint64_t last_commit = db_mono_ns();
	uint64_t last_stall = last_commit;

	for (;;) {
		uint64_t h = atomic_load_explicit(&w->head, memory_order_acquire);
		uint64_t t = atomic_load_explicit(&w->tail, memory_order_relaxed);
		check_recovered(w);
		if (h == t) {
			if (w->stop_gap_us) /* fault switch: the gap test_db proves */
				sleep_us(w->stop_gap_us);
			/* Stop comes after the last record: the read above may be
			 * older than both, so the queue is read again first. */
			if (atomic_load(&w->stop)) {
				if (atomic_load_explicit(&w->head, memory_order_acquire) == t)
					break;
				continue;
			}
			writer_wait(w, idle);
			if (idle < IDLE_SLEEP_MAX_US)
				idle *= 2;
			continue;
		}
		idle = IDLE_SLEEP_MIN_US;
		/* Let a small backlog grow into a batch, unless time is up:
		 * fewer, larger transactions cost less per row. */
		uint64_t waited = db_mono_ns() - last_commit;
		if (!backlog_full(w, h, t, queued_bytes(w, h, t)) && waited < BATCH_WAIT_NS &&
		    !atomic_load(&w->stop) && !atomic_load(&w->flush_req)) {
			/* Until the batch's time is up: a producer that fills the
			 * backlog, a flush and a stop wake it before. */
			writer_wait(w, (unsigned)((BATCH_WAIT_NS - waited) / 1000) + 1);
			continue;
		}
		if (w->stall_ms &&
		    (!w->stall_every_ms ||
		     db_mono_ns() - last_stall >= (uint64_t)w->stall_every_ms * 1000000u)) {
			sleep_us(w->stall_ms * 1000u);
			last_stall = db_mono_ns();
		}
		uint64_t n = h - t;
		if (n > BATCH_MAX)
			n = BATCH_MAX;
		uint64_t ncmd = 0, nown = 0, nev = 0;
		/* cfg.whole: the one transaction is open (db_writer_start), or
		 * was rolled back by a failed write: the rest is dropped. */
		int rc = !w->cfg.whole	   ? sqlite3_exec(w->db, "BEGIN", NULL, NULL, NULL)
			 : w->whole_failed ? SQLITE_ABORT
					   : SQLITE_OK;
		/* Each table's rows in order, WROWS_PER_INSERT at a time (a
		 * batch's last ones one by one), payloads read in the queue. */
		w->rows.trace_id = w->cfg.trace_id;
		uint64_t done = 0; /* records of the batch handed back */
		for (uint64_t k = 0; k < n; k++) {
			const struct rec *r = &w->slots[(t + k) & w->mask];
			if (r->type == REC_COMMAND) {
				ncmd++;
				nown += !!(r->flags & REC_F_OWN);
			} else if (r->type == REC_EVENT) {
				nev++;
			}
			if (rc == SQLITE_OK)
				rc = db_wrows_add(&w->rows, r);
			/* cfg.whole commits at the end only: the records stored so far (none
			 * waiting in an INSERT) go back to the producer now, which waited for
			 * the whole batch (and the writer for the producer to fill it again). */
			if (w->cfg.whole && k + 1 - done >= RELEASE_EVERY &&
			    db_wrows_idle(&w->rows)) {
				release_records(w, t + done, k + 1 - done);
				done = k + 1;
			}
		}
		if (rc == SQLITE_OK)
			rc = db_wrows_flush(&w->rows);
		db_wrows_drop(&w->rows);
		if (rc == SQLITE_OK && !w->cfg.whole)
			rc = sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
		if (rc != SQLITE_OK) {
			/* A failed statement may have ended the transaction
			 * already (SQLITE_FULL can): roll back only an open one. */
			if (!sqlite3_get_autocommit(w->db))
				sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
			report_failure(w, rc);
			atomic_fetch_add(&w->db_dropped, ncmd + nev);
			atomic_fetch_add(&w->db_dropped_cmds, ncmd);
			atomic_fetch_add(&w->failed, 1);
		} else {
			if (w->failing && !w->ok_since)
				w->ok_since = db_mono_ns();
			atomic_fetch_add(&w->commands, ncmd);
			atomic_fetch_add(&w->own_commands, nown);
			atomic_fetch_add(&w->events, nev);
		}
		atomic_fetch_add(&w->batches, 1);
		last_commit = db_mono_ns();
		if (n > done)
			release_records(w, t + done, n - done);
	}
	return NULL;
}

/* WAL checkpoints copy pages into the database file and sync it; on a slow
 * disk that takes long enough to fill the queue. They run here, on their own
 * connection, so that the writer's commits never wait for them. */
static void *checkpoint_main(void *arg)
{
	struct writer *w = arg;
	background_thread(w);
	pthread_mutex_lock(&w->ckpt_mu);
	while (!atomic_load(&w->stop)) {
		/* Sleeps until the next checkpoint is due, or until db_writer_stop
		 * wakes it: stopping never waits out a sleep. */
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += (long)CHECKPOINT_EVERY_US * 1000;
		ts.tv_sec += ts.tv_nsec / 1000000000;
		ts.tv_nsec %= 1000000000;
		pthread_cond_timedwait(&w->ckpt_cv, &w->ckpt_mu, &ts);
		if (atomic_load(&w->stop))
			break;
		pthread_mutex_unlock(&w->ckpt_mu);
		int log = 0, done = 0;
		sqlite3_wal_checkpoint_v2(w->ckpt_db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done);
		/* A writer that never pauses may never find the WAL fully copied when it starts a
		 * transaction, so the WAL would only grow. Once it is large and all copied, RESTART
		 * makes the next transaction start it over. While pending it holds new writers off
		 * and waits for readers of the WAL (a `tpmtrace sql` on the live file): with no
		 * busy wait it gives up at once and is tried again at the next tick instead of
		 * stalling the writer. */
		if (log >= WAL_RESTART_FRAMES && done == log)
			sqlite3_wal_checkpoint_v2(w->ckpt_db, NULL, SQLITE_CHECKPOINT_RESTART, NULL,
						  NULL);
		pthread_mutex_lock(&w->ckpt_mu);
	}
	pthread_mutex_unlock(&w->ckpt_mu);
	return NULL;
}

static void checkpoint_stop(struct writer *w)
{
	pthread_mutex_lock(&w->ckpt_mu);
	atomic_store(&w->stop, 1);
	pthread_cond_signal(&w->ckpt_cv);
	pthread_mutex_unlock(&w->ckpt_mu);
	pthread_join(w->ckpt_thread, NULL);
}

/* A thread starts with its creator's mask, so all signals are blocked around pthread_create
 * only (db/writer.h). */
int db_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* cfg.whole: opens the one transaction and makes the trace row in it. */
static int whole_begin(struct writer *w, char *err, size_t errlen)
{
	int rc = db_exec(w->db, "BEGIN IMMEDIATE", err, errlen);
	if (!rc && w->cfg.trace) {
		int64_t id = db_trace_begin(w->db, w->cfg.trace);
		if (id < 0) {
			snprintf(err, errlen, "%s: cannot create a trace: %s", w->path,
				 sqlite3_errmsg(w->db));
			rc = (int)id;
		}
		w->cfg.trace_id = id;
	}
	w->cfg.trace = NULL; /* the caller's, valid during db_writer_start only */
	if (rc && !sqlite3_get_autocommit(w->db))
		sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int db_writer_start(struct writer **out, const struct writer_cfg *cfg, char *err, size_t errlen)
{
	struct writer *w = calloc(1, sizeof(*w));
	int rc = -ENOMEM;
	const char *stall;

	*out = NULL;
	if (!w)
		goto fail;
	w->wake_fd = -1;
	w->cfg = *cfg;
	if (!w->cfg.queue_slots)
		w->cfg.queue_slots = 4096;
	if (w->cfg.queue_slots & (w->cfg.queue_slots - 1)) {
		snprintf(err, errlen, "queue size %u is not a power of two", w->cfg.queue_slots);
		rc = -EINVAL;
		goto fail;
	}
	if (!w->cfg.payload_bytes) {
		/* 512 bytes a record (2 MiB for the default 4096 slots), within [256 KiB, 64 MiB].
		 * Large messages decide it: a 4 KiB command takes one slot but 4 KiB of ring, and a
		 * ring of 256 KiB held ~60 of them, so a writer descheduled for a few ms on a busy
		 * machine dropped ~1% of a stream of them. */
		uint64_t ring = (uint64_t)w->cfg.queue_slots * 512;
		w->cfg.payload_bytes = ring < (256u << 10)  ? 256u << 10
				       : ring > (64u << 20) ? 64u << 20
							    : (uint32_t)ring;
	}
	w->mask = w->cfg.queue_slots - 1;
	w->ring_cap = w->cfg.payload_bytes;
	atomic_store(&w->p_cap, w->ring_cap < RING_START ? w->ring_cap : RING_START);
	w->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->wake_fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		goto fail;
	}
	w->path = strdup(cfg->path);
	w->page = (size_t)sysconf(_SC_PAGESIZE);
	w->slots_bytes = (size_t)w->cfg.queue_slots * sizeof(struct rec);
	if (w->slots_bytes >= 8 * w->page)
		w->guard_slots =
		    (uint32_t)((w->page + sizeof(struct rec) - 1) / sizeof(struct rec));
	if (atomic_load(&w->p_cap) >= 8 * w->page)
		w->guard_bytes = (uint32_t)w->page;
	w->slots = db_queue_map(w->slots_bytes);
	w->ring = db_queue_map(w->ring_cap);
	if (!w->path || !w->slots || !w->ring) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* Fault switches (tests/README.md): a stall before each batch, or
	 * periodically (a slow disk now and then); a gap before stop is seen. */
	w->stall_ms = (unsigned)strtoul(getenv_or0("TPMTRACE_FAULT_WRITER_STALL_MS"), NULL, 10);
	w->stall_every_ms =
	    (unsigned)strtoul(getenv_or0("TPMTRACE_FAULT_WRITER_STALL_EVERY_MS"), NULL, 10);
	w->stop_gap_us =
	    (unsigned)strtoul(getenv_or0("TPMTRACE_FAULT_WRITER_STOP_GAP_US"), NULL, 10);
	/* Fault injection: the producer waits for room instead of dropping, as
	 * a recorder whose forwarding loop waited on the database would
	 * (writer_stats.waits counts it; the soak test must catch it). */
	stall = getenv("TPMTRACE_FAULT_WRITER_BLOCK_WHEN_FULL");
	if (stall && *stall && strcmp(stall, "0"))
		w->cfg.block_when_full = 1;
	rc = db_open(cfg->path, DB_WRITE, &w->db, err, errlen);
	if (rc)
		goto fail;
	/* WAL with synchronous=NORMAL: a killed process loses nothing committed;
	 * a power cut may lose the last batches but never corrupts the file. */
	db_exec(w->db, "PRAGMA synchronous=NORMAL", NULL, 0);
	db_exec(w->db, "PRAGMA wal_autocheckpoint=0", NULL, 0);
	/* Rows are appended: a small page cache is enough, and memory stays
	 * bounded however long the recording. */
	db_exec(w->db, "PRAGMA cache_size=-256", NULL, 0);
	if (sqlite3_open_v2(cfg->path, &w->ckpt_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
			    NULL) == SQLITE_OK) {
		/* No busy wait: PASSIVE never waits anyway, and RESTART,
		 * pending, would hold the writer off (checkpoint_main). */
		sqlite3_busy_timeout(w->ckpt_db, 0);
		db_exec(w->ckpt_db, "PRAGMA cache_size=-64", NULL, 0);
		pthread_condattr_t ca;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_mutex_init(&w->ckpt_mu, NULL);
		pthread_cond_init(&w->ckpt_cv, &ca);
		pthread_condattr_destroy(&ca);
		if (db_thread_start(&w->ckpt_thread, checkpoint_main, w) == 0)
			w->ckpt_started = 1;
	}
	if (!w->ckpt_started)
		db_exec(w->db, "PRAGMA wal_autocheckpoint=1000", NULL, 0);
	if (db_wrows_prepare(&w->rows, w->db)) {
		snprintf(err, errlen, "%s: %s", cfg->path, sqlite3_errmsg(w->db));
		rc = -EIO;
		goto fail;
	}
	if (w->cfg.whole && (rc = whole_begin(w, err, errlen)))
		goto fail;
	rc = db_thread_start(&w->thread, writer_main, w);
	if (rc) {
		snprintf(err, errlen, "cannot start the writer thread: %s", strerror(rc));
		rc = -rc;
		goto fail;
	}
	*out = w;
	return 0;
fail:
	if (w) {
		db_wrows_finalize(&w->rows);
		if (w->ckpt_started)
			checkpoint_stop(w);
		sqlite3_close(w->ckpt_db);
		db_close(w->db);
		if (w->wake_fd >= 0)
			close(w->wake_fd);
		if (w->ring)
			munmap(w->ring, w->ring_cap);
		if (w->slots)
			munmap(w->slots, w->slots_bytes);
		free(w->path);
		free(w);
	}
	return rc;
}

static int has_room(struct writer *w, uint32_t len, uint64_t *start)
{
	uint64_t h = atomic_load_explicit(&w->head, memory_order_relaxed);
	uint64_t t = atomic_load_explicit(&w->tail, memory_order_acquire);
	if (h - t > w->mask - w->guard_slots || len > w->ring_cap - w->guard_bytes)
		return 0;
	uint64_t c = atomic_load_explicit(&w->c_bytes, memory_order_acquire);
	uint64_t s = w->p_bytes;
	uint64_t cap = atomic_load_explicit(&w->p_cap, memory_order_relaxed);
	if (s + len - c > cap / 2)
		w->p_grow = 1;
	uint64_t pos = (s - w->p_base) % cap;
	for (;;) { /* at most twice: once more after growing */
		/* Keep each payload contiguous; and a ring that is to grow
		 * goes to the lap's start when the guard would keep it from
		 * reaching it. */
		if (cap - pos < len ||
		    (w->p_grow && cap != w->ring_cap && cap - pos < len + w->guard_bytes)) {
			s += cap - pos;
			pos = 0;
		}
		if (pos != 0 || !w->p_grow || cap == w->ring_cap)
			break;
		/* At the start of a lap every queued byte lies below cap: relabel so that s falls
		 * at cap of the whole allocation. Later positions then reach a byte of the old
		 * region only after a full lap of ring_cap, which the check below makes wait until
		 * every byte queued there is released. p_bytes moves to s now, whether or not this
		 * record fits: a position before s would map into the old lap's tail, which may
		 * still hold bytes queued one lap earlier. */
		w->p_base = s - cap;
		w->p_bytes = s;
		pos = cap;
		cap = w->ring_cap;
		atomic_store_explicit(&w->p_cap, cap, memory_order_relaxed);
	}
	if (s + len - c > cap - w->guard_bytes)
		return 0;
	*start = s;
	return 1;
}

struct rec *db_writer_reserve(struct writer *w, uint8_t type, uint32_t payload_len)
{
	uint64_t start;
	/* Commands and events share one sequence; a dropped one leaves a gap. */
	uint64_t seq = type == REC_CLIENT ? 0 : ++w->seq;
	int waited = 0;

	while (!has_room(w, payload_len, &start)) {
		if (!w->cfg.block_when_full || payload_len > w->ring_cap - w->guard_bytes) {
			/* A client row is not a command or an event: its producer
			 * tries again with the client's next command. */
			if (type == REC_CLIENT)
				return NULL;
			atomic_fetch_add_explicit(&w->q_dropped, 1, memory_order_relaxed);
			if (type == REC_COMMAND)
				atomic_fetch_add_explicit(&w->q_dropped_cmds, 1,
							  memory_order_relaxed);
			return NULL;
		}
		/* Only a writer that blocks when full gets here (importers,
		 * replay): counted once per record, off the path of one that
		 * drops. */
		if (!waited) {
			waited = 1;
			atomic_fetch_add_explicit(&w->waits, 1, memory_order_relaxed);
		}
		sleep_us(50);
	}
	uint64_t h = atomic_load_explicit(&w->head, memory_order_relaxed);
	struct rec *r = &w->slots[h & w->mask];
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->seq = seq;
	r->pcr = -1;
	r->payload =
	    w->ring + (start - w->p_base) % atomic_load_explicit(&w->p_cap, memory_order_relaxed);
	w->p_bytes = start + payload_len;
	r->payload_end = w->p_bytes;
	w->reserved = 1;
	return r;
}

void db_writer_publish(struct writer *w)
{
	if (!w->reserved)
		return;
	w->reserved = 0;
	uint64_t h = atomic_fetch_add(&w->head, 1) + 1;
	/* One atomic load per record; a write(2) at most once per sleep. */
	if (atomic_load(&w->armed) &&
	    backlog_full(w, h, atomic_load_explicit(&w->tail, memory_order_relaxed),
			 w->p_bytes - atomic_load_explicit(&w->c_bytes, memory_order_relaxed)) &&
	    atomic_exchange(&w->armed, 0)) {
		uint64_t one = 1;
		if (write(w->wake_fd, &one, sizeof one) < 0) {
			/* the writer wakes at its timeout instead */
		}
	}
}

int db_writer_event(struct writer *w, uint64_t t_ns, const char *kind, const char *detail,
		    uint32_t client_id)
{
	size_t kl = strlen(kind) + 1, dl = detail ? strlen(detail) + 1 : 1;
	struct rec *r = db_writer_reserve(w, REC_EVENT, (uint32_t)(kl + dl));
	if (!r)
		return -ENOBUFS;
	memcpy(r->payload, kind, kl);
	if (detail)
		memcpy(r->payload + kl, detail, dl);
	else
		r->payload[kl] = 0;
	r->cmd_len = (uint32_t)(kl + dl);
	r->t_submit = t_ns;
	r->client_id = client_id;
	db_writer_publish(w);
	return 0;
}

void db_writer_add_dropped(struct writer *w, uint64_t n)
{
	atomic_fetch_add(&w->ext_dropped, n);
}

uint64_t db_writer_queue_resident(struct writer *w)
{
	return db_queue_resident(w->slots, w->slots_bytes) +
	       db_queue_resident(w->ring, w->ring_cap);
}

/* Ends the writer's sleep now, if it sleeps (its 'armed' taken, as a
 * producer does): what it waits on (stop, flush_req) is set before. */
static void wake_writer(struct writer *w)
{
	uint64_t one = 1;
	if (atomic_exchange(&w->armed, 0) && write(w->wake_fd, &one, sizeof one) < 0) {
		/* it wakes at its timeout instead */
	}
}

void db_writer_flush(struct writer *w)
{
	uint64_t h = atomic_load(&w->head);
	/* No batch wait: the caller waits for these records now. */
	atomic_store(&w->flush_req, 1);
	wake_writer(w);
	while (atomic_load(&w->tail) < h)
		sleep_us(200);
	atomic_store(&w->flush_req, 0);
}

void db_writer_stats(struct writer *w, struct writer_stats *st)
{
	st->queued = atomic_load(&w->head) - atomic_load(&w->tail);
	st->commands = atomic_load(&w->commands);
	st->own_commands = atomic_load(&w->own_commands);
	st->events = atomic_load(&w->events);
	st->dropped = atomic_load(&w->q_dropped) + atomic_load(&w->db_dropped);
	st->dropped_commands = atomic_load(&w->q_dropped_cmds) + atomic_load(&w->db_dropped_cmds);
	st->batches = atomic_load(&w->batches);
	st->failed_batches = atomic_load(&w->failed);
	st->ring_bytes = atomic_load(&w->p_cap);
	st->waits = atomic_load(&w->waits);
}

int64_t db_writer_trace_id(const struct writer *w)
{
	return w->cfg.trace_id;
}

/* cfg.whole: the end of the one transaction. keep: the trace row closed and
 * everything committed; else (or when that fails) all of it rolled back.
 * Returns 0 when committed, -EIO when nothing was stored. */
static int whole_end(struct writer *w, struct writer_stats *st, int keep, const char *status)
{
	int rc = -EIO;
	if (keep && !w->whole_failed &&
	    !db_trace_end(w->db, w->cfg.trace_id, st->commands, st->events, st->dropped, status) &&
	    sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
		rc = 0;
	if (rc) {
		int ec = sqlite3_errcode(w->db);
		if (!sqlite3_get_autocommit(w->db))
			sqlite3_exec(w->db, "ROLLBACK", NULL, NULL, NULL);
		if (keep)
			report_failure(w, ec);
		st->dropped += st->commands + st->events;
		st->dropped_commands += st->commands;
		st->commands = st->events = 0;
		st->rolled_back = 1;
	}
	return rc;
}

static int writer_end(struct writer *w, const char *status, int keep, struct writer_stats *final)
{
	struct writer_stats st = {0};
	int rc;
	atomic_store(&w->stop, 1);
	wake_writer(w);
	pthread_join(w->thread, NULL);
	if (w->ckpt_started)
		checkpoint_stop(w);
	sqlite3_close(w->ckpt_db);
	db_writer_stats(w, &st);
	if (!status)
		status = keep ? "complete" : "incomplete";
	uint64_t dropped = st.dropped + atomic_load(&w->ext_dropped);
	if (w->cfg.whole) {
		st.dropped = dropped;
		rc = whole_end(w, &st, keep, status);
		goto done;
	}
	rc = db_trace_end(w->db, w->cfg.trace_id, st.commands, st.events, dropped, status);
	if (rc) {
		/* A full disk refused the closing write: fold the WAL into the
		 * database (which frees the WAL's pages) and try once more, so
		 * that the trace is not left 'recording'. */
		sqlite3_wal_checkpoint_v2(w->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
		rc = db_trace_end(w->db, w->cfg.trace_id, st.commands, st.events, dropped, status);
	}
done:
	/* Leave a self-contained file behind (the WAL folded in), unless the caller does. */
	if (!w->cfg.fold_at_close)
		sqlite3_wal_checkpoint_v2(w->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	if (final)
		*final = st;
	db_wrows_finalize(&w->rows);
	db_close_for_readers(w->db);
	close(w->wake_fd);
	munmap(w->ring, w->ring_cap);
	munmap(w->slots, w->slots_bytes);
	free(w->path);
	free(w);
	return rc;
}

int db_writer_stop(struct writer *w, const char *status, struct writer_stats *final)
{
	return writer_end(w, status, 1, final);
}

void db_writer_discard(struct writer *w, struct writer_stats *final)
{
	writer_end(w, "incomplete", 0, final);
}
