/* Decoder: well-formed commands and responses, and crafted bad inputs that must
 * each give their specific malformed reason without reading out of bounds
 * (the suite also runs under ASan: buffers here are heap copies of exactly the
 * message length, so any overread is caught). */
#include <stdlib.h>
#include <string.h>

#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "model/tpm/redact.h"
#include "testlib.h"

/* Decodes a heap copy of exactly len bytes. */
static int cmd_decode(const uint8_t *b, size_t len, struct tpm_cmd *c)
{
	uint8_t *copy = malloc(len ? len : 1);
	memcpy(copy, b, len);
	int rc = tpm_cmd_decode(copy, len, c);
	free(copy);
	return rc;
}

static int rsp_decode(const uint8_t *b, size_t len, uint32_t cc, struct tpm_rsp *r)
{
	uint8_t *copy = malloc(len ? len : 1);
	memcpy(copy, b, len);
	int rc = tpm_rsp_decode(copy, len, cc, r);
	free(copy);
	return rc;
}

/* TPM2_PCR_Extend(PCR 16) with an empty password session and one SHA-256
 * digest (Part 3 22.2). */
static size_t build_pcr_extend(uint8_t *b, size_t cap, uint8_t attrs)
{
	struct wire_wr w;
	wire_wr_init(&w, b, cap);
	wire_wr_u16(&w, TPM_ST_SESSIONS);
	wire_wr_u32(&w, 0); /* size, patched below */
	wire_wr_u32(&w, TPM_CC_PCR_Extend);
	wire_wr_u32(&w, 16);
	wire_wr_u32(&w, 9); /* authorization size */
	wire_wr_u32(&w, TPM_RS_PW);
	wire_wr_u16(&w, 0);
	wire_wr_u8(&w, attrs);
	wire_wr_u16(&w, 0);
	wire_wr_u32(&w, 1);	 /* TPML_DIGEST_VALUES count */
	wire_wr_u16(&w, 0x000B); /* TPM_ALG_SHA256 */
	for (int i = 0; i < 32; i++)
		wire_wr_u8(&w, (uint8_t)i);
	wire_put_u32(b + 2, (uint32_t)w.off);
	return w.off;
}

static void test_good_commands(void)
{
	uint8_t b[256];
	struct tpm_cmd c;
	size_t n = build_pcr_extend(b, sizeof b, TPMA_SESSION_CONTINUESESSION);
	CHECK(cmd_decode(b, n, &c) == 0, "PCR_Extend: %s", tpm_malformed_str(c.malformed));
	CHECK(c.cc == TPM_CC_PCR_Extend, "cc 0x%x", c.cc);
	CHECK(c.n_handles == 1 && c.handles[0] == 16, "handles %u", c.n_handles);
	CHECK(c.pcr == 16, "pcr %d", c.pcr);
	CHECK(c.n_sessions == 1 && c.sess[0].handle == TPM_RS_PW, "sessions %u", c.n_sessions);
	CHECK(c.sess[0].attrs == TPMA_SESSION_CONTINUESESSION, "attrs 0x%x", c.sess[0].attrs);
	CHECK(c.auth_kind == TPM_AUTH_PASSWORD, "auth kind %d", c.auth_kind);
	CHECK(c.param_off == 27 && c.param_size == 4 + 2 + 32, "params at %u size %u", c.param_off,
	      c.param_size);

	/* TPM2_GetRandom(8), no sessions (Part 3 16.1). */
	static const uint8_t gr[] = {0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x7B, 0, 8};
	CHECK(cmd_decode(gr, sizeof gr, &c) == 0, "GetRandom");
	CHECK(c.n_sessions == 0 && c.auth_kind == TPM_AUTH_NONE && c.pcr == -1, "GetRandom fields");
	CHECK(strcmp(c.info->name, "GetRandom") == 0, "name %s", c.info->name);

	/* An HMAC session (0x02...) with decrypt: auth kind hmac+enc. */
	n = build_pcr_extend(b, sizeof b, TPMA_SESSION_DECRYPT);
	wire_put_u32(b + 18, 0x02000000);
	CHECK(cmd_decode(b, n, &c) == 0 && c.auth_kind == TPM_AUTH_HMAC_ENC, "hmac+enc kind %d",
	      c.auth_kind);
}

