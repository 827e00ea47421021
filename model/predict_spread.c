/* The spread of a prediction and its tail risk (model/predict.h): each
 * priced kind's latency drawn from its profile entry's distribution over
 * sampled boots, and the kinds whose tail passes the kernel's timeout. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/predict.h"
#include "model/profile_dist.h"
#include "model/tpm/tpm_cc.h"

/* A priced kind: its entry's distribution (model/profile_dist.h), the
 * profile's transport cost added to every draw, its count in a boot. */
struct dist {
	struct prof_dist p;
	double transport;
	uint64_t count;
};

static void dist_of(const struct prof_entry *e, double fallback, double transport, struct dist *d)
{
	profile_dist_of(e, fallback, &d->p);
	d->transport = transport;
	d->count = 0;
}

/* splitmix64: a seeded stream of uniform numbers in (0, 1). */
static double uniform(uint64_t *st)
{
	uint64_t z = (*st += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *st)
{
	double a = uniform(st), b = uniform(st);
	return sqrt(-2 * log(a)) * cos(2 * M_PI * b);
}

/* One draw of a kind with a spread (draw_sum prices a constant itself). */
static double draw(const struct dist *d, uint64_t *st)
{
	double u = uniform(st);
	return profile_dist_draw(&d->p, u, d->p.n == 0 ? normal(st) : 0);
}

/* The sum of a kind's commands in one boot. */
static double draw_sum(const struct dist *d, uint64_t *st)
{
	double sum = 0;
	if (d->p.n == 1)
		return (double)d->count * (d->p.x[0] + d->transport);
	if (d->count > 64)
		return fmax(0, (double)d->count * (d->p.mean + d->transport) +
				   sqrt((double)d->count) * d->p.sd * normal(st));
	for (uint64_t i = 0; i < d->count; i++)
		sum += draw(d, st) + d->transport;
	return sum;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int predict_spread(const struct predictor *pr, unsigned k, unsigned runs, uint64_t seed,
		   struct pred_spread *out)
{
	const struct pred_result *r = &pr->r[k];
	unsigned nd = 0;
	double fixed = 0, spread_ms = 0;
	struct dist *d = calloc(1024, sizeof *d);
	double *tot = calloc(runs ? runs : 1, sizeof *tot);
	if (!d || !tot) {
		free(d);
		free(tot);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < 1024; i++) {
		const struct pred_cache_slot *s = &pr->cache[i];
		if (!r->uses[i])
			continue;
		dist_of(s->e, pr->fallback_ms, pr->prof->transport_ms, &d[nd]);
		d[nd].count = r->uses[i];
		if (d[nd].p.n == 1) {
			fixed += draw_sum(&d[nd], &seed);
			continue;
		}
		spread_ms += (double)r->uses[i] * s->mean;
		nd++;
	}
	uint64_t st = seed;
	for (unsigned j = 0; j < runs; j++) {
		double t = fixed;
		for (unsigned i = 0; i < nd; i++)
			t += draw_sum(&d[i], &st);
		tot[j] = t;
	}
	qsort(tot, runs, sizeof *tot, cmp_dbl);
	memset(out, 0, sizeof *out);
	out->runs = runs;
	out->seed = seed;
	if (runs) {
		/* nearest rank, as everywhere else */
		out->p50_ms = tot[(size_t)ceil(runs * 0.50) - 1];
		out->p95_ms = tot[(size_t)ceil(runs * 0.95) - 1];
		out->max_ms = tot[runs - 1];
	}
	out->sampled = r->tpm_ms > 0 ? spread_ms / r->tpm_ms : 0;
	free(d);
	free(tot);
	return 0;
}

/* The kernel's tpm2_ordinal_duration_map, in ms. */
static const struct {
	uint32_t cc;
	double ms;
} kernel_map[] = {
    {TPM_CC_Startup, 750},
    {TPM_CC_SelfTest, 3000},
    {TPM_CC_GetRandom, 2000},
    {TPM_CC_SequenceUpdate, 750},
    {TPM_CC_SequenceComplete, 750},
    {TPM_CC_EventSequenceComplete, 750},
    {TPM_CC_HashSequenceStart, 750},
    {TPM_CC_VerifySignature, 30000},
    {TPM_CC_PCR_Extend, 750},
    {TPM_CC_HierarchyControl, 2000},
    {TPM_CC_HierarchyChangeAuth, 2000},
    {TPM_CC_GetCapability, 750},
    {TPM_CC_NV_Read, 2000},
};

const char *predict_kernel_name(unsigned kernel)
{
	return kernel == 0 ? "a kernel with 207696b17f38 and not its fix"
			   : "a kernel without 207696b17f38 or with its fix";
}

double predict_kernel_timeout_ms(unsigned kernel, uint32_t cc)
{
	if (cc == TPM_CC_CreatePrimary || cc == TPM_CC_Create || cc == TPM_CC_CreateLoaded)
		return kernel == 0 ? 30000 : 300000;
	for (size_t i = 0; i < sizeof kernel_map / sizeof kernel_map[0]; i++)
		if (kernel_map[i].cc == cc)
			return kernel_map[i].ms;
	return 120000; /* TPM2_DURATION_DEFAULT */
}

/* The share of d's latencies above t. */
static double exceed(const struct dist *d, double t)
{
	return profile_dist_exceed(&d->p, t - d->transport);
}

static int cmp_risk(const void *a, const void *b)
{
	const struct pred_timeout *x = a, *y = b;
	return x->p_boot > y->p_boot ? -1 : x->p_boot < y->p_boot;
}

unsigned predict_timeouts(const struct predictor *pr, unsigned k, struct pred_timeout *out,
			  unsigned max)
{
	const struct pred_result *r = &pr->r[k];
	unsigned n = 0;
	for (unsigned i = 0; i < 1024; i++) {
		const struct pred_cache_slot *s = &pr->cache[i];
		struct dist d;
		if (!r->uses[i])
			continue;
		dist_of(s->e, pr->fallback_ms, pr->prof->transport_ms, &d);
		for (unsigned kern = 0; kern < PREDICT_KERNELS && n < max; kern++) {
			double t = predict_kernel_timeout_ms(kern, s->cc);
			double p = exceed(&d, t);
			if (p <= 0)
				continue;
			out[n++] = (struct pred_timeout){
			    .cc = s->cc,
			    .auth = s->auth,
			    .e = s->e,
			    .count = r->uses[i],
			    .kernel = kern,
			    .timeout_ms = t,
			    .p_cmd = p,
			    .p_boot = 1 - pow(1 - p, (double)r->uses[i]),
			};
		}
	}
	qsort(out, n, sizeof *out, cmp_risk);
	return n;
}

uint64_t predict_derived(const struct predictor *pr, unsigned k)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < 1024; i++)
		if (pr->r[k].uses[i] && pr->cache[i].derived)
			n += pr->r[k].uses[i];
	return n;
}

double predict_derived_share(const struct predictor *pr, unsigned k)
{
	double ms = 0;
	for (unsigned i = 0; i < 1024; i++)
		if (pr->r[k].uses[i] && pr->cache[i].derived)
			ms += (double)pr->r[k].uses[i] * pr->cache[i].mean;
	return pr->r[k].tpm_ms > 0 ? ms / pr->r[k].tpm_ms : 0;
}
