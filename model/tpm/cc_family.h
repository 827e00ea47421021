/* Command families: the command codes grouped as TPM 2.0 Part 3 groups them
 * (start-up, PCR, sessions, objects, ...). The one classifier the report's
 * timeline lanes and bar segments use. */
#ifndef TPMTRACE_CC_FAMILY_H
#define TPMTRACE_CC_FAMILY_H

#include <stdint.h>

enum tpm_family {
	TPM_FAM_LIFECYCLE,
	TPM_FAM_PCR,
	TPM_FAM_SESSION,
	TPM_FAM_OBJECT,
	TPM_FAM_CONTEXT,
	TPM_FAM_CRYPTO,
	TPM_FAM_NV,
	TPM_FAM_ATTEST,
	TPM_FAM_INFO,
	TPM_FAM_OTHER,
	TPM_FAM__COUNT
};

/* The family of a command code (the family column of
 * model/tpm/tpm_cc_effects.def); TPM_FAM_OTHER for unknown codes. */
enum tpm_family tpm_cc_family(uint32_t cc);
/* A short name for people ("PCR", "sessions & policy", ...). */
const char *tpm_family_name(enum tpm_family f);

#endif
