/* Names of TPM 2.0 constants (Part 2): algorithms, handles, capabilities,
 * structure tags, attribute bits (params.h). */
#include <stdio.h>

#include "model/tpm/params.h"

static const struct {
	uint16_t id;
	const char *name;
} algs[] = {
    {0x0001, "TPM_ALG_RSA"},
    {0x0003, "TPM_ALG_TDES"},
    {0x0004, "TPM_ALG_SHA1"},
    {0x0005, "TPM_ALG_HMAC"},
    {0x0006, "TPM_ALG_AES"},
    {0x0007, "TPM_ALG_MGF1"},
    {0x0008, "TPM_ALG_KEYEDHASH"},
    {0x000A, "TPM_ALG_XOR"},
    {0x000B, "TPM_ALG_SHA256"},
    {0x000C, "TPM_ALG_SHA384"},
    {0x000D, "TPM_ALG_SHA512"},
    {0x0010, "TPM_ALG_NULL"},
    {0x0012, "TPM_ALG_SM3_256"},
    {0x0013, "TPM_ALG_SM4"},
    {0x0014, "TPM_ALG_RSASSA"},
    {0x0015, "TPM_ALG_RSAES"},
    {0x0016, "TPM_ALG_RSAPSS"},
    {0x0017, "TPM_ALG_OAEP"},
    {0x0018, "TPM_ALG_ECDSA"},
    {0x0019, "TPM_ALG_ECDH"},
    {0x001A, "TPM_ALG_ECDAA"},
    {0x001B, "TPM_ALG_SM2"},
    {0x001C, "TPM_ALG_ECSCHNORR"},
    {0x001D, "TPM_ALG_ECMQV"},
    {0x0020, "TPM_ALG_KDF1_SP800_56A"},
    {0x0021, "TPM_ALG_KDF2"},
    {0x0022, "TPM_ALG_KDF1_SP800_108"},
    {0x0023, "TPM_ALG_ECC"},
    {0x0025, "TPM_ALG_SYMCIPHER"},
    {0x0026, "TPM_ALG_CAMELLIA"},
    {0x0027, "TPM_ALG_SHA3_256"},
    {0x0028, "TPM_ALG_SHA3_384"},
    {0x0029, "TPM_ALG_SHA3_512"},
    {0x0040, "TPM_ALG_CTR"},
    {0x0041, "TPM_ALG_OFB"},
    {0x0042, "TPM_ALG_CBC"},
    {0x0043, "TPM_ALG_CFB"},
    {0x0044, "TPM_ALG_ECB"},
};

const char *tpm_alg_name(uint16_t alg)
{
	for (unsigned i = 0; i < sizeof algs / sizeof algs[0]; i++)
		if (algs[i].id == alg)
			return algs[i].name;
	return NULL;
}

const char *tpm_handle_kind(uint32_t h, char *buf, size_t n)
{
	switch (h) {
	case 0x40000001:
		return "TPM_RH_OWNER";
	case 0x40000007:
		return "TPM_RH_NULL";
	case 0x40000009:
		return "TPM_RS_PW";
	case 0x4000000A:
		return "TPM_RH_LOCKOUT";
	case 0x4000000B:
		return "TPM_RH_ENDORSEMENT";
	case 0x4000000C:
		return "TPM_RH_PLATFORM";
	case 0x4000000D:
		return "TPM_RH_PLATFORM_NV";
	}
	switch (h >> 24) {
	case 0x00:
		snprintf(buf, n, "PCR %u", h);
		return buf;
	case 0x01:
		return "NV index";
	case 0x02:
		return "HMAC session";
	case 0x03:
		return "policy session";
	case 0x40:
		return "permanent";
	case 0x80:
		return "transient object";
	case 0x81:
		return "persistent object";
	}
	return NULL;
}

