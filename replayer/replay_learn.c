/* The replay engine's learning: redacted bytes filled in, authValues learnt
 * from what the replay sent, and the bookkeeping of a command that succeeded
 * (handles, contexts, blobs it made) (replay_int.h). */
#include "replayer/replay_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- redacted bytes -------------------------------------------------- */

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The recorder zeroes secrets and keeps sizes (model/tpm/redact.c). Replaces
 * what was zeroed by a valid substitute, or refuses (returns 1). */
int rp_unredact(struct rp *x, const struct src_cmd *sc, uint8_t *p, size_t *plen, size_t cap)
{
	uint32_t cc = sc->c.cc;
	if (!(sc->flags & REC_F_REDACTED) || *plen < 2)
		return 0;
	size_t n = wire_get_u16(p);
	if (n + 2 > *plen || !n || !all_zero(p + 2, n))
		return 0;
	const struct tpm_cc_effects *e = tpm_cc_effects(cc);
	if (e && e->template_) {
		/* TPM2B_SENSITIVE_CREATE {userAuth, data} (Part 2 11.1.15). Four
		 * zero bytes are both empty: the original exactly. */
		if (n == 4)
			return 0;
		uint32_t attrs = 0;
		if (*plen >= 2 + n + 2 + 8)
			attrs = wire_get_u32(p + 2 + n + 2 + 4);
		/* sensitiveDataOrigin: the TPM makes the key, data must be empty
		 * (Part 3 12.1); otherwise keep the length of the sealed data. */
		size_t data = attrs & TPMA_OBJECT_SENSITIVEDATAORIGIN ? 0 : n - 4;
		size_t newn = 4 + data;
		if (*plen - n + newn > cap)
			return 0;
		memmove(p + 2 + newn, p + 2 + n, *plen - 2 - n);
		wire_put_u16(p, (uint16_t)newn);
		memset(p + 2, 0, newn);
		wire_put_u16(p + 4, (uint16_t)data);
		*plen = *plen - n + newn;
		rp_note(x, REPLAY_SUBSTITUTED, cc,
			"%s: sensitive area redacted when recording; sent empty userAuth and %zu "
			"zero bytes of data",
			tpm_cc_name(cc), data);
		return 0;
	}
	if (e && e->secret_auth) {
		/* all-zero authValue = empty once trailing zeros go (Part 1 19.6.4.3) */
		rp_note(x, REPLAY_SUBSTITUTED, cc,
			"%s: authValue redacted when recording; the zeroed value is an empty "
			"authValue",
			tpm_cc_name(cc));
		return 0;
	}
	if (e && e->secret_key) {
		rp_note(x, REPLAY_SUBSTITUTED, cc,
			"%s: %s redacted; an all-zero key of the same size used", tpm_cc_name(cc),
			"encryptionKeyIn");
		return 0;
	}
	if (e && e->secret_data) {
		/* Data, not a key: zeros of the same size cost the TPM the same. */
		rp_note(x, REPLAY_SUBSTITUTED, cc,
			"%s: data redacted when recording; %zu zero bytes of the same size sent",
			tpm_cc_name(cc), n);
		return 0;
	}
	rp_note(x, REPLAY_REFUSED, cc, "%s: its secret first parameter was redacted when recording",
		tpm_cc_name(cc));
	return 1;
}

/* The authValue for authorization handle i: --auth, else the recorded
 * password when it was kept, else empty. */
void rp_auth_value(struct rp *x, const struct src_cmd *sc, unsigned i, const uint8_t **v,
		   size_t *len)
{
	const struct replay_auth *a = i < sc->c.n_handles ? rp_auth_for(x, sc->c.handles[i]) : NULL;
	*v = NULL;
	*len = 0;
	if (a) {
		*v = a->value;
		*len = a->len;
		return;
	}
	if (i >= sc->c.n_sessions || sc->c.sess[i].handle != TPM_RS_PW || !sc->c.sess[i].hmac_size)
		return;
	const uint8_t *p = sc->cmd + sc->c.sess[i].hmac_off;
	if (all_zero(p, sc->c.sess[i].hmac_size)) {
		if (sc->flags & REC_F_REDACTED)
			rp_note(
			    x, REPLAY_SUBSTITUTED, sc->c.cc,
			    "password of 0x%08x redacted when recording: sent empty (give --auth)",
			    sc->c.handles[i]);
		return;
	}
	*v = p;
	*len = sc->c.sess[i].hmac_size;
}

/* ---- what a command did (model/tpm/tpm_cc_effects.def) ------------------- */

