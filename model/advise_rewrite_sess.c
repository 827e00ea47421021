/* The session rewrites of tpmtrace advise (model/advise_rw.h): the trace with
 * session-per-command's or policy-rebuilt's change made. The sessions of the
 * finding are those advise's detector took (advise_marks); each whose set-up
 * the change removes joins the chain of the kept session before it (the same
 * origin for session-per-command, the same assertions for policy-rebuilt).
 * The rewrite drops the removed set-ups (StartAuthSession, with its salt
 * key's load and flush), sends the chain's commands with the kept session
 * (handles remapped in handle and session areas, FlushContext's parameter and
 * ContextLoad's response handle) and keeps that session until the chain's
 * last end: every earlier end goes (a FlushContext) or becomes a use with
 * continueSession set (a command that ended it). The replayer does the
 * session crypto itself (docs/replay.md), so the rewritten bytes need no
 * HMAC of their own. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/advise.h"
#include "db/stats.h"
#include "model/advise_rw.h"
#include "model/tpm/constants.h"
#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/wire.h"

#define NONE	  ((size_t)-1)
#define MAX_LIVE  64
#define MAX_HEADS 64

enum { END_USE, END_FLUSH, END_UNSEEN };

/* A session of the trace, followed from its set-up to its end. */
struct cs {
	uint32_t handle;     /* recorded */
	uint32_t rename;     /* its handle in the rewrite when that differs (0: none) */
	size_t sas, end;     /* rows; end NONE: not ended in the trace */
	size_t chain_end;    /* a head: the last end of its chain (NONE: never) */
	size_t head;	     /* its chain's kept session (itself for one) */
	uint32_t group;	     /* origin, or the policy's assertions */
	uint32_t next_end;   /* + 1: the next session ending at the same row */
	uint8_t fin;	     /* a session of the finding */
	uint8_t member;	     /* ... whose set-up goes */
	uint8_t by_flush;    /* it ended by a FlushContext */
	uint8_t unseen;	     /* it ended unseen at end (a reset, its handle again) */
	uint8_t type;	     /* sessionType */
	size_t last_ref;     /* the last row that names it (NONE: none) */
	int64_t last_client; /* ... its client (-1: none) */
};

struct plan {
	int kind;
	struct rw_row *w;
	size_t n;
	const struct advise_cmd *c;
	size_t nc;
	uint8_t *marks;
	size_t *ci; /* row -> index in c (NONE: tpmtrace's own row) */
	struct cs *s;
	size_t ns, caps, sas_next;
	uint32_t *end_of; /* row -> + 1: the first session ending there */
	size_t live[MAX_LIVE];
	unsigned nl;
	struct {
		uint32_t group;
		size_t head;
	} heads[MAX_HEADS];
	unsigned nh;
	uint32_t n_renamed;
	int64_t client; /* the current row's client (-1: none) */
	char *err;
	size_t errlen;
};

static const char *kname(const struct plan *p)
{
	return advise_kind_name(p->kind);
}

/* The sessionType of a StartAuthSession (Part 3 11.1: after nonceCaller and
 * encryptedSalt). */
static uint8_t sas_type(const uint8_t *b, size_t len, const struct tpm_cmd *c)
{
	struct wire_rd r;
	uint16_t sz;
	wire_rd_init(&r, b, len);
	wire_skip(&r, c->param_off);
	wire_tpm2b(&r, &sz);
	wire_tpm2b(&r, &sz);
	uint8_t t = wire_u8(&r);
	return r.err ? 0xff : t;
}

/* Session k ended at row end (NONE: unseen). Its chain: a kept session
 * heads one; a removed set-up joins the last kept one of its group. */
