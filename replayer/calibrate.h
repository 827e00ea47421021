/* tpmtrace calibrate: a micro-benchmark of the commands a boot and tpm2-tools
 * send, run against one TPM, whose result is a latency profile
 * (model/profile.h).
 *
 * A kind is a command in one authorization form (none, password, HMAC
 * session, HMAC session with parameter encryption: each priced apart by
 * predict) and, where it matters, one key or session variant. The kinds are
 * measured in passes: every pass sends each kind once, with the unmeasured
 * steps it needs around it (a Load before a FlushContext, ...). Pass 0 is the
 * cold call (kept apart: in the entry's comment), then `warmup` passes are
 * not measured, then `iterations` are; the entry gets n, mean, p50, p95,
 * stdev, min and max of the measured calls (the time around the TCTI
 * transmit and receive only). Passes rather than one kind after the other:
 * a kind's samples spread over the whole run, so a moment of load on the host
 * does not fall on one kind, and no command is timed in a loop of itself,
 * with the target's code hot in the caches as it never is in a boot.
 *
 * Everything created is removed again, also when a step fails: transient
 * objects and sessions are flushed, NV indices are undefined; nothing is
 * made persistent. On hardware (any target but swtpm and the MS simulator)
 * the NV kinds (NV_DefineSpace, NV_UndefineSpace, and NV_Write, NV_Read,
 * NV_ReadPublic, which need an index defined) are skipped unless
 * allow_destructive: defining and undefining NV space, a few times per pass,
 * changes the TPM's persistent state and wears its NV memory.
 *
 * Return convention: 0, -errno with err set (a TPM error in a setup step is
 * reported as -EPROTO with the response code in err). */
#ifndef TPMTRACE_CALIBRATE_H
#define TPMTRACE_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "model/profile.h"

struct calibrate_opts {
	const char *tcti; /* NULL: spawn a private swtpm */
	unsigned iterations;
	unsigned warmup;
	int allow_destructive;
	const char *name; /* profile name; NULL: calibrated-HOST-DATE */
	/* Progress after each call: kind i of n, its name, call j of m. */
	void (*progress)(void *arg, unsigned i, unsigned n, const char *kind, unsigned j,
			 unsigned m);
	void *progress_arg;
};

struct calibrate_result {
	unsigned kinds_measured, kinds_skipped;
	uint64_t commands; /* every command sent, setup and cleanup included */
	unsigned cleaned;  /* handles flushed or undefined at the end */
	unsigned left;	   /* handles that could not be removed */
	char target[320];
	char skipped[1200]; /* what was skipped and why */
};

/* Fills p (initialised by the caller) with the measured profile. */
int rp_calibrate_run(const struct calibrate_opts *o, struct profile *p,
		     struct calibrate_result *res, char *err, size_t errlen);

/* True when a TCTI string names hardware rather than a software TPM. */
int rp_calibrate_is_hardware(const char *tcti);

#endif
