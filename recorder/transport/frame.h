/* Framing of what the socket proxy's clients send, as pure functions (no I/O,
 * no state beyond what is passed in) so that it can be tested and fuzzed on
 * its own: the data port (raw TPM commands as swtpm reads them, or the MS
 * simulator's TpmTcpProtocol framing, told apart by the first bytes), the MS
 * simulator platform port, and swtpm's control channel. */
#ifndef TPMTRACE_PROXY_FRAME_H
#define TPMTRACE_PROXY_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "model/tpm/decode.h"

/* MS simulator codes (ms-tpm-20-ref TpmTcpProtocol.h). */
enum {
	MS_SIGNAL_POWER_ON = 1,
	MS_SIGNAL_POWER_OFF = 2,
	MS_SIGNAL_PHYS_PRES_ON = 3,
	MS_SIGNAL_PHYS_PRES_OFF = 4,
	MS_SIGNAL_HASH_START = 5,
	MS_SIGNAL_HASH_DATA = 6,
	MS_SIGNAL_HASH_END = 7,
	MS_SEND_COMMAND = 8,
	MS_SIGNAL_CANCEL_ON = 9,
	MS_SIGNAL_CANCEL_OFF = 10,
	MS_SIGNAL_NV_ON = 11,
	MS_SIGNAL_NV_OFF = 12,
	MS_SIGNAL_KEY_CACHE_ON = 13,
	MS_SIGNAL_KEY_CACHE_OFF = 14,
	MS_REMOTE_HANDSHAKE = 15,
	MS_SET_ALTERNATIVE_RESULT = 16,
	MS_SIGNAL_RESET = 17,
	MS_SIGNAL_RESTART = 18,
	MS_SESSION_END = 20,
	MS_STOP = 21,
	MS_GET_COMMAND_RESPONSE_SIZES = 25,
	MS_TEST_FAILURE_MODE = 30,
};

/* The name of a simulator code ("POWER_ON", "SEND_COMMAND"), or NULL for a
 * code TpmTcpProtocol.h does not define. */
const char *frame_ms_name(uint32_t code);

/* The largest TPM message the recorders pass on in either direction: the
 * kernel's TPM_BUFSIZE (drivers/char/tpm/tpm.h), which is also what the
 * proxy announces as the simulator's GET_COMMAND_RESPONSE_SIZES and what a
 * TPM 2.0 of the PC Client profile accepts (TPM_PT_MAX_COMMAND_SIZE 4096). A
 * command declaring more is refused without reaching the TPM. */
#define FRAME_MAX_MESSAGE TPM_MAX_MESSAGE

enum { FRAME_TPM_BAD = -1, FRAME_TPM_MORE = 0, FRAME_TPM_WHOLE = 1 };

/* The one rule by which every recorder takes TPM messages off a stream (the
 * socket proxy in raw and MS-simulator framing, the CUSE proxy, the QEMU
 * interposer, and the responses of a backend): a message is exactly as long
 * as the size field of its header says (TPM 2.0 Part 1 18.2, commandSize /
 * responseSize), at least the 10-byte header and at most max bytes. Given
 * in[0..len), the start of a message:
 *   FRAME_TPM_WHOLE  *size is its length and all of it is there (*reason 0);
 *                    the bytes after it are the next message's;
 *   FRAME_TPM_MORE   more bytes are needed (*size is the size field once the
 *                    first 6 bytes are there, else 0; *reason is what the
 *                    bytes are if the stream ends here: TPM_MAL_SHORT_HEADER
 *                    below the 10-byte header, else TPM_MAL_SIZE_OVER);
 *   FRAME_TPM_BAD    the size field cannot be a message's (*reason is
 *                    TPM_MAL_SIZE_BELOW_HEADER or TPM_MAL_TOO_LARGE, *size the
 *                    field): nothing after it can be framed. */
int frame_tpm(const uint8_t *in, size_t len, size_t max, uint32_t *size, int *reason);

enum frame_mode { FRAME_MODE_UNKNOWN = 0, FRAME_MODE_RAW, FRAME_MODE_MSSIM };

