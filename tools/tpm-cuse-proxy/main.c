/* tpm-cuse-proxy: a CUSE character device with the semantics of the kernel's
 * TPM devices (drivers/char/tpm/tpm-dev-common.c) in front of a real TPM.
 * Every command is forwarded to the backend and recorded.
 *
 * Threads: the FUSE loop (main thread) answers open/read/write/poll/release
 * at once; one worker thread sends commands to the backend, one at a time,
 * and completes the requests that wait for it. The recorder's writer is
 * single-producer: every call that feeds it (recorder_log, _event,
 * _malformed, _client_pid) happens under rec_lock; recorder_forward, which
 * never touches the writer, runs in the worker outside it, so the TPM's
 * time never blocks the FUSE loop. Lock order: rec_lock before lock. */
#define FUSE_USE_VERSION 31
#include <cuse_lowlevel.h>
#include <fuse_lowlevel.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuse_proxy.h"
#include "db/db.h"
#include "db/writer.h"
#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "recorder/transport/frame.h"
#include "recorder/recorder.h"
#include "recorder/transport/transport.h"

static const char usage[] =
    "usage: tpm-cuse-proxy --backend DEVICE|TCTI --name NAME (--db FILE | --no-record)\n"
    "                      [--mode OCTAL] [--group GROUP] [--takeover] [--foreground]\n"
    "                      [--payloads none|redacted|full] [--trace-name NAME]\n"
    "                      [--exclusive | --shared] [--dev-dir DIR] [--debug]\n"
    "                      [--pidfile FILE] [--initrd]\n"
    "       tpm-cuse-proxy --restore [--name NAME] [--dev-dir DIR]\n"
    "       tpm-cuse-proxy --probe DEVICE [--exclusive]\n"
    "       tpm-cuse-proxy --bench DEVICE[,DEVICE...] [--bench-command extend|getrandom]\n"
    "                      [--count N] [--rounds R] [--json]\n"
    "\n"
    "Serves a CUSE character device /dev/NAME that behaves like the kernel's TPM\n"
    "devices: a write carries one whole command, a read returns the response (or\n"
    "the part asked for, the rest on the next read), a second write before the\n"
    "response is read fails with EBUSY, O_NONBLOCK and poll work. Every command is\n"
    "forwarded to the backend, one at a time, and recorded into a tpmtrace\n"
    "database with its timing and the process that sent it.\n"
    "\n"
    "Options:\n"
    "  --backend B       the real TPM: a device node (/dev/tpmrm0: every open of\n"
    "                    /dev/NAME gets its own backend open, i.e. its own resource\n"
    "                    manager space; /dev/tpm0: one open shared), swtpm:path=SOCK,\n"
    "                    swtpm:host=H,port=P, or any tpm2-tss TCTI string\n"
    "                    (mssim:host=H,port=P, tabrmd, ...)\n"
    "  --name NAME       device name under /dev (default tpmproxy0). Names starting\n"
    "                    with tpmrm allow many opens; others one at a time (EBUSY),\n"
    "                    as the kernel's /dev/tpmrm0 and /dev/tpm0 do\n"
    "  --exclusive, --shared   override that choice\n"
    "  --db FILE         database (created 0600 if missing)\n"
    "  --no-record       forward only, record nothing (for comparisons)\n"
    "  --payloads MODE   none | redacted (default: raw bytes, secrets zeroed) | full\n"
    "  --trace-name N    a name for the trace\n"
    "  --mode OCTAL      mode of /dev/NAME (default 0600, or the original's with\n"
    "                    --takeover)\n"
    "  --group GROUP     group of /dev/NAME (name or number)\n"
    "  --takeover        serve under the kernel node's own name: /dev/NAME is moved\n"
    "                    to /dev/NAME.real and swapped with the CUSE node in one\n"
    "                    step; on exit (SIGTERM, SIGINT, backend gone) it is put back.\n"
    "                    A guardian process puts it back if the proxy is killed;\n"
    "                    --restore does the same by hand or from ExecStopPost\n"
    "  --foreground      stay in the foreground (default: detach once /dev/NAME is\n"
    "                    ready, so a boot script can go on as soon as it returns)\n"
    "  --dev-dir DIR     where device nodes live (default /dev)\n"
    "  --debug           libfuse debug output (implies --foreground)\n"
    "  --pidfile FILE    write the (detached) proxy's pid to FILE, removed at exit\n"
    "  --initrd          keep running across the switch to the real root (argv[0]\n"
    "                    starts with '@', as systemd wants of root storage daemons)\n"
    "  --restore         put DIR/NAME.real back as DIR/NAME (all *.real nodes that\n"
    "                    are kernel TPM devices when --name is not given) and exit\n"
    "  --probe DEVICE    print how DEVICE answers good and bad writes, reads, polls\n"
    "                    (to compare a CUSE node with the kernel's)\n"
    "  --bench LIST      median round trip (write+read) of one command on each\n"
    "                    device, interleaved: --count commands per device per round\n"
    "                    (default 1), --rounds (default 1000), --json;\n"
    "                    --bench-command extend (PCR_Extend of PCR 16, default) or\n"
    "                    getrandom (GetRandom of 16 bytes)\n"
    "  -h, --help        this text\n"
    "\n"
    "Examples:\n"
    "  tpm-cuse-proxy --backend /dev/tpmrm0 --name tpmproxy0 --db /run/tpm.db\n"
    "  TPM2TOOLS_TCTI=device:/dev/tpmproxy0 tpm2_pcrread sha256:0\n"
    "  tpm-cuse-proxy --backend /dev/tpm0 --name tpm0 --takeover --db /run/boot.db\n"
    "  tpm-cuse-proxy --restore --name tpm0\n";

