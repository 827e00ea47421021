/* tpmtrace calibrate (see calibrate.h). Raw commands built with model/tpm/wire.h
 * (TPM 2.0 Part 3 gives each layout); sessions through model/tpm/session.h. */
#include "replayer/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "recorder/transport/swtpm_spawn.h"
#include "model/tpm/session.h"
#include "recorder/transport/tpmconn.h"

#define TPM_RH_OWNER	     0x40000001u
#define TPM_RC_INITIALIZE    0x100u
#define TPM_RC_NV_DEFINED    0x14Cu
#define CAL_MAX_RETRIES	     50
#define TPM_ST_HASHCHECK     0x8024
#define TPM_ALG_RSA	     0x0001
#define TPM_ALG_KEYEDHASH    0x0008
#define TPM_ALG_ECDSA	     0x0018
#define CAL_PCR		     16 /* the debug PCR: resettable, measured by nothing */
#define CAL_NV_BASE	     0x01500F00u
#define CAL_MAX_HANDLES	     32
#define CAL_MAX_BLOB	     1024
#define CAL_MAX_NV	     2
#define ATTR_SEALED	     0x00000052u /* fixedTPM | fixedParent | userWithAuth */
#define ATTR_SIGN	     0x00040072u /* ... | sensitiveDataOrigin | sign */
#define ATTR_STORAGE_PRIMARY 0x00030072u /* ... | restricted | decrypt */
/* TPMA_NV: OWNERWRITE | OWNERREAD | NO_DA (Part 2 13.4) */
#define NV_ATTRS 0x02020002u

struct blob {
	uint8_t b[CAL_MAX_BLOB]; /* a TPM2B as sent: size and bytes */
	size_t len;
};

struct cal {
	const struct calibrate_opts *o;
	struct calibrate_result *res;
	struct tpmconn t;
	struct sess_crypto cr;
	int cr_ok;
	struct swtpm_child sw;
	int spawned;
	uint64_t last_ns;
	uint32_t handles[CAL_MAX_HANDLES]; /* transient objects and sessions to flush */
	unsigned n_handles;
	uint8_t auth;		 /* enum tpm_auth_kind of the kind being measured */
	uint32_t nv[CAL_MAX_NV]; /* NV indices defined, 0 = free slot */
	uint32_t nv_index, nv_tmp;
	struct tpm_name nv_name, nv_tmp_name;
	struct tpm_ecc_key nk; /* the kernel's null key: parent of everything */
	uint8_t nk_ctx[2048];
	size_t nk_ctx_len;
	struct sess hs; /* salted HMAC session for PCR_Extend */
	uint32_t ps;	/* policy session */
	struct blob seal_priv, seal_pub, sig_priv, sig_pub, tmp_priv, tmp_pub;
	struct tpm_name seal_name, sig_name;
	uint32_t seal_h, sig_h, tmp_h;
	uint32_t counter;
	/* Test-only fault (TPMTRACE_FAULT_CALIBRATE_AUTH_PASSWORD set): the
	 * kinds authorised through auth_send in an HMAC session are measured
	 * with a password instead, their entries priced from the wrong form;
	 * the calibration test must catch it. */
	int fault_auth_pw;
	char *err;
	size_t errlen;
};

static void on_xfer(void *arg, const uint8_t *cmd, size_t len, const uint8_t *rsp, size_t rsp_len,
		    uint64_t t0, uint64_t t1, int rc)
{
	struct cal *k = arg;
	(void)cmd, (void)len, (void)rsp, (void)rsp_len, (void)rc;
	k->last_ns += t1 - t0; /* a retried command costs all its attempts */
	k->res->commands++;
}

static void track(struct cal *k, uint32_t h)
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
static void cmd_start(struct cal *k, struct wire_wr *w, uint32_t cc, const uint32_t *h, unsigned nh,
		      unsigned npw)
{
	tpmconn_cmd_begin(&k->t, w, npw ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS, cc);
	for (unsigned i = 0; i < nh; i++)
		wire_wr_u32(w, h[i]);
	if (npw)
		tpmconn_wr_pw_auth(w, npw);
}

