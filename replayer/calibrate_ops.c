/* tpmtrace calibrate's steps (calibrate_int.h): raw commands built with
 * model/tpm/wire.h (TPM 2.0 Part 3 gives each layout); sessions through
 * model/tpm/session.h. */
#include "replayer/calibrate_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void rp_cal_track(struct cal *k, uint32_t h)
{
	if (k->n_handles < CAL_MAX_HANDLES)
		k->handles[k->n_handles++] = h;
}

static void untrack(struct cal *k, uint32_t h)
{
	for (unsigned i = 0; i < k->n_handles; i++)
		if (k->handles[i] == h) {
			k->handles[i] = k->handles[--k->n_handles];
			return;
		}
}

static int flush(struct cal *k, uint32_t h)
{
	int rc = tpmconn_flush(&k->t, h);
	if (!rc)
		untrack(k, h);
	return rc;
}

/* A command in k->t's buffer: header, handles and npw empty password
 * sessions; the parameters follow, then tpmconn_cmd_send. */
void rp_cal_cmd_start(struct cal *k, struct wire_wr *w, uint32_t cc, const uint32_t *h, unsigned nh,
		      unsigned npw)
{
	tpmconn_cmd_begin(&k->t, w, npw ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS, cc);
	for (unsigned i = 0; i < nh; i++)
		wire_wr_u32(w, h[i]);
	if (npw)
		tpmconn_wr_pw_auth(w, npw);
}

/* A reader over the parameters of the response to cc, as the decoder finds
 * them (model/tpm/decode.h); *handle gets the returned handle. A response
 * that does not decode leaves the reader in error. */
void rp_cal_rsp_params(struct cal *k, uint32_t cc, struct wire_rd *r, uint32_t *handle)
{
	struct tpm_rsp rr;
	if (tpm_rsp_decode(k->t.rsp, k->t.rsp_len, cc, &rr)) {
		wire_rd_init(r, k->t.rsp, 0);
		r->err = 1;
		return;
	}
	if (handle)
		*handle = rr.n_handles ? rr.handle : 0;
	wire_rd_init(r, k->t.rsp + rr.param_off, rr.param_size);
}

/* Sends command cc with handles h[0..nh) (Names nm, needed by an HMAC
 * session's cpHash) and the marshalled parameters p, authorised as the kind
 * being measured asks (k->auth):
 *   password  an empty password session for each of the nauth authorisation
 *             handles (Part 1 19.6.5);
 *   hmac      the salted HMAC session k->hs, continueSession (Part 1 19.6);
 *   hmac+enc  the same with decrypt when the first command parameter is a
 *             TPM2B and encrypt when the first response parameter is one
 *             (Part 1 21: model/tpm/tpm_cc.def says which), as tpm2-tools and the
 *             kernel send them;
 *   none      no session.
 * The response HMAC is verified and an encrypted response parameter
 * decrypted: the reader r is left at the response parameters in the clear and
 * *rh (if given) gets the returned handle. */
/* The entities a command names: handles and their Names. */
struct cal_ents {
	const uint32_t *h;
	const struct tpm_name *nm;
	unsigned n;
};

