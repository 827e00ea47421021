/* libFuzzer target: response verification of a replay session
 * (model/tpm/session.c sess_rsp_open): the response HMAC check and the
 * decryption of an encrypted first response parameter, on responses a
 * hostile or broken TPM could send. The target also fixes up the HMAC of
 * every response it can lay out, so that the decryption path behind a valid
 * HMAC is reached too; such a response must then never be refused as a
 * mismatch (-EBADMSG).
 * Input: [0] hash (low 2 bits), encrypt (bit 2), make the size field match
 * the length (bit 3), [1] command index,
 * [2] session key length, [3] authValue length, key, authValue, nonceCaller
 * (16 bytes), then the response. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/wire.h"
#include "model/tpm/pcr_bank.h"
#include "model/tpm/session.h"

static const uint32_t ccs[] = {TPM_CC_PCR_Extend, TPM_CC_Unseal,   TPM_CC_GetRandom,
			       TPM_CC_NV_Read,	  TPM_CC_Create,   TPM_CC_CreatePrimary,
			       TPM_CC_ReadPublic, TPM_CC_Load,	   TPM_CC_StartAuthSession,
			       TPM_CC_Quote,	  TPM_CC_PCR_Read, 0x7fffffff};

/* Writes the correct response HMAC into rsp if its layout can be found;
 * returns 1 if it did. */
static int fix_hmac(struct sess *s, struct sess_crypto *c, uint32_t cc, const uint8_t *auth,
		    size_t alen, uint8_t *rsp, size_t len)
{
	const struct tpm_cc_info *info = tpm_cc_lookup(cc);
	struct wire_rd r;
	uint16_t nsize, hsize;
	uint8_t rph[SESS_MAX_DIGEST], want[SESS_MAX_DIGEST];
	if (!info)
		return 0;
	wire_rd_init(&r, rsp, len);
	wire_skip(&r, 10);
	wire_skip(&r, 4u * info->handles_out);
	uint32_t psize = wire_u32(&r);
	size_t poff = r.off;
	wire_skip(&r, psize);
	const uint8_t *nonce = wire_tpm2b(&r, &nsize);
	uint8_t attrs = wire_u8(&r);
	const uint8_t *hm = wire_tpm2b(&r, &hsize);
	if (r.err || hsize != s->dsize || nsize > SESS_MAX_DIGEST)
		return 0;
	memcpy(s->nonce_tpm, nonce, nsize);
	s->nonce_tpm_len = nsize;
	if (sess_rphash(c, s->hash_alg, 0, cc, rsp + poff, psize, rph) ||
	    sess_rsp_hmac(s, c, rph, attrs, auth, alen, want))
		return 0;
	memcpy(rsp + (hm - rsp), want, hsize);
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sess_crypto c;
	static int ready;
	static uint8_t rsp[8192];
	if (!ready) {
		if (sess_crypto_init(&c))
			abort();
		ready = 1;
	}
	if (size < 4)
		return 0;
	uint16_t hash = pcr_alg_common(data[0] % PCR_COMMON_ALGS)->alg; /* the session hashes */
	uint32_t cc = ccs[data[1] % (sizeof ccs / sizeof ccs[0])];
	size_t klen = data[2] % (SESS_MAX_DIGEST + 1), alen = data[3] % (SESS_MAX_DIGEST + 1);
	if (size < 4 + klen + alen + 16)
		return 0;
	const uint8_t *key = data + 4, *auth = key + klen, *nc = auth + alen;
	const uint8_t *body = nc + 16;
	size_t len = size - (size_t)(body - data);
	if (len > sizeof rsp)
		return 0;

	for (int fixed = 0; fixed < 2; fixed++) {
		struct sess s;
		uint8_t *params;
		size_t plen;
		memset(&s, 0, sizeof s);
		s.handle = 0x02000000;
		s.hash_alg = hash;
		s.dsize = (uint16_t)sess_digest_size(hash);
		s.sym_alg = TPM_ALG_AES;
		s.sym_bits = 128;
		s.attrs = (data[0] & 4) ? TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION
					: TPMA_SESSION_CONTINUESESSION;
		memcpy(s.key, key, klen);
		s.key_len = (uint16_t)klen;
		memcpy(s.nonce_caller, nc, 16);
		s.nonce_caller_len = 16;
		memcpy(rsp, body, len);
		if ((data[0] & 8) && len >= 6)
			wire_put_u32(rsp + 2, (uint32_t)len);
		int wrote = fixed && fix_hmac(&s, &c, cc, auth, alen, rsp, len);
		int rc = sess_rsp_open(&s, &c, cc, auth, alen, rsp, len, &params, &plen);
		if (rc == 0 && (params < rsp || params + plen > rsp + len))
			abort(); /* parameters must lie inside the response */
		if (wrote && rc == -EBADMSG)
			abort(); /* the right HMAC refused: a verification bug */
	}
	return 0;
}
