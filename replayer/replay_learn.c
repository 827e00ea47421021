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
int unredact(struct rp *x, uint8_t *p, size_t *plen, size_t cap)
{
	uint32_t cc = x->cur->c.cc;
	if (!(x->cur->flags & REC_F_REDACTED) || *plen < 2)
		return 0;
	size_t n = wire_get_u16(p);
	if (n + 2 > *plen || !n || !all_zero(p + 2, n))
		return 0;
	switch (cc) {
	case TPM_CC_Create:
	case TPM_CC_CreatePrimary:
	case TPM_CC_CreateLoaded: {
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
		note(x, REPLAY_SUBSTITUTED, cc,
		     "%s: sensitive area redacted when recording; sent empty userAuth and %zu "
		     "zero bytes of data",
		     tpm_cc_name(cc), data);
		return 0;
	}
	case TPM_CC_HierarchyChangeAuth:
	case TPM_CC_NV_ChangeAuth:
	case TPM_CC_ObjectChangeAuth:
	case TPM_CC_NV_DefineSpace:
	case TPM_CC_NV_DefineSpace2:
	case TPM_CC_PCR_SetAuthValue:
	case TPM_CC_HMAC_Start:
	case TPM_CC_HashSequenceStart:
		/* all-zero authValue = empty once trailing zeros go (Part 1 19.6.4.3) */
		note(x, REPLAY_SUBSTITUTED, cc,
		     "%s: authValue redacted when recording; the zeroed value is an empty "
		     "authValue",
		     tpm_cc_name(cc));
		return 0;
	case TPM_CC_Duplicate:
		note(x, REPLAY_SUBSTITUTED, cc,
		     "Duplicate: encryptionKeyIn redacted; an all-zero key of the same size used");
		return 0;
	case TPM_CC_NV_Write:
	case TPM_CC_RSA_Encrypt:
	case TPM_CC_EncryptDecrypt2:
	case TPM_CC_ECC_Encrypt:
	case TPM_CC_MakeCredential:
	case TPM_CC_StirRandom:
		/* Data, not a key: zeros of the same size cost the TPM the same. */
		note(x, REPLAY_SUBSTITUTED, cc,
		     "%s: data redacted when recording; %zu zero bytes of the same size sent",
		     tpm_cc_name(cc), n);
		return 0;
	}
	note(x, REPLAY_REFUSED, cc, "%s: its secret first parameter was redacted when recording",
	     tpm_cc_name(cc));
	return 1;
}

/* The authValue for authorization handle i: --auth, else the recorded
 * password when it was kept, else empty. */
void auth_value(struct rp *x, unsigned i, const uint8_t **v, size_t *len)
{
	const struct src_cmd *sc = x->cur;
	const struct replay_auth *a = i < sc->c.n_handles ? auth_for(x, sc->c.handles[i]) : NULL;
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
			note(x, REPLAY_SUBSTITUTED, sc->c.cc,
			     "password of 0x%08x redacted when recording: sent empty (give --auth)",
			     sc->c.handles[i]);
		return;
	}
	*v = p;
	*len = sc->c.sess[i].hmac_size;
}

/* The authValues a successful command gave entities, from the parameters
 * the replay sent (Part 3: NV_DefineSpace 31.3, NV_ChangeAuth 31.14,
 * HierarchyChangeAuth 24.8, CreatePrimary 24.1, CreateLoaded 12.9, Create
 * 12.1 for a later Load 12.2). A transient handle that is flushed or taken
 * by a new object forgets what it had. */
