/* Command families (model/tpm/cc_family.h). */
#include "model/tpm/cc_family.h"

#include <string.h>

#include "model/tpm/tpm_cc.h"

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

static int has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* By the command's name (model/tpm/tpm_cc.def), grouped as Part 3 groups them. */
enum tpm_family tpm_cc_family(uint32_t cc)
{
	static const char *const lifecycle[] = {"Startup",
						"Shutdown",
						"SelfTest",
						"IncrementalSelfTest",
						"GetTestResult",
						"Clear",
						"ClearControl",
						"HierarchyControl",
						"HierarchyChangeAuth",
						"ChangeEPS",
						"ChangePPS",
						"SetPrimaryPolicy",
						"DictionaryAttack",
						"FieldUpgrade",
						"FirmwareRead",
						"PP_Commands",
						"SetAlgorithmSet",
						"SetCommandCodeAuditStatus"};
	static const char *const object[] = {
	    "CreatePrimary",	  "Create",    "Load",	 "ReadPublic", "ObjectChangeAuth",
	    "EvictControl",	  "Duplicate", "Rewrap", "Import",     "MakeCredential",
	    "ActivateCredential", "Unseal"};
	static const char *const context[] = {"ContextSave", "ContextLoad", "FlushContext"};
	static const char *const crypto[] = {"Sign",	       "VerifySignature",
					     "RSA_",	       "ECDH_",
					     "ECC_",	       "EC_Ephemeral",
					     "ZGen",	       "Commit",
					     "EncryptDecrypt", "Hash",
					     "HMAC",	       "MAC",
					     "Sequence",       "EventSequenceComplete",
					     "GetRandom",      "StirRandom"};
	static const char *const attest[] = {
	    "Quote",	 "Certify", "GetTime", "GetSessionAuditDigest", "GetCommandAuditDigest",
	    "NV_Certify"};
	static const char *const info[] = {"GetCapability", "TestParms", "ReadClock", "ClockSet",
					   "ClockRateAdjust"};
	const char *n = tpm_cc_name(cc);
	if (!n)
		return TPM_FAM_OTHER;
	for (size_t i = 0; i < sizeof attest / sizeof *attest; i++)
		if (has_prefix(n, attest[i]))
			return TPM_FAM_ATTEST;
	if (has_prefix(n, "PCR_"))
		return TPM_FAM_PCR;
	if (has_prefix(n, "NV_"))
		return TPM_FAM_NV;
	if (has_prefix(n, "Policy") || !strcmp(n, "StartAuthSession"))
		return TPM_FAM_SESSION;
	for (size_t i = 0; i < sizeof context / sizeof *context; i++)
		if (!strcmp(n, context[i]))
			return TPM_FAM_CONTEXT;
	for (size_t i = 0; i < sizeof lifecycle / sizeof *lifecycle; i++)
		if (has_prefix(n, lifecycle[i]))
			return TPM_FAM_LIFECYCLE;
	for (size_t i = 0; i < sizeof info / sizeof *info; i++)
		if (!strcmp(n, info[i]))
			return TPM_FAM_INFO;
	for (size_t i = 0; i < sizeof object / sizeof *object; i++)
		if (has_prefix(n, object[i]))
			return TPM_FAM_OBJECT;
	for (size_t i = 0; i < sizeof crypto / sizeof *crypto; i++)
		if (has_prefix(n, crypto[i]))
			return TPM_FAM_CRYPTO;
	return TPM_FAM_OTHER;
}
