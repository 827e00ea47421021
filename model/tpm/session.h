/* TPM 2.0 session cryptography for the replayer (OpenSSL libcrypto 3.0).
 *
 * What the host side of an HMAC session computes (TPM 2.0 Part 1):
 *   KDFa (11.4.10.2) and KDFe (11.4.10.3), the ECC salt (C.6.1 / 11.4.10.3),
 *   the session key (19.6.8), cpHash/rpHash (16.7, 18.7), the command and
 *   response HMACs (19.6.5, 19.6.6), AES-CFB parameter encryption (21.3) and
 *   object Names (16).
 *
 * Speed: a replay issues one session per command under the Linux 6.10 policy,
 * so a fixed per-call cost dominates small messages. All OpenSSL algorithm
 * objects are fetched once, at the first call that needs one (a password
 * replay needs none: the fetch was 30% of a short one's instructions), and
 * their contexts are reused (re-initialised, never re-created) on every call;
 * the HMAC key schedule is
 * cached, so a session that keeps its key only pays for the data it hashes.
 *
 * Return convention: 0 success, -errno for host errors (-EINVAL bad argument,
 * -ENOTSUP unsupported algorithm, -EPROTO malformed response, -EBADMSG response
 * HMAC mismatch, -EIO an OpenSSL failure), positive = a TPM response code. No
 * function prints.
 */
#ifndef TPMTRACE_SESSION_H
#define TPMTRACE_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "model/tpm/constants.h"

#define SESS_MAX_DIGEST 64 /* SHA-512 */
#define SESS_MAX_NAME	(2 + SESS_MAX_DIGEST)
#define SESS_MAX_AUTH	SESS_MAX_DIGEST
#define SESS_NHASH	4

/* A TPM Name (Part 1 16): a handle (4 bytes) for PCRs, permanent handles and
 * sessions; nameAlg || H(public area) for objects and NV indices. */
struct tpm_name {
	uint16_t size;
	uint8_t b[SESS_MAX_NAME];
};

/* OpenSSL objects kept across calls. One per thread; not thread-safe. */
struct sess_crypto {
	void *md[SESS_NHASH]; /* EVP_MD of each common hash (pcr_alg_common) */
	void *mdctx;	      /* EVP_MD_CTX, reused for every hash */
	void *mac;	      /* EVP_MAC "HMAC" */
	void *macctx;	      /* EVP_MAC_CTX, keyed lazily (see key cache) */
	int mac_md;	      /* index of the digest macctx is set up for, -1 none */
	uint8_t mac_key[2 * SESS_MAX_DIGEST];
	size_t mac_keylen;
	int mac_keyed;
	void *cfb;    /* EVP_CIPHER AES-128-CFB (CFB128, Part 1 21.3) */
	void *cctx;   /* EVP_CIPHER_CTX */
	int cctx_set; /* cctx has the cipher bound */
	/* ECDH: the keygen context of the ephemeral P-256 key (group set once),
	 * and the last TPM public point turned into an EVP_PKEY (the null key is
	 * the same for every session of a boot, so it is built once). */
	void *ec_genctx;
	void *peer;
	uint8_t peer_x[32], peer_y[32];
	int ready; /* the objects above fetched (crypto_ready) */
};

/* Host state of one TPM session (Part 1 19.6). */
struct sess {
	uint32_t handle;   /* 0x02xxxxxx (HMAC) or 0x03xxxxxx (policy) */
	uint16_t hash_alg; /* authHash */
	uint16_t dsize;	   /* its digest size = nonce size used here */
	uint16_t sym_alg;  /* TPM_ALG_AES or TPM_ALG_NULL */
	uint16_t sym_bits; /* 128 */
	uint8_t attrs;	   /* TPMA_SESSION used on the next command */
	uint8_t key[SESS_MAX_DIGEST];
	uint16_t key_len; /* 0: unbound, unsalted session (19.6.8) */
	uint8_t nonce_caller[SESS_MAX_DIGEST];
	uint8_t nonce_tpm[SESS_MAX_DIGEST];
	uint16_t nonce_caller_len, nonce_tpm_len;
};

