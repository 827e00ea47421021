/* Latency injection (see emulate.h). */
#include "model/emulate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "db/db.h"
#include "model/tpm/decode.h"
#include "model/policy.h"
#include "model/tpm/variant.h"

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
		s = db_mono_ns() ^ ((uint64_t)time(NULL) << 20);
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
	/* The distributions are the profile's, fixed: made here, not per command
	 * on the response path. */
	if (!(em->dist = calloc(em->prof.n ? em->prof.n : 1, sizeof *em->dist))) {
		profile_release(&em->prof);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < em->prof.n; i++)
		profile_dist_of(&em->prof.e[i], em->fallback_ms, &em->dist[i]);
	const char *fault = getenv("TPMTRACE_FAULT_EMULATE_EARLY");
	em->fault_early = fault && *fault && strcmp(fault, "0");
	em->seed = seed;
	uint64_t x = seed;
	for (int i = 0; i < 4; i++)
		em->s[i] = splitmix64(&x);
	return 0;
}

void emulate_release(struct emulator *em)
{
	free(em->dist);
	em->dist = NULL;
	profile_release(&em->prof);
}

uint64_t emulate_latency_ns(struct emulator *em, const uint8_t *cmd, size_t len)
{
	struct tpm_cmd c;
	enum prof_match how = PROF_MISSING;
	const struct prof_entry *e = NULL;
	double ms;

	tpm_cmd_decode(cmd, len, &c);
	if (c.cc)
		e = profile_lookup(&em->prof, c.cc, c.auth_kind,
				   tpm_variant_str(tpm_cmd_variant_of(&c, cmd, len)), &how);
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
		/* the distribution predict samples (model/profile_dist.h) */
		const struct prof_dist *d = &em->dist[e - em->prof.e];
		double u = next_unit(em);
		ms = profile_dist_draw(d, u, d->n == 0 ? next_normal(em) : 0);
		if (ms > PROFILE_MAX_MS)
			ms = PROFILE_MAX_MS;
	}
	ms += em->prof.transport_ms;
	return ms > 0 ? (uint64_t)(ms * 1e6 + 0.5) : 0;
}

uint64_t emulate_hold(struct emulator *em, uint64_t t_submit, uint64_t latency_ns, int apart)
{
	/* The profiled TPM would answer at t_submit + latency. When an earlier
	 * response came later than that (swtpm or this process was descheduled,
	 * the sleep woke up late: tens of microseconds each time, far more on a
	 * busy host), the delay is owed and taken off the following holds, so
	 * that the emulated TPM keeps the profile's pace over a run; a response
	 * is never released before the target has answered. */
	uint64_t due = t_submit + latency_ns;
	uint64_t credit = apart ? 0 : em->debt_ns < latency_ns ? em->debt_ns : latency_ns;
	uint64_t until = due - credit, now = db_mono_ns();
	if (em->fault_early && until > t_submit)
		until = t_submit + (until - t_submit) / 2;
	if (now < until) {
		struct timespec ts = {.tv_sec = (time_t)(until / 1000000000u),
				      .tv_nsec = (long)(until % 1000000000u)};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		now = db_mono_ns();
	} else if (now > due) {
		em->late++;
	}
	if (now >= due) {
		if (!apart)
			em->debt_ns += now - due;
		em->late_ns += now - due;
	} else if (!apart) {
		em->debt_ns -= due - now < em->debt_ns ? due - now : em->debt_ns;
	}
	return now;
}
