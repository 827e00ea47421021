/* The replay engine's steps: a recorded command sent again to the target
 * (replay_original) and the kernel policy's own steps (rp_emit) (replay_int.h). */
#include "replayer/replay_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PLAN_RECORDED, PLAN_PASSWORD, PLAN_KERNEL };

/* A protected command finds no kernel session because an earlier command
 * failed on the target (not in the recording) and the session was flushed:
 * start one as the policy would. */
static int kernel_resume(struct rp *x, uint32_t cc)
{
	struct pol_out o = {.role = POL_ROLE_SESSION_SETUP};
	int rc = 0, ctxload = x->policy.pol.salt == POL_SALT_NULL_ECC &&
			      x->policy.pol.nullkey == POL_NULLKEY_CONTEXT_LOAD;
	rp_note(x, REPLAY__OUTCOMES, cc,
		"session started again after a failed command (not in the policy's sequence)");
	if (ctxload) {
		o.cc = TPM_CC_ContextLoad;
		if ((rc = rp_emit(x, &o)))
			return rc;
	}
	o.cc = TPM_CC_StartAuthSession;
	o.variant = x->policy.pol.salt == POL_SALT_NULL_ECC	? POL_VAR_SALTED_ECC
		    : x->policy.pol.salt == POL_SALT_PERSISTENT ? POL_VAR_SALTED
								: POL_VAR_UNSALTED;
	o.handle = x->policy.pol.salt_handle;
	if ((rc = rp_emit(x, &o)))
		return rc;
	if (ctxload) {
		o.cc = TPM_CC_FlushContext;
		rc = rp_emit(x, &o);
	}
	x->now.cur_role = POL_ROLE_ORIGINAL;
	return rc;
}

/* A destructive command on an entity this run made itself: undefining an
 * NV index it defined, evicting a persistent object it made (or making one:
 * undone at the end). It changes nothing the target had before the run. */
static int on_own_entity(struct rp *x, const struct tpm_cmd *c)
{
	const struct tpm_cc_effects *e = tpm_cc_effects(c->cc);
	if (!e)
		return 0;
	if (e->nv_undefine || e->nv_write) /* NV_ChangeAuth among the writes */
		return rp_nv_handle(c) &&
		       rp_in_list(x->ent.made_nv, x->ent.n_made_nv, rp_nv_handle(c));
	if (e->persist)
		return c->n_handles >= 2 &&
		       (tpm_ht_of(c->handles[1]) == TPM_HT_TRANSIENT ||
			rp_in_list(x->ent.made_persist, x->ent.n_made_persist, c->handles[1]));
	return 0;
}

/* What replay_original works on for one source command: the target's
 * handles, Names, the parameters (as sent, and as the response returned
 * them), and the authorization area. */
struct orig {
	struct src_cmd *sc;
	const struct tpm_cmd *c;
	uint32_t hs[3];
	struct tpm_name names[3];
	uint8_t *pp;
	size_t plen, pl;
	struct authent a[TPM_MAX_SESSIONS];
	unsigned na;
	int need_names;
	size_t sent_len;
	struct replay_auth after;
	/* The two messages last: replay_original clears the fields above only
	 * (clearing 8 KiB per command was a third of the replay thread's
	 * instructions); no more than plen and sent_len bytes are read. */
	uint8_t params[TPM_MAX_MESSAGE];
	uint8_t sent[TPM_MAX_MESSAGE];
};

/* Load: the recorded private blob (and public area) replaced by the ones the
 * target made for it. Returns 0 or a fatal -errno. */
