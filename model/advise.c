/* tpmtrace advise: detectors over a trace's commands (model/advise.h). */
#include "model/advise.h"
#include "db/stats.h"
#include "model/tpm/tpm_ht.h"
#include "model/trace_rows.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/policy.h"
#include "model/tpm/constants.h"
#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/variant.h"
#include "model/tpm/wire.h"
#include "model/trace_stream.h"

#define NONE	       ((size_t)-1)
#define MAX_LIVE       16
#define MAX_GROUPS     64
#define ORIGIN_KERN(o) ((o) == POL_ORIGIN_KERNEL || (o) == POL_ORIGIN_UNKNOWN)

static uint32_t advise_cc(const struct advise_cmd *c)
{
	return c->cc == 0xffff ? 0 : c->cc;
}

static const char *const kind_names[ADVISE__COUNT] = {
    "repeated-primary", "session-per-command", "user-interleave", "policy-rebuilt", "hwrng-session",
    "outliers",		"context-churn",       "failed-redone",
};

const char *advise_kind_name(int kind)
{
	return kind >= 0 && kind < ADVISE__COUNT ? kind_names[kind] : "?";
}

/* The run's state: the commands, the profile, one finding per kind and
 * which commands a finding has taken already (each is counted once). */
struct adv {
	const struct advise_cmd *c;
	size_t n;
	const struct profile *prof;
	double fallback;
	struct advise_finding f[ADVISE__COUNT];
	uint8_t *taken;
	uint8_t *marks; /* advise_marks: what took each command, or NULL */
};

static double price(const struct adv *a, const struct advise_cmd *c, int *fallback)
{
	enum prof_match how;
	const struct prof_entry *e =
	    profile_lookup(a->prof, advise_cc(c), c->auth_kind, tpm_variant_str(c->variant), &how);
	*fallback = !e;
	return (e ? e->mean_ms : a->fallback) + a->prof->transport_ms;
}

/* Command i is part of finding kind; removed: the change takes it away.
 * Returns 1 when it took the command (no finding had it). */
static int take(struct adv *a, int kind, size_t i, int removed)
{
	if (i == NONE || i >= a->n || a->taken[i])
		return 0;
	const struct advise_cmd *c = &a->c[i];
	struct advise_finding *f = &a->f[kind];
	a->taken[i] = 1;
	if (a->marks)
		a->marks[i] = (uint8_t)((kind + 1) | (removed ? ADVISE_MARK_REMOVED : 0));
	if (!f->involved || c->seq < f->first_seq)
		f->first_seq = c->seq;
	if (c->seq > f->last_seq)
		f->last_seq = c->seq;
	f->involved++;
	f->removed += removed ? 1 : 0;
	f->by_origin[c->origin & 3]++;
	unsigned k = 0;
	while (k < f->n_clients && f->clients[k] != c->client)
		k++;
	if (k == f->n_clients && k < ADVISE_MAX_CLIENTS)
		f->clients[f->n_clients++] = c->client;
	if (c->lat_ms >= 0) {
		f->rec_ms += c->lat_ms;
		if (!removed)
			f->rec_after_ms += c->lat_ms;
	} else {
		f->rec_unknown++;
	}
	if (a->prof) {
		int fb;
		double p = price(a, c, &fb);
		f->now_ms += p;
		if (!removed)
			f->after_ms += p;
		f->priced_fallback += (uint64_t)fb;
	}
	return 1;
}

/* Command i, which finding kind took as kept, goes after all. */
static void unkeep(struct adv *a, int kind, size_t i)
{
	const struct advise_cmd *c = &a->c[i];
	struct advise_finding *f = &a->f[kind];
	f->removed++;
	if (a->marks)
		a->marks[i] |= ADVISE_MARK_REMOVED;
	if (c->lat_ms >= 0)
		f->rec_after_ms -= c->lat_ms;
	if (a->prof) {
		int fb;
		f->after_ms -= price(a, c, &fb);
	}
}

/* A session kept in place of others ends once, where the last of them
 * ended: *kept is the end kept so far (NONE: none), end the new one. */
static void move_end(struct adv *a, int kind, size_t *kept, size_t end)
{
	if (*kept != NONE)
		unkeep(a, kind, *kept);
	*kept = take(a, kind, end, 0) ? end : NONE;
}

static int ok(const struct advise_cmd *c)
{
	return (c->flags & ADVISE_F_OK) != 0;
}

