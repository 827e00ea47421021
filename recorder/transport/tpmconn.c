/* Raw TPM transport through tss2-tctildr and the raw commands of the kernel's
 * HMAC session sequence (see tpmconn.h). */
#include "recorder/transport/tpmconn.h"

#include <errno.h>
#include <string.h>

#include <tss2/tss2_tcti.h>
#include <tss2/tss2_tctildr.h>

#include "model/tpm/constants.h"
#include "db/db.h"
#include "model/tpm/wire.h"
#include "model/emulate.h"

/* Part 2 8.3, TPMA_OBJECT of the kernel's null key: fixedTPM | fixedParent |
 * sensitiveDataOrigin | userWithAuth | noDA | restricted | decrypt. */
#define NULL_KEY_ATTRS 0x00030472u

int tpmconn_open(struct tpmconn *t, const char *conf)
{
	TSS2_TCTI_CONTEXT *ctx = NULL;
	memset(t, 0, sizeof(*t));
	TSS2_RC r = Tss2_TctiLdr_Initialize(conf, &ctx);
	if (r != TSS2_RC_SUCCESS) {
		t->tss_rc = r;
		return -ENODEV;
	}
	t->tcti = ctx;
	return 0;
}

void tpmconn_close(struct tpmconn *t)
{
	TSS2_TCTI_CONTEXT *ctx = t->tcti;
	if (ctx)
		Tss2_TctiLdr_Finalize(&ctx);
	t->tcti = NULL;
}

/* A response held apart from the run's pace (emulate_hold): one the target
 * answered RETRY, YIELDED or TESTING (it did not run the command: a fresh
 * swtpm's first authorized command, 150 ms late on a loaded host, whose
 * lateness made up by the next holds would shorten the figures of commands
 * that ran), or what the owner says is apart (a replay's own). */
static int emu_apart(struct tpmconn *t)
{
	return tpm_rc_is_retry(wire_get_u32(t->rsp + 6)) ||
	       (t->emu_apart && t->emu_apart(t->on_xfer_arg));
}

static int xfer_once(struct tpmconn *t, const uint8_t *cmd, size_t len);

int tpmconn_xfer(struct tpmconn *t, const uint8_t *cmd, size_t len)
{
	for (unsigned attempt = 0;; attempt++) {
		int rc = xfer_once(t, cmd, len);
		if (rc || attempt >= t->max_retries || tpmconn_rc(t) < 0 ||
		    !tpm_rc_is_retry((uint32_t)tpmconn_rc(t)))
			return rc;
		t->retries++;
	}
}

static int xfer_once(struct tpmconn *t, const uint8_t *cmd, size_t len)
{
	size_t size = sizeof(t->rsp);
	uint64_t t0 = t->on_xfer || t->emu ? db_mono_ns() : 0, t1 = 0;
	int rc = 0;
	TSS2_RC r = Tss2_Tcti_Transmit((TSS2_TCTI_CONTEXT *)t->tcti, len, cmd);
	if (r == TSS2_RC_SUCCESS)
		r = Tss2_Tcti_Receive((TSS2_TCTI_CONTEXT *)t->tcti, &size, t->rsp,
				      TSS2_TCTI_TIMEOUT_BLOCK);
	if (r != TSS2_RC_SUCCESS) {
		t->tss_rc = r;
		t->rsp_len = 0;
		rc = -EIO;
	} else {
		t->rsp_len = size;
		if (size < TPM_HEADER_SIZE || wire_get_u32(t->rsp + 2) != size)
			rc = -EPROTO;
		else if (t->emu) /* the release is the completion */
			t1 = emulate_hold(t->emu, t0, emulate_latency_ns(t->emu, cmd, len),
					  emu_apart(t));
	}
	if (t->on_xfer)
		t->on_xfer(t->on_xfer_arg, cmd, len, t->rsp, t->rsp_len, t0, t1 ? t1 : db_mono_ns(),
			   rc);
	return rc;
}