/* A connection's framing from its first bytes in[0..len): MS-simulator framing
 * starts with a big-endian u32 that is small, raw TPM messages with a TPM tag
 * (0x80xx, or 0x00C1..0x00C6 of TPM 1.2): FRAME_MODE_MSSIM when the leading
 * bytes are zero, FRAME_MODE_RAW otherwise (garbage included: the size field
 * frames it and reports it malformed), FRAME_MODE_UNKNOWN while too few bytes
 * are there. The one rule for the socket proxy and the capture importer; the
 * number of zero bytes differs with what the first bytes can be:
 *   either_side 0: a client's command stream (the proxy decides on it alone):
 *     the u32 is a command code, every one below 256, so three zero bytes;
 *   either_side 1: the first bytes seen of either direction (a capture may
 *     show the TPM's side first): the u32 may be a response's size, up to 64
 *     KiB, so only its two high bytes are surely zero. */
enum frame_mode frame_detect_mode(const uint8_t *in, size_t len, int either_side);

enum frame_what {
	FRAME_MORE = 1,	   /* wait for more bytes */
	FRAME_CLOSE,	   /* close the connection, nothing to record */
	FRAME_COMMAND,	   /* a command: in[off..off+len), at locality; consume bytes */
	FRAME_MALFORMED,   /* record in[off..off+len) as malformed (reason), close */
	FRAME_HANDSHAKE,   /* MS REMOTE_HANDSHAKE: answer it; consume bytes */
	FRAME_SESSION_END, /* MS SESSION_END: close */
	/* A command that must not reach the TPM: answer it with a TPM error
	 * response (rc) in the connection's framing, record in[off..off+len)
	 * as malformed (reason; its header's size field is declared), then
	 * consume bytes, or close when consume is 0 (the stream cannot be
	 * framed past it). */
	FRAME_REFUSE,
};

struct frame {
	enum frame_what what;
	size_t off, len; /* the command (or the bytes to record as malformed) */
	size_t consume;	 /* bytes to drop from the buffer after handling */
	uint8_t locality;
	int reason;	   /* enum tpm_malformed for FRAME_MALFORMED, FRAME_REFUSE */
	uint32_t rc;	   /* FRAME_REFUSE: the response code to answer with */
	uint32_t declared; /* FRAME_REFUSE, FRAME_MALFORMED: the size the header declared */
};

/* The next message on a data connection holding in[0..in_len). *mode is the
 * connection's framing, decided (and stored) on its first bytes; eof says the
 * client has closed its side; raw_locality is the locality that raw
 * clients set through the control channel. A command is exactly the bytes
 * its size field declares (frame_tpm); bytes after it stay for the next
 * message, in order. */
void frame_data(enum frame_mode *mode, const uint8_t *in, size_t in_len, int eof,
		uint8_t raw_locality, struct frame *f);

/* The next message on the MS simulator platform port: returns 1 when a whole
 * message of *used bytes is there, 0 when more bytes are needed, -1 when it
 * cannot be framed (close). */
int frame_platform(const uint8_t *in, size_t in_len, size_t *used);

/* An swtpm control-channel request (one read is one request): its code, and a
 * short text of its argument for the event log (empty if none). Returns 0, or
 * -1 when the request is too short to hold a code. */
int frame_ctrl(const uint8_t *in, size_t in_len, uint32_t *code, char *detail, size_t dlen);
/* Whether a client of the recorder's control channel may send this code: what
 * a TPM client asks of its TPM (locality, cancel, the power-on INIT, the
 * locality-4 hash sequence, two read-only queries), never state, stop,
 * shutdown or configuration (docs/security.md, "Local users"). */
int frame_ctrl_client_may(uint32_t code);
/* The size of swtpm's answer to control command code (swtpm_ioctls(3),
 * tpm_ioctl.h), given the have bytes of it in rsp so far: read until have
 * reaches it, asking again as it grows (a state blob or info text says its
 * length in its header). */
size_t frame_ctrl_rsp_size(uint32_t code, const uint8_t *rsp, size_t have);

#endif