static int sess_close(struct plan *p, unsigned live_k, size_t end, int how)
{
	size_t k = p->live[live_k];
	struct cs *s = &p->s[k];
	p->live[live_k] = p->live[--p->nl];
	s->end = end;
	s->by_flush = how == END_FLUSH;
	s->unseen = how == END_UNSEEN;
	if (end != NONE && how != END_UNSEEN) {
		s->next_end = p->end_of[end];
		p->end_of[end] = (uint32_t)(k + 1);
	}
	s->head = k;
	if (!s->fin)
		return 0;
	unsigned g = 0;
	while (g < p->nh && p->heads[g].group != s->group)
		g++;
	if (!s->member) {
		if (g == p->nh) {
			if (p->nh == MAX_HEADS) {
				snprintf(p->err, p->errlen, "%s: more than %d kept sessions",
					 kname(p), MAX_HEADS);
				return -EINVAL;
			}
			p->heads[p->nh++].group = s->group;
		}
		p->heads[g].head = s->head = k;
		return 0;
	}
	if (g == p->nh || p->s[p->heads[g].head].sas > s->sas ||
	    p->s[p->heads[g].head].type != s->type) {
		snprintf(p->err, p->errlen,
			 "%s: the session started at row %zu has no kept session of its kind "
			 "started before it",
			 kname(p), s->sas);
		return -EINVAL;
	}
	s->head = p->heads[g].head;
	return 0;
}

static int live_find(const struct plan *p, uint32_t h)
{
	for (unsigned k = 0; k < p->nl; k++)
		if (p->s[p->live[k]].handle == h)
			return (int)k;
	return -1;
}

static int sess_add(struct plan *p, size_t i, const uint8_t *b, size_t len, const struct tpm_cmd *c)
{
	if (p->ns == p->caps) {
		size_t nc = p->caps ? 2 * p->caps : 64;
		struct cs *ns = realloc(p->s, nc * sizeof *ns);
		if (!ns)
			return -ENOMEM;
		p->s = ns;
		p->caps = nc;
	}
	if (p->nl == MAX_LIVE) {
		snprintf(p->err, p->errlen, "%s: more than %d sessions live at once", kname(p),
			 MAX_LIVE);
		return -EINVAL;
	}
	struct cs *s = &p->s[p->ns];
	memset(s, 0, sizeof *s);
	s->handle = p->w[i].rsp_handle;
	s->sas = i;
	s->end = s->chain_end = s->last_ref = NONE;
	s->last_client = -1;
	s->type = sas_type(b, len, c);
	if (p->ci[i] != NONE && ADVISE_MARK_KIND(p->marks[p->ci[i]]) == p->kind) {
		const struct advise_cmd *ac = &p->c[p->ci[i]];
		s->fin = 1;
		s->member = (p->marks[p->ci[i]] & ADVISE_MARK_REMOVED) != 0;
		/* session-per-command: the origin and the kind of session, as
		 * the detector groups them; policy-rebuilt: the assertions */
		s->group = p->kind == ADVISE_SESSION_PER_CMD
			       ? advise_session_kind(p->c, p->nc, p->ci[i]) ^
				     (uint32_t)((ac->origin & 3) + 1) * 0x9e3779b9u
			       : 0;
	}
	p->live[p->nl++] = p->ns++;
	return 0;
}

/* Row i names the live session with recorded handle h. */
static void ref(struct plan *p, size_t i, uint32_t h)
{
	int k = live_find(p, h);
	if (k >= 0 && p->client >= 0) {
		p->s[p->live[k]].last_ref = i;
		p->s[p->live[k]].last_client = p->client;
	}
}