/* The handle a command names in its parameters at a layout (nvIndex,
 * persistentHandle, flushHandle); 0 if it is not there. */
static uint32_t param_handle(const uint8_t *p, size_t len, const char *layout)
{
	struct wire_rd q;
	wire_rd_init(&q, p, len);
	tpm_layout_skip(&q, layout);
	uint32_t h = wire_u32(&q);
	return q.err ? 0 : h;
}

/* The recorded handle a flushing command flushes: FlushContext's parameter,
 * or the sequence object among its handles (SequenceComplete's first,
 * EventSequenceComplete's second after the PCR). */
static uint32_t flushed(const struct tpm_cc_effects *e, const struct src_cmd *sc)
{
	const struct tpm_cmd *c = &sc->c;
	if (e->cmd_handle)
		return param_handle(sc->cmd + c->param_off, c->param_size, e->cmd_handle);
	for (unsigned i = 0; i < c->n_handles; i++)
		if (tpm_ht_of(c->handles[i]) == TPM_HT_TRANSIENT)
			return c->handles[i];
	return 0;
}

/* The NV index among a command's handles (NV_UndefineSpace names it second,
 * NV_UndefineSpaceSpecial first); 0 if none. */
uint32_t rp_nv_handle(const struct tpm_cmd *c)
{
	for (unsigned i = 0; i < c->n_handles; i++)
		if (tpm_ht_of(c->handles[i]) == TPM_HT_NV_INDEX)
			return c->handles[i];
	return 0;
}

/* A persistent object made from a transient one keeps its authValue; a
 * persistent one evicted is gone (EvictControl, Part 3 28.5). */
static void learn_persist(struct rp *x, const struct tpm_cmd *c, uint32_t ph)
{
	const struct replay_auth *a = NULL;
	for (unsigned i = 0; i < x->ent.n_learned; i++)
		if (x->ent.learned[i].handle == c->handles[1])
			a = &x->ent.learned[i];
	if (tpm_ht_of(c->handles[1]) == TPM_HT_PERSISTENT)
		rp_learn_auth(x, ph, NULL, 0);
	else if (a) {
		struct replay_auth copy = *a;
		rp_learn_auth(x, ph, copy.value, copy.len);
	}
}

/* The authValues a successful command gave entities, from the parameters
 * the replay sent (Part 3: NV_DefineSpace 31.3, NV_ChangeAuth 31.14,
 * HierarchyChangeAuth 24.8, CreatePrimary 24.1, CreateLoaded 12.9, Create
 * 12.1 for a later Load 12.2). A transient handle that is flushed or taken
 * by a new object forgets what it had. */
static void learn_from(struct rp *x, const struct src_cmd *sc, const struct tpm_cc_effects *e,
		       const uint8_t *sent, size_t sent_len, size_t npriv0)
{
	const struct tpm_cmd *c = &sc->c;
	struct wire_rd q;
	const uint8_t *v;
	uint16_t n;
	wire_rd_init(&q, sent, sent_len);
	if (e->nv_define) {
		v = wire_tpm2b(&q, &n); /* auth, then the index in TPM2B_NV_PUBLIC */
		uint32_t idx = param_handle(sent, sent_len, e->cmd_handle);
		if (!q.err && idx)
			rp_learn_auth(x, idx, v, n);
	} else if (e->new_auth) {
		v = wire_tpm2b(&q, &n);
		if (!q.err && c->n_handles)
			rp_learn_auth(x, c->handles[0], v, n);
	} else if (e->nv_undefine) {
		if (rp_nv_handle(c))
			rp_learn_auth(x, rp_nv_handle(c), NULL, 0);
	} else if (e->template_) {
		v = rp_sensitive_create_auth(&q, &n);
		if (e->transient && sc->rsp_handle)
			rp_learn_auth(x, sc->rsp_handle, v, n);
		else if (e->blob && v && x->ent.n_priv == npriv0 + 1 &&
			 n <= sizeof x->ent.priv[0].auth.value) {
			/* rp_capture() just mapped this Create's outPrivate. */
			struct privmap *m = &x->ent.priv[x->ent.n_priv - 1];
			m->has_auth = 1;
			m->auth.len = n;
			memcpy(m->auth.value, v, n);
		}
	} else if (e->load) {
		/* Load: replay_original looked the blob up already; LoadExternal
		 * has none, its object an empty authValue here. */
		const struct privmap *m = sc->load_priv >= 0 ? &x->ent.priv[sc->load_priv] : NULL;
		if (sc->rsp_handle)
			rp_learn_auth(x, sc->rsp_handle, m && m->has_auth ? m->auth.value : NULL,
				      m ? m->auth.len : 0);
	} else if (e->persist) {
		uint32_t ph = param_handle(sent, sent_len, e->cmd_handle);
		if (ph && c->n_handles >= 2)
			learn_persist(x, c, ph);
	} else if (e->flush) {
		uint32_t h = flushed(e, sc);
		if (h)
			rp_learn_auth(x, h, NULL, 0);
	}
}

