/* Socket helpers (recorder/transport/netutil.h) for the proxies and transports:
 * net_endpoint_parse and net_endpoint_parse_tcti read host:port, unix paths and swtpm
 * TCTI strings (net_endpoint_ctrl_of gives the control channel beside a data
 * endpoint, endpoint_str prints one), net_endpoint_connect and net_endpoint_listen open
 * them (a unix socket is bound under a temporary name, made 0600 and listening
 * before it is linked into place; what is at the path stays, but for a dead
 * socket of ours: unix_path_free), net_endpoint_unlink removes only the socket
 * file a listener made, and net_write_full, net_read_some, net_read_full,
 * net_read_tpm_message (framed by frame.h, with a timeout) and net_pending_bytes move
 * the bytes. */
#include "recorder/transport/netutil.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "recorder/transport/frame.h"

/* A port number; 0 only where any0 (a listener: any free port). */
static int parse_port(const char *s, unsigned *port, int any0)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || (v == 0 && !any0) || v > 65535)
		return -EINVAL;
	*port = (unsigned)v;
	return 0;
}

int net_endpoint_parse(const char *spec, struct endpoint *ep, char *err, size_t errlen)
{
	memset(ep, 0, sizeof(*ep));
	if (!strncmp(spec, "unix:", 5)) {
		if (strlen(spec + 5) == 0 || strlen(spec + 5) >= sizeof ep->path) {
			snprintf(err, errlen, "'%s': unix socket path empty or too long", spec);
			return -EINVAL;
		}
		ep->is_unix = 1;
		strcpy(ep->path, spec + 5);
		return 0;
	}
	if (!strncmp(spec, "tcp:", 4)) {
		const char *hp = spec + 4;
		const char *colon = strrchr(hp, ':');
		if (!colon || colon == hp || (size_t)(colon - hp) >= sizeof ep->host ||
		    parse_port(colon + 1, &ep->port, 1)) {
			snprintf(err, errlen, "'%s': expected tcp:HOST:PORT", spec);
			return -EINVAL;
		}
		memcpy(ep->host, hp, (size_t)(colon - hp));
		/* [::1] style */
		if (ep->host[0] == '[') {
			size_t n = strlen(ep->host);
			if (n > 2 && ep->host[n - 1] == ']') {
				memmove(ep->host, ep->host + 1, n - 2);
				ep->host[n - 2] = 0;
			}
		}
		return 0;
	}
	snprintf(err, errlen, "'%s': expected tcp:HOST:PORT or unix:PATH", spec);
	return -EINVAL;
}

void net_endpoint_ctrl_of(const struct endpoint *data, struct endpoint *ctrl)
{
	*ctrl = *data;
	if (data->is_unix)
		snprintf(ctrl->path, sizeof ctrl->path, "%.100s.ctrl", data->path);
	else
		ctrl->port = data->port + 1;
}

int net_endpoint_parse_tcti(const char *spec, struct endpoint *data, struct endpoint *ctrl,
			    char *err, size_t errlen)
{
	if (!strncmp(spec, "swtpm:", 6) || !strcmp(spec, "swtpm")) {
		const char *p = spec[5] ? spec + 6 : "";
		memset(data, 0, sizeof(*data));
		strcpy(data->host, "localhost");
		data->port = 2321;
		while (*p) {
			const char *comma = strchr(p, ',');
			size_t n = comma ? (size_t)(comma - p) : strlen(p);
			char kv[160];
			if (n >= sizeof kv) {
				snprintf(err, errlen, "'%s': option too long", spec);
				return -EINVAL;
			}
			memcpy(kv, p, n);
			kv[n] = 0;
			if (!strncmp(kv, "host=", 5) && n - 5 < sizeof data->host) {
				strcpy(data->host, kv + 5);
			} else if (!strncmp(kv, "port=", 5) &&
				   !parse_port(kv + 5, &data->port, 0)) {
			} else if (!strncmp(kv, "path=", 5) && n - 5 < sizeof data->path - 6 &&
				   n > 5) {
				data->is_unix = 1;
				strcpy(data->path, kv + 5);
			} else {
				snprintf(err, errlen,
					 "'%s': unknown or bad option '%s' (expected host=, port=, "
					 "path=)",
					 spec, kv);
				return -EINVAL;
			}
			p += n + (comma ? 1 : 0);
		}
	} else if (net_endpoint_parse(spec, data, err, errlen)) {
		snprintf(err, errlen,
			 "'%s': expected swtpm:host=H,port=P, swtpm:path=SOCK, tcp:H:P or "
			 "unix:PATH",
			 spec);
		return -EINVAL;
	}
	net_endpoint_ctrl_of(data, ctrl);
	return 0;
}

