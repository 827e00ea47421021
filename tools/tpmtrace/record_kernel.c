/* tpmtrace record --kernel: every command that passes the kernel's TPM
 * driver (tpm_transmit), recorded by an eBPF program (recorder/kernel/)
 * into a trace of kind 'record', with the origin from the kernel call path. */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
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

/* --pidfile: the pid, written to a temporary file beside FILE and renamed
 * over it, so that a reader never sees it half written. 0 or -errno. */
static int write_pidfile(const char *path)
{
	char tmp[4096], pid[32];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
		return -ENAMETOOLONG;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	int e = write(fd, pid, (size_t)n) == n ? 0 : errno ? -errno : -EIO;
	if (close(fd) && !e)
		e = -errno;
	if (!e && rename(tmp, path))
		e = -errno;
	if (e)
		unlink(tmp);
	return e;
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
		return cli_error(
		    SUB, "TPMTRACE_KERNEL_RING_BYTES: a power of two from 4096 to 2^30, not '%s'",
		    ring);
	*bytes = (uint32_t)v;
	return 0;
}

/* The trace's first events: how the recorder is attached, and the early-boot
 * way's commands merged ahead of the eBPF part (--early). 0, or 1 after
 * saying what is wrong. */
static int begin_events(const struct record_args *a, struct kernel_rec *k, struct kernel_trace *kt,
			struct recorder *rec)
{
	char err[1024];
	recorder_event(rec, "record-start", kernel_rec_describe(k), 0);
	/* The chip was registered (its null key made) before this trace began,
	 * unless the early-boot part below holds the registration. */
	if (!a->early) {
		recorder_event(rec, "kernel-attached",
			       "the kernel's TPM was registered before this trace began", 0);
		return 0;
	}
	if (kernel_early_import(kt, a->early, kernel_rec_attach_ns(k), err, sizeof err))
		return cli_error(SUB, "%s", err);
	char d[160];
	snprintf(d, sizeof d, "%s: %" PRIu64 " commands before the eBPF part (partial)", a->early,
		 kt->early);
	recorder_event(rec, "early-boot", d, kt->early_client);
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
	int child_status = 0, stop_signal = 0, ret = 1, pidfile = 0;

	record_session_init(&s);
	if (a->kernel_cmdline) {
		if (printf("%s\n", kernel_early_cmdline()) < 0 || fflush(stdout))
			return cli_error(SUB, "writing to stdout: %s", strerror(errno));
		return 0;
	}
	struct kernel_rec_cfg kc = {.transmit_sym = getenv("TPMTRACE_KERNEL_TRANSMIT_SYMBOL"),
				    .discard = getenv("TPMTRACE_KERNEL_DISCARD") != NULL};
	if (ring_bytes_from_env(&kc.ring_bytes))
		return 1;
	/* Everything the kernel must offer is checked (and the probes attached)
	 * before the database is touched. */
	if (kernel_rec_open(&k, &kc, err, sizeof err))
		return cli_error(SUB, "--kernel: %s", err);
	/* systemd leaves a process whose argv[0] begins with '@' running when
	 * the initramfs switches to the real root (program_invocation_name is
	 * argv[0] itself, so /proc/PID/cmdline shows it). */
	if (a->initrd && program_invocation_name && program_invocation_name[0])
		program_invocation_name[0] = '@';
	if (cli_db_for_create(SUB, a->db_path))
		goto out;
	if (record_session_signals(&s, RECORD_SIG_CHLD) < 0) {
		cli_error(SUB, "signalfd failed");
		goto out;
	}
	struct record_trace_cfg tc = {.db_path = a->db_path,
				      .file_mode = a->file_mode,
				      .name = a->name,
				      .source = "kernel:tpm_transmit",
				      .payloads = a->payloads,
				      .queue_slots = (uint32_t)a->queue};
	if (record_session_begin(&s, &tc, err, sizeof err)) {
		cli_error(SUB, "%s", err);
		goto out;
	}
	recorder_init(&rec, s.w, NULL, a->payloads);
	if (!(kt = malloc(sizeof *kt))) {
		cli_error(SUB, "out of memory");
		goto out;
	}
	kernel_trace_init(kt, &rec);
	if (begin_events(a, k, kt, &rec))
		goto out;
	/* The readiness signal: attached, and the trace begun. */
	if (a->pidfile) {
		int e = write_pidfile(a->pidfile);
		if (e) {
			cli_error(SUB, "--pidfile %s: %s", a->pidfile, strerror(-e));
			goto out;
		}
		pidfile = 1;
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
			cli_error(SUB, "--kernel: reading the ring buffer: %s", strerror(-n));
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
	/* Detach (the kernel as it was), then read what is still in the ring
	 * buffer: every record made before the probes went is kept. Read the
	 * other way round, a record made between the last read and the detach
	 * was lost, uncounted (a span's end after its commands, say). */
	kernel_rec_detach(k);
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
	/* trace.dropped counts what the writer could not store; the ring
	 * buffer's drops are commands the kernel sent that never reached the
	 * writer: added to it, so that recorded + dropped is every
	 * transmission. Through the writer's open database: after a switch of
	 * root the path may lead nowhere. */
	db_writer_add_dropped(s.w, kcn.dropped);
	if (record_session_end(&s, &ws)) {
		cli_error(SUB, "%s: the trace could not be finalized", a->db_path);
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
	if (pidfile)
		unlink(a->pidfile);
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	kernel_rec_close(k);
	record_session_close(&s);
	free(kt);
	return ret;
}
