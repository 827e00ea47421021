/* The swtpm transport (recorder/transport/transport.h): transport_swtpm_open
 * parses a swtpm: TCTI-style spec (net_endpoint_parse_tcti) and connects the data
 * socket; swtpm_transmit sets the locality first over the control channel when
 * it changes (SWTPM_CMD_SET_LOCALITY), sends the command, reconnecting once if
 * the kept connection turns out dead, reads the framed response
 * (net_read_tpm_message) and drops the connection on an error so that the next
 * command starts afresh. Also swtpm_ctrl_name, the names of the control
 * commands (swtpm_ioctls(3)), and transport_error_response, the 10-byte error
 * response a failed transport answers with. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "recorder/transport/frame.h"
#include "recorder/transport/netutil.h"
#include "recorder/transport/transport.h"

struct swtpm_transport {
	struct transport t;
	struct endpoint data;
	struct endpoint ctrl;
	int fd;
	int ctrl_fd;
	int locality;
};

const char *swtpm_ctrl_name(uint32_t cmd)
{
	static const char *const names[] = {
	    [SWTPM_CMD_GET_CAPABILITY] = "GET_CAPABILITY",
	    [SWTPM_CMD_INIT] = "INIT",
	    [SWTPM_CMD_SHUTDOWN] = "SHUTDOWN",
	    [SWTPM_CMD_GET_TPMESTABLISHED] = "GET_TPMESTABLISHED",
	    [SWTPM_CMD_SET_LOCALITY] = "SET_LOCALITY",
	    [SWTPM_CMD_HASH_START] = "HASH_START",
	    [SWTPM_CMD_HASH_DATA] = "HASH_DATA",
	    [SWTPM_CMD_HASH_END] = "HASH_END",
	    [SWTPM_CMD_CANCEL_TPM_CMD] = "CANCEL_TPM_CMD",
	    [SWTPM_CMD_STORE_VOLATILE] = "STORE_VOLATILE",
	    [SWTPM_CMD_RESET_TPMESTABLISHED] = "RESET_TPMESTABLISHED",
	    [SWTPM_CMD_GET_STATEBLOB] = "GET_STATEBLOB",
	    [SWTPM_CMD_SET_STATEBLOB] = "SET_STATEBLOB",
	    [SWTPM_CMD_STOP] = "STOP",
	    [SWTPM_CMD_GET_CONFIG] = "GET_CONFIG",
	    [SWTPM_CMD_SET_DATAFD] = "SET_DATAFD",
	    [SWTPM_CMD_SET_BUFFERSIZE] = "SET_BUFFERSIZE",
	    [SWTPM_CMD_GET_INFO] = "GET_INFO",
	};
	if (cmd < sizeof(names) / sizeof(names[0]) && names[cmd])
		return names[cmd];
	return "UNKNOWN";
}

size_t transport_error_response(uint8_t *rsp, uint32_t rc)
{
	wire_put_u16(rsp, TPM_ST_NO_SESSIONS);
	wire_put_u32(rsp + 2, TPM_HEADER_SIZE);
	wire_put_u32(rsp + 6, rc);
	return TPM_HEADER_SIZE;
}

static void drop_conn(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Reads swtpm's whole answer to control command code, by the length the
 * command's answer has (frame_ctrl_rsp_size): never a part of it, leaving
 * the rest to be read as the next command's answer. */
static int ctrl_answer(int fd, uint32_t code, uint8_t *rsp, size_t cap, size_t *len, int timeout_ms)
{
	size_t have = 0, want = 4;
	while (have < want) {
		if (want > cap)
			return -EMSGSIZE;
		ssize_t n = net_read_some(fd, rsp + have, want - have, timeout_ms);
		if (n <= 0)
			return n == 0 ? -ECONNRESET : (int)n;
		have += (size_t)n;
		if (have >= 4)
			want = frame_ctrl_rsp_size(code, rsp, have);
	}
	*len = have;
	return 0;
}

/* Sends a control message on a fresh or kept control connection and reads
 * its answer whole; the connection is dropped on any error and when bytes
 * nobody asked for follow the answer. */
