/* tpmtrace calibrate (see calibrate.h). Raw commands built with model/wire.h
 * (TPM 2.0 Part 3 gives each layout); sessions through replayer/session.h. */
#include "replayer/calibrate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "model/decode.h"
#include "model/wire.h"
#include "recorder/swtpm_spawn.h"
#include "replayer/session.h"
#include "replayer/tpmconn.h"

#define TPM_RH_OWNER	     0x40000001u
#define TPM_RC_INITIALIZE    0x100u
#define TPM_RC_NV_DEFINED    0x14Cu
#define TPM_RC_RETRY	     0x922
#define TPM_ST_HASHCHECK     0x8024
#define TPM_ALG_RSA	     0x0001
#define TPM_ALG_KEYEDHASH    0x0008
#define TPM_ALG_ECDSA	     0x0018
#define CAL_PCR		     16 /* the debug PCR: resettable, measured by nothing */
#define CAL_NV_BASE	     0x01500F00u
#define CAL_MAX_HANDLES	     32
#define CAL_MAX_BLOB	     1024
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
	uint32_t nv_index;
	int nv_defined;
	struct tpm_ecc_key nk; /* the kernel's null key: parent of everything */
	uint8_t nk_ctx[2048];
	size_t nk_ctx_len;
	struct sess hs; /* salted HMAC session for PCR_Extend */
	uint32_t ps;	/* policy session */
	struct blob seal_priv, seal_pub, sig_priv, sig_pub;
	uint32_t seal_h, sig_h, tmp_h;
	uint32_t counter;
	uint8_t buf[TPM_MAX_MESSAGE];
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

/* A command header, handles and npw empty password sessions (Part 1 19.6.5:
 * TPM_RS_PW, empty nonce, attributes 0, empty password). */
static void cmd_start(struct cal *k, struct wire_wr *w, uint32_t cc, const uint32_t *h, unsigned nh,
		      unsigned npw)
{
	wire_wr_init(w, k->buf, sizeof k->buf);
	wire_wr_u16(w, npw ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS);
	wire_wr_u32(w, 0);
	wire_wr_u32(w, cc);
	for (unsigned i = 0; i < nh; i++)
		wire_wr_u32(w, h[i]);
	if (npw) {
		wire_wr_u32(w, 9 * npw);
		for (unsigned i = 0; i < npw; i++) {
			wire_wr_u32(w, TPM_RS_PW);
			wire_wr_u16(w, 0);
			wire_wr_u8(w, 0);
			wire_wr_u16(w, 0);
		}
	}
}