static int auth_send(struct cal *k, uint32_t cc, const struct cal_ents *en, unsigned nauth,
		     const uint8_t *p, size_t plen, struct wire_rd *r, uint32_t *rh)
{
	const uint32_t *h = en ? en->h : NULL;
	const struct tpm_name *nm = en ? en->nm : NULL;
	unsigned nh = en ? en->n : 0;
	const struct tpm_cc_info *ci = tpm_cc_lookup(cc);
	int rc;
	if (!ci)
		return -EINVAL;
	if (k->auth == TPM_AUTH_HMAC || k->auth == TPM_AUTH_HMAC_ENC) {
		uint8_t *rp;
		size_t rpl;
		k->hs.attrs = TPMA_SESSION_CONTINUESESSION;
		if (k->auth == TPM_AUTH_HMAC_ENC && ci->cmd_tpm2b)
			k->hs.attrs |= TPMA_SESSION_DECRYPT;
		if (k->auth == TPM_AUTH_HMAC_ENC && ci->rsp_tpm2b)
			k->hs.attrs |= TPMA_SESSION_ENCRYPT;
		rc = tpmconn_session_cmd(&k->t, &k->hs, &k->cr, cc, h, nm, nh, NULL, 0, p, plen,
					 &rp, &rpl);
		if (rc)
			return rc;
		if (rh && ci->handles_out)
			*rh = wire_get_u32(k->t.rsp + TPM_HEADER_SIZE);
		wire_rd_init(r, rp, rpl);
		return 0;
	}
	struct wire_wr w;
	rp_cal_cmd_start(k, &w, cc, h, nh, k->auth == TPM_AUTH_PASSWORD ? nauth : 0);
	wire_wr_bytes(&w, p, plen);
	if ((rc = tpmconn_cmd_send(&k->t, &w)))
		return rc;
	uint32_t hh;
	rp_cal_rsp_params(k, cc, r, ci->handles_out ? rh ? rh : &hh : NULL);
	return r->err ? -EPROTO : 0;
}

static void wr_pcr_sel(struct wire_wr *w)
{
	/* TPML_PCR_SELECTION: SHA-256, PCR 16 (Part 2 10.6.2). */
	wire_wr_u32(w, 1);
	wire_wr_u16(w, TPM_ALG_SHA256);
	wire_wr_u8(w, 3);
	wire_wr_u8(w, 0);
	wire_wr_u8(w, 0);
	wire_wr_u8(w, 1u << (CAL_PCR - 16));
}

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed * 2654435761u >> (8 * (i % 4))) ^ (uint8_t)i;
}

/* A TPM2B_NAME from a response into name. */
static int rd_name(struct wire_rd *r, struct tpm_name *name)
{
	uint16_t n;
	const uint8_t *b = wire_tpm2b(r, &n);
	if (r->err || !b || n > sizeof name->b)
		return -EPROTO;
	memcpy(name->b, b, n);
	name->size = n;
	return 0;
}

/* ---- the measured operations ------------------------------------------- */

int rp_cal_op_getcap(struct cal *k)
{
	struct wire_wr w;
	rp_cal_cmd_start(k, &w, TPM_CC_GetCapability, NULL, 0, 0);
	wire_wr_u32(&w, 6);	/* TPM_CAP_TPM_PROPERTIES */
	wire_wr_u32(&w, 0x100); /* PT_FIXED */
	wire_wr_u32(&w, 8);
	return tpmconn_cmd_send(&k->t, &w);
}

/* GetRandom of 16 bytes; hmac+enc: through the HMAC session with encrypt,
 * as `tpm2_getrandom -S` and the kernel's tpm2_get_random() send it (a
 * session that authorises nothing must encrypt or audit: Part 1 19.1). */
int rp_cal_op_getrandom(struct cal *k)
{
	uint8_t p[2];
	struct wire_rd r;
	wire_put_u16(p, 16);
	return auth_send(k, TPM_CC_GetRandom, NULL, 0, p, sizeof p, &r, NULL);
}

int rp_cal_op_pcrread(struct cal *k)
{
	struct wire_wr w;
	rp_cal_cmd_start(k, &w, TPM_CC_PCR_Read, NULL, 0, 0);
	wr_pcr_sel(&w);
	return tpmconn_cmd_send(&k->t, &w);
}

int rp_cal_op_extend_pw(struct cal *k)
{
	struct wire_wr w;
	uint32_t h = CAL_PCR;
	uint8_t d[32];
	fill(d, sizeof d, ++k->counter);
	rp_cal_cmd_start(k, &w, TPM_CC_PCR_Extend, &h, 1, 1);
	wire_wr_u32(&w, 1); /* TPML_DIGEST_VALUES */
	wire_wr_u16(&w, TPM_ALG_SHA256);
	wire_wr_bytes(&w, d, sizeof d);
	return tpmconn_cmd_send(&k->t, &w);
}