/* Work lost to failures (docs/advise.md, "failed-redone"), taken before any
 * other pattern: a command answered TPM_RC_PCR_CHANGED through a policy
 * session (a PCR was extended after the session's PolicyPCR: TPM 2.0 Part 1,
 * 19.7.4) with the session set up and asserted for nothing - its
 * StartAuthSession, its Policy commands before the failure and its
 * FlushContext after; and an NV_DefineSpace answered TPM_RC_NV_DEFINED. All
 * of it goes when the PCRs are extended before the policy is built (or the
 * extends and the policy ordered), and an index is looked up before it is
 * defined. One occurrence per failed command. */
static void detect_failures(struct adv *a)
{
	struct advise_finding *f = &a->f[ADVISE_FAILED_REDONE];
	for (size_t i = 0; i < a->n; i++) {
		const struct advise_cmd *c = &a->c[i];
		if (c->flags & ADVISE_F_NV_DEFINED) {
			f->count += (uint64_t)take(a, ADVISE_FAILED_REDONE, i, 1);
			continue;
		}
		uint32_t h = c->sess_handle;
		if (!(c->flags & ADVISE_F_PCR_CHANGED) || tpm_ht_of(h) != TPM_HT_POLICY_SESSION ||
		    !take(a, ADVISE_FAILED_REDONE, i, 1))
			continue;
		f->count++;
		/* back to the session's start: its assertions and set-up */
		for (size_t j = i; j-- > 0;) {
			const struct advise_cmd *p = &a->c[j];
			if ((p->flags & ADVISE_F_POLICY) && p->sess_handle == h)
				take(a, ADVISE_FAILED_REDONE, j, 1);
			if (advise_cc(p) == TPM_CC_StartAuthSession && p->rsp_handle == h) {
				take(a, ADVISE_FAILED_REDONE, j, 1);
				break;
			}
		}
		/* on to its end */
		for (size_t j = i + 1; j < a->n; j++) {
			const struct advise_cmd *p = &a->c[j];
			if ((p->flags & ADVISE_F_FLUSHED) && p->key == h) {
				take(a, ADVISE_FAILED_REDONE, j, 1);
				break;
			}
			if (advise_cc(p) == TPM_CC_StartAuthSession && p->rsp_handle == h)
				break; /* the handle taken again: it ended unseen */
		}
	}
}

/* (a) CreatePrimary with the same hierarchy and template again: every
 * re-creation, and every FlushContext of a primary that is re-created
 * later, goes when the first is kept (loaded or persistent). */
static void detect_primary(struct adv *a)
{
	struct pgroup {
		uint32_t key;
		uint64_t total, seen;
	} g[MAX_GROUPS];
	struct plive {
		uint32_t handle;
		unsigned g;
	} live[MAX_LIVE];
	unsigned ng = 0, nl = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < a->n; i++) {
			const struct advise_cmd *c = &a->c[i];
			if (pass && c->cc == TPM_CC_FlushContext && (c->flags & ADVISE_F_FLUSHED)) {
				for (unsigned k = 0; k < nl; k++) {
					if (live[k].handle != c->key)
						continue;
					unsigned gi = live[k].g;
					if (g[gi].total > 1)
						take(a, ADVISE_REPEATED_PRIMARY, i,
						     g[gi].seen < g[gi].total);
					live[k] = live[--nl];
					break;
				}
			}
			if (c->cc != TPM_CC_CreatePrimary || !ok(c))
				continue;
			unsigned k = 0;
			while (k < ng && g[k].key != c->key)
				k++;
			if (k == ng) {
				if (ng == MAX_GROUPS)
					continue;
				g[ng++] = (struct pgroup){c->key, 0, 0};
			}
			if (!pass) {
				g[k].total++;
				continue;
			}
			if (g[k].total < 2)
				continue;
			take(a, ADVISE_REPEATED_PRIMARY, i, g[k].seen++ > 0);
			if (nl < MAX_LIVE)
				live[nl++] = (struct plive){c->rsp_handle, k};
		}
	}
	struct advise_finding *f = &a->f[ADVISE_REPEATED_PRIMARY];
	for (unsigned k = 0; k < ng; k++)
		if (g[k].total > 1) {
			f->count += g[k].total - 1;
			f->groups++;
		}
}

/* A session being followed (b-e). */
struct sess {
	uint32_t handle, pkey;
	size_t sas, load, keyflush; /* its set-up: StartAuthSession, the salt key's load/flush */
	uint32_t uses;
	uint8_t origin, policy, hwrng_last, setup_taken, getrandom_last;
	uint32_t skey; /* the kind of session (advise_session_kind) */
};

/* What the kernel's last session left behind, for the next one's set-up. */
struct prev_kernel {
	int have, hwrng_last, flushed, user_since;
	size_t end; /* its FlushContext */
};

