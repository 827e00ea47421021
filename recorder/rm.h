/* The proxy's resource manager (recorder/proxy.c, proxy_set_rm): which
 * transient objects and sessions each client has loaded, learnt from its
 * successful commands as the decoder reads them (model/tpm/decode.h) and by
 * what each command does (model/tpm/tpm_cc_effects.def), so that what a
 * client leaves loaded is flushed when it goes, as the kernel's /dev/tpmrm0
 * does. */
#ifndef TPMTRACE_REC_RM_H
#define TPMTRACE_REC_RM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Handles one client may leave loaded (a TPM holds a few: swtpm 3 objects,
 * 64 sessions), for so many clients at once. */
#define REC_RM_MAX_HANDLES 64
#define REC_RM_MAX_OWNERS  64

/* Whose handles: a process (unix sockets: SO_PEERCRED; its handles are
 * flushed when it exits, which its pidfd tells: tpm2-tss's swtpm TCTI
 * connects anew for every command) or one connection (TCP with MS simulator
 * framing, which a TCTI keeps open for its life: flushed when it closes). */
struct rec_rm_owner {
	int used;
	pid_t pid; /* 0: the connection is the owner */
	int pidfd; /* -1 for a connection */
	unsigned n;
	uint32_t h[REC_RM_MAX_HANDLES];
};

struct rec_rm {
	struct rec_rm_owner owners[REC_RM_MAX_OWNERS];
	unsigned n_owners; /* of them in use */
};

/* A client as the resource manager sees it: its connection's owner slot
 * (an index into rec_rm.owners, -1 none yet, set here), the peer process
 * (0 if unknown) and whether the connection itself owns its handles. */
struct rec_rm_client {
	int *owner;
	pid_t pid;
	int by_conn;
};

/* The owner of what a client loads, found or (make) made when it first
 * loads something; NULL when nothing can be tracked: no process and no
 * owning connection, a full table, no pidfd. */
struct rec_rm_owner *recorder_rm_owner_of(struct rec_rm *rm, struct rec_rm_client cl, int make);

/* After a command answered with success: what it loaded, what it flushed,
 * which sessions ended without continueSession. */
void recorder_rm_track(struct rec_rm *rm, struct rec_rm_client cl, const uint8_t *cmd, size_t len,
		       const uint8_t *rsp, size_t rsp_len);

/* Owner i is gone: flush(ctx, h) for what it left loaded, newest first; the
 * slot is free again (its pidfd closed). */
void recorder_rm_release(struct rec_rm *rm, int i, void (*flush)(void *ctx, uint32_t h), void *ctx);

#endif
