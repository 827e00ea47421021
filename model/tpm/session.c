/* TPM 2.0 session cryptography on OpenSSL 3.0 (see session.h for the spec
 * sections). Every OpenSSL algorithm is fetched once; contexts are reset, not
 * re-created, between calls. */
#include "model/tpm/session.h"

#include <errno.h>
#include <string.h>

#include "model/tpm/crypto_lib.h"
#include "model/tpm/decode.h"
#include "model/tpm/pcr_bank.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/wire.h"

/* The session hashes are the common ones of model/tpm/pcr_bank.h, in its order. */
_Static_assert(SESS_NHASH == PCR_COMMON_ALGS, "one session digest per common hash");

static int md_index(uint16_t alg)
{
	return pcr_alg_common_index(alg);
}

unsigned sess_digest_size(uint16_t hash_alg)
{
	int i = md_index(hash_alg);
	return i < 0 ? 0 : pcr_alg_common((unsigned)i)->size;
}

int sess_crypto_init(struct sess_crypto *c)
{
	memset(c, 0, sizeof(*c));
	c->mac_md = -1;
	return 0;
}

/* The OpenSSL objects, fetched at the first call that needs them. */
static int crypto_ready(struct sess_crypto *c)
{
	int rc = -EIO;
	if (c->ready)
		return 0;
	if (tpm_crypto_load(NULL, 0))
		return -ENOENT;
	for (int i = 0; i < SESS_NHASH; i++) {
		c->md[i] = EVP_MD_fetch(NULL, pcr_alg_common((unsigned)i)->evp, NULL);
		if (!c->md[i])
			goto out;
	}
	c->mdctx = EVP_MD_CTX_new();
	c->mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	c->macctx = c->mac ? EVP_MAC_CTX_new(c->mac) : NULL;
	c->cfb = EVP_CIPHER_fetch(NULL, "AES-128-CFB", NULL);
	c->cctx = EVP_CIPHER_CTX_new();
	if (!c->mdctx || !c->macctx || !c->cfb || !c->cctx)
		goto out;
	c->ec_genctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
	if (!c->ec_genctx || EVP_PKEY_keygen_init(c->ec_genctx) <= 0 ||
	    EVP_PKEY_CTX_set_group_name(c->ec_genctx, "P-256") <= 0)
		goto out;
	rc = 0;
	c->ready = 1;
out:
	if (rc)
		sess_crypto_release(c);
	return rc;
}

void sess_crypto_release(struct sess_crypto *c)
{
	/* Nothing was made before libcrypto was loaded (crypto_ready). */
	if (tpm_crypto_loaded()) {
		for (int i = 0; i < SESS_NHASH; i++)
			EVP_MD_free(c->md[i]);
		EVP_MD_CTX_free(c->mdctx);
		EVP_MAC_CTX_free(c->macctx);
		EVP_MAC_free(c->mac);
		EVP_CIPHER_CTX_free(c->cctx);
		EVP_CIPHER_free(c->cfb);
		EVP_PKEY_CTX_free(c->ec_genctx);
		EVP_PKEY_free(c->peer);
	}
	explicit_bzero(c->mac_key, sizeof(c->mac_key));
	memset(c, 0, sizeof(*c));
	c->mac_md = -1;
}

/* ---- hashing and HMAC on the kept contexts ---- */

static int md_begin(struct sess_crypto *c, uint16_t alg)
{
	int i = md_index(alg);
	if (i < 0)
		return -ENOTSUP;
	if (crypto_ready(c))
		return -EIO;
	return EVP_DigestInit_ex2(c->mdctx, c->md[i], NULL) == 1 ? 0 : -EIO;
}

static int md_update(struct sess_crypto *c, const void *p, size_t n)
{
	return EVP_DigestUpdate(c->mdctx, p, n) == 1 ? 0 : -EIO;
}

static int md_final(struct sess_crypto *c, uint8_t *out)
{
	return EVP_DigestFinal_ex(c->mdctx, out, NULL) == 1 ? 0 : -EIO;
}

/* Keys the HMAC context. Most calls of a session use one key (sessionKey ||
 * authValue), so the key schedule (two compression blocks) is kept and a
 * repeated key only restarts the context from it. */
