/* The proxy's resource manager (recorder/rm.c) on hand-built commands and
 * responses (Part 1 18: header, handles, authorization area): what a client
 * holds after each success, by the effects table and the decoder. The
 * integration tests (test_proxy_rm*, record) run it against swtpm. */
#include <string.h>

#include "model/tpm/constants.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/wire.h"
#include "recorder/rm.h"
#include "testlib.h"

/* A command with handles h[0..nh) and, if sess, one session (handle, empty
 * nonce, attrs, empty hmac), then param bytes. */
static size_t cmd(uint8_t *b, uint32_t cc, const uint32_t *h, unsigned nh, uint32_t sess,
		  uint8_t attrs, const uint8_t *param, size_t pl)
{
	size_t o = 10;
	for (unsigned i = 0; i < nh; i++, o += 4)
		wire_put_u32(b + o, h[i]);
	if (sess) {
		wire_put_u32(b + o, 9);
		wire_put_u32(b + o + 4, sess);
		wire_put_u16(b + o + 8, 0);
		b[o + 10] = attrs;
		wire_put_u16(b + o + 11, 0);
		o += 13;
	}
	memcpy(b + o, param, pl);
	o += pl;
	wire_put_u16(b, sess ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS);
	wire_put_u32(b + 2, (uint32_t)o);
	wire_put_u32(b + 6, cc);
	return o;
}

/* A success with an optional handle, no parameters; sess: one session in the
 * response (continueSession). */
static size_t rsp(uint8_t *b, uint32_t handle, int sess)
{
	size_t o = 10;
	if (handle) {
		wire_put_u32(b + o, handle);
		o += 4;
	}
	if (sess) {
		wire_put_u32(b + o, 0); /* parameterSize */
		wire_put_u16(b + o + 4, 0);
		b[o + 6] = TPMA_SESSION_CONTINUESESSION;
		wire_put_u16(b + o + 7, 0);
		o += 9;
	}
	wire_put_u16(b, sess ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS);
	wire_put_u32(b + 2, (uint32_t)o);
	wire_put_u32(b + 6, 0);
	return o;
}

static int holds(const struct rec_rm_owner *o, uint32_t h)
{
	for (unsigned i = 0; i < o->n; i++)
		if (o->h[i] == h)
			return 1;
	return 0;
}

static unsigned n_flushed;
static uint32_t flushed_h[8];

static void on_flush(void *ctx, uint32_t h)
{
	(void)ctx;
	if (n_flushed < 8)
		flushed_h[n_flushed++] = h;
}

