/* The batched asynchronous writer: the TPM path hands records to a bounded
 * single-producer queue; a thread commits them to SQLite in batches, one
 * transaction each (WAL). The producer never waits on the database: when the
 * queue is full or the database fails, records are dropped and counted.
 *
 * Single producer: all db_writer_reserve/publish calls for one writer must come
 * from one thread at a time (the proxies serialize commands to their backend). */
#ifndef TPMTRACE_WRITER_H
#define TPMTRACE_WRITER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

enum rec_type {
	REC_COMMAND = 1,
	REC_EVENT = 2,
	REC_CLIENT = 3,
};

/* flags column bits */
#define REC_F_REDACTED	     1u
#define REC_F_MALFORMED	     2u
#define REC_F_EMULATED	     4u
#define REC_F_NO_RESPONSE    8u
#define REC_F_SYNTHETIC_TIME 16u
/* Sent by tpmtrace itself, not by a client: the Startup of a swtpm it
 * spawned, the resource manager's flushes (recorder/proxy.c). */
#define REC_F_OWN 32u
/* Only part of the command is known (record --kernel's early-boot way: its
 * leading bytes and times, no response code). */
#define REC_F_PARTIAL 64u
/* A replay's command its policy added (the kernel's session set-up and end,
 * its null key, a Name read; replayer/replay.c): not the source's, though
 * its client is the source command's it serves. */
#define REC_F_POLICY 128u

struct rec {
	uint8_t type;
	uint8_t locality;
	uint8_t n_sessions;
	uint8_t auth_kind;
	uint8_t malformed; /* enum tpm_malformed */
	uint8_t has_rsp;
	uint8_t no_bytes; /* known only by code and timing (ftrace): tag, sizes
			   * and rc stored as NULL, "not known" */
	uint16_t tag;
	uint32_t cc;
	uint32_t rc;
	uint32_t handles[3];
	uint8_t n_handles;
	uint8_t has_rsp_handle;
	uint32_t rsp_handle;
	uint32_t sess_handle;
	uint32_t sess_attrs;
	uint32_t cmd_size;
	uint32_t rsp_size;
	uint32_t client_id;
	uint32_t flags;
	int32_t pcr;
	int32_t pid; /* REC_CLIENT */
	int32_t uid;
	uint64_t seq;
	uint64_t t_submit; /* REC_EVENT: t_ns */
	uint64_t t_done;
	/* Payload bytes in the queue's byte ring: REC_COMMAND: cmd then rsp;
	 * REC_EVENT: kind NUL detail NUL; REC_CLIENT: comm NUL peer NUL. */
	uint32_t cmd_len;
	uint32_t rsp_len;
	uint8_t *payload;
	uint64_t payload_end; /* internal */
};

struct writer;
struct trace_info;

struct writer_cfg {
	const char *path;     /* database file (created if missing) */
	int64_t trace_id;     /* rows go to this trace */
	uint32_t queue_slots; /* power of two; default 4096 */
	/* Byte ring allocated: default 512 bytes a slot, within 256 KiB..64 MiB.
	 * Only the first 256 KiB are used until more than half of that is queued
	 * at once (large messages, a stalled writer); then all of it. */
	uint32_t payload_bytes;
	int block_when_full; /* importers and replay wait instead of dropping */
	int quiet;	     /* no warning on stderr when the database fails */
	/* Nice value of the writer's threads (0: the caller's). A replay, which
	 * blocks rather than drops, sets it so that its own TPM path and a local
	 * swtpm go first on contended CPUs; a recorder keeps 0, because a
	 * starved writer there means dropped rows. */
	int nice;
	/* All or nothing (the importers): one transaction from db_writer_start
	 * to db_writer_stop, which commits it, or db_writer_discard, which
	 * rolls it back. With trace set, the trace row is made in it as well
	 * (trace_id is then ignored: db_writer_trace_id), so a process killed
	 * part-way leaves nothing behind, and a write that fails (a full disk)
	 * stores nothing: the writer rolls back at once and drops the rest.
	 * The database's write lock is held meanwhile. */
	int whole;
	const struct trace_info *trace;
	/* The caller folds the WAL into the file itself, after db_writer_stop
	 * (a replay: once the run's time is taken): the writer's stop does not.
	 * Its rows are as durable once the caller's next commit or checkpoint
	 * has synced the WAL (synchronous=FULL there). */
	int fold_at_close;
};

