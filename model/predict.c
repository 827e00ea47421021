/* The cost model (model/predict.h): predict_init sets up one predictor for a
 * profile and a list of policies, predict_cmd and predict_event feed it the
 * trace (through each policy's expander, model/policy.c), predict_add_gap adds
 * the trace's time outside the TPM, and predict_finish, predict_total_ms,
 * predict_factors and predict_warnings read the result. Each expanded command
 * is priced from the profile (profile_lookup, with its range) through a
 * 1024-slot cache keyed by code, authorization kind and variant, plus the
 * profile's transport time and the host's crypto per session operation
 * (predict_host_estimate, predict_set_host). predict_policies parses the
 * --policy arguments; predict_synthetic builds a workload from a "CMD:N" spec. */
#include "model/predict.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"

static struct pred_cache_slot *price(struct predictor *pr, uint32_t cc, int auth, int variant)
{
	uint32_t key = ((cc & 0xffffff) << 8 | (uint32_t)(auth & 0xf) << 4 | (variant & 0xf)) + 1;
	uint32_t h = (key * 2654435761u) >> 22; /* 10 bits */
	for (unsigned probe = 0; probe < 1024; probe++) {
		struct pred_cache_slot *s = &pr->cache[(h + probe) & 1023];
		if (s->key == key)
			return s;
		if (s->key)
			continue;
		enum prof_match how;
		const struct prof_entry *e =
		    profile_lookup(pr->prof, cc, auth, tpm_variant_str(variant), &how);
		s->key = key;
		s->cc = cc;
		s->auth = (uint8_t)auth;
		s->how = (uint8_t)how;
		s->e = e;
		s->derived = e && e->derived_from;
		if (e) {
			s->mean = e->mean_ms;
			s->spread = (uint8_t)profile_entry_range(e, &s->lo, &s->hi);
		} else {
			s->mean = s->lo = s->hi = pr->fallback_ms;
			s->spread = 0;
		}
		s->mean += pr->prof->transport_ms;
		s->lo += pr->prof->transport_ms;
		s->hi += pr->prof->transport_ms;
		return s;
	}
	return NULL; /* not reached: fewer than 1024 distinct keys exist */
}

void predict_host_estimate(struct pred_host *h)
{
	*h = (struct pred_host){.salt_ecc = HOST_MS_SALT_ECC,
				.salt = HOST_MS_SALT,
				.unsalted = HOST_MS_UNSALTED,
				.hmac = HOST_MS_HMAC,
				.enc = HOST_MS_ENC,
				.name = HOST_MS_NAME,
				.measured = 0};
}

void predict_set_host(struct predictor *pr, const struct pred_host *h)
{
	pr->host = *h;
}

static double host_cost(const struct pred_host *h, const struct pol_out *o)
{
	double ms = 0;
	if (o->cc == TPM_CC_StartAuthSession && o->role == POL_ROLE_SESSION_SETUP)
		ms += o->variant == POL_VAR_SALTED_ECC ? h->salt_ecc
		      : o->variant == POL_VAR_SALTED   ? h->salt
						       : h->unsalted;
	if (o->auth_kind >= TPM_AUTH_HMAC)
		ms += h->hmac;
	if (o->auth_kind == TPM_AUTH_HMAC_ENC || o->auth_kind == TPM_AUTH_POLICY_ENC)
		ms += h->enc;
	if (o->role == POL_ROLE_NAME_LOOKUP)
		ms += h->name;
	return ms;
}

static void count_cc(struct pred_result *r, uint32_t cc, double ms)
{
	for (unsigned k = 0; k < r->n_cc; k++)
		if (r->by_cc[k].cc == cc) {
			r->by_cc[k].n++;
			r->by_cc[k].tpm_ms += ms;
			return;
		}
	if (r->n_cc < sizeof r->by_cc / sizeof r->by_cc[0]) {
		r->by_cc[r->n_cc].cc = cc;
		r->by_cc[r->n_cc].tpm_ms = ms;
		r->by_cc[r->n_cc++].n = 1;
	} else {
		r->cc_other++;
	}
}

