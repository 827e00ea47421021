/* show -V's explainer (model/tpm/params.c) on arbitrary bytes. Input: one
 * flag byte (bit 0 redacted, bit 1 fix the size field), a 2-byte command
 * length, the command, then the response. Every field is formatted into a
 * small buffer (cut text must stay in bounds); a field's bytes must lie
 * inside the message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/tpm/params.h"

struct span {
	const uint8_t *p;
	size_t n;
};

static void check(void *ctx, const struct tpm_field *f)
{
	const struct span *s = ctx;
	char line[40];
	tpm_field_format(f, line, sizeof line);
	if (f->kind == TPM_F_BYTES && f->n_bytes &&
	    (f->bytes < s->p || f->bytes + f->n_bytes > s->p + s->n))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3 || size > 65536)
		return 0;
	int redacted = data[0] & 1;
	size_t clen = (size_t)data[1] << 8 | data[2];
	if (clen > size - 3)
		clen = size - 3;
	uint8_t *cmd = malloc(clen ? clen : 1), *rsp = malloc(size - 3 - clen + 1);
	size_t rlen = size - 3 - clen;
	memcpy(cmd, data + 3, clen);
	memcpy(rsp, data + 3 + clen, rlen);
	if ((data[0] & 2) && clen >= 6)
		wire_put_u32(cmd + 2, (uint32_t)clen);
	if ((data[0] & 2) && rlen >= 6)
		wire_put_u32(rsp + 2, (uint32_t)rlen);
	struct span sc = {cmd, clen}, sr = {rsp, rlen};
	tpm_explain_cmd(cmd, clen, redacted, check, &sc);
	tpm_explain_rsp(rsp, rlen, cmd, clen, redacted, check, &sr);
	tpm_explain_rsp(rsp, rlen, NULL, 0, redacted, check, &sr);
	free(cmd);
	free(rsp);
	return 0;
}