static int swtpm_ctrl(struct transport *t, const uint8_t *req, size_t len, uint8_t *rsp, size_t cap,
		      size_t *rsp_len)
{
	struct swtpm_transport *s = (struct swtpm_transport *)t;
	int rc;
	if (len < 4)
		return -EINVAL;
	uint32_t code = wire_get_u32(req);
	for (int attempt = 0; attempt < 2; attempt++) {
		if (s->ctrl_fd < 0) {
			rc = net_endpoint_connect(&s->ctrl, &s->ctrl_fd);
			if (rc)
				return rc;
		}
		rc = net_write_full(s->ctrl_fd, req, len, t->timeout_ms);
		if (!rc)
			rc = ctrl_answer(s->ctrl_fd, code, rsp, cap, rsp_len, t->timeout_ms);
		if (!rc) {
			if (net_pending_bytes(s->ctrl_fd))
				drop_conn(&s->ctrl_fd);
			/* Keep track of the locality a client set, so that
			 * transmit does not set it again. */
			if (len >= 5 && code == SWTPM_CMD_SET_LOCALITY && wire_get_u32(rsp) == 0)
				s->locality = req[4];
			return 0;
		}
		drop_conn(&s->ctrl_fd);
		if (rc == -EMSGSIZE)
			return rc;
	}
	return rc;
}

static int set_locality(struct swtpm_transport *s, uint8_t loc)
{
	uint8_t req[5], rsp[16];
	size_t n;
	wire_put_u32(req, SWTPM_CMD_SET_LOCALITY);
	req[4] = loc;
	int rc = swtpm_ctrl(&s->t, req, sizeof req, rsp, sizeof rsp, &n);
	if (rc)
		return rc;
	if (n < 4)
		return -EPROTO;
	if (wire_get_u32(rsp) != 0)
		/* swtpm said no (it takes localities 0-4): the command is not
		 * sent; its client hears what a TPM says to such a locality. */
		return (int)TPM_RC_LOCALITY;
	s->locality = loc;
	return 0;
}

static int swtpm_transmit(struct transport *t, uint8_t locality, const uint8_t *cmd, size_t len,
			  uint8_t *rsp, size_t cap, size_t *rsp_len)
{
	struct swtpm_transport *s = (struct swtpm_transport *)t;
	int rc;

	if (locality != s->locality && (rc = set_locality(s, locality)) != 0)
		return rc;
	if (s->fd >= 0 && (t->stale = (uint32_t)net_pending_bytes(s->fd)) != 0)
		/* Bytes nobody asked for: the previous response was followed
		 * by more than its header declared. Never the next client's
		 * answer: a fresh connection is made for this command. */
		drop_conn(&s->fd);
	/* Reconnect once if the kept connection turns out to be dead before
	 * anything was sent (swtpm restarted); never resend after a partial
	 * exchange: the command may have executed. */
	for (int attempt = 0; attempt < 2; attempt++) {
		int fresh = 0;
		if (s->fd < 0) {
			rc = net_endpoint_connect(&s->data, &s->fd);
			if (rc)
				return rc;
			fresh = 1;
		}
		rc = net_write_full(s->fd, cmd, len, t->timeout_ms);
		if (rc) {
			drop_conn(&s->fd);
			if (fresh)
				return rc;
			continue;
		}
		rc = net_read_tpm_message(s->fd, rsp, cap, rsp_len, t->timeout_ms);
		if (rc)
			drop_conn(&s->fd);
		if (rc == -ECONNRESET && !fresh && attempt == 0) {
			/* EOF before any byte of the answer: a connection the
			 * backend had already closed. */
			continue;
		}
		return rc;
	}
	return rc;
}

static void swtpm_close(struct transport *t)
{
	struct swtpm_transport *s = (struct swtpm_transport *)t;
	drop_conn(&s->fd);
	drop_conn(&s->ctrl_fd);
	free(s);
}

static const struct transport_ops swtpm_ops = {swtpm_transmit, swtpm_ctrl, swtpm_close};

int transport_swtpm_open(const char *spec, struct transport **out, char *err, size_t errlen)
{
	struct swtpm_transport *s = calloc(1, sizeof(*s));
	int rc;
	if (!s)
		return -ENOMEM;
	s->t.ops = &swtpm_ops;
	s->t.timeout_ms = 120000;
	s->fd = s->ctrl_fd = -1;
	rc = net_endpoint_parse_tcti(spec, &s->data, &s->ctrl, err, errlen);
	if (rc) {
		free(s);
		return rc;
	}
	snprintf(s->t.desc, sizeof s->t.desc, "%s", spec);
	rc = net_endpoint_connect(&s->data, &s->fd);
	if (rc) {
		snprintf(err, errlen, "cannot connect to swtpm at %s: %s", spec, strerror(-rc));
		free(s);
		return rc;
	}
	*out = &s->t;
	return 0;
}
