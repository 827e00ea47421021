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
#include "cuse_state.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuse_proxy.h"
#include "db/writer.h"
#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "recorder/transport/frame.h"

#define RSP_CAP (TPM_MAX_MESSAGE + 64)

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

struct cuse_state cuse_state = {.lock = PTHREAD_MUTEX_INITIALIZER,
				.rec_lock = PTHREAD_MUTEX_INITIALIZER,
				.cond = PTHREAD_COND_INITIALIZER,
				.mode = -1,
				.uid = -1,
				.gid = -1,
				.ready_fd = -1,
				.guard_fd = -1,
				.proc_fd_dir = -1,
				.dev_fd = -1};

void msg(const char *fmt, ...)
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
	if (cuse_state.kind == BACKEND_DEVICE)
		return -rc;
	if (rc == -ETIME || rc == -ETIMEDOUT)
		return ETIME;
	return EIO;
}

void fault_crash_init(void)
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
	cuse_state.crash_cc = (uint32_t)cc;
	cuse_state.crash_after = *end != 0;
	msg("TPMTRACE_FAULT_CUSE_CRASH: will crash at command 0x%x%s", cuse_state.crash_cc,
	    cuse_state.crash_after ? ", once answered" : "");
}

static void fault_crash(const uint8_t *cmd, size_t len, int after)
{
	if (!cuse_state.crash_cc || after != cuse_state.crash_after || len < TPM_HEADER_SIZE ||
	    wire_get_u32(cmd + 6) != cuse_state.crash_cc)
		return;
	struct rlimit none = {0, 0};
	setrlimit(RLIMIT_CORE, &none); /* no core file in the initramfs */
	msg("TPMTRACE_FAULT_CUSE_CRASH: crashing at command 0x%x", cuse_state.crash_cc);
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
	pthread_mutex_lock(&cuse_state.lock);
	for (;;) {
		while (!cuse_state.qhead && !cuse_state.stop)
			pthread_cond_wait(&cuse_state.cond, &cuse_state.lock);
		if (!cuse_state.qhead)
			break;
		struct cfile *f = cuse_state.qhead;
		cuse_state.qhead = f->qnext;
		if (!cuse_state.qhead)
			cuse_state.qtail = NULL;
		/* Our own copy: the client may write its next command as soon
		 * as it has the response, while this one is being logged. */
		size_t cmd_len = f->cmd_len;
		uint32_t client = f->client;
		memcpy(cmd, f->cmd, cmd_len);
		pthread_mutex_unlock(&cuse_state.lock);

		size_t rsp_len = 0;
		struct rec_timing tm = {0};
		/* Only this thread forwards (cuse_state.rec's backend and counters are
		 * its own); rec_lock guards the writer queue, which the FUSE
		 * thread also feeds, so it is taken for the record only: an
		 * open or a bad write elsewhere never waits for the TPM. */
		cuse_state.rec.backend = f->tr ? f->tr : cuse_state.shared;
		fault_crash(cmd, cmd_len, 0);
		int rc = recorder_forward(&cuse_state.rec, client, 0, cmd, cmd_len, rsp, RSP_CAP,
					  &rsp_len, &tm);

		pthread_mutex_lock(&cuse_state.lock);
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
		pthread_mutex_unlock(&cuse_state.lock);
		fault_crash(cmd, cmd_len, 1);

		/* The client has its answer; now the record. It may name the
		 * backend (cuse_state.rec.backend: in front of a tpmrm node, f's own
		 * transport), so f is released after it: a client that closed
		 * meanwhile would otherwise have freed that transport. */
		pthread_mutex_lock(&cuse_state.rec_lock);
		recorder_log(&cuse_state.rec, client, 0, cmd, cmd_len, rsp, rsp_len, &tm);
		pthread_mutex_unlock(&cuse_state.rec_lock);
		pthread_mutex_lock(&cuse_state.lock);
		file_unref(f);
	}
	pthread_mutex_unlock(&cuse_state.lock);
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
	int fd = openat(cuse_state.proc_fd_dir, cuse_state.reopen_name, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", cuse_state.backend_desc, strerror(errno));
		return -errno;
	}
	int rc = transport_device_from_fd(fd, cuse_state.backend_desc, out);
	if (rc)
		close(fd);
	return rc;
}

