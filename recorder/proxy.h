/* The socket proxy: clients in front (swtpm raw protocol or MS-simulator
 * framing on the data port, swtpm's control channel, the MS simulator's
 * platform port), one backend behind. Commands are serialized to the backend
 * and each is recorded exactly once with its client. The proxy never alters a
 * command or a response. */
#ifndef TPMTRACE_PROXY_H
#define TPMTRACE_PROXY_H

#include "recorder/transport/netutil.h"
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
/* Adds a listening socket; a TCP port 0 is bound to a free port, written
 * back to ep->port. */
int proxy_listen(struct proxy *p, struct endpoint *ep, enum listen_kind kind, char *err,
		 size_t errlen);
/* Adds a listening socket and its companion of kind companion (the control
 * channel or the MS simulator's platform port: port+1, or PATH.ctrl). With
 * TCP port 0 both are bound to a free pair of ports, written back to
 * ep->port. On an error err says which of the two failed. */
int proxy_listen_pair(struct proxy *p, struct endpoint *ep, enum listen_kind kind,
		      enum listen_kind companion, char *err, size_t errlen);
/* Serves until wake(ctx) returns nonzero; wake is called whenever wake_fd is
 * readable (a signalfd, typically). */
int proxy_run(struct proxy *p, int wake_fd, int (*wake)(void *ctx), void *ctx);
/* Resource-manager mode (off unless set): the transient objects and sessions
 * a client leaves loaded are flushed when its connection closes, as the
 * kernel's /dev/tpmrm0 does, so that tools that each leave an object loaded
 * (tpm2-tools with context files) do not run the TPM out of slots. Handles
 * are tracked per connection from the responses (CreatePrimary, Load,
 * LoadExternal, CreateLoaded, ContextLoad, StartAuthSession) and forgotten
 * when flushed (FlushContext, or a session used without continueSession) or,
 * for a session, saved (ContextSave: a later client resumes it); the flushes
 * are recorder_own_command()s. A client is a process on a unix socket (its
 * handles are flushed when it exits: tpm2-tss's swtpm TCTI connects anew for
 * every command) and a connection with MS-simulator framing on TCP; raw TCP
 * clients are not tracked (TCP does not tell the process). */
void proxy_set_rm(struct proxy *p, int on);
/* Closes every client connection (with the resource manager's flushes). */
void proxy_close_clients(struct proxy *p);
void proxy_free(struct proxy *p);

/* What record's options ask to listen on: --listen (data and control
 * channel) and --listen-mssim (command and platform port); with neither,
 * tcp:127.0.0.1:2321, or with private_socket a socket in a fresh directory
 * (-- COMMAND: its path into sockdir, for the caller to remove). */
#define PROXY_MAX_LISTEN 8
#define PROXY_TCTI_LEN	 200
struct proxy_listen_cfg {
	const char *const *listens;
	int n_listen;
	const char *const *mssims;
	int n_mssim;
	int private_socket;
};
/* Listens as c asks; all gets every listener's TCTI, a line each, in order
 * (a port 0 named as bound): the first is the clients'. 0, or -1 with err
 * set. */
int proxy_listen_all(struct proxy *px, const struct proxy_listen_cfg *c, char *sockdir,
		     size_t sdlen, char *all, size_t alen, char *err, size_t errlen);

#endif