static int orig_load_blob(struct rp *x, struct orig *o)
{
	struct src_cmd *sc = o->sc;
	uint8_t *params = o->params;
	size_t plen = o->plen;
	if (plen >= 2 && wire_get_u16(params) + 2u <= plen) {
		size_t pvl = wire_get_u16(params) + 2u;
		struct privmap *m = rp_priv_find(x, params, pvl);
		sc->load_priv = m ? m - x->ent.priv : -1;
		if (m) {
			uint8_t np[TPM_MAX_MESSAGE];
			size_t rest = plen - pvl, nl;
			const uint8_t *pub = params + pvl;
			size_t publ = rest;
			if (m->pub) {
				pub = m->pub;
				publ = m->publen; /* inPublic is the only other parameter */
			}
			nl = m->privlen + publ;
			if (nl > sizeof np)
				return rp_fail(x, -ENOBUFS, "Load too large");
			memcpy(np, m->priv, m->privlen);
			memcpy(np + m->privlen, pub, publ);
			memcpy(params, np, nl);
			o->plen = nl;
		}
	}
	return 0;
}

/* The handles mapped to the target's and the parameters made ready to send.
 * Returns 1 when the command is not sent (*rc: replay_original's result),
 * 0 to go on. */
static int orig_params(struct rp *x, struct orig *o, int *rc)
{
	struct src_cmd *sc = o->sc;
	const struct tpm_cmd *c = o->c;
	*rc = 0;
	for (unsigned i = 0; i < c->n_handles; i++) {
		if (rp_map_handle(x, c->handles[i], &o->hs[i])) {
			rp_note(x, REPLAY_REFUSED, c->cc,
				"%s: handle 0x%08x was not created in this replay (made before the "
				"trace "
				"started, or by a command that was refused or failed)",
				tpm_cc_name(c->cc), c->handles[i]);
			return 1;
		}
		struct obj *ob = rp_obj_find(x, c->handles[i]);
		if (ob && ob->created && tpm_ht_of(c->handles[i]) == TPM_HT_TRANSIENT)
			rp_obj_give(x, ob, sc->client);
	}
	o->plen = c->param_size;
	memcpy(o->params, sc->cmd + c->param_off, o->plen);
	if (c->cc == TPM_CC_FlushContext && o->plen == 4) {
		uint32_t h;
		if (rp_map_handle(x, wire_get_u32(o->params), &h)) {
			rp_note(x, REPLAY_REFUSED, c->cc,
				"FlushContext of 0x%08x, made before the trace started",
				wire_get_u32(o->params));
			return 1;
		}
		wire_put_u32(o->params, h);
	}
	if (rp_unredact(x, o->sc, o->params, &o->plen, sizeof o->params))
		return 1;
	if (c->cc == TPM_CC_Load && (*rc = orig_load_blob(x, o)))
		return 1;
	/* A parameter that was sent encrypted under a recorded session's key
	 * cannot be recovered: that key is gone. */
	for (unsigned i = 0; i < c->n_sessions; i++)
		if ((c->sess[i].attrs & TPMA_SESSION_DECRYPT) && o->plen >= 2 &&
		    wire_get_u16(o->params)) {
			rp_note(x, REPLAY_REFUSED, c->cc,
				"%s: first parameter was encrypted under a recorded session key",
				tpm_cc_name(c->cc));
			return 1;
		}
	return 0;
}

/* How the command is authorised on the target: as recorded, with a password,
 * or in the kernel's session (the policy's mode). */
static int orig_plan(struct rp *x, const struct tpm_cmd *c, const struct pol_out *po)
{
	int plan = PLAN_RECORDED;
	if (policy_auth_kept(c->auth_kind))
		plan = PLAN_RECORDED; /* as the expansion did (policy_auth_kept) */
	else if (x->policy.pol.mode == POL_MODE_PASSWORD)
		plan = PLAN_PASSWORD;
	else if (x->policy.pol.mode == POL_MODE_SESSIONS && policy_kernel_protects(c->cc))
		plan = po->auth_kind == TPM_AUTH_PASSWORD ? PLAN_PASSWORD
		       : po->auth_kind >= TPM_AUTH_HMAC	  ? PLAN_KERNEL
							  : PLAN_RECORDED;
	return plan;
}

