/* tpmtrace record --kernel: every command that passes the kernel's TPM
 * driver (tpm_transmit), recorded by an eBPF program (recorder/kernel/)
 * into a trace of kind 'record', with the origin from the kernel call path. */
#include "record.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"
#include "db/writer.h"
#include "recorder/kernel/kernel_rec.h"
#include "recorder/record_session.h"
#include "recorder/recorder.h"

#define SUB "record"

/* trace.dropped counts what the writer could not store; the ring buffer's
 * drops are commands the kernel sent that never reached the writer: added
 * to it, so that recorded + dropped is every transmission. */
static int add_dropped(const char *db_path, int64_t trace_id, uint64_t n, char *err, size_t len)
{
	sqlite3 *db = NULL;
	if (!n)
		return 0;
	if (db_open(db_path, DB_WRITE, &db, err, len))
		return -EIO;
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(
	    db, "UPDATE trace SET dropped = coalesce(dropped,0) + ? WHERE id=?", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)n);
		sqlite3_bind_int64(st, 2, trace_id);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
	}
	if (rc != SQLITE_OK)
		snprintf(err, len, "%s: %s", db_path, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	db_close(db);
	return rc == SQLITE_OK ? 0 : -EIO;
}

/* text on stderr in lines of at most 96 columns, indented by two */
static void print_wrapped(const char *text)
{
	const char *p = text;
	while (*p) {
		size_t n = strlen(p);
		if (n > 94) {
			n = 94;
			while (n > 20 && p[n] != ' ')
				n--;
		}
		fprintf(stderr, "  %.*s\n", (int)n, p);
		p += n;
		while (*p == ' ')
			p++;
	}
}

/* TPMTRACE_KERNEL_RING_BYTES (a test hook): the ring buffer's size, or 0 for
 * the default. 0, or 1 after saying what is wrong. */
static int ring_bytes_from_env(uint32_t *bytes)
{
	const char *ring = getenv("TPMTRACE_KERNEL_RING_BYTES");
	if (!ring || !*ring)
		return 0;
	char *end;
	unsigned long v = strtoul(ring, &end, 10);
	if (*end || v < 4096 || v > (1ul << 30) || (v & (v - 1)))
		return die(SUB,
			   "TPMTRACE_KERNEL_RING_BYTES: a power of two from 4096 to 2^30, not '%s'",
			   ring);
	*bytes = (uint32_t)v;
	return 0;
}