int sess_crypto_init(struct sess_crypto *c);
void sess_crypto_release(struct sess_crypto *c);

/* Digest size of a TPM hash algorithm, 0 if unsupported. */
unsigned sess_digest_size(uint16_t hash_alg);

/* out = H(data). */
int sess_hash(struct sess_crypto *c, uint16_t hash_alg, const void *data, size_t len, uint8_t *out);

/* out = HMAC_key(data). */
int sess_hmac(struct sess_crypto *c, uint16_t hash_alg, const uint8_t *key, size_t keylen,
	      const void *data, size_t len, uint8_t *out);

/* KDFa (Part 1 11.4.10.2, SP 800-108 counter mode with HMAC):
 * K(i) = HMAC_key([i]32 || label || 0x00 || u || v || [bits]32); out receives
 * ceil(bits/8) bytes, high-order bits of the first byte cleared if bits is not
 * a multiple of 8. label is a C string (its NUL is part of the input). */
int sess_kdfa(struct sess_crypto *c, uint16_t hash_alg, const uint8_t *key, size_t keylen,
	      const char *label, const uint8_t *u, size_t ulen, const uint8_t *v, size_t vlen,
	      uint32_t bits, uint8_t *out);

/* KDFe (Part 1 11.4.10.3, SP 800-56A concatenation KDF):
 * K(i) = H([i]32 || Z || label || 0x00 || partyU || partyV). */
int sess_kdfe(struct sess_crypto *c, uint16_t hash_alg, const uint8_t *z, size_t zlen,
	      const char *label, const uint8_t *u, size_t ulen, const uint8_t *v, size_t vlen,
	      uint32_t bits, uint8_t *out);

/* ECC salt for TPM2_StartAuthSession (Part 1 C.6.1, Part 3 11.1): a fresh
 * ephemeral P-256 key; Z = x-coordinate of d_e * Q_tpm; salt =
 * KDFe(name_alg, Z, "SECRET", Qe.x, Qtpm.x, digest bits). qx/qy are the TPM
 * key's point (up to 32 bytes each). secret receives the marshalled
 * TPMS_ECC_POINT of Qe (the contents of TPM2B_ENCRYPTED_SECRET, 68 bytes),
 * salt receives sess_digest_size(name_alg) bytes. */
int sess_ecdh_salt(struct sess_crypto *c, uint16_t name_alg, const uint8_t *qx, size_t qxlen,
		   const uint8_t *qy, size_t qylen, uint8_t *salt, uint8_t *secret, size_t cap,
		   size_t *secret_len);

/* Sets up s for a session the TPM just started (Part 1 19.6.8):
 * sessionKey = KDFa(hash, bind_auth || salt, "ATH", nonceTPM, nonceCaller, bits)
 * or empty when both bind_auth and salt are empty. sym_alg TPM_ALG_AES (128-bit
 * CFB) or TPM_ALG_NULL. */
int sess_begin(struct sess *s, struct sess_crypto *c, uint32_t handle, uint16_t hash_alg,
	       uint16_t sym_alg, const uint8_t *salt, size_t salt_len, const uint8_t *bind_auth,
	       size_t bind_len, const uint8_t *nonce_caller, size_t nc_len,
	       const uint8_t *nonce_tpm, size_t nt_len);

/* A fresh nonceCaller for the next command (Part 1 19.6.2: nonces roll; the
 * caller's nonce must change on every command). */
int sess_nonce_roll(struct sess *s);

/* cpHash = H(commandCode || name1 || ... || cpBuffer) (Part 1 16.7). */
int sess_cphash(struct sess_crypto *c, uint16_t hash_alg, uint32_t cc, const struct tpm_name *names,
		unsigned n_names, const uint8_t *params, size_t plen, uint8_t *out);

/* rpHash = H(responseCode || commandCode || rpBuffer) (Part 1 18.7). */
int sess_rphash(struct sess_crypto *c, uint16_t hash_alg, uint32_t rc, uint32_t cc,
		const uint8_t *params, size_t plen, uint8_t *out);

/* Command HMAC (Part 1 19.6.5): HMAC_{sessionKey || authValue}(cpHash ||
 * nonceCaller || nonceTPM || sessionAttributes). Trailing zero bytes of
 * authValue are dropped: the TPM removes them when an authValue is set, so the
 * HMAC key it uses never has them. */
