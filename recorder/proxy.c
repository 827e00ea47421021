#include "recorder/proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "model/decode.h"
#include "model/wire.h"
#include "recorder/proxy_frame.h"

#define MAX_LISTEN		8
#define MAX_CONN		1024
#define IN_CAP			(FRAME_MAX_MESSAGE + 64)
#define CLIENT_WRITE_TIMEOUT_MS 2000

struct conn {
	int fd;
	enum listen_kind kind;
	enum frame_mode mode;
	uint32_t client;
	size_t in_len;
	uint8_t in[IN_CAP];
};

struct listener {
	int fd;
	enum listen_kind kind;
	struct endpoint ep;
};

struct proxy {
	struct recorder *rec;
	struct listener lis[MAX_LISTEN];
	unsigned n_lis;
	struct conn *conns[MAX_CONN];
	unsigned n_conns;
	uint8_t locality; /* set through the control channel for raw clients */
	int powered;	  /* MS simulator power state as seen by platform clients */
	uint8_t rsp[TPM_MAX_MESSAGE + 16];
};

int proxy_new(struct proxy **out, struct recorder *rec)
{
	struct proxy *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->rec = rec;
	p->powered = 1;
	*out = p;
	return 0;
}

int proxy_listen(struct proxy *p, const struct endpoint *ep, enum listen_kind kind, char *err,
		 size_t errlen)
{
	if (p->n_lis == MAX_LISTEN) {
		snprintf(err, errlen, "too many listening sockets");
		return -ENOSPC;
	}
	struct listener *l = &p->lis[p->n_lis];
	int rc = endpoint_listen(ep, &l->fd, err, errlen);
	if (rc)
		return rc;
	l->kind = kind;
	l->ep = *ep;
	p->n_lis++;
	return 0;
}

static void conn_close(struct proxy *p, unsigned i)
{
	close(p->conns[i]->fd);
	free(p->conns[i]);
	p->conns[i] = p->conns[--p->n_conns];
}

static void accept_one(struct proxy *p, struct listener *l)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof sa;
	int fd = accept4(l->fd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	if (p->n_conns == MAX_CONN) {
		close(fd);
		return;
	}
	struct conn *c = malloc(sizeof(*c));
	if (!c) {
		close(fd);
		return;
	}
	c->fd = fd;
	c->kind = l->kind;
	c->mode = FRAME_MODE_UNKNOWN;
	c->in_len = 0;
	if (l->ep.is_unix) {
		struct ucred cr;
		socklen_t cl = sizeof cr;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 && cr.pid > 0)
			c->client = recorder_client_pid(p->rec, cr.pid, cr.uid);
		else
			c->client = recorder_client_peer(p->rec, "unix");
	} else {
		char host[INET6_ADDRSTRLEN] = "?";
		set_nodelay(fd);
		if (sa.ss_family == AF_INET)
			inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, host,
				  sizeof host);
		else if (sa.ss_family == AF_INET6)
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, host,
				  sizeof host);
		c->client = recorder_client_peer(p->rec, host);
	}
	p->conns[p->n_conns++] = c;
}

/* Sends the response in the connection's framing. Returns 0 or -errno. */
static int reply(struct conn *c, const uint8_t *rsp, size_t len)
{
	if (c->mode == FRAME_MODE_MSSIM) {
		/* u32 size | response | u32 0 (TpmTcpProtocol.h). */
		uint8_t frame[TPM_MAX_MESSAGE + 24];
		wire_put_u32(frame, (uint32_t)len);
		memcpy(frame + 4, rsp, len);
		wire_put_u32(frame + 4 + len, 0);
		return write_full(c->fd, frame, len + 8, CLIENT_WRITE_TIMEOUT_MS);
	}
	return write_full(c->fd, rsp, len, CLIENT_WRITE_TIMEOUT_MS);
}

static void consume(struct conn *c, size_t n)
{
	memmove(c->in, c->in + n, c->in_len - n);
	c->in_len -= n;
}

static int forward(struct proxy *p, struct conn *c, uint8_t locality, const uint8_t *cmd,
		   size_t len)
{
	struct rec_timing tm = {0};
	size_t rsp_len = 0;
	recorder_forward(p->rec, c->client, locality, cmd, len, p->rsp, sizeof p->rsp, &rsp_len,
			 &tm);
	int rc = reply(c, p->rsp, rsp_len);
	recorder_log(p->rec, c->client, locality, cmd, len, p->rsp, rsp_len, &tm);
	return rc;
}

/* Handles whatever complete messages a data connection has buffered.
 * Returns 0 to keep the connection, -1 to close it. */