static int on_emit(void *ctx, const struct pol_out *o)
{
	struct predictor *pr = ((struct pred_ctx *)ctx)->pr;
	struct pred_result *r = &pr->r[((struct pred_ctx *)ctx)->i];
	struct pred_cache_slot *s = price(pr, o->cc, o->auth_kind, o->variant);

	r->uses[s - pr->cache]++;
	r->commands++;
	count_cc(r, o->cc, s->mean);
	r->tpm_ms += s->mean;
	r->tpm_lo_ms += s->lo;
	r->tpm_hi_ms += s->hi;
	if (!s->spread)
		r->nospread_ms += s->mean;
	r->host_ms += host_cost(&pr->host, o);
	if (s->how != PROF_EXACT) {
		if (s->how == PROF_MISSING)
			r->missing++;
		else
			r->approx++;
		unsigned k;
		for (k = 0; k < r->n_miss; k++)
			if (r->miss[k].cc == o->cc && r->miss[k].auth == o->auth_kind &&
			    r->miss[k].variant == o->variant)
				break;
		if (k == r->n_miss && k < PREDICT_MAX_MISSING) {
			r->miss[k] = (struct pred_missing){.cc = o->cc,
							   .auth = o->auth_kind,
							   .variant = o->variant,
							   .how = s->how,
							   .used = s->e};
			r->n_miss++;
		}
		if (k < r->n_miss)
			r->miss[k].count++;
	}
	return 0;
}

int predict_init(struct predictor *pr, const struct profile *prof, const struct policy *pols,
		 unsigned n)
{
	if (n == 0 || n > PREDICT_MAX_POLICIES || !prof)
		return -EINVAL;
	memset(pr, 0, sizeof *pr);
	pr->prof = prof;
	predict_host_estimate(&pr->host);
	pr->fallback_ms = profile_fallback(prof);
	pr->n_pol = n;
	for (unsigned i = 0; i < n; i++) {
		pr->r[i].pol = pols[i];
		pr->ctx[i].pr = pr;
		pr->ctx[i].i = i;
		policy_expand_init(&pr->st[i], &pr->r[i].pol, on_emit, &pr->ctx[i]);
	}
	return 0;
}

int predict_cmd(struct predictor *pr, const struct pol_cmd *c, uint64_t t_submit_ns,
		uint64_t t_done_ns, int64_t latency_ns)
{
	int rc;
	pr->in_commands++;
	if (c->hwrng && c->cc == TPM_CC_GetRandom)
		pr->in_hwrng++;
	if (latency_ns >= 0) {
		pr->recorded_tpm_ms += (double)latency_ns / 1e6;
		pr->recorded_n++;
	}
	/* Gaps only between commands with timing: an untimed trace's times are
	 * ordinals (db/stats.h, DB_TIMED_SQL), whose differences are no time. */
	if (latency_ns >= 0 && t_submit_ns && pr->have_prev) {
		pr->gap_known = 1;
		if (t_submit_ns > pr->prev_done_ns)
			pr->gap_ms += (double)(t_submit_ns - pr->prev_done_ns) / 1e6;
	}
	if (latency_ns >= 0 && t_done_ns) {
		pr->prev_done_ns = t_done_ns;
		pr->have_prev = 1;
	}
	for (unsigned i = 0; i < pr->n_pol; i++) {
		if ((rc = policy_expand_cmd(&pr->st[i], c)))
			return rc;
	}
	return 0;
}

int predict_event(struct predictor *pr, enum pol_event ev)
{
	int rc;
	pr->in_events++;
	for (unsigned i = 0; i < pr->n_pol; i++) {
		if ((rc = policy_expand_event(&pr->st[i], ev)))
			return rc;
	}
	return 0;
}

void predict_add_gap(struct predictor *pr, double ms)
{
	pr->gap_ms += ms;
	pr->gap_known = 1;
}

static int cmp_cc(const void *a, const void *b)
{
	const struct pred_cc_count *x = a, *y = b;
	return x->n < y->n ? 1 : x->n > y->n ? -1 : x->cc < y->cc ? -1 : x->cc > y->cc;
}

void predict_finish(struct predictor *pr)
{
	for (unsigned i = 0; i < pr->n_pol; i++) {
		struct pred_result *r = &pr->r[i];
		for (int k = 0; k < POL_ROLE__COUNT; k++)
			r->by_role[k] = pr->st[i].emitted[k];
		if (r->n_cc > 1) /* by_cc may be NULL when there is none */
			qsort(r->by_cc, r->n_cc, sizeof r->by_cc[0], cmp_cc);
	}
}