static int mac_begin(struct sess_crypto *c, uint16_t alg, const uint8_t *key, size_t keylen)
{
	int i = md_index(alg);
	if (i < 0)
		return -ENOTSUP;
	if (crypto_ready(c))
		return -EIO;
	if (c->mac_md != i) {
		OSSL_PARAM p[2];
		p[0] = OSSL_PARAM_construct_utf8_string(
		    OSSL_MAC_PARAM_DIGEST, (char *)pcr_alg_common((unsigned)i)->evp, 0);
		p[1] = OSSL_PARAM_construct_end();
		if (EVP_MAC_CTX_set_params(c->macctx, p) != 1)
			return -EIO;
		c->mac_md = i;
		c->mac_keyed = 0;
	}
	if (c->mac_keyed && keylen == c->mac_keylen &&
	    (!keylen || CRYPTO_memcmp(key, c->mac_key, keylen) == 0))
		return EVP_MAC_init(c->macctx, NULL, 0, NULL) == 1 ? 0 : -EIO;
	c->mac_keyed = 0;
	/* A non-NULL pointer even for an empty key: NULL would mean "same key". */
	if (EVP_MAC_init(c->macctx, keylen ? key : c->mac_key, keylen, NULL) != 1)
		return -EIO;
	if (keylen <= sizeof(c->mac_key)) {
		if (keylen)
			memmove(c->mac_key, key, keylen);
		c->mac_keylen = keylen;
		c->mac_keyed = 1;
	}
	return 0;
}

static int mac_update(struct sess_crypto *c, const void *p, size_t n)
{
	return EVP_MAC_update(c->macctx, p, n) == 1 ? 0 : -EIO;
}

static int mac_final(struct sess_crypto *c, uint8_t *out)
{
	size_t n;
	return EVP_MAC_final(c->macctx, out, &n, SESS_MAX_DIGEST) == 1 ? 0 : -EIO;
}

int sess_hash(struct sess_crypto *c, uint16_t hash_alg, const void *data, size_t len, uint8_t *out)
{
	int rc = md_begin(c, hash_alg);
	if (!rc)
		rc = md_update(c, data, len);
	if (!rc)
		rc = md_final(c, out);
	return rc;
}

int sess_hmac(struct sess_crypto *c, uint16_t hash_alg, const uint8_t *key, size_t keylen,
	      const void *data, size_t len, uint8_t *out)
{
	int rc = mac_begin(c, hash_alg, key, keylen);
	if (!rc)
		rc = mac_update(c, data, len);
	if (!rc)
		rc = mac_final(c, out);
	return rc;
}

/* ---- KDFs (Part 1 11.4.10) ---- */

/* The KDFs produce whole digests; the last one is cut and, for a bit count
 * that is not a multiple of 8, the surplus high-order bits of the first octet
 * are cleared (Part 1 11.4.10.1). */
static void kdf_mask(uint8_t *out, uint32_t bits)
{
	if (bits % 8)
		out[0] &= (uint8_t)((1u << (bits % 8)) - 1);
}

/* Both KDFs in counter mode: block i is HMAC_key(i || label || 0 || u || v ||
 * bits) for KDFa (key set), H(i || z || label || 0 || u || v) for KDFe. */
static int kdf_counter(struct sess_crypto *c, uint16_t hash_alg, const uint8_t *key, size_t keylen,
		       const uint8_t *z, size_t zlen, const char *label, const uint8_t *u,
		       size_t ulen, const uint8_t *v, size_t vlen, uint32_t bits, uint8_t *out)
{
	unsigned ds = sess_digest_size(hash_alg);
	size_t want = (bits + 7) / 8, done = 0;
	uint8_t be_bits[4], be_i[4], blk[SESS_MAX_DIGEST];
	int rc = 0;
	int (*update)(struct sess_crypto *, const void *, size_t) = key ? mac_update : md_update;
	if (!ds)
		return -ENOTSUP;
	if (!label)
		label = "";
	wire_put_u32(be_bits, bits);
	for (uint32_t i = 1; done < want; i++) {
		wire_put_u32(be_i, i);
		rc = key ? mac_begin(c, hash_alg, key, keylen) : md_begin(c, hash_alg);
		if (!rc)
			rc = update(c, be_i, 4);
		if (!rc && zlen)
			rc = update(c, z, zlen);
		if (!rc)
			rc = update(c, label, strlen(label) + 1);
		if (!rc && ulen)
			rc = update(c, u, ulen);
		if (!rc && vlen)
			rc = update(c, v, vlen);
		if (!rc && key)
			rc = update(c, be_bits, 4);
		if (!rc)
			rc = key ? mac_final(c, blk) : md_final(c, blk);
		if (rc)
			goto out;
		size_t n = want - done < ds ? want - done : ds;
		memcpy(out + done, blk, n);
		done += n;
	}
	kdf_mask(out, bits);
out:
	explicit_bzero(blk, sizeof(blk));
	return rc;
}