static int data_messages(struct proxy *p, struct conn *c, int eof)
{
	for (;;) {
		struct frame f;
		frame_data(&c->mode, c->in, c->in_len, eof, p->locality, &f);
		switch (f.what) {
		case FRAME_MORE:
			return 0;
		case FRAME_CLOSE:
			return -1;
		case FRAME_MALFORMED:
			/* Cannot be framed: record what arrived, close. */
			recorder_malformed(p->rec, c->client, f.locality, c->in + f.off, f.len,
					   f.reason, f.declared);
			return -1;
		case FRAME_REFUSE: {
			/* Never reaches the TPM: the client gets a TPM error. */
			uint8_t err[TPM_HEADER_SIZE];
			int wrc = reply(c, err, tpm_error_response(err, f.rc));
			recorder_malformed(p->rec, c->client, f.locality, c->in + f.off, f.len,
					   f.reason, f.declared);
			if (wrc || !f.consume)
				return -1;
			consume(c, f.consume);
			continue;
		}
		case FRAME_SESSION_END:
			recorder_event(p->rec, "mssim", "SESSION_END", c->client);
			return -1;
		case FRAME_HANDSHAKE: {
			uint8_t out[12];
			wire_put_u32(out, 1);
			wire_put_u32(out + 4, 0);
			wire_put_u32(out + 8, 0);
			consume(c, f.consume);
			if (write_full(c->fd, out, sizeof out, CLIENT_WRITE_TIMEOUT_MS))
				return -1;
			continue;
		}
		case FRAME_COMMAND:
			if (forward(p, c, f.locality, c->in + f.off, f.len))
				return -1;
			consume(c, f.consume);
			continue;
		}
		return -1;
	}
}

/* swtpm control channel: one read is one request (as swtpm itself reads it). */
static int ctrl_message(struct proxy *p, struct conn *c)
{
	uint8_t rsp[4200];
	size_t rsp_len = 0;
	char detail[64] = "";
	struct transport *t = p->rec->backend;
	uint32_t code;

	if (frame_ctrl(c->in, c->in_len, &code, detail, sizeof detail))
		return -1;
	char kind[48];
	snprintf(kind, sizeof kind, "ctrl:%s", swtpm_ctrl_name(code));
	recorder_event(p->rec, kind, detail[0] ? detail : NULL, c->client);
	if (code == SWTPM_CMD_SET_DATAFD) {
		/* A data channel handed over by file descriptor is the QEMU
		 * interposer's job; refuse here rather than lose its traffic. */
		wire_put_u32(rsp, 0x0A); /* TPM_BAD_PARAMETER as swtpm reports it */
		rsp_len = 4;
	} else if (!t->ops->ctrl ||
		   t->ops->ctrl(t, c->in, c->in_len, rsp, sizeof rsp, &rsp_len) != 0) {
		wire_put_u32(rsp, TPM_RC_FAILURE);
		rsp_len = 4;
	} else if (code == SWTPM_CMD_SET_LOCALITY && c->in_len >= 5 && wire_get_u32(rsp) == 0) {
		p->locality = c->in[4];
	}
	c->in_len = 0;
	return write_full(c->fd, rsp, rsp_len, CLIENT_WRITE_TIMEOUT_MS) ? -1 : 0;
}

static uint32_t ctrl_simple(struct transport *t, uint32_t code, const uint8_t *arg, size_t n)
{
	uint8_t req[4 + 4100], rsp[64];
	size_t rl;
	wire_put_u32(req, code);
	if (n)
		memcpy(req + 4, arg, n);
	if (!t->ops->ctrl || t->ops->ctrl(t, req, 4 + n, rsp, sizeof rsp, &rl) || rl < 4)
		return TPM_RC_FAILURE;
	return wire_get_u32(rsp);
}

