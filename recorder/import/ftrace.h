/* Parser for ftrace function_graph text of the kernel's TPM functions, as
 * posted on linux-integrity:
 *
 *    1)               |  tpm2_pcr_extend() {
 *    1)               |    tpm2_start_auth_session() {
 *    1) # 1968.117 us |      tpm_transmit_cmd();
 *    1) # 2001.9 us   |    }
 *    1) * 24356.46 us |    tpm_transmit_cmd();
 *    1) @ 151171.0 us |  }
 *
 * optionally with funcgraph-abstime ("  190.412307 |   1) ...") and
 * funcgraph-proc columns. Each timed TPM command becomes one operation: the
 * duration of the outermost tpm_transmit_cmd (bus, driver and TPM) inside a
 * known tpm2_* function, attributed to the innermost such function; a tpm2_*
 * function with a duration and no timed transmission inside counts as one
 * command of its own duration. Two consumers: the ftrace profile importer
 * (recorder/import/profile_import.c) and `tpmtrace import ftrace`. */
#ifndef TPMTRACE_FTRACE_H
#define TPMTRACE_FTRACE_H

#include <stddef.h>
#include <stdint.h>

/* One timed TPM command. */
struct ftrace_op {
	uint32_t cc;	     /* 0: a transmission outside any known tpm2_* function */
	const char *fn;	     /* the tpm2_* function it is attributed to, NULL when cc is 0 */
	const char *variant; /* profile variant ("-", "salted-ecc", "ecc-p256") */
	int auth;	     /* enum tpm_auth_kind (model/tpm/decode.h) the kernel used */
	double ms;	     /* duration */
	int cpu;
	unsigned line; /* 1-based line that completed it */
	int has_time;  /* funcgraph-abstime was on: t_start_ns is the kernel's clock */
	uint64_t t_start_ns;
	/* Who asked for it, from the functions around it (when traced): */
	int user;  /* user space: inside tpm_dev_transmit (tpm_common_write,
		    * tpm_dev_async_work), but not the kernel's own flush of its
		    * session there (tpm2_end_auth_session) */
	int hwrng; /* the kernel's TPM hwrng: inside tpm_hwrng_read */
};

struct ftrace_stats {
	unsigned lines;
	unsigned ops;	       /* operations emitted (including unattributed ones) */
	unsigned unattributed; /* cc 0 */
};

/* Calls op() for every timed TPM command in line order; a non-zero return
 * stops the parse and is returned. Text need not be NUL-terminated. Bad input
 * (binary data, a line that is not function_graph output, an unparsable or
 * absurd duration, nesting deeper than 64) fails with -EINVAL and a message
 * naming name:line. Returns 0, -errno, or op()'s return. st may be NULL. */
int ftrace_parse_mem(const char *buf, size_t len, const char *name,
		     int (*op)(void *ctx, const struct ftrace_op *o), void *ctx,
		     struct ftrace_stats *st, char *err, size_t errlen);

/* The same, but one operation per transmission only (the outermost
 * tpm_transmit_cmd/tpm_transmit): a tpm2_* function that transmitted nothing
 * (a session reused, nothing to flush) is no command. For lining a guest's
 * ftrace up with the TPM commands recorded outside (recorder/import/trace_attribute.h). */
int ftrace_parse_transmissions(const char *buf, size_t len, const char *name,
			       int (*op)(void *ctx, const struct ftrace_op *o), void *ctx,
			       struct ftrace_stats *st, char *err, size_t errlen);

/* The kernel command line that makes a guest trace what
 * ftrace_parse_transmissions needs from boot on: function_graph limited to
 * the transmissions, the functions of ftrace_fn_name() and the ones that tell
 * user space and the hwrng apart, with absolute times. Functions a kernel
 * lacks are ignored by it. */
const char *ftrace_guest_cmdline(void);

/* The function -> command code table, for documentation and tests: entry i,
 * or NULL past the end. */
const char *ftrace_fn_name(size_t i, uint32_t *cc);

#endif
