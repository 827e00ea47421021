/* The cost model: a trace expanded under each policy (model/policy.h), every
 * command priced from a latency profile (model/profile.h), plus host-side
 * crypto and the trace's non-TPM time. Streaming: the trace is fed one command
 * at a time to all policies at once; memory does not grow with the trace. */
#ifndef TPMTRACE_PREDICT_H
#define TPMTRACE_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "model/policy.h"
#include "model/profile.h"

/* Host-side crypto per operation, in ms. The constants are the ESTIMATE used
 * when nothing was measured (`predict --host-crypto estimate`, the report):
 * derived from `openssl speed` (OpenSSL 3.0, one x86-64 core of the build
 * host): ECDH P-256 17,487 op/s (0.057 ms), ECDSA P-256 sign 43,716 op/s
 * (ephemeral key generation ~0.023 ms), SHA-256 ~280 MB/s on 64-byte blocks.
 * `tpmtrace predict` measures them instead by default, with the replayer's
 * own session code on the host it runs on (replayer/hostcrypto.h). */
#define HOST_MS_SALT_ECC 0.085 /* ephemeral P-256 key, ECDH, KDFe, KDFa */
#define HOST_MS_SALT	 0.085 /* salted with another key: taken as the same */
#define HOST_MS_UNSALTED 0.002 /* KDFa only */
#define HOST_MS_HMAC	 0.005 /* cpHash, command HMAC, rpHash, response HMAC check */
#define HOST_MS_ENC	 0.003 /* KDFa + AES-128-CFB of one parameter */
#define HOST_MS_NAME	 0.002 /* hashing a public area into a Name */

/* What predict adds for the host's share of a session command. */
struct pred_host {
	double salt_ecc; /* StartAuthSession salted by ECDH: ephemeral key, ECDH, KDFe, KDFa */
	double salt;	 /* salted with a key of another type: priced as salt_ecc */
	double unsalted; /* StartAuthSession without salt: the session's set-up */
	double hmac;	 /* a command with an HMAC session: cpHash, HMAC, rpHash, HMAC check */
	double enc;	 /* parameter encryption on top: KDFa and AES-128-CFB, each way */
	double name;	 /* hashing a public area into a Name (a name lookup) */
	int measured;	 /* 1: measured on this host; 0: the HOST_MS_* estimate */
};

/* The HOST_MS_* estimate. */
void predict_host_estimate(struct pred_host *h);

#define PREDICT_MAX_POLICIES 16
#define PREDICT_MAX_MISSING  64

/* A prediction with more than this share of its TPM time priced at the
 * profile's fallback (commands the profile lacks) is marked "mostly
 * fallback" by predict and report: it is more guess than measurement. */
#define PREDICT_FALLBACK_WARN 0.25

struct pred_missing {
	uint32_t cc;
	uint8_t auth;
	uint8_t variant;
	uint8_t how; /* enum prof_match */
	uint64_t count;
	const struct prof_entry *used; /* NULL when priced at the fallback */
};

struct pred_result {
	struct policy pol;
	uint64_t by_role[POL_ROLE__COUNT];
	uint64_t commands;	     /* commands sent under the policy */
	double tpm_ms;		     /* profile mean per command + transport */
	double tpm_lo_ms, tpm_hi_ms; /* the same with each entry's low and high figure */
	double nospread_ms;	     /* part of tpm_ms priced from entries without spread data */
	double host_ms;		     /* host crypto (pred_host) */
	uint64_t approx;	     /* commands priced from another variant/authorization */
	uint64_t missing;	     /* commands priced at the fallback */
	struct pred_missing miss[PREDICT_MAX_MISSING];
	unsigned n_miss;
	/* Commands and their priced TPM time per command code (the most
	 * frequent first after predict_finish). */
	struct pred_cc_count {
		uint32_t cc;
		uint64_t n;
		double tpm_ms;
	} by_cc[48];
	unsigned n_cc;
	uint64_t cc_other; /* commands of codes beyond the table */
	/* Commands priced by each price-cache slot (predictor.cache): the
	 * sampled spread and the timeout risk come from these. */
	uint64_t uses[1024];
};