struct sess_run {
	struct sess live[MAX_LIVE];
	unsigned nl;
	struct prev_kernel pk;
	/* single-use sessions of an origin and kind (sessionType, symmetric,
	 * authHash): one was kept, and the end it keeps (NONE: none) */
	struct bgroup {
		uint32_t skey;
		uint8_t origin, seen;
		size_t end;
	} bg[MAX_GROUPS];
	unsigned nbg;
	struct {
		uint32_t pkey;
		uint64_t n;
		size_t end; /* the end the kept policy session keeps */
	} pol[MAX_GROUPS];
	unsigned npol;
	size_t skip; /* the salt key's FlushContext after a set-up */
};

static void take_setup(struct adv *a, int kind, struct sess *s, int removed)
{
	take(a, kind, s->load, removed);
	take(a, kind, s->sas, removed);
	take(a, kind, s->keyflush, removed);
	s->setup_taken = 1;
}

static struct bgroup *bgroup_of(struct sess_run *r, uint8_t origin, uint32_t skey)
{
	for (unsigned k = 0; k < r->nbg; k++)
		if (r->bg[k].origin == origin && r->bg[k].skey == skey)
			return &r->bg[k];
	if (r->nbg == MAX_GROUPS)
		return NULL;
	r->bg[r->nbg] = (struct bgroup){skey, origin, 0, NONE};
	return &r->bg[r->nbg++];
}

/* The kept session of an origin's group (one kind, or every kind) ended. */
static void bgroup_reset(struct sess_run *r, uint8_t origin, uint32_t skey, int one_kind)
{
	for (unsigned k = 0; k < r->nbg; k++)
		if (r->bg[k].origin == origin && (!one_kind || r->bg[k].skey == skey))
			r->bg[k].seen = 0;
}

uint32_t advise_session_kind(const struct advise_cmd *c, size_t n, size_t i)
{
	/* salted to a key loaded just for it (the kernel's null key) or not
	 * (an application's key): a kernel's session and an application's
	 * of the same parameters are kept apart */
	int load = i && i < n && c[i - 1].cc == TPM_CC_ContextLoad &&
		   c[i - 1].rsp_handle == c[i].key && ok(&c[i - 1]);
	return i < n ? c[i].sess_handle ^ (load ? 0x5bd1e995u : 0) : 0;
}

/* Session s ended (by end, a FlushContext of it, or NONE). */
static void sess_end(struct adv *a, struct sess_run *r, struct sess *s, size_t end)
{
	/* a flush sent for a user command (the replayer's) counts as its */
	int user = end != NONE && a->c[end].origin == POL_ORIGIN_USER;
	int kern = ORIGIN_KERN(s->origin);
	if (s->hwrng_last && kern) {
		/* (e) the hwrng read's session, or the flush it forced */
		if (s->uses == 1 && !s->setup_taken)
			take_setup(a, ADVISE_HWRNG_SESSION, s, 1);
		take(a, ADVISE_HWRNG_SESSION, end, 1);
	} else if (s->policy) {
		/* (d) kept: only the rebuilds of the same policy go */
		unsigned k = 0;
		while (k < r->npol && r->pol[k].pkey != s->pkey)
			k++;
		if (k == r->npol && k < MAX_GROUPS) {
			r->pol[k].pkey = s->pkey;
			r->pol[k].n = 0;
			r->pol[k].end = NONE;
			r->npol++;
		}
		if (k < MAX_GROUPS) {
			int again = r->pol[k].n++ > 0;
			take_setup(a, ADVISE_POLICY_REBUILT, s, again);
			if (!again)
				r->pol[k].end = NONE;
			move_end(a, ADVISE_POLICY_REBUILT, &r->pol[k].end, end);
		}
	} else if (s->uses <= 1 && !s->setup_taken) {
		/* (b) one command per session: one kept session does, and
		 * ends once, where the last of those it replaces ended. The
		 * kernel's is kept as Linux 6.12 keeps it (lazy flush): a
		 * GetRandom ends it (its flush stays), as user space does. */
		struct bgroup *g = bgroup_of(r, s->origin & 3, s->skey);
		int again = g && g->seen, gr = kern && s->getrandom_last;
		take_setup(a, ADVISE_SESSION_PER_CMD, s, again);
		if (g) {
			g->seen = !gr;
			if (!again)
				g->end = NONE;
			move_end(a, ADVISE_SESSION_PER_CMD, &g->end, end);
		}
		a->f[ADVISE_SESSION_PER_CMD].count++;
	} else if (kern && s->getrandom_last) {
		bgroup_reset(r, s->origin & 3, s->skey, 1);
	}
	if (kern && s->hwrng_last)
		bgroup_reset(r, s->origin & 3, s->skey, 1);
	if (kern)
		r->pk =
		    (struct prev_kernel){1, s->hwrng_last && s->uses > 1, end != NONE, user, end};
	*s = r->live[--r->nl];
}