/* A background thread that takes no process signals (the writer's, the replay's source reader):
 * a handler the caller installed (import's Ctrl-C) must interrupt the caller's own blocking
 * read, not land on a thread that ignores it. Returns pthread_create's result. */
int db_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

/* Starts the writer thread. Returns 0 or -errno (err holds a message). */
int db_writer_start(struct writer **out, const struct writer_cfg *cfg, char *err, size_t errlen);

/* Reserves a record with payload_len bytes of payload (r->payload). Returns NULL
 * when the queue is full: a command or event is counted as dropped (and its
 * seq left as a gap); a REC_CLIENT row is not counted, its producer tries
 * again (recorder.c). Fields are zeroed except seq, which is assigned. */
struct rec *db_writer_reserve(struct writer *w, uint8_t type, uint32_t payload_len);
/* Hands the reserved record to the writer thread. */
void db_writer_publish(struct writer *w);

/* Convenience: an event record with kind and detail text. */
int db_writer_event(struct writer *w, uint64_t t_ns, const char *kind, const char *detail,
		    uint32_t client_id);

/* The trace the writer's rows go to (made by it under cfg.trace). */
int64_t db_writer_trace_id(const struct writer *w);

struct writer_stats {
	uint64_t commands;     /* command rows committed */
	uint64_t own_commands; /* of them sent by tpmtrace itself (REC_F_OWN) */
	uint64_t events;       /* event rows committed */
	uint64_t dropped;      /* records seen but not stored (queue full or database error) */
	uint64_t dropped_commands;
	uint64_t batches;
	uint64_t failed_batches;
	uint64_t ring_bytes; /* payload ring in use: 256 KiB, all of it once half was queued */
	/* Records whose producer waited for room in the queue (only with
	 * block_when_full): a recorder's TPM path never waits, so 0 there. */
	uint64_t waits;
	uint64_t queued; /* records published, not yet taken by the writer thread */
	/* cfg.whole: nothing was stored (a write failed, or discarded); the
	 * counts above are what was lost. */
	int rolled_back;
};

/* Bytes of the queue (slots and payload ring) the kernel holds for it now
 * (mincore(2)): the records queued, plus the page or two at the tail; the
 * pages of committed records are handed back. A test's and a benchmark's
 * figure, not for the TPM path (it allocates a vector and makes two calls). */
uint64_t db_writer_queue_resident(struct writer *w);
/* The counts so far, read while the writer runs (a status line). */
void db_writer_stats(struct writer *w, struct writer_stats *st);

/* Waits until everything published so far is committed (or dropped). */
void db_writer_flush(struct writer *w);

/* Records lost before they reached the queue (record --kernel: the ring
 * buffer's drops): added to trace.dropped when db_writer_stop closes the trace
 * row, through the writer's own connection (the database's path may be gone
 * by then: a recorder started in the initramfs outlives the switch of root).
 * Not in db_writer_stats. */
void db_writer_add_dropped(struct writer *w, uint64_t n);

/* Stops the thread after draining the queue, closes the trace row with the
 * final counts and status ("complete" unless given), frees the writer.
 * Returns 0, or -EIO when the trace row could not be finalized. */
int db_writer_stop(struct writer *w, const char *status, struct writer_stats *final);
/* cfg.whole: stops the thread and rolls the transaction back (the trace row
 * with it, when the writer made it); frees the writer. Otherwise as
 * db_writer_stop with status "incomplete". */
void db_writer_discard(struct writer *w, struct writer_stats *final);

#endif
