/* The replay engine's commands: public areas and RSA salts, building a
 * command with its authorization area and opening the response, Names, and the
 * trace's own sessions re-created on the target (replay_int.h). */
#include "replayer/replay_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tpm/crypto_lib.h"
#include "model/tpm/pcr_bank.h"

/* ---- public areas (Part 2 12.2) --------------------------------------- */

struct pubinfo {
	uint16_t type, name_alg;
	uint32_t attrs;
	const uint8_t *x, *y; /* ECC point, or RSA modulus in x */
	uint16_t xl, yl;
	uint32_t exponent;
};

static int pub_parse(const uint8_t *tpm2b, size_t len, struct pubinfo *p)
{
	struct wire_rd r;
	uint16_t n;
	memset(p, 0, sizeof *p);
	wire_rd_init(&r, tpm2b, len);
	wire_u16(&r);
	p->type = wire_u16(&r);
	p->name_alg = wire_u16(&r);
	p->attrs = wire_u32(&r);
	wire_tpm2b(&r, &n); /* authPolicy */
	switch (p->type) {
	case TPM_ALG_RSA:
	case TPM_ALG_ECC: {
		/* The parameters per their unions' selectors (model/tpm/decode.c):
		 * an ECDAA scheme has a count, a KDF a hash, RSAES nothing. */
		struct tpm_public_parms pp;
		if (tpm_rd_public_parms(&r, p->type, &pp))
			return -EPROTO;
		p->exponent = pp.exponent;
		p->x = wire_tpm2b(&r, &p->xl);
		if (p->type == TPM_ALG_ECC)
			p->y = wire_tpm2b(&r, &p->yl);
		break;
	}
	default:
		return r.err ? -EPROTO : 0;
	}
	return r.err ? -EPROTO : 0;
}

/* RSA-OAEP of the salt with label "SECRET" (Part 1 C.6.3, Part 3 11.1). */
static int rsa_salt(struct rp *x, const struct pubinfo *p, uint8_t *salt, unsigned sl,
		    uint8_t *secret, size_t cap, size_t *slen)
{
	int rc = -EIO;
	EVP_PKEY *pk = NULL;
	EVP_PKEY_CTX *pc = NULL, *ec = NULL;
	OSSL_PARAM_BLD *b = NULL;
	OSSL_PARAM *par = NULL;
	(void)x;
	if (tpm_crypto_load(NULL, 0))
		return -ENOENT;
	BIGNUM *n = BN_bin2bn(p->x, p->xl, NULL), *e = BN_new();
	const EVP_MD *md = NULL;
	if (!n || !e || !BN_set_word(e, p->exponent ? p->exponent : 65537))
		goto out;
	if (!(b = OSSL_PARAM_BLD_new()) || !OSSL_PARAM_BLD_push_BN(b, "n", n) ||
	    !OSSL_PARAM_BLD_push_BN(b, "e", e) || !(par = OSSL_PARAM_BLD_to_param(b)))
		goto out;
	if (!(pc = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) ||
	    EVP_PKEY_fromdata_init(pc) <= 0 ||
	    EVP_PKEY_fromdata(pc, &pk, EVP_PKEY_PUBLIC_KEY, par) <= 0)
		goto out;
	const struct pcr_alg *na =
	    pcr_alg_common_index(p->name_alg) < 0 ? NULL : pcr_alg_by_id(p->name_alg);
	if (!na || !(md = EVP_get_digestbyname(na->evp))) {
		rc = -ENOTSUP;
		goto out;
	}
	if (RAND_bytes(salt, (int)sl) != 1 || !(ec = EVP_PKEY_CTX_new(pk, NULL)) ||
	    EVP_PKEY_encrypt_init(ec) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_padding(ec, RSA_PKCS1_OAEP_PADDING) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_oaep_md(ec, md) <= 0 || EVP_PKEY_CTX_set_rsa_mgf1_md(ec, md) <= 0)
		goto out;
	{
		char *label = OPENSSL_strdup("SECRET"); /* the NUL is part of the label */
		if (!label || EVP_PKEY_CTX_set0_rsa_oaep_label(ec, label, 7) <= 0) {
			OPENSSL_free(label);
			goto out;
		}
	}
	*slen = cap;
	if (EVP_PKEY_encrypt(ec, secret, slen, salt, sl) <= 0)
		goto out;
	rc = 0;
out:
	EVP_PKEY_CTX_free(ec);
	EVP_PKEY_CTX_free(pc);
	EVP_PKEY_free(pk);
	OSSL_PARAM_free(par);
	OSSL_PARAM_BLD_free(b);
	BN_free(n);
	BN_free(e);
	return rc;
}