/* A new session at StartAuthSession i. */
static void sess_start(struct adv *a, struct sess_run *r, size_t i)
{
	const struct advise_cmd *c = &a->c[i];
	struct sess s = {c->rsp_handle, 0, i, NONE, NONE, 0,
			 c->origin,	0, 0, 0,    0,	  advise_session_kind(a->c, a->n, i)};
	if (i && a->c[i - 1].cc == TPM_CC_ContextLoad && a->c[i - 1].rsp_handle == c->key &&
	    ok(&a->c[i - 1]))
		s.load = i - 1;
	if (i + 1 < a->n && a->c[i + 1].cc == TPM_CC_FlushContext && s.load != NONE &&
	    (!(a->c[i + 1].flags & ADVISE_F_FLUSHED) || a->c[i + 1].key == c->key))
		s.keyflush = r->skip = i + 1;
	if (ORIGIN_KERN(c->origin) && r->pk.have && !r->pk.flushed) {
		/* ended by its own use: nothing forced this one */
	} else if (ORIGIN_KERN(c->origin) && r->pk.have) {
		if (r->pk.hwrng_last) {
			take_setup(a, ADVISE_HWRNG_SESSION, &s, 1);
		} else if (r->pk.user_since) {
			take(a, ADVISE_USER_INTERLEAVE, r->pk.end, 1);
			take_setup(a, ADVISE_USER_INTERLEAVE, &s, 1);
			a->f[ADVISE_USER_INTERLEAVE].count++;
		}
	}
	if (ORIGIN_KERN(c->origin))
		r->pk.have = 0;
	if (r->nl < MAX_LIVE)
		r->live[r->nl++] = s;
}

static struct sess *sess_find(struct sess_run *r, uint32_t h)
{
	for (unsigned k = 0; k < r->nl; k++)
		if (r->live[k].handle == h)
			return &r->live[k];
	return NULL;
}

/* (b)-(e): sessions followed from StartAuthSession to their end. */
static void detect_sessions(struct adv *a)
{
	struct sess_run r;
	memset(&r, 0, sizeof r);
	r.skip = NONE;
	for (size_t i = 0; i < a->n; i++) {
		const struct advise_cmd *c = &a->c[i];
		struct sess *s;
		if (i == r.skip)
			continue;
		if (c->cc == TPM_CC_Startup && ok(c)) {
			while (r.nl)
				sess_end(a, &r, &r.live[r.nl - 1], NONE);
			r.pk.have = 0;
			r.nbg = 0;
			continue;
		}
		if (c->origin == POL_ORIGIN_USER) {
			/* lazy flush: the kernel's kept session ends */
			r.pk.user_since = 1;
			bgroup_reset(&r, POL_ORIGIN_KERNEL, 0, 0);
			bgroup_reset(&r, POL_ORIGIN_UNKNOWN, 0, 0);
		}
		if (c->cc == TPM_CC_StartAuthSession && ok(c)) {
			/* its handle again: the old one ended unseen (flushed by
			 * a resource manager, flag 32) */
			if ((s = sess_find(&r, c->rsp_handle)))
				sess_end(a, &r, s, NONE);
			sess_start(a, &r, i);
			continue;
		}
		if (c->cc == TPM_CC_FlushContext) {
			s = (c->flags & ADVISE_F_FLUSHED) ? sess_find(&r, c->key) : NULL;
			if (s)
				sess_end(a, &r, s, i);
			continue;
		}
		if ((c->flags & ADVISE_F_POLICY) && (s = sess_find(&r, c->sess_handle))) {
			s->policy = 1;
			s->pkey = s->pkey * 16777619u ^ c->key;
			take(a, ADVISE_POLICY_REBUILT, i, 0);
			continue;
		}
		if (!c->sess_handle || !(s = sess_find(&r, c->sess_handle)) ||
		    (c->flags & ADVISE_F_RETRY))
			continue; /* a retry is sent again: not a use */
		s->uses++;
		s->hwrng_last = (c->flags & ADVISE_F_HWRNG) != 0;
		s->getrandom_last = c->cc == TPM_CC_GetRandom;
		if (s->hwrng_last && ORIGIN_KERN(s->origin)) {
			take(a, ADVISE_HWRNG_SESSION, i, 1);
			a->f[ADVISE_HWRNG_SESSION].count++;
		}
		if (c->auth_kind == TPM_AUTH_POLICY || c->auth_kind == TPM_AUTH_POLICY_ENC)
			s->policy = 1;
		if (ok(c) && !(c->flags & ADVISE_F_CONTINUE))
			sess_end(a, &r, s, NONE);
	}
	while (r.nl)
		sess_end(a, &r, &r.live[r.nl - 1], NONE);
	struct advise_finding *f = &a->f[ADVISE_POLICY_REBUILT];
	for (unsigned k = 0; k < r.npol; k++)
		if (r.pol[k].n > 1) {
			f->count += r.pol[k].n - 1;
			f->groups++;
		}
}

