/* The replay engine's maps: the entities it knows (recorded handle <-> the
 * target's), the trace's sessions, authValues, and the ContextSave and
 * outPrivate blobs of the recording <-> those of the target (replay_int.h). */
#include "replayer/replay_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys of the blob maps: with the replay's own crypto context (sess_hash),
 * not a fresh OpenSSL one per call. */
static void sha256(struct rp *x, const void *d, size_t n, uint8_t out[32])
{
	sess_hash(&x->sessions.cr, TPM_ALG_SHA256, d, n, out);
}

/* ---- entities ------------------------------------------------------------ */

/* Only entries below n_objs were ever used: a trace that makes no object
 * (a PCR_Extend's handle is looked up all the same) reads none, rather than
 * 64 entries on cache lines of their own (struct obj holds a public area). */
struct obj *rp_obj_find(struct rp *x, uint32_t rec)
{
	for (unsigned i = 0; i < x->ent.n_objs; i++)
		if (x->ent.objs[i].used && x->ent.objs[i].rec == rec)
			return &x->ent.objs[i];
	return NULL;
}

struct obj *rp_obj_add(struct rp *x, uint32_t rec, uint32_t rep)
{
	struct obj *o = rp_obj_find(x, rec);
	for (unsigned i = 0; !o && i < MAX_OBJS; i++)
		if (!x->ent.objs[i].used) {
			o = &x->ent.objs[i];
			if (i >= x->ent.n_objs)
				x->ent.n_objs = i + 1;
		}
	if (!o)
		o = &x->ent.objs[rec % MAX_OBJS]; /* full (n_objs is MAX_OBJS): an old entry goes */
	memset(o, 0, sizeof *o);
	o->used = 1;
	o->rec = rec;
	o->rep = rep;
	return o;
}

void rp_obj_set_name(struct obj *o, const uint8_t *n, uint16_t len)
{
	if (len > SESS_MAX_NAME)
		return;
	memcpy(o->name.b, n, len);
	o->name.size = len;
	o->has_name = 1;
}

void rp_obj_set_pub(struct obj *o, const uint8_t *tpm2b, size_t len)
{
	if (len > PUB_MAX)
		return;
	memcpy(o->pub, tpm2b, len);
	o->publen = (uint16_t)len;
}

struct rsess *rp_sess_find(struct rp *x, uint32_t rec)
{
	for (int i = 0; i < MAX_SESS; i++)
		if (x->sessions.sess[i].used && x->sessions.sess[i].rec == rec)
			return &x->sessions.sess[i];
	return NULL;
}

/* Session s is used or loaded by client: in a per-client-space trace it is
 * flushed after the end of the client holding it, which becomes the one of
 * the two that ends later (a rewrite that keeps one session for several
 * processes, docs/advise.md; a recording has one client per session). */
void rp_sess_give(struct rp *x, struct rsess *s, uint32_t client)
{
	if (!x->cl.rm_spaces || s->client == client || client >= x->cl.n_cl)
		return;
	if (s->client >= x->cl.n_cl || x->cl.cl_last[client] > x->cl.cl_last[s->client])
		s->client = client;
}

/* The same for an object the replay created (rm_spaces: client_end). */
void rp_obj_give(struct rp *x, struct obj *o, uint32_t client)
{
	if (!x->cl.rm_spaces || o->client == client || client >= x->cl.n_cl)
		return;
	if (o->client >= x->cl.n_cl || x->cl.cl_last[client] > x->cl.cl_last[o->client])
		o->client = client;
}

void rp_sess_drop(struct rp *x, uint32_t rec)
{
	struct rsess *s = rp_sess_find(x, rec);
	if (s)
		s->used = 0;
}

static int is_mapped_type(uint32_t h)
{
	return tpm_ht_of(h) == TPM_HT_TRANSIENT || tpm_ht_is_session(h);
}

/* The target's handle for a recorded one; -ENOENT if the trace never made it. */
int rp_map_handle(struct rp *x, uint32_t rec, uint32_t *rep)
{
	if (!is_mapped_type(rec)) {
		*rep = rec;
		return 0;
	}
	if (tpm_ht_of(rec) == TPM_HT_TRANSIENT) {
		struct obj *o = rp_obj_find(x, rec);
		if (!o)
			return -ENOENT;
		*rep = o->rep;
		return 0;
	}
	struct rsess *s = rp_sess_find(x, rec);
	if (!s)
		return -ENOENT;
	*rep = s->s.handle;
	return 0;
}