/* ---- building commands and opening responses ------------------------- */

void rp_crypto_time(struct rp *x, uint64_t t0, uint64_t tpm0)
{
	uint64_t spent = db_mono_ns() - t0, tpm = x->res->tpm_ns - tpm0;
	x->res->crypto_ns += spent > tpm ? spent - tpm : 0;
}

/* Builds tag/size/cc, handles, the authorization area and the parameters
 * (params is modified: the first one is encrypted when a session asks). */
static int build_cmd(struct rp *x, const struct rp_auth_cmd *k, uint8_t *out, size_t cap,
		     size_t *outlen)
{
	const uint32_t cc = k->cc, *handles = k->handles;
	const unsigned nh = k->nh, na = k->na;
	const struct tpm_name *names = k->names;
	struct authent *a = k->a;
	uint8_t *params = k->params;
	const size_t plen = k->plen;
	const struct tpm_cc_info *ci = tpm_cc_lookup(cc);
	struct wire_wr w;
	uint8_t hmac[SESS_MAX_DIGEST];
	int rc;
	for (unsigned i = 0; i < na; i++)
		if (a[i].is_sess && (rc = sess_nonce_roll(a[i].s)))
			return rc;
	/* Part 1 21.1: only the first parameter, only a TPM2B, and only one
	 * session may decrypt. */
	for (unsigned i = 0; i < na; i++) {
		if (!a[i].is_sess || !(a[i].attrs & TPMA_SESSION_DECRYPT))
			continue;
		if (!ci || !ci->cmd_tpm2b || plen < 2 || wire_get_u16(params) > plen - 2)
			return -EINVAL;
		rc = sess_param_crypt(a[i].s, &x->sessions.cr, a[i].key_auth, a[i].key_auth_len, 0,
				      params + 2, wire_get_u16(params));
		if (rc)
			return rc;
		break;
	}
	wire_wr_init(&w, out, cap);
	wire_wr_u16(&w, na ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, cc);
	for (unsigned i = 0; i < nh; i++)
		wire_wr_u32(&w, handles[i]);
	if (na) {
		size_t size_at = w.off;
		/* Other sessions that decrypt or encrypt enter the first one's
		 * HMAC (Part 1 19.6.5). */
		const struct sess *dec = NULL, *enc = NULL;
		for (unsigned i = 1; i < na; i++) {
			if (a[i].is_sess && (a[i].attrs & TPMA_SESSION_DECRYPT))
				dec = a[i].s;
			if (a[i].is_sess && (a[i].attrs & TPMA_SESSION_ENCRYPT))
				enc = a[i].s;
		}
		wire_wr_u32(&w, 0);
		for (unsigned i = 0; i < na; i++) {
			if (!a[i].is_sess) {
				/* A password session's attributes are sent as the
				 * policy says (SeaBIOS sets continueSession). */
				wire_wr_u32(&w, TPM_RS_PW);
				wire_wr_u16(&w, 0);
				wire_wr_u8(&w, a[i].attrs);
				wire_wr_tpm2b(&w, a[i].pw, (uint16_t)a[i].pw_len);
				continue;
			}
			struct sess *s = a[i].s;
			wire_wr_u32(&w, s->handle);
			wire_wr_tpm2b(&w, s->nonce_caller, s->nonce_caller_len);
			wire_wr_u8(&w, a[i].attrs);
			if (a[i].pw_in_hmac) {
				wire_wr_tpm2b(&w, a[i].pw, (uint16_t)a[i].pw_len);
				continue;
			}
			uint8_t cph[SESS_MAX_DIGEST];
			s->attrs = a[i].attrs;
			if ((rc = sess_cphash(&x->sessions.cr, s->hash_alg, cc, names, nh, params,
					      plen, cph)) ||
			    (rc = sess_cmd_hmac_first(s, &x->sessions.cr, cph, a[i].key_auth,
						      a[i].key_auth_len, i ? NULL : dec,
						      i ? NULL : enc, hmac)))
				return rc;
			wire_wr_tpm2b(&w, hmac, s->dsize);
		}
		if (!w.err)
			wire_put_u32(out + size_at, (uint32_t)(w.off - size_at - 4));
	}
	wire_wr_bytes(&w, params, plen);
	if (w.err)
		return -ENOBUFS;
	wire_put_u32(out + 2, (uint32_t)w.off);
	*outlen = w.off;
	return 0;
}

