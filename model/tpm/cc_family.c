/* Command families (model/tpm/cc_family.h): the names, and the family column
 * of model/tpm/tpm_cc_effects.def. */
#include "model/tpm/cc_family.h"

#include "model/tpm/tpm_cc_effects.h"

const char *tpm_family_name(enum tpm_family f)
{
	static const char *const name[TPM_FAM__COUNT] = {"start-up & admin",
							 "PCR",
							 "sessions & policy",
							 "keys & objects",
							 "contexts & flush",
							 "crypto & random",
							 "NV",
							 "attestation",
							 "capabilities & clock",
							 "other"};
	return (unsigned)f < TPM_FAM__COUNT ? name[f] : "other";
}

/* A column of model/tpm/tpm_cc_effects.def. */
enum tpm_family tpm_cc_family(uint32_t cc)
{
	const struct tpm_cc_effects *e = tpm_cc_effects(cc);
	return e ? (enum tpm_family)e->family : TPM_FAM_OTHER;
}