static void test_bad_commands(void)
{
	uint8_t b[8192];
	struct tpm_cmd c;
	size_t n = build_pcr_extend(b, sizeof b, 0);

	/* Size field larger than the buffer: the message was truncated. */
	CHECK(cmd_decode(b, n - 5, &c) == TPM_MAL_SIZE_OVER, "truncated: %d", c.malformed);
	CHECK(c.cc == TPM_CC_PCR_Extend, "header still read");
	/* Size field smaller than the buffer. */
	uint8_t big[300];
	memcpy(big, b, n);
	memset(big + n, 0xAA, 7);
	CHECK(cmd_decode(big, n + 7, &c) == TPM_MAL_SIZE_UNDER, "trailing bytes: %d", c.malformed);
	/* 9-byte header. */
	CHECK(cmd_decode(b, 9, &c) == TPM_MAL_SHORT_HEADER, "9 bytes: %d", c.malformed);
	CHECK(cmd_decode(b, 0, &c) == TPM_MAL_SHORT_HEADER, "0 bytes: %d", c.malformed);
	/* 4097 bytes with a matching size field. */
	memset(b, 0, sizeof b);
	b[0] = 0x80;
	b[1] = 0x01;
	wire_put_u32(b + 2, 4097);
	wire_put_u32(b + 6, TPM_CC_GetRandom);
	CHECK(cmd_decode(b, 4097, &c) == TPM_MAL_TOO_LARGE, "4097: %d", c.malformed);
	/* Unknown tag. */
	n = build_pcr_extend(b, sizeof b, 0);
	b[0] = 0x12;
	b[1] = 0x34;
	CHECK(cmd_decode(b, n, &c) == TPM_MAL_BAD_TAG, "tag: %d", c.malformed);
	/* Unknown command code. */
	n = build_pcr_extend(b, sizeof b, 0);
	wire_put_u32(b + 6, 0x0000015A);
	CHECK(cmd_decode(b, n, &c) == TPM_MAL_UNKNOWN_CC, "cc: %d", c.malformed);
	/* Authorization size past the end. */
	n = build_pcr_extend(b, sizeof b, 0);
	wire_put_u32(b + 14, 1000);
	CHECK(cmd_decode(b, n, &c) == TPM_MAL_AUTH_SIZE, "auth size: %d", c.malformed);
	/* Authorization size cuts a session in half. */
	n = build_pcr_extend(b, sizeof b, 0);
	wire_put_u32(b + 14, 5);
	CHECK(cmd_decode(b, n, &c) == TPM_MAL_AUTH, "auth short: %d", c.malformed);
	/* Session nonce size past the authorization area. */
	n = build_pcr_extend(b, sizeof b, 0);
	wire_put_u16(b + 22, 200);
	CHECK(cmd_decode(b, n, &c) == TPM_MAL_AUTH, "nonce size: %d", c.malformed);
	/* Handle area past the end: a 10-byte PCR_Extend. */
	uint8_t h[10] = {0x80, 0x02, 0, 0, 0, 10, 0, 0, 0x01, 0x82};
	CHECK(cmd_decode(h, sizeof h, &c) == TPM_MAL_HANDLES, "handles: %d", c.malformed);
	/* Every truncation inside the header, handle or authorization area is
	 * rejected, never overread (parameters are not parsed by the decoder). */
	n = build_pcr_extend(b, sizeof b, 0);
	int all = 1;
	for (size_t k = 0; k < 27; k++) {
		uint8_t t[128];
		memcpy(t, b, n);
		wire_put_u32(t + 2, (uint32_t)k);
		if (cmd_decode(t, k, &c) == 0)
			all = 0;
	}
	CHECK(all, "some truncation decoded as valid");
	for (int k = 0; k < TPM_MAL_COUNT; k++)
		CHECK(tpm_malformed_str(k) != NULL, "reason text %d", k);
}