int sess_kdfa(struct sess_crypto *c, uint16_t hash_alg, const uint8_t *key, size_t keylen,
	      const char *label, const uint8_t *u, size_t ulen, const uint8_t *v, size_t vlen,
	      uint32_t bits, uint8_t *out)
{
	static const uint8_t empty[1];
	/* An empty HMAC key is still a key (KDFa, not KDFe). */
	return kdf_counter(c, hash_alg, key ? key : empty, key ? keylen : 0, NULL, 0, label, u,
			   ulen, v, vlen, bits, out);
}

int sess_kdfe(struct sess_crypto *c, uint16_t hash_alg, const uint8_t *z, size_t zlen,
	      const char *label, const uint8_t *u, size_t ulen, const uint8_t *v, size_t vlen,
	      uint32_t bits, uint8_t *out)
{
	return kdf_counter(c, hash_alg, NULL, 0, z, zlen, label, u, ulen, v, vlen, bits, out);
}

/* ---- ECC salt (Part 1 C.6.1, Part 3 11.1 TPM2_StartAuthSession) ---- */

/* The TPM key as an EVP_PKEY, built and checked (point on the curve) only when
 * the point changes. */
static int peer_get(struct sess_crypto *c, const uint8_t x[32], const uint8_t y[32])
{
	EVP_PKEY_CTX *pc = NULL, *chk = NULL;
	EVP_PKEY *pk = NULL;
	uint8_t pt[65];
	int rc = -EIO;
	if (c->peer && !memcmp(c->peer_x, x, 32) && !memcmp(c->peer_y, y, 32))
		return 0;
	pt[0] = 0x04; /* uncompressed point (SEC 1 2.3.3) */
	memcpy(pt + 1, x, 32);
	memcpy(pt + 33, y, 32);
	OSSL_PARAM p[3];
	p[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, "P-256", 0);
	p[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, pt, sizeof(pt));
	p[2] = OSSL_PARAM_construct_end();
	pc = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
	if (!pc || EVP_PKEY_fromdata_init(pc) <= 0 ||
	    EVP_PKEY_fromdata(pc, &pk, EVP_PKEY_PUBLIC_KEY, p) <= 0) {
		rc = -EINVAL;
		goto out;
	}
	chk = EVP_PKEY_CTX_new_from_pkey(NULL, pk, NULL);
	if (!chk || EVP_PKEY_public_check_quick(chk) != 1) {
		rc = -EINVAL; /* not a point of P-256 */
		goto out;
	}
	EVP_PKEY_free(c->peer);
	c->peer = pk;
	pk = NULL;
	memcpy(c->peer_x, x, 32);
	memcpy(c->peer_y, y, 32);
	rc = 0;
out:
	EVP_PKEY_free(pk);
	EVP_PKEY_CTX_free(pc);
	EVP_PKEY_CTX_free(chk);
	return rc;
}

static int pad32(uint8_t out[32], const uint8_t *in, size_t n)
{
	if (n > 32)
		return -EINVAL;
	memset(out, 0, 32 - n);
	memcpy(out + 32 - n, in, n);
	return 0;
}

