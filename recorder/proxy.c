/* The socket proxy (recorder/proxy.h): proxy_new, proxy_listen and proxy_run
 * serve the clients of the data port (raw TPM 2.0 or MS-simulator framing, told
 * apart by frame.h), swtpm's control channel and the MS simulator's platform
 * port in one poll loop, and send every command to the one backend, in turn,
 * through the recording core (recorder.h), which records it once with its
 * client. Connections are limited per peer and in total; when descriptors run
 * short the oldest idle ones go (evict_to_limit), and idle ones expire. With
 * proxy_set_rm it also acts as a resource manager: what a client's successful
 * commands load is tracked per owner - a process on a unix socket (found by
 * SO_PEERCRED, watched through a pidfd) or a TCP connection in MS-simulator
 * framing - and flushed, newest first, as tpmtrace's own commands once the
 * owner is gone (rm_track, rm_release). The proxy never alters a command or a
 * response. */
#include "recorder/proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/tpm_ht.h"
#include "model/tpm/wire.h"
#include "recorder/rm.h"
#include "recorder/transport/frame.h"

#define MAX_LISTEN		8
#define IN_CAP			(FRAME_MAX_MESSAGE + 64)
#define CLIENT_WRITE_TIMEOUT_MS 2000
#define FD_RESERVE		32  /* descriptors left for the backend, the writer, SQLite */
#define ACCEPT_BACKOFF_MS	100 /* out of descriptors and nothing to close: wait */
#define CONN_CACHE		8   /* closed connections kept for the next accepts */
#define PEER_SLOTS		(4 * PROXY_MAX_CONN) /* open addressing, power of two */

struct conn {
	int fd;
	enum listen_kind kind;
	enum frame_mode mode;
	uint32_t client;
	uint64_t peer; /* hash of the peer: its address, or its uid on a unix socket */
	uint64_t last; /* when it was accepted or last sent something (mono ns) */
	char who[48];  /* the peer, for events */
	char addr[56]; /* TCP: the peer's address and port, its client still to be found */
	pid_t pid;     /* the peer process (unix sockets), else 0 */
	int owner;     /* index into proxy.rm_tab.owners, -1 none yet */
	size_t in_len;
	uint8_t in[IN_CAP];
};

struct listener {
	int fd;
	enum listen_kind kind;
	struct endpoint ep;
	struct net_sock_id id; /* the unix socket's file, removed at the end */
};

struct proxy {
	struct recorder *rec;
	struct listener lis[MAX_LISTEN];
	unsigned n_lis;
	struct conn *conns[PROXY_MAX_CONN];
	unsigned n_conns;
	unsigned max_conn, per_peer;
	uint64_t idle_ns;	/* 0: connections never time out */
	uint64_t next_idle;	/* no connection times out before this */
	uint64_t backoff_until; /* accepts paused (out of descriptors) until then */
	int backoff_logged;	/* an event was logged for this shortage */
	struct conn *cache[CONN_CACHE];
	unsigned n_cache;
	/* Connections per peer: slots stay taken (n may drop to 0) until the
	 * table is rebuilt from the open connections. */
	struct {
		uint64_t peer;
		unsigned n;
	} peers[PEER_SLOTS];
	unsigned n_peer_slots;
	uint8_t locality;     /* set through the control channel for raw clients */
	int powered;	      /* MS simulator power state as seen by platform clients */
	int rm;		      /* resource-manager mode (proxy_set_rm) */
	struct rec_rm rm_tab; /* recorder/rm.h */
	uint8_t rsp[TPM_MAX_MESSAGE + 16];
};

/* Connections in all: as many as the descriptor limit leaves room for, so
 * that the limit is met here, at a connection the proxy can choose, and not
 * at accept() or at the backend's reconnection (and poll() refuses more
 * descriptors than the limit). Read again when the limit may have changed
 * under a running proxy (prlimit). */
static void conn_limit(struct proxy *p)
{
	struct rlimit rl;
	p->max_conn = PROXY_MAX_CONN;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < PROXY_MAX_CONN + FD_RESERVE)
		p->max_conn = rl.rlim_cur > 2 * FD_RESERVE ? (unsigned)rl.rlim_cur - FD_RESERVE
							   : (unsigned)rl.rlim_cur / 2;
}

