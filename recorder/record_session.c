/* The set-up every live recorder front end shares (recorder/record_session.h):
 * record_session_signals takes SIGINT, SIGTERM, SIGHUP and SIGUSR1 (a status
 * line, record_session_status) through a signalfd,
 * record_session_begin opens or creates the database (db_open, db_open_perm),
 * begins a trace of kind record with its source, payload mode and emulation
 * flag, and starts the batched writer; record_session_end stops the writer and
 * ends the trace with its counts, record_session_close releases the rest.
 * record_emulator_init sets up the latency emulation of model/emulate.h from
 * the profile its spec names (a file, one stored in the database when that
 * exists, or a shipped one). */
#include "recorder/record_session.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/db.h"
#include "model/emulate.h"
#include "model/tpm/redact.h"

void record_session_init(struct record_session *s)
{
	memset(s, 0, sizeof(*s));
	s->sfd = -1;
	sigemptyset(&s->oldmask);
}

int record_session_signals(struct record_session *s, unsigned flags)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	if (flags & RECORD_SIG_CHLD)
		sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &s->oldmask);
	signal(SIGPIPE, SIG_IGN);
	s->sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	return s->sfd < 0 ? -errno : 0;
}

/* --mode/--group on the database and the WAL files SQLite made beside it
 * (they are created with the database's mode: 0600). */
static int widen_files(const struct record_trace_cfg *c, char *err, size_t errlen)
{
	static const char *const suffix[] = {"", "-wal", "-shm"};
	char p[4200];
	for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
		snprintf(p, sizeof p, "%s%s", c->db_path, suffix[i]);
		if (c->set_group && chown(p, (uid_t)-1, c->gid) && errno != ENOENT) {
			int e = errno;
			snprintf(err, errlen, "%s: cannot give it to group %u: %s", p,
				 (unsigned)c->gid, strerror(e));
			return -e;
		}
		if (c->file_mode >= 0 && chmod(p, (mode_t)c->file_mode) && errno != ENOENT) {
			int e = errno;
			snprintf(err, errlen, "%s: cannot set mode %04lo: %s", p, c->file_mode,
				 strerror(e));
			return -e;
		}
	}
	return 0;
}

int record_session_begin(struct record_session *s, const struct record_trace_cfg *c, char *err,
			 size_t errlen)
{
	sqlite3 *db = NULL;
	int rc;

	rc = c->file_mode >= 0
		 ? db_open_perm(c->db_path, DB_CREATE, (unsigned)c->file_mode, &db, err, errlen)
		 : db_open(c->db_path, DB_CREATE, &db, err, errlen);
	if (rc)
		return rc < 0 ? rc : -EIO;
	struct trace_info ti = {.name = c->name,
				.kind = "record",
				.source = c->source,
				.payloads = tpm_payload_mode_str(c->payloads),
				.emulated = c->emulated};
	int64_t id = db_trace_begin(db, &ti);
	if (id < 0) {
		snprintf(err, errlen, "%s: cannot add a trace: %s", c->db_path, sqlite3_errmsg(db));
		db_close(db);
		return (int)id;
	}
	db_close(db);
	s->trace_id = id;
	/* The writer sizes the payload ring from the queue. A recorder's
	 * default queue is sized for a burst (a writer starved of CPU for
	 * seconds) rather than for the steady state: the writer hands
	 * the pages of committed records back (db/writer.c), so only what is
	 * queued at the moment is resident (docs/recording.md). */
	struct writer_cfg wc = {.path = c->db_path,
				.trace_id = id,
				.queue_slots =
				    c->queue_slots ? c->queue_slots : RECORD_QUEUE_DEFAULT,
				.payload_bytes = c->queue_slots ? 0 : RECORD_PAYLOAD_DEFAULT};
	rc = db_writer_start(&s->w, &wc, err, errlen);
	if (rc) {
		s->w = NULL;
		return rc < 0 ? rc : -EIO;
	}
	if (c->file_mode >= 0 || c->set_group)
		return widen_files(c, err, errlen);
	return 0;
}

int record_session_status(struct record_session *s, const struct signalfd_siginfo *si)
{
	if (si->ssi_signo != SIGUSR1)
		return 0;
	if (!s->w) {
		fprintf(stderr, "tpmtrace record: forwarding only: nothing is recorded\n");
		return 1;
	}
	struct writer_stats st;
	db_writer_stats(s->w, &st);
	fprintf(stderr,
		"tpmtrace record: trace %lld: %llu commands and %llu events stored, %llu "
		"dropped, %llu queued\n",
		(long long)s->trace_id, (unsigned long long)st.commands,
		(unsigned long long)st.events, (unsigned long long)st.dropped,
		(unsigned long long)st.queued);
	return 1;
}

int record_session_stop_due(struct record_session *s, struct record_child *c)
{
	struct signalfd_siginfo si;
	while (read(s->sfd, &si, sizeof si) == sizeof si) {
		if (record_session_status(s, &si))
			continue;
		if (si.ssi_signo == SIGCHLD) {
			if (c->pid > 0 && waitpid(c->pid, &c->status, WNOHANG) == c->pid) {
				c->pid = 0;
				return 1;
			}
		} else {
			c->signal = (int)si.ssi_signo;
			if (c->pid > 0)
				kill(c->pid, (int)si.ssi_signo);
			else
				return 1;
		}
	}
	return 0;
}

int record_session_end(struct record_session *s, struct writer_stats *st)
{
	int rc = 0;
	if (s->w) {
		rc = db_writer_stop(s->w, "complete", st);
		s->w = NULL;
	}
	return rc;
}

void record_session_close(struct record_session *s)
{
	if (s->w)
		db_writer_stop(s->w, "incomplete", NULL);
	s->w = NULL;
	if (s->sfd >= 0)
		close(s->sfd);
	s->sfd = -1;
}

int record_emulator_init(struct emulator *em, const char *db_path, const char *spec, int have_seed,
			 uint64_t seed, char *err, size_t errlen)
{
	sqlite3 *pdb = NULL;
	if (db_path && access(db_path, F_OK) == 0 && db_open(db_path, DB_READ, &pdb, err, errlen))
		pdb = NULL;
	int rc = emulate_init(em, pdb, spec, have_seed ? seed : emulate_random_seed(), err, errlen);
	db_close(pdb);
	return rc;
}