/* A reader at the response parameters; *handle gets the returned handle. */
static void rsp_params(struct cal *k, struct wire_rd *r, uint32_t *handle)
{
	wire_rd_init(r, k->t.rsp, k->t.rsp_len);
	uint16_t tag = wire_u16(r);
	wire_skip(r, 8);
	if (handle)
		*handle = wire_u32(r);
	if (tag == TPM_ST_SESSIONS)
		wire_u32(r); /* parameterSize */
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
static int auth_send(struct cal *k, uint32_t cc, const uint32_t *h, const struct tpm_name *nm,
		     unsigned nh, unsigned nauth, const uint8_t *p, size_t plen, struct wire_rd *r,
		     uint32_t *rh)
{
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
	cmd_start(k, &w, cc, h, nh, k->auth == TPM_AUTH_PASSWORD ? nauth : 0);
	wire_wr_bytes(&w, p, plen);
	if ((rc = tpmconn_cmd_send(&k->t, &w)))
		return rc;
	uint32_t hh;
	rsp_params(k, r, ci->handles_out ? rh ? rh : &hh : NULL);
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

static int op_getcap(struct cal *k)
{
	struct wire_wr w;
	cmd_start(k, &w, TPM_CC_GetCapability, NULL, 0, 0);
	wire_wr_u32(&w, 6);	/* TPM_CAP_TPM_PROPERTIES */
	wire_wr_u32(&w, 0x100); /* PT_FIXED */
	wire_wr_u32(&w, 8);
	return tpmconn_cmd_send(&k->t, &w);
}

/* GetRandom of 16 bytes; hmac+enc: through the HMAC session with encrypt,
 * as `tpm2_getrandom -S` and the kernel's tpm2_get_random() send it (a
 * session that authorises nothing must encrypt or audit: Part 1 19.1). */
static int op_getrandom(struct cal *k)
{
	uint8_t p[2];
	struct wire_rd r;
	wire_put_u16(p, 16);
	return auth_send(k, TPM_CC_GetRandom, NULL, NULL, 0, 0, p, sizeof p, &r, NULL);
}

static int op_pcrread(struct cal *k)
{
	struct wire_wr w;
	cmd_start(k, &w, TPM_CC_PCR_Read, NULL, 0, 0);
	wr_pcr_sel(&w);
	return tpmconn_cmd_send(&k->t, &w);
}

static int op_extend_pw(struct cal *k)
{
	struct wire_wr w;
	uint32_t h = CAL_PCR;
	uint8_t d[32];
	fill(d, sizeof d, ++k->counter);
	cmd_start(k, &w, TPM_CC_PCR_Extend, &h, 1, 1);
	wire_wr_u32(&w, 1); /* TPML_DIGEST_VALUES */
	wire_wr_u16(&w, TPM_ALG_SHA256);
	wire_wr_bytes(&w, d, sizeof d);
	return tpmconn_cmd_send(&k->t, &w);
}

static int op_extend_hmac(struct cal *k)
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
	cmd_start(k, &w, TPM_CC_StartAuthSession, hs, 2, 0);
	wire_wr_tpm2b(&w, nonce, sizeof nonce);
	wire_wr_u16(&w, 0);
	wire_wr_u8(&w, type);
	wire_wr_u16(&w, TPM_ALG_NULL);
	wire_wr_u16(&w, TPM_ALG_SHA256);
	int rc = tpmconn_cmd_send(&k->t, &w);
	if (rc)
		return rc;
	rsp_params(k, &r, h);
	if (r.err)
		return -EPROTO;
	track(k, *h);
	return 0;
}

static int op_sas_unsalted(struct cal *k)
{
	return start_unsalted(k, TPM_SE_HMAC, &k->tmp_h);
}

static int op_sas_salted(struct cal *k)
{
	struct sess s;
	int rc = tpmconn_start_salted(&k->t, &k->cr, &k->nk, &s);
	if (!rc) {
		k->tmp_h = s.handle;
		track(k, s.handle);
	}
	return rc;
}

static int flush_tmp(struct cal *k)
{
	return flush(k, k->tmp_h);
}

static int load_nk(struct cal *k)
{
	int rc = tpmconn_context_load(&k->t, k->nk_ctx, k->nk_ctx_len, &k->tmp_h);
	if (!rc)
		track(k, k->tmp_h);
	return rc;
}

static int op_ctxsave(struct cal *k)
{
	uint8_t blob[2048];
	size_t len;
	return tpmconn_context_save(&k->t, k->nk.handle, blob, sizeof blob, &len);
}

/* The kernel's null key (ECC P-256, null hierarchy, password): what the
 * session policies create at chip registration. */
static int op_cp_nullkey(struct cal *k)
{
	struct tpm_ecc_key key;
	int rc = tpmconn_create_null_primary(&k->t, &k->cr, TPM_RH_NULL, &key);
	if (!rc) {
		k->tmp_h = key.handle;
		track(k, key.handle);
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
	return auth_send(k, cc, h, nm, index_name ? 2 : 1, 1, p, plen, &r, rh);
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
	track(k, k->tmp_h);
	return 0;
}

static int op_cp_rsa(struct cal *k)
{
	return create_primary(k, 1);
}

static int op_cp_ecc(struct cal *k)
{
	return create_primary(k, 0);
}

static int op_readpublic(struct cal *k)
{
	struct wire_wr w;
	cmd_start(k, &w, TPM_CC_ReadPublic, &k->nk.handle, 1, 0);
	return tpmconn_cmd_send(&k->t, &w);
}

/* TPM2_Create (Part 3 12.1) under the null key, as k->auth; keeps the two
 * blobs (in the clear: an encrypted outPrivate is decrypted by auth_send). */
static int create(struct cal *k, int sign, struct blob *priv, struct blob *pub)
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
	int rc = auth_send(k, TPM_CC_Create, &k->nk.handle, &k->nk.name, 1, 1, p, w.off, &r, NULL);
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

static int op_create(struct cal *k)
{
	return create(k, 0, &k->seal_priv, &k->seal_pub);
}

static int op_create_ecc(struct cal *k)
{
	return create(k, 1, &k->tmp_priv, &k->tmp_pub);
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
	int rc = auth_send(k, TPM_CC_Load, &k->nk.handle, &k->nk.name, 1, 1, p,
			   priv->len + pub->len, &r, h);
	if (rc)
		return rc;
	track(k, *h);
	return rd_name(&r, name ? name : &tmp);
}

static int op_load(struct cal *k)
{
	return load(k, &k->seal_priv, &k->seal_pub, &k->tmp_h, NULL);
}

static int begin_unseal(struct cal *k)
{
	return load(k, &k->seal_priv, &k->seal_pub, &k->seal_h, &k->seal_name);
}

static int op_unseal(struct cal *k)
{
	struct wire_rd r;
	return auth_send(k, TPM_CC_Unseal, &k->seal_h, &k->seal_name, 1, 1, NULL, 0, &r, NULL);
}

static int end_unseal(struct cal *k)
{
	return flush(k, k->seal_h);
}

static int begin_policy(struct cal *k)
{
	return start_unsalted(k, TPM_SE_POLICY, &k->ps);
}

static int op_policypcr(struct cal *k)
{
	struct wire_wr w;
	cmd_start(k, &w, TPM_CC_PolicyPCR, &k->ps, 1, 0);
	wire_wr_u16(&w, 0); /* pcrDigest: the TPM's current value */
	wr_pcr_sel(&w);
	return tpmconn_cmd_send(&k->t, &w);
}

static int op_policydigest(struct cal *k)
{
	struct wire_wr w;
	cmd_start(k, &w, TPM_CC_PolicyGetDigest, &k->ps, 1, 0);
	return tpmconn_cmd_send(&k->t, &w);
}

static int end_policy(struct cal *k)
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
	cmd_start(k, &w, TPM_CC_NV_ReadPublic, &index, 1, 0);
	int rc = tpmconn_cmd_send(&k->t, &w);
	if (rc || !name)
		return rc;
	rsp_params(k, &r, NULL);
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
static int nv_undefine(struct cal *k, uint32_t index, const struct tpm_name *name)
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
static int begin_nvdef(struct cal *k)
{
	return nv_indices(k);
}

static int op_nvdefine(struct cal *k)
{
	return nv_define(k, k->nv_tmp);
}

static int post_nvundefine(struct cal *k)
{
	return nv_undefine(k, k->nv_tmp, NULL);
}

/* NV_UndefineSpace measured: the index is defined (and its Name read, outside
 * the measured call) before each call. */
static int pre_nvdefine(struct cal *k)
{
	int rc = nv_define(k, k->nv_tmp);
	return rc ? rc : nv_readpublic(k, k->nv_tmp, &k->nv_tmp_name);
}

static int op_nvundefine(struct cal *k)
{
	return nv_undefine(k, k->nv_tmp, &k->nv_tmp_name);
}

static int op_nvwrite(struct cal *k);

/* The index NV_Write, NV_Read and NV_ReadPublic use, defined and written
 * once before they are measured: every measured NV_Write is then a rewrite,
 * whatever its authorisation, and the Name (TPMA_NV_WRITTEN set) no longer
 * changes. */
static int begin_nv(struct cal *k)
{
	int rc = nv_indices(k);
	if (!rc)
		rc = nv_define(k, k->nv_index);
	if (!rc)
		rc = op_nvwrite(k);
	return rc ? rc : nv_readpublic(k, k->nv_index, &k->nv_name);
}

static int op_nvwrite(struct cal *k)
{
	uint8_t p[2 + 32 + 2];
	wire_put_u16(p, 32);
	fill(p + 2, 32, ++k->counter);
	wire_put_u16(p + 34, 0); /* offset */
	return owner_send(k, TPM_CC_NV_Write, k->nv_index, &k->nv_name, p, sizeof p, NULL);
}

static int op_nvread(struct cal *k)
{
	uint8_t p[4];
	wire_put_u16(p, 32);
	wire_put_u16(p + 2, 0);
	return owner_send(k, TPM_CC_NV_Read, k->nv_index, &k->nv_name, p, sizeof p, NULL);
}

static int op_nvreadpublic(struct cal *k)
{
	return nv_readpublic(k, k->nv_index, NULL);
}

static int end_nv(struct cal *k)
{
	return nv_undefine(k, k->nv_index, NULL);
}

/* ---- signing ------------------------------------------------------------ */

static int begin_sign(struct cal *k)
{
	int rc = create(k, 1, &k->sig_priv, &k->sig_pub);
	return rc ? rc : load(k, &k->sig_priv, &k->sig_pub, &k->sig_h, &k->sig_name);
}

static int op_sign(struct cal *k)
{
	uint8_t p[2 + 32 + 2 + 2 + 4 + 2];
	struct wire_rd r;
	wire_put_u16(p, 32);
	fill(p + 2, 32, ++k->counter);
	wire_put_u16(p + 34, TPM_ALG_NULL); /* the key's scheme */
	wire_put_u16(p + 36, TPM_ST_HASHCHECK);
	wire_put_u32(p + 38, TPM_RH_NULL); /* a NULL ticket: the key is not restricted */
	wire_put_u16(p + 42, 0);
	return auth_send(k, TPM_CC_Sign, &k->sig_h, &k->sig_name, 1, 1, p, sizeof p, &r, NULL);
}

static int op_quote(struct cal *k)
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
	return auth_send(k, TPM_CC_Quote, &k->sig_h, &k->sig_name, 1, 1, p, w.off, &r, NULL);
}

static int end_sign(struct cal *k)
{
	return flush(k, k->sig_h);
}

struct kind {
	uint32_t cc;
	uint8_t auth; /* how the measured command is authorised (auth_send) */
	const char *variant;
	int nv; /* changes NV: skipped on hardware */
	int (*begin)(struct cal *);
	int (*pre)(struct cal *);
	int (*op)(struct cal *);
	int (*post)(struct cal *);
	int (*end)(struct cal *);
};

#define NONE	 TPM_AUTH_NONE
#define PW	 TPM_AUTH_PASSWORD
#define HMAC	 TPM_AUTH_HMAC
#define HMAC_ENC TPM_AUTH_HMAC_ENC

/* A command in the three forms tpm2-tools and the kernel send it in, one
 * after the other: with a password, an HMAC session, and an HMAC session with
 * parameter encryption. begin runs before the first, end after the last;
 * pre and post around each. */
#define FORMS3(cc, variant, nv, begin, pre, op, post, end)                                         \
	{cc, PW, variant, nv, begin, pre, op, post, NULL},                                         \
	    {cc, HMAC, variant, nv, NULL, pre, op, post, NULL},                                    \
	{                                                                                          \
		cc, HMAC_ENC, variant, nv, NULL, pre, op, post, end                                \
	}

/* In an order that keeps at most three objects loaded (a TPM without a
 * resource manager has three slots): the null key, and one more. A command
 * is measured in each authorisation form a boot or tpm2-tools sends it in
 * (PCR_Extend and NV_UndefineSpace have no parameter to encrypt; the null
 * key is created with a password only, as the kernel does). */
static const struct kind kinds[] = {
    {TPM_CC_GetCapability, NONE, "-", 0, NULL, NULL, op_getcap, NULL, NULL},
    {TPM_CC_GetRandom, NONE, "-", 0, NULL, NULL, op_getrandom, NULL, NULL},
    {TPM_CC_GetRandom, HMAC_ENC, "-", 0, NULL, NULL, op_getrandom, NULL, NULL},
    {TPM_CC_PCR_Read, NONE, "-", 0, NULL, NULL, op_pcrread, NULL, NULL},
    {TPM_CC_PCR_Extend, PW, "-", 0, NULL, NULL, op_extend_pw, NULL, NULL},
    {TPM_CC_PCR_Extend, HMAC, "-", 0, NULL, NULL, op_extend_hmac, NULL, NULL},
    {TPM_CC_StartAuthSession, NONE, "salted-ecc", 0, NULL, NULL, op_sas_salted, flush_tmp, NULL},
    {TPM_CC_StartAuthSession, NONE, "unsalted", 0, NULL, NULL, op_sas_unsalted, flush_tmp, NULL},
    {TPM_CC_ContextSave, NONE, "-", 0, NULL, NULL, op_ctxsave, NULL, NULL},
    {TPM_CC_ContextLoad, NONE, "-", 0, NULL, NULL, load_nk, flush_tmp, NULL},
    {TPM_CC_FlushContext, NONE, "-", 0, NULL, load_nk, flush_tmp, NULL, NULL},
    {TPM_CC_CreatePrimary, PW, "ecc-p256", 0, NULL, NULL, op_cp_nullkey, flush_tmp, NULL},
    {TPM_CC_CreatePrimary, HMAC, "ecc-p256", 0, NULL, NULL, op_cp_ecc, flush_tmp, NULL},
    {TPM_CC_CreatePrimary, HMAC_ENC, "ecc-p256", 0, NULL, NULL, op_cp_ecc, flush_tmp, NULL},
    FORMS3(TPM_CC_CreatePrimary, "rsa-2048", 0, NULL, NULL, op_cp_rsa, flush_tmp, NULL),
    {TPM_CC_ReadPublic, NONE, "-", 0, NULL, NULL, op_readpublic, NULL, NULL},
    FORMS3(TPM_CC_Create, "-", 0, NULL, NULL, op_create, NULL, NULL),
    FORMS3(TPM_CC_Create, "ecc-p256", 0, NULL, NULL, op_create_ecc, NULL, NULL),
    FORMS3(TPM_CC_Load, "-", 0, NULL, NULL, op_load, flush_tmp, NULL),
    FORMS3(TPM_CC_Unseal, "-", 0, begin_unseal, NULL, op_unseal, NULL, end_unseal),
    {TPM_CC_PolicyPCR, NONE, "-", 0, begin_policy, NULL, op_policypcr, NULL, NULL},
    {TPM_CC_PolicyGetDigest, NONE, "-", 0, NULL, NULL, op_policydigest, NULL, end_policy},
    FORMS3(TPM_CC_NV_DefineSpace, "-", 1, begin_nvdef, NULL, op_nvdefine, post_nvundefine, NULL),
    {TPM_CC_NV_UndefineSpace, PW, "-", 1, begin_nvdef, pre_nvdefine, op_nvundefine, NULL, NULL},
    {TPM_CC_NV_UndefineSpace, HMAC, "-", 1, NULL, pre_nvdefine, op_nvundefine, NULL, NULL},
    FORMS3(TPM_CC_NV_Write, "-", 1, begin_nv, NULL, op_nvwrite, NULL, NULL),
    FORMS3(TPM_CC_NV_Read, "-", 1, NULL, NULL, op_nvread, NULL, NULL),
    {TPM_CC_NV_ReadPublic, NONE, "-", 1, NULL, NULL, op_nvreadpublic, NULL, end_nv},
    FORMS3(TPM_CC_Sign, "-", 0, begin_sign, NULL, op_sign, NULL, NULL),
    FORMS3(TPM_CC_Quote, "-", 0, NULL, NULL, op_quote, NULL, end_sign),
};

/* A kind's name, as its profile line keys it: "Create hmac+enc ecc-p256". */
static const char *kind_name(const struct kind *d, char *buf, size_t n)
{
	snprintf(buf, n, "%s %s%s%s", tpm_cc_name(d->cc), prof_auth_str(d->auth),
		 strcmp(d->variant, "-") ? " " : "", strcmp(d->variant, "-") ? d->variant : "");
	return buf;
}

int calibrate_is_hardware(const char *tcti)
{
	return tcti && strncmp(tcti, "swtpm", 5) != 0 && strncmp(tcti, "mssim", 5) != 0;
}

static int failed(struct cal *k, int rc, const char *what)
{
	if (rc > 0)
		snprintf(k->err, k->errlen, "%s: the TPM answered 0x%03x (%s)", what, (unsigned)rc,
			 tpm_rc_str((uint32_t)rc));
	else if (rc == -EIO)
		snprintf(k->err, k->errlen, "%s: the TPM stopped answering (TCTI error 0x%x)", what,
			 k->t.tss_rc);
	else
		snprintf(k->err, k->errlen, "%s: %s", what, strerror(-rc));
	return rc > 0 ? -EPROTO : rc;
}

/* Vendor, chip and firmware from the fixed properties (Part 2 6.13:
 * TPM_PT_MANUFACTURER 0x105, VENDOR_STRING_1..4 0x106-0x109,
 * FIRMWARE_VERSION_1/2 0x10B/0x10C). */
static void identify(struct cal *k, struct profile *p)
{
	struct wire_wr w;
	struct wire_rd r;
	char vendor[5] = "", chip[17] = "", fw[32] = "";
	uint32_t fw1 = 0, fw2 = 0;
	cmd_start(k, &w, TPM_CC_GetCapability, NULL, 0, 0);
	wire_wr_u32(&w, 6);
	wire_wr_u32(&w, 0x105);
	wire_wr_u32(&w, 8);
	if (tpmconn_cmd_send(&k->t, &w))
		return;
	rsp_params(k, &r, NULL);
	wire_u8(&r);  /* moreData */
	wire_u32(&r); /* capability */
	uint32_t n = wire_u32(&r);
	for (uint32_t i = 0; i < n && !r.err; i++) {
		uint32_t prop = wire_u32(&r), v = wire_u32(&r);
		char s[5] = {(char)(v >> 24), (char)(v >> 16), (char)(v >> 8), (char)v, 0};
		for (int j = 0; j < 4; j++)
			if (s[j] && (s[j] < 0x20 || s[j] > 0x7e))
				s[j] = '?';
		if (prop == 0x105)
			snprintf(vendor, sizeof vendor, "%s", s);
		else if (prop >= 0x106 && prop <= 0x109)
			strncat(chip, s, sizeof chip - strlen(chip) - 1);
		else if (prop == 0x10B)
			fw1 = v;
		else if (prop == 0x10C)
			fw2 = v;
	}
	if (r.err)
		return;
	snprintf(fw, sizeof fw, "%u.%u.%u.%u", fw1 >> 16, fw1 & 0xffff, fw2 >> 16, fw2 & 0xffff);
	for (char *s = vendor + strlen(vendor); s > vendor && (s[-1] == ' ' || !s[-1]); s--)
		s[-1] = 0;
	if (vendor[0])
		profile_set(p, "vendor", vendor);
	if (chip[0])
		profile_set(p, "chip", chip);
	profile_set(p, "firmware", fw);
}

static int setup(struct cal *k, struct profile *p)
{
	struct wire_wr w;
	int rc;
	cmd_start(k, &w, TPM_CC_Startup, NULL, 0, 0);
	wire_wr_u16(&w, 0); /* TPM_SU_CLEAR */
	rc = tpmconn_cmd_send(&k->t, &w);
	if (rc && rc != TPM_RC_INITIALIZE)
		return failed(k, rc, "Startup");
	identify(k, p);
	/* The kernel's null key, its saved context, and a salted session. */
	if ((rc = tpmconn_create_null_primary(&k->t, &k->cr, TPM_RH_NULL, &k->nk)))
		return failed(k, rc, "CreatePrimary of the null key");
	track(k, k->nk.handle);
	if ((rc = tpmconn_context_save(&k->t, k->nk.handle, k->nk_ctx, sizeof k->nk_ctx,
				       &k->nk_ctx_len)))
		return failed(k, rc, "ContextSave of the null key");
	if ((rc = tpmconn_start_salted(&k->t, &k->cr, &k->nk, &k->hs)))
		return failed(k, rc, "StartAuthSession (salted)");
	track(k, k->hs.handle);
	/* Create and Load need a sealed object to exist before they are
	 * measured in turn. */
	if ((rc = create(k, 0, &k->seal_priv, &k->seal_pub)))
		return failed(k, rc, "Create of the sealed object");
	return 0;
}

static void cleanup(struct cal *k)
{
	/* Newest first: sessions and objects the kinds left, then the null
	 * key; the NV index last. */
	while (k->n_handles) {
		uint32_t h = k->handles[k->n_handles - 1];
		if (tpmconn_flush(&k->t, h)) {
			k->res->left++;
			k->n_handles--;
			continue;
		}
		k->res->cleaned++;
		k->n_handles--;
	}
	for (unsigned i = 0; i < CAL_MAX_NV; i++) {
		if (!k->nv[i])
			continue;
		if (nv_undefine(k, k->nv[i], NULL)) {
			k->res->left++;
			k->nv[i] = 0;
		} else {
			k->res->cleaned++;
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* One call of kind d with its unmeasured steps around it; *lat gets the
 * time of the measured command (all its attempts). Only that command is
 * authorised as the kind measures; the steps around it use empty password
 * sessions. */
static int measure_one(struct cal *k, const struct kind *d, uint64_t *lat)
{
	int rc;
	k->auth = TPM_AUTH_PASSWORD;
	if ((d->begin && (rc = d->begin(k))) || (d->pre && (rc = d->pre(k))))
		return rc;
	k->auth = d->auth;
	if (k->fault_auth_pw && (d->auth == TPM_AUTH_HMAC || d->auth == TPM_AUTH_HMAC_ENC))
		k->auth = TPM_AUTH_PASSWORD;
	k->last_ns = 0;
	rc = d->op(k);
	k->auth = TPM_AUTH_PASSWORD;
	if (rc)
		return rc;
	*lat = k->last_ns;
	if ((d->post && (rc = d->post(k))) || (d->end && (rc = d->end(k))))
		return rc;
	return 0;
}

static void header(struct cal *k, struct profile *p, const char *target)
{
	char host[128] = "", date[32], buf[1024];
	time_t now = time(NULL);
	struct tm tm;
	gethostname(host, sizeof host - 1);
	gmtime_r(&now, &tm);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (k->o->name) {
		profile_set(p, "name", k->o->name);
	} else {
		char d[16];
		strftime(d, sizeof d, "%Y%m%d", &tm);
		snprintf(buf, sizeof buf, "calibrated-%s-%s", host[0] ? host : "host", d);
		for (char *s = buf; *s; s++)
			if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
			    !(*s >= '0' && *s <= '9') && *s != '-' && *s != '_' && *s != '.')
				*s = '-';
		profile_set(p, "name", buf);
	}
	profile_set(p, "measured-by", "tpmtrace calibrate (" TPMTRACE_VERSION ")");
	profile_set(p, "date", date);
	profile_set(p, "bus",
		    k->o->tcti ? k->o->tcti : "swtpm spawned by tpmtrace (unix socket, same host)");
	snprintf(buf, sizeof buf,
		 "measured by tpmtrace calibrate on host %s, target %s, %s: %u measured calls "
		 "per kind after 1 cold and %u warm-up calls",
		 host, target, date, k->o->iterations, k->o->warmup);
	profile_set(p, "source", buf);
	profile_set(p, "note",
		    "times are around the TCTI transmit and receive on the measuring host "
		    "(transport included, host crypto excluded); each entry's comment gives its "
		    "first (cold) call");
	p->transport_ms = 0;
}

int calibrate_run(const struct calibrate_opts *o, struct profile *p, struct calibrate_result *res,
		  char *err, size_t errlen)
{
	struct cal *k = calloc(1, sizeof *k);
	uint64_t *ns = NULL;
	int rc = 0;
	const unsigned nk = sizeof kinds / sizeof kinds[0];
	char covers[2048] = "", lacks[1024] = "";

	memset(res, 0, sizeof *res);
	if (!k)
		return -ENOMEM;
	k->auth = TPM_AUTH_PASSWORD; /* outside a measured command (measure_one) */
	const char *fault = getenv("TPMTRACE_FAULT_CALIBRATE_AUTH_PASSWORD");
	k->fault_auth_pw = fault && *fault && strcmp(fault, "0");
	k->o = o;
	k->res = res;
	k->err = err;
	k->errlen = errlen;
	ns = calloc((size_t)nk * (o->iterations ? o->iterations : 1), sizeof *ns);
	double *ms = calloc(o->iterations ? o->iterations : 1, sizeof *ms);
	uint64_t cold[sizeof kinds / sizeof kinds[0]] = {0};
	if (!ns || !ms || !o->iterations) {
		rc = o->iterations ? -ENOMEM : -EINVAL;
		snprintf(err, errlen, "%s", o->iterations ? "out of memory" : "no iterations");
		goto out;
	}
	if (!o->tcti) {
		if ((rc = swtpm_spawn(&k->sw, NULL, SWTPM_SOCKETS, err, errlen)))
			goto out;
		k->spawned = 1;
		snprintf(res->target, sizeof res->target, "swtpm (spawned)");
	} else {
		snprintf(res->target, sizeof res->target, "%s", o->tcti);
	}
	if ((rc = tpmconn_open(&k->t, k->spawned ? k->sw.tcti : o->tcti))) {
		snprintf(err, errlen, "cannot open the target '%s' (TCTI error 0x%x)",
			 k->spawned ? k->sw.tcti : o->tcti, k->t.tss_rc);
		goto out;
	}
	if ((rc = sess_crypto_init(&k->cr))) {
		snprintf(err, errlen, "OpenSSL set-up failed");
		goto out;
	}
	k->cr_ok = 1;
	k->t.on_xfer = on_xfer;
	/* TPM_RC_RETRY, YIELDED, TESTING (Part 2 6.6.3): the TPM did not start
	 * the command; the transport sends it again, as every TSS does, for
	 * setup and cleanup too. */
	k->t.max_retries = CAL_MAX_RETRIES;
	k->t.on_xfer_arg = k;
	header(k, p, res->target);
	if ((rc = setup(k, p)))
		goto out;

	/* Passes: each sends every kind once (its begin and end steps
	 * around it, unmeasured), pass 0 the cold call, then the warm-up
	 * passes, then the measured ones. A kind's samples so spread over
	 * the whole run: a moment of load on the host, or a CPU that runs
	 * slower for a second, is shared by all kinds instead of falling on
	 * one; and no command is timed in a loop of itself, where the
	 * target's code and data stay hot in the caches as they never are in
	 * a boot or a replay, which mix commands. */
	int hw = calibrate_is_hardware(o->tcti) && !o->allow_destructive;
	unsigned total = 1 + o->warmup + o->iterations;
	char name[64];
	for (unsigned i = 0; i < nk; i++)
		if (kinds[i].nv && hw) {
			res->kinds_skipped++;
			snprintf(lacks + strlen(lacks), sizeof lacks - strlen(lacks), "%s%s",
				 lacks[0] ? ", " : "", kind_name(&kinds[i], name, sizeof name));
		}
	for (unsigned j = 0; j < total && !rc; j++) {
		for (unsigned i = 0; i < nk; i++) {
			const struct kind *d = &kinds[i];
			if (d->nv && hw)
				continue;
			uint64_t lat = 0;
			if ((rc = measure_one(k, d, &lat))) {
				rc = failed(k, rc, kind_name(d, name, sizeof name));
				break;
			}
			if (j == 0)
				cold[i] = lat;
			else if (j > o->warmup)
				ns[(size_t)i * o->iterations + (j - 1 - o->warmup)] = lat;
			if (o->progress)
				o->progress(o->progress_arg, i + 1, nk,
					    kind_name(d, name, sizeof name), j + 1, total);
		}
	}
	for (unsigned i = 0; i < nk && !rc; i++) {
		const struct kind *d = &kinds[i];
		unsigned m = o->iterations;
		if (d->nv && hw)
			continue;
		/* Rounded to 1 ns: the profile keeps 6 decimals of a millisecond. */
		uint64_t *v = ns + (size_t)i * o->iterations;
		qsort(v, m, sizeof *v, cmp_u64);
		for (unsigned j = 0; j < m; j++)
			ms[j] = (double)v[j] / 1e6;
		struct prof_entry e = {.cc = d->cc, .auth = d->auth};
		snprintf(e.variant, sizeof e.variant, "%s", d->variant);
		prof_entry_stats(&e, ms, m);
		/* To the nanosecond, the resolution of the clock. */
		double *f[] = {&e.mean_ms, &e.p50_ms, &e.p95_ms, &e.stdev_ms, &e.min_ms, &e.max_ms};
		for (unsigned j = 0; j < 6; j++)
			if (isfinite(*f[j]))
				*f[j] = round(*f[j] * 1e6) / 1e6;
		if (e.min_ms <= 0) {
			/* A clock that did not move: keep the figures positive. */
			e.min_ms = 1e-6;
			if (e.p50_ms <= 0)
				e.p50_ms = 1e-6;
			if (e.p95_ms <= 0)
				e.p95_ms = 1e-6;
			if (e.mean_ms <= 0)
				e.mean_ms = 1e-6;
			if (e.max_ms <= 0)
				e.max_ms = 1e-6;
		}
		char comment[160];
		snprintf(comment, sizeof comment, "cold (first call) %.6f ms; %u warm-up calls",
			 (double)cold[i] / 1e6, o->warmup);
		e.comment = comment;
		if ((rc = profile_add(p, &e))) {
			snprintf(err, errlen, "%s: cannot add the entry (%s)",
				 kind_name(d, name, sizeof name), strerror(-rc));
			break;
		}
		res->kinds_measured++;
		snprintf(covers + strlen(covers), sizeof covers - strlen(covers), "%s%s",
			 covers[0] ? ", " : "", kind_name(d, name, sizeof name));
	}
	if (!rc) {
		profile_set(p, "covers", covers);
		if (lacks[0]) {
			char b[1200];
			snprintf(b, sizeof b,
				 "%s (skipped on hardware: they define and undefine NV space; "
				 "--allow-destructive measures them)",
				 lacks);
			profile_set(p, "lacks", b);
			snprintf(res->skipped, sizeof res->skipped, "%s", b);
		} else {
			profile_set(p, "lacks", "commands not listed in covers");
		}
	}
out:
	if (k->t.tcti) {
		k->t.on_xfer = on_xfer;
		cleanup(k);
		if (res->left && !rc) {
			snprintf(err, errlen, "%u handle(s) could not be flushed or undefined",
				 res->left);
			rc = -EIO;
		}
	}
	tpmconn_close(&k->t);
	if (k->cr_ok)
		sess_crypto_release(&k->cr);
	if (k->spawned)
		swtpm_stop(&k->sw);
	free(ns);
	free(ms);
	free(k);
	return rc;
}