int proxy_new(struct proxy **out, struct recorder *rec)
{
	struct proxy *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->rec = rec;
	p->powered = 1;
	p->idle_ns = (uint64_t)PROXY_IDLE_TIMEOUT_MS * 1000000u;
	p->per_peer = PROXY_MAX_PER_PEER;
	conn_limit(p);
	*out = p;
	return 0;
}

void proxy_set_limits(struct proxy *p, unsigned idle_ms, unsigned per_peer)
{
	p->idle_ns = (uint64_t)idle_ms * 1000000u;
	p->per_peer = per_peer ? per_peer : PROXY_MAX_PER_PEER;
}

/* The port a TCP listener was bound to (port 0: the kernel's choice). */
static void bound_port(int fd, unsigned *port)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return;
	if (ss.ss_family == AF_INET)
		*port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	else if (ss.ss_family == AF_INET6)
		*port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
}

int proxy_listen(struct proxy *p, struct endpoint *ep, enum listen_kind kind, char *err,
		 size_t errlen)
{
	if (p->n_lis == MAX_LISTEN) {
		snprintf(err, errlen, "too many listening sockets");
		return -ENOSPC;
	}
	struct listener *l = &p->lis[p->n_lis];
	int rc = net_endpoint_listen_id(ep, &l->fd, &l->id, err, errlen);
	if (rc)
		return rc;
	if (!ep->is_unix && !ep->port)
		bound_port(l->fd, &ep->port);
	l->kind = kind;
	l->ep = *ep;
	p->n_lis++;
	return 0;
}

int proxy_listen_pair(struct proxy *p, struct endpoint *ep, enum listen_kind kind,
		      enum listen_kind companion, char *err, size_t errlen)
{
	const char *what = companion == LISTEN_CTRL ? "control channel" : "platform port";
	int any = !ep->is_unix && !ep->port;
	/* Port 0: the kernel picks the first port, and the pair is kept only
	 * where the port after it is free too (the TCTIs find the companion
	 * there); another pair is tried where it is not. */
	for (int attempt = 0; attempt < (any ? 64 : 1); attempt++) {
		struct endpoint e = *ep, c;
		int rc = proxy_listen(p, &e, kind, err, errlen);
		if (rc)
			return rc;
		net_endpoint_ctrl_of(&e, &c);
		char cerr[300];
		if (!(rc = proxy_listen(p, &c, companion, cerr, sizeof cerr))) {
			*ep = e;
			return 0;
		}
		/* The first one goes again, its socket file with it. */
		p->n_lis--;
		close(p->lis[p->n_lis].fd);
		net_endpoint_unlink(&p->lis[p->n_lis].ep, &p->lis[p->n_lis].id);
		if (!any || rc != -EADDRINUSE) {
			snprintf(err, errlen, "%s: %s", what, cerr);
			return rc;
		}
	}
	snprintf(err, errlen, "%s: no free pair of ports (port and port+1) found", what);
	return -EADDRINUSE;
}

void proxy_set_rm(struct proxy *p, int on)
{
	p->rm = on;
}

/* ---- resource manager (recorder/rm.h) ---- */

static struct rec_rm_client rm_client(struct conn *c)
{
	return (struct rec_rm_client){&c->owner, c->pid, c->mode == FRAME_MODE_MSSIM};
}

/* Flushes h as tpmtrace's own command. */
static void rm_flush(void *ctx, uint32_t h)
{
	struct proxy *p = ctx;
	uint8_t cmd[TPM_HEADER_SIZE + 4], rsp[64];
	size_t rl;
	wire_put_u16(cmd, TPM_ST_NO_SESSIONS);
	wire_put_u32(cmd + 2, sizeof cmd);
	wire_put_u32(cmd + 6, TPM_CC_FlushContext);
	wire_put_u32(cmd + 10, h);
	recorder_own_command(p->rec, cmd, sizeof cmd, rsp, sizeof rsp, &rl);
}