#define RSP_CAP (TPM_MAX_MESSAGE + 64)

enum backend_kind { BACKEND_DEVICE, BACKEND_SWTPM, BACKEND_TCTI };

struct cfile {
	uint32_t client;
	struct transport *tr; /* own backend open (per-open spaces), else NULL */
	int refs;
	/* The kernel's file_priv state (tpm-dev-common.c). */
	int enqueued;	      /* command queued or at the backend */
	int response_read;    /* the response was (partly) read */
	long response_length; /* bytes left to read, or -errno to report */
	size_t off;
	size_t cmd_len;
	size_t wsize;	 /* bytes the client wrote (write's result) */
	fuse_req_t wreq; /* a blocking write waiting for the TPM */
	fuse_req_t rreq; /* a blocking read waiting for the TPM */
	size_t rsize;
	struct fuse_pollhandle *ph;
	struct cfile *qnext;
	uint8_t cmd[TPM_MAX_MESSAGE];
	uint8_t buf[RSP_CAP];
};

static struct {
	pthread_mutex_t lock;	  /* files, queue */
	pthread_mutex_t rec_lock; /* recorder (single producer) */
	pthread_cond_t cond;
	struct cfile *qhead, *qtail;
	int stop;
	int n_open;
	int exclusive;
	enum backend_kind kind;
	int per_open;	      /* one backend open per client open */
	char reopen_name[16]; /* "N": an O_PATH fd on the backend node... */
	int proc_fd_dir;      /* ...reopened in /proc/<our pid>/fd */
	char backend_desc[256];
	struct transport *shared;
	struct recorder rec;
	struct transport none; /* placeholder backend when per-open */
	const char *dev_dir_name, *name;
	int dev_fd; /* O_PATH on dev_dir_name */
	int takeover, taken_over;
	int mode;
	long uid, gid;
	int ready_fd; /* daemon mode: tells the parent we are serving */
	int guard_fd;
	struct fuse_session *se;
	char err[600];
	int setup_failed;
	/* Test-only fault switch (tests/vm/test_vm_boot_luks_*.sh), from
	 * TPMTRACE_FAULT_CUSE_CRASH=CC or CC:after: the proxy dies of SIGABRT
	 * when the first command with code CC arrives (before it is sent
	 * on), or once its response is with the client (":after"), as a
	 * crash in the middle of a client's sequence would. */
	uint32_t crash_cc;
	int crash_after;
} g = {.lock = PTHREAD_MUTEX_INITIALIZER,
       .rec_lock = PTHREAD_MUTEX_INITIALIZER,
       .cond = PTHREAD_COND_INITIALIZER,
       .mode = -1,
       .uid = -1,
       .gid = -1,
       .ready_fd = -1,
       .guard_fd = -1,
       .proc_fd_dir = -1,
       .dev_fd = -1};

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
	va_list ap;
	fputs("tpm-cuse-proxy: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The errno a client of the kernel's device would see for a backend that
 * could not be reached: the driver's own for a device backend, EIO (or ETIME,
 * the TIS driver's timeout) for a socket or TCTI. */
static int client_errno(int rc)
{
	if (g.kind == BACKEND_DEVICE)
		return -rc;
	if (rc == -ETIME || rc == -ETIMEDOUT)
		return ETIME;
	return EIO;
}

static void fault_crash_init(void)
{
	const char *s = getenv("TPMTRACE_FAULT_CUSE_CRASH");
	char *end;
	if (!s || !*s)
		return;
	unsigned long cc = strtoul(s, &end, 0);
	if (cc == 0 || cc > 0xffffffffUL || (*end && strcmp(end, ":after") != 0)) {
		msg("TPMTRACE_FAULT_CUSE_CRASH: not CC or CC:after: '%s'; ignored", s);
		return;
	}
	g.crash_cc = (uint32_t)cc;
	g.crash_after = *end != 0;
	msg("TPMTRACE_FAULT_CUSE_CRASH: will crash at command 0x%x%s", g.crash_cc,
	    g.crash_after ? ", once answered" : "");
}

static void fault_crash(const uint8_t *cmd, size_t len, int after)
{
	if (!g.crash_cc || after != g.crash_after || len < TPM_HEADER_SIZE ||
	    wire_get_u32(cmd + 6) != g.crash_cc)
		return;
	struct rlimit none = {0, 0};
	setrlimit(RLIMIT_CORE, &none); /* no core file in the initramfs */
	msg("TPMTRACE_FAULT_CUSE_CRASH: crashing at command 0x%x", g.crash_cc);
	abort();
}

static void file_unref(struct cfile *f)
{
	/* lock held */
	if (--f->refs == 0) {
		if (f->tr)
			f->tr->ops->close(f->tr);
		if (f->ph)
			fuse_pollhandle_destroy(f->ph);
		free(f);
	}
}

static void notify_poll(struct cfile *f)
{
	if (f->ph) {
		fuse_lowlevel_notify_poll(f->ph);
		fuse_pollhandle_destroy(f->ph);
		f->ph = NULL;
	}
}

/* tpm_common_read: the whole response, or the part asked for; an error the
 * backend left (O_NONBLOCK write) is returned once; nothing pending reads 0. */
static void serve_read(struct cfile *f, fuse_req_t req, size_t size)
{
	if (f->response_length) {
		f->response_read = 1;
		if (f->response_length < 0) {
			int e = (int)-f->response_length;
			f->response_length = 0;
			f->off = 0;
			fuse_reply_err(req, e);
			return;
		}
		size_t n = size < (size_t)f->response_length ? size : (size_t)f->response_length;
		if (n == 0) {
			/* A zero-length read drops the response, as in the kernel. */
			f->response_length = 0;
			f->off = 0;
			fuse_reply_buf(req, NULL, 0);
			return;
		}
		fuse_reply_buf(req, (const char *)f->buf + f->off, n);
		f->off += n;
		f->response_length -= (long)n;
		if (!f->response_length)
			f->off = 0;
		return;
	}
	f->off = 0;
	fuse_reply_buf(req, NULL, 0);
}

static void *worker_main(void *arg)
{
	uint8_t *rsp = malloc(RSP_CAP), *cmd = malloc(TPM_MAX_MESSAGE);
	(void)arg;
	if (!rsp || !cmd) {
		free(rsp);
		free(cmd);
		return NULL;
	}
	pthread_mutex_lock(&g.lock);
	for (;;) {
		while (!g.qhead && !g.stop)
			pthread_cond_wait(&g.cond, &g.lock);
		if (!g.qhead)
			break;
		struct cfile *f = g.qhead;
		g.qhead = f->qnext;
		if (!g.qhead)
			g.qtail = NULL;
		/* Our own copy: the client may write its next command as soon
		 * as it has the response, while this one is being logged. */
		size_t cmd_len = f->cmd_len;
		uint32_t client = f->client;
		memcpy(cmd, f->cmd, cmd_len);
		pthread_mutex_unlock(&g.lock);

		size_t rsp_len = 0;
		struct rec_timing tm = {0};
		/* Only this thread forwards (g.rec's backend and counters are
		 * its own); rec_lock guards the writer queue, which the FUSE
		 * thread also feeds, so it is taken for the record only: an
		 * open or a bad write elsewhere never waits for the TPM. */
		g.rec.backend = f->tr ? f->tr : g.shared;
		fault_crash(cmd, cmd_len, 0);
		int rc =
		    recorder_forward(&g.rec, client, 0, cmd, cmd_len, rsp, RSP_CAP, &rsp_len, &tm);

		pthread_mutex_lock(&g.lock);
		f->enqueued = 0;
		f->off = 0;
		if (rc) {
			f->response_length = -client_errno(rc);
		} else {
			memcpy(f->buf, rsp, rsp_len);
			f->response_length = (long)rsp_len;
		}
		if (f->wreq) {
			/* A blocking write returns the backend's error itself. */
			if (rc) {
				f->response_length = 0;
				fuse_reply_err(f->wreq, client_errno(rc));
			} else {
				fuse_reply_write(f->wreq, f->wsize);
			}
			f->wreq = NULL;
		}
		if (f->rreq) {
			serve_read(f, f->rreq, f->rsize);
			f->rreq = NULL;
		}
		notify_poll(f);
		pthread_mutex_unlock(&g.lock);
		fault_crash(cmd, cmd_len, 1);

		/* The client has its answer; now the record. It may name the
		 * backend (g.rec.backend: in front of a tpmrm node, f's own
		 * transport), so f is released after it: a client that closed
		 * meanwhile would otherwise have freed that transport. */
		pthread_mutex_lock(&g.rec_lock);
		recorder_log(&g.rec, client, 0, cmd, cmd_len, rsp, rsp_len, &tm);
		pthread_mutex_unlock(&g.rec_lock);
		pthread_mutex_lock(&g.lock);
		file_unref(f);
	}
	pthread_mutex_unlock(&g.lock);
	free(rsp);
	free(cmd);
	return NULL;
}

static struct cfile *file_of(struct fuse_file_info *fi)
{
	return (struct cfile *)(uintptr_t)fi->fh;
}

/* A fresh open of the backend node, through the O_PATH descriptor kept in
 * /proc/<pid>/fd: it survives --takeover's renames and the initramfs's
 * switch of root, where the node's path no longer names it for us. */
static int reopen_backend(struct transport **out, char *err, size_t errlen)
{
	int fd = openat(g.proc_fd_dir, g.reopen_name, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", g.backend_desc, strerror(errno));
		return -errno;
	}
	int rc = transport_device_from_fd(fd, g.backend_desc, out);
	if (rc)
		close(fd);
	return rc;
}

static void op_open(fuse_req_t req, struct fuse_file_info *fi)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	char err[512];
	struct cfile *f;

	pthread_mutex_lock(&g.lock);
	if (g.exclusive && g.n_open > 0) {
		/* tpm_open: one open of /dev/tpmN at a time. */
		pthread_mutex_unlock(&g.lock);
		fuse_reply_err(req, EBUSY);
		return;
	}
	g.n_open++;
	pthread_mutex_unlock(&g.lock);

	f = calloc(1, sizeof(*f));
	if (!f) {
		fuse_reply_err(req, ENOMEM);
		goto fail;
	}
	f->refs = 1;
	f->response_read = 1;
	if (g.per_open) {
		/* Each open of /dev/tpmrm0 is its own resource manager space,
		 * flushed when it is closed: keep that per client. */
		int rc = reopen_backend(&f->tr, err, sizeof err);
		if (rc) {
			free(f);
			fuse_reply_err(req, -rc);
			goto fail;
		}
	}
	pthread_mutex_lock(&g.rec_lock);
	f->client = recorder_client_pid(&g.rec, ctx->pid, ctx->uid);
	pthread_mutex_unlock(&g.rec_lock);
	fi->fh = (uint64_t)(uintptr_t)f;
	fi->direct_io = 1;
	fi->nonseekable = 1;
	if (fuse_reply_open(req, fi) != 0) {
		pthread_mutex_lock(&g.lock);
		file_unref(f);
		g.n_open--;
		pthread_mutex_unlock(&g.lock);
	}
	return;
fail:
	pthread_mutex_lock(&g.lock);
	g.n_open--;
	pthread_mutex_unlock(&g.lock);
}