int rp_in_list(const uint32_t *l, unsigned n, uint32_t h)
{
	for (unsigned i = 0; i < n; i++)
		if (l[i] == h)
			return 1;
	return 0;
}

static void list_add(uint32_t *l, unsigned *n, uint32_t h)
{
	if (!rp_in_list(l, *n, h) && *n < MADE_MAX)
		l[(*n)++] = h;
}

static void list_del(uint32_t *l, unsigned *n, uint32_t h)
{
	for (unsigned i = 0; i < *n; i++)
		if (l[i] == h) {
			l[i] = l[--*n];
			return;
		}
}

/* NV indices and persistent objects the run made (and removed again). */
static void track_made(struct rp *x, const struct src_cmd *sc, const struct tpm_cc_effects *e,
		       const uint32_t *hs, const uint8_t *sent, size_t sent_len)
{
	const struct tpm_cmd *c = &sc->c;
	if (e->nv_define) {
		uint32_t idx = param_handle(sent, sent_len, e->cmd_handle);
		if (idx)
			list_add(x->ent.made_nv, &x->ent.n_made_nv, idx);
	} else if (e->nv_undefine) {
		if (rp_nv_handle(c))
			list_del(x->ent.made_nv, &x->ent.n_made_nv, rp_nv_handle(c));
	} else if (e->persist) {
		uint32_t ph = param_handle(sent, sent_len, e->cmd_handle);
		if (!ph || c->n_handles < 2)
			return;
		if (tpm_ht_of(hs[1]) == TPM_HT_PERSISTENT)
			list_del(x->ent.made_persist, &x->ent.n_made_persist, hs[1]);
		else
			list_add(x->ent.made_persist, &x->ent.n_made_persist, ph);
	}
}

/* Sets an object's public area from the TPM2B_PUBLIC a layout finds in p. */
static void pub_at(struct obj *o, const uint8_t *p, size_t len, const char *layout)
{
	struct wire_rd r;
	uint16_t n;
	wire_rd_init(&r, p, len);
	tpm_layout_skip(&r, layout);
	size_t po = r.off;
	wire_tpm2b(&r, &n);
	if (!r.err)
		rp_obj_set_pub(o, p + po, r.off - po);
}

/* The Name (and public area) of an object from the response pp, and its
 * public area from the parameters sent (Load's inPublic). For a command
 * that reads an entity's public area (ReadPublic, NV_ReadPublic) the object
 * is handle 0's, mapped here if the replay had not met it. */
static void capture_object(struct rp *x, const struct src_cmd *sc, const struct tpm_cc_effects *e,
			   struct obj *o, const struct rp_sent *s)
{
	const struct tpm_cmd *c = &sc->c;
	const uint32_t *hs = s->hs;
	const uint8_t *pp = s->pp;
	size_t pl = s->pl;
	if (e->rsp_name) {
		struct wire_rd r;
		uint16_t n;
		wire_rd_init(&r, pp, pl);
		tpm_layout_skip(&r, e->rsp_name);
		const uint8_t *name = wire_tpm2b(&r, &n);
		if (!r.err && e->public_ && c->n_handles) {
			o = rp_obj_find(x, c->handles[0]);
			if (!o)
				o = rp_obj_add(x, c->handles[0], hs[0]);
		}
		if (o && !r.err) {
			if (e->rsp_public)
				pub_at(o, pp, pl, e->rsp_public);
			rp_obj_set_name(o, name, n);
		}
	}
	if (o && e->cmd_public)
		pub_at(o, s->sent, s->sent_len, e->cmd_public);
}

/* A private blob from the response (outPrivate first, Create's outPublic
 * after it), mapped to the recorded one for a later Load. */