static void test_responses(void)
{
	struct tpm_rsp r;
	/* CreatePrimary response: handle, parameterSize, params, one session. */
	uint8_t b[64];
	struct wire_wr w;
	wire_wr_init(&w, b, sizeof b);
	wire_wr_u16(&w, TPM_ST_SESSIONS);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, 0x80000001);
	wire_wr_u32(&w, 4);
	wire_wr_u32(&w, 0xdeadbeef);
	wire_wr_u16(&w, 0);
	wire_wr_u8(&w, 1);
	wire_wr_u16(&w, 0);
	wire_put_u32(b + 2, (uint32_t)w.off);
	CHECK(rsp_decode(b, w.off, TPM_CC_CreatePrimary, &r) == 0, "rsp: %d", r.malformed);
	CHECK(r.n_handles == 1 && r.handle == 0x80000001, "rsp handle 0x%x", r.handle);
	CHECK(r.param_size == 4 && r.param_off == 18, "param %u at %u", r.param_size, r.param_off);
	CHECK(r.n_sessions == 1 && r.sess[0].attrs == 1, "rsp sessions %u", r.n_sessions);
	/* parameterSize past the end. */
	wire_put_u32(b + 14, 100);
	CHECK(rsp_decode(b, w.off, TPM_CC_CreatePrimary, &r) == TPM_MAL_PARAM_SIZE, "psize %d",
	      r.malformed);
	/* An error response is the header alone. */
	uint8_t e[10] = {0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x01, 0x01};
	CHECK(rsp_decode(e, 10, TPM_CC_CreatePrimary, &r) == 0 && r.rc == 0x101, "error rsp");
	CHECK(strstr(tpm_rc_str(0x101), "failure") != NULL, "rc text '%s'", tpm_rc_str(0x101));
}

static void test_redaction(void)
{
	uint8_t b[256];
	struct tpm_cmd c;
	size_t n = build_pcr_extend(b, sizeof b, 0);
	/* Give the password session a 4-byte password "pass". */
	uint8_t p[256];
	memcpy(p, b, 25); /* header, handle, auth size, session handle, nonce, attrs */
	wire_put_u32(p + 14, 13);
	wire_put_u16(p + 25, 4);
	memcpy(p + 27, "pass", 4);
	memcpy(p + 31, b + 27, n - 27);
	size_t pn = n + 4;
	wire_put_u32(p + 2, (uint32_t)pn);
	CHECK(cmd_decode(p, pn, &c) == 0 && c.sess[0].hmac_size == 4, "password cmd %d",
	      c.malformed);
	CHECK(redact_command(p, pn, &c) == 1, "password redacted");
	CHECK(memcmp(p + 27, "\0\0\0\0", 4) == 0, "password bytes zeroed");
	CHECK(wire_get_u16(p + 25) == 4, "size kept");
	/* GetRandom response bytes are zeroed, sizes kept. */
	static const uint8_t gr[] = {0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x7B, 0, 4};
	uint8_t rsp[16] = {0x80, 0x01, 0, 0, 0, 16, 0, 0, 0, 0, 0, 4, 1, 2, 3, 4};
	struct tpm_rsp r;
	cmd_decode(gr, sizeof gr, &c);
	CHECK(rsp_decode(rsp, sizeof rsp, TPM_CC_GetRandom, &r) == 0, "getrandom rsp");
	CHECK(redact_response(rsp, sizeof rsp, &c, &r) == 1, "random redacted");
	CHECK(memcmp(rsp + 12, "\0\0\0\0", 4) == 0 && rsp[11] == 4, "random zeroed");
}

int main(void)
{
	test_good_commands();
	test_bad_commands();
	test_responses();
	test_redaction();
	return tl_finish("test_decode");
}
