/* Recording a VM's TPM traffic between QEMU and swtpm (recorder/qemu_interposer.h):
 * `tpmtrace record --qemu-ctrl` and `tpmtrace vm-record`. */
#ifndef TPMTRACE_RECORD_QEMU_H
#define TPMTRACE_RECORD_QEMU_H

#include <stdint.h>

#include "db/writer.h"
#include "model/emulate.h"
#include "recorder/qemu_interposer.h"
#include "recorder/record_session.h"
#include "recorder/recorder.h"
#include "recorder/transport/swtpm_spawn.h"

struct qemu_record_opts {
	const char *db_path;
	const char *name;	 /* trace name */
	const char *qemu_ctrl;	 /* socket QEMU connects to */
	const char *swtpm_ctrl;	 /* running swtpm's control socket, or NULL */
	const char *swtpm_state; /* with spawn: state directory */
	int spawn;
	int payloads;
	struct emulator *emu; /* latency injection (model/emulate.h), or NULL */
};

struct qemu_session {
	struct swtpm_child sw;
	struct record_session rs; /* stop signals (rs.sfd), trace, writer */
	struct recorder rec;
	struct qemu_interposer *qi;
	const char *db_path;
};

/* Takes the stop signals (SIGCHLD too with RECORD_SIG_CHLD in sig_flags),
 * then starts swtpm (if asked), the trace and the interposer. Prints errors
 * with the subcommand's name. Returns 0 or 1; either way
 * qemu_session_finish releases what was started. */
int qemu_session_start(struct qemu_session *s, const struct qemu_record_opts *o, const char *sub,
		       unsigned sig_flags);
/* Ends the trace, stops swtpm, closes the signalfd; prints a summary unless
 * quiet. Returns 0, or 1 when the trace could not be finalized. */
int qemu_session_finish(struct qemu_session *s, const char *sub, int quiet);

#endif