/* PLAN_RECORDED: the authorization area the recording shows, with the
 * trace's own sessions as re-created on the target. Returns 1 when the
 * command is not sent, 0 to go on. */
static int orig_auth_recorded(struct rp *x, struct orig *o, unsigned n_auth, const uint8_t **av,
			      const size_t *avl)
{
	const struct tpm_cmd *c = o->c;
	struct authent *a = o->a;
	for (unsigned i = 0; i < c->n_sessions; i++) {
		const struct tpm_session *s = &c->sess[i];
		if (s->handle == TPM_RS_PW) {
			a[o->na].pw = i < n_auth ? av[i] : NULL;
			a[o->na].attrs = s->attrs;
			a[o->na++].pw_len = i < n_auth ? avl[i] : 0;
			continue;
		}
		struct rsess *rs = rp_sess_find(x, s->handle);
		if (!rs) {
			rp_note(x, REPLAY_REFUSED, c->cc,
				"%s: session 0x%08x was started before the trace (or refused)",
				tpm_cc_name(c->cc), s->handle);
			return 1;
		}
		rp_sess_give(x, rs, o->sc->client);
		a[o->na].is_sess = 1;
		a[o->na].s = &rs->s;
		a[o->na].rs = rs;
		a[o->na].attrs = s->attrs;
		o->need_names = 1;
		if (i < n_auth) {
			int use_auth = 1;
			if (rs->type != TPM_SE_HMAC) {
				use_auth = rs->pol_authvalue;
				if (rs->pol_password) {
					a[o->na].pw_in_hmac = 1;
					a[o->na].pw = av[i];
					a[o->na].pw_len = avl[i];
				}
			}
			a[o->na].key_auth = use_auth ? av[i] : NULL;
			a[o->na].key_auth_len = use_auth ? avl[i] : 0;
			a[o->na].inc_auth = use_auth;
		}
		o->na++;
	}
	return 0;
}

/* The authorization area after the plan. Returns 1 when the command is not
 * sent (*rc: replay_original's result), 0 to go on. */
static int orig_auth(struct rp *x, struct orig *o, int plan, const struct pol_out *po, int *rc)
{
	const struct tpm_cmd *c = o->c;
	const struct tpm_cc_info *ci = c->info;
	struct authent *a = o->a;
	unsigned n_auth = ci ? ci->auth_handles : 0;
	const uint8_t *av[TPM_MAX_SESSIONS];
	size_t avl[TPM_MAX_SESSIONS];
	*rc = 0;
	for (unsigned i = 0; i < TPM_MAX_SESSIONS; i++)
		rp_auth_value(x, o->sc, i, &av[i], &avl[i]);
	if (plan == PLAN_PASSWORD) {
		for (unsigned i = 0; po->auth_kind != TPM_AUTH_NONE && i < n_auth && i < 3; i++) {
			a[o->na].pw = av[i];
			a[o->na].attrs = po->sess_attrs;
			a[o->na++].pw_len = avl[i];
		}
	} else if (plan == PLAN_KERNEL) {
		if (!x->sessions.ks_live && (*rc = kernel_resume(x, c->cc)))
			return 1;
		a[0].is_sess = 1;
		a[0].s = &x->sessions.ks;
		a[0].attrs = po->sess_attrs;
		if (n_auth) {
			a[0].key_auth = av[0];
			a[0].key_auth_len = avl[0];
			a[0].inc_auth = 1;
		}
		o->na = 1;
		o->need_names = 1;
	} else
		return orig_auth_recorded(x, o, n_auth, av, avl);
	return 0;
}

/* The Names of the handles, for the sessions' HMACs. Returns 1 when the
 * command is not sent (*rc: replay_original's result), 0 to go on. */
