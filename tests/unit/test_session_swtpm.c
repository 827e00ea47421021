/* The session layer against a real TPM (a private swtpm): the Linux 6.10 HMAC
 * sequence end to end, parameter encryption both ways, tamper detection, and
 * cross-checks with tpm2-tss ESYS on the same TPM.
 *
 * The TPM is the judge here: it rejects a command whose salt, session key,
 * cpHash or HMAC is wrong (TPM_RC_AUTH_FAIL / TPM_RC_VALUE), and a wrong CFB
 * key shows up as a wrong digest in TPM2_Hash. */
#include <errno.h>
#include <string.h>

#include <openssl/evp.h>

#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "model/tpm/session.h"
#include "recorder/transport/tpmconn.h"
#include "swtpm.h"
#include "testlib.h"

#ifdef TPMTRACE_HAVE_ESYS
#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>
#endif

#define PCR 16 /* the debug PCR: resettable, used by nobody else */

static struct sess_crypto c;
static struct tpmconn t;
static struct swtpm_proc tpm;
static struct tpm_ecc_key null_key;
static uint8_t null_ctx[2048];
static size_t null_ctx_len;
static uint8_t sw_pcr[32]; /* PCR 16 as computed in software */

static void sha256(const void *d, size_t n, uint8_t out[32])
{
	EVP_Digest(d, n, out, NULL, EVP_sha256(), NULL);
}

static void sw_extend(const uint8_t d[32])
{
	uint8_t b[64];
	memcpy(b, sw_pcr, 32);
	memcpy(b + 32, d, 32);
	sha256(b, 64, sw_pcr);
}

/* tpm2_sessions_init(): CreatePrimary in the null hierarchy, ContextSave,
 * FlushContext. */
static void kernel_init(void)
{
	int rc = tpmconn_create_null_primary(&t, &c, TPM_RH_NULL, &null_key);
	CHECK(rc == 0, "CreatePrimary null key: rc %d (0x%x)", rc, rc);
	CHECK(null_key.handle >> 24 == 0x80, "transient handle 0x%08x", null_key.handle);
	CHECK(null_key.name.size == 34 && wire_get_u16(null_key.name.b) == TPM_ALG_SHA256,
	      "Name is SHA-256 nameAlg || digest (size %u)", null_key.name.size);
	CHECK(null_key.xlen == 32 && null_key.ylen == 32, "P-256 point");
	rc = tpmconn_context_save(&t, null_key.handle, null_ctx, sizeof(null_ctx), &null_ctx_len);
	CHECK(rc == 0 && null_ctx_len > 16, "ContextSave rc %d len %zu", rc, null_ctx_len);
	CHECK(tpmconn_flush(&t, null_key.handle) == 0, "FlushContext of the null key");

	/* ReadPublic of the reloaded key gives the same Name (computed by us from
	 * the public area and compared with the TPM's inside read_public). */
	uint32_t h;
	struct tpm_ecc_key k2;
	rc = tpmconn_context_load(&t, null_ctx, null_ctx_len, &h);
	CHECK(rc == 0, "ContextLoad rc %d", rc);
	rc = tpmconn_read_public(&t, &c, h, &k2);
	CHECK(rc == 0, "ReadPublic rc %d", rc);
	CHECK(k2.name.size == null_key.name.size &&
		  !memcmp(k2.name.b, null_key.name.b, k2.name.size) &&
		  !memcmp(k2.x, null_key.x, 32),
	      "ReadPublic Name and point equal CreatePrimary's");
	tpmconn_flush(&t, h);
}

/* ContextLoad, StartAuthSession (salted), FlushContext of the key: the 6.10
 * per-command prologue. Returns the TPM/host rc. */
static int kernel_session(struct sess *s)
{
	return tpmconn_kernel_session(&t, &c, &null_key, null_ctx, null_ctx_len, s);
}

static void test_kernel_extends(void)
{
	uint16_t len;
	int rc = tpmconn_pcr_read(&t, TPM_ALG_SHA256, PCR, sw_pcr, &len);
	CHECK(rc == 0 && len == 32, "PCR_Read rc %d", rc);
	for (int i = 0; i < 4; i++) {
		struct sess s;
		uint8_t d[32];
		char what[32];
		snprintf(what, sizeof(what), "tpmtrace extend %d", i);
		sha256(what, strlen(what), d);
		rc = kernel_session(&s);
		CHECK(rc == 0, "salted session %d: rc %d (0x%x)", i, rc, rc);
		CHECK(s.handle >> 24 == 0x02 && s.nonce_tpm_len == 32, "HMAC session 0x%08x",
		      s.handle);
		s.attrs = 0; /* as the kernel: no continueSession */
		rc = tpmconn_pcr_extend_sha256(&t, &s, &c, PCR, d);
		CHECK(rc == 0, "PCR_Extend with HMAC %d: rc %d (0x%x)", i, rc, rc);
		if (!rc)
			sw_extend(d);
		/* continueSession clear: the TPM has dropped the session. */
		CHECK(tpmconn_flush(&t, s.handle) > 0, "session %d was ended by the TPM", i);
	}
	uint8_t v[64];
	rc = tpmconn_pcr_read(&t, TPM_ALG_SHA256, PCR, v, &len);
	CHECK(rc == 0 && len == 32 && !memcmp(v, sw_pcr, 32), "PCR %d equals the software chain",
	      PCR);
}

