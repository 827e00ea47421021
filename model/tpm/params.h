/* A whole TPM 2.0 command or response explained field by field, in the
 * manner of `tshark -V`: the header, the handles with their names, every
 * authorization area and the parameters by name as the TPM 2.0 Part 3 tables
 * give them (hex for the commands without a layout here). The explanation is
 * a list of fields handed to a callback in order; nothing is printed.
 * tpm_field_format() writes one field as one line of text.
 *
 * Redaction (model/tpm/redact.c) zeroes secrets in place and keeps their
 * sizes; with redacted set, the bytes the command table's secret layout
 * names (and the authorization values of password and policy sessions) are
 * given as TPM_F_REDACTED, never as the zeros that are stored. */
#ifndef TPMTRACE_PARAMS_H
#define TPMTRACE_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "model/tpm/decode.h"

enum tpm_field_kind {
	TPM_F_GROUP,	/* a structure: the fields that follow are one deeper */
	TPM_F_VALUE,	/* a value, as text */
	TPM_F_BYTES,	/* a byte string (a TPM2B's buffer, a digest) */
	TPM_F_REDACTED, /* bytes redaction zeroed: their size only */
	TPM_F_ERROR,	/* what could not be decoded (the text says why; starts "?") */
};

struct tpm_field {
	unsigned depth;
	int kind;
	const char *name;
	const char *value;    /* VALUE, GROUP (may be NULL), ERROR */
	const uint8_t *bytes; /* BYTES */
	size_t n_bytes;	      /* BYTES, REDACTED */
	/* Where in the message the parameter this field explains starts, as
	 * the explainer read it (SIZE_MAX for the header, handles and
	 * sessions): tests/unit/test_tpm_walk.c checks it against the walker. */
	size_t param_off;
};

typedef void (*tpm_field_fn)(void *ctx, const struct tpm_field *f);

/* Explains a command. Returns 0 when every part was decoded by name, 1 when
 * its parameters have no layout here (given as hex), -1 when the message
 * does not parse as its code says (a TPM_F_ERROR field says where). */
int tpm_explain_cmd(const uint8_t *buf, size_t len, int redacted, tpm_field_fn fn, void *ctx);
/* Explains the response to the command cmd/cmd_len (NULL: only what the
 * response alone says). Same returns. */
int tpm_explain_rsp(const uint8_t *buf, size_t len, const uint8_t *cmd, size_t cmd_len,
		    int redacted, tpm_field_fn fn, void *ctx);

/* Whether the parameters of command code cc are decoded by name. */
int tpm_params_known(uint32_t cc);

/* One field as one line, without indentation: "name: value",
 * "name: size N 0011..", "name: size N <redacted>". Returns the length
 * (snprintf's convention: may exceed n, then the text is cut). */
int tpm_field_format(const struct tpm_field *f, char *out, size_t n);

/* Names: an algorithm ("TPM_ALG_SHA256"), a handle ("TPM_RH_OWNER",
 * "PCR 16", "NV index", "HMAC session", ...); NULL if unknown. */
const char *tpm_alg_name(uint16_t alg);
/* tpm_alg.def's columns: the digest size of a hash (0 for anything else);
 * the profile token of an algorithm of class_ (enum tpm_alg_class, or'ed),
 * NULL if it has none. */
unsigned tpm_alg_digest_size(uint16_t alg);
const char *tpm_alg_profile_name(uint16_t alg, int class_);
/* An ECC curve ("TPM_ECC_NIST_P256") and its profile token ("p256"), NULL if
 * unknown (tpm_ecc.def). */
const char *tpm_ecc_name(uint16_t curve);
const char *tpm_ecc_profile_name(uint16_t curve);
/* A TPM_PT ("TPM_PT_MANUFACTURER"), NULL if unknown (tpm_pt.def). */
const char *tpm_pt_name(uint32_t pt);
const char *tpm_handle_kind(uint32_t h, char *buf, size_t n);
/* TPM_CAP_ without the prefix ("TPM_PROPERTIES"), a TPM_ST ("TPM_ST_SESSIONS"). */
const char *tpm_cap_name(uint32_t cap);
const char *tpm_st_name(uint16_t tag);
/* Bit names of an attribute word, "a|b|c" ("none" for 0, unnamed bits as
 * bitN), from a table of n_names (TPMA_SESSION, TPMA_OBJECT, TPMA_NV). */
void tpm_bits_str(uint32_t v, const char *const *names, unsigned n_names, char *out, size_t n);
extern const char *const tpm_sess_bits[8];
extern const char *const tpm_obj_bits[20];
extern const char *const tpm_nv_bits[32];

#endif