static int orig_names(struct rp *x, struct orig *o, int *rc)
{
	const struct tpm_cmd *c = o->c;
	struct authent *a = o->a;
	for (unsigned i = 0; i < c->n_handles; i++) {
		*rc = rp_name_of(x, c->handles[i], o->hs[i], &o->names[i]);
		if (*rc == -ENOENT) {
			rp_note(x, REPLAY_REFUSED, c->cc, "%s: the Name of 0x%08x is unknown",
				tpm_cc_name(c->cc), c->handles[i]);
			*rc = 0;
			return 1;
		}
		if (*rc)
			return 1;
	}
	/* Part 1 19.6.5: a session bound to the entity it authorizes
	 * leaves the authValue out of the HMAC key. */
	for (unsigned i = 0; i < o->na && i < c->n_handles; i++)
		if (a[i].rs && a[i].rs->bound && a[i].rs->type == TPM_SE_HMAC &&
		    a[i].rs->bind_name.size == o->names[i].size &&
		    !memcmp(a[i].rs->bind_name.b, o->names[i].b, o->names[i].size)) {
			a[i].key_auth = NULL;
			a[i].key_auth_len = 0;
			a[i].inc_auth = 0;
		}
	return 0;
}

/* The command sent with its authorization area, and what a success made
 * taken note of (rp_capture). *rc: the TPM's response code or a -errno.
 * Returns 1 when replay_original is done (*rc: its result), 0 to compare. */
static int orig_send(struct rp *x, struct orig *o, int plan, int *rc)
{
	struct src_cmd *sc = o->sc;
	const struct tpm_cmd *c = o->c;
	/* Keep the second parameter as sent (Load's inPublic) before the first
	 * may be encrypted in place. */
	o->sent_len = o->plen;
	memcpy(o->sent, o->params, o->plen);
	if (o->na && rp_auth_after(c->cc, o->params, o->plen, &o->after))
		o->a[0].auth_after = &o->after;
	const struct rp_auth_cmd k = {c->cc, o->hs, c->n_handles, o->names,
				      o->a,  o->na, o->params,	  o->plen};
	*rc = rp_send_auth(x, &k, &o->pp, &o->pl);
	if (*rc < 0)
		return 1;
	if (*rc > 0 && plan == PLAN_KERNEL && x->sessions.ks_live && sc->has_rc && !sc->rc) {
		/* The kernel flushes its session when a command fails; the
		 * expansion, which follows the recording, did not expect this
		 * failure. */
		struct pol_out end = {.cc = TPM_CC_FlushContext, .role = POL_ROLE_SESSION_END};
		rp_note(x, REPLAY__OUTCOMES, c->cc,
			"%s failed where the recording succeeded: the kernel session was flushed",
			tpm_cc_name(c->cc));
		int e = rp_emit(x, &end);
		if (e) {
			*rc = e;
			return 1;
		}
	}
	if (*rc == 0) {
		const struct rp_sent sent = {.hs = o->hs,
					     .pp = o->pp,
					     .pl = o->pl,
					     .a = o->a,
					     .na = o->na,
					     .sent = o->sent,
					     .sent_len = o->sent_len};
		rp_capture(x, o->sc, &sent);
	}
	return 0;
}

/* The recording shows the command answered with a retry-class warning and
 * resubmitted, the target here answered at once: the resubmission is not
 * sent again, and what this answer made is kept for it (struct rp). */
static void orig_arm_resub(struct rp *x, const struct orig *o, int rc)
{
	struct src_cmd *sc = o->sc;
	x->now.resub.armed = 1;
	x->now.resub.seq = sc->seq;
	x->now.resub.len = sc->len;
	memcpy(x->now.resub.cmd, sc->cmd, sc->len);
	x->now.resub.outcome = x->now.cur_outcome;
	snprintf(x->now.resub.reason, sizeof x->now.resub.reason, "%s", x->now.cur_reason);
	x->now.resub.ok =
	    rc == 0 && !o->c->malformed && x->tg.t.rsp_len <= sizeof x->now.resub.rsp &&
	    o->pl <= sizeof x->now.resub.pp && o->sent_len <= sizeof x->now.resub.sent;
	if (x->now.resub.ok) {
		memcpy(x->now.resub.hs, o->hs, sizeof x->now.resub.hs);
		x->now.resub.load_priv = sc->load_priv;
		x->now.resub.rsp_len = x->tg.t.rsp_len;
		memcpy(x->now.resub.rsp, x->tg.t.rsp, x->tg.t.rsp_len);
		x->now.resub.pl = o->pl;
		if (o->pl)
			memcpy(x->now.resub.pp, o->pp, o->pl);
		x->now.resub.sent_len = o->sent_len;
		memcpy(x->now.resub.sent, o->sent, o->sent_len);
	}
}