/* MS simulator platform port, mapped onto swtpm's control channel. */
static int platform_messages(struct proxy *p, struct conn *c, int eof)
{
	struct transport *t = p->rec->backend;
	for (;;) {
		size_t used = 0;
		int fr = frame_platform(c->in, c->in_len, &used);
		if (fr < 0)
			return -1;
		if (fr == 0)
			break;
		uint32_t code = wire_get_u32(c->in);
		uint32_t result = 0;
		uint8_t zero4[4] = {0};

		switch (code) {
		case MS_SIGNAL_POWER_ON:
			/* Power on when already on is a no-op for the simulator. */
			if (!p->powered)
				result = ctrl_simple(t, SWTPM_CMD_INIT, zero4, 4);
			if (!result)
				p->powered = 1;
			break;
		case MS_SIGNAL_POWER_OFF:
			if (p->powered)
				result = ctrl_simple(t, SWTPM_CMD_STOP, NULL, 0);
			p->powered = 0;
			break;
		case MS_SIGNAL_RESET:
		case MS_SIGNAL_RESTART:
			result = ctrl_simple(t, SWTPM_CMD_INIT, zero4, 4);
			break;
		case MS_SIGNAL_CANCEL_ON:
			result = ctrl_simple(t, SWTPM_CMD_CANCEL_TPM_CMD, NULL, 0);
			break;
		case MS_SIGNAL_HASH_START:
			result = ctrl_simple(t, SWTPM_CMD_HASH_START, NULL, 0);
			break;
		case MS_SIGNAL_HASH_END:
			result = ctrl_simple(t, SWTPM_CMD_HASH_END, NULL, 0);
			break;
		case MS_SIGNAL_HASH_DATA:
			result = ctrl_simple(t, SWTPM_CMD_HASH_DATA, c->in + 4, used - 4);
			break;
		case MS_SET_ALTERNATIVE_RESULT:
		case MS_TEST_FAILURE_MODE:
			break;
		case MS_SESSION_END:
			recorder_event(p->rec, "platform:SESSION_END", NULL, c->client);
			return -1;
		case MS_GET_COMMAND_RESPONSE_SIZES: {
			uint8_t out[12];
			wire_put_u32(out, TPM_MAX_MESSAGE);
			wire_put_u32(out + 4, TPM_MAX_MESSAGE);
			wire_put_u32(out + 8, 0);
			consume(c, used);
			if (write_full(c->fd, out, sizeof out, CLIENT_WRITE_TIMEOUT_MS))
				return -1;
			continue;
		}
		case MS_SIGNAL_PHYS_PRES_ON:
		case MS_SIGNAL_PHYS_PRES_OFF:
		case MS_SIGNAL_CANCEL_OFF:
		case MS_SIGNAL_NV_ON:
		case MS_SIGNAL_NV_OFF:
		case MS_SIGNAL_KEY_CACHE_ON:
		case MS_SIGNAL_KEY_CACHE_OFF:
		case MS_STOP:
			break;
		default:
			result = 1; /* the simulator's answer to an unknown code */
			break;
		}
		char kind[48];
		snprintf(kind, sizeof kind, "platform:%s", ms_name(code));
		recorder_event(p->rec, kind, result ? "failed" : NULL, c->client);
		consume(c, used);
		uint8_t out[4];
		wire_put_u32(out, result ? 1 : 0);
		if (write_full(c->fd, out, 4, CLIENT_WRITE_TIMEOUT_MS))
			return -1;
	}
	return eof ? -1 : 0;
}

/* Reads what a connection has and handles complete messages. */
static int conn_readable(struct proxy *p, struct conn *c)
{
	int eof = 0;
	if (c->in_len == IN_CAP)
		return -1;
	ssize_t n = recv(c->fd, c->in + c->in_len, IN_CAP - c->in_len, MSG_DONTWAIT);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		eof = 1;
	} else if (n == 0) {
		eof = 1;
	} else {
		c->in_len += (size_t)n;
	}
	switch (c->kind) {
	case LISTEN_DATA:
		/* An over-long message fills the buffer: the size check in
		 * data_messages rejects it before that. */
		return data_messages(p, c, eof);
	case LISTEN_CTRL:
		if (eof)
			return -1;
		return ctrl_message(p, c);
	case LISTEN_MSSIM_PLAT:
		return platform_messages(p, c, eof);
	}
	return -1;
}

int proxy_run(struct proxy *p, int wake_fd, int (*wake)(void *ctx), void *ctx)
{
	struct pollfd *pfd = calloc(1 + MAX_LISTEN + MAX_CONN, sizeof(*pfd));
	if (!pfd)
		return -ENOMEM;
	for (;;) {
		unsigned n = 0;
		pfd[n++] = (struct pollfd){.fd = wake_fd, .events = POLLIN};
		for (unsigned i = 0; i < p->n_lis; i++)
			pfd[n++] = (struct pollfd){.fd = p->lis[i].fd, .events = POLLIN};
		unsigned nc = p->n_conns;
		for (unsigned i = 0; i < nc; i++)
			pfd[n++] = (struct pollfd){.fd = p->conns[i]->fd, .events = POLLIN};
		int r = poll(pfd, n, -1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if ((pfd[0].revents & POLLIN) && wake(ctx))
			break;
		/* Connections first (in index order), then new ones. Iterate
		 * backwards over the snapshot so removals do not skip any. */
		for (unsigned i = nc; i-- > 0;) {
			short ev = pfd[1 + p->n_lis + i].revents;
			if (!ev)
				continue;
			if (conn_readable(p, p->conns[i]) < 0)
				conn_close(p, i);
		}
		for (unsigned i = 0; i < p->n_lis; i++)
			if (pfd[1 + i].revents & POLLIN)
				accept_one(p, &p->lis[i]);
	}
	free(pfd);
	return 0;
}

void proxy_free(struct proxy *p)
{
	if (!p)
		return;
	while (p->n_conns)
		conn_close(p, p->n_conns - 1);
	for (unsigned i = 0; i < p->n_lis; i++) {
		close(p->lis[i].fd);
		if (p->lis[i].ep.is_unix)
			unlink(p->lis[i].ep.path);
	}
	free(p);
}
