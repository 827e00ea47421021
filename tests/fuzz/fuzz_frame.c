/* libFuzzer target: the socket proxy's framing (recorder/transport/frame.c) as the
 * proxy drives it: bytes arrive in pieces (sizes from the input) into the
 * connection's bounded buffer, messages are taken off as they complete, and
 * the stream ends with EOF. Checked beyond memory safety: every message lies
 * inside the buffer, a command is at least a header and at most
 * FRAME_MAX_MESSAGE and exactly as long as its size field says (never a byte
 * of the next one), every handled message makes progress (no endless loop),
 * and a malformed or refused record never reaches past what arrived. The same bytes also go through
 * the platform-port and control-channel framing. Input: [0] piece size seed, [1] raw-client
 * locality, then the stream. */
#include <stdlib.h>
#include <string.h>

#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "recorder/transport/frame.h"

#define IN_CAP (TPM_MAX_MESSAGE + 64) /* as recorder/proxy.c */

static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t in[IN_CAP];
	if (size < 2)
		return 0;
	size_t piece = 1 + data[0] * 17u;
	uint8_t loc = data[1];
	const uint8_t *s = data + 2;
	size_t left = size - 2, in_len = 0;
	enum frame_mode mode = FRAME_MODE_UNKNOWN;
	int closed = 0;

	while (!closed) {
		int eof = left == 0;
		size_t n = piece < left ? piece : left;
		if (n > IN_CAP - in_len)
			n = IN_CAP - in_len;
		if (in_len == IN_CAP)
			break; /* the proxy closes a connection whose buffer is full */
		memcpy(in + in_len, s, n);
		in_len += n;
		s += n;
		left -= n;
		for (int guard = 0;; guard++) {
			struct frame f;
			check(guard <= IN_CAP);
			frame_data(&mode, in, in_len, eof, loc, &f);
			if (f.what == FRAME_MORE) {
				check(!eof);
				break;
			}
			if (f.what == FRAME_CLOSE || f.what == FRAME_SESSION_END) {
				closed = 1;
				break;
			}
			if (f.what == FRAME_MALFORMED) {
				check(f.off + f.len <= in_len);
				closed = 1;
				break;
			}
			if (f.what == FRAME_REFUSE) {
				check(f.off + f.len <= in_len && f.len <= FRAME_MAX_MESSAGE);
				check(f.rc != 0 && f.reason != 0);
				if (!f.consume) {
					closed = 1;
					break;
				}
			}
			check(f.what == FRAME_COMMAND || f.what == FRAME_HANDSHAKE ||
			      f.what == FRAME_REFUSE);
			check(f.consume > 0 && f.consume <= in_len);
			if (f.what == FRAME_COMMAND) {
				check(f.len >= TPM_HEADER_SIZE && f.len <= FRAME_MAX_MESSAGE);
				check(f.off + f.len <= in_len && f.off + f.len == f.consume);
				check(wire_get_u32(in + f.off + 2) == f.len);
				struct tpm_cmd c;
				tpm_cmd_decode(in + f.off, f.len, &c);
			}
			memmove(in, in + f.consume, in_len - f.consume);
			in_len -= f.consume;
		}
		if (eof)
			break;
	}

	/* Platform port: messages taken off one by one. */
	const uint8_t *p = data + 2;
	size_t plen = size - 2, used;
	int r;
	while ((r = frame_platform(p, plen, &used)) == 1) {
		check(used >= 4 && used <= plen);
		p += used;
		plen -= used;
	}
	/* Control channel: one read is one request. */
	uint32_t code;
	char detail[64];
	if (frame_ctrl(data + 2, size - 2 > 4200 ? 4200 : size - 2, &code, detail, sizeof detail) ==
	    0)
		check(strlen(detail) < sizeof detail);
	return 0;
}