int sess_ecdh_salt(struct sess_crypto *c, uint16_t name_alg, const uint8_t *qx, size_t qxlen,
		   const uint8_t *qy, size_t qylen, uint8_t *salt, uint8_t *secret, size_t cap,
		   size_t *secret_len)
{
	EVP_PKEY *eph = NULL;
	EVP_PKEY_CTX *dc = NULL;
	uint8_t x[32], y[32], z[32], ept[65];
	size_t zlen = sizeof(z), elen = 0;
	unsigned ds = sess_digest_size(name_alg);
	int rc;
	if (!ds)
		return -ENOTSUP;
	if (cap < 2 + 32 + 2 + 32)
		return -EINVAL;
	if ((rc = pad32(x, qx, qxlen)) || (rc = pad32(y, qy, qylen)) || (rc = crypto_ready(c)))
		return rc;
	if ((rc = peer_get(c, x, y)))
		return rc;
	rc = -EIO;
	if (EVP_PKEY_generate(c->ec_genctx, &eph) <= 0)
		goto out;
	dc = EVP_PKEY_CTX_new_from_pkey(NULL, eph, NULL);
	/* The peer was checked when it was cached: no validation per call. */
	if (!dc || EVP_PKEY_derive_init(dc) <= 0 ||
	    EVP_PKEY_derive_set_peer_ex(dc, c->peer, 0) <= 0 ||
	    EVP_PKEY_derive(dc, z, &zlen) <= 0 || zlen != 32)
		goto out;
	if (EVP_PKEY_get_octet_string_param(eph, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, ept,
					    sizeof(ept), &elen) != 1 ||
	    elen != 65 || ept[0] != 0x04)
		goto out;
	/* Z is the x-coordinate of the shared point (SP 800-56A 5.7.1.2). */
	rc = sess_kdfe(c, name_alg, z, 32, "SECRET", ept + 1, 32, x, 32, ds * 8, salt);
	if (rc)
		goto out;
	/* TPMS_ECC_POINT: TPM2B x, TPM2B y (Part 2 11.2.5.2). */
	struct wire_wr w;
	wire_wr_init(&w, secret, cap);
	wire_wr_tpm2b(&w, ept + 1, 32);
	wire_wr_tpm2b(&w, ept + 33, 32);
	*secret_len = w.off;
	rc = w.err ? -EINVAL : 0;
out:
	explicit_bzero(z, sizeof(z));
	EVP_PKEY_CTX_free(dc);
	EVP_PKEY_free(eph);
	return rc;
}

/* ---- session state ---- */

int sess_begin(struct sess *s, struct sess_crypto *c, uint32_t handle, uint16_t hash_alg,
	       uint16_t sym_alg, const uint8_t *salt, size_t salt_len, const uint8_t *bind_auth,
	       size_t bind_len, const uint8_t *nonce_caller, size_t nc_len,
	       const uint8_t *nonce_tpm, size_t nt_len)
{
	unsigned ds = sess_digest_size(hash_alg);
	uint8_t k[SESS_MAX_AUTH + SESS_MAX_DIGEST];
	int rc = 0;
	if (!ds)
		return -ENOTSUP;
	if (sym_alg != TPM_ALG_AES && sym_alg != TPM_ALG_NULL)
		return -ENOTSUP;
	if (nc_len > SESS_MAX_DIGEST || nt_len > SESS_MAX_DIGEST || bind_len > SESS_MAX_AUTH ||
	    salt_len > SESS_MAX_DIGEST)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->handle = handle;
	s->hash_alg = hash_alg;
	s->dsize = (uint16_t)ds;
	s->sym_alg = sym_alg;
	s->sym_bits = sym_alg == TPM_ALG_AES ? 128 : 0;
	memcpy(s->nonce_caller, nonce_caller, nc_len);
	s->nonce_caller_len = (uint16_t)nc_len;
	memcpy(s->nonce_tpm, nonce_tpm, nt_len);
	s->nonce_tpm_len = (uint16_t)nt_len;
	if (bind_len)
		memcpy(k, bind_auth, bind_len);
	if (salt_len)
		memcpy(k + bind_len, salt, salt_len);
	if (bind_len + salt_len) {
		rc = sess_kdfa(c, hash_alg, k, bind_len + salt_len, "ATH", nonce_tpm, nt_len,
			       nonce_caller, nc_len, ds * 8, s->key);
		s->key_len = rc ? 0 : (uint16_t)ds;
	}
	explicit_bzero(k, sizeof(k));
	return rc;
}

int sess_nonce_roll(struct sess *s)
{
	if (!s->nonce_caller_len)
		s->nonce_caller_len = s->dsize;
	if (tpm_crypto_load(NULL, 0))
		return -ENOENT;
	return RAND_bytes(s->nonce_caller, s->nonce_caller_len) == 1 ? 0 : -EIO;
}

