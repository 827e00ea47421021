/* Command variants (see variant.h). Reads only through model/wire.h. */
#include "model/variant.h"

#include "model/decode.h"
#include "model/policy.h"
#include "model/wire.h"

#define ALG_RSA	      0x0001
#define ALG_RSAES     0x0015
#define ALG_ECDAA     0x001A
#define ALG_ECC	      0x0023
#define ALG_NULL      0x0010
#define ECC_NIST_P256 0x0003
#define ECC_NIST_P384 0x0004
#define ECC_NIST_P521 0x0005

int tpm_cc_has_variant(uint32_t cc)
{
	return cc == TPM_CC_StartAuthSession || cc == TPM_CC_CreatePrimary || cc == TPM_CC_Create ||
	       cc == TPM_CC_CreateLoaded;
}

/* Skips a TPMT_SYM_DEF_OBJECT (Part 2 11.1.7): the algorithm, then keyBits
 * and mode unless it is TPM_ALG_NULL. */
static void skip_sym(struct wire_rd *r)
{
	if (wire_u16(r) != ALG_NULL) {
		wire_u16(r);
		wire_u16(r);
	}
}

/* The key of a TPM2B_PUBLIC template (Part 2 12.2.4, 12.2.3.5 RSA parms,
 * 12.2.3.6 ECC parms). */
static int public_variant(struct wire_rd *r)
{
	uint16_t size;
	wire_u16(r); /* TPM2B_PUBLIC size */
	uint16_t type = wire_u16(r);
	wire_u16(r);	      /* nameAlg */
	wire_u32(r);	      /* objectAttributes */
	wire_tpm2b(r, &size); /* authPolicy */
	if (r->err || (type != ALG_RSA && type != ALG_ECC))
		return POL_VAR_NONE;
	skip_sym(r);
	uint16_t scheme = wire_u16(r);
	if (type == ALG_RSA) {
		if (scheme != ALG_NULL && scheme != ALG_RSAES)
			wire_u16(r); /* the scheme's hashAlg */
		uint16_t bits = wire_u16(r);
		if (r->err)
			return POL_VAR_NONE;
		return bits == 2048   ? POL_VAR_RSA_2048
		       : bits == 3072 ? POL_VAR_RSA_3072
		       : bits == 4096 ? POL_VAR_RSA_4096
				      : POL_VAR_NONE;
	}
	if (scheme != ALG_NULL) {
		wire_u16(r); /* hashAlg */
		if (scheme == ALG_ECDAA)
			wire_u16(r); /* count */
	}
	uint16_t curve = wire_u16(r); /* Part 2 6.4 TPM_ECC_CURVE */
	if (r->err)
		return POL_VAR_NONE;
	return curve == ECC_NIST_P256	? POL_VAR_ECC_P256
	       : curve == ECC_NIST_P384 ? POL_VAR_ECC_P384
	       : curve == ECC_NIST_P521 ? POL_VAR_ECC_P521
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
