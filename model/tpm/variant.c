/* Command variants (see variant.h). Reads the parameters with the layout
 * walker (model/tpm/walk.h). */
#include "model/tpm/variant.h"

#include <string.h>

#include "model/tpm/decode.h"
#include "model/tpm/walk.h"
#include "model/tpm/wire.h"

int tpm_cc_has_variant(uint32_t cc)
{
	return cc == TPM_CC_StartAuthSession || cc == TPM_CC_CreatePrimary || cc == TPM_CC_Create ||
	       cc == TPM_CC_CreateLoaded;
}

/* What the deep walk of a TPMT_PUBLIC or TPMS_ECC_POINT says (its fields
 * one deeper than the value): the type, keyBits and curveID of the
 * parameters and whether they parsed whole, the sizes of x and y. */
struct parts {
	uint64_t type, key_bits, curve, x, y;
	int parms;
};

static int parts_fn(void *ctx, const struct tpm_walk_field *f)
{
	struct parts *p = ctx;
	if (f->depth == 1 && f->event == TPM_WE_FIELD && f->index == 0)
		p->type = f->value;
	if (f->depth == 1 && f->event == TPM_WE_LEAVE && !strcmp(f->name, "parameters"))
		p->parms = 1;
	if (f->depth == 2 && f->event == TPM_WE_FIELD && !strcmp(f->name, "keyBits"))
		p->key_bits = f->value;
	if (f->depth == 2 && f->event == TPM_WE_FIELD && !strcmp(f->name, "curveID"))
		p->curve = f->value;
	if (f->depth == 1 && f->event == TPM_WE_FIELD && f->type == TPM_T_TPM2B)
		*(!strcmp(f->name, "x") ? &p->x : &p->y) = f->value;
	return 0;
}

/* The key of a public template (Part 2 12.2.4), the bytes of a TPM2B_PUBLIC
 * or TPM2B_TEMPLATE: its type and the parameters of its type. */
static int public_variant(const uint8_t *cmd, const struct tpm_walk_field *pub)
{
	struct parts p = {0};
	tpm_walk_value(cmd, pub->data_off, pub->data_off + pub->data_len, TPM_T_TPMT_PUBLIC,
		       "publicArea", TPM_WALK_DEEP, parts_fn, &p, NULL);
	if (!p.parms || (p.type != TPM_ALG_RSA && p.type != TPM_ALG_ECC))
		return POL_VAR_NONE;
	if (p.type == TPM_ALG_RSA)
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
	struct tpm_walk_field f;
	if (c->malformed || !tpm_cc_has_variant(c->cc))
		return POL_VAR_NONE;
	if (c->cc == TPM_CC_StartAuthSession) {
		/* Part 3 11.1: tpmKey TPM_RH_NULL means no salt. An ECC salt is a
		 * TPMS_ECC_POINT, two TPM2Bs filling encryptedSalt; anything else
		 * is an RSA-OAEP secret. */
		if (c->handles[0] == TPM_RH_NULL)
			return POL_VAR_UNSALTED;
		if (tpm_walk_find_cmd(cmd, len, c, "encryptedSalt", &f))
			return POL_VAR_SALTED;
		struct parts p = {0};
		size_t end = f.data_off + f.data_len, stop;
		int rc = tpm_walk_value(cmd, f.data_off, end, TPM_T_TPMS_ECC_POINT, "salt",
					TPM_WALK_DEEP, parts_fn, &p, &stop);
		return !rc && stop == end && p.x && p.y ? POL_VAR_SALTED_ECC : POL_VAR_SALTED;
	}
	/* CreatePrimary (Part 3 24.1), Create (12.1), CreateLoaded (12.9):
	 * inSensitive, then the public template. */
	if (tpm_walk_find_cmd(cmd, len, c, "inPublic", &f))
		return POL_VAR_NONE;
	return public_variant(cmd, &f);
}

const char *tpm_variant_str(int v)
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