int rp_cal_op_extend_hmac(struct cal *k)
{
	uint8_t d[32];
	fill(d, sizeof d, ++k->counter);
	k->hs.attrs = TPMA_SESSION_CONTINUESESSION;
	return tpmconn_pcr_extend_sha256(&k->t, &k->hs, &k->cr, CAL_PCR, d);
}

static int start_unsalted(struct cal *k, uint8_t type, uint32_t *h)
{
	struct wire_wr w;
	struct wire_rd r;
	uint32_t hs[2] = {TPM_RH_NULL, TPM_RH_NULL};
	uint8_t nonce[32];
	fill(nonce, sizeof nonce, ++k->counter);
	/* Part 3 11.1: no salt, unbound, no symmetric algorithm, SHA-256. */
	rp_cal_cmd_start(k, &w, TPM_CC_StartAuthSession, hs, 2, 0);
	wire_wr_tpm2b(&w, nonce, sizeof nonce);
	wire_wr_u16(&w, 0);
	wire_wr_u8(&w, type);
	wire_wr_u16(&w, TPM_ALG_NULL);
	wire_wr_u16(&w, TPM_ALG_SHA256);
	int rc = tpmconn_cmd_send(&k->t, &w);
	if (rc)
		return rc;
	rp_cal_rsp_params(k, TPM_CC_StartAuthSession, &r, h);
	if (r.err)
		return -EPROTO;
	rp_cal_track(k, *h);
	return 0;
}

int rp_cal_op_sas_unsalted(struct cal *k)
{
	return start_unsalted(k, TPM_SE_HMAC, &k->tmp_h);
}

int rp_cal_op_sas_salted(struct cal *k)
{
	struct sess s;
	int rc = tpmconn_start_salted(&k->t, &k->cr, &k->nk, &s);
	if (!rc) {
		k->tmp_h = s.handle;
		rp_cal_track(k, s.handle);
	}
	return rc;
}

int rp_cal_flush_tmp(struct cal *k)
{
	return flush(k, k->tmp_h);
}

int rp_cal_load_nk(struct cal *k)
{
	int rc = tpmconn_context_load(&k->t, k->nk_ctx, k->nk_ctx_len, &k->tmp_h);
	if (!rc)
		rp_cal_track(k, k->tmp_h);
	return rc;
}

int rp_cal_op_ctxsave(struct cal *k)
{
	uint8_t blob[2048];
	size_t len;
	return tpmconn_context_save(&k->t, k->nk.handle, blob, sizeof blob, &len);
}

/* The kernel's null key (ECC P-256, null hierarchy, password): what the
 * session policies create at chip registration. */
int rp_cal_op_cp_nullkey(struct cal *k)
{
	struct tpm_ecc_key key;
	int rc = tpmconn_create_null_primary(&k->t, &k->cr, TPM_RH_NULL, &key);
	if (!rc) {
		k->tmp_h = key.handle;
		rp_cal_track(k, key.handle);
	}
	return rc;
}

/* Command cc authorised by the owner, as k->auth asks, on the owner handle
 * and, when index_name is not NULL, on NV index (whose Name that is) too;
 * *rh (if given) gets the handle returned. */
static int owner_send(struct cal *k, uint32_t cc, uint32_t index, const struct tpm_name *index_name,
		      const uint8_t *p, size_t plen, uint32_t *rh)
{
	uint32_t h[2] = {TPM_RH_OWNER, index};
	struct tpm_name nm[2];
	struct wire_rd r;
	sess_name_handle(h[0], &nm[0]);
	if (index_name)
		nm[1] = *index_name;
	return auth_send(k, cc, &(struct cal_ents){h, nm, index_name ? 2 : 1}, 1, p, plen, &r, rh);
}

/* An owner storage primary as tpm2-tools makes it by default (and as a
 * boot's SRK looks; `tpm2_createprimary -C o -G rsa2048|ecc256`): restricted
 * decrypt, AES-128-CFB, no scheme, RSA 2048 exponent 0 or ECC NIST P-256 no
 * KDF, empty unique (Part 2 12.2.3.5, 12.2.3.6). The TPM derives the same key
 * from the same seed and template every time, so its cost on one TPM is that
 * of this key: a trace made with this template prices exactly. */
