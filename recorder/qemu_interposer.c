/* The QEMU interposer (recorder/qemu_interposer.h): qemu_interposer_new
 * connects to swtpm's control channel and listens for QEMU's `-tpmdev emulator`
 * control socket; qemu_interposer_run relays each control request to swtpm and
 * records it as an event, takes QEMU's CMD_SET_DATAFD descriptor (SCM_RIGHTS)
 * and gives swtpm the end of a socketpair of its own instead, then relays every
 * command between the two through the recording core (recorder.h) at the
 * locality QEMU last set. qemu_interposer_transport is the swtpm side as a
 * transport; qemu_interposer_ctrl_count and qemu_interposer_free round it off. */
#include "recorder/qemu_interposer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/tpm/decode.h"
#include "model/policy.h"
#include "model/tpm/wire.h"
#include "recorder/transport/netutil.h"
#include "recorder/transport/frame.h"

#define CTRL_CAP      (64 * 1024 + 64)
#define IO_TIMEOUT_MS 120000

/* The data channel to swtpm: the interposer's end of the socketpair whose
 * other end swtpm got with SET_DATAFD. */
struct fd_transport {
	struct transport t;
	int fd;
};

struct qemu_interposer {
	struct fd_transport data; /* to swtpm */
	int lis;		  /* QEMU connects here */
	int qctrl;		  /* QEMU's control connection */
	int qdata;		  /* QEMU's data fd (from SET_DATAFD) */
	int sctrl;		  /* swtpm's control channel */
	char lis_path[108];
	struct net_sock_id lis_id; /* the socket file made there */
	uint8_t locality;
	uint32_t client;
	/* Whose commands: the firmware's until the kernel's first command
	 * (policy_kernel_first_cmd), the guest's (kernel or user space, not
	 * told apart here) from then on until the next power-on. */
	int in_guest;
	uint32_t side_client[2]; /* client ids of "firmware" and "guest", 0 until made */
	unsigned long n_ctrl;
	uint8_t req[CTRL_CAP];
	uint8_t rsp[CTRL_CAP];
	size_t cmd_len;			     /* bytes from QEMU not handled yet */
	uint8_t cmd[FRAME_MAX_MESSAGE + 64]; /* ... they start a command */
	uint8_t out[TPM_MAX_MESSAGE + 64];
};

static int fd_transmit(struct transport *t, uint8_t locality, const uint8_t *cmd, size_t len,
		       uint8_t *rsp, size_t cap, size_t *rsp_len)
{
	struct fd_transport *f = (struct fd_transport *)t;
	/* The locality went to swtpm on the control channel (SET_LOCALITY)
	 * before QEMU sent this command. */
	(void)locality;
	if (f->fd < 0)
		return -ENOTCONN;
	int stale = net_pending_bytes(f->fd);
	if (stale > 0) {
		/* swtpm sent more than its last response declared: those bytes
		 * are dropped, never taken for this command's answer. */
		uint8_t junk[512];
		t->stale = (uint32_t)stale;
		while (stale > 0) {
			ssize_t n = recv(f->fd, junk, sizeof junk, MSG_DONTWAIT);
			if (n <= 0)
				break;
			stale -= (int)n;
		}
	}
	int rc = net_write_full(f->fd, cmd, len, t->timeout_ms);
	if (!rc)
		rc = net_read_tpm_message(f->fd, rsp, cap, rsp_len, t->timeout_ms);
	return rc;
}

static void fd_close(struct transport *t)
{
	(void)t; /* owned by the interposer */
}