int record_kernel_main(const struct record_args *a)
{
	char err[1024];
	struct kernel_rec *k = NULL;
	struct record_session s;
	struct recorder rec;
	struct kernel_trace *kt = NULL;
	pid_t child = 0;
	int child_status = 0, stop_signal = 0, ret = 1;

	record_session_init(&s);
	if (a->kernel_cmdline) {
		if (printf("%s\n", kernel_early_cmdline()) < 0 || fflush(stdout))
			return die(SUB, "writing to stdout: %s", strerror(errno));
		return 0;
	}
	struct kernel_rec_cfg kc = {.transmit_sym = getenv("TPMTRACE_KERNEL_TRANSMIT_SYMBOL"),
				    .discard = getenv("TPMTRACE_KERNEL_DISCARD") != NULL};
	if (ring_bytes_from_env(&kc.ring_bytes))
		return 1;
	/* Everything the kernel must offer is checked (and the probes attached)
	 * before the database is touched. */
	if (kernel_rec_open(&k, &kc, err, sizeof err))
		return die(SUB, "--kernel: %s", err);
	if (cli_db_for_create(SUB, a->db_path))
		goto out;
	if (record_session_signals(&s, RECORD_SIG_CHLD) < 0) {
		die(SUB, "signalfd failed");
		goto out;
	}
	struct record_trace_cfg tc = {.db_path = a->db_path,
				      .file_mode = a->file_mode,
				      .name = a->name,
				      .source = "kernel:tpm_transmit",
				      .payloads = a->payloads,
				      .queue_slots = (uint32_t)a->queue};
	if (record_session_begin(&s, &tc, err, sizeof err)) {
		die(SUB, "%s", err);
		goto out;
	}
	recorder_init(&rec, s.w, NULL, a->payloads);
	if (!(kt = malloc(sizeof *kt))) {
		die(SUB, "out of memory");
		goto out;
	}
	kernel_trace_init(kt, &rec);
	recorder_event(&rec, "record-start", kernel_rec_describe(k), 0);
	/* The chip was registered (its null key made) before this trace began,
	 * unless the early-boot part below holds the registration. */
	if (!a->early)
		recorder_event(&rec, "kernel-attached",
			       "the kernel's TPM was registered before this trace began", 0);
	if (a->early) {
		if (kernel_early_import(kt, a->early, kernel_rec_attach_ns(k), err, sizeof err)) {
			die(SUB, "%s", err);
			goto out;
		}
		char d[160];
		snprintf(d, sizeof d, "%s: %" PRIu64 " commands before the eBPF part (partial)",
			 a->early, kt->early);
		recorder_event(&rec, "early-boot", d, kt->early_client);
	}
	if (a->command) {
		if ((child = cli_spawn(SUB, a->command, &s.oldmask, NULL)) < 0)
			goto out;
	} else if (!a->quiet) {
		fprintf(
		    stderr,
		    "tpmtrace record: recording the kernel's TPM commands into %s (trace %lld); "
		    "stop with Ctrl-C\n",
		    a->db_path, (long long)s.trace_id);
		print_wrapped(kernel_rec_describe(k));
	}
	for (;;) {
		int n = kernel_rec_poll(k, 100, kernel_trace_record, kt);
		if (n < 0 && n != -EINTR) {
			die(SUB, "--kernel: reading the ring buffer: %s", strerror(-n));
			goto out;
		}
		struct signalfd_siginfo si;
		int stop = 0;
		while (read(s.sfd, &si, sizeof si) == sizeof si) {
			if (si.ssi_signo == SIGCHLD) {
				if (child > 0 && waitpid(child, &child_status, WNOHANG) == child) {
					child = 0;
					stop = 1;
				}
			} else {
				stop_signal = (int)si.ssi_signo;
				if (child > 0)
					kill(child, (int)si.ssi_signo);
				else
					stop = 1;
			}
		}
		if (stop)
			break;
	}
	/* What is still in the ring buffer, then detach: the kernel as it was. */
	while (kernel_rec_poll(k, 0, kernel_trace_record, kt) > 0)
		;
	struct kernel_rec_counts kcn;
	kernel_rec_counts(k, &kcn);
	kernel_rec_close(k);
	k = NULL;
	char summary[2048], detail[2300];
	kernel_trace_summary(kt, summary, sizeof summary);
	snprintf(detail, sizeof detail,
		 "%s; %" PRIu64 " transmissions, %" PRIu64 " dropped by the ring buffer, %" PRIu64
		 " returns without their entry\n%s",
		 stop_signal  ? strsignal(stop_signal)
		 : a->command ? "command exited"
			      : "stopped",
		 kt->commands, kcn.dropped, kcn.lost_returns, summary);
	recorder_stop_event(&rec, "record-stop", detail);
	struct writer_stats ws;
	int64_t tid = s.trace_id;
	if (record_session_end(&s, &ws)) {
		die(SUB, "%s: the trace could not be finalized", a->db_path);
		goto out;
	}
	if (add_dropped(a->db_path, tid, kcn.dropped, err, sizeof err)) {
		die(SUB, "%s", err);
		goto out;
	}
	if (!a->quiet) {
		fprintf(stderr,
			"tpmtrace record: trace %lld: %" PRIu64 " commands from the TPM driver, "
			"dropped %" PRIu64 " (ring buffer) + %" PRIu64 " (writer)\n%s",
			(long long)tid, kt->commands, kcn.dropped, ws.dropped, summary);
	}
	ret = a->command ? cli_exit_status(child_status) : 0;
out:
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	kernel_rec_close(k);
	record_session_close(&s);
	free(kt);
	return ret;
}