static void churn_take(void *a, size_t i, int removed)
{
	take(a, ADVISE_CONTEXT_CHURN, i, removed);
}

/* Per command code, the trace's median and p95 from a histogram of 1,024
 * logarithmic bins from 1 us to 1,000 s (2% wide: no sort, no copy of the
 * latencies). */
#define HBINS 1024
#define HLO   1e-3 /* ms */
#define HDEC  9.0  /* decades */

struct cc_hist {
	uint32_t n;
	float p50, p95;
	uint32_t bin[HBINS];
};

static unsigned hbin(float ms)
{
	if (ms <= HLO)
		return 0;
	double b = log10(ms / HLO) / HDEC * HBINS;
	return b >= HBINS - 1 ? HBINS - 1 : (unsigned)b;
}

static float hval(unsigned b)
{
	return (float)(HLO * pow(10.0, (b + 0.5) * HDEC / HBINS));
}

static float hrank(const struct cc_hist *h, uint32_t rank)
{
	uint32_t acc = 0;
	for (unsigned b = 0; b < HBINS; b++)
		if ((acc += h->bin[b]) >= rank)
			return hval(b);
	return hval(HBINS - 1);
}

/* Histograms per command code, indexed by idx[cc] - 1 (0: none). */
static struct cc_hist *cc_hists(const struct adv *a, uint16_t *idx)
{
	unsigned nh = 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->c[i].lat_ms >= 0 && !idx[a->c[i].cc])
			idx[a->c[i].cc] = (uint16_t)++nh;
	struct cc_hist *h = calloc(nh ? nh : 1, sizeof *h);
	if (!h)
		return NULL;
	for (size_t i = 0; i < a->n; i++)
		if (a->c[i].lat_ms >= 0) {
			struct cc_hist *x = &h[idx[a->c[i].cc] - 1];
			x->n++;
			x->bin[hbin(a->c[i].lat_ms)]++;
		}
	for (unsigned k = 0; k < nh; k++) {
		h[k].p50 = hrank(&h[k], (h[k].n + 1) / 2);
		h[k].p95 = hrank(&h[k], (uint32_t)(((uint64_t)h[k].n * 95 + 99) / 100));
	}
	return h;
}

/* The TPM's record of dictionary-attack use: the first authorization of a
 * DA-protected entity after Startup writes that DA was used to NV and
 * answers TPM_RC_RETRY (the reference implementation's USE_DA_USED, which
 * libtpms and so swtpm follow), once per start-up cycle, whatever the
 * software does. Whether the cycle's first TPM_RC_RETRY, command i, is it:
 * a command with an authorization, sent again at once by its client and
 * answered success. */
static int da_used_retry(const struct adv *a, size_t i)
{
	const struct advise_cmd *c = &a->c[i], *n = &a->c[i + 1];
	return i + 1 < a->n && c->auth_kind != TPM_AUTH_NONE && n->cc == c->cc &&
	       n->client == c->client && (n->flags & ADVISE_F_OK);
}

/* (g) retries (TPM_RC_RETRY, YIELDED, TESTING: the command is sent again) and
 * commands far above their kind's p95 in the trace (4 times, and 5 ms over
 * the median; kinds of 5 commands or more): a self-test wait, a stall. The
 * change is none of the trace's commands but their time: "after" is a
 * retry gone and an outlier at its kind's median. The TPM's once-per-cycle
 * retry of da_used_retry is no finding: nothing changes it. */