static void capture_blob(struct rp *x, const struct src_cmd *sc, const struct tpm_cc_effects *e,
			 const uint8_t *pp, size_t pl)
{
	struct wire_rd r;
	const uint8_t *rp;
	size_t rl, po = 0, publen = 0;
	uint16_t n, rn;
	wire_rd_init(&r, pp, pl);
	wire_tpm2b(&r, &n);
	size_t privlen = r.off;
	if (e->rsp_public) {
		wire_rd_init(&r, pp, pl);
		tpm_layout_skip(&r, e->rsp_public);
		po = r.off;
		wire_tpm2b(&r, &n);
		publen = !r.err ? r.off - po : 0;
	}
	if (rp_rec_rsp_params(sc, &rp, &rl) || rl < 2 || (rn = wire_get_u16(rp)) + 2u > rl ||
	    privlen > pl)
		return;
	if (rp_priv_add(x, rp, rn + 2u, pp, privlen, publen ? pp + po : NULL, publen))
		rp_fail(x, -ENOMEM, "out of memory");
}

/* Objects whose Name the command may have changed: NV indices (written,
 * locked, undefined; Part 1 37) and persistent objects (evicted or made)
 * are forgotten, to be read again. */
static void forget_names(struct rp *x)
{
	for (int i = 0; i < MAX_OBJS; i++) {
		uint8_t t = tpm_ht_of(x->ent.objs[i].rec);
		if (x->ent.objs[i].used && (t == TPM_HT_NV_INDEX || t == TPM_HT_PERSISTENT))
			x->ent.objs[i].used = 0;
	}
}

/* Policy commands whose effect on a session's HMAC the replay must know
 * (Part 3 23.18 PolicyAuthValue, 23.19 PolicyPassword, 23.13 PolicyRestart). */
static void capture_policy(struct rp *x, const struct tpm_cmd *c)
{
	switch (c->cc) {
	case TPM_CC_PolicyAuthValue:
	case TPM_CC_PolicyPassword:
	case TPM_CC_PolicyRestart: {
		struct rsess *s = rp_sess_find(x, c->handles[0]);
		if (s) {
			s->pol_authvalue = c->cc == TPM_CC_PolicyAuthValue;
			s->pol_password = c->cc == TPM_CC_PolicyPassword;
		}
		break;
	}
	}
}

/* What a successful command tells about handles, Names and contexts, by
 * what the command does (model/tpm/tpm_cc_effects.def). */
void rp_capture(struct rp *x, struct src_cmd *sc, const struct rp_sent *s)
{
	const uint32_t *hs = s->hs;
	const uint8_t *pp = s->pp, *sent = s->sent;
	size_t pl = s->pl, sent_len = s->sent_len;
	struct authent *a = s->a;
	unsigned na = s->na;
	size_t npriv0 = x->ent.n_priv;
	const struct tpm_cmd *c = &sc->c;
	const struct tpm_cc_effects *e = tpm_cc_effects(c->cc);
	struct obj *o = NULL;
	if (c->info && c->info->handles_out && tpm_ht_of(sc->rsp_handle) == TPM_HT_TRANSIENT &&
	    x->tg.t.rsp_len >= TPM_HEADER_SIZE + 4) {
		o = rp_obj_add(x, sc->rsp_handle, wire_get_u32(x->tg.t.rsp + TPM_HEADER_SIZE));
		o->created = 1;
		o->client = sc->client;
	}
	if (e) {
		if (e->blob)
			capture_blob(x, sc, e, pp, pl);
		else
			capture_object(x, sc, e, o, s);
		if (e->nv_write || e->nv_undefine || e->persist)
			forget_names(x);
		if (e->ctx_save) {
			const uint8_t *rp;
			size_t rl;
			if (!rp_rec_rsp_params(sc, &rp, &rl) &&
			    rp_ctx_add(x, rp, rl, pp, pl, c->handles[0]))
				rp_fail(x, -ENOMEM, "out of memory");
		}
		if (e->flush) {
			uint32_t h = flushed(e, sc);
			struct obj *f = rp_obj_find(x, h);
			if (tpm_ht_of(h) == TPM_HT_TRANSIENT && f)
				f->used = 0;
			else
				rp_sess_drop(x, h);
		}
		capture_policy(x, c);
		learn_from(x, sc, e, sent, sent_len, npriv0);
		track_made(x, sc, e, hs, sent, sent_len);
	}
	/* Part 1 19.6.4: without continueSession the TPM ends the session. */
	for (unsigned i = 0; i < na && (!e || e->ends_session); i++) {
		if (!a[i].is_sess || (a[i].attrs & TPMA_SESSION_CONTINUESESSION))
			continue;
		if (a[i].rs)
			a[i].rs->used = 0;
		else
			x->sessions.ks_live = 0;
	}
}