struct pred_cache_slot {
	uint32_t key; /* cc << 8 | auth << 4 | variant, +1 so 0 means empty */
	uint32_t cc;  /* the command priced, and its authorization kind */
	uint8_t auth;
	uint8_t how;
	uint8_t spread;
	uint8_t derived; /* the entry is derived (e->derived_from): kept here, since a
			  * prediction may outlive its profile (the report's) */
	double mean, lo, hi;
	const struct prof_entry *e; /* valid while the profile is */
};

struct predictor {
	const struct profile *prof;
	struct pred_host host; /* the estimate unless predict_set_host() */
	double fallback_ms;
	unsigned n_pol;
	struct pol_state st[PREDICT_MAX_POLICIES];
	struct pred_result r[PREDICT_MAX_POLICIES];
	struct pred_cache_slot cache[1024];
	struct pred_ctx {
		struct predictor *pr;
		unsigned i;
	} ctx[PREDICT_MAX_POLICIES]; /* callback contexts, one per policy */
	/* The input trace. */
	uint64_t in_commands;
	uint64_t in_events;
	uint64_t in_hwrng;	/* reads of the kernel's TPM hwrng: its client's GetRandom */
	double recorded_tpm_ms; /* sum of recorded latencies */
	uint64_t recorded_n;	/* commands with a recorded latency */
	double gap_ms;		/* non-TPM time: gaps between a response and the next command */
	uint64_t prev_done_ns;
	int have_prev;
	int gap_known; /* non-TPM time is known: timed gaps seen, or predict_add_gap */
};

/* Prepares a prediction of n policies (at most PREDICT_MAX_POLICIES). The
 * predictor is large (keep it off small stacks). Returns 0 or -EINVAL. */
int predict_init(struct predictor *pr, const struct profile *prof, const struct policy *pols,
		 unsigned n);
/* Prices host crypto with h (a measurement) instead of the estimate; call
 * before the first command. */
void predict_set_host(struct predictor *pr, const struct pred_host *h);
/* Feeds one trace command. t_submit_ns/t_done_ns may be 0 (unknown);
 * latency_ns < 0 when not recorded. */
int predict_cmd(struct predictor *pr, const struct pol_cmd *c, uint64_t t_submit_ns,
		uint64_t t_done_ns, int64_t latency_ns);
int predict_event(struct predictor *pr, enum pol_event ev);
/* Adds non-TPM time not visible as gaps (synthetic traces). */
void predict_add_gap(struct predictor *pr, double ms);
/* Sorts the per-command tables. */
void predict_finish(struct predictor *pr);

/* Predicted total of policy i: TPM + host crypto + non-TPM time. */
/* The share of policy k's TPM time priced at the fallback (0 when none). */
double predict_fallback_share(const struct predictor *pr, unsigned k);
double predict_total_ms(const struct predictor *pr, unsigned i);

/* Policy i against the baseline policy base (password) and against the
 * recorded trace, on TPM time and on totals. A total factor is meaningful
 * only when the non-TPM time is known (a recorded trace's gaps, or
 * --gap-ms for a synthetic one): total_known says so. A factor whose
 * divisor is 0 is 0. */
struct pred_factors {
	double tpm_vs_base, total_vs_base;
	double tpm_vs_rec, total_vs_rec; /* only with have_rec */
	int total_known, have_rec;
};
void predict_factors(const struct predictor *pr, unsigned i, unsigned base, struct pred_factors *f);

/* The policies of a prediction from the --policy arguments (none: all):
 * "all" expands to the presets; password is added as the baseline when
 * not asked for (show[k] 0). Returns 0, or -EINVAL with err naming the bad
 * argument. pols/show hold PREDICT_MAX_POLICIES. */
