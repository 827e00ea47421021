/* Part 2 unions read per their selector (model/tpm/decode.c), one table per union,
 * every selector at least once (issue 15, finding 12): the bytes each selector
 * is followed by, what is read, and that the reader stops exactly after the
 * structure (a marker follows each one). A selector the union does not have
 * puts the reader in error. The old decoder read TPM_ALG_XOR in a
 * TPMT_SYM_DEF as keyBits + mode, one u16 too many, so a StartAuthSession with
 * an XOR symmetric did not parse. Sources: TPM 2.0 Part 2 rev 1.59/1.83,
 * 11.1.6 TPMT_SYM_DEF (TPMU_SYM_KEY_BITS, TPMU_SYM_MODE: XOR's key bits member
 * is a TPMI_ALG_HASH, its mode member is empty), 11.1.7 TPMT_SYM_DEF_OBJECT,
 * 12.1.12 TPMT_KEYEDHASH_SCHEME (TPMU_SCHEME_KEYEDHASH: hmac, xor {hashAlg,
 * kdf}), 11.2.1.5 TPMT_SIG_SCHEME (TPMU_SIG_SCHEME), 11.2.4.2 TPMT_RSA_SCHEME,
 * 11.2.5.6 TPMT_ECC_SCHEME, 11.2.3.3 TPMT_KDF_SCHEME. Buffers are heap copies
 * of the exact length (the suite also runs under ASan). */
#include <stdlib.h>
#include <string.h>

#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "testlib.h"

#define MARK 0xBEEF

struct row {
	const char *what;
	uint16_t w[4]; /* the u16s after the selector (the union member) */
	unsigned n;    /* how many of them */
	int ok;	       /* 0: the union does not have this selector */
};

/* Writes selector, its member and the marker; reads it back with rd. */
typedef int (*rd_fn)(struct wire_rd *r, void *out);

static void run(const char *union_name, uint16_t sel, const struct row *x, rd_fn rd, void *out,
		int *after_ok)
{
	uint8_t b[32];
	struct wire_wr w;
	wire_wr_init(&w, b, sizeof b);
	wire_wr_u16(&w, sel);
	for (unsigned i = 0; i < x->n; i++)
		wire_wr_u16(&w, x->w[i]);
	wire_wr_u16(&w, MARK);
	uint8_t *copy = malloc(w.off);
	memcpy(copy, b, w.off);
	struct wire_rd r;
	wire_rd_init(&r, copy, w.off);
	int rc = rd(&r, out);
	if (!x->ok) {
		CHECK(rc == -1 && r.err, "%s %s (0x%04x): a selector it does not have was read",
		      union_name, x->what, sel);
	} else {
		CHECK(rc == 0 && !r.err, "%s %s (0x%04x): not read", union_name, x->what, sel);
		CHECK(wire_u16(&r) == MARK && !wire_left(&r),
		      "%s %s (0x%04x): read %zu bytes, the structure has %u", union_name, x->what,
		      sel, r.off - 2, 2 + 2 * x->n);
	}
	*after_ok = rc == 0;
	free(copy);
}

static int rd_sym(struct wire_rd *r, void *o)
{
	return tpm_rd_sym_def(r, 0, o);
}

static int rd_sym_obj(struct wire_rd *r, void *o)
{
	return tpm_rd_sym_def(r, 1, o);
}