static void detect_outliers(struct adv *a)
{
	uint16_t *idx = calloc(65536, sizeof *idx);
	struct cc_hist *h = idx ? cc_hists(a, idx) : NULL;
	struct advise_finding *f = &a->f[ADVISE_OUTLIERS];
	int da_seen = 0; /* this start-up cycle's first TPM_RC_RETRY was seen */
	for (size_t i = 0; h && i < a->n; i++) {
		const struct advise_cmd *c = &a->c[i];
		if (c->cc == TPM_CC_Startup && (c->flags & ADVISE_F_OK))
			da_seen = 0;
		/* the cycle's first TPM_RC_RETRY: the DA-used one, or none is */
		if ((c->flags & ADVISE_F_RC_RETRY) && !da_seen) {
			da_seen = 1;
			if (da_used_retry(a, i))
				continue;
		}
		if (a->taken[i] || c->lat_ms < 0)
			continue;
		int retry = (c->flags & ADVISE_F_RETRY) != 0;
		const struct cc_hist *x = &h[idx[c->cc] - 1];
		int slow = x->n >= 5 && c->lat_ms > 4 * x->p95 && c->lat_ms > x->p50 + 5;
		if (!retry && !slow)
			continue;
		f->count++;
		take(a, ADVISE_OUTLIERS, i, retry);
		if (!retry)
			f->rec_after_ms += x->p50 - c->lat_ms;
	}
	free(h);
	free(idx);
	/* The profile does not price a stall: the figures are the record's. */
	if (a->prof) {
		f->now_ms = f->rec_ms;
		f->after_ms = f->rec_after_ms;
	}
}

double advise_saving_ms(const struct advise_result *r, const struct advise_finding *f)
{
	return r->priced ? f->now_ms - f->after_ms : f->rec_ms - f->rec_after_ms;
}

int advise_marks(const struct advise_cmd *cmds, size_t n, uint8_t *marks)
{
	struct adv a = {.c = cmds, .n = n, .marks = marks};
	memset(marks, 0, n);
	a.taken = calloc(n ? n : 1, 1);
	if (!a.taken)
		return -ENOMEM;
	detect_failures(&a);
	detect_primary(&a);
	detect_sessions(&a);
	detect_outliers(&a);
	free(a.taken);
	return 0;
}

void advise_run(const struct advise_cmd *cmds, size_t n, const struct profile *prof,
		struct advise_result *r)
{
	struct adv a = {.c = cmds, .n = n, .prof = prof};
	memset(r, 0, sizeof *r);
	r->commands = n;
	r->priced = prof != NULL;
	if (prof)
		a.fallback = profile_fallback(prof);
	for (int k = 0; k < ADVISE__COUNT; k++)
		a.f[k].kind = k;
	a.taken = calloc(n ? n : 1, 1);
	if (!a.taken)
		return;
	for (size_t i = 0; i < n; i++) {
		if (cmds[i].lat_ms >= 0)
			r->rec_ms += cmds[i].lat_ms;
		if (prof) {
			int fb;
			r->now_ms += price(&a, &cmds[i], &fb);
		}
	}
	detect_failures(&a);
	detect_primary(&a);
	detect_sessions(&a);
	advise_detect_churn(cmds, n, a.taken, churn_take, &a, &a.f[ADVISE_CONTEXT_CHURN].count);
	detect_outliers(&a);
	free(a.taken);
	for (int k = 0; k < ADVISE__COUNT; k++) {
		struct advise_finding *f = &a.f[k];
		if (!f->count || (!f->removed && k != ADVISE_OUTLIERS))
			continue;
		if (k != ADVISE_REPEATED_PRIMARY && k != ADVISE_POLICY_REBUILT)
			f->groups = 1;
		r->f[r->n++] = *f;
	}
	/* largest saving first (insertion sort: at most ADVISE__COUNT) */
	for (unsigned i = 1; i < r->n; i++)
		for (unsigned j = i;
		     j > 0 && advise_saving_ms(r, &r->f[j]) > advise_saving_ms(r, &r->f[j - 1]);
		     j--) {
			struct advise_finding t = r->f[j];
			r->f[j] = r->f[j - 1];
			r->f[j - 1] = t;
		}
}

