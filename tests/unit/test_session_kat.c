/* Known-answer tests of the session primitives (model/tpm/session.c) against
 * published vectors. The protocol as a whole (salt, session key, HMACs, CFB
 * with KDFa keys) is checked by a real TPM in test_session_swtpm.c. */
#include <errno.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "model/tpm/session.h"
#include "testlib.h"

static struct sess_crypto c;

static int hexeq(const uint8_t *got, const char *hex)
{
	uint8_t want[256];
	size_t n = tl_hex(hex, want, sizeof(want));
	return memcmp(got, want, n) == 0;
}

static size_t hx(const char *hex, uint8_t *out)
{
	return tl_hex(hex, out, 256);
}

/* TCG TPM 2.0 reference implementation, KdfTestData.h: the KDFa self-test
 * vector (SHA-256 build): key 20 bytes, label "KDFSELFTESTLABEL", 8-byte
 * contexts, 160 bits. */
static void test_kdfa(void)
{
	uint8_t key[20], u[8], v[8], out[20];
	hx("271FA08BBDC5060EC3DFA928FF9B73123A12DA0C", key);
	hx("CE244F395DCA7391", u);
	hx("DA504031DDF12E83", v);
	int rc = sess_kdfa(&c, TPM_ALG_SHA256, key, 20, "KDFSELFTESTLABEL", u, 8, v, 8, 160, out);
	CHECK(rc == 0, "kdfa rc %d", rc);
	CHECK(hexeq(out, "bb0259e1c8ba607e6a2cd704b69a902e9ade84c4"), "KDFa self-test vector");
	/* The same input through a context that was keyed with something else
	 * in between (the key cache must not leak a stale key). */
	uint8_t other[32] = {1}, junk[32], again[20];
	sess_hmac(&c, TPM_ALG_SHA256, other, sizeof(other), "x", 1, junk);
	sess_kdfa(&c, TPM_ALG_SHA256, key, 20, "KDFSELFTESTLABEL", u, 8, v, 8, 160, again);
	CHECK(memcmp(out, again, 20) == 0, "KDFa after a key change");
	CHECK(sess_kdfa(&c, 0x1234, key, 20, "X", u, 8, v, 8, 160, out) == -ENOTSUP,
	      "unknown hash");
}

/* github.com/chrisfenner/tpm-test-vectors, vectors/kdfe.json (validated by
 * its author against go-tpm and the TPM simulator). */
static void test_kdfe(void)
{
	uint8_t z[64], u[64], v[64], out[64];
	size_t zl, ul, vl;
	/* 37_SHA256_431: Use "SECRET" (the label of the ECC salt). */
	zl = hx("e89fc5304cf46c1cf7d1f5de5d3d1ec7eddc80b0386700", z);
	ul = hx("e602bc959fd97af0405649e0c80e02e9dd64e9d79e698292b043c79dfa9f9261", u);
	int rc = sess_kdfe(&c, TPM_ALG_SHA256, z, zl, "SECRET", u, ul, v, 0, 431, out);
	CHECK(rc == 0, "kdfe rc %d", rc);
	CHECK(hexeq(out, "3a8e893b8b76cdddbf87845b2567fa7152577829f6a55b73cb82d4a1f0342a051d6e50e2"
			 "0ec2f96bc4de38d7d0d79a9caf99e1d574b9"),
	      "KDFe 37_SHA256_431");
	/* 30_SHA256_109: a bit count that is not a multiple of 8. */
	zl = hx("c3e3c34e82ccfa82d8999bf2635bb7cd01f3d65f03ff", z);
	ul = hx("55576a51c0e45b86557535e9ea50d5e7f4a80bb426e7ff", u);
	vl = hx("dffdece923181dc335c1e936ff", v);
	sess_kdfe(&c, TPM_ALG_SHA256, z, zl, "CFB", u, ul, v, vl, 109, out);
	CHECK(hexeq(out, "1106264c89948737c140d2f5b40e"), "KDFe 30_SHA256_109");
	/* 01_SHA1_191: SHA-1, two blocks. */
	zl = hx("915ffecb01b046a4b030e7f6fd21", z);
	ul = hx("6ba2faa90bb3ee519c", u);
	vl = hx("000747490a53807ca3cc8ba3", v);
	sess_kdfe(&c, TPM_ALG_SHA1, z, zl, "INTEGRITY", u, ul, v, vl, 191, out);
	CHECK(hexeq(out, "707cf9a3deb55485a2eee2629b1d4178adef616f9fb66d79"), "KDFe 01_SHA1_191");
}

