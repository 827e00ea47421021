/* Latency injection: hold each TPM response until the latency a profile gives
 * for that command has elapsed since it was sent, so that a fast TPM (swtpm)
 * answers like the profiled one. Used by the recording proxy
 * (recorder_forward) and the replayer (tpmconn_xfer).
 *
 * A command is priced like predict prices it (model/predict.c): the profile
 * entry that profile_lookup finds for (command code, authorization kind,
 * variant), plus the profile's transport-ms; a command the profile lacks costs
 * its fallback. The authorization kind comes from the command's session area
 * (model/tpm/decode.h); the variant from its parameters (model/tpm/variant.h):
 * StartAuthSession `unsalted` / `salted-ecc` / `salted`, CreatePrimary and
 * Create by key type (`ecc-p256`, `rsa-2048`, ...), as predict does. The latency is drawn
 * from the entry's distribution, the one predict samples (model/profile_dist.h), so the
 * expected latency is always the mean predict uses. The generator is seeded
 * (xoshiro256**), so a run can be repeated exactly. */
#ifndef TPMTRACE_EMULATE_H
#define TPMTRACE_EMULATE_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "model/profile.h"
#include "model/profile_dist.h"

struct emulator {
	struct profile prof;
	struct prof_dist *dist; /* each entry's distribution (prof.e[i]), made once */
	const char *from;	/* "file", "database" or "shipped" */
	uint64_t seed;
	uint64_t s[4]; /* xoshiro256** state */
	double fallback_ms;
	uint64_t commands;	 /* latencies drawn */
	uint64_t approx;	 /* priced from another variant or authorization kind */
	uint64_t missing;	 /* priced at the fallback */
	uint64_t late;		 /* the target itself answered after the drawn latency */
	uint64_t late_ns;	 /* by how much responses came after their drawn latency */
	uint64_t debt_ns;	 /* lateness not yet made up by shorter holds */
	uint32_t missing_cc[16]; /* the first command codes priced at the fallback */
	unsigned n_missing_cc;
	/* Test-only fault (TPMTRACE_FAULT_EMULATE_EARLY set): every response is
	 * released halfway to its due time, as a broken emulation would; the
	 * emulation test must catch it (tests/integration/test_emulate.sh). */
	int fault_early;
};

/* Loads the profile named by arg (a file, a profile stored in db if db is not
 * NULL, or a shipped one: profile_resolve) and seeds the generator. Returns 0,
 * or -errno with err naming the file and line of a bad profile. */
int emulate_init(struct emulator *em, sqlite3 *db, const char *arg, uint64_t seed, char *err,
		 size_t errlen);
void emulate_release(struct emulator *em);

/* Draws the latency of one command (ns), transport included. */
uint64_t emulate_latency_ns(struct emulator *em, const uint8_t *cmd, size_t len);

/* Waits until CLOCK_MONOTONIC reaches t_submit + latency_ns, less what
 * earlier responses came late (lateness is carried over and made up by the
 * following holds, never by answering before the target did). Returns the
 * time of the release (db_mono_ns), the response's completion time: the stored
 * latency is then exactly what the lateness accounting saw. apart: a command
 * left out of the run's figures (a replay's own, flag 32): held to its own
 * latency, its lateness counted but neither owed nor made up, so that it
 * moves no other command's time. */
uint64_t emulate_hold(struct emulator *em, uint64_t t_submit, uint64_t latency_ns, int apart);

/* A seed from the kernel's random source (for runs without --emulate-seed). */
uint64_t emulate_random_seed(void);

#endif
