/* Who sent each command of a VM boot's trace: the guest kernel's ftrace of its
 * TPM driver (function_graph with absolute times, the command line of
 * ftrace_guest_cmdline(), recorder/import/ftrace.h) lined up with the commands that
 * `tpmtrace vm-record` recorded between QEMU and swtpm.
 *
 * The guest's transmissions are its commands in order, the first one being
 * the kernel's first (its TPM probe): everything before it in the trace is the
 * firmware's. Each transmission inside a function that names its command
 * (tpm2_pcr_extend, tpm2_flush_context, ...) must meet that command in the
 * trace, or the two are not the same boot and nothing is changed. A
 * transmission inside tpm_dev_transmit (a write to /dev/tpm0 or /dev/tpmrm0)
 * is user space's, except the kernel's own flush of its session there; one
 * inside tpm_hwrng_read is a read of the kernel's TPM hwrng. Commands after
 * the last transmission the ftrace holds (the guest's power-off, after it
 * read its trace) keep the client vm-record gave them.
 *
 * The commands get the clients of the origin rule (model/trace_stream.h):
 * "firmware", "kernel", "kernel"/"hwrng" and "userspace", made in the trace
 * if missing; an event "attribute" records what was done. */
#ifndef TPMTRACE_TRACE_ATTRIBUTE_H
#define TPMTRACE_TRACE_ATTRIBUTE_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct attribute_result {
	uint64_t commands;	/* in the trace */
	uint64_t transmissions; /* in the ftrace */
	uint64_t firmware, kernel, hwrng, user;
	uint64_t uncovered; /* commands after the ftrace's last transmission */
	uint64_t checked;   /* transmissions whose function named the command met */
	uint64_t first_seq; /* seq of the kernel's first command */
	int boundary_moved; /* the firmware's part ended elsewhere than vm-record saw */
	char mismatch[200]; /* why the ftrace does not line up, when it does not */
};

/* Reads the ftrace text (name for messages), lines it up with trace
 * trace_id and writes the clients, in one transaction. Returns 0, -EINVAL
 * (bad ftrace text, or it does not line up: err says where), -ENOENT (no such
 * trace), -EIO or -ENOMEM with err set. */
int import_trace_attribute_ftrace(sqlite3 *db, int64_t trace_id, const char *buf, size_t len,
				  const char *name, struct attribute_result *res, char *err,
				  size_t errlen);

/* attribute --json of r (trace id) into f: 0, or -1 when the JSON writer
 * saw a bug. */
int import_trace_attribute_json(FILE *f, int64_t id, const struct attribute_result *r);

#endif