double predict_fallback_share(const struct predictor *pr, unsigned k)
{
	const struct pred_result *r = &pr->r[k];
	/* Every command the profile lacks is priced at exactly the fallback. */
	return r->tpm_ms > 0 ? (double)r->missing * pr->fallback_ms / r->tpm_ms : 0;
}

double predict_total_ms(const struct predictor *pr, unsigned i)
{
	return pr->r[i].tpm_ms + pr->r[i].host_ms + pr->gap_ms;
}

void predict_factors(const struct predictor *pr, unsigned i, unsigned base, struct pred_factors *f)
{
	double tot = predict_total_ms(pr, i), base_tot = predict_total_ms(pr, base);
	double rec_tot = pr->recorded_tpm_ms + pr->gap_ms;
	memset(f, 0, sizeof *f);
	f->total_known = pr->gap_known;
	f->have_rec = pr->recorded_n > 0;
	f->tpm_vs_base = pr->r[base].tpm_ms > 0 ? pr->r[i].tpm_ms / pr->r[base].tpm_ms : 0;
	f->total_vs_base = base_tot > 0 ? tot / base_tot : 0;
	if (f->have_rec) {
		f->tpm_vs_rec = pr->recorded_tpm_ms > 0 ? pr->r[i].tpm_ms / pr->recorded_tpm_ms : 0;
		f->total_vs_rec = rec_tot > 0 ? tot / rec_tot : 0;
	}
}

static int add_policy(const char *name, struct policy *pols, int *show, unsigned *npol, char *err,
		      size_t errlen)
{
	if (*npol >= PREDICT_MAX_POLICIES - 1) {
		snprintf(err, errlen, "too many policies (at most %d)", PREDICT_MAX_POLICIES - 1);
		return -EINVAL;
	}
	char why[256];
	if (policy_parse(name, &pols[*npol], why, sizeof why)) {
		snprintf(err, errlen, "--policy '%s': %s", name, why);
		return -EINVAL;
	}
	show[(*npol)++] = 1;
	return 0;
}

int predict_policies(const char *const *args, unsigned n_args, struct policy *pols, int *show,
		     unsigned *npol, unsigned *base, char *err, size_t errlen)
{
	static const char *const all[] = {"all"};
	int rc;
	*npol = 0;
	if (!n_args) {
		args = all;
		n_args = 1;
	}
	for (unsigned k = 0; k < n_args; k++) {
		if (strcmp(args[k], "all")) {
			if ((rc = add_policy(args[k], pols, show, npol, err, errlen)))
				return rc;
			continue;
		}
		const char *n;
		for (unsigned j = 0; (n = policy_preset_name(j)); j++)
			if ((rc = add_policy(n, pols, show, npol, err, errlen)))
				return rc;
	}
	for (unsigned k = 0; k < *npol; k++)
		if (pols[k].mode == POL_MODE_PASSWORD) {
			*base = k;
			return 0;
		}
	policy_parse("password", &pols[*npol], err, errlen);
	show[*npol] = 0;
	*base = (*npol)++;
	return 0;
}

/* "pcr-extend" -> PCR_Extend */
static uint32_t cc_from_user(const char *s, size_t len)
{
	char buf[64];
	if (len >= sizeof buf)
		return 0;
	for (size_t i = 0; i < len; i++)
		buf[i] = s[i] == '-' ? '_' : s[i];
	buf[len] = 0;
	return tpm_cc_from_name(buf);
}

/* One "CMD:N" of a synthetic spec: its code and count. */
static int synthetic_item(const char *s, size_t len, uint32_t *cc, long long *n, char *err,
			  size_t errlen)
{
	const char *colon = memchr(s, ':', len);
	char *end;
	if (!colon) {
		snprintf(err, errlen, "'%.*s' is not CMD:N (e.g. pcr-extend:12313)", (int)len, s);
		return -EINVAL;
	}
	if (!(*cc = cc_from_user(s, (size_t)(colon - s)))) {
		snprintf(err, errlen, "unknown command '%.*s'", (int)(colon - s), s);
		return -EINVAL;
	}
	errno = 0;
	*n = strtoll(colon + 1, &end, 10);
	if (end != s + len || errno || *n <= 0 || *n > 1000000000LL) {
		snprintf(err, errlen, "count '%.*s' is not 1..1000000000",
			 (int)(s + len - colon - 1), colon + 1);
		return -EINVAL;
	}
	return 0;
}

