/* A transport to anything tpm2-tss's TCTI loader can reach. Kept apart from
 * model/tpm/decode.h, whose TPMA_SESSION_* names tss2's headers define too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tss2/tss2_tcti.h>
#include <tss2/tss2_tctildr.h>

#include "recorder/transport/transport.h"

#define HEADER_SIZE 10 /* tag, size, code (TPM 2.0 Part 1, 18.9) */

/* Any TCTI through tpm2-tss's loader ("mssim:...", "tabrmd", "device:..."). */
struct tcti_transport {
	struct transport t;
	TSS2_TCTI_CONTEXT *ctx;
	int locality;
};

static int tcti_transmit(struct transport *t, uint8_t locality, const uint8_t *cmd, size_t len,
			 uint8_t *rsp, size_t cap, size_t *rsp_len)
{
	struct tcti_transport *x = (struct tcti_transport *)t;
	TSS2_RC rc;

	if (locality != x->locality) {
		/* Not every TCTI can set a locality (the device TCTI cannot):
		 * then the command goes at the TCTI's own. */
		if (Tss2_Tcti_SetLocality(x->ctx, locality) == TSS2_RC_SUCCESS)
			x->locality = locality;
	}
	rc = Tss2_Tcti_Transmit(x->ctx, len, cmd);
	if (rc != TSS2_RC_SUCCESS)
		return -EIO;
	size_t n = cap;
	rc = Tss2_Tcti_Receive(x->ctx, &n, rsp, t->timeout_ms);
	if (rc != TSS2_RC_SUCCESS)
		return (rc & 0xffff) == TSS2_BASE_RC_TRY_AGAIN ? -ETIME : -EIO;
	if (n < HEADER_SIZE)
		return -EIO;
	*rsp_len = n;
	return 0;
}

static void tcti_close(struct transport *t)
{
	struct tcti_transport *x = (struct tcti_transport *)t;
	Tss2_TctiLdr_Finalize(&x->ctx);
	free(x);
}

static const struct transport_ops tcti_ops = {tcti_transmit, NULL, tcti_close};

int transport_tcti_open(const char *conf, struct transport **out, char *err, size_t errlen)
{
	struct tcti_transport *x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->t.ops = &tcti_ops;
	x->t.timeout_ms = 120000;
	x->locality = -1;
	snprintf(x->t.desc, sizeof x->t.desc, "%s", conf);
	TSS2_RC rc = Tss2_TctiLdr_Initialize(conf, &x->ctx);
	if (rc != TSS2_RC_SUCCESS) {
		snprintf(err, errlen, "cannot open TCTI '%s' (tpm2-tss error 0x%x)", conf, rc);
		free(x);
		return -ENODEV;
	}
	*out = &x->t;
	return 0;
}
