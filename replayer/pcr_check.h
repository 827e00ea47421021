/* What `tpmtrace pcrs` checks of the PCRs a replay leaves (pcr_replay.h):
 * which banks to show, a comparison with expected values (tpm2_pcrread and
 * friends), and the IMA boot_aggregate against a firmware trace. */
#ifndef TPMTRACE_PCR_CHECK_H
#define TPMTRACE_PCR_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "replayer/pcr_replay.h"

/* The banks of s to show, as indices into s->bank: those named in show[]
 * (n_show of them), else every bank extended or expected (ex, or NULL).
 * Returns how many went into idx (room for PCR_MAX_BANKS). */
unsigned rp_pcr_banks_to_show(const struct pcr_sim *s, const uint16_t *show, unsigned n_show,
			      const struct pcr_expect *ex, int *idx);

struct pcr_expect_result {
	unsigned compared;	     /* values compared */
	int bank[PCR_MAX_BANKS];     /* per expected bank: its index in the sim */
	uint32_t ok[PCR_MAX_BANKS];  /* per expected bank: PCRs that match */
	uint32_t bad[PCR_MAX_BANKS]; /* ... and those that differ */
	int mismatch;		     /* any differs */
};

/* Compares the PCRs in mask of every expected bank with s (a bank the trace
 * never extended is added, at its reset values). */
void rp_pcr_expect_compare(struct pcr_sim *s, const struct pcr_expect *ex, uint32_t mask,
			   struct pcr_expect_result *r);

struct pcr_ba_result {
	uint16_t alg;		      /* the bank of the boot_aggregate entry */
	uint8_t want[PCR_MAX_DIGEST]; /* its value */
	int which;		      /* 9: H(PCR 0-9) matches, 7: H(PCR 0-7), -1: neither */
};

/* Finds the IMA boot_aggregate in the first of the traces ids[] that has
 * one, replays the firmware trace from into fw, and tells which rule makes
 * it: PCR 0-9 (Linux >= 5.8, a non-SHA-1 bank) first, then PCR 0-7.
 * Returns 0, or -errno with err set. */
int rp_pcr_boot_aggregate_check(sqlite3 *db, const int64_t *ids, unsigned n, int64_t from,
				struct pcr_sim *fw, struct pcr_ba_result *r, char *err,
				size_t errlen);

#endif
