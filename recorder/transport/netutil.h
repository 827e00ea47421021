/* Socket helpers shared by the proxies and transports. */
#ifndef TPMTRACE_NETUTIL_H
#define TPMTRACE_NETUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct endpoint {
	int is_unix;
	char host[128];
	unsigned port;
	char path[108];
};

/* "tcp:HOST:PORT" or "unix:PATH"; PORT 0 is any free port (a listener's). */
int net_endpoint_parse(const char *spec, struct endpoint *ep, char *err, size_t errlen);
/* tpm2-tss swtpm TCTI form: "swtpm:host=H,port=P" (control at P+1) or
 * "swtpm:path=SOCK" (control at SOCK.ctrl); also "tcp:H:P" and "unix:PATH". */
int net_endpoint_parse_tcti(const char *spec, struct endpoint *data, struct endpoint *ctrl,
			    char *err, size_t errlen);
/* The control endpoint that belongs to a data endpoint (P+1, PATH.ctrl). */
void net_endpoint_ctrl_of(const struct endpoint *data, struct endpoint *ctrl);

int net_endpoint_connect(const struct endpoint *ep, int *fd);
/* The file a listening unix socket is (st_dev, st_ino; 0 for TCP). */
struct net_sock_id {
	dev_t dev;
	ino_t ino;
};
/* Listens (non-blocking, CLOEXEC). A unix socket's path must be free or
 * hold a dead socket of our effective uid, which is replaced; anything else
 * there (a file that is no socket, a link, a socket somebody answers on,
 * another user's socket) is left alone and the listener refused. */
int net_endpoint_listen(const struct endpoint *ep, int *fd, char *err, size_t errlen);
/* The same, noting which file the unix socket is (for net_endpoint_unlink). */
int net_endpoint_listen_id(const struct endpoint *ep, int *fd, struct net_sock_id *id, char *err,
			   size_t errlen);
/* Removes a listener's unix socket file if it is still the one it made. */
void net_endpoint_unlink(const struct endpoint *ep, const struct net_sock_id *id);

/* Writes everything, waiting at most timeout_ms for the socket to drain. */
int net_write_full(int fd, const void *buf, size_t len, int timeout_ms);
/* One read, waiting at most timeout_ms; returns bytes, 0 at EOF, or -errno. */
ssize_t net_read_some(int fd, void *buf, size_t cap, int timeout_ms);
/* Reads exactly len bytes. */
int net_read_full(int fd, void *buf, size_t len, int timeout_ms);
/* Reads one whole TPM message (header, then the size it announces, framed
 * by frame_tpm with cap as the largest size). Returns -ECONNRESET for EOF
 * before the first byte, -EPROTO for a bad size or EOF inside the message,
 * -EMSGSIZE when more bytes came than the header declares (a peer that sends
 * one message and waits never does that). */
int net_read_tpm_message(int fd, uint8_t *buf, size_t cap, size_t *len, int timeout_ms);
/* Bytes waiting to be read on a socket (FIONREAD); 0 on error. */
int net_pending_bytes(int fd);

void net_set_nodelay(int fd);

#endif