/* The TPM keys a response HMAC with the entity's authValue as it is after
 * the command: the new one after HierarchyChangeAuth and NV_ChangeAuth,
 * none after NV_UndefineSpaceSpecial deleted the index (Part 1 19.6.5; the
 * reference code skips includeAuth for an index that is gone). 1 with the
 * value in *out when cc is such a command. */
int rp_auth_after(uint32_t cc, const uint8_t *params, size_t plen, struct replay_auth *out)
{
	struct wire_rd q;
	uint16_t n;
	out->len = 0;
	if (cc == TPM_CC_NV_UndefineSpaceSpecial)
		return 1;
	if (cc != TPM_CC_HierarchyChangeAuth && cc != TPM_CC_NV_ChangeAuth)
		return 0;
	wire_rd_init(&q, params, plen);
	const uint8_t *v = wire_tpm2b(&q, &n);
	if (q.err || n > sizeof out->value)
		return 0;
	out->len = n;
	memcpy(out->value, v, n);
	return 1;
}

/* Checks the sessions of a successful response: new nonceTPM, response HMAC
 * (Part 1 19.6.6; a mismatch is -EBADMSG and ends the run), and decrypts the
 * first parameter when asked. *pp, *pl: the parameters. */
static int open_rsp(struct rp *x, uint32_t cc, struct authent *a, unsigned na, uint8_t *rsp,
		    size_t len, uint8_t **pp, size_t *pl)
{
	const struct tpm_cc_info *ci = tpm_cc_lookup(cc);
	struct wire_rd r;
	wire_rd_init(&r, rsp, len);
	uint16_t tag = wire_u16(&r);
	wire_u32(&r);
	uint32_t rc = wire_u32(&r);
	if (rc)
		return 0;
	if (ci)
		wire_skip(&r, 4u * ci->handles_out);
	size_t poff;
	uint32_t psize;
	if (tag == TPM_ST_SESSIONS) {
		psize = wire_u32(&r);
		poff = r.off;
		wire_skip(&r, psize);
	} else {
		poff = r.off;
		psize = (uint32_t)wire_left(&r);
		wire_skip(&r, psize);
	}
	if (r.err || (na && tag != TPM_ST_SESSIONS))
		return -EPROTO;
	*pp = rsp + poff;
	*pl = psize;
	for (unsigned i = 0; i < na; i++) {
		uint16_t nl, hl;
		const uint8_t *nonce = wire_tpm2b(&r, &nl);
		uint8_t rattrs = wire_u8(&r);
		const uint8_t *h = wire_tpm2b(&r, &hl);
		if (r.err)
			return -EPROTO;
		if (!a[i].is_sess)
			continue;
		struct sess *s = a[i].s;
		if (nl > SESS_MAX_DIGEST)
			return -EPROTO;
		memcpy(s->nonce_tpm, nonce, nl);
		s->nonce_tpm_len = nl;
		if (a[i].pw_in_hmac && hl == 0)
			continue; /* PolicyPassword: the TPM sends no HMAC */
		uint8_t rph[SESS_MAX_DIGEST], want[SESS_MAX_DIGEST];
		int e = sess_rphash(&x->sessions.cr, s->hash_alg, 0, cc, rsp + poff, psize, rph);
		const struct replay_auth *after = a[i].inc_auth ? a[i].auth_after : NULL;
		if (!e)
			e = sess_rsp_hmac(s, &x->sessions.cr, rph, rattrs,
					  after ? after->value : a[i].key_auth,
					  after ? after->len : a[i].key_auth_len, want);
		if (e)
			return e;
		if (hl != s->dsize || CRYPTO_memcmp(h, want, hl))
			return -EBADMSG;
		x->res->hmac_checked++;
	}
	if (wire_left(&r))
		return -EPROTO;
	for (unsigned i = 0; i < na; i++) {
		if (!a[i].is_sess || !(a[i].attrs & TPMA_SESSION_ENCRYPT) || !ci || !ci->rsp_tpm2b)
			continue;
		if (psize < 2 || wire_get_u16(rsp + poff) > psize - 2)
			return -EPROTO;
		return sess_param_crypt(a[i].s, &x->sessions.cr, a[i].key_auth, a[i].key_auth_len,
					1, rsp + poff + 2, wire_get_u16(rsp + poff));
	}
	return 0;
}