/* Text form for messages, e.g. "tcp:127.0.0.1:2321". */
static const char *endpoint_str(const struct endpoint *ep, char *buf, size_t len)
{
	if (ep->is_unix)
		snprintf(buf, len, "unix:%s", ep->path);
	else
		snprintf(buf, len, "tcp:%s:%u", ep->host, ep->port);
	return buf;
}

void net_set_nodelay(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int net_endpoint_connect(const struct endpoint *ep, int *out)
{
	int fd, rc;
	*out = -1;
	if (ep->is_unix) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		strcpy(sa.sun_path, ep->path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
			rc = -errno;
			close(fd);
			return rc;
		}
		*out = fd;
		return 0;
	}
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
	char port[12];
	if (!ep->port) /* (tcp:H:0 names a listener's free port, no peer) */
		return -EDESTADDRREQ;
	snprintf(port, sizeof port, "%u", ep->port);
	if (getaddrinfo(ep->host, port, &hints, &res))
		return -EHOSTUNREACH;
	rc = -ECONNREFUSED;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			net_set_nodelay(fd);
			*out = fd;
			rc = 0;
			break;
		}
		rc = -errno;
		close(fd);
	}
	freeaddrinfo(res);
	return rc;
}

/* What is at PATH before a listener takes it. Nothing: 0. A socket of ours
 * (our effective uid) that nobody answers on: 0 and *stale set, it is
 * replaced. Anything else stays and the listener is refused: a file that is
 * no socket (a database, a link, a directory), a socket somebody answers on
 * (another recorder's), a dead socket of another user. */
static int unix_path_free(const char *path, int *stale, char *err, size_t errlen)
{
	struct stat st;
	*stale = 0;
	if (lstat(path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		int e = errno;
		snprintf(err, errlen, "cannot listen on unix:%s: %s", path, strerror(e));
		return -e;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen,
			 "cannot listen on unix:%s: it exists and is not a socket "
			 "(left alone)",
			 path);
		return -EEXIST;
	}
	/* Does somebody answer? Non-blocking: a full backlog is an answer. */
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int e = 0, fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
		e = fd < 0 ? EMFILE : errno;
	if (fd >= 0)
		close(fd);
	if (e == ENOENT) /* gone meanwhile */
		return 0;
	if (e == 0 || e == EAGAIN || e == EINPROGRESS) {
		snprintf(err, errlen, "cannot listen on unix:%s: in use (a socket that answers)",
			 path);
		return -EADDRINUSE;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen,
			 "cannot listen on unix:%s: a socket of uid %u, not ours (left alone)",
			 path, (unsigned)st.st_uid);
		return -EEXIST;
	}
	if (e != ECONNREFUSED) {
		snprintf(err, errlen, "cannot listen on unix:%s: %s", path, strerror(e));
		return -e;
	}
	*stale = 1;
	return 0;
}

/* Binds a unix socket under a temporary name beside ep->path (one nobody
 * holds: bind never replaces a file) or, when no such name fits, at the path
 * itself. Returns the socket or -errno; *tmp says which. */
static int unix_bind(const struct endpoint *ep, struct sockaddr_un *sa, int *tmp)
{
	int e = EADDRINUSE;
	for (int i = 0; i < 16 && e == EADDRINUSE; i++) {
		int n = i ? snprintf(sa->sun_path, sizeof sa->sun_path, "%s.%d-%d~", ep->path,
				     (int)getpid(), i)
			  : snprintf(sa->sun_path, sizeof sa->sun_path, "%s.%d~", ep->path,
				     (int)getpid());
		*tmp = n < (int)sizeof sa->sun_path;
		if (!*tmp)
			strcpy(sa->sun_path, ep->path);
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return -errno;
		if (bind(fd, (struct sockaddr *)sa, sizeof *sa) == 0)
			return fd;
		e = errno;
		close(fd);
		if (!*tmp)
			break;
	}
	return -e;
}

int net_endpoint_listen(const struct endpoint *ep, int *out, char *err, size_t errlen)
{
	return net_endpoint_listen_id(ep, out, NULL, err, errlen);
}