static void learn_from(struct rp *x, const uint8_t *sent, size_t sent_len, size_t npriv0)
{
	struct src_cmd *sc = x->cur;
	const struct tpm_cmd *c = &sc->c;
	struct wire_rd q;
	const uint8_t *v;
	uint16_t n;
	wire_rd_init(&q, sent, sent_len);
	switch (c->cc) {
	case TPM_CC_NV_DefineSpace: {
		v = wire_tpm2b(&q, &n);
		wire_u16(&q); /* TPM2B_NV_PUBLIC size, then nvIndex */
		uint32_t idx = wire_u32(&q);
		if (!q.err)
			learn_auth(x, idx, v, n);
		break;
	}
	case TPM_CC_NV_ChangeAuth:
	case TPM_CC_HierarchyChangeAuth:
		v = wire_tpm2b(&q, &n);
		if (!q.err && c->n_handles)
			learn_auth(x, c->handles[0], v, n);
		break;
	case TPM_CC_NV_UndefineSpace:
	case TPM_CC_NV_UndefineSpaceSpecial:
		if (c->n_handles >= 2 && c->cc == TPM_CC_NV_UndefineSpace)
			learn_auth(x, c->handles[1], NULL, 0);
		else if (c->n_handles)
			learn_auth(x, c->handles[0], NULL, 0);
		break;
	case TPM_CC_CreatePrimary:
	case TPM_CC_CreateLoaded:
		v = sensitive_create_auth(&q, &n);
		if (sc->rsp_handle)
			learn_auth(x, sc->rsp_handle, v, n);
		break;
	case TPM_CC_Create:
		v = sensitive_create_auth(&q, &n);
		if (v && x->n_priv == npriv0 + 1 && n <= sizeof x->priv[0].auth.value) {
			/* capture() just mapped this Create's outPrivate. */
			struct privmap *m = &x->priv[x->n_priv - 1];
			m->has_auth = 1;
			m->auth.len = n;
			memcpy(m->auth.value, v, n);
		}
		break;
	case TPM_CC_Load: {
		/* replay_original looked the blob up already */
		const struct privmap *m = sc->load_priv >= 0 ? &x->priv[sc->load_priv] : NULL;
		if (sc->rsp_handle)
			learn_auth(x, sc->rsp_handle, m && m->has_auth ? m->auth.value : NULL,
				   m ? m->auth.len : 0);
		break;
	}
	case TPM_CC_LoadExternal:
		if (sc->rsp_handle)
			learn_auth(x, sc->rsp_handle, NULL, 0);
		break;
	case TPM_CC_EvictControl: {
		/* A transient object made persistent keeps its authValue; a
		 * persistent one evicted is gone. */
		uint32_t ph = wire_u32(&q);
		const struct replay_auth *a = NULL;
		if (q.err || c->n_handles < 2)
			break;
		for (unsigned i = 0; i < x->n_learned; i++)
			if (x->learned[i].handle == c->handles[1])
				a = &x->learned[i];
		if (tpm_ht_of(c->handles[1]) == TPM_HT_PERSISTENT)
			learn_auth(x, ph, NULL, 0);
		else if (a) {
			struct replay_auth copy = *a;
			learn_auth(x, ph, copy.value, copy.len);
		}
		break;
	}
	case TPM_CC_FlushContext:
		if (c->param_size >= 4)
			learn_auth(x, wire_get_u32(sc->cmd + c->param_off), NULL, 0);
		break;
	default:
		break;
	}
}

int in_list(const uint32_t *l, unsigned n, uint32_t h)
{
	for (unsigned i = 0; i < n; i++)
		if (l[i] == h)
			return 1;
	return 0;
}