/* The target's answer compared with the recording's. Returns 0 or the
 * fatal -errno. */
static int orig_compare(struct rp *x, const struct orig *o, int rc)
{
	struct src_cmd *sc = o->sc;
	const struct tpm_cmd *c = o->c;
	if (rc < 0)
		return rc;
	if (c->cc == TPM_CC_Startup && (!rc || (uint32_t)rc == TPM_RC_INITIALIZE) &&
	    !x->policy.started) {
		x->policy.started = 1;
		if (x->tg.before_due)
			rp_snapshot(x);
		for (unsigned i = 0; i < x->policy.n_deferred && !x->now.fatal; i++)
			rp_emit(x, &x->policy.deferred[i]);
		x->policy.n_deferred = 0;
		x->now.cur_role = POL_ROLE_ORIGINAL;
	}
	/* A Startup that the recording's TPM refused as already started (a
	 * client's at boot, after the firmware's) got the same answer here:
	 * compared as any command. */
	if (c->cc == TPM_CC_Startup && (uint32_t)rc == TPM_RC_INITIALIZE && !x->tg.spawned &&
	    !(sc->has_rc && sc->rc == TPM_RC_INITIALIZE)) {
		rp_note(x, REPLAY_SUBSTITUTED, c->cc, "Startup: the target was already started");
		return 0;
	}
	if (sc->has_rc && tpm_rc_is_retry(sc->rc) && !tpm_rc_is_retry((uint32_t)rc) &&
	    sc->len <= sizeof x->now.resub.cmd) {
		orig_arm_resub(x, o, rc);
		/* The expansion follows this answer, not the recording's retry:
		 * the target ran the command, and its resubmission is not sent. */
		sc->pc.rc = (uint32_t)rc;
		sc->pc.has_rc = 1;
	}
	if (!sc->has_rc || (uint32_t)rc != sc->rc) {
		struct replay_cc_stat *st = rp_cc_stat(x->res, c->cc);
		if (st)
			st->rc_differs++;
		if (rc && (!sc->has_rc || sc->rc == 0)) {
			x->res->failed++;
			rp_note(x, REPLAY__OUTCOMES, c->cc, "%s: the target answered 0x%x (%s)",
				tpm_cc_name(c->cc), rc, tpm_rc_str((uint32_t)rc));
		}
	}
	return 0;
}

/* A source command sent again to the target (the policy's ORIGINAL step):
 * refused when it cannot be, its handles and parameters mapped, authorised
 * after the plan, sent, and its answer compared with the recording's. */