static void op_open(fuse_req_t req, struct fuse_file_info *fi)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	char err[512];
	struct cfile *f;

	pthread_mutex_lock(&cuse_state.lock);
	if (cuse_state.exclusive && cuse_state.n_open > 0) {
		/* tpm_open: one open of /dev/tpmN at a time. */
		pthread_mutex_unlock(&cuse_state.lock);
		fuse_reply_err(req, EBUSY);
		return;
	}
	cuse_state.n_open++;
	pthread_mutex_unlock(&cuse_state.lock);

	f = calloc(1, sizeof(*f));
	if (!f) {
		fuse_reply_err(req, ENOMEM);
		goto fail;
	}
	f->refs = 1;
	f->response_read = 1;
	if (cuse_state.per_open) {
		/* Each open of /dev/tpmrm0 is its own resource manager space,
		 * flushed when it is closed: keep that per client. */
		int rc = reopen_backend(&f->tr, err, sizeof err);
		if (rc) {
			free(f);
			fuse_reply_err(req, -rc);
			goto fail;
		}
	}
	pthread_mutex_lock(&cuse_state.rec_lock);
	f->client = recorder_client_pid(&cuse_state.rec, ctx->pid, ctx->uid);
	pthread_mutex_unlock(&cuse_state.rec_lock);
	fi->fh = (uint64_t)(uintptr_t)f;
	fi->direct_io = 1;
	fi->nonseekable = 1;
	if (fuse_reply_open(req, fi) != 0) {
		pthread_mutex_lock(&cuse_state.lock);
		file_unref(f);
		cuse_state.n_open--;
		pthread_mutex_unlock(&cuse_state.lock);
	}
	return;
fail:
	pthread_mutex_lock(&cuse_state.lock);
	cuse_state.n_open--;
	pthread_mutex_unlock(&cuse_state.lock);
}

