/* libFuzzer target: the command/response decoder and the redaction that runs
 * on every recorded message (model/tpm/decode.c, model/tpm/redact.c).
 * Input: 1 byte of flags (bit 0: make the size field match the length, so
 * that the fuzzer reaches past the header at once), 4 bytes of command code
 * for the response, then a command; the same bytes are also decoded as a
 * response. Properties checked beyond
 * memory safety: redaction never changes a message's size or structure (a
 * command or response that parsed parses again to the same layout), and only
 * zeroes; a command whose parameters the layout walker does not accept is
 * kept as its header only. */
#include <stdlib.h>
#include <string.h>

#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "model/tpm/redact.h"
#include "model/tpm/walk.h"

static int any_field(void *ctx, const struct tpm_walk_field *f)
{
	(void)ctx;
	(void)f;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[65536 + 8], in[65536 + 8];
	struct tpm_cmd c, c2;
	struct tpm_rsp r;
	if (size < 5 || size > 65536)
		return 0;
	uint32_t rsp_cc = wire_get_u32(data + 1);
	size_t len = size - 5;
	memcpy(in, data + 5, len);
	if ((data[0] & 1) && len >= 6)
		wire_put_u32(in + 2, (uint32_t)len);
	const uint8_t *msg = in;

	tpm_cmd_decode(msg, len, &c);
	memcpy(buf, msg, len);
	redact_command(buf, len, &c);
	for (size_t i = 0; i < len; i++)
		if (buf[i] != msg[i] && buf[i] != 0)
			abort(); /* redaction may only zero bytes */
	if (!c.malformed && tpm_walk_cmd(msg, len, &c, 0, any_field, NULL) == -1) {
		for (size_t i = TPM_HEADER_SIZE; i < len; i++)
			if (buf[i])
				abort(); /* not accepted by its layout: the header only */
	} else if (!c.malformed) {
		tpm_cmd_decode(buf, len, &c2);
		if (c2.malformed || c2.cc != c.cc || c2.param_off != c.param_off ||
		    c2.n_sessions != c.n_sessions || c2.param_size != c.param_size)
			abort(); /* redacted fields keep their sizes */
	}

	/* The same bytes as the response to the command, and to rsp_cc. */
	uint32_t ccs[2] = {c.malformed ? 0 : c.cc, rsp_cc};
	for (int k = 0; k < 2; k++) {
		tpm_rsp_decode(msg, len, ccs[k], &r);
		memcpy(buf, msg, len);
		redact_response(buf, len, &c, &r);
		for (size_t i = 0; i < len; i++)
			if (buf[i] != msg[i] && buf[i] != 0)
				abort();
		if (!r.malformed && c.malformed == TPM_MAL_NONE && c.info) {
			/* The response table's layouts (tpm_cc.def) zero bytes
			 * inside fields, never a size: the layout holds. (The
			 * answer to a malformed or unknown command is zeroed
			 * whole after its header: nothing is known of it.) */
			struct tpm_rsp r2;
			tpm_rsp_decode(buf, len, ccs[k], &r2);
			if (r2.malformed || r2.param_off != r.param_off ||
			    r2.param_size != r.param_size || r2.n_sessions != r.n_sessions)
				abort();
		}
	}
	(void)tpm_malformed_str(c.malformed);
	(void)tpm_rc_str(r.rc);
	return 0;
}
