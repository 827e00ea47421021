/* Recording a VM's TPM traffic between QEMU and swtpm (recorder/qemu_interposer.h):
 * `tpmtrace record --qemu-ctrl` and `tpmtrace vm-record`. */
#ifndef TPMTRACE_RECORD_QEMU_H
#define TPMTRACE_RECORD_QEMU_H

#include <stdint.h>

#include "db/writer.h"
#include "replayer/emulate.h"
#include "recorder/qemu_interposer.h"
#include "recorder/recorder.h"
#include "recorder/swtpm_spawn.h"

struct qemu_record_opts {
	const char *db_path;
	const char *name;	 /* trace name */
	const char *qemu_ctrl;	 /* socket QEMU connects to */
	const char *swtpm_ctrl;	 /* running swtpm's control socket, or NULL */
	const char *swtpm_state; /* with spawn: state directory */
	int spawn;
	int payloads;
	struct emulator *emu; /* latency injection (replayer/emulate.h), or NULL */
};

struct qemu_session {
	struct swtpm_child sw;
	struct writer *w;
	struct recorder rec;
	struct qemu_interposer *qi;
	int64_t trace_id;
	const char *db_path;
};

/* Starts swtpm (if asked), the trace and the interposer. Prints errors with
 * the subcommand's name. Returns 0 or 1. */
int qemu_session_start(struct qemu_session *s, const struct qemu_record_opts *o, const char *sub);
/* Ends the trace and stops swtpm; prints a summary unless quiet. Returns 0,
 * or 1 when the trace could not be finalized. */
int qemu_session_finish(struct qemu_session *s, const char *sub, int quiet);

/* `tpmtrace record --qemu-ctrl PATH ...` (cmd_record.c branches here). */
int record_qemu_main(int argc, char **argv);
/* The QEMU mode's part of `tpmtrace record --help`. */
#define RECORD_QEMU_USAGE                                                                          \
	"usage: tpmtrace record --qemu-ctrl PATH (--swtpm-ctrl PATH | --spawn-swtpm)\n"            \
	"                       [--db FILE] [--swtpm-state DIR] [--payloads MODE]\n"               \
	"                       [--name NAME] [--quiet]\n"                                         \
	"\n"                                                                                       \
	"QEMU mode: serves the control socket PATH that QEMU's TPM emulator backend\n"             \
	"connects to (-chardev socket,id=chrtpm,path=PATH -tpmdev\n"                               \
	"emulator,id=tpm0,chardev=chrtpm), forwards every control message to swtpm and\n"          \
	"records it as an event (INIT = power-on, SHUTDOWN, STOP = reset,\n"                       \
	"SET_LOCALITY, ...), and relays the data channel QEMU hands over with\n"                   \
	"CMD_SET_DATAFD, recording every command with its locality: firmware, kernel,\n"           \
	"IMA and user space alike. Stops when QEMU disconnects, or on SIGINT/SIGTERM.\n"           \
	"\n"                                                                                       \
	"  --qemu-ctrl PATH     the unix socket QEMU connects to (created 0600)\n"                 \
	"  --swtpm-ctrl PATH    the control socket of a running `swtpm socket --ctrl\n"            \
	"                       type=unixio,path=PATH`\n"                                          \
	"  --spawn-swtpm        start a private swtpm (fresh state unless\n"                       \
	"                       --swtpm-state DIR), stopped at the end\n"                          \
	"  --db, --payloads, --name, --quiet   as in the proxy mode\n"                             \
	"\n"                                                                                       \
	"Example:\n"                                                                               \
	"  tpmtrace record --qemu-ctrl /tmp/vtpm.sock --spawn-swtpm --db boot.db &\n"              \
	"  qemu-system-x86_64 ... -chardev socket,id=chrtpm,path=/tmp/vtpm.sock \\\n"              \
	"      -tpmdev emulator,id=tpm0,chardev=chrtpm -device tpm-tis,tpmdev=tpm0\n"              \
	"  (or simply: tpmtrace vm-record --db boot.db -- qemu-system-x86_64 ...)\n"
extern const char record_qemu_usage[];

#endif