static void record_bad_write(struct cfile *f, const char *buf, size_t size, int reason,
			     uint32_t declared)
{
	pthread_mutex_lock(&g.rec_lock);
	recorder_malformed(&g.rec, f->client, 0, (const uint8_t *)buf, size, reason, declared);
	pthread_mutex_unlock(&g.rec_lock);
}

/* tpm_common_write. */
static void op_write(fuse_req_t req, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct cfile *f = file_of(fi);
	uint32_t hsize = size >= 6 ? wire_get_u32((const uint8_t *)buf + 2) : 0;
	int reason;
	(void)off;
	if (size > TPM_MAX_MESSAGE) {
		record_bad_write(f, buf, size, TPM_MAL_TOO_LARGE, hsize);
		fuse_reply_err(req, E2BIG);
		return;
	}
	pthread_mutex_lock(&g.lock);
	if ((!f->response_read && f->response_length) || f->enqueued) {
		pthread_mutex_unlock(&g.lock);
		fuse_reply_err(req, EBUSY);
		return;
	}
	/* The framing rule every recorder shares (recorder/transport/frame.h): the
	 * command is exactly the bytes its size field declares. */
	int fr = frame_tpm((const uint8_t *)buf, size, FRAME_MAX_MESSAGE, &hsize, &reason);
	if (size < 6 || size < hsize) {
		pthread_mutex_unlock(&g.lock);
		record_bad_write(f, buf, size,
				 size < TPM_HEADER_SIZE ? TPM_MAL_SHORT_HEADER : TPM_MAL_SIZE_OVER,
				 hsize);
		fuse_reply_err(req, EINVAL);
		return;
	}
	if (hsize == 0) {
		/* tpm_try_transmit: a zero size field, ENODATA; from the write,
		 * or with O_NONBLOCK (queued) from the read that follows. */
		int nb = !!(fi->flags & O_NONBLOCK);
		if (nb) {
			f->response_length = -ENODATA;
			f->response_read = 0;
			f->off = 0;
			notify_poll(f);
		}
		pthread_mutex_unlock(&g.lock);
		record_bad_write(f, buf, size, TPM_MAL_SIZE_BELOW_HEADER, 0);
		if (nb)
			fuse_reply_write(req, size);
		else
			fuse_reply_err(req, ENODATA);
		return;
	}
	if (fr != FRAME_TPM_WHOLE) {
		/* A size field below the header's 10 bytes: answered here with
		 * TPM_RC_COMMAND_SIZE, as a TPM would, without reaching it. */
		f->response_length = (long)tpm_error_response(f->buf, TPM_RC_COMMAND_SIZE);
		f->response_read = 0;
		f->off = 0;
		notify_poll(f);
		pthread_mutex_unlock(&g.lock);
		record_bad_write(f, buf, size, reason, hsize);
		fuse_reply_write(req, size);
		return;
	}
	f->response_length = 0;
	f->response_read = 0;
	f->off = 0;
	/* Exactly the declared bytes, whatever the backend: the kernel's
	 * driver, too, sends the size field's worth and drops the rest of the
	 * write (tpm_try_transmit). */
	f->cmd_len = hsize;
	memcpy(f->cmd, buf, f->cmd_len);
	f->wsize = size;
	f->enqueued = 1;
	f->refs++;
	if (!(fi->flags & O_NONBLOCK))
		f->wreq = req;
	f->qnext = NULL;
	if (g.qtail)
		g.qtail->qnext = f;
	else
		g.qhead = f;
	g.qtail = f;
	pthread_cond_signal(&g.cond);
	pthread_mutex_unlock(&g.lock);
	if (fi->flags & O_NONBLOCK)
		fuse_reply_write(req, size); /* the result comes with the read */
}

