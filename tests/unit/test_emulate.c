/* Latency emulation (model/emulate.h) draws each command's latency from the
 * distribution predict samples (model/profile_dist.h): on a TPMScan profile,
 * the joined quantiles scaled to the mean; the same seed gives the same
 * latencies. Checked on 20,000 draws of GetRandom on the SLB9670 profile
 * (fw 7.85.17.51968, 7,000 samples): the draws' quantiles are the entry's
 * (times the scale), their mean the entry's, within 2%; none outside min..max. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "model/emulate.h"
#include "model/profile_dist.h"
#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/wire.h"
#include "testlib.h"

#define N 20000

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(void)
{
	char err[512];
	struct emulator em, em2;
	const char *prof = "ifx-slb9670-fw7.85.17.51968";
	/* TPM2_GetRandom(32), no sessions */
	uint8_t cmd[12];
	wire_put_u16(cmd, 0x8001);
	wire_put_u32(cmd + 2, sizeof cmd);
	wire_put_u32(cmd + 6, TPM_CC_GetRandom);
	wire_put_u16(cmd + 10, 32);
	CHECK(emulate_init(&em, NULL, prof, 7, err, sizeof err) == 0, "%s", err);
	CHECK(emulate_init(&em2, NULL, prof, 7, err, sizeof err) == 0, "%s", err);
	enum prof_match how;
	const struct prof_entry *e =
	    profile_lookup(&em.prof, TPM_CC_GetRandom, TPM_AUTH_NONE, "32b", &how);
	CHECK(e && !isnan(e->p90_ms) && !isnan(e->p99_ms), "the entry has quantiles");
	if (!e) {
		emulate_release(&em);
		emulate_release(&em2);
		return tl_finish("test_emulate");
	}
	struct prof_dist d;
	profile_dist_of(e, 0, &d);
	CHECK(d.n >= 3, "joined quantiles (%u points)", d.n);
	double *v = malloc(N * sizeof *v), sum = 0;
	int same = 1;
	for (int i = 0; i < N; i++) {
		uint64_t ns = emulate_latency_ns(&em, cmd, sizeof cmd);
		same &= ns == emulate_latency_ns(&em2, cmd, sizeof cmd);
		v[i] = ns / 1e6 - em.prof.transport_ms;
		sum += v[i];
	}
	CHECK(same, "the same seed, the same latencies");
	qsort(v, N, sizeof *v, cmp);
	double mean = sum / N;
	CHECK(fabs(mean / e->mean_ms - 1) < 0.02, "mean %.4f ms, the entry's %.4f", mean,
	      e->mean_ms);
	const struct {
		double q, want;
	} qs[] = {{0.50, e->p50_ms}, {0.90, e->p90_ms}, {0.99, e->p99_ms}};
	for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
		double got = v[(size_t)ceil(N * qs[k].q) - 1], want = qs[k].want * d.scale;
		CHECK(fabs(got / want - 1) < 0.02, "p%.0f %.4f ms, the entry's %.4f x %.4f",
		      100 * qs[k].q, got, qs[k].want, d.scale);
	}
	CHECK(v[0] >= e->min_ms * d.scale - 1e-6 && v[N - 1] <= e->max_ms * d.scale + 1e-6,
	      "within min..max (%.4f..%.4f)", v[0], v[N - 1]);
	/* another seed: other latencies */
	struct emulator em3;
	CHECK(emulate_init(&em3, NULL, prof, 8, err, sizeof err) == 0, "%s", err);
	int differ = 0;
	for (int i = 0; i < 10; i++)
		differ |= emulate_latency_ns(&em3, cmd, sizeof cmd) !=
			  emulate_latency_ns(&em2, cmd, sizeof cmd);
	CHECK(differ, "another seed, other latencies");
	/* Lateness: a response already 30 ms late is owed and taken off the
	 * next hold; one held apart (a replay's own command) is counted late
	 * but moves no other hold. (Only a sleep overshooting by 30 ms could
	 * fail the last check.) */
	uint64_t t = db_mono_ns(), ms = 1000000;
	emulate_hold(&em3, t - 40 * ms, 10 * ms, 0);
	CHECK(em3.late == 1 && em3.debt_ns >= 30 * ms, "late by 30 ms: owed (%llu ns)",
	      (unsigned long long)em3.debt_ns);
	uint64_t debt = em3.debt_ns;
	emulate_hold(&em3, db_mono_ns() - 40 * ms, 10 * ms, 1);
	CHECK(em3.late == 2 && em3.debt_ns == debt && em3.late_ns >= 60 * ms,
	      "held apart: late, not owed (%llu ns owed, %llu late)",
	      (unsigned long long)em3.debt_ns, (unsigned long long)em3.late_ns);
	t = db_mono_ns();
	uint64_t done = emulate_hold(&em3, t, 10 * ms, 1);
	CHECK(done - t >= 10 * ms && em3.debt_ns == debt,
	      "held apart: its whole latency, no credit");
	t = db_mono_ns();
	done = emulate_hold(&em3, t, 100 * ms, 0);
	CHECK(done - t < 100 * ms && em3.debt_ns < debt,
	      "the next hold makes the debt up (%.3f ms held)", (double)(done - t) / 1e6);
	free(v);
	emulate_release(&em);
	emulate_release(&em2);
	emulate_release(&em3);
	return tl_finish("test_emulate");
}