/* The owner is gone: flush what it left loaded, newest first. */
static void rm_release(struct proxy *p, int i)
{
	recorder_rm_release(&p->rm_tab, i, rm_flush, p);
	/* Connections of the process still open (it exited without closing
	 * them yet) no longer point here. */
	for (unsigned k = 0; k < p->n_conns; k++)
		if (p->conns[k]->owner == i)
			p->conns[k]->owner = -1;
}

/* The slot counting peer's connections (taken for it if add). */
static unsigned *peer_count(struct proxy *p, uint64_t peer, int add)
{
	static unsigned none;
	if (add && p->n_peer_slots >= PEER_SLOTS / 2) {
		/* Full of peers that have gone: count the open ones again. */
		memset(p->peers, 0, sizeof p->peers);
		p->n_peer_slots = 0;
		for (unsigned i = 0; i < p->n_conns; i++)
			(*peer_count(p, p->conns[i]->peer, 1))++;
	}
	for (unsigned k = (unsigned)peer & (PEER_SLOTS - 1);; k = (k + 1) & (PEER_SLOTS - 1)) {
		if (p->peers[k].peer == peer)
			return &p->peers[k].n;
		if (!p->peers[k].peer) {
			if (!add) {
				none = 0;
				return &none;
			}
			p->peers[k].peer = peer;
			p->n_peer_slots++;
			return &p->peers[k].n;
		}
	}
}

static void conn_close(struct proxy *p, unsigned i)
{
	struct conn *c = p->conns[i];
	/* A connection that owns its handles takes them along; a process's
	 * stay until it exits. */
	if (c->owner >= 0 && !p->rm_tab.owners[c->owner].pid)
		rm_release(p, c->owner);
	unsigned *n = peer_count(p, c->peer, 0);
	if (*n)
		(*n)--;
	close(c->fd);
	if (p->n_cache < CONN_CACHE)
		p->cache[p->n_cache++] = c;
	else
		free(c);
	p->conns[i] = p->conns[--p->n_conns];
}

/* Closes connection i to make room (or because it idled), with an event. */
static void conn_drop(struct proxy *p, unsigned i, const char *kind, const char *why, uint64_t now)
{
	struct conn *c = p->conns[i];
	char detail[200];
	snprintf(detail, sizeof detail, "%s; %s idle %.1f s", why, c->who,
		 (double)(now - c->last) / 1e9);
	recorder_event(p->rec, kind, detail, c->client);
	conn_close(p, i);
}

/* The connection to close for a new one: the oldest idle one of peer, or of
 * the peer with most connections when peer is 0. -1 if there is none. */
static int victim(struct proxy *p, uint64_t peer)
{
	int best = -1;
	if (!peer) {
		/* The peer holding most connections gives one up. */
		unsigned most = 0;
		for (unsigned k = 0; k < PEER_SLOTS; k++)
			if (p->peers[k].n > most) {
				most = p->peers[k].n;
				peer = p->peers[k].peer;
			}
	}
	for (unsigned i = 0; i < p->n_conns; i++)
		if (p->conns[i]->peer == peer &&
		    (best < 0 || p->conns[i]->last < p->conns[best]->last))
			best = (int)i;
	return best;
}

/* Reads the descriptor limit again and closes the oldest idle connections
 * (of the peer holding most) until the proxy fits in it; with one_at_least,
 * one goes even if it fits. Returns how many went. */
static int evict_to_limit(struct proxy *p, int one_at_least, const char *why, uint64_t now)
{
	int did = 0;
	conn_limit(p);
	while (p->n_conns > p->max_conn || (one_at_least && !did)) {
		int v = victim(p, 0);
		if (v < 0)
			break;
		conn_drop(p, (unsigned)v, "conn-evicted", why, now);
		did++;
	}
	return did;
}

static uint64_t peer_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h ? h : 1;
}

/* The client of a TCP connection: the process at the other end when it is
 * on this host (recorder_tcp_peer; its connections share its id, as on a
 * unix socket), else the connection itself, by address and port. Found once
 * per connection, when its first bytes come (not at accept: tpm2-tss's
 * swtpm TCTI opens a connection and closes it unused before its first
 * command, a client of no command). */