static const struct transport_ops fd_ops = {fd_transmit, NULL, fd_close};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int qemu_interposer_new(struct qemu_interposer **out, const char *qemu_ctrl_path,
			const char *swtpm_ctrl_path, int connect_wait_ms, char *err, size_t errlen)
{
	struct qemu_interposer *qi = calloc(1, sizeof(*qi));
	struct endpoint ep = {.is_unix = 1}, sw = {.is_unix = 1};
	int rc;
	if (!qi)
		return -ENOMEM;
	qi->lis = qi->qctrl = qi->qdata = qi->sctrl = qi->data.fd = -1;
	qi->data.t.ops = &fd_ops;
	qi->data.t.timeout_ms = IO_TIMEOUT_MS;
	snprintf(qi->data.t.desc, sizeof qi->data.t.desc, "swtpm-ctrl:%s", swtpm_ctrl_path);
	if (strlen(qemu_ctrl_path) >= sizeof ep.path || strlen(swtpm_ctrl_path) >= sizeof sw.path) {
		snprintf(err, errlen, "socket path too long");
		rc = -ENAMETOOLONG;
		goto fail;
	}
	strcpy(ep.path, qemu_ctrl_path);
	strcpy(sw.path, swtpm_ctrl_path);
	for (int waited = 0;; waited += 10) {
		rc = net_endpoint_connect(&sw, &qi->sctrl);
		if (!rc || waited >= connect_wait_ms)
			break;
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (rc) {
		snprintf(err, errlen, "cannot connect to swtpm's control socket %s: %s",
			 swtpm_ctrl_path, strerror(-rc));
		goto fail;
	}
	rc = net_endpoint_listen_id(&ep, &qi->lis, &qi->lis_id, err, errlen);
	if (rc)
		goto fail;
	strcpy(qi->lis_path, qemu_ctrl_path);
	*out = qi;
	return 0;
fail:
	qemu_interposer_free(qi);
	return rc;
}

struct transport *qemu_interposer_transport(struct qemu_interposer *qi)
{
	return &qi->data.t;
}

unsigned long qemu_interposer_ctrl_count(const struct qemu_interposer *qi)
{
	return qi->n_ctrl;
}

void qemu_interposer_free(struct qemu_interposer *qi)
{
	if (!qi)
		return;
	close_fd(&qi->lis);
	close_fd(&qi->qctrl);
	close_fd(&qi->qdata);
	close_fd(&qi->sctrl);
	close_fd(&qi->data.fd);
	if (qi->lis_path[0]) {
		struct endpoint ep = {.is_unix = 1};
		memcpy(ep.path, qi->lis_path, sizeof ep.path);
		net_endpoint_unlink(&ep, &qi->lis_id);
	}
	free(qi);
}

static int send_fd(int sock, const uint8_t *buf, size_t len, int fd)
{
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
	memset(&u, 0, sizeof u);
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	ssize_t n;
	do
		n = sendmsg(sock, &m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* Reads one control request from QEMU; a passed descriptor lands in *fd. */
static ssize_t recv_request(int sock, uint8_t *buf, size_t cap, int *fd)
{
	struct iovec iov = {.iov_base = buf, .iov_len = cap};
	union {
		char b[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} u;
	struct msghdr m = {
	    .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
	ssize_t n;
	*fd = -1;
	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfd; i++) {
			int x;
			memcpy(&x, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (*fd < 0)
				*fd = x;
			else
				close(x);
		}
	}
	return n;
}

/* CMD_SET_DATAFD: QEMU's end stays with us; swtpm gets the end of a new
 * socketpair, so that every command passes through the relay. */
static uint32_t take_datafd(struct qemu_interposer *qi, int qfd, int *rc)
{
	int sp[2];
	uint8_t req[4], rsp[8];
	*rc = 0;
	if (qfd < 0)
		return SWTPM_TPM_BAD_ORDINAL; /* as swtpm answers a missing fd */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0) {
		*rc = -errno;
		close(qfd);
		return TPM_RC_FAILURE;
	}
	wire_put_u32(req, SWTPM_CMD_SET_DATAFD);
	*rc = send_fd(qi->sctrl, req, 4, sp[1]);
	close(sp[1]);
	if (!*rc)
		*rc = net_read_full(qi->sctrl, rsp, 4, IO_TIMEOUT_MS);
	if (*rc) {
		close(sp[0]);
		close(qfd);
		return TPM_RC_FAILURE;
	}
	uint32_t result = wire_get_u32(rsp);
	if (result != 0) {
		close(sp[0]);
		close(qfd);
		return result;
	}
	close_fd(&qi->qdata);
	close_fd(&qi->data.fd);
	qi->qdata = qfd;
	qi->cmd_len = 0;
	qi->data.fd = sp[0];
	return 0;
}

static void ctrl_event(struct qemu_interposer *qi, struct recorder *rec, uint32_t code,
		       const uint8_t *req, size_t len, uint32_t result, int io_rc)
{
	char kind[48], detail[160];
	int o = 0;
	snprintf(kind, sizeof kind, "ctrl:%s", swtpm_ctrl_name(code));
	detail[0] = 0;
	switch (code) {
	case SWTPM_CMD_INIT:
		/* INIT is the TPM's power-on (TPM_Init, Part 1 section 12). */
		o = snprintf(detail, sizeof detail, "power-on flags=0x%x ",
			     len >= 8 ? wire_get_u32(req + 4) : 0);
		break;
	case SWTPM_CMD_SHUTDOWN:
		o = snprintf(detail, sizeof detail, "power-off ");
		break;
	case SWTPM_CMD_STOP:
		o = snprintf(detail, sizeof detail, "reset ");
		break;
	case SWTPM_CMD_SET_LOCALITY:
	case SWTPM_CMD_RESET_TPMESTABLISHED:
		o = snprintf(detail, sizeof detail, "locality=%u ", len >= 5 ? req[4] : 0);
		break;
	case SWTPM_CMD_SET_BUFFERSIZE:
		o = snprintf(detail, sizeof detail, "size=%u ",
			     len >= 8 ? wire_get_u32(req + 4) : 0);
		break;
	}
	if (io_rc)
		snprintf(detail + o, sizeof detail - (size_t)o, "failed: %s", strerror(-io_rc));
	else
		snprintf(detail + o, sizeof detail - (size_t)o, "result=0x%x", result);
	recorder_event(rec, kind, detail, qi->client);
}

/* One control request from QEMU. Returns 0, or -1 when QEMU is gone. */
static int ctrl_request(struct qemu_interposer *qi, struct recorder *rec)
{
	int passed_fd, rc = 0;
	ssize_t n = recv_request(qi->qctrl, qi->req, sizeof qi->req, &passed_fd);
	if (n <= 0) {
		if (passed_fd >= 0)
			close(passed_fd);
		return -1;
	}
	size_t len = (size_t)n;
	if (len < 4) {
		/* QEMU writes each request whole; wait for the code. */
		rc = net_read_full(qi->qctrl, qi->req + len, 4 - len, IO_TIMEOUT_MS);
		if (rc)
			return -1;
		len = 4;
	}
	uint32_t code = wire_get_u32(qi->req);
	size_t rsp_len = 0;
	uint32_t result = 0;
	qi->n_ctrl++;

	if (code == SWTPM_CMD_SET_DATAFD) {
		result = take_datafd(qi, passed_fd, &rc);
		wire_put_u32(qi->rsp, result);
		rsp_len = 4;
	} else {
		if (passed_fd >= 0)
			close(passed_fd);
		if (code == SWTPM_CMD_SET_STATEBLOB && len >= 16) {
			/* header, then the blob QEMU writes separately */
			size_t want = 16 + (size_t)wire_get_u32(qi->req + 12);
			if (want > sizeof qi->req)
				return -1;
			if (len < want &&
			    net_read_full(qi->qctrl, qi->req + len, want - len, IO_TIMEOUT_MS))
				return -1;
			len = want;
		}
		rc = net_write_full(qi->sctrl, qi->req, len, IO_TIMEOUT_MS);
		if (!rc) {
			ssize_t got =
			    net_read_some(qi->sctrl, qi->rsp, sizeof qi->rsp, IO_TIMEOUT_MS);
			if (got <= 0) {
				rc = got == 0 ? -ECONNRESET : (int)got;
			} else {
				rsp_len = (size_t)got;
				size_t want = frame_ctrl_rsp_size(code, qi->rsp, rsp_len);
				if (want > sizeof qi->rsp)
					want = sizeof qi->rsp;
				if (want > rsp_len) {
					rc = net_read_full(qi->sctrl, qi->rsp + rsp_len,
							   want - rsp_len, IO_TIMEOUT_MS);
					if (!rc)
						rsp_len = want;
				}
			}
		}
		if (rc) {
			/* swtpm is gone: QEMU gets a failure, not a hang. */
			size_t want = frame_ctrl_rsp_size(code, NULL, 0);
			memset(qi->rsp, 0, want);
			wire_put_u32(qi->rsp, 0x09); /* TPM_FAIL */
			rsp_len = want;
		}
		result =
		    rsp_len >= 4 && code != SWTPM_CMD_GET_CAPABILITY ? wire_get_u32(qi->rsp) : 0;
		if (code == SWTPM_CMD_SET_LOCALITY && !rc && len >= 5 && result == 0)
			qi->locality = qi->req[4];
		if (code == SWTPM_CMD_INIT)
			qi->in_guest = 0;
	}
	ctrl_event(qi, rec, code, qi->req, len, result, rc);
	if (net_write_full(qi->qctrl, qi->rsp, rsp_len, IO_TIMEOUT_MS))
		return -1;
	return 0;
}

/* What QEMU sent on the data channel: every whole command in it, each
 * exactly the bytes its size field declares (recorder/transport/frame.h); the
 * rest waits for more. Returns 0, or -1 when the channel is to be closed
 * (QEMU closed it, or sent what cannot be framed). */
static int data_readable(struct qemu_interposer *qi, struct recorder *rec)
{
	int eof = 0;
	ssize_t n =
	    recv(qi->qdata, qi->cmd + qi->cmd_len, sizeof qi->cmd - qi->cmd_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		eof = 1;
	else
		qi->cmd_len += (size_t)n;
	for (;;) {
		uint32_t size;
		int reason;
		int fr = frame_tpm(qi->cmd, qi->cmd_len, FRAME_MAX_MESSAGE, &size, &reason);
		if (fr == FRAME_TPM_MORE) {
			if (eof && qi->cmd_len)
				recorder_malformed(rec, qi->client, qi->locality, qi->cmd,
						   qi->cmd_len, reason, size);
			return eof ? -1 : 0;
		}
		if (fr == FRAME_TPM_BAD) {
			/* Never reaches swtpm; QEMU gets a TPM error, and the
			 * channel, which cannot be framed past it, is closed. */
			uint8_t e[TPM_HEADER_SIZE];
			size_t el = transport_error_response(e, TPM_RC_COMMAND_SIZE);
			net_write_full(qi->qdata, e, el, IO_TIMEOUT_MS);
			recorder_malformed(rec, qi->client, qi->locality, qi->cmd, qi->cmd_len,
					   reason, size);
			return -1;
		}
		size_t rsp_len = 0;
		struct rec_timing tm = {0};
		if (!qi->in_guest && policy_kernel_first_cmd(qi->cmd, size))
			qi->in_guest = 1;
		uint32_t *cl = &qi->side_client[qi->in_guest];
		if (!*cl)
			*cl = recorder_client_peer(rec, qi->in_guest ? "guest" : "firmware");
		uint32_t client = *cl;
		recorder_forward(rec, client, qi->locality, qi->cmd, size, qi->out, sizeof qi->out,
				 &rsp_len, &tm);
		/* QEMU reads the 10-byte header, then the size it announces. */
		int wrc = net_write_full(qi->qdata, qi->out, rsp_len, IO_TIMEOUT_MS);
		recorder_log(rec, client, qi->locality, qi->cmd, size, qi->out, rsp_len, &tm);
		memmove(qi->cmd, qi->cmd + size, qi->cmd_len - size);
		qi->cmd_len -= size;
		if (wrc)
			return -1;
	}
}

static void accept_qemu(struct qemu_interposer *qi, struct recorder *rec)
{
	int fd = accept4(qi->lis, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (qi->qctrl >= 0) {
		/* One QEMU per interposer. */
		close(fd);
		return;
	}
	qi->qctrl = fd;
	struct ucred cr;
	socklen_t cl = sizeof cr;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 && cr.pid > 0)
		qi->client = recorder_client_pid(rec, cr.pid, cr.uid);
	else
		qi->client = recorder_client_peer(rec, "qemu");
	recorder_event(rec, "qemu-connect", qi->lis_path, qi->client);
}

int qemu_interposer_run(struct qemu_interposer *qi, struct recorder *rec, int wake_fd,
			int (*wake)(void *ctx), void *ctx)
{
	for (;;) {
		struct pollfd p[4];
		int n = 0, i_wake = -1, i_lis = -1, i_ctrl = -1, i_data = -1;
		if (wake_fd >= 0) {
			i_wake = n;
			p[n++] = (struct pollfd){.fd = wake_fd, .events = POLLIN};
		}
		i_lis = n;
		p[n++] = (struct pollfd){.fd = qi->lis, .events = POLLIN};
		if (qi->qctrl >= 0) {
			i_ctrl = n;
			p[n++] = (struct pollfd){.fd = qi->qctrl, .events = POLLIN};
		}
		if (qi->qdata >= 0) {
			i_data = n;
			p[n++] = (struct pollfd){.fd = qi->qdata, .events = POLLIN};
		}
		int r = poll(p, (nfds_t)n, -1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (i_wake >= 0 && (p[i_wake].revents & POLLIN) && wake(ctx))
			return 1;
		/* Data before control: QEMU waits for each answer, so at most
		 * one of them has something, but a closing QEMU may have both. */
		if (i_data >= 0 && p[i_data].revents) {
			if (data_readable(qi, rec) < 0) {
				recorder_event(rec, "data-channel-closed", NULL, qi->client);
				close_fd(&qi->qdata);
				qi->cmd_len = 0;
			}
		}
		if (i_ctrl >= 0 && p[i_ctrl].revents) {
			if (ctrl_request(qi, rec) < 0) {
				recorder_event(rec, "qemu-disconnect", NULL, qi->client);
				close_fd(&qi->qctrl);
				close_fd(&qi->qdata);
				return 0;
			}
		}
		if (p[i_lis].revents & POLLIN)
			accept_qemu(qi, rec);
	}
}