static int create_primary(struct cal *k, int rsa)
{
	uint8_t p[64];
	struct wire_wr w;
	wire_wr_init(&w, p, sizeof p);
	wire_wr_u16(&w, 4); /* inSensitive: empty userAuth and data */
	wire_wr_u16(&w, 0);
	wire_wr_u16(&w, 0);
	wire_wr_u16(&w, 26); /* inPublic: 26 bytes for either */
	wire_wr_u16(&w, rsa ? TPM_ALG_RSA : TPM_ALG_ECC);
	wire_wr_u16(&w, TPM_ALG_SHA256);
	wire_wr_u32(&w, ATTR_STORAGE_PRIMARY);
	wire_wr_u16(&w, 0);
	wire_wr_u16(&w, TPM_ALG_AES);
	wire_wr_u16(&w, 128);
	wire_wr_u16(&w, TPM_ALG_CFB);
	wire_wr_u16(&w, TPM_ALG_NULL); /* scheme */
	if (rsa) {
		wire_wr_u16(&w, 2048);
		wire_wr_u32(&w, 0);
		wire_wr_u16(&w, 0);
	} else {
		wire_wr_u16(&w, TPM_ECC_NIST_P256);
		wire_wr_u16(&w, TPM_ALG_NULL); /* kdf */
		wire_wr_u16(&w, 0);
		wire_wr_u16(&w, 0);
	}
	wire_wr_u16(&w, 0); /* outsideInfo */
	wire_wr_u32(&w, 0); /* creationPCR */
	if (w.err)
		return -ENOBUFS;
	int rc = owner_send(k, TPM_CC_CreatePrimary, 0, NULL, p, w.off, &k->tmp_h);
	if (rc)
		return rc;
	rp_cal_track(k, k->tmp_h);
	return 0;
}

int rp_cal_op_cp_rsa(struct cal *k)
{
	return create_primary(k, 1);
}

int rp_cal_op_cp_ecc(struct cal *k)
{
	return create_primary(k, 0);
}

int rp_cal_op_readpublic(struct cal *k)
{
	struct wire_wr w;
	rp_cal_cmd_start(k, &w, TPM_CC_ReadPublic, &k->nk.handle, 1, 0);
	return tpmconn_cmd_send(&k->t, &w);
}

/* TPM2_Create (Part 3 12.1) under the null key, as k->auth; keeps the two
 * blobs (in the clear: an encrypted outPrivate is decrypted by auth_send). */
