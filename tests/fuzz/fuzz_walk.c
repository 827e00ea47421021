/* The layout walker (model/tpm/walk.c) on arbitrary bytes. Input: one flag
 * byte (bit 0 deep, bit 1 fix the size fields), a 2-byte command length,
 * the command, then the response. Every field the walker yields must lie
 * inside the message, the parameters must follow each other, deep or not,
 * and redaction must change only bytes of the secret fields the walker
 * yields (beyond the sessions' authorization values); a command whose
 * parameters the walker does not accept is kept as its header only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/tpm/redact.h"
#include "model/tpm/walk.h"

struct span {
	size_t n, next;
	uint8_t secret[4096];
};

static int check(void *ctx, const struct tpm_walk_field *f)
{
	struct span *s = ctx;
	if (f->off > s->n || f->data_off > s->n || f->data_off + f->data_len > s->n)
		abort();
	if (f->event == TPM_WE_ERROR)
		return 0;
	if (f->event != TPM_WE_ENTER && f->off + f->len > s->n)
		abort();
	if (f->area == TPM_WA_PARAM && !f->depth && f->event != TPM_WE_ENTER) {
		if (s->next && f->off != s->next)
			abort(); /* parameters follow each other */
		s->next = f->off + f->len;
		if (f->secret && f->data_off + f->data_len <= sizeof s->secret)
			memset(s->secret + f->data_off, 1, f->data_len);
	}
	return 0;
}

static void only_secrets(const uint8_t *orig, const uint8_t *red, size_t n, const struct span *s,
			 const struct tpm_session *sess, unsigned n_sess)
{
	for (size_t i = 0; i < n && i < sizeof s->secret; i++) {
		if (orig[i] == red[i] || s->secret[i])
			continue;
		int in_auth = 0;
		for (unsigned k = 0; k < n_sess; k++)
			if (i >= sess[k].hmac_off &&
			    i < (size_t)sess[k].hmac_off + sess[k].hmac_size)
				in_auth = 1;
		if (!in_auth)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3 || size > 8192)
		return 0;
	int flags = data[0] & 1 ? TPM_WALK_DEEP : 0;
	size_t clen = (size_t)data[1] << 8 | data[2];
	if (clen > size - 3)
		clen = size - 3;
	size_t rlen = size - 3 - clen;
	uint8_t *cmd = malloc(clen + 1), *rsp = malloc(rlen + 1), *red = malloc(clen + rlen + 1);
	memcpy(cmd, data + 3, clen);
	memcpy(rsp, data + 3 + clen, rlen);
	if ((data[0] & 2) && clen >= 6)
		wire_put_u32(cmd + 2, (uint32_t)clen);
	if ((data[0] & 2) && rlen >= 6)
		wire_put_u32(rsp + 2, (uint32_t)rlen);
	struct tpm_cmd c;
	struct tpm_rsp r;
	tpm_cmd_decode(cmd, clen, &c);
	tpm_rsp_decode(rsp, rlen, c.malformed ? 0 : c.cc, &r);
	static struct span sc, sr;
	memset(&sc, 0, sizeof sc);
	memset(&sr, 0, sizeof sr);
	sc.n = clen;
	sr.n = rlen;
	int walked = tpm_walk_cmd(cmd, clen, &c, flags, check, &sc);
	tpm_walk_rsp(rsp, rlen, &c, &r, flags, check, &sr);
	if (!flags && !c.malformed) {
		memcpy(red, cmd, clen);
		redact_command(red, clen, &c);
		if (walked == -1) { /* not accepted: the header only (redact.c) */
			for (size_t i = TPM_HEADER_SIZE; i < clen; i++)
				if (red[i])
					abort();
		} else {
			only_secrets(cmd, red, clen, &sc, c.sess, c.n_sessions);
		}
		if (!r.malformed && !r.rc && c.info) {
			memcpy(red, rsp, rlen);
			redact_response(red, rlen, &c, &r);
			only_secrets(rsp, red, rlen, &sr, NULL, 0);
		}
	}
	free(cmd);
	free(rsp);
	free(red);
	return 0;
}