/* One row of the first pass: sessions started, extended, used, ended. */
static int follow_row(struct plan *p, size_t i, const uint8_t *b, size_t len)
{
	struct rw_row *r = &p->w[i];
	struct tpm_cmd c;
	int k, rc;
	if (!b || tpm_cmd_decode(b, len, &c))
		return 0;
	for (unsigned e = 0; e < c.n_sessions; e++)
		ref(p, i, c.sess[e].handle);
	for (unsigned e = 0; e < c.n_handles && e < 3; e++)
		ref(p, i, c.handles[e]);
	if (r->has_flushed)
		ref(p, i, r->flushed);
	if (r->cc == TPM_CC_ContextLoad)
		ref(p, i, r->rsp_handle);
	if (r->cc == TPM_CC_Startup && r->ok) {
		while (p->nl)
			if ((rc = sess_close(p, p->nl - 1, i, END_UNSEEN)))
				return rc;
		return 0;
	}
	if (r->cc == TPM_CC_StartAuthSession && r->ok) {
		if ((k = live_find(p, r->rsp_handle)) >= 0 &&
		    (rc = sess_close(p, (unsigned)k, i, END_UNSEEN)))
			return rc;
		return sess_add(p, i, b, len, &c);
	}
	if (r->cc == TPM_CC_FlushContext) {
		if (r->has_flushed && (k = live_find(p, r->flushed)) >= 0)
			return sess_close(p, (unsigned)k, i, END_FLUSH);
		return 0;
	}
	const struct advise_cmd *ac = p->ci[i] != NONE ? &p->c[p->ci[i]] : NULL;
	if (ac && (ac->flags & ADVISE_F_POLICY)) {
		if ((k = live_find(p, ac->sess_handle)) >= 0) {
			struct cs *s = &p->s[p->live[k]];
			s->group = s->group * 16777619u ^ ac->key;
		}
		return 0;
	}
	for (unsigned e = 0; r->ok && e < c.n_sessions; e++)
		if (!(c.sess[e].attrs & TPMA_SESSION_CONTINUESESSION) &&
		    (k = live_find(p, c.sess[e].handle)) >= 0 &&
		    (rc = sess_close(p, (unsigned)k, i, END_USE)))
			return rc;
	return 0;
}

/* The kept session's handle for recorded handle h at row i: a session whose
 * set-up went is sent as its chain's kept one while it lives. */
static uint32_t handle_of(const struct cs *s)
{
	return s->rename ? s->rename : s->handle;
}

static uint32_t alias(const struct plan *p, uint32_t h, size_t i)
{
	for (unsigned k = 0; k < p->nl; k++) {
		const struct cs *s = &p->s[p->live[k]];
		if (s->handle == h && s->sas < i &&
		    (s->end == NONE || i < s->end || (i == s->end && !s->unseen)))
			return s->member ? handle_of(&p->s[s->head]) : handle_of(s);
	}
	return h;
}

/* The row's bytes with handles remapped and, for the sessions in cont
 * (row-local: the session ends here but its chain does not), continueSession
 * set. Returns 1 when something changed (*out malloc'd), 0, or -ENOMEM. */
static int patch_bytes(const struct plan *p, size_t i, const uint8_t *b, size_t len,
		       const struct tpm_cmd *c, const uint32_t *cont, unsigned ncont, uint8_t **out)
{
	uint8_t *q = malloc(len);
	int changed = 0;
	if (!q)
		return -ENOMEM;
	memcpy(q, b, len);
	for (unsigned k = 0; k < c->n_handles && k < 3; k++) {
		uint32_t h = alias(p, c->handles[k], i);
		if (h != c->handles[k]) {
			wire_put_u32(q + TPM_HEADER_SIZE + 4 * k, h);
			changed = 1;
		}
	}
	for (unsigned e = 0; e < c->n_sessions; e++) {
		const struct tpm_session *ts = &c->sess[e];
		uint32_t h = alias(p, ts->handle, i);
		if (h != ts->handle) {
			wire_put_u32(q + ts->nonce_off - 6, h);
			changed = 1;
		}
		for (unsigned j = 0; j < ncont; j++)
			if (cont[j] == ts->handle) {
				q[ts->nonce_off + ts->nonce_size] |= TPMA_SESSION_CONTINUESESSION;
				changed = 1;
			}
	}
	if (c->cc == TPM_CC_FlushContext && c->param_off + 4 <= len) {
		uint32_t f = wire_get_u32(b + c->param_off), h = alias(p, f, i);
		if (h != f) {
			wire_put_u32(q + c->param_off, h);
			changed = 1;
		}
	}
	if (!changed) {
		free(q);
		return 0;
	}
	*out = q;
	return 1;
}