static int replay_original(struct rp *x, const struct pol_out *po)
{
	struct orig o;
	int rc;

	memset(&o, 0, offsetof(struct orig, params));
	o.sc = po->src && x->now.src && po->src == &x->now.src->pc ? x->now.src : NULL;
	if (!o.sc)
		return rp_fail(x, -EPROTO, "a policy step without its source command");
	o.c = &o.sc->c;
	const struct tpm_cmd *c = o.c;
	if (!x->tg.spawned && !x->o->allow_destructive && rp_replay_is_destructive(c->cc) &&
	    !on_own_entity(x, c)) {
		rp_note(x, REPLAY_REFUSED, c->cc,
			"%s is destructive and the target is not the spawned swtpm "
			"(--allow-destructive)",
			tpm_cc_name(c->cc));
		return 0;
	}
	if (c->malformed) {
		/* The TPM got these bytes when recording and answered: send them
		 * again as they are. */
		return orig_compare(x, &o, rp_xfer(x, o.sc->cmd, o.sc->len));
	}
	if (c->cc == TPM_CC_StartAuthSession)
		return rp_start_session(x, o.sc);
	if (c->cc == TPM_CC_ContextLoad)
		return rp_context_load(x, o.sc);
	if (orig_params(x, &o, &rc))
		return rc;
	int plan = orig_plan(x, c, po);
	if (orig_auth(x, &o, plan, po, &rc))
		return rc;
	if (o.need_names && orig_names(x, &o, &rc))
		return rc;
	if (orig_send(x, &o, plan, &rc))
		return rc;
	return orig_compare(x, &o, rc);
}

/* ---- policy steps ------------------------------------------------------ */

static int kstep(struct rp *x, int rc, const char *what)
{
	if (rc == -EIO)
		return rp_fail(x, rc, "the target stopped answering (TCTI error 0x%x) during %s",
			       x->tg.t.tss_rc, what);
	if (rc < 0)
		return rp_fail(x, rc, "policy step %s failed: %s", what, strerror(-rc));
	if (rc > 0)
		return rp_fail(x, -EPROTO, "policy step %s failed: TPM rc 0x%x (%s)", what, rc,
			       tpm_rc_str((uint32_t)rc));
	return 0;
}

/* reuse=saved: the kept session's context saved after a use (ContextSave)
 * or loaded before the next (ContextLoad). A session saved keeps its handle
 * and its nonces (Part 1, 30.3), so the next use's HMAC goes on from them.
 * A session a failed command ended (not in the policy's sequence) is not
 * loaded: the command that needs it starts one (kernel_resume). */
static int kept_session_step(struct rp *x, uint32_t cc)
{
	struct rp_sessions *k = &x->sessions;
	uint32_t h = 0;
	int rc;
	if (cc == TPM_CC_ContextSave) {
		if (!k->ks_live || k->ks_saved)
			return 0;
		rc = kstep(x,
			   tpmconn_context_save(&x->tg.t, k->ks.handle, k->ks_ctx, sizeof k->ks_ctx,
						&k->ks_ctx_len),
			   "ContextSave of the session");
		k->ks_saved = !rc;
		return rc;
	}
	if (!k->ks_live || !k->ks_saved)
		return 0;
	rc = kstep(x, tpmconn_context_load(&x->tg.t, k->ks_ctx, k->ks_ctx_len, &h),
		   "ContextLoad of the session");
	k->ks_saved = 0;
	if (!rc && h != k->ks.handle)
		return rp_fail(x, -EPROTO,
			       "ContextLoad of the session gave handle 0x%08x, saved from 0x%08x",
			       h, k->ks.handle);
	return rc;
}