static uint32_t fnv(uint32_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/* The key of a CreatePrimary (hierarchy and inPublic: Part 3, 24.1) or a
 * Policy command (its code and parameters); 0 when the bytes do not tell. */
static uint32_t cmd_key(const uint8_t *b, size_t len, uint32_t cc)
{
	struct tpm_cmd c;
	if (!b || tpm_cmd_decode(b, len, &c) || c.param_off > len)
		return 0;
	uint32_t h = fnv(2166136261u, (const uint8_t *)&cc, sizeof cc);
	if (cc != TPM_CC_CreatePrimary)
		return fnv(h, b + c.param_off, len - c.param_off);
	struct wire_rd r;
	uint16_t sz;
	wire_rd_init(&r, b, len);
	wire_skip(&r, c.param_off);
	wire_tpm2b(&r, &sz); /* inSensitive: a secret, not the template */
	const uint8_t *pub = wire_tpm2b(&r, &sz);
	return r.err || !pub ? 0 : fnv(h, pub, sz);
}

/* The kind of a session: a hash of StartAuthSession's sessionType,
 * symmetric and authHash (the parameters after nonceCaller and
 * encryptedSalt, Part 3 11.1); 0 without bytes. */
static uint32_t sas_kind(const uint8_t *b, size_t len)
{
	struct tpm_cmd c;
	struct wire_rd r;
	uint16_t sz;
	if (!b || tpm_cmd_decode(b, len, &c) || c.param_off > len)
		return 0;
	wire_rd_init(&r, b, len);
	wire_skip(&r, c.param_off);
	wire_tpm2b(&r, &sz);
	wire_tpm2b(&r, &sz);
	return r.err ? 0 : fnv(2166136261u, b + r.off, len - r.off);
}

uint32_t advise_primary_key(const uint8_t *cmd, size_t len, uint32_t hierarchy)
{
	uint32_t k = cmd ? cmd_key(cmd, len, TPM_CC_CreatePrimary) : 0;
	return fnv(k ? k : 2166136261u, (const uint8_t *)&hierarchy, sizeof hierarchy);
}

static void fill(void *elem, sqlite3_stmt *st, int org)
{
	struct advise_cmd *e = elem;
	uint32_t cc = (uint32_t)sqlite3_column_int64(st, 1),
		 h1 = (uint32_t)sqlite3_column_int64(st, 2);
	e->seq = (uint32_t)sqlite3_column_int64(st, 0);
	e->cc = (uint16_t)(cc > 0xfffe ? 0xffff : cc);
	e->rsp_handle = (uint32_t)sqlite3_column_int64(st, 3);
	if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
		uint32_t rc = (uint32_t)sqlite3_column_int64(st, 4);
		e->flags |= ADVISE_F_RC | (rc == 0 ? ADVISE_F_OK : 0);
		if (tpm_rc_is_retry(rc))
			e->flags |= ADVISE_F_RETRY | (rc == TPM_RC_RETRY ? ADVISE_F_RC_RETRY : 0);
		if (rc == TPM_RC_PCR_CHANGED)
			e->flags |= ADVISE_F_PCR_CHANGED;
		else if (rc == TPM_RC_NV_DEFINED)
			e->flags |= ADVISE_F_NV_DEFINED;
	}
	int64_t cl = sqlite3_column_int64(st, 5);
	if (sqlite3_column_type(st, 5) != SQLITE_NULL && cl >= 0 && cl < TRACE_MAX_CLIENTS) {
		e->client = (uint16_t)cl;
		e->origin = (uint8_t)(org & ~TRACE_ORIGIN_HWRNG);
		if (org & TRACE_ORIGIN_HWRNG)
			e->flags |= ADVISE_F_HWRNG;
	}
	if (sqlite3_column_int64(st, 16))
		e->flags |= ADVISE_F_ADDED;
	e->sess_handle = sqlite3_column_int(st, 6) > 0 ? (uint32_t)sqlite3_column_int64(st, 7) : 0;
	if (sqlite3_column_int64(st, 8) & TPMA_SESSION_CONTINUESESSION)
		e->flags |= ADVISE_F_CONTINUE;
	e->auth_kind = (uint8_t)sqlite3_column_int(st, 9);
	e->lat_ms = sqlite3_column_type(st, 10) == SQLITE_NULL
			? -1.0f
			: (float)(sqlite3_column_int64(st, 10) / 1e6);
	const uint8_t *b = sqlite3_column_blob(st, 11);
	size_t bl = (size_t)sqlite3_column_bytes(st, 11);
	if (tpm_cc_is_policy(cc)) {
		e->flags |= ADVISE_F_POLICY;
		/* the policy session it extends: the handle of the policy range */
		for (int k = 0; k < 3; k++) {
			uint32_t h = (uint32_t)sqlite3_column_int64(st, 12 + k);
			if (tpm_ht_of(h) == TPM_HT_POLICY_SESSION)
				e->sess_handle = h;
		}
		e->key = b ? cmd_key(b, bl, cc) : cc;
	} else if (cc == TPM_CC_CreatePrimary) {
		/* without bytes: the hierarchy alone (every template alike) */
		e->key = advise_primary_key(b, bl, h1);
		if (b && cmd_key(b, bl, cc))
			e->flags |= ADVISE_F_KEY;
	} else if (cc == TPM_CC_StartAuthSession) {
		e->key = h1; /* tpmKey */
		e->sess_handle = sas_kind(b, bl);
	} else if (cc == TPM_CC_ContextSave || cc == TPM_CC_ContextLoad) {
		/* the context's sequence and savedHandle (TPMS_CONTEXT, Part 2,
		 * 14.5): in the response of a save, the command of a load */
		if (cc == TPM_CC_ContextSave) {
			e->rsp_handle = h1;
			b = sqlite3_column_blob(st, 15);
			bl = (size_t)sqlite3_column_bytes(st, 15);
		}
		if (b && bl >= TPM_HEADER_SIZE + 12) {
			e->key = fnv(2166136261u, b + TPM_HEADER_SIZE, 12);
			e->flags |= ADVISE_F_KEY;
		}
	} else if (cc == TPM_CC_FlushContext && b && bl >= TPM_HEADER_SIZE + 4) {
		e->key = wire_get_u32(b + TPM_HEADER_SIZE);
		e->flags |= ADVISE_F_FLUSHED;
	}
	if (b && tpm_cc_has_variant(cc))
		e->variant = (uint8_t)tpm_cmd_variant(b, bl);
}

