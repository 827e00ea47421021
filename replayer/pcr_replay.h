/* Software replay of the PCR effect of a stored trace (recorded or imported):
 * the raw command bytes of its successful TPM2_PCR_Extend, TPM2_PCR_Event,
 * TPM2_PCR_Reset and TPM2_Startup commands are applied to a pcr_sim. Also
 * reads expected PCR values (tpm2_pcrread / tpm2_eventlog YAML, tsspcrread
 * text) and checks an IMA boot_aggregate against firmware PCRs. */
#ifndef TPMTRACE_PCR_REPLAY_H
#define TPMTRACE_PCR_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "model/tpm/pcr_bank.h"

struct pcr_replay_stats {
	uint64_t rows;	   /* PCR-related commands read */
	uint64_t applied;  /* that changed PCRs */
	uint64_t failed;   /* answered with an error: no effect */
	uint64_t no_rsp;   /* no response recorded: skipped */
	uint64_t no_bytes; /* command bytes not stored: cannot be replayed */
	uint64_t bad;	   /* bytes that do not parse */
};

/* Replays one trace in seq order. Returns 0, -ENOENT (no such trace) or
 * -EIO, with err set. */
int rp_pcr_replay_trace(sqlite3 *db, int64_t trace_id, struct pcr_sim *s,
			struct pcr_replay_stats *st, char *err, size_t errlen);

/* Expected values: which (bank, PCR) pairs were given and their bytes. */
struct pcr_expect {
	unsigned n_banks;
	uint16_t alg[PCR_MAX_BANKS];
	uint32_t present[PCR_MAX_BANKS]; /* bit per PCR */
	uint8_t v[PCR_MAX_BANKS][PCR_COUNT][PCR_MAX_DIGEST];
};

/* Parses tpm2_pcrread output ("  sha256:" then "    0 : 0x..."), the
 * `pcrs:` section of tpm2_eventlog output, and tsspcrread text ("0: hex",
 * bank from "-halg ALG" or the digest size). Returns the number of values,
 * or -errno / -EINVAL with err set (file and line). */
int rp_pcr_expect_parse_file(const char *path, struct pcr_expect *e, char *err, size_t errlen);
int rp_pcr_expect_parse_mem(const char *text, size_t len, const char *label, struct pcr_expect *e,
			    char *err, size_t errlen);

/* The IMA boot_aggregate of a trace: the first 'ima' event row named
 * boot_aggregate. Returns 0 with alg and digest, -ENOENT if none, -EINVAL if
 * its digest field cannot be read. */
int rp_pcr_boot_aggregate_find(sqlite3 *db, int64_t trace_id, uint16_t *alg, uint8_t *digest,
			       char *err, size_t errlen);
/* H_alg(PCR first..last of bank alg). Returns 0 or -ENOTSUP. */
int rp_pcr_boot_aggregate_calc(struct pcr_sim *s, uint16_t alg, unsigned last, uint8_t *out);

#endif
