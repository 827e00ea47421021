/* tpmtrace calibrate: a micro-benchmark of the commands a boot sends, run
 * against one TPM, whose result is a latency profile (model/profile.h).
 *
 * Every kind (command, authorization kind, key or session variant) is sent
 * once cold (its first call, kept apart: it is in the entry's comment), then
 * `warmup` times unmeasured, then `iterations` times measured; the entry gets
 * n, mean, p50, p95, stdev, min and max of the measured calls (the time around
 * the TCTI transmit and receive only). Commands the kinds need but do not
 * measure (a Load before a FlushContext, ...) are not counted.
 *
 * Everything created is removed again, also when a step fails: transient
 * objects and sessions are flushed, the NV index is undefined; nothing is
 * made persistent. On hardware (any target but swtpm and the MS simulator)
 * the kinds that define or undefine NV space are skipped unless
 * allow_destructive: NV_DefineSpace/NV_UndefineSpace change the TPM's
 * persistent state and wear its NV memory.
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
int calibrate_run(const struct calibrate_opts *o, struct profile *p, struct calibrate_result *res,
		  char *err, size_t errlen);

/* True when a TCTI string names hardware rather than a software TPM. */
int calibrate_is_hardware(const char *tcti);

#endif