int tpmconn_rc(const struct tpmconn *t)
{
	if (t->rsp_len < TPM_HEADER_SIZE)
		return -EPROTO;
	uint32_t rc = wire_get_u32(t->rsp + 6);
	/* No TPM response code has bit 31 set (Part 2 6.6); masking it away
	 * could read 0x80000000 as success. */
	return rc > 0x7fffffffu ? -EPROTO : (int)rc;
}

void tpmconn_cmd_begin(struct tpmconn *t, struct wire_wr *w, uint16_t tag, uint32_t cc)
{
	wire_wr_init(w, t->cmd, sizeof(t->cmd));
	wire_wr_u16(w, tag);
	wire_wr_u32(w, 0);
	wire_wr_u32(w, cc);
}

int tpmconn_cmd_send(struct tpmconn *t, struct wire_wr *w)
{
	if (w->err)
		return -ENOBUFS;
	wire_put_u32(t->cmd + 2, (uint32_t)w->off);
	int rc = tpmconn_xfer(t, t->cmd, w->off);
	return rc ? rc : tpmconn_rc(t);
}

void tpmconn_wr_pw_auth(struct wire_wr *w, unsigned n)
{
	wire_wr_u32(w, 9 * n);
	for (unsigned i = 0; i < n; i++) {
		wire_wr_u32(w, TPM_RS_PW);
		wire_wr_u16(w, 0);
		wire_wr_u8(w, 0);
		wire_wr_u16(w, 0);
	}
}

/* A response reader positioned after the header. */
static void rsp_reader(struct tpmconn *t, struct wire_rd *r)
{
	wire_rd_init(r, t->rsp, t->rsp_len);
	wire_skip(r, TPM_HEADER_SIZE);
}

/* Takes the point of an ECC TPM2B_PUBLIC (Part 2 12.2.4 TPMT_PUBLIC, 12.2.3.6
 * TPMS_ECC_PARMS) and its Name, which must be the one the TPM returned with
 * it (tpm_name, tpm_name_len): else every cpHash would be wrong. */
static int ecc_public(struct sess_crypto *c, const uint8_t *tpm2b, size_t len,
		      const uint8_t *tpm_name, uint16_t tpm_name_len, struct tpm_ecc_key *key)
{
	struct wire_rd r;
	uint16_t size, xl, yl;
	wire_rd_init(&r, tpm2b, len);
	wire_u16(&r);
	uint16_t type = wire_u16(&r);
	key->name_alg = wire_u16(&r);
	wire_u32(&r);	       /* objectAttributes */
	wire_tpm2b(&r, &size); /* authPolicy */
	struct tpm_public_parms pp;
	if (type != TPM_ALG_ECC || tpm_rd_public_parms(&r, type, &pp))
		return -EPROTO; /* per the unions' selectors (model/tpm/decode.c) */
	const uint8_t *x = wire_tpm2b(&r, &xl);
	const uint8_t *y = wire_tpm2b(&r, &yl);
	if (r.err || wire_left(&r) || xl > 32 || yl > 32)
		return -EPROTO;
	memcpy(key->x, x, xl);
	memcpy(key->y, y, yl);
	key->xlen = xl;
	key->ylen = yl;
	int rc = sess_name_public(c, tpm2b, len, &key->name);
	if (rc)
		return rc;
	if (tpm_name_len != key->name.size || memcmp(tpm_name, key->name.b, tpm_name_len))
		return -EPROTO;
	return 0;
}

