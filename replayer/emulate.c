/* Latency injection (see emulate.h). */
#include "replayer/emulate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "db/db.h"
#include "model/decode.h"
#include "model/wire.h"

#define TPM_ALG_RSA	  0x0001
#define TPM_ALG_ECC_TYPE  0x0023
#define TPM_ALG_NULL_ALG  0x0010
#define TPM_ALG_RSAES	  0x0015
#define TPM_ALG_ECDAA	  0x001A
#define TPM_ALG_SYMCIPHER 0x0025

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna). */
static uint64_t next_u64(struct emulator *em)
{
	uint64_t *s = em->s;
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

/* Uniform in (0, 1). */
static double next_unit(struct emulator *em)
{
	return ((double)(next_u64(em) >> 11) + 0.5) / 9007199254740992.0;
}

static double next_normal(struct emulator *em)
{
	/* Box-Muller; one of the pair is enough here. */
	double u = next_unit(em), v = next_unit(em);
	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

uint64_t emulate_random_seed(void)
{
	uint64_t s = 0;
	if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s)
		s = mono_ns() ^ ((uint64_t)time(NULL) << 20);
	return s;
}

int emulate_init(struct emulator *em, sqlite3 *db, const char *arg, uint64_t seed, char *err,
		 size_t errlen)
{
	memset(em, 0, sizeof *em);
	int rc = profile_resolve(db, arg, &em->prof, &em->from, err, errlen);
	if (rc)
		return rc;
	em->fallback_ms = profile_fallback(&em->prof);
	em->seed = seed;
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		em->s[i] = splitmix64(&x);
	return 0;
}

void emulate_release(struct emulator *em)
{
	profile_release(&em->prof);
}

/* Skips a TPMT_SYM_DEF_OBJECT (Part 2 11.1.7): algorithm, then keyBits and
 * mode unless it is TPM_ALG_NULL. */
static void skip_sym(struct wire_rd *r)
{
	if (wire_u16(r) != TPM_ALG_NULL_ALG) {
		wire_u16(r);
		wire_u16(r);
	}
}

/* The key type of a TPM2B_PUBLIC template (Part 2 12.2.4, 12.2.3.5/6):
 * "rsa-2048", "ecc-p256", ...; NULL for other object types. */
static const char *public_variant(struct wire_rd *r, char *buf, size_t buflen)
{
	uint16_t size, n;
	wire_u16(r); /* TPM2B_PUBLIC size */
	uint16_t type = wire_u16(r);
	wire_u16(r);	      /* nameAlg */
	wire_u32(r);	      /* objectAttributes */
	wire_tpm2b(r, &size); /* authPolicy */
	if (r->err)
		return NULL;
	if (type == TPM_ALG_RSA) {
		skip_sym(r);
		uint16_t scheme = wire_u16(r);
		if (scheme != TPM_ALG_NULL_ALG && scheme != TPM_ALG_RSAES)
			wire_u16(r); /* hashAlg of the scheme */
		n = wire_u16(r);     /* keyBits */
		if (r->err)
			return NULL;
		snprintf(buf, buflen, "rsa-%u", n);
		return buf;
	}
	if (type == TPM_ALG_ECC_TYPE) {
		skip_sym(r);
		uint16_t scheme = wire_u16(r);
		if (scheme != TPM_ALG_NULL_ALG) {
			wire_u16(r); /* hashAlg */
			if (scheme == TPM_ALG_ECDAA)
				wire_u16(r); /* count */
		}
		n = wire_u16(r); /* curveID (Part 2 6.4) */
		if (r->err)
			return NULL;
		static const char *const curves[] = {NULL,	 "ecc-p192", "ecc-p224",
						     "ecc-p256", "ecc-p384", "ecc-p521"};
		if (n < sizeof curves / sizeof curves[0] && curves[n])
			return curves[n];
		snprintf(buf, buflen, "ecc-0x%04x", n);
		return buf;
	}
	return NULL;
}

const char *emulate_variant(const uint8_t *cmd, size_t len, char *buf, size_t buflen)
{
	struct tpm_cmd c;
	struct wire_rd r;
	uint16_t sz;

	if (tpm_cmd_decode(cmd, len, &c))
		return "-";
	wire_rd_init(&r, cmd, len);
	wire_skip(&r, c.param_off);
	switch (c.cc) {
	case TPM_CC_StartAuthSession: {
		/* Part 3 11.1: tpmKey TPM_RH_NULL = no salt. The salt of an ECC
		 * key is a TPMS_ECC_POINT (two TPM2Bs filling encryptedSalt);
		 * anything else is an RSA-OAEP secret. */
		if (c.handles[0] == TPM_RH_NULL)
			return "unsalted";
		wire_tpm2b(&r, &sz); /* nonceCaller */
		const uint8_t *salt = wire_tpm2b(&r, &sz);
		if (r.err || !salt)
			return "salted";
		struct wire_rd p;
		uint16_t xl, yl;
		wire_rd_init(&p, salt, sz);
		wire_tpm2b(&p, &xl);
		wire_tpm2b(&p, &yl);
		return !p.err && !wire_left(&p) && xl && yl ? "salted-ecc" : "salted";
	}
	case TPM_CC_CreatePrimary:
	case TPM_CC_Create:
	case TPM_CC_CreateLoaded: {
		/* Part 3 24.1, 12.1: inSensitive, then the public template. */
		wire_tpm2b(&r, &sz);
		const char *v = public_variant(&r, buf, buflen);
		return v ? v : "-";
	}
	default:
		return "-";
	}
}

uint64_t emulate_latency_ns(struct emulator *em, const uint8_t *cmd, size_t len)
{
	struct tpm_cmd c;
	char vbuf[32];
	enum prof_match how = PROF_MISSING;
	const struct prof_entry *e = NULL;
	double ms;

	tpm_cmd_decode(cmd, len, &c);
	if (c.cc)
		e = profile_lookup(&em->prof, c.cc, c.auth_kind,
				   emulate_variant(cmd, len, vbuf, sizeof vbuf), &how);
	em->commands++;
	if (!e) {
		ms = em->fallback_ms;
		em->missing++;
		unsigned k;
		for (k = 0; k < em->n_missing_cc && em->missing_cc[k] != c.cc; k++)
			;
		if (k == em->n_missing_cc && k < sizeof em->missing_cc / sizeof em->missing_cc[0])
			em->missing_cc[em->n_missing_cc++] = c.cc;
	} else {
		if (how != PROF_EXACT)
			em->approx++;
		ms = e->mean_ms;
		if (isfinite(e->stdev_ms) && e->stdev_ms > 0) {
			/* Log-normal with the entry's mean m and standard
			 * deviation s: sigma^2 = ln(1 + s^2/m^2), mu = ln m -
			 * sigma^2/2; its mean is m. */
			double cv = e->stdev_ms / e->mean_ms;
			double s2 = log1p(cv * cv);
			ms = exp(log(e->mean_ms) - s2 / 2 + sqrt(s2) * next_normal(em));
			if (ms > PROFILE_MAX_MS)
				ms = PROFILE_MAX_MS;
		}
	}
	ms += em->prof.transport_ms;
	return ms > 0 ? (uint64_t)(ms * 1e6 + 0.5) : 0;
}

void emulate_hold(struct emulator *em, uint64_t t_submit, uint64_t latency_ns)
{
	/* The profiled TPM would answer at t_submit + latency. When an earlier
	 * response came later than that (swtpm or this process was descheduled,
	 * the sleep woke up late: tens of microseconds each time, far more on a
	 * busy host), the delay is owed and taken off the following holds, so
	 * that the emulated TPM keeps the profile's pace over a run; a response
	 * is never released before the target has answered. */
	uint64_t due = t_submit + latency_ns;
	uint64_t credit = em->debt_ns < latency_ns ? em->debt_ns : latency_ns;
	uint64_t until = due - credit, now = mono_ns();
	if (now < until) {
		struct timespec ts = {.tv_sec = (time_t)(until / 1000000000u),
				      .tv_nsec = (long)(until % 1000000000u)};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		now = mono_ns();
	} else if (now > due) {
		em->late++;
	}
	if (now >= due) {
		em->debt_ns += now - due;
		em->late_ns += now - due;
	} else {
		em->debt_ns -= due - now < em->debt_ns ? due - now : em->debt_ns;
	}
}
