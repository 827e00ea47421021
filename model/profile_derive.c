/* Derived profile entries (docs/profiles.md, "Derived entries"). A rule
 * prices a command from the operations the source timed: its first source
 * (the first of the alternatives the profile has) counted `times` times,
 * plus an optional second source. Figures combine as the operations would
 * if they moved together: means, quantiles, min and max add (a sum's
 * quantile is at most the sum of the quantiles, so the tail is not
 * understated); stdevs add in quadrature across the two sources. */
#include "model/profile_derive.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"

const char profile_derive_never[] =
    "NV writes (NV_DefineSpace, NV_Write, NV_UndefineSpace, NV_Increment, NV_Extend), "
    "Startup, SelfTest: no timed operation to derive them from";

struct derive_src {
	uint32_t cc;
	uint8_t auth;
	const char *variant;
};

struct derive_rule {
	uint32_t cc; /* the derived entry */
	uint8_t auth;
	const char *variant;
	struct derive_src base[2]; /* the first the profile has is used */
	unsigned times;		   /* base counted this many times */
	struct derive_src plus;	   /* added; cc 0: nothing */
	const char *why;
};

/* The operations the rules build on, as the TPMScan importer names them. */
#define SRC_HMAC   TPM_CC_HMAC, TPM_AUTH_PASSWORD, "sha256.256b"
#define SRC_HASH   TPM_CC_Hash, TPM_AUTH_NONE, "sha256.256b"
#define SRC_RANDOM TPM_CC_GetRandom, TPM_AUTH_NONE, "32b"

static const struct derive_rule rules[] = {
    {TPM_CC_PCR_Extend,
     TPM_AUTH_PASSWORD,
     "-",
     {{SRC_HASH}},
     1,
     {0},
     "one digest in the TPM and a small command each way"},
    {TPM_CC_PCR_Extend,
     TPM_AUTH_HMAC,
     "-",
     {{SRC_HASH}},
     1,
     {SRC_HMAC},
     "the password extend plus the session's command and response HMACs, an HMAC command"},
    {TPM_CC_StartAuthSession,
     TPM_AUTH_NONE,
     "salted-ecc",
     {{TPM_CC_ECDH_ZGen, TPM_AUTH_PASSWORD, "ecc-p256"},
      {TPM_CC_Sign, TPM_AUTH_PASSWORD, "ecc-p256.ecdsa"}},
     1,
     {SRC_HMAC},
     "the salt's P-256 point multiplication (ECDH_ZGen, else an ECDSA signature's) plus the "
     "session key's derivation (an HMAC command)"},
    {TPM_CC_StartAuthSession,
     TPM_AUTH_NONE,
     "salted",
     {{TPM_CC_RSA_Decrypt, TPM_AUTH_PASSWORD, "rsa-2048.oaep"}},
     1,
     {SRC_HMAC},
     "the salt's RSA-OAEP decryption plus the session key's derivation (an HMAC command)"},
    {TPM_CC_StartAuthSession,
     TPM_AUTH_NONE,
     "unsalted",
     {{SRC_RANDOM}},
     1,
     {0},
     "a nonce from the TPM's generator, no key operation"},
    {TPM_CC_ContextLoad,
     TPM_AUTH_NONE,
     "-",
     {{SRC_HMAC}},
     2,
     {0},
     "the context's integrity HMAC and its decryption: two HMAC-class operations"},
    {TPM_CC_ContextSave,
     TPM_AUTH_NONE,
     "-",
     {{SRC_HMAC}},
     2,
     {0},
     "the context's encryption and its integrity HMAC: two HMAC-class operations"},
    {TPM_CC_Load,
     TPM_AUTH_PASSWORD,
     "-",
     {{SRC_HMAC}},
     2,
     {0},
     "the private area's integrity HMAC and its decryption: two HMAC-class operations"},
    {TPM_CC_Quote,
     TPM_AUTH_PASSWORD,
     "-",
     {{TPM_CC_Sign, TPM_AUTH_PASSWORD, "ecc-p256.ecdsa"},
      {TPM_CC_Sign, TPM_AUTH_PASSWORD, "rsa-2048.rsassa"}},
     1,
     {0},
     "a signature by the attestation key (ECDSA P-256, else RSASSA 2048) over the PCRs' digest"},
};

/* Commands without a key operation: the fixed cost of a small command, a
 * GetRandom of 32 bytes. */
static const struct {
	uint32_t cc;
	uint8_t auth;
} fixed_cost[] = {
    {TPM_CC_FlushContext, TPM_AUTH_NONE},    {TPM_CC_GetCapability, TPM_AUTH_NONE},
    {TPM_CC_PCR_Read, TPM_AUTH_NONE},	     {TPM_CC_ReadPublic, TPM_AUTH_NONE},
    {TPM_CC_NV_ReadPublic, TPM_AUTH_NONE},   {TPM_CC_NV_Read, TPM_AUTH_PASSWORD},
    {TPM_CC_Unseal, TPM_AUTH_PASSWORD},	     {TPM_CC_GetTestResult, TPM_AUTH_NONE},
    {TPM_CC_ReadClock, TPM_AUTH_NONE},	     {TPM_CC_PolicyPCR, TPM_AUTH_NONE},
    {TPM_CC_PolicyGetDigest, TPM_AUTH_NONE}, {TPM_CC_PolicyCommandCode, TPM_AUTH_NONE},
    {TPM_CC_PolicyAuthValue, TPM_AUTH_NONE}, {TPM_CC_PolicyPassword, TPM_AUTH_NONE},
    {TPM_CC_PolicyRestart, TPM_AUTH_NONE},
};

static double sum(double a, double b)
{
	return isnan(a) || isnan(b) ? NAN : a + b;
}

