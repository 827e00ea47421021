/* The replay engine's cleanup: what the run left on a target other than its
 * own swtpm is removed again (replay_int.h). */
#include "replayer/replay_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kinds a run may leave behind: transient objects, HMAC and policy
 * sessions, NV indices, persistent objects (Part 2 7.2 TPM_HT). */
static const uint32_t clean_kinds[N_CLEAN_KINDS] = {
    (uint32_t)TPM_HT_TRANSIENT << 24, (uint32_t)TPM_HT_HMAC_SESSION << 24,
    (uint32_t)TPM_HT_POLICY_SESSION << 24, (uint32_t)TPM_HT_NV_INDEX << 24,
    (uint32_t)TPM_HT_PERSISTENT << 24};
/* ---- leaving an external target as it was ------------------------------ */

/* TPM2_GetCapability(TPM_CAP_HANDLES) (Part 3 30.2) of one kind, every page.
 * The session kinds are TPM_HT_LOADED_SESSION (0x02) and TPM_HT_SAVED_SESSION
 * (0x03): each lists HMAC and policy sessions alike, by their own handles
 * (Part 2 7.2), so a saved HMAC session (0x02...) is in the second list.
 * Returns 0, -errno or the TPM's response code. */
static int list_handles(struct tpmconn *t, uint32_t first, struct handle_set *s)
{
	uint32_t prop = first;
	s->n = 0;
	for (int page = 0; page < 64; page++) {
		struct wire_wr w;
		struct wire_rd r;
		tpmconn_cmd_begin(t, &w, TPM_ST_NO_SESSIONS, TPM_CC_GetCapability);
		wire_wr_u32(&w, 1); /* TPM_CAP_HANDLES */
		wire_wr_u32(&w, prop);
		wire_wr_u32(&w, CLEAN_MAX);
		int rc = tpmconn_cmd_send(t, &w);
		if (rc)
			return rc;
		wire_rd_init(&r, t->rsp, t->rsp_len);
		wire_skip(&r, TPM_HEADER_SIZE);
		uint8_t more = wire_u8(&r);
		wire_u32(&r); /* capability */
		uint32_t n = wire_u32(&r), last = 0;
		for (uint32_t i = 0; i < n && !r.err; i++) {
			uint32_t h = wire_u32(&r);
			if (tpm_ht_of(h) != tpm_ht_of(first) &&
			    !(tpm_ht_is_session(first) && tpm_ht_is_session(h))) {
				more = 0;
				break;
			}
			if (s->n < CLEAN_MAX)
				s->h[s->n++] = h;
			last = h;
		}
		if (r.err)
			return -EPROTO;
		/* paged on within the kind asked for only (a session list ends
		 * with the other session type's handles) */
		if (!more || !n || tpm_ht_of(last) != tpm_ht_of(first))
			break;
		prop = last + 1;
	}
	return 0;
}

/* What the external target holds before the run: listed without being
 * stored (the trace is what the run sent). A target not started yet
 * (TPM_RC_INITIALIZE) is listed once the run has started it. */
void rp_snapshot(struct rp *x)
{
	tpmconn_xfer_fn keep = x->tg.t.on_xfer;
	x->tg.t.on_xfer = NULL;
	x->tg.before_due = 0;
	int rc = 0;
	for (size_t k = 0; k < N_CLEAN_KINDS && !rc; k++)
		rc = list_handles(&x->tg.t, clean_kinds[k], &x->tg.before[k]);
	x->tg.t.on_xfer = keep;
	if ((uint32_t)rc == TPM_RC_INITIALIZE && !x->policy.started)
		x->tg.before_due = 1;
	x->tg.have_before = !rc;
}

/* An authorization area of one password session with the authValue the
 * run knows for hierarchy h (--auth, or what the run itself set). */
static void wr_pw_of(struct rp *x, struct wire_wr *w, uint32_t h)
{
	const struct replay_auth *a = rp_auth_for(x, h);
	uint16_t n = a ? a->len : 0;
	wire_wr_u32(w, 9u + n);
	wire_wr_u32(w, TPM_RS_PW);
	wire_wr_u16(w, 0);
	wire_wr_u8(w, 0);
	wire_wr_u16(w, n);
	if (n)
		wire_wr_bytes(w, a->value, n);
}