int rp_emit(void *ctx, const struct pol_out *o)
{
	struct rp *x = ctx;
	uint64_t t0, tpm0;
	int rc = 0;
	if (x->now.fatal)
		return x->now.fatal;
	if (o->role != POL_ROLE_ORIGINAL && !x->policy.started) {
		if (x->policy.n_deferred ==
		    sizeof x->policy.deferred / sizeof x->policy.deferred[0])
			return rp_fail(x, -EPROTO, "policy steps before TPM2_Startup");
		x->policy.deferred[x->policy.n_deferred] = *o;
		x->policy.deferred[x->policy.n_deferred++].src = NULL;
		return 0;
	}
	x->now.cur_role = o->role;
	switch (o->role) {
	case POL_ROLE_ORIGINAL:
		rc = replay_original(x, o);
		break;
	case POL_ROLE_NULLKEY_INIT:
		if (o->cc == TPM_CC_CreatePrimary)
			rc = kstep(x,
				   tpmconn_create_null_primary(&x->tg.t, &x->sessions.cr,
							       TPM_RH_NULL, &x->sessions.nk),
				   "CreatePrimary of the null key");
		else if (o->cc == TPM_CC_ContextSave)
			rc = kstep(x,
				   tpmconn_context_save(
				       &x->tg.t, x->sessions.nk.handle, x->sessions.nk_ctx,
				       sizeof x->sessions.nk_ctx, &x->sessions.nk_ctx_len),
				   "ContextSave of the null key");
		else
			rc = kstep(x, tpmconn_flush(&x->tg.t, x->sessions.nk.handle),
				   "FlushContext of the null key");
		break;
	case POL_ROLE_SESSION_SETUP:
		if (o->handle == POL_KEPT_SESSION) {
			rc = kept_session_step(x, o->cc);
		} else if (o->cc == TPM_CC_ContextLoad) {
			rc = kstep(x,
				   tpmconn_context_load(&x->tg.t, x->sessions.nk_ctx,
							x->sessions.nk_ctx_len,
							&x->sessions.nk_loaded),
				   "ContextLoad of the null key");
		} else if (o->cc == TPM_CC_StartAuthSession) {
			t0 = db_mono_ns();
			tpm0 = x->res->tpm_ns;
			if (o->variant == POL_VAR_SALTED_ECC) {
				struct tpm_ecc_key k = x->sessions.nk;
				if (x->policy.pol.nullkey == POL_NULLKEY_CONTEXT_LOAD)
					k.handle = x->sessions.nk_loaded;
				rc = tpmconn_start_salted(&x->tg.t, &x->sessions.cr, &k,
							  &x->sessions.ks);
				rp_crypto_time(x, t0, tpm0);
			} else {
				/* salt=persistent:H (o->handle) or salt=none */
				struct obj *key = NULL;
				uint32_t h = o->variant == POL_VAR_SALTED ? o->handle : TPM_RH_NULL;
				if (h != TPM_RH_NULL && !(key = rp_obj_find(x, h)))
					key = rp_obj_add(x, h, h);
				const struct rp_sess_start q = {
				    .tpm_key = h,
				    .key = key,
				    .bind = TPM_RH_NULL,
				    .type = TPM_SE_HMAC,
				    .sym = {TPM_ALG_AES, 128, TPM_ALG_CFB, 0},
				    .hash = TPM_ALG_SHA256,
				    .nonce_len = 32};
				rc = rp_start_raw(x, &q, &x->sessions.ks, NULL, 0, NULL);
				if (rc == -ENOTSUP)
					rc = rp_fail(
					    x, -ENOTSUP,
					    "salt=persistent:0x%08x: that key cannot salt a "
					    "session (not loaded, or neither ECC nor RSA)",
					    h);
			}
			rc = kstep(x, rc, "StartAuthSession");
			x->sessions.ks_live = !rc;
		} else {
			rc = kstep(x, tpmconn_flush(&x->tg.t, x->sessions.nk_loaded),
				   "FlushContext of the null key");
		}
		break;
	case POL_ROLE_SESSION_END:
		/* A saved session is flushed by its handle as a loaded one. */
		if (x->sessions.ks_live)
			rc = kstep(x, tpmconn_flush(&x->tg.t, x->sessions.ks.handle),
				   "FlushContext of the session");
		x->sessions.ks_live = 0;
		x->sessions.ks_saved = 0;
		break;
	case POL_ROLE_NAME_LOOKUP: {
		uint32_t rep;
		if (!rp_map_handle(x, o->handle, &rep)) {
			struct obj *ob = rp_obj_find(x, o->handle);
			if (!ob)
				ob = rp_obj_add(x, o->handle, rep);
			rc = rp_read_public(x, rep, ob);
			if (rc > 0)
				rc = 0; /* the command itself will be refused or fail */
		}
		break;
	}
	}
	x->now.cur_role = POL_ROLE_ORIGINAL;
	return x->now.fatal ? x->now.fatal : (rc < 0 ? rc : 0);
}
