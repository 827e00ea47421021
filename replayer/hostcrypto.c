/* Host crypto measured with the session code (see hostcrypto.h). */
#include "replayer/hostcrypto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "model/tpm/session.h"
#include "model/tpm/tpm_ht.h"
#include "recorder/transport/tpmconn.h"

/* The handle of the sessions timed here: the first HMAC session handle. */
#define HOST_SESS ((uint32_t)TPM_HT_HMAC_SESSION << 24)

#define HC_BATCHES  5
#define HC_BATCH_NS 200000 /* a batch lasts at least 0.2 ms */

/* The NIST P-256 base point G (FIPS 186-4 D.1.2.3): a valid public point to
 * salt to, standing in for the TPM's null key. */
static const uint8_t p256_gx[32] = {
    0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5, 0x63, 0xa4, 0x40, 0xf2,
    0x77, 0x03, 0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4, 0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2, 0x96};
static const uint8_t p256_gy[32] = {
    0x4f, 0xe3, 0x42, 0xe2, 0xfe, 0x1a, 0x7f, 0x9b, 0x8e, 0xe7, 0xeb, 0x4a, 0x7c, 0x0f, 0x9e, 0x16,
    0x2b, 0xce, 0x33, 0x57, 0x6b, 0x31, 0x5e, 0xce, 0xcb, 0xb6, 0x40, 0x68, 0x37, 0xbf, 0x51, 0xf5};

struct hc {
	struct sess_crypto c;
	struct sess s;
	uint8_t params[2 + 32 + 6];
	uint8_t cmd[512];
	uint8_t rsp[512], rsp_pristine[512];
	size_t rsp_len;
	uint8_t pub[128];
	size_t pub_len;
};

/* A salted session's host side (Part 1 C.6.1, 19.6.8): the ephemeral key,
 * ECDH, KDFe and the session key (KDFa). */
static int op_salt(struct hc *h)
{
	uint8_t salt[32], sec[80], nc[32], nt[32] = {2};
	size_t sl;
	struct sess s;
	int rc = sess_ecdh_salt(&h->c, TPM_ALG_SHA256, p256_gx, 32, p256_gy, 32, salt, sec,
				sizeof sec, &sl);
	memset(nc, 1, sizeof nc);
	return rc ? rc
		  : sess_begin(&s, &h->c, HOST_SESS, TPM_ALG_SHA256, TPM_ALG_AES, salt, 32, NULL, 0,
			       nc, 32, nt, 32);
}

/* An unsalted, unbound session: the session state from the nonces, no key,
 * and the caller's nonce rolled for its first command. */
static int op_unsalted(struct hc *h)
{
	uint8_t nc[32], nt[32] = {2};
	struct sess s;
	memset(nc, 1, sizeof nc);
	int rc = sess_begin(&s, &h->c, HOST_SESS, TPM_ALG_SHA256, TPM_ALG_AES, NULL, 0, NULL, 0, nc,
			    sizeof nc, nt, sizeof nt);
	return rc ? rc : sess_nonce_roll(&s);
}

/* The command side of an HMAC session: nonce roll, (CFB), cpHash, HMAC. */
static int op_cmd(struct hc *h)
{
	size_t len;
	return sess_cmd_build(&h->s, &h->c, TPM_CC_Hash, NULL, NULL, 0, NULL, 0, h->params,
			      sizeof h->params, h->cmd, sizeof h->cmd, &len);
}

/* The response side: rpHash, HMAC check, (CFB); the copy restores the
 * ciphertext a decryption changed. */
static int op_rsp(struct hc *h)
{
	uint8_t *p;
	size_t pl;
	memcpy(h->rsp, h->rsp_pristine, h->rsp_len);
	return sess_rsp_open(&h->s, &h->c, TPM_CC_Hash, NULL, 0, h->rsp, h->rsp_len, &p, &pl);
}

/* Parameter encryption on top of the HMAC (Part 1 21.3): a command parameter
 * encrypted and a response parameter decrypted, each a KDFa for key and IV
 * and AES-128-CFB over 32 bytes. */
static int op_enc(struct hc *h)
{
	uint8_t b[32];
	memset(b, 0x5a, sizeof b);
	int rc = sess_param_crypt(&h->s, &h->c, NULL, 0, 0, b, sizeof b);
	return rc ? rc : sess_param_crypt(&h->s, &h->c, NULL, 0, 1, b, sizeof b);
}

static int op_name(struct hc *h)
{
	struct tpm_name n;
	return sess_name_public(&h->c, h->pub, h->pub_len, &n);
}

/* A response to TPM2_Hash (Part 3 15.4) whose first parameter is a 32-byte
 * TPM2B, with a valid HMAC for the session's current nonces and attributes. */