int sess_cmd_hmac(const struct sess *s, struct sess_crypto *c, const uint8_t *cphash,
		  const uint8_t *auth, size_t auth_len, uint8_t *out);

/* The command HMAC of the first session when another session of the command
 * decrypts its first parameter (dec) or encrypts the response's (enc): their
 * nonceTPM follow the two nonces, decrypt's first, one of them only when it is
 * the same session (Part 1 19.6.5; tpm2-tss iesys_gen_auths). systemd-cryptsetup
 * unseals with a policy session first and an encrypting HMAC session second. */
int sess_cmd_hmac_first(const struct sess *s, struct sess_crypto *c, const uint8_t *cphash,
			const uint8_t *auth, size_t auth_len, const struct sess *dec,
			const struct sess *enc, uint8_t *out);

/* Response HMAC (Part 1 19.6.6): the nonces in the other order:
 * HMAC(rpHash || nonceTPM || nonceCaller || sessionAttributes). */
int sess_rsp_hmac(const struct sess *s, struct sess_crypto *c, const uint8_t *rphash,
		  uint8_t rsp_attrs, const uint8_t *auth, size_t auth_len, uint8_t *out);

/* AES-128 in CFB mode with a full-block (128-bit) feedback, in place
 * (Part 1 11.4.6.3, SP 800-38A 6.3). enc: 1 encrypt, 0 decrypt. */
int sess_aes_cfb(struct sess_crypto *c, const uint8_t key[16], const uint8_t iv[16], int enc,
		 uint8_t *buf, size_t len);

/* AES-CFB parameter encryption (Part 1 21.3): key || iv = KDFa(hash,
 * sessionKey || authValue, "CFB", nonceNewer, nonceOlder, 128 + 128).
 * response == 0: encrypts a command parameter in place (newer = nonceCaller);
 * response == 1: decrypts a response parameter (newer = nonceTPM). */
int sess_param_crypt(const struct sess *s, struct sess_crypto *c, const uint8_t *auth,
		     size_t auth_len, int response, uint8_t *buf, size_t len);

/* Name of a handle whose Name is the handle itself (PCR 0x00, session 0x02/3,
 * permanent 0x40: Part 1 16). -EINVAL for object and NV handles. */
int sess_name_handle(uint32_t handle, struct tpm_name *name);

/* Name of an object from its TPM2B_PUBLIC as the TPM returned it:
 * nameAlg || H_nameAlg(TPMT_PUBLIC) (Part 1 16). */
int sess_name_public(struct sess_crypto *c, const uint8_t *tpm2b_public, size_t len,
		     struct tpm_name *name);

/* Builds a whole command with one session in the authorization area
 * (Part 1 18.5): rolls nonceCaller, encrypts the first parameter if the session
 * has the decrypt attribute and the command's first parameter is a TPM2B
 * (model/tpm/tpm_cc.def), computes cpHash over the parameters as sent and the HMAC.
 * names[i] is the Name of handles[i]; auth is the authValue of the first
 * handle (NULL for a session that authorises nothing). */
int sess_cmd_build(struct sess *s, struct sess_crypto *c, uint32_t cc, const uint32_t *handles,
		   const struct tpm_name *names, unsigned n_handles, const uint8_t *auth,
		   size_t auth_len, const uint8_t *params, size_t plen, uint8_t *out, size_t cap,
		   size_t *out_len);

/* Checks a response to a command built by sess_cmd_build: a positive TPM rc is
 * returned as is (the TPM sends no session area then); otherwise takes the new
 * nonceTPM, verifies the response HMAC (-EBADMSG on mismatch: the response was
 * not produced by the TPM holding this session key, or was changed on the way)
 * and decrypts the first response parameter in place if the encrypt attribute
 * was set. params, plen: the response parameters (after any handles). */
int sess_rsp_open(struct sess *s, struct sess_crypto *c, uint32_t cc, const uint8_t *auth,
		  size_t auth_len, uint8_t *rsp, size_t len, uint8_t **params, size_t *plen);

#endif