/* Sends; 0, -errno, or the TPM's response code. */
static int cmd_send(struct cal *k, struct wire_wr *w)
{
	if (w->err)
		return -ENOBUFS;
	wire_put_u32(k->buf + 2, (uint32_t)w->off);
	int rc = tpmconn_xfer(&k->t, k->buf, w->off);
	return rc ? rc : tpmconn_rc(&k->t);
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

/* ---- the measured operations ------------------------------------------- */

static int op_getcap(struct cal *k)
{
	struct wire_wr w;
	cmd_start(k, &w, TPM_CC_GetCapability, NULL, 0, 0);
	wire_wr_u32(&w, 6);	/* TPM_CAP_TPM_PROPERTIES */
	wire_wr_u32(&w, 0x100); /* PT_FIXED */
	wire_wr_u32(&w, 8);
	return cmd_send(k, &w);
}

static int op_getrandom(struct cal *k)
{
	struct wire_wr w;
	cmd_start(k, &w, TPM_CC_GetRandom, NULL, 0, 0);
	wire_wr_u16(&w, 16);
	return cmd_send(k, &w);
}

static int op_pcrread(struct cal *k)
{
	struct wire_wr w;
	cmd_start(k, &w, TPM_CC_PCR_Read, NULL, 0, 0);
	wr_pcr_sel(&w);
	return cmd_send(k, &w);
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
	return cmd_send(k, &w);
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
	int rc = cmd_send(k, &w);
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

static int post_flush_tmp(struct cal *k)
{
	return flush(k, k->tmp_h);
}

static int pre_load_nk(struct cal *k)
{
	int rc = tpmconn_context_load(&k->t, k->nk_ctx, k->nk_ctx_len, &k->tmp_h);
	if (!rc)
		track(k, k->tmp_h);
	return rc;
}

static int op_flush_tmp(struct cal *k)
{
	return flush(k, k->tmp_h);
}

static int op_ctxsave(struct cal *k)
{
	uint8_t blob[2048];
	size_t len;
	return tpmconn_context_save(&k->t, k->nk.handle, blob, sizeof blob, &len);
}

static int op_ctxload(struct cal *k)
{
	return pre_load_nk(k);
}

static int op_cp_ecc(struct cal *k)
{
	struct tpm_ecc_key key;
	int rc = tpmconn_create_null_primary(&k->t, &k->cr, TPM_RH_NULL, &key);
	if (!rc) {
		k->tmp_h = key.handle;
		track(k, key.handle);
	}
	return rc;
}

/* The RSA 2048 storage primary as tpm2-tools makes it by default (and as a
 * boot's SRK looks): owner hierarchy, restricted decrypt, AES-128-CFB, no
 * scheme, exponent 0, empty unique (Part 2 12.2.3.5). The TPM derives the
 * same key from the same seed and template every time. */
static int op_cp_rsa(struct cal *k)
{
	struct wire_wr w;
	struct wire_rd r;
	uint32_t h = TPM_RH_OWNER;
	cmd_start(k, &w, TPM_CC_CreatePrimary, &h, 1, 1);
	wire_wr_u16(&w, 4); /* inSensitive: empty userAuth and data */
	wire_wr_u16(&w, 0);
	wire_wr_u16(&w, 0);
	wire_wr_u16(&w, 26); /* inPublic */
	wire_wr_u16(&w, TPM_ALG_RSA);
	wire_wr_u16(&w, TPM_ALG_SHA256);
	wire_wr_u32(&w, ATTR_STORAGE_PRIMARY);
	wire_wr_u16(&w, 0);
	wire_wr_u16(&w, TPM_ALG_AES);
	wire_wr_u16(&w, 128);
	wire_wr_u16(&w, TPM_ALG_CFB);
	wire_wr_u16(&w, TPM_ALG_NULL);
	wire_wr_u16(&w, 2048);
	wire_wr_u32(&w, 0);
	wire_wr_u16(&w, 0);
	wire_wr_u16(&w, 0); /* outsideInfo */
	wire_wr_u32(&w, 0); /* creationPCR */
	int rc = cmd_send(k, &w);
	if (rc)
		return rc;
	rsp_params(k, &r, &k->tmp_h);
	if (r.err)
		return -EPROTO;
	track(k, k->tmp_h);
	return 0;
}

static int op_readpublic(struct cal *k)
{
	struct wire_wr w;
	cmd_start(k, &w, TPM_CC_ReadPublic, &k->nk.handle, 1, 0);
	return cmd_send(k, &w);
}

/* TPM2_Create (Part 3 12.1) under the null key; keeps the two blobs. */
static int create(struct cal *k, int sign, struct blob *priv, struct blob *pub)
{
	struct wire_wr w;
	struct wire_rd r;
	static const char secret[] = "tpmtrace calibrate";
	cmd_start(k, &w, TPM_CC_Create, &k->nk.handle, 1, 1);
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
	int rc = cmd_send(k, &w);
	if (rc)
		return rc;
	rsp_params(k, &r, NULL);
	size_t start = r.off;
	uint16_t n;
	wire_tpm2b(&r, &n);
	size_t mid = r.off;
	wire_tpm2b(&r, &n);
	if (r.err || mid - start > CAL_MAX_BLOB || r.off - mid > CAL_MAX_BLOB)
		return -EPROTO;
	memcpy(priv->b, k->t.rsp + start, mid - start);
	priv->len = mid - start;
	memcpy(pub->b, k->t.rsp + mid, r.off - mid);
	pub->len = r.off - mid;
	return 0;
}

static int op_create(struct cal *k)
{
	return create(k, 0, &k->seal_priv, &k->seal_pub);
}

static int load(struct cal *k, const struct blob *priv, const struct blob *pub, uint32_t *h)
{
	struct wire_wr w;
	struct wire_rd r;
	cmd_start(k, &w, TPM_CC_Load, &k->nk.handle, 1, 1);
	wire_wr_bytes(&w, priv->b, priv->len);
	wire_wr_bytes(&w, pub->b, pub->len);
	int rc = cmd_send(k, &w);
	if (rc)
		return rc;
	rsp_params(k, &r, h);
	if (r.err)
		return -EPROTO;
	track(k, *h);
	return 0;
}

static int op_load(struct cal *k)
{
	return load(k, &k->seal_priv, &k->seal_pub, &k->tmp_h);
}

static int begin_unseal(struct cal *k)
{
	return load(k, &k->seal_priv, &k->seal_pub, &k->seal_h);
}

static int op_unseal(struct cal *k)
{
	struct wire_wr w;
	cmd_start(k, &w, TPM_CC_Unseal, &k->seal_h, 1, 1);
	return cmd_send(k, &w);
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
	return cmd_send(k, &w);
}

static int op_policydigest(struct cal *k)
{
	struct wire_wr w;
	cmd_start(k, &w, TPM_CC_PolicyGetDigest, &k->ps, 1, 0);
	return cmd_send(k, &w);
}

static int end_policy(struct cal *k)
{
	return flush(k, k->ps);
}

/* NV_DefineSpace (Part 3 31.3) of a 32-byte ordinary index, owner
 * authorization; the first free index from CAL_NV_BASE. */
static int begin_nv(struct cal *k)
{
	uint32_t h = TPM_RH_OWNER;
	for (uint32_t i = 0; i < 16; i++) {
		struct wire_wr w;
		cmd_start(k, &w, TPM_CC_NV_DefineSpace, &h, 1, 1);
		wire_wr_u16(&w, 0); /* auth */
		wire_wr_u16(&w, 14);
		wire_wr_u32(&w, CAL_NV_BASE + i);
		wire_wr_u16(&w, TPM_ALG_SHA256);
		wire_wr_u32(&w, NV_ATTRS);
		wire_wr_u16(&w, 0);
		wire_wr_u16(&w, 32);
		int rc = cmd_send(k, &w);
		if (rc == TPM_RC_NV_DEFINED)
			continue;
		if (rc)
			return rc;
		k->nv_index = CAL_NV_BASE + i;
		k->nv_defined = 1;
		return 0;
	}
	return TPM_RC_NV_DEFINED;
}

static int op_nvwrite(struct cal *k)
{
	struct wire_wr w;
	uint32_t h[2] = {TPM_RH_OWNER, k->nv_index};
	uint8_t d[32];
	fill(d, sizeof d, ++k->counter);
	cmd_start(k, &w, TPM_CC_NV_Write, h, 2, 1);
	wire_wr_tpm2b(&w, d, sizeof d);
	wire_wr_u16(&w, 0);
	return cmd_send(k, &w);
}

static int op_nvread(struct cal *k)
{
	struct wire_wr w;
	uint32_t h[2] = {TPM_RH_OWNER, k->nv_index};
	cmd_start(k, &w, TPM_CC_NV_Read, h, 2, 1);
	wire_wr_u16(&w, 32);
	wire_wr_u16(&w, 0);
	return cmd_send(k, &w);
}

static int nv_undefine(struct cal *k)
{
	struct wire_wr w;
	uint32_t h[2] = {TPM_RH_OWNER, k->nv_index};
	cmd_start(k, &w, TPM_CC_NV_UndefineSpace, h, 2, 1);
	int rc = cmd_send(k, &w);
	if (!rc)
		k->nv_defined = 0;
	return rc;
}

static int begin_sign(struct cal *k)
{
	int rc = create(k, 1, &k->sig_priv, &k->sig_pub);
	return rc ? rc : load(k, &k->sig_priv, &k->sig_pub, &k->sig_h);
}

static int op_sign(struct cal *k)
{
	struct wire_wr w;
	uint8_t d[32];
	fill(d, sizeof d, ++k->counter);
	cmd_start(k, &w, TPM_CC_Sign, &k->sig_h, 1, 1);
	wire_wr_tpm2b(&w, d, sizeof d);
	wire_wr_u16(&w, TPM_ALG_NULL); /* the key's scheme */
	wire_wr_u16(&w, TPM_ST_HASHCHECK);
	wire_wr_u32(&w, TPM_RH_NULL); /* a NULL ticket: the key is not restricted */
	wire_wr_u16(&w, 0);
	return cmd_send(k, &w);
}

static int op_quote(struct cal *k)
{
	struct wire_wr w;
	uint8_t q[16];
	fill(q, sizeof q, ++k->counter);
	cmd_start(k, &w, TPM_CC_Quote, &k->sig_h, 1, 1);
	wire_wr_tpm2b(&w, q, sizeof q);
	wire_wr_u16(&w, TPM_ALG_NULL);
	wr_pcr_sel(&w);
	return cmd_send(k, &w);
}

static int end_sign(struct cal *k)
{
	return flush(k, k->sig_h);
}

struct kind {
	const char *name;
	uint32_t cc;
	uint8_t auth;
	const char *variant;
	int nv; /* changes NV: skipped on hardware */
	int (*begin)(struct cal *);
	int (*pre)(struct cal *);
	int (*op)(struct cal *);
	int (*post)(struct cal *);
	int (*end)(struct cal *);
};

/* In an order that keeps at most three objects loaded (a TPM without a
 * resource manager has three slots): the null key, and one more. */
static const struct kind kinds[] = {
    {"GetCapability", TPM_CC_GetCapability, TPM_AUTH_NONE, "-", 0, NULL, NULL, op_getcap, NULL,
     NULL},
    {"GetRandom", TPM_CC_GetRandom, TPM_AUTH_NONE, "-", 0, NULL, NULL, op_getrandom, NULL, NULL},
    {"PCR_Read", TPM_CC_PCR_Read, TPM_AUTH_NONE, "-", 0, NULL, NULL, op_pcrread, NULL, NULL},
    {"PCR_Extend password", TPM_CC_PCR_Extend, TPM_AUTH_PASSWORD, "-", 0, NULL, NULL, op_extend_pw,
     NULL, NULL},
    {"PCR_Extend hmac", TPM_CC_PCR_Extend, TPM_AUTH_HMAC, "-", 0, NULL, NULL, op_extend_hmac, NULL,
     NULL},
    {"StartAuthSession salted-ecc", TPM_CC_StartAuthSession, TPM_AUTH_NONE, "salted-ecc", 0, NULL,
     NULL, op_sas_salted, post_flush_tmp, NULL},
    {"StartAuthSession unsalted", TPM_CC_StartAuthSession, TPM_AUTH_NONE, "unsalted", 0, NULL, NULL,
     op_sas_unsalted, post_flush_tmp, NULL},
    {"ContextSave", TPM_CC_ContextSave, TPM_AUTH_NONE, "-", 0, NULL, NULL, op_ctxsave, NULL, NULL},
    {"ContextLoad", TPM_CC_ContextLoad, TPM_AUTH_NONE, "-", 0, NULL, NULL, op_ctxload,
     post_flush_tmp, NULL},
    {"FlushContext", TPM_CC_FlushContext, TPM_AUTH_NONE, "-", 0, NULL, pre_load_nk, op_flush_tmp,
     NULL, NULL},
    {"CreatePrimary ecc-p256", TPM_CC_CreatePrimary, TPM_AUTH_PASSWORD, "ecc-p256", 0, NULL, NULL,
     op_cp_ecc, post_flush_tmp, NULL},
    {"CreatePrimary rsa-2048", TPM_CC_CreatePrimary, TPM_AUTH_PASSWORD, "rsa-2048", 0, NULL, NULL,
     op_cp_rsa, post_flush_tmp, NULL},
    {"ReadPublic", TPM_CC_ReadPublic, TPM_AUTH_NONE, "-", 0, NULL, NULL, op_readpublic, NULL, NULL},
    {"Create", TPM_CC_Create, TPM_AUTH_PASSWORD, "-", 0, NULL, NULL, op_create, NULL, NULL},
    {"Load", TPM_CC_Load, TPM_AUTH_PASSWORD, "-", 0, NULL, NULL, op_load, post_flush_tmp, NULL},
    {"Unseal", TPM_CC_Unseal, TPM_AUTH_PASSWORD, "-", 0, begin_unseal, NULL, op_unseal, NULL,
     end_unseal},
    {"PolicyPCR", TPM_CC_PolicyPCR, TPM_AUTH_NONE, "-", 0, begin_policy, NULL, op_policypcr, NULL,
     NULL},
    {"PolicyGetDigest", TPM_CC_PolicyGetDigest, TPM_AUTH_NONE, "-", 0, NULL, NULL, op_policydigest,
     NULL, end_policy},
    {"NV_Write", TPM_CC_NV_Write, TPM_AUTH_PASSWORD, "-", 1, begin_nv, NULL, op_nvwrite, NULL,
     NULL},
    {"NV_Read", TPM_CC_NV_Read, TPM_AUTH_PASSWORD, "-", 1, NULL, NULL, op_nvread, NULL,
     nv_undefine},
    {"Sign", TPM_CC_Sign, TPM_AUTH_PASSWORD, "-", 0, begin_sign, NULL, op_sign, NULL, NULL},
    {"Quote", TPM_CC_Quote, TPM_AUTH_PASSWORD, "-", 0, NULL, NULL, op_quote, NULL, end_sign},
};

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
	if (cmd_send(k, &w))
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
	rc = cmd_send(k, &w);
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
	if (k->nv_defined) {
		if (nv_undefine(k))
			k->res->left++;
		else
			k->res->cleaned++;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
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
	char covers[1024] = "", lacks[1024] = "";

	memset(res, 0, sizeof *res);
	if (!k)
		return -ENOMEM;
	k->o = o;
	k->res = res;
	k->err = err;
	k->errlen = errlen;
	ns = calloc(o->iterations ? o->iterations : 1, sizeof *ns);
	double *ms = calloc(o->iterations ? o->iterations : 1, sizeof *ms);
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
	k->t.on_xfer_arg = k;
	header(k, p, res->target);
	if ((rc = setup(k, p)))
		goto out;

	int hw = calibrate_is_hardware(o->tcti) && !o->allow_destructive;
	for (unsigned i = 0; i < nk && !rc; i++) {
		const struct kind *d = &kinds[i];
		if (d->nv && hw) {
			res->kinds_skipped++;
			snprintf(lacks + strlen(lacks), sizeof lacks - strlen(lacks), "%s%s",
				 lacks[0] ? ", " : "", d->name);
			continue;
		}
		if (d->begin && (rc = d->begin(k))) {
			rc = failed(k, rc, d->name);
			break;
		}
		unsigned total = 1 + o->warmup + o->iterations, m = 0;
		uint64_t cold = 0;
		for (unsigned j = 0; j < total; j++) {
			if (d->pre && (rc = d->pre(k)))
				break;
			k->last_ns = 0;
			/* TPM_RC_RETRY, YIELDED, TESTING (Part 2 6.6.3): the TPM did
			 * not start the command; send it again, as every TSS does. */
			for (int a = 0; a < 50; a++) {
				rc = d->op(k);
				if (rc != TPM_RC_RETRY && rc != 0x908 && rc != 0x90A)
					break;
			}
			if (rc)
				break;
			uint64_t lat = k->last_ns;
			if (d->post && (rc = d->post(k)))
				break;
			if (j == 0)
				cold = lat;
			else if (j > o->warmup)
				ns[m++] = lat;
			if (o->progress)
				o->progress(o->progress_arg, i + 1, nk, d->name, j + 1, total);
		}
		if (rc) {
			rc = failed(k, rc, d->name);
			break;
		}
		if (d->end && (rc = d->end(k))) {
			rc = failed(k, rc, d->name);
			break;
		}
		/* Rounded to 1 ns: the profile keeps 6 decimals of a millisecond. */
		qsort(ns, m, sizeof *ns, cmp_u64);
		for (unsigned j = 0; j < m; j++)
			ms[j] = (double)ns[j] / 1e6;
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
			 (double)cold / 1e6, o->warmup);
		e.comment = comment;
		if ((rc = profile_add(p, &e))) {
			snprintf(err, errlen, "%s: cannot add the entry (%s)", d->name,
				 strerror(-rc));
			break;
		}
		res->kinds_measured++;
		snprintf(covers + strlen(covers), sizeof covers - strlen(covers), "%s%s",
			 covers[0] ? ", " : "", d->name);
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