static void op_read(fuse_req_t req, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct cfile *f = file_of(fi);
	(void)off;
	pthread_mutex_lock(&g.lock);
	if (f->enqueued) {
		/* In flight: the kernel's read waits for the command's worker to
		 * finish (it holds buffer_mutex), O_NONBLOCK or not; so does this
		 * one. A second read on top of a waiting one is refused. */
		if (f->rreq) {
			pthread_mutex_unlock(&g.lock);
			fuse_reply_err(req, EAGAIN);
			return;
		}
		f->rreq = req;
		f->rsize = size;
		pthread_mutex_unlock(&g.lock);
		return;
	}
	serve_read(f, req, size);
	pthread_mutex_unlock(&g.lock);
}

/* tpm_common_poll: readable while a response (or part of it) waits,
 * writable otherwise. */
static void op_poll(fuse_req_t req, struct fuse_file_info *fi, struct fuse_pollhandle *ph)
{
	struct cfile *f = file_of(fi);
	unsigned mask;
	pthread_mutex_lock(&g.lock);
	if (ph) {
		if (f->ph)
			fuse_pollhandle_destroy(f->ph);
		f->ph = ph;
	}
	mask = f->response_length ? POLLIN | POLLRDNORM : POLLOUT | POLLWRNORM;
	pthread_mutex_unlock(&g.lock);
	fuse_reply_poll(req, mask);
}