int predict_policies(const char *const *args, unsigned n_args, struct policy *pols, int *show,
		     unsigned *npol, unsigned *base, char *err, size_t errlen);

/* Feeds a synthetic trace, spec "CMD:N[,CMD:N...]" (pcr-extend:12313): N
 * commands of each CMD in turn, sent by the kernel with password
 * authorization where the command has an authorization handle; gap_ms of
 * non-TPM time between commands when gap_ms >= 0 (< 0: unknown). desc gets
 * "12313 x PCR_Extend". Returns 0, -EINVAL (err: what is wrong with spec)
 * or the expansion's error. */
int predict_synthetic(struct predictor *pr, const char *spec, double gap_ms, char *desc,
		      size_t dlen, char *err, size_t errlen);

/* predict's sampled boots by default (--boots, --seed), which the report's
 * population uses too, so that their figures are the same. */
#define PREDICT_BOOTS_DEFAULT 1000
#define PREDICT_SEED_DEFAULT  1

/* The spread of policy k's TPM time over sampled boots (model/predict_spread.c,
 * docs/profiles.md "Spread and tail risk"): runs boots, each command's latency
 * drawn from its entry's distribution (model/profile_dist.h), seeded; a kind
 * with more than 64 commands in one boot drawn as their sum (a normal with the
 * kind's mean and variance times the count). p50, p95 and max of the runs. sampled: the share of
 * the TPM time whose entries have a spread (the rest is fixed). 0, or -ENOMEM. */
struct pred_spread {
	unsigned runs;
	uint64_t seed;
	double p50_ms, p95_ms, max_ms;
	double sampled;
};
int predict_spread(const struct predictor *pr, unsigned k, unsigned runs, uint64_t seed,
		   struct pred_spread *out);

/* The kernel's timeouts (tpm2_ordinal_duration_map of drivers/char/tpm/tpm2-cmd.c):
 * kernel 0 is the table since 207696b17f38 with CreatePrimary, Create and
 * CreateLoaded at 30 s, kernel 1 the same with 300 s (as before that commit and
 * again since its fix); a command the table does not list waits 120 s. */
#define PREDICT_KERNELS 2
const char *predict_kernel_name(unsigned kernel);
double predict_kernel_timeout_ms(unsigned kernel, uint32_t cc);

/* A kind of command of policy k that can outlast the kernel's timeout for
 * it on this profile: p_cmd the share of its latencies above the timeout
 * (from its entry's distribution: 0 at or above max), p_boot the chance that
 * at least one of the count sent in a boot does. */
struct pred_timeout {
	uint32_t cc;
	uint8_t auth;
	const struct prof_entry *e;
	uint64_t count;
	unsigned kernel;
	double timeout_ms, p_cmd, p_boot;
};
/* The kinds at risk under each kernel table, the likeliest first; returns
 * how many (at most max). */
unsigned predict_timeouts(const struct predictor *pr, unsigned k, struct pred_timeout *out,
			  unsigned max);

/* Commands of policy k priced from derived entries (prof_entry.derived_from:
 * another command's figures by a rule of docs/profiles.md). */
uint64_t predict_derived(const struct predictor *pr, unsigned k);
/* The share of policy k's TPM time priced from derived entries. */
double predict_derived_share(const struct predictor *pr, unsigned k);

/* The warnings of a prediction: each (command, authorization, variant) the
 * profile approximated or lacked, once, as text. Returns how many (at
 * most max). */
unsigned predict_warnings(const struct predictor *pr, char (*w)[256], unsigned max);

/* A time as predict prints it: "12.2 s", "8.579 s", "231.00 ms" (a negative
 * one, a saving that is a loss, the same way); returns b. */
const char *predict_fmt_time(char *b, size_t l, double ms);
/* "10s", "500ms", "1.5min", a bare number in ms: 0, or -1. */
int predict_parse_time(const char *s, double *ms);

#endif