void tpmconn_wr_null_key_public(struct wire_wr *w, const uint8_t *x, size_t xl, const uint8_t *y,
				size_t yl)
{
	wire_wr_u16(w, (uint16_t)(2 + 2 + 4 + 2 + 6 + 2 + 2 + 2 + 2 + xl + 2 + yl));
	wire_wr_u16(w, TPM_ALG_ECC);
	wire_wr_u16(w, TPM_ALG_SHA256);
	wire_wr_u32(w, NULL_KEY_ATTRS);
	wire_wr_u16(w, 0); /* authPolicy */
	wire_wr_u16(w, TPM_ALG_AES);
	wire_wr_u16(w, 128);
	wire_wr_u16(w, TPM_ALG_CFB);
	wire_wr_u16(w, TPM_ALG_NULL); /* scheme */
	wire_wr_u16(w, TPM_ECC_NIST_P256);
	wire_wr_u16(w, TPM_ALG_NULL); /* kdf */
	/* unique */
	wire_wr_tpm2b(w, x ? x : (const uint8_t *)"", (uint16_t)xl);
	wire_wr_tpm2b(w, y ? y : (const uint8_t *)"", (uint16_t)yl);
}

int tpmconn_create_null_primary(struct tpmconn *t, struct sess_crypto *c, uint32_t hierarchy,
				struct tpm_ecc_key *key)
{
	struct wire_wr w;
	struct wire_rd r;
	uint16_t n;
	tpmconn_cmd_begin(t, &w, TPM_ST_SESSIONS, TPM_CC_CreatePrimary);
	wire_wr_u32(&w, hierarchy);
	tpmconn_wr_pw_auth(&w, 1);
	/* TPM2B_SENSITIVE_CREATE: empty userAuth and data */
	wire_wr_u16(&w, 4);
	wire_wr_u16(&w, 0);
	wire_wr_u16(&w, 0);
	/* TPM2B_PUBLIC inPublic with empty unique, as the kernel sends it */
	tpmconn_wr_null_key_public(&w, NULL, 0, NULL, 0);
	wire_wr_u16(&w, 0); /* outsideInfo */
	wire_wr_u32(&w, 0); /* creationPCR: empty TPML_PCR_SELECTION */
	int rc = tpmconn_cmd_send(t, &w);
	if (rc)
		return rc;
	rsp_reader(t, &r);
	key->handle = wire_u32(&r);
	wire_u32(&r); /* parameterSize */
	size_t pub_off = r.off;
	wire_tpm2b(&r, &n); /* outPublic */
	size_t pub_len = r.off - pub_off;
	wire_tpm2b(&r, &n); /* creationData */
	wire_tpm2b(&r, &n); /* creationHash */
	wire_u16(&r);	    /* creationTicket: tag, hierarchy, digest */
	wire_u32(&r);
	wire_tpm2b(&r, &n);
	const uint8_t *name = wire_tpm2b(&r, &n);
	if (r.err)
		return -EPROTO;
	return ecc_public(c, t->rsp + pub_off, pub_len, name, n, key);
}

int tpmconn_read_public(struct tpmconn *t, struct sess_crypto *c, uint32_t handle,
			struct tpm_ecc_key *key)
{
	struct wire_wr w;
	struct wire_rd r;
	uint16_t n;
	tpmconn_cmd_begin(t, &w, TPM_ST_NO_SESSIONS, TPM_CC_ReadPublic);
	wire_wr_u32(&w, handle);
	int rc = tpmconn_cmd_send(t, &w);
	if (rc)
		return rc;
	rsp_reader(t, &r);
	size_t pub_off = r.off;
	wire_tpm2b(&r, &n);
	size_t pub_len = r.off - pub_off;
	const uint8_t *name = wire_tpm2b(&r, &n);
	if (r.err)
		return -EPROTO;
	key->handle = handle;
	return ecc_public(c, t->rsp + pub_off, pub_len, name, n, key);
}

int tpmconn_context_save(struct tpmconn *t, uint32_t handle, uint8_t *blob, size_t cap, size_t *len)
{
	struct wire_wr w;
	tpmconn_cmd_begin(t, &w, TPM_ST_NO_SESSIONS, TPM_CC_ContextSave);
	wire_wr_u32(&w, handle);
	int rc = tpmconn_cmd_send(t, &w);
	if (rc)
		return rc;
	size_t n = t->rsp_len - TPM_HEADER_SIZE;
	if (n > cap)
		return -ENOBUFS;
	memcpy(blob, t->rsp + TPM_HEADER_SIZE, n);
	*len = n;
	return 0;
}