static void op_release(fuse_req_t req, struct fuse_file_info *fi)
{
	struct cfile *f = file_of(fi);
	pthread_mutex_lock(&g.lock);
	if (f->ph) {
		fuse_pollhandle_destroy(f->ph);
		f->ph = NULL;
	}
	g.n_open--;
	file_unref(f);
	pthread_mutex_unlock(&g.lock);
	fuse_reply_err(req, 0);
}

static void op_ioctl(fuse_req_t req, int cmd, void *arg, struct fuse_file_info *fi, unsigned flags,
		     const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	/* The kernel's TPM devices have no ioctls. */
	fuse_reply_err(req, ENOTTY);
}

static void signal_ready(int ok)
{
	if (g.ready_fd >= 0) {
		char c = ok ? 'R' : 'F';
		if (write(g.ready_fd, &c, 1) < 0) {
			/* the parent is gone; nothing to tell */
		}
		close(g.ready_fd);
		g.ready_fd = -1;
	}
}

static void op_init_done(void *userdata)
{
	char node[512];
	(void)userdata;
	snprintf(node, sizeof node, "%s/%s", g.dev_dir_name, g.name);
	if (g.takeover) {
		int rc = node_takeover(g.dev_fd, g.name, g.mode, g.uid, g.gid, g.err, sizeof g.err);
		if (rc) {
			g.setup_failed = 1;
			msg("--takeover: %s", g.err);
			signal_ready(0);
			fuse_session_exit(g.se);
			return;
		}
		g.taken_over = 1;
		pthread_mutex_lock(&g.rec_lock);
		recorder_event(&g.rec, "takeover", node, 0);
		pthread_mutex_unlock(&g.rec_lock);
	} else {
		struct stat st;
		for (int i = 0;
		     i < 500 && (fstatat(g.dev_fd, g.name, &st, 0) != 0 || !S_ISCHR(st.st_mode));
		     i++)
			usleep(10000);
		if (fchmodat(g.dev_fd, g.name, g.mode >= 0 ? (mode_t)g.mode : 0600, 0) != 0 ||
		    fchownat(g.dev_fd, g.name, g.uid >= 0 ? (uid_t)g.uid : 0,
			     g.gid >= 0 ? (gid_t)g.gid : 0, 0)) {
			g.setup_failed = 1;
			msg("cannot set mode/owner of %s: %s", node, strerror(errno));
			signal_ready(0);
			fuse_session_exit(g.se);
			return;
		}
	}
	msg("serving %s (backend %s)%s", node, g.shared ? g.shared->desc : g.backend_desc,
	    g.rec.w ? "" : ", not recording");
	signal_ready(1);
}

static const struct cuse_lowlevel_ops cuse_ops = {
    .init_done = op_init_done,
    .open = op_open,
    .read = op_read,
    .write = op_write,
    .release = op_release,
    .ioctl = op_ioctl,
    .poll = op_poll,
};

/* Detaches after the device is ready: the parent waits for one byte. */
static int daemonize(void)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		char c = 0;
		close(p[1]);
		ssize_t n;
		do
			n = read(p[0], &c, 1);
		while (n < 0 && errno == EINTR);
		_exit(n == 1 && c == 'R' ? 0 : 1);
	}
	close(p[0]);
	setsid();
	g.ready_fd = p[1];
	if (chdir("/") != 0) {
		/* not fatal */
	}
	int fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