/* A session started at row i takes the handle of a kept session that the
 * rewrite keeps past its own end: the trace would need its handles
 * remapped. */
static int collides(const struct plan *p, size_t i, uint32_t h)
{
	for (size_t k = 0; k < p->ns; k++) {
		const struct cs *s = &p->s[k];
		if (s->fin && s->head == k && handle_of(s) == h && s->end != NONE && s->end < i &&
		    (s->chain_end == NONE || i < s->chain_end))
			return 1;
	}
	return 0;
}

/* One row of the second pass: dropped, rewritten or kept as it is. */
static int emit_row(struct plan *p, size_t i, const uint8_t *b, size_t len, uint64_t *dropped)
{
	struct rw_row *r = &p->w[i];
	struct tpm_cmd c;
	uint32_t cont[TPM_MAX_SESSIONS];
	unsigned ncont = 0;
	int rc = 0;
	if (!b || tpm_cmd_decode(b, len, &c))
		return 0;
	uint8_t m = p->ci[i] != NONE ? p->marks[p->ci[i]] : 0;
	int ours = ADVISE_MARK_KIND(m) == p->kind && (m & ADVISE_MARK_REMOVED);
	uint32_t rh = r->rsp_handle;
	if (r->cc == TPM_CC_StartAuthSession && r->ok) {
		struct cs *s = NULL;
		for (size_t k = p->sas_next; !s && k < p->ns; k++)
			if (p->s[k].sas == i)
				s = &p->s[p->sas_next = k];
		if (!s || p->nl == MAX_LIVE)
			return -EIO;
		p->live[p->nl++] = (size_t)(s - p->s);
		if (s->member) {
			r->drop = 1;
			++*dropped;
			return 0;
		}
		/* a kept session is its last user's (a per-client-space replay
		 * flushes it after its holder's last command) */
		if (s->fin && s->head == (size_t)(s - p->s) && s->last_client >= 0 &&
		    s->last_client != p->client) {
			r->has_client = 1;
			r->patch_client = s->last_client;
		}
		/* its handle is the kept session's there: it gets one of its own */
		if (collides(p, i, s->handle))
			s->rename = rh = (s->handle & 0xff000000u) | (0xfff000u + ++p->n_renamed);
	}
	int ends = 0;
	for (uint32_t k = p->end_of[i]; k; k = p->s[k - 1].next_end) {
		const struct cs *s = &p->s[k - 1];
		if (!s->fin)
			continue;
		ends = 1;
		if (p->s[s->head].chain_end == i)
			continue; /* the chain's last end stays */
		if (s->by_flush)
			r->drop = 1;
		else if (ncont < TPM_MAX_SESSIONS)
			cont[ncont++] = s->handle;
	}
	if (!ends && ours)
		r->drop = 1; /* a removed set-up's salt key load or flush */
	if (r->drop) {
		++*dropped;
	} else {
		uint8_t *q = NULL;
		if ((rc = patch_bytes(p, i, b, len, &c, cont, ncont, &q)) < 0)
			return rc;
		if (r->cc == TPM_CC_ContextLoad)
			rh = alias(p, r->rsp_handle, i);
		if (rc || rh != r->rsp_handle) {
			if (!q && !(q = malloc(len)))
				return -ENOMEM;
			if (!rc)
				memcpy(q, b, len);
			r->patch = q;
			r->patch_len = len;
			r->patch_rsp = rh;
			r->has_patch = 1;
		}
	}
	/* the sessions that ended here are no longer remapped */
	for (unsigned k = 0; k < p->nl;)
		if (p->s[p->live[k]].end != NONE && p->s[p->live[k]].end <= i)
			p->live[k] = p->live[--p->nl];
		else
			k++;
	return 0;
}

