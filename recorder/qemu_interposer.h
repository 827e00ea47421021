/* The QEMU <-> swtpm interposer: serves the control socket that QEMU's
 * `-tpmdev emulator` connects to, forwards every control message to swtpm's
 * control channel and records it as an event, and takes over the data
 * channel: QEMU hands its end of a socketpair over with CMD_SET_DATAFD
 * (SCM_RIGHTS); the interposer gives swtpm the end of a socketpair of its
 * own instead and relays (and records) every command between the two, with
 * the locality QEMU last set. A whole VM boot -- firmware, kernel, IMA, user
 * space -- is recorded this way. */
#ifndef TPMTRACE_QEMU_INTERPOSER_H
#define TPMTRACE_QEMU_INTERPOSER_H

#include <stddef.h>

#include "recorder/recorder.h"
#include "recorder/transport/swtpm_spawn.h"
#include "recorder/transport/transport.h"

struct qemu_interposer;

/* Listens on qemu_ctrl_path (a unix socket, 0600; only a dead socket of
 * ours there is replaced: net_endpoint_listen) and connects to swtpm's control socket, retrying for
 * up to connect_wait_ms (swtpm may still be starting). Returns 0 or -errno. */
int qemu_interposer_new(struct qemu_interposer **out, const char *qemu_ctrl_path,
			const char *swtpm_ctrl_path, int connect_wait_ms, char *err, size_t errlen);
/* The data-channel transport, to hand to recorder_init as the backend. */
struct transport *qemu_interposer_transport(struct qemu_interposer *qi);
/* Serves one QEMU. Returns 0 when QEMU closed its control connection (it is
 * exiting), 1 when wake(ctx) returned nonzero (wake is called whenever
 * wake_fd is readable), -errno on failure. */
int qemu_interposer_run(struct qemu_interposer *qi, struct recorder *rec, int wake_fd,
			int (*wake)(void *ctx), void *ctx);
/* Control-channel messages relayed, for the summary (commands: the
 * recorder's forwarded count). */
unsigned long qemu_interposer_ctrl_count(const struct qemu_interposer *qi);
void qemu_interposer_free(struct qemu_interposer *qi);

#endif
