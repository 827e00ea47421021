/* tpmtrace advise: context-churn, the resource manager's swaps
 * (model/advise.h). A resource manager (the kernel's /dev/tpmrm0,
 * tpm2-space.c; tpm2-abrmd) saves every object and session a client has
 * loaded after each of its commands (ContextSave, and FlushContext for an
 * object) and loads them again before the next (ContextLoad). A swap is one
 * such round trip: a ContextSave, the FlushContext of its object, and the
 * first ContextLoad of the context it saved, told by the context's sequence
 * number (TPMS_CONTEXT, in the ContextSave's response and the ContextLoad's
 * command) or, without stored bytes, by the handle. A client with fewer
 * than two swaps is an application saving a context on purpose, not churn;
 * the kernel's own session kept by ContextSave/ContextLoad (the one-session
 * design) is the kernel's, not a resource manager's. */
#include "model/advise.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/stats.h"
#include "model/policy.h"
#include "model/tpm/constants.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/tpm_ht.h"

#define NONE	 ((size_t)-1)
#define MAX_PEND 64 /* saves waiting for their load: more than any space holds */

struct pend {
	uint32_t key, handle;
	size_t save, flush;
	uint8_t has_key, used;
};

static int is_object(uint32_t h)
{
	return tpm_ht_of(h) == TPM_HT_TRANSIENT;
}

static int ok(const struct advise_cmd *c)
{
	return (c->flags & ADVISE_F_OK) != 0;
}

/* The latest pending save of handle h (any object's when h is 0 and the
 * flush names no handle), or NULL. */
static struct pend *latest(struct pend *p, unsigned np, uint32_t h, int any_object)
{
	struct pend *best = NULL;
	for (unsigned k = 0; k < np; k++) {
		if (p[k].used || (any_object ? !is_object(p[k].handle) : p[k].handle != h))
			continue;
		if (!best || p[k].save > best->save)
			best = &p[k];
	}
	return best;
}

/* The pending save a ContextLoad loads: the same context (sequence) when
 * both have their bytes, else the latest of the handle it got back. */
static struct pend *loaded(struct pend *p, unsigned np, const struct advise_cmd *c)
{
	if (c->flags & ADVISE_F_KEY) {
		for (unsigned k = 0; k < np; k++)
			if (!p[k].used && p[k].has_key && p[k].key == c->key)
				return &p[k];
		return NULL;
	}
	return latest(p, np, c->rsp_handle, 0);
}

static int add_swap(struct advise_swap **v, size_t *n, size_t *cap, struct advise_swap s)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct advise_swap *nv = realloc(*v, nc * sizeof *nv);
		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = s;
	return 0;
}

int advise_churn_swaps(const struct advise_cmd *c, size_t n, struct advise_swap **out,
		       size_t *n_out)
{
	struct pend p[MAX_PEND];
	unsigned np = 0, next = 0;
	struct advise_swap *v = NULL;
	size_t nv = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		const struct advise_cmd *x = &c[i];
		if (x->cc == TPM_CC_Startup && ok(x)) {
			np = 0; /* a reset: every saved context is gone */
		} else if (x->cc == TPM_CC_ContextSave && ok(x)) {
			struct pend e = {
			    x->key, x->rsp_handle, i, NONE, (x->flags & ADVISE_F_KEY) != 0, 0};
			unsigned k = 0;
			while (k < np && !p[k].used)
				k++;
			if (k == np && np == MAX_PEND)
				k = next++ % MAX_PEND; /* full: the oldest slot goes */
			else if (k == np)
				np++;
			p[k] = e;
		} else if (x->cc == TPM_CC_FlushContext) {
			int named = (x->flags & ADVISE_F_FLUSHED) != 0;
			struct pend *s = latest(p, np, named ? x->key : 0, !named);
			if (s && is_object(s->handle) && s->flush == NONE)
				s->flush = i;
		} else if (x->cc == TPM_CC_ContextLoad && ok(x) && x->origin != POL_ORIGIN_KERNEL) {
			struct pend *s = loaded(p, np, x);
			if (!s || (!tpm_ht_is_session(s->handle) && s->flush == NONE))
				continue;
			s->used = 1;
			if (add_swap(&v, &nv, &cap, (struct advise_swap){s->save, s->flush, i})) {
				free(v);
				return -ENOMEM;
			}
		}
	}
	/* fewer than two swaps of a client's: not churn */
	uint32_t *per = calloc(65536, sizeof *per);
	if (!per) {
		free(v);
		return -ENOMEM;
	}
	for (size_t k = 0; k < nv; k++)
		per[c[v[k].load].client]++;
	size_t kept = 0;
	for (size_t k = 0; k < nv; k++)
		if (per[c[v[k].load].client] >= 2)
			v[kept++] = v[k];
	free(per);
	*out = v;
	*n_out = kept;
	return 0;
}

void advise_detect_churn(const struct advise_cmd *c, size_t n, const uint8_t *taken,
			 void (*take)(void *ctx, size_t i, int removed), void *ctx, uint64_t *count)
{
	struct advise_swap *v = NULL;
	size_t nv = 0;
	if (advise_churn_swaps(c, n, &v, &nv))
		return;
	for (size_t k = 0; k < nv; k++) {
		/* a salt key's load the session detector took already */
		if (taken[v[k].load] || taken[v[k].save])
			continue;
		take(ctx, v[k].save, 1);
		if (v[k].flush != NONE)
			take(ctx, v[k].flush, 1);
		take(ctx, v[k].load, 1);
		(*count)++;
	}
	free(v);
}

int advise_churn_plan(sqlite3 *db, int64_t src, struct advise_swap_ids **out, size_t *n_out)
{
	struct advise_cmd *c = NULL;
	struct advise_swap *w = NULL;
	size_t n = 0, nw = 0;
	int64_t *id = NULL;
	sqlite3_stmt *st = NULL;
	struct advise_swap_ids *v = NULL;
	int rc = advise_load(db, src, &c, &n);
	if (!rc)
		rc = advise_churn_swaps(c, n, &w, &nw);
	if (!rc && (!(id = malloc((n ? n : 1) * sizeof *id)) || !(v = calloc(nw + 1, sizeof *v))))
		rc = -ENOMEM;
	/* advise_load's rows, in its order: their ids */
	if (!rc && sqlite3_prepare_v2(db,
				      "SELECT id FROM command WHERE trace_id=? AND " DB_CLIENT_CMDS
				      " ORDER BY seq",
				      -1, &st, NULL) != SQLITE_OK)
		rc = -EIO;
	if (st)
		sqlite3_bind_int64(st, 1, src);
	for (size_t i = 0; !rc && i < n; i++)
		id[i] = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	for (size_t k = 0; !rc && k < nw; k++)
		v[k] = (struct advise_swap_ids){
		    id[w[k].save], w[k].flush == NONE ? 0 : id[w[k].flush], id[w[k].load]};
	free(c);
	free(w);
	free(id);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*n_out = nw;
	return 0;
}