int sess_cphash(struct sess_crypto *c, uint16_t hash_alg, uint32_t cc, const struct tpm_name *names,
		unsigned n_names, const uint8_t *params, size_t plen, uint8_t *out)
{
	uint8_t be[4];
	int rc = md_begin(c, hash_alg);
	wire_put_u32(be, cc);
	if (!rc)
		rc = md_update(c, be, 4);
	for (unsigned i = 0; !rc && i < n_names; i++)
		rc = md_update(c, names[i].b, names[i].size);
	if (!rc && plen)
		rc = md_update(c, params, plen);
	if (!rc)
		rc = md_final(c, out);
	return rc;
}

int sess_rphash(struct sess_crypto *c, uint16_t hash_alg, uint32_t rc_, uint32_t cc,
		const uint8_t *params, size_t plen, uint8_t *out)
{
	uint8_t be[8];
	wire_put_u32(be, rc_);
	wire_put_u32(be + 4, cc);
	int rc = md_begin(c, hash_alg);
	if (!rc)
		rc = md_update(c, be, 8);
	if (!rc && plen)
		rc = md_update(c, params, plen);
	if (!rc)
		rc = md_final(c, out);
	return rc;
}

/* sessionKey || authValue without its trailing zeros. */
static size_t hmac_key(const struct sess *s, const uint8_t *auth, size_t auth_len, uint8_t *k)
{
	while (auth_len && auth[auth_len - 1] == 0)
		auth_len--;
	if (auth_len > SESS_MAX_AUTH)
		auth_len = SESS_MAX_AUTH;
	memcpy(k, s->key, s->key_len);
	if (auth_len)
		memcpy(k + s->key_len, auth, auth_len);
	return s->key_len + auth_len;
}

/* n3, n4: the nonceTPM of other sessions that decrypt / encrypt the command,
 * in the first session's command HMAC only (NULL otherwise). */
static int session_hmac(const struct sess *s, struct sess_crypto *c, const uint8_t *phash,
			const uint8_t *n1, size_t n1len, const uint8_t *n2, size_t n2len,
			const struct sess *n3, const struct sess *n4, uint8_t attrs,
			const uint8_t *auth, size_t auth_len, uint8_t *out)
{
	uint8_t k[2 * SESS_MAX_DIGEST];
	size_t kl = hmac_key(s, auth, auth_len, k);
	int rc = mac_begin(c, s->hash_alg, k, kl);
	if (!rc)
		rc = mac_update(c, phash, s->dsize);
	if (!rc && n1len)
		rc = mac_update(c, n1, n1len);
	if (!rc && n2len)
		rc = mac_update(c, n2, n2len);
	if (!rc && n3 && n3->nonce_tpm_len)
		rc = mac_update(c, n3->nonce_tpm, n3->nonce_tpm_len);
	if (!rc && n4 && n4->nonce_tpm_len)
		rc = mac_update(c, n4->nonce_tpm, n4->nonce_tpm_len);
	if (!rc)
		rc = mac_update(c, &attrs, 1);
	if (!rc)
		rc = mac_final(c, out);
	explicit_bzero(k, sizeof(k));
	return rc;
}

int sess_cmd_hmac(const struct sess *s, struct sess_crypto *c, const uint8_t *cphash,
		  const uint8_t *auth, size_t auth_len, uint8_t *out)
{
	return session_hmac(s, c, cphash, s->nonce_caller, s->nonce_caller_len, s->nonce_tpm,
			    s->nonce_tpm_len, NULL, NULL, s->attrs, auth, auth_len, out);
}

int sess_cmd_hmac_first(const struct sess *s, struct sess_crypto *c, const uint8_t *cphash,
			const uint8_t *auth, size_t auth_len, const struct sess *dec,
			const struct sess *enc, uint8_t *out)
{
	return session_hmac(s, c, cphash, s->nonce_caller, s->nonce_caller_len, s->nonce_tpm,
			    s->nonce_tpm_len, dec == enc ? NULL : dec, enc, s->attrs, auth,
			    auth_len, out);
}

int sess_rsp_hmac(const struct sess *s, struct sess_crypto *c, const uint8_t *rphash,
		  uint8_t rsp_attrs, const uint8_t *auth, size_t auth_len, uint8_t *out)
{
	return session_hmac(s, c, rphash, s->nonce_tpm, s->nonce_tpm_len, s->nonce_caller,
			    s->nonce_caller_len, NULL, NULL, rsp_attrs, auth, auth_len, out);
}

