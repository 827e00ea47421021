/* A transport to a TPM: a small table of function pointers. Recorders wrap one
 * and forward; logging first, forwarding always. */
#ifndef TPMTRACE_TRANSPORT_H
#define TPMTRACE_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "model/tpm/constants.h"

struct transport;

struct transport_ops {
	/* Sends one whole command at the given locality and receives the whole
	 * response. Returns 0, -errno when the TPM could not be reached (the
	 * response is then undefined; -EMSGSIZE: it answered more bytes than
	 * its response header declares), or a TPM response code (positive)
	 * when the command could not be sent as asked (TPM_RC_LOCALITY: the
	 * backend refused the locality) and the TPM was not asked. */
	int (*transmit)(struct transport *t, uint8_t locality, const uint8_t *cmd, size_t len,
			uint8_t *rsp, size_t cap, size_t *rsp_len);
	/* Sends one swtpm control-channel message and receives its answer
	 * (NULL when the transport has no control channel). */
	int (*ctrl)(struct transport *t, const uint8_t *req, size_t len, uint8_t *rsp, size_t cap,
		    size_t *rsp_len);
	void (*close)(struct transport *t);
};

struct transport {
	const struct transport_ops *ops;
	char desc[256]; /* e.g. "swtpm:path=/run/x.sock" */
	int timeout_ms; /* how long to wait for a response */
	/* Bytes the backend had sent, unasked, when the next command was to
	 * go out: more than an earlier response's header declared. transmit
	 * drops them (with the connection, where it can reconnect) and notes
	 * how many here; the recorder reports and clears it. */
	uint32_t stale;
};

/* swtpm's control channel (swtpm_ioctls(3), include/swtpm/tpm_ioctl.h). */
enum swtpm_ctrl_cmd {
	SWTPM_CMD_GET_CAPABILITY = 0x01,
	SWTPM_CMD_INIT = 0x02,
	SWTPM_CMD_SHUTDOWN = 0x03,
	SWTPM_CMD_GET_TPMESTABLISHED = 0x04,
	SWTPM_CMD_SET_LOCALITY = 0x05,
	SWTPM_CMD_HASH_START = 0x06,
	SWTPM_CMD_HASH_DATA = 0x07,
	SWTPM_CMD_HASH_END = 0x08,
	SWTPM_CMD_CANCEL_TPM_CMD = 0x09,
	SWTPM_CMD_STORE_VOLATILE = 0x0a,
	SWTPM_CMD_RESET_TPMESTABLISHED = 0x0b,
	SWTPM_CMD_GET_STATEBLOB = 0x0c,
	SWTPM_CMD_SET_STATEBLOB = 0x0d,
	SWTPM_CMD_STOP = 0x0e,
	SWTPM_CMD_GET_CONFIG = 0x0f,
	SWTPM_CMD_SET_DATAFD = 0x10,
	SWTPM_CMD_SET_BUFFERSIZE = 0x11,
	SWTPM_CMD_GET_INFO = 0x12,
};

/* The answer (TPM 1.2 result codes) swtpm gives a control code it does not
 * serve; tpmtrace gives it to the codes it does not pass on. */
#define SWTPM_TPM_BAD_ORDINAL 0x0A

const char *swtpm_ctrl_name(uint32_t cmd);

/* Opens a transport to swtpm: "swtpm:host=H,port=P" (control at P+1) or
 * "swtpm:path=SOCK" (control at SOCK.ctrl), as tpm2-tss's swtpm TCTI names
 * them. One data connection is kept open and re-established when lost. */
int transport_swtpm_open(const char *spec, struct transport **out, char *err, size_t errlen);

/* Opens a kernel TPM character device (/dev/tpm0, /dev/tpmrm0): each command
 * is one write, its response one read (drivers/char/tpm/tpm-dev-common.c).
 * Errors are the driver's -errno. Locality cannot be chosen from user space. */
int transport_device_open(const char *path, struct transport **out, char *err, size_t errlen);
/* The same over a descriptor already open on such a device (taken over). */
int transport_device_from_fd(int fd, const char *desc, struct transport **out);
/* Opens any TCTI that tpm2-tss's loader knows ("mssim:host=H,port=P",
 * "tabrmd", "device:/dev/tpm0", ...). Failures are -EIO, -ETIME on timeout. */
int transport_tcti_open(const char *conf, struct transport **out, char *err, size_t errlen);

/* Fills a TPM error response (10 bytes, tag NO_SESSIONS) with rc. */
size_t transport_error_response(uint8_t *rsp, uint32_t rc);

#endif