static int parse_group(const char *s, long *gid)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s && !*end && v >= 0) {
		*gid = v;
		return 0;
	}
	struct group *gr = getgrnam(s);
	if (!gr)
		return -1;
	*gid = gr->gr_gid;
	return 0;
}

static int open_backend(const char *spec, char *err, size_t errlen)
{
	if (spec[0] == '/') {
		const char *base = strrchr(spec, '/') + 1;
		g.kind = BACKEND_DEVICE;
		g.per_open = !strncmp(base, "tpmrm", 5);
		if (g.per_open) {
			/* Reopened through /proc for every client: stays valid
			 * when --takeover renames the node. */
			int fd = open(spec, O_PATH | O_CLOEXEC);
			struct stat st;
			if (fd < 0 || fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
				snprintf(err, errlen, "%s: %s", spec,
					 fd < 0 ? strerror(errno) : "not a character device");
				return -ENODEV;
			}
			snprintf(g.reopen_name, sizeof g.reopen_name, "%d", fd);
			snprintf(g.backend_desc, sizeof g.backend_desc, "device:%s", spec);
			g.proc_fd_dir = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (g.proc_fd_dir < 0) {
				snprintf(err, errlen, "/proc/self/fd: %s", strerror(errno));
				return -errno;
			}
			/* Opened once now so that a bad backend fails here. */
			struct transport *t;
			int rc = reopen_backend(&t, err, errlen);
			if (rc)
				return rc;
			t->ops->close(t);
			snprintf(g.none.desc, sizeof g.none.desc, "device:%s", spec);
			return 0;
		}
		return transport_device_open(spec, &g.shared, err, errlen);
	}
	if (!strncmp(spec, "swtpm", 5) || !strncmp(spec, "tcp:", 4) || !strncmp(spec, "unix:", 5)) {
		g.kind = BACKEND_SWTPM;
		return transport_swtpm_open(spec, &g.shared, err, errlen);
	}
	g.kind = BACKEND_TCTI;
	return transport_tcti_open(spec, &g.shared, err, errlen);
}