int sess_aes_cfb(struct sess_crypto *c, const uint8_t key[16], const uint8_t iv[16], int enc,
		 uint8_t *buf, size_t len)
{
	int outl;
	if (len > 0x7fffffff)
		return -EINVAL;
	if (crypto_ready(c))
		return -EIO;
	/* The cipher is bound once; later calls only load key, iv and direction. */
	if (EVP_CipherInit_ex2(c->cctx, c->cctx_set ? NULL : c->cfb, key, iv, enc, NULL) != 1)
		return -EIO;
	c->cctx_set = 1;
	if (len &&
	    (EVP_CipherUpdate(c->cctx, buf, &outl, buf, (int)len) != 1 || (size_t)outl != len))
		return -EIO;
	return 0;
}

int sess_param_crypt(const struct sess *s, struct sess_crypto *c, const uint8_t *auth,
		     size_t auth_len, int response, uint8_t *buf, size_t len)
{
	uint8_t k[2 * SESS_MAX_DIGEST], kiv[32];
	int rc;
	if (s->sym_alg != TPM_ALG_AES || s->sym_bits != 128)
		return -ENOTSUP;
	size_t kl = hmac_key(s, auth, auth_len, k);
	/* nonceNewer is the nonce of the message being protected (Part 1 21.3). */
	if (response)
		rc = sess_kdfa(c, s->hash_alg, k, kl, "CFB", s->nonce_tpm, s->nonce_tpm_len,
			       s->nonce_caller, s->nonce_caller_len, 256, kiv);
	else
		rc = sess_kdfa(c, s->hash_alg, k, kl, "CFB", s->nonce_caller, s->nonce_caller_len,
			       s->nonce_tpm, s->nonce_tpm_len, 256, kiv);
	if (rc)
		goto out;
	rc = sess_aes_cfb(c, kiv, kiv + 16, !response, buf, len);
out:
	explicit_bzero(k, sizeof(k));
	explicit_bzero(kiv, sizeof(kiv));
	return rc;
}

/* ---- Names (Part 1 16) ---- */

int sess_name_handle(uint32_t handle, struct tpm_name *name)
{
	switch (handle >> 24) {
	case 0x00: /* PCR */
	case 0x02: /* HMAC session */
	case 0x03: /* policy session */
	case 0x40: /* permanent */
		wire_put_u32(name->b, handle);
		name->size = 4;
		return 0;
	default:
		return -EINVAL;
	}
}

int sess_name_public(struct sess_crypto *c, const uint8_t *tpm2b_public, size_t len,
		     struct tpm_name *name)
{
	struct wire_rd r;
	uint16_t size;
	wire_rd_init(&r, tpm2b_public, len);
	const uint8_t *pub = wire_tpm2b(&r, &size);
	if (r.err || size < 4)
		return -EPROTO;
	uint16_t name_alg = wire_get_u16(pub + 2); /* TPMT_PUBLIC: type, nameAlg, ... */
	unsigned ds = sess_digest_size(name_alg);
	if (!ds)
		return -ENOTSUP;
	wire_put_u16(name->b, name_alg);
	int rc = sess_hash(c, name_alg, pub, size, name->b + 2);
	name->size = rc ? 0 : (uint16_t)(2 + ds);
	return rc;
}

/* ---- whole messages (Part 1 18) ---- */