/* Sends a command built by build_cmd and opens its response. Returns the TPM
 * rc (positive), 0, or a fatal -errno. The response stays in x->tg.t.rsp. */
int rp_send_auth(struct rp *x, const struct rp_auth_cmd *k, uint8_t **pp, size_t *pl)
{
	uint8_t cmd[TPM_MAX_MESSAGE];
	size_t len = 0;
	const uint32_t cc = k->cc;
	uint64_t t0 = db_mono_ns(), tpm0 = x->res->tpm_ns;
	int rc = build_cmd(x, k, cmd, sizeof cmd, &len);
	rp_crypto_time(x, t0, tpm0);
	if (rc)
		return rp_fail(x, rc, "cannot build %s for source seq %llu: %s", tpm_cc_name(cc),
			       (unsigned long long)x->now.cur.seq, strerror(-rc));
	rc = rp_xfer(x, cmd, len);
	if (rc)
		return rc;
	t0 = db_mono_ns();
	tpm0 = x->res->tpm_ns;
	rc = open_rsp(x, cc, k->a, k->na, x->tg.t.rsp, x->tg.t.rsp_len, pp, pl);
	rp_crypto_time(x, t0, tpm0);
	if (rc == -EBADMSG)
		return rp_fail(
		    x, rc,
		    "response HMAC of %s (source seq %llu) does not verify: the response "
		    "was changed or does not come from the TPM holding the session",
		    tpm_cc_name(cc), (unsigned long long)x->now.cur.seq);
	if (rc)
		return rp_fail(x, rc, "malformed %s response (source seq %llu)", tpm_cc_name(cc),
			       (unsigned long long)x->now.cur.seq);
	return 0;
}

/* ---- Names ----------------------------------------------------------- */

/* ReadPublic / NV_ReadPublic of a target handle into o (an extra command). */
int rp_read_public(struct rp *x, uint32_t rep, struct obj *o)
{
	uint8_t cmd[14];
	int nv = tpm_ht_of(rep) == TPM_HT_NV_INDEX;
	wire_put_u16(cmd, TPM_ST_NO_SESSIONS);
	wire_put_u32(cmd + 2, 14);
	wire_put_u32(cmd + 6, nv ? TPM_CC_NV_ReadPublic : TPM_CC_ReadPublic);
	wire_put_u32(cmd + 10, rep);
	int saved = x->now.cur_role, rc;
	x->now.cur_role = POL_ROLE_NAME_LOOKUP;
	rc = rp_xfer(x, cmd, sizeof cmd);
	x->now.cur_role = saved;
	if (rc)
		return rc;
	struct wire_rd r;
	uint16_t n;
	wire_rd_init(&r, x->tg.t.rsp, x->tg.t.rsp_len);
	wire_skip(&r, TPM_HEADER_SIZE);
	size_t po = r.off;
	wire_tpm2b(&r, &n);
	size_t pl = r.off - po;
	const uint8_t *name = wire_tpm2b(&r, &n);
	if (r.err)
		return rp_fail(x, -EPROTO, "malformed ReadPublic response");
	if (!nv)
		rp_obj_set_pub(o, x->tg.t.rsp + po, pl);
	rp_obj_set_name(o, name, n);
	return 0;
}