int main(int argc, char **argv)
{
	const char *backend = NULL, *db_path = NULL, *trace_name = NULL, *probe = NULL,
		   *bench = NULL, *pidfile = NULL;
	int no_record = 0, foreground = 0, debug = 0, restore = 0, payloads = PAYLOADS_REDACTED;
	int excl = -1, count = 1, rounds = 1000, json = 0, ret = 1, bench_getrandom = 0;
	struct writer *w = NULL;
	pthread_t worker;
	int worker_started = 0;

	g.dev_dir_name = "/dev";
	g.name = NULL;
	enum {
		OPT_BACKEND = 1,
		OPT_NAME,
		OPT_DB,
		OPT_NOREC,
		OPT_MODE,
		OPT_GROUP,
		OPT_TAKEOVER,
		OPT_FG,
		OPT_PAYLOADS,
		OPT_TNAME,
		OPT_EXCL,
		OPT_SHARED,
		OPT_DEVDIR,
		OPT_DEBUG,
		OPT_RESTORE,
		OPT_PROBE,
		OPT_BENCH,
		OPT_COUNT,
		OPT_ROUNDS,
		OPT_JSON,
		OPT_HELP,
		OPT_PIDFILE,
		OPT_INITRD,
		OPT_BENCH_CMD
	};
	static const struct option opts[] = {{"backend", required_argument, 0, OPT_BACKEND},
					     {"name", required_argument, 0, OPT_NAME},
					     {"db", required_argument, 0, OPT_DB},
					     {"no-record", no_argument, 0, OPT_NOREC},
					     {"mode", required_argument, 0, OPT_MODE},
					     {"group", required_argument, 0, OPT_GROUP},
					     {"takeover", no_argument, 0, OPT_TAKEOVER},
					     {"foreground", no_argument, 0, OPT_FG},
					     {"payloads", required_argument, 0, OPT_PAYLOADS},
					     {"trace-name", required_argument, 0, OPT_TNAME},
					     {"exclusive", no_argument, 0, OPT_EXCL},
					     {"shared", no_argument, 0, OPT_SHARED},
					     {"dev-dir", required_argument, 0, OPT_DEVDIR},
					     {"debug", no_argument, 0, OPT_DEBUG},
					     {"restore", no_argument, 0, OPT_RESTORE},
					     {"probe", required_argument, 0, OPT_PROBE},
					     {"bench", required_argument, 0, OPT_BENCH},
					     {"count", required_argument, 0, OPT_COUNT},
					     {"rounds", required_argument, 0, OPT_ROUNDS},
					     {"json", no_argument, 0, OPT_JSON},
					     {"help", no_argument, 0, OPT_HELP},
					     {"pidfile", required_argument, 0, OPT_PIDFILE},
					     {"initrd", no_argument, 0, OPT_INITRD},
					     {"bench-command", required_argument, 0, OPT_BENCH_CMD},
					     {0, 0, 0, 0}};
	int o;
	while ((o = getopt_long(argc, argv, "hf", opts, NULL)) != -1) {
		switch (o) {
		case OPT_BACKEND:
			backend = optarg;
			break;
		case OPT_NAME:
			g.name = optarg;
			break;
		case OPT_DB:
			db_path = optarg;
			break;
		case OPT_NOREC:
			no_record = 1;
			break;
		case OPT_MODE: {
			char *end;
			long m = strtol(optarg, &end, 8);
			if (*end || m < 0 || m > 07777) {
				msg("--mode takes an octal mode, not '%s'", optarg);
				return 2;
			}
			g.mode = (int)m;
			break;
		}
		case OPT_GROUP:
			if (parse_group(optarg, &g.gid)) {
				msg("--group: no group '%s'", optarg);
				return 2;
			}
			break;
		case OPT_TAKEOVER:
			g.takeover = 1;
			break;
		case 'f':
		case OPT_FG:
			foreground = 1;
			break;
		case OPT_PAYLOADS:
			payloads = payload_mode_parse(optarg);
			if (payloads < 0) {
				msg("--payloads takes none, redacted or full, not '%s'", optarg);
				return 2;
			}
			break;
		case OPT_TNAME:
			trace_name = optarg;
			break;
		case OPT_EXCL:
			excl = 1;
			break;
		case OPT_SHARED:
			excl = 0;
			break;
		case OPT_DEVDIR:
			g.dev_dir_name = optarg;
			break;
		case OPT_DEBUG:
			debug = foreground = 1;
			break;
		case OPT_RESTORE:
			restore = 1;
			break;
		case OPT_PROBE:
			probe = optarg;
			break;
		case OPT_BENCH:
			bench = optarg;
			break;
		case OPT_COUNT:
			count = atoi(optarg);
			break;
		case OPT_ROUNDS:
			rounds = atoi(optarg);
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_BENCH_CMD:
			if (strcmp(optarg, "extend") && strcmp(optarg, "getrandom")) {
				msg("--bench-command takes extend or getrandom, not '%s'", optarg);
				return 2;
			}
			bench_getrandom = !strcmp(optarg, "getrandom");
			break;
		case OPT_PIDFILE:
			pidfile = optarg;
			break;
		case OPT_INITRD:
			/* systemd leaves processes whose argv[0] starts with '@'
			 * running across the switch to the real root
			 * (https://systemd.io/ROOT_STORAGE_DAEMONS/). */
			argv[0][0] = '@';
			break;
		case 'h':
		case OPT_HELP:
			fputs(usage, stdout);
			return 0;
		default:
			fprintf(stderr, "Try 'tpm-cuse-proxy --help'.\n");
			return 2;
		}
	}
	if (optind < argc) {
		msg("unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if (probe)
		return devtools_probe(probe, excl == 1) ? 1 : 0;
	if (bench) {
		const char *paths[8];
		int n = 0;
		char *list = strdup(bench), *save = NULL;
		for (char *p = strtok_r(list, ",", &save); p && n < 8;
		     p = strtok_r(NULL, ",", &save))
			paths[n++] = p;
		if (count <= 0 || rounds <= 0) {
			msg("--count and --rounds take positive numbers");
			return 2;
		}
		ret = devtools_bench(paths, n, count, rounds, json, bench_getrandom) ? 1 : 0;
		free(list);
		return ret;
	}
	/* The device directory and /sys/class, held open (takeover.c). */
	g.dev_fd = open(g.dev_dir_name, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (g.dev_fd < 0) {
		msg("%s: %s", g.dev_dir_name, strerror(errno));
		return 1;
	}
	takeover_init();
	if (restore) {
		int rc = g.name ? node_restore(g.dev_fd, g.name, g.err, sizeof g.err)
				: node_restore_all(g.dev_fd, g.err, sizeof g.err);
		if (rc < 0) {
			msg("--restore: %s", g.err);
			return 1;
		}
		msg("%s", rc ? "restored the kernel's TPM node" : "nothing to restore");
		return 0;
	}
	if (!g.name)
		g.name = "tpmproxy0";
	if (!backend) {
		msg("--backend is required (e.g. --backend /dev/tpmrm0)");
		return 2;
	}
	if (!db_path && !no_record) {
		msg("give --db FILE, or --no-record to forward without recording");
		return 2;
	}
	if (strchr(g.name, '/') || strlen(g.name) > 200) {
		msg("--name takes a plain device name (no '/')");
		return 2;
	}
	g.exclusive = excl >= 0 ? excl : strncmp(g.name, "tpmrm", 5) != 0;
	if (payloads == PAYLOADS_FULL && !no_record)
		msg("--payloads full: secrets will be stored in %s", db_path);
	fault_crash_init();

	/* A leftover from a proxy that died without its guardian: put the
	 * kernel's node back before taking it over again. */
	if (g.takeover) {
		int rc = node_restore(g.dev_fd, g.name, g.err, sizeof g.err);
		if (rc < 0) {
			msg("--takeover: %s", g.err);
			return 1;
		}
		if (rc > 0)
			msg("restored %s/%s left over by an earlier run", g.dev_dir_name, g.name);
	}

	if (!foreground && daemonize() != 0) {
		msg("cannot detach: %s", strerror(errno));
		return 1;
	}
	if (pidfile) {
		FILE *pf = fopen(pidfile, "we");
		if (!pf || fprintf(pf, "%d\n", (int)getpid()) < 0 || fclose(pf) != 0) {
			msg("cannot write %s: %s", pidfile, strerror(errno));
			goto out;
		}
	}
	/* The guardian holds no TPM, CUSE or database descriptor: fork it
	 * before any is opened. */
	if (g.takeover) {
		g.guard_fd = guardian_start(g.dev_fd, g.name);
		if (g.guard_fd < 0) {
			msg("cannot start the guardian: %s", strerror(-g.guard_fd));
			goto out;
		}
	}

	/* Only the main thread takes SIGTERM/SIGINT/SIGHUP (they stop the
	 * FUSE loop); the writer and the worker never see them. */
	sigset_t mask, old;
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &mask, &old);

	char node_path[512];
	snprintf(node_path, sizeof node_path, "%s/%s", g.dev_dir_name, g.name);
	if (open_backend(backend, g.err, sizeof g.err)) {
		msg("backend: %s", g.err);
		goto out;
	}
	if (!no_record) {
		sqlite3 *db = NULL;
		if (db_open(db_path, DB_CREATE, &db, g.err, sizeof g.err)) {
			msg("%s", g.err);
			goto out;
		}
		char source[600];
		snprintf(source, sizeof source, "cuse:%s <- %s", node_path, backend);
		struct trace_info ti = {.name = trace_name,
					.kind = "record",
					.source = source,
					.payloads = payload_mode_str(payloads)};
		int64_t trace_id = db_trace_begin(db, &ti);
		db_close(db);
		if (trace_id < 0) {
			msg("%s: cannot add a trace", db_path);
			goto out;
		}
		struct writer_cfg wc = {.path = db_path, .trace_id = trace_id};
		if (writer_start(&w, &wc, g.err, sizeof g.err)) {
			msg("%s", g.err);
			goto out;
		}
	}
	recorder_init(&g.rec, w, g.shared ? g.shared : &g.none, payloads);
	recorder_event(&g.rec, "record-start", backend, 0);
	if (pthread_create(&worker, NULL, worker_main, NULL) != 0) {
		msg("cannot start the worker thread");
		goto out;
	}
	worker_started = 1;

	char devname[300];
	/* With --takeover the CUSE node is born as NAME.real and swapped with
	 * the kernel's NAME in one step (takeover.c). */
	snprintf(devname, sizeof devname, "DEVNAME=%s%s", g.name, g.takeover ? ".real" : "");
	const char *dev_info[] = {devname};
	struct cuse_info ci = {.dev_info_argc = 1, .dev_info_argv = dev_info};
	char *fargv[] = {argv[0], "-f", "-s", debug ? "-d" : NULL, NULL};
	int multithreaded;
	g.se = cuse_lowlevel_setup(debug ? 4 : 3, fargv, &ci, &cuse_ops, &multithreaded, NULL);
	if (!g.se) {
		msg("cannot create the CUSE device %s (is the cuse module loaded?)", g.name);
		goto out;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	fuse_session_loop(g.se);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	ret = g.setup_failed ? 1 : 0;

out:
	/* The kernel's node first, so that it is never missing. */
	if (g.taken_over) {
		int rc = node_restore(g.dev_fd, g.name, g.err, sizeof g.err);
		if (rc < 0) {
			msg("restoring %s/%s: %s", g.dev_dir_name, g.name, g.err);
			ret = 1;
		}
		pthread_mutex_lock(&g.rec_lock);
		recorder_event(&g.rec, "restore", node_path, 0);
		pthread_mutex_unlock(&g.rec_lock);
	}
	signal_ready(0);
	if (worker_started) {
		pthread_mutex_lock(&g.lock);
		g.stop = 1;
		/* Requests still queued get ENODEV: the device is going away. */
		while (g.qhead) {
			struct cfile *f = g.qhead;
			g.qhead = f->qnext;
			f->enqueued = 0;
			if (f->wreq)
				fuse_reply_err(f->wreq, ENODEV);
			if (f->rreq)
				fuse_reply_err(f->rreq, ENODEV);
			f->wreq = f->rreq = NULL;
			file_unref(f);
		}
		g.qtail = NULL;
		pthread_cond_signal(&g.cond);
		pthread_mutex_unlock(&g.lock);
		pthread_join(worker, NULL);
	}
	if (g.se)
		cuse_lowlevel_teardown(g.se);
	if (w) {
		struct writer_stats st;
		recorder_stop_event(&g.rec, "record-stop", NULL);
		if (writer_stop(w, "complete", &st) != 0)
			ret = 1;
		else
			msg("%llu commands, %llu events recorded, %llu dropped",
			    (unsigned long long)st.commands, (unsigned long long)st.events,
			    (unsigned long long)st.dropped);
	}
	if (g.shared)
		g.shared->ops->close(g.shared);
	if (g.guard_fd >= 0)
		close(g.guard_fd);
	if (pidfile)
		unlink(pidfile);
	return ret;
}
