/* PCR banks as data, and a software model of the PCRs that applies
 * TPM2_PCR_Extend, TPM2_PCR_Event, TPM2_PCR_Reset and TPM2_Startup the way a
 * TPM does (TPM 2.0 Part 1 section 17, Part 3 sections 22.2-22.4 and 9.3),
 * so that a trace can be checked against PCR values read from a real TPM or
 * printed by tpm2_eventlog. */
#ifndef TPMTRACE_PCR_BANK_H
#define TPMTRACE_PCR_BANK_H

#include <stddef.h>
#include <stdint.h>

#include "model/tpm/constants.h"

#define PCR_COUNT      24 /* PC Client: PCR 0-23 */
#define PCR_MAX_BANKS  8
#define PCR_MAX_DIGEST 64

struct pcr_alg {
	uint16_t alg;
	uint16_t size;
	const char *name; /* as tpm2-tools prints it: sha1, sha256, ... */
	const char *evp;  /* OpenSSL digest name */
};

/* The banks (tpm_hash.def): the common hashes first (sessions, Names, IMA
 * lists and PCR reads use them): pcr_alg_common(i) for i < PCR_COMMON_ALGS,
 * in the table's order, then the other banks. Their names as option choices
 * (PCR_COMMON_NAMES "sha1 sha256 ...", PCR_BANK_NAMES with the other banks
 * an option names) and in a message (PCR_COMMON_SLASHED "sha1/sha256/..."),
 * string constants made from the table. */
#include "model/tpm/tpm_hash.def"
#define PCR_USE_COMMON_N +1
#define PCR_USE_BANK_N
#define PCR_USE_OTHER_N
#define PCR_USE_COMMON_SP(b) " " b
#define PCR_USE_BANK_SP(b)
#define PCR_USE_OTHER_SP(b)
#define PCR_USE_COMMON_ALL(b) " " b
#define PCR_USE_BANK_ALL(b)   " " b
#define PCR_USE_OTHER_ALL(b)
#define PCR_USE_COMMON_SL(b) "/" b
#define PCR_USE_BANK_SL(b)
#define PCR_USE_OTHER_SL(b)
#define PCR_HASH_N_(name, bank, evp, use)   use##_N
#define PCR_HASH_SP_(name, bank, evp, use)  use##_SP(bank)
#define PCR_HASH_ALL_(name, bank, evp, use) use##_ALL(bank)
#define PCR_HASH_SL_(name, bank, evp, use)  use##_SL(bank)
#define PCR_COMMON_ALGS			    (0 TPM_HASHES(PCR_HASH_N_))
#define PCR_COMMON_NAMES		    (&TPM_HASHES(PCR_HASH_SP_)[1])
#define PCR_BANK_NAMES			    (&TPM_HASHES(PCR_HASH_ALL_)[1])
#define PCR_COMMON_SLASHED		    (&TPM_HASHES(PCR_HASH_SL_)[1])
const struct pcr_alg *pcr_alg_common(unsigned i);
/* Its index among the common hashes, or -1. */
int pcr_alg_common_index(uint16_t alg);

const struct pcr_alg *pcr_alg_by_id(uint16_t alg);
/* Accepts "sha256", "SHA256", "TPM2_ALG_SHA256", "0x000b". NULL if unknown. */
const struct pcr_alg *pcr_alg_by_name(const char *name);
/* The usual bank for a digest size (the common hash of that size). */
const struct pcr_alg *pcr_alg_by_size(size_t size);
/* Parses "sha1,sha256" into alg ids. Returns the count, or -EINVAL naming the
 * bad element in err. */
int pcr_alg_parse_list(const char *list, uint16_t *algs, unsigned max, char *err, size_t errlen);

/* One digest per bank, as in a TPML_DIGEST_VALUES. */
struct pcr_digest {
	uint16_t alg;
	uint16_t size;
	uint8_t d[PCR_MAX_DIGEST];
};
struct pcr_digests {
	unsigned n;
	struct pcr_digest v[PCR_MAX_BANKS];
};

struct pcr_sim_bank {
	const struct pcr_alg *a;
	void *md; /* EVP_MD *, fetched once */
	uint32_t extends[PCR_COUNT];
	uint8_t pcr[PCR_COUNT][PCR_MAX_DIGEST];
};

struct pcr_sim {
	unsigned n_banks;
	struct pcr_sim_bank bank[PCR_MAX_BANKS];
	void *ctx;		  /* EVP_MD_CTX *, reused for every extend */
	uint8_t startup_locality; /* of the last TPM2_Startup(CLEAR) */
	uint64_t applied;	  /* commands that changed PCRs */
	uint64_t ignored_pcr;	  /* PCR commands naming an index beyond 23 (not TPM_RH_NULL) */
	uint32_t ignored_idx[4];  /* ... the first of them */
};

/* Starts with no banks; PCRs hold their power-on values. Returns 0, -ENOMEM,
 * or -ENOENT without libcrypto (whose loader said so on stderr). */
int pcr_sim_init(struct pcr_sim *s);
/* What pcr_sim_init's failure rc means, for a message. */
const char *pcr_sim_init_error(int rc);
void pcr_sim_release(struct pcr_sim *s);
/* Index of the bank for alg, adding it (at reset values) if new. Returns the
 * index, -ENOTSUP if OpenSSL cannot compute it, -ENOSPC if too many banks. */
int pcr_sim_bank(struct pcr_sim *s, uint16_t alg);
/* The reset value of a PCR (PC Client Platform TPM Profile: PCR 17-22 all
 * ones; PCR 0 = locality of TPM2_Startup when 3 or 4, else zero). */
void pcr_sim_reset_value(const struct pcr_sim *s, unsigned pcr, uint8_t *out, size_t size);
/* TPM2_Startup(CLEAR) sent at locality: every PCR back to its reset value. */
void pcr_sim_startup_clear(struct pcr_sim *s, uint8_t locality);
/* PCR_new = H(PCR_old || digest); digest must be the bank's size. Returns 0,
 * -EINVAL (wrong size), -ERANGE (pcr > 23, counted and ignored), -ENOTSUP. */
int pcr_sim_extend(struct pcr_sim *s, unsigned pcr, uint16_t alg, const uint8_t *digest,
		   size_t len);
/* TPM2_PCR_Event: every known bank is extended with H_bank(data). */
int pcr_sim_event(struct pcr_sim *s, unsigned pcr, const uint8_t *data, size_t len);
void pcr_sim_reset(struct pcr_sim *s, unsigned pcr);
/* Applies one raw command (its PCR effect only; the caller checks that the
 * TPM answered success). Returns 1 if PCRs changed, 0 if the command does not
 * touch PCRs, or -EINVAL with err set when its bytes cannot be parsed. */
int pcr_sim_apply(struct pcr_sim *s, const uint8_t *cmd, size_t len, uint8_t locality, char *err,
		  size_t errlen);
/* H_alg(data) into out (alg's size). Returns 0 or -ENOTSUP. */
int pcr_sim_hash(struct pcr_sim *s, uint16_t alg, const uint8_t *data, size_t len, uint8_t *out);

#endif
