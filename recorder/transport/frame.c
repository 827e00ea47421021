/* Framing as pure functions (recorder/transport/frame.h): frame_tpm finds the
 * end of one raw TPM 2.0 message from its size field, or says why it cannot be
 * one; frame_detect_mode tells raw framing from the MS simulator's by the first
 * bytes; frame_data cuts a data-port stream into commands in either framing
 * (frame_ms_name names the simulator's codes); frame_platform reads the platform
 * port's u32 requests and frame_ctrl swtpm's control-channel requests. No I/O
 * and no state beyond the arguments, so the framing is unit-tested and fuzzed
 * on its own. */
#include "recorder/transport/frame.h"

#include <stdio.h>

#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "recorder/transport/transport.h"

const char *frame_ms_name(uint32_t c)
{
	switch (c) {
	case MS_SIGNAL_POWER_ON:
		return "POWER_ON";
	case MS_SIGNAL_POWER_OFF:
		return "POWER_OFF";
	case MS_SIGNAL_PHYS_PRES_ON:
		return "PHYS_PRES_ON";
	case MS_SIGNAL_PHYS_PRES_OFF:
		return "PHYS_PRES_OFF";
	case MS_SIGNAL_HASH_START:
		return "HASH_START";
	case MS_SIGNAL_HASH_DATA:
		return "HASH_DATA";
	case MS_SIGNAL_HASH_END:
		return "HASH_END";
	case MS_SEND_COMMAND:
		return "SEND_COMMAND";
	case MS_SIGNAL_CANCEL_ON:
		return "CANCEL_ON";
	case MS_SIGNAL_CANCEL_OFF:
		return "CANCEL_OFF";
	case MS_SIGNAL_NV_ON:
		return "NV_ON";
	case MS_SIGNAL_NV_OFF:
		return "NV_OFF";
	case MS_SIGNAL_KEY_CACHE_ON:
		return "KEY_CACHE_ON";
	case MS_SIGNAL_KEY_CACHE_OFF:
		return "KEY_CACHE_OFF";
	case MS_REMOTE_HANDSHAKE:
		return "REMOTE_HANDSHAKE";
	case MS_SET_ALTERNATIVE_RESULT:
		return "SET_ALTERNATIVE_RESULT";
	case MS_SIGNAL_RESET:
		return "RESET";
	case MS_SIGNAL_RESTART:
		return "RESTART";
	case MS_SESSION_END:
		return "SESSION_END";
	case MS_STOP:
		return "STOP";
	case MS_GET_COMMAND_RESPONSE_SIZES:
		return "GET_COMMAND_RESPONSE_SIZES";
	case MS_TEST_FAILURE_MODE:
		return "TEST_FAILURE_MODE";
	}
	return NULL;
}

enum frame_mode frame_detect_mode(const uint8_t *in, size_t len, int either_side)
{
	size_t zeros = either_side ? 2 : 3;
	if (len < zeros)
		return FRAME_MODE_UNKNOWN;
	for (size_t i = 0; i < zeros; i++)
		if (in[i])
			return FRAME_MODE_RAW;
	return FRAME_MODE_MSSIM;
}

int frame_tpm(const uint8_t *in, size_t len, size_t max, uint32_t *size, int *reason)
{
	*size = 0;
	/* If no more bytes come: what arrived is cut off. */
	*reason = len < TPM_HEADER_SIZE ? TPM_MAL_SHORT_HEADER : TPM_MAL_SIZE_OVER;
	if (len < 6)
		return FRAME_TPM_MORE;
	*size = wire_get_u32(in + 2);
	if (*size < TPM_HEADER_SIZE) {
		*reason = TPM_MAL_SIZE_BELOW_HEADER;
		return FRAME_TPM_BAD;
	}
	if (*size > max) {
		*reason = TPM_MAL_TOO_LARGE;
		return FRAME_TPM_BAD;
	}
	if (len < *size)
		return FRAME_TPM_MORE;
	*reason = 0;
	return FRAME_TPM_WHOLE;
}

