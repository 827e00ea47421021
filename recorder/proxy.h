/* The socket proxy: clients in front (swtpm raw protocol or MS-simulator
 * framing on the data port, swtpm's control channel, the MS simulator's
 * platform port), one backend behind. Commands are serialized to the backend
 * and each is recorded exactly once with its client. The proxy never alters a
 * command or a response. */
#ifndef TPMTRACE_PROXY_H
#define TPMTRACE_PROXY_H

#include "recorder/netutil.h"
#include "recorder/recorder.h"

enum listen_kind {
	LISTEN_DATA = 1,   /* raw or MS-simulator framing, detected per connection */
	LISTEN_CTRL,	   /* swtpm control channel, forwarded to the backend's */
	LISTEN_MSSIM_PLAT, /* MS simulator platform port, mapped onto swtpm's control */
};

struct proxy;

/* Defaults of the limits below (docs/recording.md says how they were chosen). */
#define PROXY_IDLE_TIMEOUT_MS 300000 /* a client silent this long is closed */
#define PROXY_MAX_PER_PEER    256    /* connections of one peer (address or uid) */
#define PROXY_MAX_CONN	      1024   /* connections in all (fewer if the fd limit is low) */

int proxy_new(struct proxy **out, struct recorder *rec);
/* Limits (call before proxy_run): idle_ms 0 = never time out; per_peer 0 =
 * the default. At a limit the oldest idle connection (of that peer, or of the
 * peer with most connections) is closed to make room for the new one; every
 * such close, timeout and refusal is an event. */
void proxy_set_limits(struct proxy *p, unsigned idle_ms, unsigned per_peer);
/* Adds a listening socket. For LISTEN_DATA the matching control listener
 * (port+1 or PATH.ctrl) is added too when with_ctrl is set. */
int proxy_listen(struct proxy *p, const struct endpoint *ep, enum listen_kind kind, char *err,
		 size_t errlen);
/* Serves until wake(ctx) returns nonzero; wake is called whenever wake_fd is
 * readable (a signalfd, typically). */
int proxy_run(struct proxy *p, int wake_fd, int (*wake)(void *ctx), void *ctx);
void proxy_free(struct proxy *p);

#endif
