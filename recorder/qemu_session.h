/* A recording between QEMU and swtpm (recorder/qemu_interposer.h), as
 * `tpmtrace record --qemu-ctrl` and `tpmtrace vm-record` make it: the stop
 * signals, swtpm (spawned or given), the trace and the interposer, and
 * their end. */
#ifndef TPMTRACE_RECORDER_QEMU_SESSION_H
#define TPMTRACE_RECORDER_QEMU_SESSION_H

#include <stddef.h>
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

/* What a session recorded (qemu_session_end). */
struct qemu_session_stats {
	int64_t trace_id;
	int recorded; /* a trace was begun */
	struct writer_stats w;
	unsigned long ctrl_messages; /* control messages relayed */
};

/* Takes the stop signals (SIGCHLD too with RECORD_SIG_CHLD in sig_flags),
 * then starts swtpm (if asked), the trace and the interposer. 0, or -1 with
 * err set; either way qemu_session_end releases what was started. */
int qemu_session_begin(struct qemu_session *s, const struct qemu_record_opts *o, unsigned sig_flags,
		       char *err, size_t errlen);
/* Ends the trace (its figures in st), stops swtpm, closes the signalfd.
 * 0, or -EIO when the trace could not be finalized. */
int qemu_session_end(struct qemu_session *s, struct qemu_session_stats *st);

#endif