static void set(struct frame *f, enum frame_what what, size_t off, size_t len, size_t consume,
		uint8_t loc, int reason)
{
	*f = (struct frame){what, off, len, consume, loc, reason, 0, 0};
}

/* Not enough bytes yet: wait, or close quietly if the client is gone. */
static void more(struct frame *f, int eof)
{
	set(f, eof ? FRAME_CLOSE : FRAME_MORE, 0, 0, 0, 0, 0);
}

/* A command refused before the TPM: what arrived of it (at most a message's
 * worth) is recorded, the client gets TPM_RC_COMMAND_SIZE, as a TPM answers
 * a commandSize that does not fit (Part 1 18.2, Part 2 6.6.3). */
static void refuse(struct frame *f, size_t off, size_t have, size_t consume, uint8_t loc,
		   int reason, uint32_t declared)
{
	set(f, FRAME_REFUSE, off, have < FRAME_MAX_MESSAGE ? have : FRAME_MAX_MESSAGE, consume, loc,
	    reason);
	f->rc = TPM_RC_COMMAND_SIZE;
	f->declared = declared;
}

void frame_data(enum frame_mode *mode, const uint8_t *in, size_t in_len, int eof,
		uint8_t raw_locality, struct frame *f)
{
	uint32_t size;
	int reason, r;

	if (in_len == 0)
		return more(f, eof);
	if (*mode == FRAME_MODE_UNKNOWN) {
		/* MS-simulator framing starts with a small big-endian u32 code
		 * (8 = TPM_SEND_COMMAND); anything else is taken as a raw
		 * command, as swtpm itself decides. */
		*mode = frame_detect_mode(in, in_len, 0);
		if (*mode == FRAME_MODE_UNKNOWN)
			return more(f, eof);
	}
	if (*mode == FRAME_MODE_RAW) {
		r = frame_tpm(in, in_len, FRAME_MAX_MESSAGE, &size, &reason);
		if (r == FRAME_TPM_BAD)
			/* The stream cannot be framed past this size field. */
			return refuse(f, 0, in_len, 0, raw_locality, reason, size);
		if (r == FRAME_TPM_MORE) {
			if (!eof)
				return more(f, 0);
			/* The client left in the middle of a command. */
			set(f, FRAME_MALFORMED, 0, in_len, 0, raw_locality, reason);
			f->declared = size;
			return;
		}
		/* Exactly the declared bytes; the rest is the client's next
		 * command (never appended to this one). */
		return set(f, FRAME_COMMAND, 0, size, size, raw_locality, 0);
	}
	/* MS simulator framing on the command port. */
	if (in_len < 4)
		return more(f, eof);
	uint32_t code = wire_get_u32(in);
	if (code == MS_SEND_COMMAND) {
		/* u32 code | u8 locality | u32 size | command */
		if (in_len < 9)
			return more(f, eof);
		uint8_t loc = in[4];
		size = wire_get_u32(in + 5);
		if (size < TPM_HEADER_SIZE || size > FRAME_MAX_MESSAGE)
			return refuse(f, 9, in_len - 9, 0, loc,
				      size < TPM_HEADER_SIZE ? TPM_MAL_SIZE_BELOW_HEADER
							     : TPM_MAL_TOO_LARGE,
				      size);
		if (in_len < 9 + (size_t)size) {
			if (eof) {
				set(f, FRAME_MALFORMED, 9, in_len - 9, 0, loc, TPM_MAL_SIZE_OVER);
				f->declared = size;
				return;
			}
			return more(f, 0);
		}
		/* The frame and the command inside it must agree on the size:
		 * otherwise the TPM would see one length and the record another.
		 * The simulator framing stays intact, so the connection does. */
		uint32_t inner;
		r = frame_tpm(in + 9, size, FRAME_MAX_MESSAGE, &inner, &reason);
		if (r != FRAME_TPM_WHOLE || inner != size)
			return refuse(f, 9, size, 9 + (size_t)size, loc,
				      r == FRAME_TPM_BAD ? reason
				      : inner > size	 ? TPM_MAL_SIZE_OVER
							 : TPM_MAL_SIZE_UNDER,
				      inner);
		return set(f, FRAME_COMMAND, 9, size, 9 + (size_t)size, loc, 0);
	}
	if (code == MS_REMOTE_HANDSHAKE) {
		/* client version in; server version and capability flags out. */
		if (in_len < 8)
			return more(f, eof);
		return set(f, FRAME_HANDSHAKE, 0, 0, 8, 0, 0);
	}
	if (code == MS_SESSION_END)
		return set(f, FRAME_SESSION_END, 0, 0, 0, 0, 0);
	set(f, FRAME_MALFORMED, 0, in_len < FRAME_MAX_MESSAGE ? in_len : FRAME_MAX_MESSAGE, 0,
	    raw_locality, TPM_MAL_BAD_TAG);
}