const char *tpm_cap_name(uint32_t c)
{
	static const char *const n[] = {
	    "ALGS", "HANDLES",	      "COMMANDS",	"PP_COMMANDS", "AUDIT_COMMANDS",
	    "PCRS", "TPM_PROPERTIES", "PCR_PROPERTIES", "ECC_CURVES",  "AUTH_POLICIES",
	    "ACT"};
	return c < sizeof n / sizeof n[0] ? n[c] : NULL;
}

const char *tpm_st_name(uint16_t t)
{
	switch (t) {
	case 0x00C4:
		return "TPM_ST_RSP_COMMAND";
	case 0x8001:
		return "TPM_ST_NO_SESSIONS";
	case 0x8002:
		return "TPM_ST_SESSIONS";
	case 0x8014:
		return "TPM_ST_ATTEST_NV";
	case 0x8015:
		return "TPM_ST_ATTEST_COMMAND_AUDIT";
	case 0x8016:
		return "TPM_ST_ATTEST_SESSION_AUDIT";
	case 0x8017:
		return "TPM_ST_ATTEST_CERTIFY";
	case 0x8018:
		return "TPM_ST_ATTEST_QUOTE";
	case 0x8019:
		return "TPM_ST_ATTEST_TIME";
	case 0x801A:
		return "TPM_ST_ATTEST_CREATION";
	case 0x8021:
		return "TPM_ST_CREATION";
	case 0x8022:
		return "TPM_ST_VERIFIED";
	case 0x8023:
		return "TPM_ST_AUTH_SECRET";
	case 0x8024:
		return "TPM_ST_HASHCHECK";
	case 0x8025:
		return "TPM_ST_AUTH_SIGNED";
	}
	return NULL;
}

/* Bit names of an attribute word, "a|b|c" ("none" for 0, unnamed bits as
 * bitN). */
void tpm_bits_str(uint32_t v, const char *const *names, unsigned n_names, char *out, size_t n)
{
	size_t l = 0;
	out[0] = 0;
	for (unsigned b = 0; b < 32 && l < n; b++) {
		if (!(v & (1u << b)))
			continue;
		if (b < n_names && names[b])
			l += (size_t)snprintf(out + l, n - l, "%s%s", l ? "|" : "", names[b]);
		else
			l += (size_t)snprintf(out + l, n - l, "%sbit%u", l ? "|" : "", b);
	}
	if (!l)
		snprintf(out, n, "none");
}

const char *const tpm_sess_bits[8] = {"continueSession", "auditExclusive", "auditReset", NULL, NULL,
				      "decrypt",	 "encrypt",	   "audit"};
const char *const tpm_obj_bits[20] = {NULL,	      "fixedTPM",
				      "stClear",      NULL,
				      "fixedParent",  "sensitiveDataOrigin",
				      "userWithAuth", "adminWithPolicy",
				      NULL,	      NULL,
				      "noDA",	      "encryptedDuplication",
				      NULL,	      NULL,
				      NULL,	      NULL,
				      "restricted",   "decrypt",
				      "sign",	      "x509sign"};
const char *const tpm_nv_bits[32] = {"PPWRITE",
				     "OWNERWRITE",
				     "AUTHWRITE",
				     "POLICYWRITE",
				     NULL,
				     NULL,
				     NULL,
				     NULL,
				     NULL,
				     NULL,
				     "POLICY_DELETE",
				     "WRITELOCKED",
				     "WRITEALL",
				     "WRITEDEFINE",
				     "WRITE_STCLEAR",
				     "GLOBALLOCK",
				     "PPREAD",
				     "OWNERREAD",
				     "AUTHREAD",
				     "POLICYREAD",
				     NULL,
				     NULL,
				     NULL,
				     NULL,
				     NULL,
				     "NO_DA",
				     "ORDERLY",
				     "CLEAR_STCLEAR",
				     "READLOCKED",
				     "WRITTEN",
				     "PLATFORMCREATE",
				     "READ_STCLEAR"};
