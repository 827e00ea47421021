/* The framing rule every recorder shares (recorder/transport/frame.h): a command
 * is exactly the bytes its size field declares, never more and never fewer;
 * what follows is the next command, in order; a size field that cannot be a
 * command's is refused (TPM_RC_COMMAND_SIZE) with its header and declared
 * size kept for the record. Checked through frame_tpm and through the socket
 * proxy's frame_data in raw and MS-simulator framing. */
#include <string.h>

#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "recorder/transport/frame.h"
#include "recorder/transport/transport.h"
#include "testlib.h"

/* A GetRandom(n) command (12 bytes) at b. */
static size_t getrandom(uint8_t *b, uint16_t n)
{
	wire_put_u16(b, TPM_ST_NO_SESSIONS);
	wire_put_u32(b + 2, 12);
	wire_put_u32(b + 6, TPM_CC_GetRandom);
	wire_put_u16(b + 10, n);
	return 12;
}

static void test_frame_tpm(void)
{
	uint8_t b[64];
	uint32_t size;
	int reason;
	size_t n = getrandom(b, 8);
	for (size_t k = 0; k < 12; k++)
		CHECK(frame_tpm(b, k, 4096, &size, &reason) == FRAME_TPM_MORE &&
			  reason ==
			      (k < TPM_HEADER_SIZE ? TPM_MAL_SHORT_HEADER : TPM_MAL_SIZE_OVER),
		      "%zu bytes: more (cut off there: reason %d)", k, reason);
	CHECK(frame_tpm(b, n, 4096, &size, &reason) == FRAME_TPM_WHOLE && size == 12, "whole");
	/* Trailing bytes belong to the next message. */
	getrandom(b + n, 16);
	CHECK(frame_tpm(b, 2 * n, 4096, &size, &reason) == FRAME_TPM_WHOLE && size == 12,
	      "two messages: the first is 12 bytes, not %u", size);
	for (uint32_t s = 0; s < TPM_HEADER_SIZE; s++) {
		wire_put_u32(b + 2, s);
		CHECK(frame_tpm(b, 6, 4096, &size, &reason) == FRAME_TPM_BAD &&
			  reason == TPM_MAL_SIZE_BELOW_HEADER && size == s,
		      "size field %u: refused at once", s);
	}
	wire_put_u32(b + 2, 4097);
	CHECK(frame_tpm(b, 6, 4096, &size, &reason) == FRAME_TPM_BAD &&
		  reason == TPM_MAL_TOO_LARGE && size == 4097,
	      "4097 bytes: refused without waiting for them");
	wire_put_u32(b + 2, 0xFFFFFFFFu);
	CHECK(frame_tpm(b, 6, 4096, &size, &reason) == FRAME_TPM_BAD && size == 0xFFFFFFFFu,
	      "4 GiB: refused");
	wire_put_u32(b + 2, 4096);
	CHECK(frame_tpm(b, 64, 4096, &size, &reason) == FRAME_TPM_MORE && size == 4096,
	      "the maximum itself is waited for");
}

/* Runs frame_data over in[0..len) as the proxy does, taking messages off
 * until it wants more; fills what[] and size[] with what each message was. */
static unsigned frames(enum frame_mode *mode, uint8_t *in, size_t len, int eof, struct frame *out,
		       unsigned max)
{
	unsigned k = 0;
	while (k < max) {
		struct frame f;
		frame_data(mode, in, len, eof, 0, &f);
		out[k++] = f;
		if (f.what == FRAME_MORE || f.what == FRAME_CLOSE || f.what == FRAME_MALFORMED ||
		    f.what == FRAME_SESSION_END || (f.what == FRAME_REFUSE && !f.consume))
			break;
		memmove(in, in + f.consume, len - f.consume);
		len -= f.consume;
	}
	return k;
}

static void test_raw(void)
{
	uint8_t in[8192];
	struct frame f[8];
	enum frame_mode mode = FRAME_MODE_UNKNOWN;
	/* Two commands in one write: two messages, in order, each exactly. */
	size_t n = getrandom(in, 8);
	n += getrandom(in + n, 16);
	unsigned k = frames(&mode, in, n, 0, f, 8);
	CHECK(k == 3 && f[0].what == FRAME_COMMAND && f[0].len == 12 &&
		  f[1].what == FRAME_COMMAND && f[1].len == 12 && f[2].what == FRAME_MORE,
	      "two commands in one write: %u frames", k);
	/* A command, then the first half of the next: one message, the rest kept. */
	mode = FRAME_MODE_UNKNOWN;
	n = getrandom(in, 8);
	n += getrandom(in + n, 16) - 5;
	k = frames(&mode, in, n, 0, f, 8);
	CHECK(k == 2 && f[0].what == FRAME_COMMAND && f[0].len == 12 && f[1].what == FRAME_MORE,
	      "a command and part of the next");
	/* Smuggling: a size field beyond the maximum, a valid command behind it
	 * in the same write. Refused (TPM_RC_COMMAND_SIZE), the connection
	 * closed: nothing after it is ever framed as a command. */
	mode = FRAME_MODE_UNKNOWN;
	memset(in, 0, sizeof in);
	wire_put_u16(in, TPM_ST_NO_SESSIONS);
	wire_put_u32(in + 2, 4105);
	wire_put_u32(in + 6, TPM_CC_Hash);
	n = 4105 - 12;
	n += getrandom(in + n, 8);
	k = frames(&mode, in, n, 0, f, 8);
	CHECK(k == 1 && f[0].what == FRAME_REFUSE && f[0].consume == 0 &&
		  f[0].rc == TPM_RC_COMMAND_SIZE && f[0].reason == TPM_MAL_TOO_LARGE &&
		  f[0].declared == 4105 && f[0].off == 0 && f[0].len <= FRAME_MAX_MESSAGE,
	      "over the maximum with a command behind it: refused, closed");
	/* A command cut short by the client leaving: recorded, with its size. */
	mode = FRAME_MODE_UNKNOWN;
	n = getrandom(in, 8) - 1;
	k = frames(&mode, in, n, 1, f, 8);
	CHECK(k == 1 && f[0].what == FRAME_MALFORMED && f[0].reason == TPM_MAL_SIZE_OVER &&
		  f[0].declared == 12 && f[0].len == 11,
	      "truncated at EOF");
}