/* hwrng path: GetRandom with encrypt | continueSession, looped, then flushed. */
static void test_get_random(void)
{
	struct sess s;
	uint8_t a[32], b[32];
	uint16_t na = 0, nb = 0;
	int rc = kernel_session(&s);
	CHECK(rc == 0, "session rc %d", rc);
	s.attrs = TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION;
	rc = tpmconn_get_random(&t, &s, &c, 32, a, &na);
	CHECK(rc == 0 && na == 32, "GetRandom 1 rc %d n %u", rc, na);
	/* The second one by hand, to keep the bytes as they came on the wire. */
	uint8_t p[2] = {0, 32}, wire[32], *rp;
	size_t len, rpl;
	rc = sess_cmd_build(&s, &c, TPM_CC_GetRandom, NULL, NULL, 0, NULL, 0, p, 2, t.cmd,
			    sizeof(t.cmd), &len);
	if (!rc)
		rc = tpmconn_xfer(&t, t.cmd, len);
	if (!rc && t.rsp_len >= TPM_HEADER_SIZE + 4 + 2 + 32)
		memcpy(wire, t.rsp + TPM_HEADER_SIZE + 4 + 2, 32);
	if (!rc)
		rc = sess_rsp_open(&s, &c, TPM_CC_GetRandom, NULL, 0, t.rsp, t.rsp_len, &rp, &rpl);
	CHECK(rc == 0 && rpl == 34 && wire_get_u16(rp) == 32, "GetRandom 2 (rolled nonces) rc %d",
	      rc);
	if (!rc) {
		memcpy(b, rp + 2, 32);
		nb = 32;
	}
	CHECK(nb == 32 && memcmp(b, wire, 32) != 0, "response parameter was decrypted");
	CHECK(memcmp(a, b, 32) != 0, "two GetRandom differ");
	CHECK(tpmconn_flush(&t, s.handle) == 0, "continued session is still there");
}

/* TPM2_Hash with decrypt | encrypt: the TPM hashes what our CFB key decrypts
 * to, and returns the digest under its CFB key; both must round-trip to
 * SHA-256 of the plaintext. */
static void test_hash_crypt(void)
{
	static const size_t sizes[] = {1, 16, 128, 1024};
	struct sess s;
	int rc = kernel_session(&s);
	CHECK(rc == 0, "session rc %d", rc);
	s.attrs = TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint8_t p[2 + 1024 + 6], want[32], *rp;
		size_t n = sizes[i], rpl;
		struct wire_wr w;
		wire_wr_init(&w, p, sizeof(p));
		wire_wr_u16(&w, (uint16_t)n);
		uint8_t *data = wire_wr_reserve(&w, n);
		for (size_t j = 0; j < n; j++)
			data[j] = (uint8_t)(j * 7 + i);
		wire_wr_u16(&w, TPM_ALG_SHA256);
		wire_wr_u32(&w, TPM_RH_NULL);
		sha256(data, n, want);
		rc = tpmconn_session_cmd(&t, &s, &c, TPM_CC_Hash, NULL, NULL, 0, NULL, 0, p, w.off,
					 &rp, &rpl);
		CHECK(rc == 0, "Hash %zu B: rc %d (0x%x)", n, rc, rc);
		/* the command carried ciphertext */
		size_t poff = 10 + 4 + 4 + 2 + 32 + 1 + 2 + 32;
		CHECK(n < 4 || memcmp(t.cmd + poff + 2, data, n) != 0, "%zu B sent encrypted", n);
		uint16_t dl = rc ? 0 : wire_get_u16(rp);
		CHECK(!rc && dl == 32 && !memcmp(rp + 2, want, 32),
		      "Hash %zu B decrypts to SHA-256 of the plaintext", n);
	}
	tpmconn_flush(&t, s.handle);
}

