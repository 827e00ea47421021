/* Command variants (see variant.h). Reads only through model/tpm/wire.h. */
#include "model/tpm/variant.h"

#include "model/tpm/decode.h"
#include "model/tpm/wire.h"

#define ALG_RSA 0x0001
#define ALG_ECC 0x0023

int tpm_cc_has_variant(uint32_t cc)
{
	return cc == TPM_CC_StartAuthSession || cc == TPM_CC_CreatePrimary || cc == TPM_CC_Create ||
	       cc == TPM_CC_CreateLoaded;
}

/* The key of a TPM2B_PUBLIC template (Part 2 12.2.4; its parameters read per
 * their unions' selectors, model/tpm/decode.c). */
static int public_variant(struct wire_rd *r)
{
	uint16_t size;
	struct tpm_public_parms p;
	wire_u16(r); /* TPM2B_PUBLIC size */
	uint16_t type = wire_u16(r);
	wire_u16(r);	      /* nameAlg */
	wire_u32(r);	      /* objectAttributes */
	wire_tpm2b(r, &size); /* authPolicy */
	if (r->err || (type != ALG_RSA && type != ALG_ECC) || tpm_rd_public_parms(r, type, &p))
		return POL_VAR_NONE;
	if (type == ALG_RSA)
		return p.key_bits == 2048   ? POL_VAR_RSA_2048
		       : p.key_bits == 3072 ? POL_VAR_RSA_3072
		       : p.key_bits == 4096 ? POL_VAR_RSA_4096
					    : POL_VAR_NONE;
	return p.curve == TPM_ECC_NIST_P256   ? POL_VAR_ECC_P256
	       : p.curve == TPM_ECC_NIST_P384 ? POL_VAR_ECC_P384
	       : p.curve == TPM_ECC_NIST_P521 ? POL_VAR_ECC_P521
					      : POL_VAR_NONE;
}

int tpm_cmd_variant(const uint8_t *cmd, size_t len)
{
	struct tpm_cmd c;
	if (len < TPM_HEADER_SIZE || !tpm_cc_has_variant(wire_get_u32(cmd + 6)) ||
	    tpm_cmd_decode(cmd, len, &c))
		return POL_VAR_NONE;
	return tpm_cmd_variant_of(&c, cmd, len);
}

int tpm_cmd_variant_of(const struct tpm_cmd *c, const uint8_t *cmd, size_t len)
{
	struct wire_rd r;
	uint16_t sz;

	if (c->malformed || !tpm_cc_has_variant(c->cc))
		return POL_VAR_NONE;
	wire_rd_init(&r, cmd, len);
	wire_skip(&r, c->param_off);
	if (c->cc == TPM_CC_StartAuthSession) {
		/* Part 3 11.1: tpmKey TPM_RH_NULL means no salt. An ECC salt is a
		 * TPMS_ECC_POINT, two TPM2Bs filling encryptedSalt; anything else
		 * is an RSA-OAEP secret. */
		if (c->handles[0] == TPM_RH_NULL)
			return POL_VAR_UNSALTED;
		wire_tpm2b(&r, &sz); /* nonceCaller */
		const uint8_t *salt = wire_tpm2b(&r, &sz);
		if (r.err || !salt)
			return POL_VAR_SALTED;
		struct wire_rd p;
		uint16_t xl, yl;
		wire_rd_init(&p, salt, sz);
		wire_tpm2b(&p, &xl);
		wire_tpm2b(&p, &yl);
		return !p.err && !wire_left(&p) && xl && yl ? POL_VAR_SALTED_ECC : POL_VAR_SALTED;
	}
	/* CreatePrimary (Part 3 24.1), Create (12.1), CreateLoaded (12.9):
	 * inSensitive, then the public template. */
	wire_tpm2b(&r, &sz);
	return public_variant(&r);
}

const char *pol_variant_str(int v)
{
	switch (v) {
	case POL_VAR_ECC_P256:
		return "ecc-p256";
	case POL_VAR_SALTED_ECC:
		return "salted-ecc";
	case POL_VAR_SALTED:
		return "salted";
	case POL_VAR_UNSALTED:
		return "unsalted";
	case POL_VAR_RSA_2048:
		return "rsa-2048";
	case POL_VAR_RSA_3072:
		return "rsa-3072";
	case POL_VAR_RSA_4096:
		return "rsa-4096";
	case POL_VAR_ECC_P384:
		return "ecc-p384";
	case POL_VAR_ECC_P521:
		return "ecc-p521";
	}
	return "-";
}