/* Name of a handle for cpHash (Part 1 16), rec: recorded, rep: target's. */
int rp_name_of(struct rp *x, uint32_t rec, uint32_t rep, struct tpm_name *out)
{
	uint8_t t = tpm_ht_of(rep);
	if (t == TPM_HT_PCR || t == TPM_HT_HMAC_SESSION || t == TPM_HT_POLICY_SESSION ||
	    t == TPM_HT_PERMANENT)
		return sess_name_handle(rep, out);
	struct obj *o = rp_obj_find(x, rec);
	if (!o)
		o = rp_obj_add(x, rec, rep);
	if (!o->has_name) {
		int rc = rp_read_public(x, rep, o);
		if (rc)
			return rc > 0 ? -ENOENT : rc;
	}
	*out = o->name;
	return 0;
}

/* ---- the trace's own sessions (Part 3 11.1 TPM2_StartAuthSession) ----- */

/* TPM2_StartAuthSession with our own nonce (and salt when rk is a key):
 * rk, rb are target handles (TPM_RH_NULL for none), key the tpmKey's entry.
 * Returns 0 (out set up), a TPM rc > 0, -ENOTSUP when the key cannot salt,
 * or a fatal -errno. */
int rp_start_raw(struct rp *x, const struct rp_sess_start *q, struct sess *out, struct authent *a,
		 unsigned na, const struct tpm_name *names)
{
	uint8_t salt[SESS_MAX_DIGEST], secret[600], cmd[TPM_MAX_MESSAGE];
	size_t salt_len = 0, secret_len = 0;
	uint64_t t0 = db_mono_ns(), tpm0 = x->res->tpm_ns;
	struct wire_wr w;
	struct wire_rd r;
	uint16_t n;
	int rc = 0;
	if (q->tpm_key != TPM_RH_NULL) {
		struct pubinfo pi;
		if (!q->key->publen && (rc = rp_read_public(x, q->tpm_key, q->key)))
			return rc < 0 ? rc : -ENOTSUP;
		t0 = db_mono_ns();
		tpm0 = x->res->tpm_ns;
		rc = pub_parse(q->key->pub, q->key->publen, &pi);
		unsigned sl = sess_digest_size(pi.name_alg);
		if (!rc && pi.type == TPM_ALG_ECC)
			rc = sess_ecdh_salt(&x->sessions.cr, pi.name_alg, pi.x, pi.xl, pi.y, pi.yl,
					    salt, secret, sizeof secret, &secret_len);
		else if (!rc && pi.type == TPM_ALG_RSA && sl)
			rc = rsa_salt(x, &pi, salt, sl, secret, sizeof secret, &secret_len);
		else
			rc = -ENOTSUP;
		if (rc) {
			rp_crypto_time(x, t0, tpm0);
			return -ENOTSUP;
		}
		salt_len = sl;
	}
	memset(out, 0, sizeof *out);
	out->nonce_caller_len = q->nonce_len;
	sess_nonce_roll(out);
	wire_wr_init(&w, cmd, sizeof cmd);
	if (!na) {
		wire_wr_u16(&w, TPM_ST_NO_SESSIONS);
		wire_wr_u32(&w, 0);
		wire_wr_u32(&w, TPM_CC_StartAuthSession);
		wire_wr_u32(&w, q->tpm_key);
		wire_wr_u32(&w, q->bind);
	}
	size_t p0 = w.off;
	wire_wr_tpm2b(&w, out->nonce_caller, q->nonce_len);
	wire_wr_tpm2b(&w, secret, (uint16_t)secret_len);
	wire_wr_u8(&w, q->type);
	wire_wr_u16(&w, q->sym.alg);
	if (q->sym.alg != TPM_ALG_NULL) {
		wire_wr_u16(&w, q->sym.key_bits);
		wire_wr_u16(&w, q->sym.mode);
	}
	wire_wr_u16(&w, q->hash);
	rp_crypto_time(x, t0, tpm0);
	uint32_t h;
	if (na) {
		/* The recording's own sessions (an encryption session for
		 * nonceCaller, as systemd-cryptsetup starts its policy session
		 * under its HMAC session): carried, with our nonce in clear
		 * before rp_send_auth encrypts it. */
		uint8_t *pp = NULL;
		size_t pl = 0;
		uint32_t hs[2] = {q->tpm_key, q->bind};
		const struct rp_auth_cmd k = {.cc = TPM_CC_StartAuthSession,
					      .handles = hs,
					      .nh = 2,
					      .names = names,
					      .a = a,
					      .na = na,
					      .params = cmd + p0,
					      .plen = w.off - p0};
		rc = rp_send_auth(x, &k, &pp, &pl);
		if (rc)
			goto out;
		wire_rd_init(&r, x->tg.t.rsp, x->tg.t.rsp_len);
		wire_skip(&r, TPM_HEADER_SIZE);
		h = wire_u32(&r); /* the handle area; rp_send_auth checked the rest */
		if (r.err) {
			rc = rp_fail(x, -EPROTO, "malformed StartAuthSession response");
			goto out;
		}
		wire_rd_init(&r, pp, pl);
	} else {
		wire_put_u32(cmd + 2, (uint32_t)w.off);
		rc = rp_xfer(x, cmd, w.off);
		if (rc)
			goto out;
		wire_rd_init(&r, x->tg.t.rsp, x->tg.t.rsp_len);
		wire_skip(&r, TPM_HEADER_SIZE);
		h = wire_u32(&r);
	}
	const uint8_t *nt = wire_tpm2b(&r, &n);
	if (r.err) {
		rc = rp_fail(x, -EPROTO, "malformed StartAuthSession response");
		goto out;
	}
	t0 = db_mono_ns();
	tpm0 = x->res->tpm_ns;
	uint8_t nc[SESS_MAX_DIGEST];
	memcpy(nc, out->nonce_caller, q->nonce_len);
	rc = sess_begin(out, &x->sessions.cr, h, q->hash, q->sym.alg, salt, salt_len, q->bind_auth,
			q->bind_len, nc, q->nonce_len, nt, n);
	rp_crypto_time(x, t0, tpm0);
	if (rc)
		rc = rp_fail(x, rc, "session set-up failed: %s", strerror(-rc));
out:
	memset(salt, 0, sizeof salt);
	return rc;
}