static void test_sym_def(void)
{
	static const struct {
		uint16_t sel;
		struct row x;
		uint16_t bits, mode, hash;
		int object_ok;
	} t[] = {
	    {0x0006, {"AES-128-CFB", {128, 0x0043}, 2, 1}, 128, 0x0043, 0, 1},
	    {0x0006, {"AES-256-CTR", {256, 0x0040}, 2, 1}, 256, 0x0040, 0, 1},
	    {0x0013, {"SM4-128-CBC", {128, 0x0042}, 2, 1}, 128, 0x0042, 0, 1},
	    {0x0026, {"CAMELLIA-192-OFB", {192, 0x0041}, 2, 1}, 192, 0x0041, 0, 1},
	    {0x0003, {"TDES-128-ECB", {128, 0x0044}, 2, 1}, 128, 0x0044, 0, 1},
	    /* XOR: the key bits member is a hash algorithm, there is no mode. */
	    {0x000A, {"XOR-SHA256", {0x000B}, 1, 1}, 0, 0x0010, 0x000B, 0},
	    {0x0010, {"NULL", {0}, 0, 1}, 0, 0x0010, 0, 1},
	    {0x0001, {"RSA (not a symmetric algorithm)", {0}, 0, 0}, 0, 0, 0, 0},
	    {0x000B, {"SHA256 (not a symmetric algorithm)", {0}, 0, 0}, 0, 0, 0, 0},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct tpm_sym_def d;
		int ok;
		run("TPMT_SYM_DEF", t[i].sel, &t[i].x, rd_sym, &d, &ok);
		if (ok)
			CHECK(d.alg == t[i].sel && d.key_bits == t[i].bits && d.mode == t[i].mode &&
				  d.hash == t[i].hash,
			      "TPMT_SYM_DEF %s: alg 0x%x bits %u mode 0x%x hash 0x%x", t[i].x.what,
			      d.alg, d.key_bits, d.mode, d.hash);
		/* TPMT_SYM_DEF_OBJECT: the same, less XOR (TPMI_ALG_SYM_OBJECT). */
		struct row xo = t[i].x;
		xo.ok = t[i].object_ok;
		run("TPMT_SYM_DEF_OBJECT", t[i].sel, &xo, rd_sym_obj, &d, &ok);
	}
}

static int rd_kh(struct wire_rd *r, void *o)
{
	return tpm_rd_keyedhash_scheme(r, o);
}
static int rd_sig(struct wire_rd *r, void *o)
{
	return tpm_rd_sig_scheme(r, o);
}
static int rd_rsa(struct wire_rd *r, void *o)
{
	return tpm_rd_rsa_scheme(r, o);
}
static int rd_ecc(struct wire_rd *r, void *o)
{
	return tpm_rd_ecc_scheme(r, o);
}
static int rd_kdf(struct wire_rd *r, void *o)
{
	return tpm_rd_kdf_scheme(r, o);
}

struct scheme_row {
	uint16_t sel;
	struct row x;
	uint16_t hash, kdf, count;
};

static void scheme_table(const char *name, rd_fn rd, const struct scheme_row *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct tpm_scheme s;
		int ok;
		run(name, t[i].sel, &t[i].x, rd, &s, &ok);
		if (ok)
			CHECK(s.scheme == t[i].sel && s.hash == t[i].hash && s.kdf == t[i].kdf &&
				  s.count == t[i].count,
			      "%s %s: scheme 0x%x hash 0x%x kdf 0x%x count %u", name, t[i].x.what,
			      s.scheme, s.hash, s.kdf, s.count);
	}
}

#define ROWS(t) t, sizeof t / sizeof t[0]