int tpmconn_context_load(struct tpmconn *t, const uint8_t *blob, size_t len, uint32_t *handle)
{
	struct wire_wr w;
	struct wire_rd r;
	tpmconn_cmd_begin(t, &w, TPM_ST_NO_SESSIONS, TPM_CC_ContextLoad);
	wire_wr_bytes(&w, blob, len);
	int rc = tpmconn_cmd_send(t, &w);
	if (rc)
		return rc;
	rsp_reader(t, &r);
	*handle = wire_u32(&r);
	return r.err ? -EPROTO : 0;
}

int tpmconn_flush(struct tpmconn *t, uint32_t handle)
{
	struct wire_wr w;
	tpmconn_cmd_begin(t, &w, TPM_ST_NO_SESSIONS, TPM_CC_FlushContext);
	wire_wr_u32(&w, handle); /* flushHandle is a parameter (Part 3 28.4) */
	return tpmconn_cmd_send(t, &w);
}

int tpmconn_start_salted(struct tpmconn *t, struct sess_crypto *c,
			 const struct tpm_ecc_key *tpm_key, struct sess *s)
{
	uint8_t nonce[32], salt[SESS_MAX_DIGEST], secret[80];
	size_t slen;
	struct wire_wr w;
	struct wire_rd r;
	uint16_t ntl;
	int rc = -EIO;
	unsigned sl = sess_digest_size(tpm_key->name_alg);
	if (!sl)
		return -ENOTSUP;
	memset(s, 0, sizeof(*s));
	s->nonce_caller_len = sizeof(nonce);
	if ((rc = sess_nonce_roll(s)))
		goto out;
	memcpy(nonce, s->nonce_caller, sizeof(nonce));
	rc = sess_ecdh_salt(c, tpm_key->name_alg, tpm_key->x, tpm_key->xlen, tpm_key->y,
			    tpm_key->ylen, salt, secret, sizeof(secret), &slen);
	if (rc)
		goto out;
	tpmconn_cmd_begin(t, &w, TPM_ST_NO_SESSIONS, TPM_CC_StartAuthSession);
	wire_wr_u32(&w, tpm_key->handle);
	wire_wr_u32(&w, TPM_RH_NULL); /* bind */
	wire_wr_tpm2b(&w, nonce, sizeof(nonce));
	wire_wr_tpm2b(&w, secret, (uint16_t)slen);
	wire_wr_u8(&w, TPM_SE_HMAC);
	wire_wr_u16(&w, TPM_ALG_AES); /* TPMT_SYM_DEF: AES-128-CFB */
	wire_wr_u16(&w, 128);
	wire_wr_u16(&w, TPM_ALG_CFB);
	wire_wr_u16(&w, TPM_ALG_SHA256); /* authHash */
	rc = tpmconn_cmd_send(t, &w);
	if (rc)
		goto out;
	rsp_reader(t, &r);
	uint32_t h = wire_u32(&r);
	const uint8_t *nt = wire_tpm2b(&r, &ntl);
	if (r.err) {
		rc = -EPROTO;
		goto out;
	}
	rc = sess_begin(s, c, h, TPM_ALG_SHA256, TPM_ALG_AES, salt, sl, NULL, 0, nonce,
			sizeof(nonce), nt, ntl);
out:
	memset(salt, 0, sizeof(salt));
	return rc;
}

int tpmconn_session_cmd(struct tpmconn *t, struct sess *s, struct sess_crypto *c, uint32_t cc,
			const uint32_t *handles, const struct tpm_name *names, unsigned n_handles,
			const uint8_t *auth, size_t auth_len, const uint8_t *params, size_t plen,
			uint8_t **rparams, size_t *rplen)
{
	size_t len;
	int rc = sess_cmd_build(s, c, cc, handles, names, n_handles, auth, auth_len, params, plen,
				t->cmd, sizeof(t->cmd), &len);
	if (!rc)
		rc = tpmconn_xfer(t, t->cmd, len);
	if (!rc)
		rc = sess_rsp_open(s, c, cc, auth, auth_len, t->rsp, t->rsp_len, rparams, rplen);
	return rc;
}