/* RFC 4231 test cases 1 and 2 (HMAC-SHA-256), through the cached key. */
static void test_hmac(void)
{
	uint8_t k1[20], out[32];
	memset(k1, 0x0b, sizeof(k1));
	for (int round = 0; round < 2; round++) {
		sess_hmac(&c, TPM_ALG_SHA256, k1, 20, "Hi There", 8, out);
		CHECK(
		    hexeq(out, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
		    "RFC 4231 case 1, round %d", round);
		sess_hmac(&c, TPM_ALG_SHA256, (const uint8_t *)"Jefe", 4,
			  "what do ya want for nothing?", 28, out);
		CHECK(
		    hexeq(out, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
		    "RFC 4231 case 2, round %d", round);
	}
	/* Same key twice in a row: the restart from the kept key schedule. */
	sess_hmac(&c, TPM_ALG_SHA256, k1, 20, "Hi There", 8, out);
	sess_hmac(&c, TPM_ALG_SHA256, k1, 20, "Hi There", 8, out);
	CHECK(hexeq(out, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
	      "RFC 4231 case 1, repeated key");
	/* Empty key (an unsalted, unbound session with no authValue): checked
	 * against OpenSSL's one-shot HMAC. */
	uint8_t want[32];
	unsigned wl = 0;
	sess_hmac(&c, TPM_ALG_SHA256, NULL, 0, "abc", 3, out);
	HMAC(EVP_sha256(), "", 0, (const uint8_t *)"abc", 3, want, &wl);
	CHECK(wl == 32 && memcmp(out, want, 32) == 0, "empty HMAC key");
}

/* NIST SP 800-38A F.3.13/F.3.14, CFB128-AES128. */
static void test_cfb(void)
{
	uint8_t key[16], iv[16], buf[64];
	hx("2b7e151628aed2a6abf7158809cf4f3c", key);
	hx("000102030405060708090a0b0c0d0e0f", iv);
	const char *pt = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
			 "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
	const char *ct = "3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b"
			 "26751f67a3cbb140b1808cf187a4f4dfc04b05357c5d1c0eeac4c66f9ff7f2e6";
	size_t n = hx(pt, buf);
	CHECK(sess_aes_cfb(&c, key, iv, 1, buf, n) == 0 && hexeq(buf, ct), "CFB128 encrypt");
	CHECK(sess_aes_cfb(&c, key, iv, 0, buf, n) == 0 && hexeq(buf, pt), "CFB128 decrypt");
	/* A length that is not a block multiple (TPM2B parameters rarely are):
	 * CFB is a stream mode, the prefix of the ciphertext must match. */
	n = hx(pt, buf);
	CHECK(sess_aes_cfb(&c, key, iv, 1, buf, 21) == 0 && hexeq(buf, "3b3fd92eb72dad20333449f8e8"
								       "3cfb4ac8a64537a0"),
	      "CFB128 partial block");
}

static void test_names(void)
{
	struct tpm_name n;
	CHECK(sess_name_handle(7, &n) == 0 && n.size == 4 && hexeq(n.b, "00000007"), "PCR name");
	CHECK(sess_name_handle(0x40000007, &n) == 0 && hexeq(n.b, "40000007"), "permanent name");
	CHECK(sess_name_handle(0x80000001, &n) == -EINVAL, "transient handle needs ReadPublic");
	CHECK(sess_name_handle(0x01c00002, &n) == -EINVAL, "NV handle needs its public area");
	uint8_t bad[3] = {0, 5, 0};
	CHECK(sess_name_public(&c, bad, sizeof(bad), &n) == -EPROTO, "short TPM2B_PUBLIC");
}

/* The salt refuses a point that is not on P-256 (an attacker's TPM key). */
static void test_bad_point(void)
{
	uint8_t x[32], y[32], salt[32], sec[80];
	size_t sl;
	memset(x, 0x11, 32);
	memset(y, 0x22, 32);
	CHECK(sess_ecdh_salt(&c, TPM_ALG_SHA256, x, 32, y, 32, salt, sec, sizeof(sec), &sl) ==
		  -EINVAL,
	      "off-curve TPM point");
}

int main(void)
{
	if (sess_crypto_init(&c)) {
		printf("OpenSSL initialisation failed\n");
		return 1;
	}
	test_kdfa();
	test_kdfe();
	test_hmac();
	test_cfb();
	test_names();
	test_bad_point();
	sess_crypto_release(&c);
	return tl_finish("test_session_kat");
}