/* Removes one entity the run left: 0 or why not. */
static int remove_one(struct rp *x, uint32_t h)
{
	struct wire_wr w;
	uint8_t t = tpm_ht_of(h);
	if (t == TPM_HT_TRANSIENT || tpm_ht_is_session(h))
		return tpmconn_flush(&x->tg.t, h);
	if (t == TPM_HT_NV_INDEX) {
		/* Part 3 31.4: by the hierarchy that defined it (Part 2 13.4
		 * TPMA_NV_PLATFORMCREATE, bit 30, from NV_ReadPublic 31.6). */
		uint32_t auth = TPM_RH_OWNER;
		tpmconn_cmd_begin(&x->tg.t, &w, TPM_ST_NO_SESSIONS, TPM_CC_NV_ReadPublic);
		wire_wr_u32(&w, h);
		if (!tpmconn_cmd_send(&x->tg.t, &w) && x->tg.t.rsp_len >= TPM_HEADER_SIZE + 12 &&
		    (wire_get_u32(x->tg.t.rsp + TPM_HEADER_SIZE + 8) & (1u << 30)))
			auth = TPM_RH_PLATFORM;
		tpmconn_cmd_begin(&x->tg.t, &w, TPM_ST_SESSIONS, TPM_CC_NV_UndefineSpace);
		wire_wr_u32(&w, auth);
		wire_wr_u32(&w, h);
		wr_pw_of(x, &w, auth);
		return tpmconn_cmd_send(&x->tg.t, &w);
	}
	/* Part 3 28.5: a persistent object is evicted by its hierarchy
	 * (platform for 0x81800000 and up, Part 2 7.5). */
	uint32_t auth = h >= 0x81800000u ? TPM_RH_PLATFORM : TPM_RH_OWNER;
	tpmconn_cmd_begin(&x->tg.t, &w, TPM_ST_SESSIONS, TPM_CC_EvictControl);
	wire_wr_u32(&w, auth);
	wire_wr_u32(&w, h);
	wr_pw_of(x, &w, auth);
	wire_wr_u32(&w, h);
	return tpmconn_cmd_send(&x->tg.t, &w);
}

/* At the end of a run on an external target, also after an error: what is
 * there now and was not before the run is removed (objects and sessions
 * flushed, NV indices undefined, persistent objects evicted), as the
 * replay's own commands (role cleanup, flag 32); what cannot be removed
 * is reported in res. */
void rp_cleanup_target(struct rp *x)
{
	struct replay_result *res = x->res;
	struct handle_set now;
	size_t used = 0;
	if (x->tg.spawned)
		return;
	if (!x->tg.have_before) {
		res->cleanup_left = 1;
		snprintf(res->cleanup_err, sizeof res->cleanup_err,
			 "the target's handles could not be listed before the run");
		return;
	}
	x->now.cur_role = REPLAY_ROLE_CLEANUP;
	for (size_t k = 0; k < N_CLEAN_KINDS; k++) {
		int rc = list_handles(&x->tg.t, clean_kinds[k], &now);
		if (rc) {
			res->cleanup_left++;
			used += (size_t)snprintf(
			    res->cleanup_err + used,
			    used < sizeof res->cleanup_err ? sizeof res->cleanup_err - used : 0,
			    "%slisting 0x%02x handles: %s", used ? "; " : "",
			    tpm_ht_of(clean_kinds[k]),
			    rc < 0 ? strerror(-rc) : tpm_rc_str((uint32_t)rc));
			continue;
		}
		/* Newest first: a session may be bound to an object made after. */
		for (unsigned i = now.n; i-- > 0;) {
			uint32_t h = now.h[i];
			if (rp_in_list(x->tg.before[k].h, x->tg.before[k].n, h))
				continue;
			rc = remove_one(x, h);
			if (!rc) {
				res->cleaned++;
				continue;
			}
			res->cleanup_left++;
			if (used < sizeof res->cleanup_err)
				used += (size_t)snprintf(
				    res->cleanup_err + used, sizeof res->cleanup_err - used,
				    "%s0x%08x: %s", used ? "; " : "", h,
				    rc < 0 ? strerror(-rc) : tpm_rc_str((uint32_t)rc));
		}
	}
	x->now.cur_role = POL_ROLE_ORIGINAL;
}