int tpmconn_pcr_extend_sha256(struct tpmconn *t, struct sess *s, struct sess_crypto *c,
			      uint32_t pcr, const uint8_t digest[32])
{
	uint8_t p[4 + 2 + 32];
	struct tpm_name name;
	uint8_t *rp;
	size_t rpl;
	int rc = sess_name_handle(pcr, &name);
	if (rc)
		return rc;
	/* TPML_DIGEST_VALUES with one TPMT_HA (Part 2 10.9.7, 10.3.2) */
	wire_put_u32(p, 1);
	wire_put_u16(p + 4, TPM_ALG_SHA256);
	memcpy(p + 6, digest, 32);
	return tpmconn_session_cmd(t, s, c, TPM_CC_PCR_Extend, &pcr, &name, 1, NULL, 0, p,
				   sizeof(p), &rp, &rpl);
}

int tpmconn_get_random(struct tpmconn *t, struct sess *s, struct sess_crypto *c, uint16_t n,
		       uint8_t *out, uint16_t *got)
{
	uint8_t p[2], *rp;
	size_t rpl;
	struct wire_rd r;
	uint16_t len;
	wire_put_u16(p, n);
	int rc =
	    tpmconn_session_cmd(t, s, c, TPM_CC_GetRandom, NULL, NULL, 0, NULL, 0, p, 2, &rp, &rpl);
	if (rc)
		return rc;
	wire_rd_init(&r, rp, rpl);
	const uint8_t *b = wire_tpm2b(&r, &len);
	if (r.err || len > n)
		return -EPROTO;
	memcpy(out, b, len);
	*got = len;
	return 0;
}

int tpmconn_pcr_read(struct tpmconn *t, uint16_t hash_alg, uint32_t pcr, uint8_t *out,
		     uint16_t *len)
{
	struct wire_wr w;
	struct wire_rd r;
	uint8_t sel[3] = {0, 0, 0};
	if (pcr >= 24)
		return -EINVAL;
	sel[pcr / 8] = (uint8_t)(1u << (pcr % 8));
	tpmconn_cmd_begin(t, &w, TPM_ST_NO_SESSIONS, TPM_CC_PCR_Read);
	wire_wr_u32(&w, 1); /* TPML_PCR_SELECTION */
	wire_wr_u16(&w, hash_alg);
	wire_wr_u8(&w, 3);
	wire_wr_bytes(&w, sel, 3);
	int rc = tpmconn_cmd_send(t, &w);
	if (rc)
		return rc;
	rsp_reader(t, &r);
	wire_u32(&r); /* pcrUpdateCounter */
	uint32_t ns = wire_u32(&r);
	for (uint32_t i = 0; i < ns && !r.err; i++) {
		wire_u16(&r);
		wire_skip(&r, wire_u8(&r));
	}
	uint32_t nd = wire_u32(&r);
	uint16_t dl;
	const uint8_t *d = wire_tpm2b(&r, &dl);
	if (r.err || nd != 1 || dl > SESS_MAX_DIGEST)
		return -EPROTO;
	memcpy(out, d, dl);
	*len = dl;
	return 0;
}

int tpmconn_kernel_session(struct tpmconn *t, struct sess_crypto *c, const struct tpm_ecc_key *key,
			   const uint8_t *ctx, size_t ctx_len, struct sess *s)
{
	uint32_t h;
	struct tpm_ecc_key k = *key;
	int rc = tpmconn_context_load(t, ctx, ctx_len, &h);
	if (rc)
		return rc;
	k.handle = h;
	rc = tpmconn_start_salted(t, c, &k, s);
	int frc = tpmconn_flush(t, h);
	return rc ? rc : frc;
}