int main(void)
{
	static struct rec_rm rm;
	int owner = -1;
	struct rec_rm_client cl = {&owner, 0, 1}; /* the connection owns its handles */
	uint8_t c[256], r[64];
	uint8_t p[16] = {0};
	size_t cl_len, rl;
	const uint32_t owner_h = TPM_RH_OWNER, pw = TPM_RS_PW;

	/* CreatePrimary under a password session: a transient object. */
	cl_len = cmd(c, TPM_CC_CreatePrimary, &owner_h, 1, pw, 1, p, 8);
	rl = rsp(r, 0x80000000, 1);
	recorder_rm_track(&rm, cl, c, cl_len, r, rl);
	CHECK(owner == 0 && rm.n_owners == 1, "an owner for the connection: %d", owner);
	const struct rec_rm_owner *o = &rm.owners[0];
	CHECK(o->n == 1 && holds(o, 0x80000000), "CreatePrimary's object tracked (%u)", o->n);

	/* A failed command changes nothing. */
	cl_len = cmd(c, TPM_CC_CreatePrimary, &owner_h, 1, pw, 1, p, 8);
	rl = rsp(r, 0x80000001, 1);
	wire_put_u32(r + 6, 0x101);
	recorder_rm_track(&rm, cl, c, cl_len, r, rl);
	CHECK(o->n == 1 && !holds(o, 0x80000001), "an error response is not tracked");

	/* StartAuthSession: a session; a command that uses it without
	 * continueSession ends it (Part 1 19.6.4). */
	const uint32_t sas_h[2] = {TPM_RH_NULL, TPM_RH_NULL};
	cl_len = cmd(c, TPM_CC_StartAuthSession, sas_h, 2, 0, 0, p, 8);
	rl = rsp(r, 0x02000000, 0);
	recorder_rm_track(&rm, cl, c, cl_len, r, rl);
	CHECK(holds(o, 0x02000000), "the session is tracked");
	cl_len = cmd(c, TPM_CC_GetRandom, NULL, 0, 0x02000000, TPMA_SESSION_CONTINUESESSION, p, 2);
	rl = rsp(r, 0, 1);
	recorder_rm_track(&rm, cl, c, cl_len, r, rl);
	CHECK(holds(o, 0x02000000), "continueSession: still held");
	cl_len = cmd(c, TPM_CC_GetRandom, NULL, 0, 0x02000000, 0, p, 2);
	recorder_rm_track(&rm, cl, c, cl_len, r, rl);
	CHECK(!holds(o, 0x02000000), "without continueSession the session ends");

	/* A hash sequence object until SequenceComplete flushes it. */
	cl_len = cmd(c, TPM_CC_HashSequenceStart, NULL, 0, 0, 0, p, 4);
	rl = rsp(r, 0x80000002, 0);
	recorder_rm_track(&rm, cl, c, cl_len, r, rl);
	CHECK(holds(o, 0x80000002), "sequence object tracked");
	const uint32_t seq_h = 0x80000002;
	cl_len = cmd(c, TPM_CC_SequenceComplete, &seq_h, 1, pw, 1, p, 6);
	rl = rsp(r, 0, 1);
	recorder_rm_track(&rm, cl, c, cl_len, r, rl);
	CHECK(!holds(o, 0x80000002), "SequenceComplete flushed the sequence object");

	/* ContextSave of an object keeps it tracked; FlushContext forgets. */
	const uint32_t obj_h = 0x80000000;
	cl_len = cmd(c, TPM_CC_ContextSave, &obj_h, 1, 0, 0, p, 0);
	rl = rsp(r, 0, 0);
	recorder_rm_track(&rm, cl, c, cl_len, r, rl);
	CHECK(holds(o, 0x80000000), "an object's ContextSave keeps it tracked");
	uint8_t fp[4];
	wire_put_u32(fp, 0x80000000);
	cl_len = cmd(c, TPM_CC_FlushContext, NULL, 0, 0, 0, fp, 4);
	recorder_rm_track(&rm, cl, c, cl_len, r, rl);
	CHECK(!holds(o, 0x80000000) && o->n == 0, "FlushContext forgets (%u left)", o->n);

	/* Release flushes what is left, newest first. */
	cl_len = cmd(c, TPM_CC_CreatePrimary, &owner_h, 1, pw, 1, p, 8);
	rl = rsp(r, 0x80000003, 1);
	recorder_rm_track(&rm, cl, c, cl_len, r, rl);
	cl_len = cmd(c, TPM_CC_StartAuthSession, sas_h, 2, 0, 0, p, 8);
	rl = rsp(r, 0x03000001, 0);
	recorder_rm_track(&rm, cl, c, cl_len, r, rl);
	recorder_rm_release(&rm, 0, on_flush, NULL);
	CHECK(n_flushed == 2 && flushed_h[0] == 0x03000001 && flushed_h[1] == 0x80000003,
	      "release flushed %u, newest first", n_flushed);
	CHECK(!rm.owners[0].used && rm.n_owners == 0, "the slot is free again");

	/* A client the manager cannot track: no process, not owning. */
	int none = -1;
	struct rec_rm_client raw = {&none, 0, 0};
	cl_len = cmd(c, TPM_CC_CreatePrimary, &owner_h, 1, pw, 1, p, 8);
	rl = rsp(r, 0x80000000, 1);
	recorder_rm_track(&rm, raw, c, cl_len, r, rl);
	CHECK(none == -1 && rm.n_owners == 0, "a raw TCP client is not tracked");
	return tl_finish("test_rec_rm");
}