static int prep_rsp(struct hc *h)
{
	uint8_t nt[32], rph[32], hm[32];
	struct wire_wr w;
	int rc;
	memset(nt, 0x77, sizeof nt);
	wire_wr_init(&w, h->rsp, sizeof h->rsp);
	wire_wr_u16(&w, TPM_ST_SESSIONS);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, 2 + 32);
	size_t poff = w.off;
	wire_wr_u16(&w, 32);
	memset(wire_wr_reserve(&w, 32), 0xa5, 32);
	wire_wr_tpm2b(&w, nt, sizeof nt);
	wire_wr_u8(&w, h->s.attrs);
	memcpy(h->s.nonce_tpm, nt, sizeof nt);
	if ((rc = sess_rphash(&h->c, TPM_ALG_SHA256, 0, TPM_CC_Hash, h->rsp + poff, 2 + 32, rph)) ||
	    (rc = sess_rsp_hmac(&h->s, &h->c, rph, h->s.attrs, NULL, 0, hm)))
		return rc;
	wire_wr_tpm2b(&w, hm, sizeof hm);
	if (w.err)
		return -ENOBUFS;
	wire_put_u32(h->rsp + 2, (uint32_t)w.off);
	h->rsp_len = w.off;
	memcpy(h->rsp_pristine, h->rsp, h->rsp_len);
	return 0;
}

/* ms per call of fn: batches of n calls (n grown until a batch lasts
 * HC_BATCH_NS), the fastest of HC_BATCHES. */
static int per_call(struct hc *h, int (*fn)(struct hc *), double *ms)
{
	unsigned n = 1;
	double best = -1;
	int rc;
	for (int b = 0; b < HC_BATCHES;) {
		uint64_t t0 = db_mono_ns();
		for (unsigned i = 0; i < n; i++)
			if ((rc = fn(h)))
				return rc;
		uint64_t el = db_mono_ns() - t0;
		if (el < HC_BATCH_NS && n < (1u << 20)) {
			n *= 2;
			continue;
		}
		double v = (double)el / n / 1e6;
		if (best < 0 || v < best)
			best = v;
		b++;
	}
	*ms = best;
	return 0;
}

/* The HMAC side of one command and its response, and the parameter
 * encryption a session with decrypt and encrypt adds to it. */
static int session_cmd(struct hc *h, double *hmac_ms, double *enc_ms)
{
	uint8_t salt[32], nc[32], nt[32];
	double c, r;
	int rc;
	memset(salt, 3, sizeof salt);
	memset(nc, 1, sizeof nc);
	memset(nt, 2, sizeof nt);
	if ((rc = sess_begin(&h->s, &h->c, HOST_SESS, TPM_ALG_SHA256, TPM_ALG_AES, salt, 32, NULL,
			     0, nc, 32, nt, 32)))
		return rc;
	h->s.attrs = TPMA_SESSION_CONTINUESESSION;
	if ((rc = per_call(h, op_cmd, &c)) || (rc = prep_rsp(h)) ||
	    (rc = per_call(h, op_rsp, &r)) || (rc = per_call(h, op_enc, enc_ms)))
		return rc;
	*hmac_ms = c + r;
	return 0;
}

int rp_host_crypto_measure(struct pred_host *out)
{
	struct hc *h = calloc(1, sizeof *h);
	struct pred_host m = {.measured = 1};
	struct wire_wr w;
	int rc;
	if (!h)
		return -ENOMEM;
	if ((rc = sess_crypto_init(&h->c)))
		goto out;
	/* TPM2_Hash parameters: a 32-byte TPM2B, hashAlg, hierarchy. */
	wire_wr_init(&w, h->params, sizeof h->params);
	wire_wr_u16(&w, 32);
	memset(wire_wr_reserve(&w, 32), 0x5a, 32);
	wire_wr_u16(&w, TPM_ALG_SHA256);
	wire_wr_u32(&w, TPM_RH_NULL);
	/* An ECC P-256 public area as the kernel's null key has (Part 2
	 * 12.2.4): its Name is what a name lookup hashes. */
	wire_wr_init(&w, h->pub, sizeof h->pub);
	tpmconn_wr_null_key_public(&w, p256_gx, 32, p256_gy, 32);
	h->pub_len = w.off;
	if (w.err) {
		rc = -ENOBUFS;
		goto rel;
	}
	if ((rc = per_call(h, op_salt, &m.salt_ecc)) ||
	    (rc = per_call(h, op_unsalted, &m.unsalted)) ||
	    (rc = session_cmd(h, &m.hmac, &m.enc)) || (rc = per_call(h, op_name, &m.name)))
		goto rel;
	/* Salted with another key type: tpmtrace salts with ECC only, priced
	 * the same as the estimate does. */
	m.salt = m.salt_ecc;
	*out = m;
rel:
	sess_crypto_release(&h->c);
out:
	free(h);
	return rc;
}