static uint32_t tcp_client(struct proxy *p, struct conn *c)
{
	uid_t uid = (uid_t)-1;
	pid_t pid = p->rec->w ? recorder_tcp_peer(c->fd, &uid) : 0;
	c->client =
	    pid > 0 ? recorder_client_pid(p->rec, pid, uid) : recorder_client_peer(p->rec, c->addr);
	c->addr[0] = 0;
	return c->client;
}

static void accept_one(struct proxy *p, struct listener *l, uint64_t now)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof sa;
	int fd = accept4(l->fd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
		/* Out of descriptors: the oldest idle connections make room (down
		 * to what the limit, maybe lowered under us, allows, and one at
		 * least), else accepts pause a while: the listener would wake
		 * poll at once, again and again, with nothing to take. */
		evict_to_limit(p, 1, "out of file descriptors", now);
		sl = sizeof sa;
		fd = accept4(l->fd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
			p->backoff_until = now + (uint64_t)ACCEPT_BACKOFF_MS * 1000000u;
			if (!p->backoff_logged)
				recorder_event(p->rec, "accept-paused", strerror(errno), 0);
			p->backoff_logged = 1;
			return;
		}
	}
	if (fd < 0)
		return;
	p->backoff_logged = 0;
	char who[48], addr[56] = "";
	uint32_t client;
	pid_t pid = 0;
	if (l->ep.is_unix) {
		struct ucred cr;
		socklen_t cl = sizeof cr;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 && cr.pid > 0) {
			client = recorder_client_pid(p->rec, cr.pid, cr.uid);
			pid = cr.pid;
			snprintf(who, sizeof who, "uid %u", (unsigned)cr.uid);
		} else {
			client = recorder_client_peer(p->rec, "unix");
			snprintf(who, sizeof who, "unix");
		}
	} else {
		char host[INET6_ADDRSTRLEN] = "?";
		net_set_nodelay(fd);
		if (sa.ss_family == AF_INET)
			inet_ntop(AF_INET, &((struct sockaddr_in *)&sa)->sin_addr, host,
				  sizeof host);
		else if (sa.ss_family == AF_INET6)
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&sa)->sin6_addr, host,
				  sizeof host);
		snprintf(who, sizeof who, "%s", host);
		unsigned port =
		    ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&sa)->sin6_port
						   : ((struct sockaddr_in *)&sa)->sin_port);
		snprintf(addr, sizeof addr, sa.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", host,
			 port);
		client = 0; /* found at its first bytes (tcp_client) */
	}
	uint64_t peer = peer_hash(who);
	unsigned same = *peer_count(p, peer, 0);
	char why[96];
	int v = -1;
	if (same >= p->per_peer) {
		snprintf(why, sizeof why, "%u connections of %s (the limit per peer)", same, who);
		v = victim(p, peer);
	} else if (p->n_conns >= p->max_conn) {
		snprintf(why, sizeof why, "%u connections (the limit)", p->n_conns);
		v = victim(p, 0);
	}
	if (v >= 0)
		conn_drop(p, (unsigned)v, "conn-evicted", why, now);
	struct conn *c = p->n_cache ? p->cache[--p->n_cache] : malloc(sizeof(*c));
	if (!c || p->n_conns >= p->max_conn) {
		recorder_event(p->rec, "conn-refused",
			       c ? "no connection to close" : "out of memory", client);
		free(c);
		close(fd);
		return;
	}
	c->fd = fd;
	c->kind = l->kind;
	c->mode = FRAME_MODE_UNKNOWN;
	c->in_len = 0;
	c->pid = pid;
	c->owner = -1;
	c->client = client;
	c->peer = peer;
	c->last = now;
	snprintf(c->who, sizeof c->who, "%s", who);
	snprintf(c->addr, sizeof c->addr, "%s", addr);
	(*peer_count(p, peer, 1))++; /* before c is in conns: a recount would count it */
	p->conns[p->n_conns++] = c;
	if (p->idle_ns && (!p->next_idle || now + p->idle_ns < p->next_idle))
		p->next_idle = now + p->idle_ns;
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
		return net_write_full(c->fd, frame, len + 8, CLIENT_WRITE_TIMEOUT_MS);
	}
	return net_write_full(c->fd, rsp, len, CLIENT_WRITE_TIMEOUT_MS);
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
	/* The client's idle time starts when it has its answer: a command
	 * the TPM takes minutes over is not idleness. */
	c->last = tm.t_done;
	int rc = reply(c, p->rsp, rsp_len);
	recorder_log(p->rec, c->client, locality, cmd, len, p->rsp, rsp_len, &tm);
	if (p->rm && !tm.rc)
		recorder_rm_track(&p->rm_tab, rm_client(c), cmd, len, p->rsp, rsp_len);
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
			int wrc = reply(c, err, transport_error_response(err, f.rc));
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
			if (net_write_full(c->fd, out, sizeof out, CLIENT_WRITE_TIMEOUT_MS))
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