int frame_platform(const uint8_t *in, size_t in_len, size_t *used)
{
	if (in_len < 4)
		return 0;
	switch (wire_get_u32(in)) {
	case MS_SIGNAL_HASH_DATA: {
		/* u32 code | u32 n | n bytes; n at most the control channel's
		 * HASH_DATA buffer. */
		if (in_len < 8)
			return 0;
		uint32_t n = wire_get_u32(in + 4);
		if (n > 4096)
			return -1;
		if (in_len < 8 + (size_t)n)
			return 0;
		*used = 8 + (size_t)n;
		return 1;
	}
	case MS_SET_ALTERNATIVE_RESULT:
	case MS_TEST_FAILURE_MODE:
		if (in_len < 8)
			return 0;
		*used = 8;
		return 1;
	}
	*used = 4;
	return 1;
}

int frame_ctrl(const uint8_t *in, size_t in_len, uint32_t *code, char *detail, size_t dlen)
{
	if (dlen)
		detail[0] = 0;
	if (in_len < 4)
		return -1;
	*code = wire_get_u32(in);
	if (*code == SWTPM_CMD_SET_LOCALITY && in_len >= 5)
		snprintf(detail, dlen, "%u", in[4]);
	else if (*code == SWTPM_CMD_INIT && in_len >= 8)
		snprintf(detail, dlen, "flags=0x%x", wire_get_u32(in + 4));
	return 0;
}

int frame_ctrl_client_may(uint32_t code)
{
	switch (code) {
	case SWTPM_CMD_GET_CAPABILITY:
	case SWTPM_CMD_INIT:
	case SWTPM_CMD_GET_TPMESTABLISHED:
	case SWTPM_CMD_SET_LOCALITY:
	case SWTPM_CMD_HASH_START:
	case SWTPM_CMD_HASH_DATA:
	case SWTPM_CMD_HASH_END:
	case SWTPM_CMD_CANCEL_TPM_CMD:
		return 1;
	}
	return 0;
}

size_t frame_ctrl_rsp_size(uint32_t code, const uint8_t *rsp, size_t have)
{
	switch (code) {
	case SWTPM_CMD_GET_CAPABILITY:
	case SWTPM_CMD_GET_TPMESTABLISHED:
	case SWTPM_CMD_GET_CONFIG:
		return 8;
	case SWTPM_CMD_SET_BUFFERSIZE:
		return 16;
	case SWTPM_CMD_GET_STATEBLOB:
		/* result, flags, totlength, length, then length bytes */
		if (have >= 16 && wire_get_u32(rsp) == 0)
			return 16 + (size_t)wire_get_u32(rsp + 12);
		return have >= 16 ? 16 : 4;
	case SWTPM_CMD_GET_INFO:
		/* result, totlength, length, then length bytes */
		if (have >= 12 && wire_get_u32(rsp) == 0)
			return 12 + (size_t)wire_get_u32(rsp + 8);
		return 4;
	default:
		return 4;
	}
}
