/* The set-up every live recorder front end shares (the socket proxy, live
 * pcap capture, the QEMU interposer, vm-record, the CUSE proxy): the stop
 * signals taken through a signalfd, a trace of kind 'record' in the
 * database, the writer that fills it; and their tear-down. */
#ifndef TPMTRACE_RECORD_SESSION_H
#define TPMTRACE_RECORD_SESSION_H

#include <signal.h>
#include <sys/signalfd.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "db/writer.h"

struct record_session {
	int sfd;	  /* signalfd of the stop signals, or -1 */
	sigset_t oldmask; /* the signal mask before (for a child to start with) */
	int64_t trace_id; /* 0: no trace (forward only) */
	struct writer *w; /* NULL: nothing recorded */
};

/* An empty session: no signalfd, no trace, no writer. */
void record_session_init(struct record_session *s);

enum { RECORD_SIG_CHLD = 1 }; /* SIGCHLD too: the front end runs a child */

/* Blocks SIGINT, SIGTERM, SIGHUP and SIGUSR1 (and SIGCHLD with
 * RECORD_SIG_CHLD) and takes them through s->sfd (non-blocking, close-on-exec); SIGPIPE is
 * ignored (a client gone is an error return, not a death). Call it before
 * any thread starts: a thread would otherwise take them. Returns 0 or
 * -errno (s->sfd stays -1; the signals stay blocked). */
int record_session_signals(struct record_session *s, unsigned flags);

/* SIGUSR1 is a request for the status line (what dd does): the trace's
 * commands and events stored so far, dropped, and queued for the writer, on
 * stderr. 1 when si was that signal (printed), else 0: a front end reading
 * s->sfd itself calls it first. */
int record_session_status(struct record_session *s, const struct signalfd_siginfo *si);

/* A child the front end runs under the recorder (record -- COMMAND). */
struct record_child {
	pid_t pid;  /* 0: none, or it has ended */
	int status; /* its wait status once it has ended */
	int signal; /* the stop signal received, 0 for none */
};
/* The signals waiting on s->sfd, read without blocking: SIGUSR1 prints the
 * status line (record_session_status); SIGCHLD reaps
 * c->pid once it has ended and stops the recording; another signal is kept
 * in c->signal and passed on to c->pid, which then ends, or stops the
 * recording at once when there is no child. 1 when the recording is to stop,
 * else 0. */
int record_session_stop_due(struct record_session *s, struct record_child *c);

/* A recorder's writer queue by default: 65536 records (8 MiB of slots) and
 * 16 MiB for their payloads, resident only while queued (docs/recording.md). */
#define RECORD_QUEUE_DEFAULT   65536u
#define RECORD_PAYLOAD_DEFAULT (16u << 20)

struct record_trace_cfg {
	const char *db_path;
	long file_mode; /* -1: the default (0600); else created (or adopted) at it */
	const char *name, *source, *emulated;
	int payloads;	      /* enum payload_mode */
	uint32_t queue_slots; /* writer queue; 0: RECORD_QUEUE_DEFAULT */
	int set_group;	      /* the database and its WAL files given to group gid */
	gid_t gid;
};

/* Opens the database (created if missing), begins a trace of kind 'record'
 * and starts its writer into s->trace_id, s->w; with file_mode or set_group,
 * the database and the WAL files SQLite made beside it (created 0600) get
 * that mode and group. Returns 0 or -errno with err set (what and where). */
int record_session_begin(struct record_session *s, const struct record_trace_cfg *c, char *err,
			 size_t errlen);

/* Stops the writer, the trace marked complete; st (if not NULL) gets its
 * counts. Returns db_writer_stop's result; 0 without a writer. */
int record_session_end(struct record_session *s, struct writer_stats *st);

struct emulator;

/* Latency emulation for a recording (model/emulate.h) from a profile name
 * or file (spec); a profile stored in db_path is found there when that
 * database exists (db_path NULL: none). Checked before anything is started,
 * so that a bad profile leaves nothing behind. seed: have_seed ? seed : a
 * random one. Returns 0 or -errno with err set. */
int record_emulator_init(struct emulator *em, const char *db_path, const char *spec, int have_seed,
			 uint64_t seed, char *err, size_t errlen);

/* Releases what is left: a writer still running stops with the trace marked
 * incomplete, the signalfd is closed. */
void record_session_close(struct record_session *s);

#endif