/* e = times x a (+ b): see the top of the file. */
static void combine(struct prof_entry *e, const struct prof_entry *a, unsigned times,
		    const struct prof_entry *b)
{
	double k = times;
	const double *fa[] = {&a->mean_ms, &a->p50_ms, &a->p90_ms, &a->p95_ms,
			      &a->p99_ms,  &a->min_ms, &a->max_ms};
	double *fe[] = {&e->mean_ms, &e->p50_ms, &e->p90_ms, &e->p95_ms,
			&e->p99_ms,  &e->min_ms, &e->max_ms};
	const double *fb[] = {b ? &b->mean_ms : NULL, b ? &b->p50_ms : NULL, b ? &b->p90_ms : NULL,
			      b ? &b->p95_ms : NULL,  b ? &b->p99_ms : NULL, b ? &b->min_ms : NULL,
			      b ? &b->max_ms : NULL};
	for (size_t i = 0; i < sizeof fe / sizeof fe[0]; i++)
		*fe[i] = b ? sum(k * *fa[i], *fb[i]) : k * *fa[i];
	e->stdev_ms = k * a->stdev_ms;
	if (b)
		e->stdev_ms = isnan(a->stdev_ms) || isnan(b->stdev_ms)
				  ? NAN
				  : sqrt(e->stdev_ms * e->stdev_ms + b->stdev_ms * b->stdev_ms);
	e->n = b && (b->n < a->n) ? b->n : a->n;
}

static const struct prof_entry *source(const struct profile *p, const struct derive_src *s)
{
	return s->cc ? profile_lookup_exact(p, s->cc, s->auth, s->variant) : NULL;
}

static void name_add(char *names, size_t len, uint32_t cc)
{
	const char *n = tpm_cc_name(cc);
	size_t l;
	if (!names || !len || !n)
		return;
	/* Each name once: a whole-word match in the list so far. */
	for (const char *s = names; (s = strstr(s, n)); s++) {
		l = strlen(n);
		if ((s == names || s[-1] == ' ') && (s[l] == ' ' || !s[l]))
			return;
	}
	l = strlen(names);
	snprintf(names + l, len - l, "%s%s", l ? " " : "", n);
}

static int add(struct profile *p, struct prof_entry *e, const char *comment)
{
	char c[600];
	snprintf(c, sizeof c, "derived: %s", comment);
	e->comment = c;
	e->line = 0;
	int rc = profile_add(p, e);
	e->comment = NULL;
	return rc;
}

/* Applies one rule: 1 when it added an entry, 0 when p has the entry or
 * lacks a source, -ENOMEM. */
static int derive_one(struct profile *p, const struct derive_rule *ru, char *names, size_t len)
{
	char c[512], what[160] = "";
	const struct derive_src *bs = NULL;
	const struct prof_entry *a = NULL, *b = source(p, &ru->plus);
	size_t l = 0;
	int rc;
	if (profile_lookup_exact(p, ru->cc, ru->auth, ru->variant))
		return 0;
	for (size_t k = 0; k < 2 && !a && ru->base[k].cc; k++)
		if ((a = source(p, &ru->base[k])))
			bs = &ru->base[k];
	if (!a || a->derived_from || (ru->plus.cc && (!b || b->derived_from)))
		return 0;
	struct prof_entry e = *a;
	e.cc = ru->cc;
	e.auth = ru->auth;
	snprintf(e.variant, sizeof e.variant, "%s", ru->variant);
	e.derived_from = bs->cc;
	combine(&e, a, ru->times ? ru->times : 1, b);
	if (ru->times > 1)
		l += (size_t)snprintf(what, sizeof what, "%u x ", ru->times);
	l += (size_t)snprintf(what + l, sizeof what - l, "%s %s", tpm_cc_name(bs->cc), bs->variant);
	if (b)
		snprintf(what + l, sizeof what - l, " + %s %s", tpm_cc_name(ru->plus.cc),
			 ru->plus.variant);
	snprintf(c, sizeof c, "%s; %s", what, ru->why);
	if ((rc = add(p, &e, c)))
		return rc;
	name_add(names, len, e.cc);
	return 1;
}

int profile_derive(struct profile *p, char *names, size_t len)
{
	char c[512];
	int added = 0, rc;
	if (names && len)
		names[0] = 0;
	/* CreatePrimary, each key type, from Create of the same key type: a
	 * primary key is made from the hierarchy's seed as Create makes one
	 * from the TPM's random numbers; key generation dominates both. */
	for (size_t i = 0, n0 = p->n; i < n0; i++) {
		struct prof_entry e = p->e[i];
		if (e.cc != TPM_CC_Create || e.derived_from ||
		    profile_lookup_exact(p, TPM_CC_CreatePrimary, e.auth, e.variant))
			continue;
		e.cc = TPM_CC_CreatePrimary;
		e.derived_from = TPM_CC_Create;
		snprintf(c, sizeof c, "the figures of Create %s (same key type)", e.variant);
		if ((rc = add(p, &e, c)))
			return rc;
		added++;
		name_add(names, len, e.cc);
	}
	for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
		if ((rc = derive_one(p, &rules[r], names, len)) < 0)
			return rc;
		added += rc;
	}
	for (size_t r = 0; r < sizeof fixed_cost / sizeof fixed_cost[0]; r++) {
		const struct derive_rule fixed = {
		    fixed_cost[r].cc,
		    fixed_cost[r].auth,
		    "-",
		    {{SRC_RANDOM}},
		    1,
		    {0},
		    "no key operation: the TPM's fixed cost of a small command"};
		if ((rc = derive_one(p, &fixed, names, len)) < 0)
			return rc;
		added += rc;
	}
	return added;
}