int net_endpoint_listen_id(const struct endpoint *ep, int *out, struct net_sock_id *id, char *err,
			   size_t errlen)
{
	int fd, one = 1, stale;
	char name[200];
	*out = -1;
	if (id)
		*id = (struct net_sock_id){0, 0};
	if (ep->is_unix) {
		/* The socket is bound under a temporary name, made 0600 (it is
		 * the TPM: only its owner may use it by default) and listening
		 * before it is linked into place, so that a client that sees
		 * the path can connect at once and nobody else can. Linked, not
		 * renamed: link never replaces what is at the path. */
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		struct stat st;
		int tmp, rc = unix_path_free(ep->path, &stale, err, errlen);
		if (rc)
			return rc;
		if (stale)
			unlink(ep->path);
		fd = unix_bind(ep, &sa, &tmp);
		if (fd < 0) {
			snprintf(err, errlen, "cannot listen on %s: %s",
				 endpoint_str(ep, name, sizeof name), strerror(-fd));
			return fd;
		}
		if (chmod(sa.sun_path, 0600) < 0 || listen(fd, 64) < 0 ||
		    (tmp && link(sa.sun_path, ep->path) < 0)) {
			int e = errno;
			snprintf(err, errlen, "cannot listen on %s: %s",
				 endpoint_str(ep, name, sizeof name),
				 e == EEXIST ? "something appeared at the path meanwhile (left "
					       "alone)"
					     : strerror(e));
			unlink(sa.sun_path);
			close(fd);
			return -e;
		}
		if (tmp)
			unlink(sa.sun_path);
		if (id && lstat(ep->path, &st) == 0)
			*id = (struct net_sock_id){st.st_dev, st.st_ino};
		*out = fd;
		return 0;
	}
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *res;
	char port[8];
	snprintf(port, sizeof port, "%u", ep->port);
	if (getaddrinfo(ep->host, port, &hints, &res)) {
		snprintf(err, errlen, "cannot resolve %s", endpoint_str(ep, name, sizeof name));
		return -EHOSTUNREACH;
	}
	fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    res->ai_protocol);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, 64) < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot listen on %s: %s",
			 endpoint_str(ep, name, sizeof name), strerror(e));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(res);
		return -e;
	}
	freeaddrinfo(res);
	*out = fd;
	return 0;
}

static int wait_fd(int fd, short ev, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = ev};
	int n;
	do
		n = poll(&p, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ETIMEDOUT;
	return 0;
}

int net_write_full(int fd, const void *buf, size_t len, int timeout_ms)
{
	const uint8_t *p = buf;
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int rc = wait_fd(fd, POLLOUT, timeout_ms);
			if (rc)
				return rc;
			continue;
		}
		return n < 0 ? -errno : -EIO;
	}
	return 0;
}

ssize_t net_read_some(int fd, void *buf, size_t cap, int timeout_ms)
{
	for (;;) {
		ssize_t n = recv(fd, buf, cap, MSG_DONTWAIT);
		if (n >= 0)
			return n;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		int rc = wait_fd(fd, POLLIN, timeout_ms);
		if (rc)
			return rc;
	}
}

int net_read_full(int fd, void *buf, size_t len, int timeout_ms)
{
	uint8_t *p = buf;
	while (len) {
		ssize_t n = net_read_some(fd, p, len, timeout_ms);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int net_read_tpm_message(int fd, uint8_t *buf, size_t cap, size_t *len, int timeout_ms)
{
	size_t have = 0;
	uint32_t size;
	int reason, fr;
	/* Framed by the rule every recorder shares (recorder/transport/frame.h).
	 * Usually the whole message arrives in one read, and so would bytes
	 * the peer sent after it in the same breath. */
	while ((fr = frame_tpm(buf, have, cap, &size, &reason)) == FRAME_TPM_MORE) {
		/* Greedy until the size field is in, then exactly up to it. */
		size_t want = have >= 6 ? size : cap;
		ssize_t n = net_read_some(fd, buf + have, want - have, timeout_ms);
		if (n < 0)
			return (int)n;
		if (n == 0)
			return have ? -EPROTO : -ECONNRESET;
		have += (size_t)n;
	}
	if (fr == FRAME_TPM_BAD)
		return -EPROTO;
	if (have > size)
		return -EMSGSIZE; /* the peer never sends two messages */
	*len = size;
	return 0;
}

void net_endpoint_unlink(const struct endpoint *ep, const struct net_sock_id *id)
{
	struct stat st;
	if (ep->is_unix && id->ino && lstat(ep->path, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_dev == id->dev && st.st_ino == id->ino)
		unlink(ep->path);
}

int net_pending_bytes(int fd)
{
	int n = 0;
	if (ioctl(fd, FIONREAD, &n) != 0)
		return 0;
	return n;
}