/* swtpm control channel: one read is one request (as swtpm itself reads it).
 * Only what a TPM client may ask goes on to the backend (frame_ctrl_client_may):
 * the channel is open to whoever reaches the port, and swtpm's own control
 * channel would hand out the TPM's state or stop it. */
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
	if (!frame_ctrl_client_may(code)) {
		/* Refused as swtpm refuses a code it does not know (a data
		 * channel handed over by descriptor, SET_DATAFD, is the QEMU
		 * interposer's job). */
		recorder_event(p->rec, kind, "refused: not a TPM client's command", c->client);
		wire_put_u32(rsp, SWTPM_TPM_BAD_ORDINAL);
		rsp_len = 4;
	} else {
		recorder_event(p->rec, kind, detail[0] ? detail : NULL, c->client);
		if (!t->ops->ctrl ||
		    t->ops->ctrl(t, c->in, c->in_len, rsp, sizeof rsp, &rsp_len) != 0) {
			wire_put_u32(rsp, TPM_RC_FAILURE);
			rsp_len = 4;
		} else if (code == SWTPM_CMD_SET_LOCALITY && c->in_len >= 5 &&
			   wire_get_u32(rsp) == 0) {
			p->locality = c->in[4];
		}
	}
	c->in_len = 0;
	return net_write_full(c->fd, rsp, rsp_len, CLIENT_WRITE_TIMEOUT_MS) ? -1 : 0;
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
			/* Noted, not passed on as STOP: a stopped swtpm serves
			 * nobody until the next INIT, and this port is open to
			 * every local user. The next POWER_ON resets the TPM. */
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
			if (net_write_full(c->fd, out, sizeof out, CLIENT_WRITE_TIMEOUT_MS))
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
		/* SEND_COMMAND is no request of the platform port: unknown there. */
		const char *nm = code != MS_SEND_COMMAND ? frame_ms_name(code) : NULL;
		snprintf(kind, sizeof kind, "platform:%s", nm ? nm : "UNKNOWN");
		recorder_event(p->rec, kind, result ? "failed" : NULL, c->client);
		consume(c, used);
		uint8_t out[4];
		wire_put_u32(out, result ? 1 : 0);
		if (net_write_full(c->fd, out, 4, CLIENT_WRITE_TIMEOUT_MS))
			return -1;
	}
	return eof ? -1 : 0;
}

/* Reads what a connection has and handles complete messages. */
static int conn_readable(struct proxy *p, struct conn *c, uint64_t now)
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
		c->last = now;
		if (c->addr[0])
			tcp_client(p, c);
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

/* Closes the connections that have been silent for the idle timeout and
 * notes when the next one would; a connection with bytes waiting is not
 * idle (they arrived while the proxy was busy with another client). */
static void expire_idle(struct proxy *p, uint64_t now)
{
	uint64_t next = 0;
	for (unsigned i = p->n_conns; i-- > 0;) {
		struct conn *c = p->conns[i];
		uint8_t b;
		if (now - c->last >= p->idle_ns) {
			if (recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 1) {
				c->last = now;
			} else {
				char why[64];
				snprintf(why, sizeof why, "silent for the idle timeout (%.0f s)",
					 (double)p->idle_ns / 1e9);
				conn_drop(p, i, "conn-idle-timeout", why, now);
				continue;
			}
		}
		if (!next || c->last + p->idle_ns < next)
			next = c->last + p->idle_ns;
	}
	p->next_idle = next;
}

static int ms_until(uint64_t now, uint64_t then)
{
	if (then <= now)
		return 0;
	uint64_t ms = (then - now + 999999) / 1000000;
	return ms > 60000 ? 60000 : (int)ms;
}