static void test_schemes(void)
{
	static const struct scheme_row kh[] = {
	    {0x0005, {"HMAC", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    /* XOR: {hashAlg, kdf} (TPMS_SCHEME_XOR). */
	    {0x000A, {"XOR", {0x000B, 0x0022}, 2, 1}, 0x000B, 0x0022, 0},
	    {0x0010, {"NULL", {0}, 0, 1}, 0, 0, 0},
	    {0x0014, {"RSASSA (a signing scheme)", {0}, 0, 0}, 0, 0, 0},
	};
	static const struct scheme_row sig[] = {
	    {0x0014, {"RSASSA", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    {0x0016, {"RSAPSS", {0x000C}, 1, 1}, 0x000C, 0, 0},
	    {0x0018, {"ECDSA", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    /* ECDAA: {hashAlg, count} (TPMS_SCHEME_ECDAA). */
	    {0x001A, {"ECDAA", {0x000B, 7}, 2, 1}, 0x000B, 0, 7},
	    {0x001B, {"SM2", {0x0012}, 1, 1}, 0x0012, 0, 0},
	    {0x001C, {"ECSCHNORR", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    {0x0005, {"HMAC", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    {0x0060, {"EDDSA", {0x000D}, 1, 1}, 0x000D, 0, 0},
	    {0x0061, {"EDDSA_PH", {0x000D}, 1, 1}, 0x000D, 0, 0},
	    {0x0010, {"NULL", {0}, 0, 1}, 0, 0, 0},
	    {0x0015, {"RSAES (an encryption scheme)", {0}, 0, 0}, 0, 0, 0},
	    {0x000A, {"XOR (a keyedhash scheme)", {0}, 0, 0}, 0, 0, 0},
	};
	static const struct scheme_row rsa[] = {
	    {0x0014, {"RSASSA", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    {0x0016, {"RSAPSS", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    /* RSAES: TPMS_ENC_SCHEME_RSAES is empty. */
	    {0x0015, {"RSAES", {0}, 0, 1}, 0, 0, 0},
	    {0x0017, {"OAEP", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    {0x0010, {"NULL", {0}, 0, 1}, 0, 0, 0},
	    {0x0018, {"ECDSA (an ECC scheme)", {0}, 0, 0}, 0, 0, 0},
	};
	static const struct scheme_row ecc[] = {
	    {0x0018, {"ECDSA", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    {0x001A, {"ECDAA", {0x000B, 1}, 2, 1}, 0x000B, 0, 1},
	    {0x001B, {"SM2", {0x0012}, 1, 1}, 0x0012, 0, 0},
	    {0x001C, {"ECSCHNORR", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    {0x0019, {"ECDH", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    {0x001D, {"ECMQV", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    {0x0060, {"EDDSA", {0x000D}, 1, 1}, 0x000D, 0, 0},
	    {0x0061, {"EDDSA_PH", {0x000D}, 1, 1}, 0x000D, 0, 0},
	    {0x0010, {"NULL", {0}, 0, 1}, 0, 0, 0},
	    {0x0017, {"OAEP (an RSA scheme)", {0}, 0, 0}, 0, 0, 0},
	};
	static const struct scheme_row kdf[] = {
	    {0x0007, {"MGF1", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    {0x0020, {"KDF1_SP800_56A", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    {0x0021, {"KDF2", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    {0x0022, {"KDF1_SP800_108", {0x000B}, 1, 1}, 0x000B, 0, 0},
	    {0x0010, {"NULL", {0}, 0, 1}, 0, 0, 0},
	    {0x0005, {"HMAC (not a KDF)", {0}, 0, 0}, 0, 0, 0},
	};
	scheme_table("TPMT_KEYEDHASH_SCHEME", rd_kh, ROWS(kh));
	scheme_table("TPMT_SIG_SCHEME", rd_sig, ROWS(sig));
	scheme_table("TPMT_RSA_SCHEME", rd_rsa, ROWS(rsa));
	scheme_table("TPMT_ECC_SCHEME", rd_ecc, ROWS(ecc));
	scheme_table("TPMT_KDF_SCHEME", rd_kdf, ROWS(kdf));
}

/* TPMU_PUBLIC_PARMS for each type, with a union inside read per selector:
 * an ECC key with an ECDAA scheme (a count) and a KDF (a hash), an RSA key
 * with RSAES (nothing), a keyedhash with XOR, a symcipher. */
static void test_public_parms(void)
{
	static const struct {
		const char *what;
		uint16_t type;
		uint16_t w[12];
		unsigned n;
		uint16_t bits_or_curve;
	} t[] = {
	    {"ECC P-256, ECDAA, KDF2",
	     0x0023,
	     {0x0010, 0x001A, 0x000B, 3, 0x0003, 0x0021, 0x000B},
	     7,
	     0x0003},
	    {"RSA 2048, AES-128-CFB, RSAES",
	     0x0001,
	     {0x0006, 128, 0x0043, 0x0015, 2048, 0, 0},
	     7,
	     2048},
	    {"KEYEDHASH, XOR", 0x0008, {0x000A, 0x000B, 0x0022}, 3, 0},
	    {"SYMCIPHER, AES-256-CFB", 0x0025, {0x0006, 256, 0x0043}, 3, 0},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		uint8_t b[64];
		struct wire_wr w;
		wire_wr_init(&w, b, sizeof b);
		for (unsigned k = 0; k < t[i].n; k++)
			wire_wr_u16(&w, t[i].w[k]); /* RSA: the exponent is the two 0s */
		wire_wr_u16(&w, MARK);
		uint8_t *copy = malloc(w.off);
		memcpy(copy, b, w.off);
		struct wire_rd r;
		wire_rd_init(&r, copy, w.off);
		struct tpm_public_parms p;
		CHECK(tpm_rd_public_parms(&r, t[i].type, &p) == 0, "%s: not read", t[i].what);
		CHECK(wire_u16(&r) == MARK && !wire_left(&r), "%s: %zu bytes read", t[i].what,
		      r.off - 2);
		if (t[i].type == 0x0023)
			CHECK(p.curve == t[i].bits_or_curve && p.scheme.count == 3 &&
				  p.kdf.scheme == 0x0021,
			      "%s: curve 0x%x count %u kdf 0x%x", t[i].what, p.curve,
			      p.scheme.count, p.kdf.scheme);
		if (t[i].type == 0x0001)
			CHECK(p.key_bits == 2048 && p.symmetric.key_bits == 128 &&
				  p.scheme.scheme == 0x0015,
			      "%s: %u bits", t[i].what, p.key_bits);
		free(copy);
	}
}

/* A StartAuthSession with an XOR symmetric (as tpm2-tss sends it) parses: the
 * bytes after TPMT_SYM_DEF are authHash, then the end of the command. */
static void test_start_auth_session_xor(void)
{
	uint8_t b[64];
	struct wire_wr w;
	wire_wr_init(&w, b, sizeof b);
	wire_wr_u16(&w, 0x8001);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, TPM_CC_StartAuthSession);
	wire_wr_u32(&w, 0x40000007); /* tpmKey: TPM_RH_NULL */
	wire_wr_u32(&w, 0x40000007); /* bind */
	wire_wr_u16(&w, 16);	     /* nonceCaller */
	for (int i = 0; i < 16; i++)
		wire_wr_u8(&w, (uint8_t)i);
	wire_wr_u16(&w, 0);	 /* encryptedSalt */
	wire_wr_u8(&w, 0x00);	 /* TPM_SE_HMAC */
	wire_wr_u16(&w, 0x000A); /* symmetric: XOR */
	wire_wr_u16(&w, 0x000B); /* keyBits.xor: SHA256 */
	wire_wr_u16(&w, 0x000B); /* authHash */
	wire_put_u32(b + 2, (uint32_t)w.off);
	struct tpm_cmd c;
	CHECK(tpm_cmd_decode(b, w.off, &c) == 0, "decode");
	struct wire_rd r;
	uint16_t n;
	wire_rd_init(&r, b, w.off);
	r.off = c.param_off;
	wire_tpm2b(&r, &n);
	wire_tpm2b(&r, &n);
	wire_u8(&r);
	struct tpm_sym_def d;
	CHECK(tpm_rd_sym_def(&r, 0, &d) == 0 && d.alg == 0x000A && d.hash == 0x000B,
	      "XOR symmetric");
	CHECK(wire_u16(&r) == 0x000B && !r.err && !wire_left(&r),
	      "authHash is the last field (%zu left)", wire_left(&r));
}

int main(void)
{
	test_sym_def();
	test_schemes();
	test_public_parms();
	test_start_auth_session_xor();
	return tl_finish("test_decode_unions");
}