static size_t ms_send(uint8_t *b, uint8_t loc, uint32_t size)
{
	wire_put_u32(b, MS_SEND_COMMAND);
	b[4] = loc;
	wire_put_u32(b + 5, size);
	return 9;
}

static void test_mssim(void)
{
	uint8_t in[8192];
	struct frame f[8];
	enum frame_mode mode = FRAME_MODE_UNKNOWN;
	size_t n = ms_send(in, 3, 12);
	n += getrandom(in + n, 8);
	n += ms_send(in + n, 0, 12);
	n += getrandom(in + n, 16);
	unsigned k = frames(&mode, in, n, 0, f, 8);
	CHECK(mode == FRAME_MODE_MSSIM && k == 3 && f[0].what == FRAME_COMMAND && f[0].off == 9 &&
		  f[0].len == 12 && f[0].locality == 3 && f[1].what == FRAME_COMMAND &&
		  f[1].len == 12 && f[2].what == FRAME_MORE,
	      "two simulator commands in one write");
	/* The frame says 24 bytes, the command inside says 12 and a second
	 * command follows inside the frame: refused, the frame consumed, the
	 * next frame framed as usual. */
	mode = FRAME_MODE_UNKNOWN;
	n = ms_send(in, 0, 24);
	n += getrandom(in + n, 8);
	n += getrandom(in + n, 16);
	n += ms_send(in + n, 0, 12);
	n += getrandom(in + n, 4);
	k = frames(&mode, in, n, 0, f, 8);
	CHECK(k == 3 && f[0].what == FRAME_REFUSE && f[0].consume == 33 &&
		  f[0].reason == TPM_MAL_SIZE_UNDER && f[0].declared == 12 &&
		  f[1].what == FRAME_COMMAND && f[1].len == 12 && f[2].what == FRAME_MORE,
	      "frame and command disagree: refused, framing goes on");
	/* A frame beyond the maximum: refused, closed. */
	mode = FRAME_MODE_UNKNOWN;
	n = ms_send(in, 0, 5000);
	n += getrandom(in + n, 8);
	k = frames(&mode, in, n, 0, f, 8);
	CHECK(k == 1 && f[0].what == FRAME_REFUSE && !f[0].consume &&
		  f[0].reason == TPM_MAL_TOO_LARGE && f[0].declared == 5000,
	      "simulator frame over the maximum");
}

/* The one detection rule (frame_detect_mode): a command stream is the
 * simulator's on three zero bytes (a code below 256), the first bytes of
 * either side on two (a response's size field below 64 KiB). */
static void test_detect(void)
{
	uint8_t b[12];
	getrandom(b, 8);
	CHECK(frame_detect_mode(b, 12, 0) == FRAME_MODE_RAW &&
		  frame_detect_mode(b, 12, 1) == FRAME_MODE_RAW,
	      "a raw command (tag 0x8001) is raw on either rule");
	wire_put_u32(b, MS_SEND_COMMAND);
	CHECK(frame_detect_mode(b, 4, 0) == FRAME_MODE_MSSIM &&
		  frame_detect_mode(b, 4, 1) == FRAME_MODE_MSSIM,
	      "SEND_COMMAND is the simulator's on either rule");
	wire_put_u32(b, 300); /* a simulator response of 300 bytes */
	CHECK(frame_detect_mode(b, 4, 1) == FRAME_MODE_MSSIM,
	      "a response size of 300 is the simulator's seen from either side");
	CHECK(frame_detect_mode(b, 4, 0) == FRAME_MODE_RAW,
	      "... but no command code: raw on a command stream");
	CHECK(frame_detect_mode(b, 2, 0) == FRAME_MODE_UNKNOWN &&
		  frame_detect_mode(b, 1, 1) == FRAME_MODE_UNKNOWN,
	      "too few bytes: undecided");
	CHECK(!strcmp(frame_ms_name(MS_SEND_COMMAND), "SEND_COMMAND") && !frame_ms_name(19) &&
		  !strcmp(frame_ms_name(MS_SIGNAL_POWER_ON), "POWER_ON"),
	      "one table of the simulator's code names");
}

int main(void)
{
	test_detect();
	test_frame_tpm();
	test_raw();
	test_mssim();
	return tl_finish("test_frame");
}