int sess_cmd_build(struct sess *s, struct sess_crypto *c, uint32_t cc, const uint32_t *handles,
		   const struct tpm_name *names, unsigned n_handles, const uint8_t *auth,
		   size_t auth_len, const uint8_t *params, size_t plen, uint8_t *out, size_t cap,
		   size_t *out_len)
{
	const struct tpm_cc_info *info = tpm_cc_lookup(cc);
	uint8_t cph[SESS_MAX_DIGEST], hmac[SESS_MAX_DIGEST];
	struct wire_wr w;
	int rc;
	if (!info || n_handles != info->handles_in || n_handles > 3)
		return -EINVAL;
	if ((rc = sess_nonce_roll(s)))
		return rc;
	wire_wr_init(&w, out, cap);
	wire_wr_u16(&w, TPM_ST_SESSIONS);
	wire_wr_u32(&w, 0); /* size, below */
	wire_wr_u32(&w, cc);
	for (unsigned i = 0; i < n_handles; i++)
		wire_wr_u32(&w, handles[i]);
	/* TPMS_AUTH_COMMAND (Part 2 10.13.2) */
	uint32_t auth_size = 4 + 2 + s->nonce_caller_len + 1 + 2 + s->dsize;
	wire_wr_u32(&w, auth_size);
	wire_wr_u32(&w, s->handle);
	wire_wr_tpm2b(&w, s->nonce_caller, s->nonce_caller_len);
	wire_wr_u8(&w, s->attrs);
	wire_wr_u16(&w, s->dsize);
	uint8_t *hmac_at = wire_wr_reserve(&w, s->dsize);
	uint8_t *p = wire_wr_reserve(&w, plen);
	if (w.err)
		return -ENOBUFS;
	if (plen)
		memcpy(p, params, plen);
	wire_put_u32(out + 2, (uint32_t)w.off);
	/* The first parameter is encrypted before cpHash is taken: the HMAC
	 * covers the parameters as they travel (Part 1 21.1). */
	if ((s->attrs & TPMA_SESSION_DECRYPT) && info->cmd_tpm2b) {
		if (plen < 2 || (size_t)wire_get_u16(p) + 2 > plen)
			return -EINVAL;
		rc = sess_param_crypt(s, c, auth, auth_len, 0, p + 2, wire_get_u16(p));
		if (rc)
			return rc;
	}
	rc = sess_cphash(c, s->hash_alg, cc, names, n_handles, p, plen, cph);
	if (!rc)
		rc = sess_cmd_hmac(s, c, cph, auth, auth_len, hmac);
	if (rc)
		return rc;
	memcpy(hmac_at, hmac, s->dsize);
	*out_len = w.off;
	return 0;
}

int sess_rsp_open(struct sess *s, struct sess_crypto *c, uint32_t cc, const uint8_t *auth,
		  size_t auth_len, uint8_t *rsp, size_t len, uint8_t **params, size_t *plen)
{
	const struct tpm_cc_info *info = tpm_cc_lookup(cc);
	uint8_t rph[SESS_MAX_DIGEST], want[SESS_MAX_DIGEST];
	struct wire_rd r;
	uint16_t nsize, hsize;
	if (!info)
		return -EINVAL;
	wire_rd_init(&r, rsp, len);
	uint16_t tag = wire_u16(&r);
	uint32_t size = wire_u32(&r);
	uint32_t trc = wire_u32(&r);
	if (r.err || size != len)
		return -EPROTO;
	/* Response codes fit in 31 bits (Part 2 6.6); one that does not is not
	 * a TPM's, and masking it could turn it into 0, "success" with no
	 * parameters (found by tests/fuzz/fuzz_session.c). */
	if (trc > 0x7fffffffu)
		return -EPROTO;
	if (trc)
		return (int)trc;
	if (tag != TPM_ST_SESSIONS)
		return -EPROTO;
	wire_skip(&r, 4u * info->handles_out);
	uint32_t psize = wire_u32(&r);
	size_t poff = r.off;
	wire_skip(&r, psize);
	const uint8_t *nonce = wire_tpm2b(&r, &nsize);
	uint8_t rattrs = wire_u8(&r);
	const uint8_t *hm = wire_tpm2b(&r, &hsize);
	if (r.err || wire_left(&r) != 0 || nsize > SESS_MAX_DIGEST)
		return -EPROTO;
	memcpy(s->nonce_tpm, nonce, nsize);
	s->nonce_tpm_len = nsize;
	int rc = sess_rphash(c, s->hash_alg, 0, cc, rsp + poff, psize, rph);
	if (!rc)
		rc = sess_rsp_hmac(s, c, rph, rattrs, auth, auth_len, want);
	if (rc)
		return rc;
	if (hsize != s->dsize || CRYPTO_memcmp(hm, want, s->dsize) != 0)
		return -EBADMSG;
	if ((s->attrs & TPMA_SESSION_ENCRYPT) && info->rsp_tpm2b) {
		if (psize < 2 || (size_t)wire_get_u16(rsp + poff) + 2 > psize)
			return -EPROTO;
		rc = sess_param_crypt(s, c, auth, auth_len, 1, rsp + poff + 2,
				      wire_get_u16(rsp + poff));
		if (rc)
			return rc;
	}
	*params = rsp + poff;
	*plen = psize;
	return 0;
}