/* A changed response must not pass; a changed command must be refused. */
static void test_tamper(void)
{
	struct sess s;
	uint8_t p[2] = {0, 16}, *rp;
	size_t len, rpl;
	int rc = kernel_session(&s);
	CHECK(rc == 0, "session rc %d", rc);
	s.attrs = TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION;
	for (int what = 0; what < 3; what++) {
		rc = sess_cmd_build(&s, &c, TPM_CC_GetRandom, NULL, NULL, 0, NULL, 0, p, 2, t.cmd,
				    sizeof(t.cmd), &len);
		CHECK(rc == 0, "build rc %d", rc);
		CHECK(tpmconn_xfer(&t, t.cmd, len) == 0 && tpmconn_rc(&t) == 0, "GetRandom sent");
		if (what == 0)
			t.rsp[t.rsp_len - 1] ^= 0x01; /* last byte of the response HMAC */
		else if (what == 1)
			t.rsp[TPM_HEADER_SIZE + 4 + 2 + 3] ^= 0x80; /* a random byte */
		rc = sess_rsp_open(&s, &c, TPM_CC_GetRandom, NULL, 0, t.rsp, t.rsp_len, &rp, &rpl);
		if (what < 2)
			CHECK(rc == -EBADMSG, "tampered response (%s) detected: rc %d",
			      what ? "parameter" : "HMAC", rc);
		else
			CHECK(rc == 0, "untouched response still verifies: rc %d", rc);
	}
	/* A wrong command HMAC: GetRandom authorises no entity, so the TPM
	 * answers TPM_RC_BAD_AUTH (no DA implications) for session 1:
	 * Part 2 6.6: 0x0A2 | RC_S (0x800) | session index 1 << 8 = 0x9A2. */
	rc = sess_cmd_build(&s, &c, TPM_CC_GetRandom, NULL, NULL, 0, NULL, 0, p, 2, t.cmd,
			    sizeof(t.cmd), &len);
	t.cmd[len - 3] ^= 0x01; /* last HMAC byte, just before the 2 parameter bytes */
	rc = tpmconn_xfer(&t, t.cmd, len);
	CHECK(rc == 0 && tpmconn_rc(&t) == 0x9A2, "tampered command refused: 0x%x", tpmconn_rc(&t));
	tpmconn_flush(&t, s.handle);
}

#ifdef TPMTRACE_HAVE_ESYS
/* tpm2-tss ESYS on the same TPM: the null key's Name, an ESYS salted-session
 * extend that continues our software PCR chain, and an ESYS parameter-
 * encrypted Hash. */