static void list_add(uint32_t *l, unsigned *n, uint32_t h)
{
	if (!in_list(l, *n, h) && *n < MADE_MAX)
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
static void track_made(struct rp *x, const uint32_t *hs, const uint8_t *sent, size_t sent_len)
{
	const struct tpm_cmd *c = &x->cur->c;
	struct wire_rd q;
	uint16_t n;
	wire_rd_init(&q, sent, sent_len);
	switch (c->cc) {
	case TPM_CC_NV_DefineSpace: {
		wire_tpm2b(&q, &n); /* auth */
		wire_u16(&q);	    /* TPM2B_NV_PUBLIC size, then nvIndex */
		uint32_t idx = wire_u32(&q);
		if (!q.err)
			list_add(x->made_nv, &x->n_made_nv, idx);
		break;
	}
	case TPM_CC_NV_UndefineSpace:
		if (c->n_handles >= 2)
			list_del(x->made_nv, &x->n_made_nv, c->handles[1]);
		break;
	case TPM_CC_NV_UndefineSpaceSpecial:
		if (c->n_handles >= 1)
			list_del(x->made_nv, &x->n_made_nv, c->handles[0]);
		break;
	case TPM_CC_EvictControl: {
		uint32_t ph = wire_u32(&q);
		if (q.err || c->n_handles < 2)
			break;
		if (tpm_ht_of(hs[1]) == TPM_HT_PERSISTENT)
			list_del(x->made_persist, &x->n_made_persist, hs[1]);
		else
			list_add(x->made_persist, &x->n_made_persist, ph);
		break;
	}
	}
}

/* What a successful command tells about handles, Names and contexts. */
void capture(struct rp *x, const uint32_t *hs, const uint8_t *pp, size_t pl, struct authent *a,
	     unsigned na, const uint8_t *sent, size_t sent_len)
{
	size_t npriv0 = x->n_priv;
	struct src_cmd *sc = x->cur;
	const struct tpm_cmd *c = &sc->c;
	struct wire_rd r, q;
	uint16_t n;
	struct obj *o = NULL;
	if (c->info && c->info->handles_out && tpm_ht_of(sc->rsp_handle) == TPM_HT_TRANSIENT &&
	    x->t.rsp_len >= TPM_HEADER_SIZE + 4) {
		o = obj_add(x, sc->rsp_handle, wire_get_u32(x->t.rsp + TPM_HEADER_SIZE));
		o->created = 1;
		o->client = sc->client;
	}
	wire_rd_init(&r, pp, pl);
	wire_rd_init(&q, sent, sent_len);
	switch (c->cc) {
	case TPM_CC_Create:
	case TPM_CC_Import:
	case TPM_CC_ObjectChangeAuth: {
		const uint8_t *rp;
		size_t rl, po = 0;
		uint16_t rn, pn;
		wire_tpm2b(&r, &n);
		size_t privlen = r.off;
		wire_tpm2b(&r, &pn);
		size_t publen = c->cc == TPM_CC_Create && !r.err ? r.off - privlen : 0;
		po = privlen;
		if (rec_rsp_params(x, &rp, &rl) || rl < 2 || (rn = wire_get_u16(rp)) + 2u > rl ||
		    privlen > pl)
			break;
		if (priv_add(x, rp, rn + 2u, pp, privlen, publen ? pp + po : NULL, publen))
			fail(x, -ENOMEM, "out of memory");
		break;
	}
	case TPM_CC_CreatePrimary:
	case TPM_CC_CreateLoaded: {
		if (c->cc == TPM_CC_CreateLoaded)
			wire_tpm2b(&r, &n); /* outPrivate */
		size_t po = r.off;
		wire_tpm2b(&r, &n);
		size_t plen = r.off - po;
		if (c->cc == TPM_CC_CreatePrimary) {
			wire_tpm2b(&r, &n); /* creationData */
			wire_tpm2b(&r, &n); /* creationHash */
			wire_u16(&r);	    /* creationTicket */
			wire_u32(&r);
			wire_tpm2b(&r, &n);
		}
		const uint8_t *name = wire_tpm2b(&r, &n);
		if (o && !r.err) {
			obj_set_pub(o, pp + po, plen);
			obj_set_name(o, name, n);
		}
		break;
	}
	case TPM_CC_Load:
	case TPM_CC_LoadExternal: {
		const uint8_t *name = wire_tpm2b(&r, &n);
		if (o && !r.err)
			obj_set_name(o, name, n);
		wire_tpm2b(&q, &n); /* inPrivate / inPrivate (TPM2B_SENSITIVE) */
		size_t po = q.off;
		wire_tpm2b(&q, &n);
		if (o && !q.err)
			obj_set_pub(o, sent + po, q.off - po);
		break;
	}
	case TPM_CC_ReadPublic:
	case TPM_CC_NV_ReadPublic: {
		size_t po = r.off;
		wire_tpm2b(&r, &n);
		size_t plen = r.off - po;
		const uint8_t *name = wire_tpm2b(&r, &n);
		if (r.err)
			break;
		o = obj_find(x, c->handles[0]);
		if (!o)
			o = obj_add(x, c->handles[0], hs[0]);
		if (c->cc == TPM_CC_ReadPublic)
			obj_set_pub(o, pp + po, plen);
		obj_set_name(o, name, n);
		break;
	}
	case TPM_CC_NV_Write:
	case TPM_CC_NV_Increment:
	case TPM_CC_NV_Extend:
	case TPM_CC_NV_SetBits:
	case TPM_CC_NV_WriteLock:
	case TPM_CC_NV_ReadLock:
	case TPM_CC_NV_UndefineSpace:
	case TPM_CC_NV_UndefineSpaceSpecial:
	case TPM_CC_NV_ChangeAuth:
	case TPM_CC_NV_GlobalWriteLock:
	case TPM_CC_EvictControl:
		/* The Name of an NV index changes with its attributes (written,
		 * locked; Part 1 37); persistent objects come and go. */
		for (int i = 0; i < MAX_OBJS; i++) {
			uint8_t t = tpm_ht_of(x->objs[i].rec);
			if (x->objs[i].used && (t == TPM_HT_NV_INDEX || t == TPM_HT_PERSISTENT))
				x->objs[i].used = 0;
		}
		break;
	case TPM_CC_ContextSave: {
		const uint8_t *rp;
		size_t rl;
		if (!rec_rsp_params(x, &rp, &rl) && ctx_add(x, rp, rl, pp, pl, c->handles[0]))
			fail(x, -ENOMEM, "out of memory");
		break;
	}
	case TPM_CC_FlushContext: {
		uint32_t h = c->param_size >= 4 ? wire_get_u32(sc->cmd + c->param_off) : 0;
		struct obj *f = obj_find(x, h);
		if (tpm_ht_of(h) == TPM_HT_TRANSIENT && f)
			f->used = 0;
		else
			sess_drop(x, h);
		break;
	}
	case TPM_CC_PolicyAuthValue:
	case TPM_CC_PolicyPassword:
	case TPM_CC_PolicyRestart: {
		struct rsess *s = sess_find(x, c->handles[0]);
		if (s) {
			s->pol_authvalue = c->cc == TPM_CC_PolicyAuthValue;
			s->pol_password = c->cc == TPM_CC_PolicyPassword;
		}
		break;
	}
	}
	learn_from(x, sent, sent_len, npriv0);
	track_made(x, hs, sent, sent_len);
	/* Part 1 19.6.4: without continueSession the TPM ends the session. */
	for (unsigned i = 0; i < na; i++) {
		if (!a[i].is_sess || (a[i].attrs & TPMA_SESSION_CONTINUESESSION))
			continue;
		if (a[i].rs)
			a[i].rs->used = 0;
		else
			x->ks_live = 0;
	}
}
