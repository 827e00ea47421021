/* Names of TPM 2.0 constants (Part 2): algorithms, handles, capabilities,
 * structure tags, attribute bits (params.h). */
#include <stdio.h>

#include "model/tpm/params.h"

static const struct alg_row {
	uint16_t id;
	uint8_t digest, class_;
	const char *name, *profile;
} algs[] = {
#define TPM_ALG(name, id, digest, class_, profile) {id, digest, class_, "TPM_ALG_" #name, profile},
#include "model/tpm/tpm_alg.def"
#undef TPM_ALG
};

static const struct alg_row *alg_row(uint16_t alg)
{
	for (unsigned i = 0; i < sizeof algs / sizeof algs[0]; i++)
		if (algs[i].id == alg)
			return &algs[i];
	return NULL;
}

const char *tpm_alg_name(uint16_t alg)
{
	const struct alg_row *a = alg_row(alg);
	return a ? a->name : NULL;
}

unsigned tpm_alg_digest_size(uint16_t alg)
{
	const struct alg_row *a = alg_row(alg);
	return a ? a->digest : 0;
}

const char *tpm_alg_profile_name(uint16_t alg, int class_)
{
	const struct alg_row *a = alg_row(alg);
	return a && (a->class_ & class_) && a->profile[0] ? a->profile : NULL;
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
	static const struct {
		uint32_t v;
		const char *name;
	} n[] = {
#define TPM_CAP(name, value) {value, #name},
#include "model/tpm/tpm_cap.def"
#undef TPM_CAP
	};
	for (unsigned i = 0; i < sizeof n / sizeof n[0]; i++)
		if (n[i].v == c)
			return n[i].name;
	return NULL;
}

static const struct {
	uint16_t id;
	const char *name, *profile;
} curves[] = {
#define TPM_ECC(name, id, profile) {id, "TPM_ECC_" #name, profile},
#include "model/tpm/tpm_ecc.def"
#undef TPM_ECC
};

const char *tpm_ecc_name(uint16_t curve)
{
	for (unsigned i = 0; i < sizeof curves / sizeof curves[0]; i++)
		if (curves[i].id == curve)
			return curves[i].name;
	return NULL;
}

const char *tpm_ecc_profile_name(uint16_t curve)
{
	for (unsigned i = 0; i < sizeof curves / sizeof curves[0]; i++)
		if (curves[i].id == curve)
			return curves[i].profile;
	return NULL;
}

const char *tpm_pt_name(uint32_t pt)
{
	static const struct {
		uint32_t v;
		const char *name;
	} n[] = {
#define TPM_PT(name, value) {value, "TPM_PT_" #name},
#include "model/tpm/tpm_pt.def"
#undef TPM_PT
	};
	for (unsigned i = 0; i < sizeof n / sizeof n[0]; i++)
		if (n[i].v == pt)
			return n[i].name;
	return NULL;
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