int rp_cal_create(struct cal *k, int sign, struct blob *priv, struct blob *pub)
{
	uint8_t p[128];
	struct wire_wr w;
	struct wire_rd r;
	static const char secret[] = "tpmtrace calibrate";
	wire_wr_init(&w, p, sizeof p);
	if (sign) {
		wire_wr_u16(&w, 4);
		wire_wr_u16(&w, 0);
		wire_wr_u16(&w, 0);
		wire_wr_u16(&w, 24);
		wire_wr_u16(&w, TPM_ALG_ECC);
		wire_wr_u16(&w, TPM_ALG_SHA256);
		wire_wr_u32(&w, ATTR_SIGN);
		wire_wr_u16(&w, 0);
		wire_wr_u16(&w, TPM_ALG_NULL); /* symmetric */
		wire_wr_u16(&w, TPM_ALG_ECDSA);
		wire_wr_u16(&w, TPM_ALG_SHA256);
		wire_wr_u16(&w, TPM_ECC_NIST_P256);
		wire_wr_u16(&w, TPM_ALG_NULL); /* kdf */
		wire_wr_u16(&w, 0);
		wire_wr_u16(&w, 0);
	} else {
		wire_wr_u16(&w, (uint16_t)(4 + sizeof secret - 1));
		wire_wr_u16(&w, 0);
		wire_wr_tpm2b(&w, secret, sizeof secret - 1);
		wire_wr_u16(&w, 14);
		wire_wr_u16(&w, TPM_ALG_KEYEDHASH);
		wire_wr_u16(&w, TPM_ALG_SHA256);
		wire_wr_u32(&w, ATTR_SEALED);
		wire_wr_u16(&w, 0);
		wire_wr_u16(&w, TPM_ALG_NULL); /* scheme */
		wire_wr_u16(&w, 0);	       /* unique */
	}
	wire_wr_u16(&w, 0);
	wire_wr_u32(&w, 0);
	if (w.err)
		return -ENOBUFS;
	int rc = auth_send(k, TPM_CC_Create, &(struct cal_ents){&k->nk.handle, &k->nk.name, 1}, 1,
			   p, w.off, &r, NULL);
	if (rc)
		return rc;
	const uint8_t *start = r.p + r.off;
	uint16_t n;
	wire_tpm2b(&r, &n);
	size_t a = (size_t)(r.p + r.off - start);
	wire_tpm2b(&r, &n);
	size_t b = (size_t)(r.p + r.off - start) - a;
	if (r.err || a > CAL_MAX_BLOB || b > CAL_MAX_BLOB)
		return -EPROTO;
	memcpy(priv->b, start, a);
	priv->len = a;
	memcpy(pub->b, start + a, b);
	pub->len = b;
	return 0;
}

int rp_cal_op_create(struct cal *k)
{
	return rp_cal_create(k, 0, &k->seal_priv, &k->seal_pub);
}

int rp_cal_op_create_ecc(struct cal *k)
{
	return rp_cal_create(k, 1, &k->tmp_priv, &k->tmp_pub);
}

/* TPM2_Load (Part 3 12.2) under the null key, as k->auth; *name gets the
 * object's Name (for the HMAC sessions that authorise it). */
static int load(struct cal *k, const struct blob *priv, const struct blob *pub, uint32_t *h,
		struct tpm_name *name)
{
	uint8_t p[2 * CAL_MAX_BLOB];
	struct wire_rd r;
	struct tpm_name tmp;
	memcpy(p, priv->b, priv->len);
	memcpy(p + priv->len, pub->b, pub->len);
	int rc = auth_send(k, TPM_CC_Load, &(struct cal_ents){&k->nk.handle, &k->nk.name, 1}, 1, p,
			   priv->len + pub->len, &r, h);
	if (rc)
		return rc;
	rp_cal_track(k, *h);
	return rd_name(&r, name ? name : &tmp);
}

int rp_cal_op_load(struct cal *k)
{
	return load(k, &k->seal_priv, &k->seal_pub, &k->tmp_h, NULL);
}

int rp_cal_begin_unseal(struct cal *k)
{
	return load(k, &k->seal_priv, &k->seal_pub, &k->seal_h, &k->seal_name);
}

int rp_cal_op_unseal(struct cal *k)
{
	struct wire_rd r;
	return auth_send(k, TPM_CC_Unseal, &(struct cal_ents){&k->seal_h, &k->seal_name, 1}, 1,
			 NULL, 0, &r, NULL);
}

int rp_cal_end_unseal(struct cal *k)
{
	return flush(k, k->seal_h);
}

int rp_cal_begin_policy(struct cal *k)
{
	return start_unsalted(k, TPM_SE_POLICY, &k->ps);
}

int rp_cal_op_policypcr(struct cal *k)
{
	struct wire_wr w;
	rp_cal_cmd_start(k, &w, TPM_CC_PolicyPCR, &k->ps, 1, 0);
	wire_wr_u16(&w, 0); /* pcrDigest: the TPM's current value */
	wr_pcr_sel(&w);
	return tpmconn_cmd_send(&k->t, &w);
}

int rp_cal_op_policydigest(struct cal *k)
{
	struct wire_wr w;
	rp_cal_cmd_start(k, &w, TPM_CC_PolicyGetDigest, &k->ps, 1, 0);
	return tpmconn_cmd_send(&k->t, &w);
}

