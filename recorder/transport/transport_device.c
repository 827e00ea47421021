/* A transport to a kernel TPM character device (/dev/tpm0, /dev/tpmrm0).
 *
 * The kernel's device protocol (drivers/char/tpm/tpm-dev-common.c): one write
 * carries one whole command and blocks until the TPM has answered; the next
 * read returns the response. Errors are the driver's errno, passed on as is. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "recorder/transport/transport.h"

struct device_transport {
	struct transport t;
	int fd;
};

static int device_transmit(struct transport *t, uint8_t locality, const uint8_t *cmd, size_t len,
			   uint8_t *rsp, size_t cap, size_t *rsp_len)
{
	struct device_transport *d = (struct device_transport *)t;
	ssize_t n;

	/* The kernel has no locality interface for user space: commands run at
	 * the locality the driver uses (0). */
	(void)locality;
	do
		n = write(d->fd, cmd, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EIO;
	do
		n = read(d->fd, rsp, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* A response is at least a header and exactly as long as it says. */
	if (n < TPM_HEADER_SIZE || wire_get_u32(rsp + 2) != (uint32_t)n)
		return -EIO;
	*rsp_len = (size_t)n;
	return 0;
}

static void device_close(struct transport *t)
{
	struct device_transport *d = (struct device_transport *)t;
	if (d->fd >= 0)
		close(d->fd);
	free(d);
}

static const struct transport_ops device_ops = {device_transmit, NULL, device_close};

int transport_device_from_fd(int fd, const char *desc, struct transport **out)
{
	struct device_transport *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->t.ops = &device_ops;
	d->t.timeout_ms = -1; /* the driver applies the TPM's own timeouts */
	snprintf(d->t.desc, sizeof d->t.desc, "%s", desc);
	d->fd = fd;
	*out = &d->t;
	return 0;
}

int transport_device_open(const char *path, struct transport **out, char *err, size_t errlen)
{
	char desc[sizeof((struct transport *)0)->desc];
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int rc = -errno;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return rc;
	}
	snprintf(desc, sizeof desc, "device:%s", path);
	int rc = transport_device_from_fd(fd, desc, out);
	if (rc)
		close(fd);
	return rc;
}
