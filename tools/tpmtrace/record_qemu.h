/* Recording a VM's TPM traffic between QEMU and swtpm (recorder/qemu_session.h):
 * `tpmtrace record --qemu-ctrl` and `tpmtrace vm-record`, their messages. */
#ifndef TPMTRACE_RECORD_QEMU_H
#define TPMTRACE_RECORD_QEMU_H

#include <stdint.h>

#include "recorder/qemu_session.h"

/* Takes the stop signals (SIGCHLD too with RECORD_SIG_CHLD in sig_flags),
 * then starts swtpm (if asked), the trace and the interposer. Prints errors
 * with the subcommand's name. Returns 0 or 1; either way
 * cli_qemu_finish releases what was started. */
int cli_qemu_start(struct qemu_session *s, const struct qemu_record_opts *o, const char *sub,
		   unsigned sig_flags);
/* Ends the trace, stops swtpm, closes the signalfd; prints a summary unless
 * quiet. Returns 0, or 1 when the trace could not be finalized. */
int cli_qemu_finish(struct qemu_session *s, const char *sub, int quiet);

#endif