/* Steps through the source rows (all of them, in seq order, as w), calling
 * fn with each one's bytes. */
static int scan(sqlite3 *db, int64_t src, struct plan *p, int pass, uint64_t *dropped)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(
		db,
		"SELECT id, cmd, coalesce(client_id, -1) FROM command WHERE trace_id=?"
		" ORDER BY seq",
		-1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, src);
	int rc = 0, step;
	size_t i = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		if (i >= p->n || sqlite3_column_int64(st, 0) != p->w[i].id) {
			rc = -EIO; /* the trace changed under us */
			break;
		}
		const uint8_t *b = sqlite3_column_blob(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		p->client = sqlite3_column_int64(st, 2);
		rc = pass ? emit_row(p, i, b, len, dropped) : follow_row(p, i, b, len);
		i++;
	}
	sqlite3_finalize(st);
	if (!rc && i != p->n)
		rc = -EIO;
	return rc;
}

/* Rows to advise's commands: the same order, tpmtrace's own left out. */
static int index_rows(sqlite3 *db, int64_t src, struct plan *p)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "SELECT " DB_OWN_CMDS " FROM command WHERE trace_id=? ORDER BY seq",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, src);
	size_t i = 0, j = 0;
	while (sqlite3_step(st) == SQLITE_ROW && i < p->n)
		p->ci[i++] = sqlite3_column_int(st, 0) ? NONE : (j < p->nc ? j++ : NONE);
	sqlite3_finalize(st);
	return i == p->n && j == p->nc ? 0 : -EIO;
}

static int plan_run(sqlite3 *db, int64_t src, struct plan *p, uint64_t *dropped)
{
	int rc;
	if ((rc = advise_marks(p->c, p->nc, p->marks)) || (rc = index_rows(db, src, p)) ||
	    (rc = scan(db, src, p, 0, dropped)))
		return rc;
	while (p->nl)
		if ((rc = sess_close(p, p->nl - 1, NONE, END_USE)))
			return rc;
	unsigned members = 0;
	for (size_t k = 0; k < p->ns; k++) {
		struct cs *s = &p->s[k], *h = &p->s[s->head];
		if (!s->fin)
			continue;
		members += s->member;
		if (s->head == k)
			h->chain_end = s->end;
		else if (h->chain_end != NONE && (s->end == NONE || s->end > h->chain_end))
			h->chain_end = s->end;
		if (s->last_ref != NONE && (h->last_ref == NONE || s->last_ref > h->last_ref)) {
			h->last_ref = s->last_ref;
			h->last_client = s->last_client;
		}
	}
	if (!members) {
		snprintf(p->err, p->errlen, "%s: trace %lld has no such finding", kname(p),
			 (long long)src);
		return -EINVAL;
	}
	return scan(db, src, p, 1, dropped);
}

int advise_rw_plan_sessions(sqlite3 *db, int64_t src, int kind, struct rw_row *w, size_t n,
			    uint64_t *dropped, char *err, size_t errlen)
{
	struct plan p = {.kind = kind, .w = w, .n = n, .err = err, .errlen = errlen};
	struct advise_cmd *c = NULL;
	int rc = advise_load(db, src, &c, &p.nc);
	if (rc)
		return rc;
	p.c = c;
	p.marks = malloc(p.nc ? p.nc : 1);
	p.ci = malloc(n * sizeof *p.ci);
	p.end_of = calloc(n, sizeof *p.end_of);
	if (!p.marks || !p.ci || !p.end_of)
		rc = -ENOMEM;
	else
		rc = plan_run(db, src, &p, dropped);
	if (rc == -EIO && !err[0])
		snprintf(err, errlen, "trace %lld: %s", (long long)src, sqlite3_errmsg(db));
	free(p.s);
	free(p.end_of);
	free(p.ci);
	free(p.marks);
	free(c);
	return rc;
}