int proxy_run(struct proxy *p, int wake_fd, int (*wake)(void *ctx), void *ctx)
{
	struct pollfd *pfd =
	    calloc(1 + MAX_LISTEN + PROXY_MAX_CONN + REC_RM_MAX_OWNERS, sizeof(*pfd));
	int own_ix[REC_RM_MAX_OWNERS];
	if (!pfd)
		return -ENOMEM;
	for (;;) {
		uint64_t now = db_mono_ns();
		int timeout = -1;
		if (p->idle_ns && p->next_idle && now >= p->next_idle)
			expire_idle(p, now);
		if (p->idle_ns && p->next_idle)
			timeout = ms_until(now, p->next_idle);
		unsigned n = 0, n_lis = 0;
		pfd[n++] = (struct pollfd){.fd = wake_fd, .events = POLLIN};
		if (p->backoff_until && now >= p->backoff_until) {
			p->backoff_until = 0;
			conn_limit(p); /* raised again meanwhile? */
		}
		if (now >= p->backoff_until) {
			for (unsigned i = 0; i < p->n_lis; i++)
				pfd[n++] = (struct pollfd){.fd = p->lis[i].fd, .events = POLLIN};
			n_lis = p->n_lis;
		} else {
			int b = ms_until(now, p->backoff_until);
			timeout = timeout < 0 || b < timeout ? b : timeout;
		}
		unsigned nc = p->n_conns;
		for (unsigned i = 0; i < nc; i++)
			pfd[n++] = (struct pollfd){.fd = p->conns[i]->fd, .events = POLLIN};
		unsigned first_own = n, no = 0;
		for (int i = 0; p->rm && i < REC_RM_MAX_OWNERS; i++)
			if (p->rm_tab.owners[i].used && p->rm_tab.owners[i].pidfd >= 0) {
				own_ix[no++] = i;
				pfd[n++] = (struct pollfd){.fd = p->rm_tab.owners[i].pidfd,
							   .events = POLLIN};
			}
		int r = poll(pfd, n, timeout);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EINVAL &&
			    evict_to_limit(p, 0, "the file descriptor limit was lowered", now))
				continue; /* more descriptors than the limit now allows */
			if (errno == ENOMEM) {
				struct timespec ts = {0, 10 * 1000 * 1000};
				nanosleep(&ts, NULL);
				continue;
			}
			break;
		}
		if (r == 0)
			continue;
		if ((pfd[0].revents & POLLIN) && wake(ctx))
			break;
		now = db_mono_ns();
		/* Processes that exited first: their leftovers are flushed before
		 * the next client's command (a shell's next tool) is forwarded. */
		for (unsigned i = 0; i < no; i++)
			if (pfd[first_own + i].revents)
				rm_release(p, own_ix[i]);
		/* Connections first (in index order), then new ones. Iterate
		 * backwards over the snapshot so removals do not skip any. */
		for (unsigned i = nc; i-- > 0;) {
			short ev = pfd[1 + n_lis + i].revents;
			if (!ev)
				continue;
			if (conn_readable(p, p->conns[i], now) < 0)
				conn_close(p, i);
		}
		for (unsigned i = 0; i < n_lis; i++)
			if (pfd[1 + i].revents & POLLIN)
				accept_one(p, &p->lis[i], now);
	}
	free(pfd);
	return 0;
}

void proxy_close_clients(struct proxy *p)
{
	while (p->n_conns)
		conn_close(p, p->n_conns - 1);
	for (int i = 0; i < REC_RM_MAX_OWNERS; i++)
		if (p->rm_tab.owners[i].used)
			rm_release(p, i);
}

void proxy_free(struct proxy *p)
{
	if (!p)
		return;
	proxy_close_clients(p);
	while (p->n_cache)
		free(p->cache[--p->n_cache]);
	for (unsigned i = 0; i < p->n_lis; i++) {
		close(p->lis[i].fd);
		/* Only the socket this proxy made: not one another recorder
		 * has put there since. */
		net_endpoint_unlink(&p->lis[i].ep, &p->lis[i].id);
	}
	free(p);
}