int rp_cal_end_policy(struct cal *k)
{
	return flush(k, k->ps);
}

/* ---- NV: a 32-byte ordinary index, owner authorisation ------------------ */

/* TPM2_NV_ReadPublic (Part 3 31.6): index's Name (it changes when the index
 * is first written: TPMA_NV_WRITTEN is in the public area it hashes). */
static int nv_readpublic(struct cal *k, uint32_t index, struct tpm_name *name)
{
	struct wire_wr w;
	struct wire_rd r;
	uint16_t n;
	rp_cal_cmd_start(k, &w, TPM_CC_NV_ReadPublic, &index, 1, 0);
	int rc = tpmconn_cmd_send(&k->t, &w);
	if (rc || !name)
		return rc;
	rp_cal_rsp_params(k, TPM_CC_NV_ReadPublic, &r, NULL);
	wire_tpm2b(&r, &n); /* nvPublic */
	return rd_name(&r, name);
}

/* A free index from CAL_NV_BASE + from (NV_ReadPublic fails on it). */
static int nv_free_index(struct cal *k, uint32_t from, uint32_t *index)
{
	for (uint32_t i = from; i < from + 16; i++) {
		int rc = nv_readpublic(k, CAL_NV_BASE + i, NULL);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			*index = CAL_NV_BASE + i;
			return 0;
		}
	}
	return TPM_RC_NV_DEFINED;
}

/* TPM2_NV_DefineSpace (Part 3 31.3) of index, as k->auth. */
static int nv_define(struct cal *k, uint32_t index)
{
	uint8_t p[32];
	struct wire_wr w;
	wire_wr_init(&w, p, sizeof p);
	wire_wr_u16(&w, 0); /* auth */
	wire_wr_u16(&w, 14);
	wire_wr_u32(&w, index);
	wire_wr_u16(&w, TPM_ALG_SHA256);
	wire_wr_u32(&w, NV_ATTRS);
	wire_wr_u16(&w, 0);
	wire_wr_u16(&w, 32);
	int rc = owner_send(k, TPM_CC_NV_DefineSpace, 0, NULL, p, w.off, NULL);
	if (rc)
		return rc;
	for (unsigned i = 0; i < CAL_MAX_NV; i++)
		if (!k->nv[i]) {
			k->nv[i] = index;
			return 0;
		}
	return 0; /* not reached: at most two are defined at a time */
}

/* TPM2_NV_UndefineSpace (Part 3 31.4) of index. Its Name goes into an HMAC
 * session's cpHash: name, which only a password (k->auth) may leave NULL. */
int rp_cal_nv_undefine(struct cal *k, uint32_t index, const struct tpm_name *name)
{
	static const struct tpm_name none;
	int rc = owner_send(k, TPM_CC_NV_UndefineSpace, index, name ? name : &none, NULL, 0, NULL);
	if (rc)
		return rc;
	for (unsigned i = 0; i < CAL_MAX_NV; i++)
		if (k->nv[i] == index)
			k->nv[i] = 0;
	return 0;
}

/* The two indices the NV kinds use, found free once: nv_index (NV_Write,
 * NV_Read, NV_ReadPublic) and nv_tmp (defined and undefined by the
 * NV_DefineSpace and NV_UndefineSpace kinds). Every kind undefines what it
 * defined, so they stay free between kinds. */
static int nv_indices(struct cal *k)
{
	if (k->nv_index)
		return 0;
	int rc = nv_free_index(k, 0, &k->nv_index);
	if (!rc)
		rc = nv_free_index(k, k->nv_index - CAL_NV_BASE + 1, &k->nv_tmp);
	if (rc)
		k->nv_index = 0;
	return rc;
}

/* NV_DefineSpace measured: an index defined, undefined after each call. */
int rp_cal_begin_nvdef(struct cal *k)
{
	return nv_indices(k);
}

int rp_cal_op_nvdefine(struct cal *k)
{
	return nv_define(k, k->nv_tmp);
}