static void record_bad_write(struct cfile *f, const char *buf, size_t size, int reason,
			     uint32_t declared)
{
	pthread_mutex_lock(&cuse_state.rec_lock);
	recorder_malformed(&cuse_state.rec, f->client, 0, (const uint8_t *)buf, size, reason,
			   declared);
	pthread_mutex_unlock(&cuse_state.rec_lock);
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
	pthread_mutex_lock(&cuse_state.lock);
	if ((!f->response_read && f->response_length) || f->enqueued) {
		pthread_mutex_unlock(&cuse_state.lock);
		fuse_reply_err(req, EBUSY);
		return;
	}
	/* The framing rule every recorder shares (recorder/transport/frame.h): the
	 * command is exactly the bytes its size field declares. */
	int fr = frame_tpm((const uint8_t *)buf, size, FRAME_MAX_MESSAGE, &hsize, &reason);
	if (size < 6 || size < hsize) {
		pthread_mutex_unlock(&cuse_state.lock);
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
		pthread_mutex_unlock(&cuse_state.lock);
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
		f->response_length = (long)transport_error_response(f->buf, TPM_RC_COMMAND_SIZE);
		f->response_read = 0;
		f->off = 0;
		notify_poll(f);
		pthread_mutex_unlock(&cuse_state.lock);
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
	if (cuse_state.qtail)
		cuse_state.qtail->qnext = f;
	else
		cuse_state.qhead = f;
	cuse_state.qtail = f;
	pthread_cond_signal(&cuse_state.cond);
	pthread_mutex_unlock(&cuse_state.lock);
	if (fi->flags & O_NONBLOCK)
		fuse_reply_write(req, size); /* the result comes with the read */
}

static void op_read(fuse_req_t req, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct cfile *f = file_of(fi);
	(void)off;
	pthread_mutex_lock(&cuse_state.lock);
	if (f->enqueued) {
		/* In flight: the kernel's read waits for the command's worker to
		 * finish (it holds buffer_mutex), O_NONBLOCK or not; so does this
		 * one. A second read on top of a waiting one is refused. */
		if (f->rreq) {
			pthread_mutex_unlock(&cuse_state.lock);
			fuse_reply_err(req, EAGAIN);
			return;
		}
		f->rreq = req;
		f->rsize = size;
		pthread_mutex_unlock(&cuse_state.lock);
		return;
	}
	serve_read(f, req, size);
	pthread_mutex_unlock(&cuse_state.lock);
}

/* tpm_common_poll: readable while a response (or part of it) waits,
 * writable otherwise. */
static void op_poll(fuse_req_t req, struct fuse_file_info *fi, struct fuse_pollhandle *ph)
{
	struct cfile *f = file_of(fi);
	unsigned mask;
	pthread_mutex_lock(&cuse_state.lock);
	if (ph) {
		if (f->ph)
			fuse_pollhandle_destroy(f->ph);
		f->ph = ph;
	}
	mask = f->response_length ? POLLIN | POLLRDNORM : POLLOUT | POLLWRNORM;
	pthread_mutex_unlock(&cuse_state.lock);
	fuse_reply_poll(req, mask);
}

static void op_release(fuse_req_t req, struct fuse_file_info *fi)
{
	struct cfile *f = file_of(fi);
	pthread_mutex_lock(&cuse_state.lock);
	if (f->ph) {
		fuse_pollhandle_destroy(f->ph);
		f->ph = NULL;
	}
	cuse_state.n_open--;
	file_unref(f);
	pthread_mutex_unlock(&cuse_state.lock);
	fuse_reply_err(req, 0);
}

static void op_ioctl(fuse_req_t req, int cmd, void *arg, struct fuse_file_info *fi, unsigned flags,
		     const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	/* The kernel's TPM devices have no ioctls. */
	fuse_reply_err(req, ENOTTY);
}

void signal_ready(int ok)
{
	if (cuse_state.ready_fd >= 0) {
		char c = ok ? 'R' : 'F';
		if (write(cuse_state.ready_fd, &c, 1) < 0) {
			/* the parent is gone; nothing to tell */
		}
		close(cuse_state.ready_fd);
		cuse_state.ready_fd = -1;
	}
}

static void op_init_done(void *userdata)
{
	char node[512];
	(void)userdata;
	snprintf(node, sizeof node, "%s/%s", cuse_state.dev_dir_name, cuse_state.name);
	if (cuse_state.takeover) {
		int rc = node_takeover(cuse_state.dev_fd, cuse_state.name, cuse_state.mode,
				       cuse_state.uid, cuse_state.gid, cuse_state.err,
				       sizeof cuse_state.err);
		if (rc) {
			cuse_state.setup_failed = 1;
			msg("--takeover: %s", cuse_state.err);
			signal_ready(0);
			fuse_session_exit(cuse_state.se);
			return;
		}
		cuse_state.taken_over = 1;
		pthread_mutex_lock(&cuse_state.rec_lock);
		recorder_event(&cuse_state.rec, "takeover", node, 0);
		pthread_mutex_unlock(&cuse_state.rec_lock);
	} else {
		struct stat st;
		for (int i = 0;
		     i < 500 && (fstatat(cuse_state.dev_fd, cuse_state.name, &st, 0) != 0 ||
				 !S_ISCHR(st.st_mode));
		     i++)
			usleep(10000);
		if (fchmodat(cuse_state.dev_fd, cuse_state.name,
			     cuse_state.mode >= 0 ? (mode_t)cuse_state.mode : 0600, 0) != 0 ||
		    fchownat(cuse_state.dev_fd, cuse_state.name,
			     cuse_state.uid >= 0 ? (uid_t)cuse_state.uid : 0,
			     cuse_state.gid >= 0 ? (gid_t)cuse_state.gid : 0, 0)) {
			cuse_state.setup_failed = 1;
			msg("cannot set mode/owner of %s: %s", node, strerror(errno));
			signal_ready(0);
			fuse_session_exit(cuse_state.se);
			return;
		}
	}
	msg("serving %s (backend %s)%s", node,
	    cuse_state.shared ? cuse_state.shared->desc : cuse_state.backend_desc,
	    cuse_state.rec.w ? "" : ", not recording");
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

int open_backend(const char *spec, char *err, size_t errlen)
{
	if (spec[0] == '/') {
		const char *base = strrchr(spec, '/') + 1;
		cuse_state.kind = BACKEND_DEVICE;
		cuse_state.per_open = !strncmp(base, "tpmrm", 5);
		if (cuse_state.per_open) {
			/* Reopened through /proc for every client: stays valid
			 * when --takeover renames the node. */
			int fd = open(spec, O_PATH | O_CLOEXEC);
			struct stat st;
			if (fd < 0 || fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
				snprintf(err, errlen, "%s: %s", spec,
					 fd < 0 ? strerror(errno) : "not a character device");
				return -ENODEV;
			}
			snprintf(cuse_state.reopen_name, sizeof cuse_state.reopen_name, "%d", fd);
			snprintf(cuse_state.backend_desc, sizeof cuse_state.backend_desc,
				 "device:%s", spec);
			cuse_state.proc_fd_dir =
			    open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (cuse_state.proc_fd_dir < 0) {
				snprintf(err, errlen, "/proc/self/fd: %s", strerror(errno));
				return -errno;
			}
			/* Opened once now so that a bad backend fails here. */
			struct transport *t;
			int rc = reopen_backend(&t, err, errlen);
			if (rc)
				return rc;
			t->ops->close(t);
			snprintf(cuse_state.none.desc, sizeof cuse_state.none.desc, "device:%s",
				 spec);
			return 0;
		}
		return transport_device_open(spec, &cuse_state.shared, err, errlen);
	}
	if (!strncmp(spec, "swtpm", 5) || !strncmp(spec, "tcp:", 4) || !strncmp(spec, "unix:", 5)) {
		cuse_state.kind = BACKEND_SWTPM;
		return transport_swtpm_open(spec, &cuse_state.shared, err, errlen);
	}
	cuse_state.kind = BACKEND_TCTI;
	return transport_tcti_open(spec, &cuse_state.shared, err, errlen);
}

static pthread_t worker;
static int worker_started;

int cuse_worker_start(void)
{
	if (pthread_create(&worker, NULL, worker_main, NULL) != 0)
		return -1;
	worker_started = 1;
	return 0;
}

void cuse_worker_stop(void)
{
	if (!worker_started)
		return;
	pthread_mutex_lock(&cuse_state.lock);
	cuse_state.stop = 1;
	/* Requests still queued get ENODEV: the device is going away. */
	while (cuse_state.qhead) {
		struct cfile *f = cuse_state.qhead;
		cuse_state.qhead = f->qnext;
		f->enqueued = 0;
		if (f->wreq)
			fuse_reply_err(f->wreq, ENODEV);
		if (f->rreq)
			fuse_reply_err(f->rreq, ENODEV);
		f->wreq = f->rreq = NULL;
		file_unref(f);
	}
	cuse_state.qtail = NULL;
	pthread_cond_signal(&cuse_state.cond);
	pthread_mutex_unlock(&cuse_state.lock);
	pthread_join(worker, NULL);
	worker_started = 0;
}

int cuse_device_setup(char *argv0, int debug)
{
	char devname[300];
	/* With --takeover the CUSE node is born as NAME.real and swapped with
	 * the kernel's NAME in one step (takeover.c). */
	snprintf(devname, sizeof devname, "DEVNAME=%s%s", cuse_state.name,
		 cuse_state.takeover ? ".real" : "");
	const char *dev_info[] = {devname};
	struct cuse_info ci = {.dev_info_argc = 1, .dev_info_argv = dev_info};
	char *fargv[] = {argv0, "-f", "-s", debug ? "-d" : NULL, NULL};
	int multithreaded;
	cuse_state.se =
	    cuse_lowlevel_setup(debug ? 4 : 3, fargv, &ci, &cuse_ops, &multithreaded, NULL);
	return cuse_state.se ? 0 : -1;
}
