/* The command table (model/tpm/tpm_cc.def) as data. */
#ifndef TPMTRACE_TPM_CC_H
#define TPMTRACE_TPM_CC_H

#include <stddef.h>
#include <stdint.h>

enum {
#define TPM_CC(name, code, hin, auth, hout, ctb, rtb, csec, rsec, destr) TPM_CC_##name = code,
#include "model/tpm/tpm_cc.def"
#undef TPM_CC
	TPM_CC_Vendor_TCG_Test = 0x20000000,
};

struct tpm_cc_info {
	const char *name; /* without the TPM2_ prefix, e.g. "PCR_Extend" */
	uint32_t cc;
	uint8_t handles_in;
	uint8_t auth_handles;
	uint8_t handles_out;
	uint8_t cmd_tpm2b; /* first command parameter may be encrypted (decrypt) */
	uint8_t rsp_tpm2b; /* first response parameter may be encrypted (encrypt) */
	/* The parameters that carry secrets (tpm_cc.def says how to read them):
	 * "" none; never NULL. */
	const char *cmd_secret;
	const char *rsp_secret;
	/* Changes what a TPM keeps across runs (tpm_cc.def says which): a replay
	 * refuses it on hardware unless asked to (rp_replay_is_destructive). */
	uint8_t destructive;
};

/* NULL for a code not in the table. */
const struct tpm_cc_info *tpm_cc_lookup(uint32_t cc);
/* The name, or NULL for an unknown code. */
const char *tpm_cc_name(uint32_t cc);
/* The name, or "0x%08X" written into buf (16 bytes are enough) for a code
 * the table does not know. */
const char *tpm_cc_label(uint32_t cc, char *buf, size_t len);
/* TPM2_Startup(su) (Part 3 9.3; su TPM_SU_CLEAR or TPM_SU_STATE) into cmd,
 * TPM_STARTUP_SIZE bytes: the one way tpmtrace builds it (a spawned
 * swtpm's start, a replay's, a measurement log's first command). */
void tpm_startup_cmd(uint8_t *cmd, uint16_t su);
/* The code for a name ("PCR_Extend", "TPM2_PCR_Extend" or "TPM_CC_PCR_Extend";
 * case-insensitive); 0 if there is none. */
uint32_t tpm_cc_from_name(const char *name);
/* 1 for an Enhanced Authorization command (TPM 2.0 Part 3, 23: PolicySigned
 * to PolicyTransportSPDM, named Policy...), the one definition of a "policy
 * command" (advise, the SQL function tpm_cc_is_policy); 0 otherwise. */
int tpm_cc_is_policy(uint32_t cc);
/* Iterates over the table: entry i, or NULL past the end. */
const struct tpm_cc_info *tpm_cc_at(unsigned i);

#endif