/* The authValue of an entity by its recorded handle: the one the replay
 * itself gave it when it created it (NV_DefineSpace, CreatePrimary, Create
 * then Load, HierarchyChangeAuth, NV_ChangeAuth: what the target now holds,
 * even where the recording's bytes were redacted), else --auth. */
const struct replay_auth *rp_auth_for(struct rp *x, uint32_t rec)
{
	for (unsigned i = 0; i < x->ent.n_learned; i++)
		if (x->ent.learned[i].handle == rec)
			return &x->ent.learned[i];
	for (unsigned i = 0; i < x->o->n_auths; i++)
		if (x->o->auths[i].handle == rec)
			return &x->o->auths[i];
	return NULL;
}

/* Records (or, value NULL, forgets) the authValue of recorded handle rec. */
void rp_learn_auth(struct rp *x, uint32_t rec, const uint8_t *value, size_t len)
{
	unsigned i = 0;
	while (i < x->ent.n_learned && x->ent.learned[i].handle != rec)
		i++;
	if (!value || len > sizeof x->ent.learned[0].value) {
		if (i < x->ent.n_learned)
			x->ent.learned[i] = x->ent.learned[--x->ent.n_learned];
		return;
	}
	if (i == x->ent.n_learned) {
		if (x->ent.n_learned == REPLAY_MAX_LEARNED)
			return; /* full: --auth or the empty default apply */
		x->ent.n_learned++;
	}
	x->ent.learned[i].handle = rec;
	x->ent.learned[i].len = (uint16_t)len;
	memcpy(x->ent.learned[i].value, value, len);
}

/* The userAuth in a TPM2B_SENSITIVE_CREATE (Part 2 11.1.15) at r. */
const uint8_t *rp_sensitive_create_auth(struct wire_rd *r, uint16_t *len)
{
	uint16_t n;
	wire_u16(r); /* size */
	const uint8_t *a = wire_tpm2b(r, &n);
	*len = n;
	return r->err ? NULL : a;
}

/* ---- contexts (Part 3 28) ---------------------------------------------- */

static struct ctxmap *ctx_find(struct rp *x, const uint8_t *d)
{
	for (size_t i = x->ent.n_ctx; i-- > 0;)
		if (!memcmp(x->ent.ctx[i].digest, d, 32))
			return &x->ent.ctx[i];
	return NULL;
}

int rp_ctx_add(struct rp *x, const uint8_t *rec_blob, size_t rec_len, const uint8_t *blob,
	       size_t len, uint32_t rec_handle)
{
	if (x->ent.n_ctx == x->ent.cap_ctx) {
		size_t nc = x->ent.cap_ctx ? 2 * x->ent.cap_ctx : 16;
		struct ctxmap *m = realloc(x->ent.ctx, nc * sizeof *m);
		if (!m)
			return -ENOMEM;
		x->ent.ctx = m;
		x->ent.cap_ctx = nc;
	}
	struct ctxmap *m = &x->ent.ctx[x->ent.n_ctx];
	memset(m, 0, sizeof *m);
	if (!(m->blob = malloc(len)))
		return -ENOMEM;
	memcpy(m->blob, blob, len);
	m->len = len;
	sha256(x, rec_blob, rec_len, m->digest);
	m->rec_handle = rec_handle;
	struct obj *o = rp_obj_find(x, rec_handle);
	if (o && tpm_ht_of(rec_handle) == TPM_HT_TRANSIENT) {
		m->o = *o;
		m->is_obj = 1;
	}
	x->ent.n_ctx++;
	return 0;
}

struct privmap *rp_priv_find(struct rp *x, const uint8_t *tpm2b, size_t len)
{
	uint8_t d[32];
	sha256(x, tpm2b, len, d);
	for (size_t i = x->ent.n_priv; i-- > 0;)
		if (!memcmp(x->ent.priv[i].digest, d, 32))
			return &x->ent.priv[i];
	return NULL;
}