/* The trace's own TPM2_StartAuthSession, started again on the target. */
int rp_start_session(struct rp *x, const struct src_cmd *sc)
{
	struct wire_rd r;
	uint16_t n;
	uint32_t tpm_key = sc->c.handles[0], bind = sc->c.handles[1], rk, rb;
	wire_rd_init(&r, sc->cmd, sc->len);
	r.off = sc->c.param_off;
	wire_tpm2b(&r, &n); /* nonceCaller */
	uint16_t nc_len = n;
	wire_tpm2b(&r, &n); /* encryptedSalt: made for the recording TPM's key */
	uint8_t type = wire_u8(&r);
	/* TPMT_SYM_DEF per its selector: XOR has a hash and no mode. */
	struct tpm_sym_def sd;
	int sym_rc = tpm_rd_sym_def(&r, 0, &sd);
	uint16_t sym = sd.alg, bits = sd.key_bits, mode = sd.mode;
	uint16_t hash = wire_u16(&r);
	if (r.err || sc->c.n_handles != 2) {
		/* Refused with its reason, as other refusals are: one command
		 * that does not parse does not end the replay. */
		if (sym_rc)
			rp_note(x, REPLAY_REFUSED, sc->c.cc,
				"StartAuthSession: symmetric algorithm 0x%04x is not one a "
				"TPMT_SYM_DEF has",
				sym);
		else
			rp_note(x, REPLAY_REFUSED, sc->c.cc,
				"StartAuthSession: its parameters run past the end");
		return 0;
	}
	if (sym == TPM_ALG_XOR) {
		rp_note(
		    x, REPLAY_REFUSED, sc->c.cc,
		    "StartAuthSession: symmetric XOR (hash 0x%04x) parameter obfuscation is not "
		    "supported here",
		    sd.hash);
		return 0;
	}
	unsigned ds = sess_digest_size(hash);
	if (!ds ||
	    (sym != TPM_ALG_NULL && (sym != TPM_ALG_AES || bits != 128 || mode != TPM_ALG_CFB)) ||
	    (type != TPM_SE_HMAC && type != TPM_SE_POLICY && type != TPM_SE_TRIAL)) {
		rp_note(
		    x, REPLAY_REFUSED, sc->c.cc,
		    "StartAuthSession: session type %u, symmetric 0x%x/%u/0x%x or hash 0x%x not "
		    "supported here",
		    type, sym, bits, mode, hash);
		return 0;
	}
	if (nc_len < 16 || nc_len > ds)
		nc_len = (uint16_t)ds;
	if (rp_map_handle(x, tpm_key, &rk) || rp_map_handle(x, bind, &rb)) {
		rp_note(x, REPLAY_REFUSED, sc->c.cc,
			"StartAuthSession: tpmKey or bind was loaded before the trace started");
		return 0;
	}
	struct obj *key = NULL;
	if (tpm_key != TPM_RH_NULL && !(key = rp_obj_find(x, tpm_key)))
		key = rp_obj_add(x, tpm_key, rk);
	/* Bound session: the bind entity's authValue goes into the session key
	 * (Part 1 19.6.8); we only know it through --auth. */
	const struct replay_auth *ba = bind != TPM_RH_NULL ? rp_auth_for(x, bind) : NULL;
	struct tpm_name bind_name = {0};
	if (bind != TPM_RH_NULL) {
		int rc = rp_name_of(x, bind, rb, &bind_name);
		if (rc < 0 && rc != -ENOENT)
			return rc;
	}
	/* Its own sessions (no authorization handles: audit, encrypt or
	 * decrypt only), under the target's keys of those sessions. */
	struct authent a[TPM_MAX_SESSIONS];
	struct tpm_name names[2];
	unsigned na = 0;
	memset(a, 0, sizeof a);
	for (unsigned i = 0; i < sc->c.n_sessions && i < TPM_MAX_SESSIONS; i++) {
		const struct tpm_session *ts = &sc->c.sess[i];
		struct rsess *ars = ts->handle == TPM_RS_PW ? NULL : rp_sess_find(x, ts->handle);
		if (!ars) {
			rp_note(x, REPLAY_REFUSED, sc->c.cc,
				"StartAuthSession: session 0x%08x was started before the trace (or "
				"refused)",
				ts->handle);
			return 0;
		}
		a[na].is_sess = 1;
		a[na].s = &ars->s;
		a[na].rs = ars;
		a[na++].attrs = ts->attrs;
	}
	if (na) {
		int e = rp_name_of(x, tpm_key, rk, &names[0]);
		if (!e)
			e = rp_name_of(x, bind, rb, &names[1]);
		if (e == -ENOENT) {
			rp_note(x, REPLAY_REFUSED, sc->c.cc,
				"StartAuthSession: the Name of tpmKey or bind is unknown");
			return 0;
		}
		if (e)
			return e;
	}
	struct sess s;
	const struct rp_sess_start q = {.tpm_key = rk,
					.key = key,
					.bind = rb,
					.bind_auth = ba ? ba->value : NULL,
					.bind_len = ba ? ba->len : 0,
					.type = type,
					.sym = {sym, bits, mode, 0},
					.hash = hash,
					.nonce_len = nc_len};
	int rc = rp_start_raw(x, &q, &s, a, na, names);
	if (rc == -ENOTSUP) {
		rp_note(
		    x, REPLAY_REFUSED, sc->c.cc,
		    "StartAuthSession: cannot salt to the key 0x%08x (neither ECC nor RSA, or its "
		    "public area is unknown)",
		    tpm_key);
		return 0;
	}
	if (rc)
		return rc < 0 ? rc : 0;
	struct rsess *rs = rp_sess_find(x, sc->rsp_handle);
	for (int i = 0; !rs && i < MAX_SESS; i++)
		if (!x->sessions.sess[i].used)
			rs = &x->sessions.sess[i];
	if (!rs)
		rs = &x->sessions.sess[sc->rsp_handle % MAX_SESS];
	memset(rs, 0, sizeof *rs);
	rs->s = s;
	rs->used = 1;
	rs->rec = sc->rsp_handle;
	rs->type = type;
	rs->bound = bind != TPM_RH_NULL;
	rs->bind_name = bind_name;
	rs->client = sc->client;
	return 0;
}
