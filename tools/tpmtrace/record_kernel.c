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

int record_kernel_main(const struct record_args *a)
{
	char err[1024];
	struct kernel_rec *k = NULL;
	struct record_session s;
	struct recorder rec;
	struct kernel_trace *kt = NULL;
	struct record_child child = {0};
	int ret = 1, pidfile = 0;

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
	if (kernel_trace_begin(kt, k, a->early, err, sizeof err)) {
		cli_error(SUB, "%s", err);
		goto out;
	}
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
		if ((child.pid = cli_spawn(SUB, a->command, &s.oldmask, NULL)) < 0)
			goto out;
	} else if (!a->quiet) {
		fprintf(
		    stderr,
		    "tpmtrace record: recording the kernel's TPM commands into %s (trace %lld); "
		    "stop with Ctrl-C\n",
		    a->db_path, (long long)s.trace_id);
		print_wrapped(kernel_rec_describe(k));
	}
	int n = kernel_trace_run(kt, k, &s, &child);
	if (n < 0) {
		cli_error(SUB, "--kernel: reading the ring buffer: %s", strerror(-n));
		goto out;
	}
	struct kernel_rec_counts kcn;
	char summary[2048];
	kernel_trace_end(kt, k,
			 child.signal ? strsignal(child.signal)
			 : a->command ? "command exited"
				      : "stopped",
			 &kcn, summary, sizeof summary);
	kernel_rec_close(k);
	k = NULL;
	struct writer_stats ws;
	int64_t tid = s.trace_id;
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
	ret = a->command ? cli_exit_status(child.status) : 0;
out:
	if (pidfile)
		unlink(a->pidfile);
	if (child.pid > 0) {
		kill(child.pid, SIGTERM);
		waitpid(child.pid, NULL, 0);
	}
	kernel_rec_close(k);
	record_session_close(&s);
	free(kt);
	return ret;
}