int rp_priv_add(struct rp *x, const uint8_t *rec, size_t rec_len, const uint8_t *priv,
		size_t privlen, const uint8_t *pub, size_t publen)
{
	if (x->ent.n_priv == x->ent.cap_priv) {
		size_t nc = x->ent.cap_priv ? 2 * x->ent.cap_priv : 16;
		struct privmap *m = realloc(x->ent.priv, nc * sizeof *m);
		if (!m)
			return -ENOMEM;
		x->ent.priv = m;
		x->ent.cap_priv = nc;
	}
	struct privmap *m = &x->ent.priv[x->ent.n_priv];
	memset(m, 0, sizeof *m);
	if (!(m->priv = malloc(privlen + publen + 1)))
		return -ENOMEM;
	memcpy(m->priv, priv, privlen);
	m->privlen = privlen;
	if (pub) {
		m->pub = m->priv + privlen;
		memcpy(m->pub, pub, publen);
		m->publen = publen;
	}
	sha256(x, rec, rec_len, m->digest);
	x->ent.n_priv++;
	return 0;
}

/* Recorded response parameters of the current command (after handles). */
int rp_rec_rsp_params(const struct src_cmd *sc, const uint8_t **p, size_t *len)
{
	struct tpm_rsp rr;
	if (!sc->rsp || tpm_rsp_decode(sc->rsp, sc->rsp_len, sc->c.cc, &rr) || rr.rc)
		return -ENOENT;
	*p = sc->rsp + rr.param_off;
	*len = rr.param_size;
	return 0;
}

int rp_context_load(struct rp *x, struct src_cmd *sc)
{
	uint8_t d[32], cmd[TPM_MAX_MESSAGE];
	sha256(x, sc->cmd + sc->c.param_off, sc->c.param_size, d);
	struct ctxmap *m = ctx_find(x, d);
	if (!m && !x->tg.spawned) {
		/* Not saved during this replay: on the TPM that saved it (same
		 * boot), the recorded blob may still load. */
		int rc = rp_xfer(x, sc->cmd, sc->len);
		if (rc < 0)
			return rc;
		if (!rc && x->tg.t.rsp_len >= TPM_HEADER_SIZE + 4 &&
		    tpm_ht_of(sc->rsp_handle) == TPM_HT_TRANSIENT) {
			struct obj *o = rp_obj_add(x, sc->rsp_handle,
						   wire_get_u32(x->tg.t.rsp + TPM_HEADER_SIZE));
			o->created = 1;
			o->client = sc->client;
		}
		if (rc)
			x->res->failed++;
		if (rc)
			rp_note(
			    x, REPLAY__OUTCOMES, sc->c.cc,
			    "ContextLoad of a context saved before the trace: the target answered "
			    "0x%x",
			    rc);
		return 0;
	}
	if (!m) {
		rp_note(x, REPLAY_REFUSED, sc->c.cc,
			"ContextLoad of a context saved before the trace started (its blob only "
			"loads on the TPM that saved it)");
		return 0;
	}
	if (m->len + TPM_HEADER_SIZE > sizeof cmd)
		return rp_fail(x, -ENOBUFS, "context too large");
	wire_put_u16(cmd, TPM_ST_NO_SESSIONS);
	wire_put_u32(cmd + 2, (uint32_t)(m->len + TPM_HEADER_SIZE));
	wire_put_u32(cmd + 6, TPM_CC_ContextLoad);
	memcpy(cmd + TPM_HEADER_SIZE, m->blob, m->len);
	int rc = rp_xfer(x, cmd, m->len + TPM_HEADER_SIZE);
	if (rc)
		return rc < 0 ? rc : 0;
	if (x->tg.t.rsp_len < TPM_HEADER_SIZE + 4)
		return rp_fail(x, -EPROTO, "short ContextLoad response");
	uint32_t rep = wire_get_u32(x->tg.t.rsp + TPM_HEADER_SIZE);
	if (tpm_ht_of(sc->rsp_handle) == TPM_HT_TRANSIENT) {
		struct obj *o = rp_obj_add(x, sc->rsp_handle, rep);
		if (m->is_obj) {
			*o = m->o;
			o->rec = sc->rsp_handle;
			o->rep = rep;
			o->used = 1;
		}
		/* Loaded into this client's space (rm_spaces), whoever saved it. */
		o->created = 1;
		o->client = sc->client;
	} else {
		struct rsess *s = rp_sess_find(x, sc->rsp_handle);
		if (s) {
			s->s.handle = rep;
			rp_sess_give(x, s, sc->client);
		}
	}
	return 0;
}