int rp_cal_post_nvundefine(struct cal *k)
{
	return rp_cal_nv_undefine(k, k->nv_tmp, NULL);
}

/* NV_UndefineSpace measured: the index is defined (and its Name read, outside
 * the measured call) before each call. */
int rp_cal_pre_nvdefine(struct cal *k)
{
	int rc = nv_define(k, k->nv_tmp);
	return rc ? rc : nv_readpublic(k, k->nv_tmp, &k->nv_tmp_name);
}

int rp_cal_op_nvundefine(struct cal *k)
{
	return rp_cal_nv_undefine(k, k->nv_tmp, &k->nv_tmp_name);
}

/* The index NV_Write, NV_Read and NV_ReadPublic use, defined and written
 * once before they are measured: every measured NV_Write is then a rewrite,
 * whatever its authorisation, and the Name (TPMA_NV_WRITTEN set) no longer
 * changes. */
int rp_cal_begin_nv(struct cal *k)
{
	int rc = nv_indices(k);
	if (!rc)
		rc = nv_define(k, k->nv_index);
	if (!rc)
		rc = rp_cal_op_nvwrite(k);
	return rc ? rc : nv_readpublic(k, k->nv_index, &k->nv_name);
}

int rp_cal_op_nvwrite(struct cal *k)
{
	uint8_t p[2 + 32 + 2];
	wire_put_u16(p, 32);
	fill(p + 2, 32, ++k->counter);
	wire_put_u16(p + 34, 0); /* offset */
	return owner_send(k, TPM_CC_NV_Write, k->nv_index, &k->nv_name, p, sizeof p, NULL);
}

int rp_cal_op_nvread(struct cal *k)
{
	uint8_t p[4];
	wire_put_u16(p, 32);
	wire_put_u16(p + 2, 0);
	return owner_send(k, TPM_CC_NV_Read, k->nv_index, &k->nv_name, p, sizeof p, NULL);
}

int rp_cal_op_nvreadpublic(struct cal *k)
{
	return nv_readpublic(k, k->nv_index, NULL);
}

int rp_cal_end_nv(struct cal *k)
{
	return rp_cal_nv_undefine(k, k->nv_index, NULL);
}

/* ---- signing ------------------------------------------------------------ */

int rp_cal_begin_sign(struct cal *k)
{
	int rc = rp_cal_create(k, 1, &k->sig_priv, &k->sig_pub);
	return rc ? rc : load(k, &k->sig_priv, &k->sig_pub, &k->sig_h, &k->sig_name);
}

int rp_cal_op_sign(struct cal *k)
{
	uint8_t p[2 + 32 + 2 + 2 + 4 + 2];
	struct wire_rd r;
	wire_put_u16(p, 32);
	fill(p + 2, 32, ++k->counter);
	wire_put_u16(p + 34, TPM_ALG_NULL); /* the key's scheme */
	wire_put_u16(p + 36, TPM_ST_HASHCHECK);
	wire_put_u32(p + 38, TPM_RH_NULL); /* a NULL ticket: the key is not restricted */
	wire_put_u16(p + 42, 0);
	return auth_send(k, TPM_CC_Sign, &(struct cal_ents){&k->sig_h, &k->sig_name, 1}, 1, p,
			 sizeof p, &r, NULL);
}

int rp_cal_op_quote(struct cal *k)
{
	uint8_t p[64];
	struct wire_wr w;
	struct wire_rd r;
	uint8_t q[16];
	fill(q, sizeof q, ++k->counter);
	wire_wr_init(&w, p, sizeof p);
	wire_wr_tpm2b(&w, q, sizeof q);
	wire_wr_u16(&w, TPM_ALG_NULL);
	wr_pcr_sel(&w);
	if (w.err)
		return -ENOBUFS;
	return auth_send(k, TPM_CC_Quote, &(struct cal_ents){&k->sig_h, &k->sig_name, 1}, 1, p,
			 w.off, &r, NULL);
}

int rp_cal_end_sign(struct cal *k)
{
	return flush(k, k->sig_h);
}