static void test_esys(const char *tcti_conf)
{
	TSS2_TCTI_CONTEXT *tcti = NULL;
	ESYS_CONTEXT *e = NULL;
	ESYS_TR key = ESYS_TR_NONE, sess = ESYS_TR_NONE;
	TPM2B_PUBLIC *out_pub = NULL;
	TPM2B_CREATION_DATA *cd = NULL;
	TPM2B_DIGEST *ch = NULL, *oh = NULL;
	TPMT_TK_CREATION *tk = NULL;
	TPMT_TK_HASHCHECK *hv = NULL;
	TPM2B_NAME *name = NULL;
	TSS2_RC r = Tss2_TctiLdr_Initialize(tcti_conf, &tcti);
	if (r == TSS2_RC_SUCCESS)
		r = Esys_Initialize(&e, tcti, NULL);
	CHECK(r == TSS2_RC_SUCCESS, "ESYS init 0x%x", r);
	if (r)
		goto out;
	TPM2B_SENSITIVE_CREATE sens = {0};
	TPM2B_PUBLIC tmpl = {0};
	tmpl.publicArea.type = TPM2_ALG_ECC;
	tmpl.publicArea.nameAlg = TPM2_ALG_SHA256;
	tmpl.publicArea.objectAttributes = 0x00030472;
	tmpl.publicArea.parameters.eccDetail.symmetric.algorithm = TPM2_ALG_AES;
	tmpl.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128;
	tmpl.publicArea.parameters.eccDetail.symmetric.mode.aes = TPM2_ALG_CFB;
	tmpl.publicArea.parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
	tmpl.publicArea.parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
	tmpl.publicArea.parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
	TPM2B_DATA outside = {0};
	TPML_PCR_SELECTION pcrs = {0};
	r = Esys_CreatePrimary(e, ESYS_TR_RH_NULL, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
			       &sens, &tmpl, &outside, &pcrs, &key, &out_pub, &cd, &ch, &tk);
	CHECK(r == 0, "Esys_CreatePrimary 0x%x", r);
	if (r)
		goto out;
	r = Esys_TR_GetName(e, key, &name);
	CHECK(r == 0 && name->size == null_key.name.size &&
		  !memcmp(name->name, null_key.name.b, name->size),
	      "ESYS Name of the null key equals ours");
	TPMT_SYM_DEF sym = {
	    .algorithm = TPM2_ALG_AES, .keyBits = {.aes = 128}, .mode = {.aes = TPM2_ALG_CFB}};
	r = Esys_StartAuthSession(e, key, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				  NULL, TPM2_SE_HMAC, &sym, TPM2_ALG_SHA256, &sess);
	CHECK(r == 0, "ESYS salted session 0x%x", r);
	if (r)
		goto out;
	Esys_TRSess_SetAttributes(e, sess, TPMA_SESSION_CONTINUESESSION, 0xff);
	TPML_DIGEST_VALUES dv = {.count = 1};
	dv.digests[0].hashAlg = TPM2_ALG_SHA256;
	sha256("esys extend", 11, dv.digests[0].digest.sha256);
	r = Esys_PCR_Extend(e, ESYS_TR_PCR0 + PCR, sess, ESYS_TR_NONE, ESYS_TR_NONE, &dv);
	CHECK(r == 0, "Esys_PCR_Extend 0x%x", r);
	if (!r)
		sw_extend(dv.digests[0].digest.sha256);
	Esys_TRSess_SetAttributes(
	    e, sess, TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT,
	    0xff);
	TPM2B_MAX_BUFFER data = {.size = 100};
	for (int j = 0; j < 100; j++)
		data.buffer[j] = (uint8_t)(j * 7);
	uint8_t want[32];
	sha256(data.buffer, 100, want);
	r = Esys_Hash(e, sess, ESYS_TR_NONE, ESYS_TR_NONE, &data, TPM2_ALG_SHA256, ESYS_TR_RH_NULL,
		      &oh, &hv);
	CHECK(r == 0 && oh->size == 32 && !memcmp(oh->buffer, want, 32), "ESYS encrypted Hash 0x%x",
	      r);
out:
	if (e && sess != ESYS_TR_NONE)
		Esys_FlushContext(e, sess);
	if (e && key != ESYS_TR_NONE)
		Esys_FlushContext(e, key);
	Esys_Free(out_pub);
	Esys_Free(cd);
	Esys_Free(ch);
	Esys_Free(tk);
	Esys_Free(oh);
	Esys_Free(hv);
	Esys_Free(name);
	if (e)
		Esys_Finalize(&e);
	if (tcti)
		Tss2_TctiLdr_Finalize(&tcti);
}
#endif

int main(void)
{
	if (!swtpm_available())
		tl_skip("swtpm is not installed");
	int rc = swtpm_start(&tpm, tl_tmpdir());
	if (rc) {
		printf("cannot start swtpm: %s\n", strerror(-rc));
		return 1;
	}
	CHECK(sess_crypto_init(&c) == 0, "OpenSSL init");
	rc = tpmconn_open(&t, tpm.tcti);
	CHECK(rc == 0, "tpmconn_open %s: rc %d tss 0x%x", tpm.tcti, rc, t.tss_rc);
	if (rc)
		goto out;
	kernel_init();
	test_kernel_extends();
	test_get_random();
	test_hash_crypt();
	test_tamper();
#ifdef TPMTRACE_HAVE_ESYS
	/* swtpm serves one connection at a time: hand the TPM to ESYS. */
	tpmconn_close(&t);
	test_esys(tpm.tcti);
	rc = tpmconn_open(&t, tpm.tcti);
	CHECK(rc == 0, "reopen rc %d", rc);
	if (!rc) {
		/* one more kernel-style extend after ESYS's: the chain must hold */
		struct sess s;
		uint8_t d[32], v[64];
		uint16_t len;
		sha256("after esys", 10, d);
		rc = kernel_session(&s);
		if (!rc)
			rc = tpmconn_pcr_extend_sha256(&t, &s, &c, PCR, d);
		CHECK(rc == 0, "extend after ESYS rc %d", rc);
		if (!rc)
			sw_extend(d);
		rc = tpmconn_pcr_read(&t, TPM_ALG_SHA256, PCR, v, &len);
		CHECK(rc == 0 && !memcmp(v, sw_pcr, 32), "PCR chain across tpmtrace and ESYS");
	}
#else
	printf("note: built without tss2-esys, ESYS cross-checks not run\n");
#endif
out:
	tpmconn_close(&t);
	sess_crypto_release(&c);
	swtpm_stop(&tpm);
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tl_tmpdir());
	if (system(cmd) != 0)
		printf("note: could not remove %s\n", tl_tmpdir());
	return tl_finish("test_session_swtpm");
}
