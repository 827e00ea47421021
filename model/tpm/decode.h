/* Decoder for raw TPM 2.0 commands and responses (TPM 2.0 Part 1 section 18,
 * Part 3 section 4 for the layout of each command). Reads only through the
 * bounds-checked accessors of wire.h; never writes to the buffer. */
#ifndef TPMTRACE_DECODE_H
#define TPMTRACE_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "model/tpm/constants.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/wire.h"

/* Why a message did not parse. 0 means it did. */
enum tpm_malformed {
	TPM_MAL_NONE = 0,
	TPM_MAL_SHORT_HEADER, /* fewer than 10 bytes */
	TPM_MAL_SIZE_OVER,    /* size field larger than the bytes received */
	TPM_MAL_SIZE_UNDER,   /* size field smaller than the bytes received */
	TPM_MAL_TOO_LARGE,    /* more than TPM_MAX_MESSAGE bytes */
	TPM_MAL_BAD_TAG,      /* tag is neither NO_SESSIONS nor SESSIONS */
	TPM_MAL_UNKNOWN_CC,   /* command code not in the table */
	TPM_MAL_HANDLES,      /* handle area runs past the end */
	TPM_MAL_AUTH_SIZE,    /* authorization size runs past the end */
	TPM_MAL_AUTH,	      /* sessions do not fill the authorization area */
	TPM_MAL_TOO_MANY_SESSIONS,
	TPM_MAL_PARAM_SIZE,	   /* response parameterSize runs past the end */
	TPM_MAL_SIZE_BELOW_HEADER, /* size field below the 10-byte header (framing) */
	TPM_MAL_COUNT
};

const char *tpm_malformed_str(int reason);

/* Authorization kind of a command: the key of a latency profile. */
enum tpm_auth_kind {
	TPM_AUTH_NONE = 0,
	TPM_AUTH_PASSWORD = 1,
	TPM_AUTH_HMAC = 2,
	TPM_AUTH_HMAC_ENC = 3, /* HMAC session with parameter encryption */
	TPM_AUTH_POLICY = 4,
	TPM_AUTH_POLICY_ENC = 5,
};

const char *tpm_auth_kind_str(int kind);

struct tpm_session {
	uint32_t handle;
	uint16_t nonce_off; /* offset of the nonce bytes in the message */
	uint16_t nonce_size;
	uint8_t attrs;
	uint16_t hmac_off; /* offset of the hmac (or password) bytes */
	uint16_t hmac_size;
};

struct tpm_cmd {
	uint16_t tag;
	uint32_t size; /* the size field */
	uint32_t cc;
	const struct tpm_cc_info *info; /* NULL for unknown codes */
	uint8_t n_handles;
	uint32_t handles[3];
	uint32_t auth_size;
	uint8_t n_sessions;
	struct tpm_session sess[TPM_MAX_SESSIONS];
	uint32_t param_off;
	uint32_t param_size;
	int32_t pcr; /* PCR index for PCR_Extend/PCR_Event/PCR_Reset, else -1 */
	uint8_t auth_kind;
	uint8_t sess_attrs[TPM_MAX_SESSIONS];
	int malformed; /* enum tpm_malformed */
};

struct tpm_rsp {
	uint16_t tag;
	uint32_t size;
	uint32_t rc;
	uint8_t n_handles;
	uint32_t handle;
	uint32_t param_off;
	uint32_t param_size;
	uint8_t n_sessions;
	struct tpm_session sess[TPM_MAX_SESSIONS];
	int malformed;
};

/* Decodes a command. Returns 0 or the malformed reason (also in out->malformed);
 * fields that could be read before the problem are filled in. */
int tpm_cmd_decode(const uint8_t *buf, size_t len, struct tpm_cmd *out);

/* Decodes a response to a command with code cc (0 if unknown: then only the
 * header is decoded). */
int tpm_rsp_decode(const uint8_t *buf, size_t len, uint32_t cc, struct tpm_rsp *out);

/* Packs up to three session attribute bytes into one integer (session 0 in the
 * low byte) as stored in the database. */
