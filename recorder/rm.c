/* The proxy's resource manager (recorder/rm.h): per-client tables of the
 * transient objects and sessions it holds, kept from the decoder's reading
 * of each successful command and response and from the command effects
 * table, and flushed when the client goes. */
#include "recorder/rm.h"

#include <sys/syscall.h>
#include <unistd.h>

#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc_effects.h"
#include "model/tpm/tpm_ht.h"
#include "model/tpm/wire.h"

static int tracked(uint32_t h)
{
	uint8_t t = tpm_ht_of(h);
	return t == TPM_HT_TRANSIENT || t == TPM_HT_HMAC_SESSION || t == TPM_HT_POLICY_SESSION;
}

static void forget(struct rec_rm_owner *o, uint32_t h)
{
	for (unsigned i = 0; i < o->n; i++)
		if (o->h[i] == h) {
			o->h[i] = o->h[--o->n];
			return;
		}
}

struct rec_rm_owner *recorder_rm_owner_of(struct rec_rm *rm, struct rec_rm_client cl, int make)
{
	if (*cl.owner >= 0)
		return &rm->owners[*cl.owner];
	if ((!cl.pid && !cl.by_conn) || (!make && !rm->n_owners))
		return NULL;
	int free_i = -1;
	for (int i = 0; i < REC_RM_MAX_OWNERS; i++) {
		if (rm->owners[i].used && cl.pid && rm->owners[i].pid == cl.pid) {
			*cl.owner = i;
			return &rm->owners[i];
		}
		if (!rm->owners[i].used && free_i < 0)
			free_i = i;
	}
	if (free_i < 0 || !make)
		return NULL;
	struct rec_rm_owner *o = &rm->owners[free_i];
	o->pidfd = -1;
	if (cl.pid) {
		o->pidfd = (int)syscall(SYS_pidfd_open, cl.pid, 0);
		if (o->pidfd < 0)
			return NULL;
	}
	o->used = 1;
	o->pid = cl.pid;
	o->n = 0;
	rm->n_owners++;
	*cl.owner = free_i;
	return o;
}

/* The handle a flushing command flushes (Part 3 28.4 FlushContext's
 * parameter, or the sequence object among its handles); 0 if none. */
static uint32_t flushed(const struct tpm_cc_effects *e, const struct tpm_cmd *c, const uint8_t *cmd)
{
	if (e->cmd_handle) {
		struct wire_rd r;
		wire_rd_init(&r, cmd + c->param_off, c->param_size);
		tpm_layout_skip(&r, e->cmd_handle);
		uint32_t h = wire_u32(&r);
		return r.err ? 0 : h;
	}
	for (unsigned i = 0; i < c->n_handles; i++)
		if (tpm_ht_of(c->handles[i]) == TPM_HT_TRANSIENT)
			return c->handles[i];
	return 0;
}

void recorder_rm_track(struct rec_rm *rm, struct rec_rm_client cl, const uint8_t *cmd, size_t len,
		       const uint8_t *rsp, size_t rsp_len)
{
	struct tpm_cmd c;
	struct tpm_rsp r;
	struct rec_rm_owner *o;
	if (tpm_cmd_decode(cmd, len, &c) || tpm_rsp_decode(rsp, rsp_len, c.cc, &r) || r.rc)
		return;
	const struct tpm_cc_effects *e = tpm_cc_effects(c.cc);
	if (!e)
		return;
	/* What it loaded: a new object, session or sequence, or a context
	 * loaded again (a session's ContextLoad: the same handle). */
	if ((e->transient || e->session || e->ctx_load) && r.n_handles && tracked(r.handle) &&
	    (o = recorder_rm_owner_of(rm, cl, 1))) {
		forget(o, r.handle);
		if (o->n < REC_RM_MAX_HANDLES)
			o->h[o->n++] = r.handle;
	}
	if (!(o = recorder_rm_owner_of(rm, cl, 0)))
		return;
	if (e->flush)
		forget(o, flushed(e, &c, cmd));
	/* A session saved to a context is meant to outlive the client
	 * (tpm2_startauthsession -S FILE, then other tools): it stays the
	 * client's business, as with tpm2-abrmd. An object's saved context
	 * loads again after its flush: it stays tracked. */
	if (e->ctx_save && c.n_handles && tpm_ht_of(c.handles[0]) != TPM_HT_TRANSIENT)
		forget(o, c.handles[0]);
	/* A session used without continueSession ends with the command
	 * (Part 1 19.6.4). */
	for (unsigned i = 0; e->ends_session && i < c.n_sessions; i++)
		if (!(c.sess[i].attrs & TPMA_SESSION_CONTINUESESSION))
			forget(o, c.sess[i].handle);
}

void recorder_rm_release(struct rec_rm *rm, int i, void (*flush)(void *ctx, uint32_t h), void *ctx)
{
	struct rec_rm_owner *o = &rm->owners[i];
	while (o->n)
		flush(ctx, o->h[--o->n]);
	if (o->pidfd >= 0)
		close(o->pidfd);
	o->used = 0;
	o->pidfd = -1;
	rm->n_owners--;
}