int predict_synthetic(struct predictor *pr, const char *spec, double gap_ms, char *desc,
		      size_t dlen, char *err, size_t errlen)
{
	size_t dl = 0;
	uint64_t total = 0;
	int rc;
	desc[0] = 0;
	for (const char *s = spec; *s;) {
		size_t len = strcspn(s, ",");
		uint32_t cc;
		long long n;
		if ((rc = synthetic_item(s, len, &cc, &n, err, errlen)))
			return rc;
		const struct tpm_cc_info *ci = tpm_cc_lookup(cc);
		struct pol_cmd c = {.cc = cc, .origin = POL_ORIGIN_KERNEL, .has_rc = 1};
		c.auth_kind = ci && ci->auth_handles ? TPM_AUTH_PASSWORD : TPM_AUTH_NONE;
		if (cc == TPM_CC_PCR_Extend) {
			c.n_handles = 1;
			c.handles[0] = 10; /* IMA's PCR */
		}
		for (long long i = 0; i < n; i++) {
			c.seq = total++;
			if ((rc = predict_cmd(pr, &c, 0, 0, -1))) {
				snprintf(err, errlen, "expansion failed (%d)", rc);
				return rc;
			}
		}
		dl += (size_t)snprintf(desc + dl, dl < dlen ? dlen - dl : 0, "%s%lld x %s",
				       dl ? ", " : "", n, tpm_cc_name(cc));
		s += len;
		if (*s)
			s++;
	}
	if (gap_ms >= 0)
		predict_add_gap(pr, total > 1 ? gap_ms * (double)(total - 1) : 0);
	return 0;
}

static void warning_text(const struct predictor *pr, const struct pred_missing *x, char *w,
			 size_t n)
{
	const char *nm = tpm_cc_name(x->cc) ? tpm_cc_name(x->cc) : "?";
	const char *vs = x->variant ? tpm_variant_str(x->variant) : "";
	if (x->how == PROF_MISSING)
		snprintf(w, n, "profile %s lacks %s (%s%s%s): priced at its fallback %.3f ms",
			 pr->prof->name, nm, profile_auth_str(x->auth), x->variant ? ", " : "", vs,
			 pr->fallback_ms);
	else
		snprintf(w, n, "profile %s has no %s with %s%s%s: priced as %s %s (%s)",
			 pr->prof->name, nm, profile_auth_str(x->auth), x->variant ? ", " : "", vs,
			 profile_auth_str(x->used->auth), x->used->variant,
			 profile_match_str(x->how));
}

unsigned predict_warnings(const struct predictor *pr, char (*w)[256], unsigned max)
{
	unsigned nw = 0;
	for (unsigned k = 0; k < pr->n_pol; k++) {
		const struct pred_result *r = &pr->r[k];
		for (unsigned m = 0; m < r->n_miss; m++) {
			char t[256];
			unsigned j;
			warning_text(pr, &r->miss[m], t, sizeof t);
			for (j = 0; j < nw; j++)
				if (!strcmp(w[j], t))
					break;
			if (j == nw && nw < max)
				strcpy(w[nw++], t);
		}
	}
	return nw;
}

const char *predict_fmt_time(char *b, size_t l, double ms)
{
	if (fabs(ms) >= 10000)
		snprintf(b, l, "%.1f s", ms / 1000);
	else if (fabs(ms) >= 1000)
		snprintf(b, l, "%.3f s", ms / 1000);
	else
		snprintf(b, l, "%.2f ms", ms);
	return b;
}

int predict_parse_time(const char *s, double *ms)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v) || v < 0)
		return -1;
	if (!*end || !strcmp(end, "ms"))
		*ms = v;
	else if (!strcmp(end, "s"))
		*ms = v * 1000;
	else if (!strcmp(end, "min"))
		*ms = v * 60000;
	else
		return -1;
	return 0;
}