static inline uint32_t tpm_pack_attrs(const uint8_t *a, unsigned n)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < n && i < TPM_MAX_SESSIONS; i++)
		v |= (uint32_t)a[i] << (8 * i);
	return v;
}

/* ---- Part 2 unions, read per their selector ----
 * Each reads its TPMT_ structure at r: the selector, then the union member
 * the selector names (nothing for TPM_ALG_NULL). Returns 0, or -1 for a
 * selector the union does not have: the reader is put in error, since what
 * follows cannot be located. The unions are those of tpm_types.def, read by
 * the layout walker (walk.h). */

/* TPMT_SYM_DEF (Part 2 11.1.6: algorithm, TPMU_SYM_KEY_BITS, TPMU_SYM_MODE) and
 * TPMT_SYM_DEF_OBJECT (11.1.7, no XOR). AES, SM4, CAMELLIA and TDES have key
 * bits and a mode; XOR's keyBits member is a hash algorithm and it has NO
 * mode (TPMU_SYM_MODE is empty for XOR, as for NULL). */
struct tpm_sym_def {
	uint16_t alg;
	uint16_t key_bits; /* block ciphers */
	uint16_t mode;	   /* block ciphers; TPM_ALG_NULL (0x0010) otherwise */
	uint16_t hash;	   /* XOR */
};
int tpm_rd_sym_def(struct wire_rd *r, int object, struct tpm_sym_def *d);

/* A scheme and its details: TPMT_KEYEDHASH_SCHEME (12.1.12: HMAC {hashAlg},
 * XOR {hashAlg, kdf}), TPMT_SIG_SCHEME (11.2.1.5: RSASSA, RSAPSS, ECDSA, SM2,
 * ECSCHNORR, HMAC, EDDSA, EDDSA_PH {hashAlg}; ECDAA {hashAlg, count}),
 * TPMT_RSA_SCHEME (11.2.4.2: RSASSA, RSAPSS, OAEP {hashAlg}; RSAES {}),
 * TPMT_ECC_SCHEME (11.2.5.6: ECDSA, SM2, ECSCHNORR, ECDH, ECMQV, EDDSA,
 * EDDSA_PH {hashAlg}; ECDAA {hashAlg, count}), TPMT_KDF_SCHEME (11.2.3.3:
 * MGF1, KDF1_SP800_56A, KDF2, KDF1_SP800_108 {hashAlg}). */
struct tpm_scheme {
	uint16_t scheme;
	uint16_t hash;
	uint16_t kdf;	/* keyedhash XOR */
	uint16_t count; /* ECDAA */
};
int tpm_rd_keyedhash_scheme(struct wire_rd *r, struct tpm_scheme *s);
int tpm_rd_sig_scheme(struct wire_rd *r, struct tpm_scheme *s);
int tpm_rd_rsa_scheme(struct wire_rd *r, struct tpm_scheme *s);
int tpm_rd_ecc_scheme(struct wire_rd *r, struct tpm_scheme *s);
int tpm_rd_kdf_scheme(struct wire_rd *r, struct tpm_scheme *s);

/* TPMT_PUBLIC's type-specific parameters (TPMU_PUBLIC_PARMS, Part 2 12.2.3.7)
 * for a type (KEYEDHASH, SYMCIPHER, RSA, ECC) and, for RSA and ECC, the
 * key size or curve. Returns 0 or -1 (unknown type or selector). */
struct tpm_public_parms {
	uint16_t type;
	struct tpm_sym_def symmetric; /* SYMCIPHER's sym, RSA's and ECC's symmetric */
	struct tpm_scheme scheme;     /* keyedhash, RSA or ECC scheme */
	struct tpm_scheme kdf;	      /* ECC */
	uint16_t key_bits;	      /* RSA */
	uint32_t exponent;	      /* RSA */
	uint16_t curve;		      /* ECC */
};
int tpm_rd_public_parms(struct wire_rd *r, uint16_t type, struct tpm_public_parms *p);

/* Text of a response code, from tss2-rc ("TPM2_RC_SUCCESS" for 0). */
const char *tpm_rc_str(uint32_t rc);

#endif
