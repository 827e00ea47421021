/* The checks of `tpmtrace pcrs` over a replayed pcr_sim (replayer/pcr_check.h):
 * rp_pcr_banks_to_show picks the banks to print (those asked for, else those
 * extended or expected), rp_pcr_expect_compare compares the PCRs with expected
 * values bank by bank, and rp_pcr_boot_aggregate_check finds IMA's boot_aggregate
 * in the traces, replays a firmware trace (pcr_replay.h) and checks the
 * aggregate against PCRs 0-9 (Linux >= 5.8, non-SHA-1 banks) or 0-7. */
#include "replayer/pcr_check.h"

#include <errno.h>
#include <string.h>

unsigned rp_pcr_banks_to_show(const struct pcr_sim *s, const uint16_t *show, unsigned n_show,
			      const struct pcr_expect *ex, int *idx)
{
	unsigned ns = 0;
	for (unsigned i = 0; i < s->n_banks; i++) {
		int want = 0;
		if (n_show) {
			for (unsigned k = 0; k < n_show; k++)
				want |= show[k] == s->bank[i].a->alg;
		} else {
			for (unsigned p = 0; p < PCR_COUNT; p++)
				want |= s->bank[i].extends[p] != 0;
			if (ex)
				for (unsigned k = 0; k < ex->n_banks; k++)
					want |= ex->alg[k] == s->bank[i].a->alg;
		}
		if (want)
			idx[ns++] = (int)i;
	}
	return ns;
}

void rp_pcr_expect_compare(struct pcr_sim *s, const struct pcr_expect *ex, uint32_t mask,
			   struct pcr_expect_result *r)
{
	memset(r, 0, sizeof(*r));
	for (unsigned k = 0; k < ex->n_banks; k++) {
		int bi = pcr_sim_bank(s, ex->alg[k]);
		const struct pcr_sim_bank *b = &s->bank[bi];
		r->bank[k] = bi;
		for (unsigned p = 0; p < PCR_COUNT; p++) {
			if (!(ex->present[k] & mask & (1u << p)))
				continue;
			r->compared++;
			if (!memcmp(ex->v[k][p], b->pcr[p], b->a->size))
				r->ok[k] |= 1u << p;
			else
				r->bad[k] |= 1u << p;
		}
		if (r->bad[k])
			r->mismatch = 1;
	}
}

int rp_pcr_boot_aggregate_check(sqlite3 *db, const int64_t *ids, unsigned n, int64_t from,
				struct pcr_sim *fw, struct pcr_ba_result *r, char *err,
				size_t errlen)
{
	uint8_t got[PCR_MAX_DIGEST];
	struct pcr_replay_stats fst = {0};
	int found = -ENOENT;

	memset(r, 0, sizeof(*r));
	r->which = -1;
	for (unsigned i = 0; i < n && found == -ENOENT; i++)
		found = rp_pcr_boot_aggregate_find(db, ids[i], &r->alg, r->want, err, errlen);
	if (found)
		return found;
	int rc = rp_pcr_replay_trace(db, from, fw, &fst, err, errlen);
	if (rc)
		return rc < 0 ? rc : -EINVAL;
	const struct pcr_alg *a = pcr_alg_by_id(r->alg);
	/* Try the >= 5.8 rule (PCR 0-9, non-SHA-1 banks) first, then 0-7. */
	static const unsigned lasts[] = {9, 7};
	for (unsigned i = 0; i < 2 && r->which < 0; i++) {
		if (lasts[i] == 9 && r->alg == TPM_ALG_SHA1)
			continue;
		if (!rp_pcr_boot_aggregate_calc(fw, r->alg, lasts[i], got) &&
		    !memcmp(got, r->want, a->size))
			r->which = (int)lasts[i];
	}
	return 0;
}