/* The commands a replay's policy added are the kernel's (its sessions;
 * unknown when the trace names no kernel), not the program's whose command
 * they came with (their stored client): here they have no client, as in a
 * replay that stores none (inherit_origins), so that a finding about them
 * is the kernel's change. */
static void added_origins(struct advise_cmd *v, size_t n)
{
	int names_kernel = 0;
	for (size_t i = 0; i < n; i++)
		names_kernel |= !(v[i].flags & ADVISE_F_ADDED) && v[i].origin == POL_ORIGIN_KERNEL;
	for (size_t i = 0; i < n; i++)
		if (v[i].flags & ADVISE_F_ADDED) {
			v[i].origin = names_kernel ? POL_ORIGIN_KERNEL : POL_ORIGIN_UNKNOWN;
			v[i].client = 0;
		}
}

/* A replay made before replays kept their clients stores none: its commands
 * are the source's, in order, with the policy's between them. Each command
 * takes the origin and client of the source command it matches by code in
 * that order; the policy's own take the kernel's (the source's unknown when
 * it names no kernel). */
static int inherit_origins(sqlite3 *db, int64_t trace_id, struct advise_cmd *v, size_t n)
{
	sqlite3_stmt *st = NULL;
	int64_t parent = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT parent_id FROM trace WHERE id=?1 AND kind='replay' AND NOT"
			       " EXISTS (SELECT 1 FROM client WHERE trace_id=?1)",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, trace_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		parent = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	struct advise_cmd *p = NULL;
	size_t m = 0;
	if (!parent || n == 0) {
		added_origins(v, n);
		return 0;
	}
	int rc = advise_load(db, parent, &p, &m);
	if (rc)
		return rc;
	int names_kernel = 0;
	for (size_t j = 0; j < m; j++)
		names_kernel |= p[j].origin == POL_ORIGIN_KERNEL;
	for (size_t i = 0, j = 0; i < n; i++) {
		if (j < m && v[i].cc == p[j].cc) {
			v[i].origin = p[j].origin;
			v[i].client = p[j].client;
			v[i].flags = (uint16_t)((v[i].flags & ~ADVISE_F_HWRNG) |
						(p[j].flags & ADVISE_F_HWRNG));
			j++;
		} else {
			v[i].origin = names_kernel ? POL_ORIGIN_KERNEL : POL_ORIGIN_UNKNOWN;
		}
	}
	free(p);
	return 0;
}

int advise_load(sqlite3 *db, int64_t trace_id, struct advise_cmd **out, size_t *n_out)
{
	static const char sql[] =
	    "SELECT seq, coalesce(cc, 0), handle1, rsp_handle, rc, client_id, n_sessions,"
	    " sess_handle, sess_attrs & 255, coalesce(auth_kind, 0), latency_ns,"
	    " CASE WHEN cc IN (tpm_cc('CreatePrimary'), tpm_cc('ContextLoad'),"
	    " tpm_cc('FlushContext'), tpm_cc('StartAuthSession')) OR tpm_cc_is_policy(cc)"
	    " THEN cmd END, handle1, handle2, handle3,"
	    " CASE WHEN cc = tpm_cc('ContextSave') THEN rsp END, flags & 128"
	    " FROM command WHERE trace_id=?1 AND " DB_CLIENT_CMDS " ORDER BY seq";
	void *v = NULL;
	size_t n = 0;
	int rc = trace_rows_load(db, trace_id, sql, 5, sizeof **out, fill, &v, &n);
	if (!rc)
		rc = inherit_origins(db, trace_id, v, n);
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*n_out = n;
	return 0;
}
