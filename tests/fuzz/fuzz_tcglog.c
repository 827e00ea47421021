/* libFuzzer target: TCG firmware event logs parsed from memory, and the
 * PCR values they lead to; nothing is stored. */
#include <stddef.h>
#include <stdint.h>

#include "model/tpm/pcr_bank.h"
#include "recorder/import/tcglog_import.h"

static int on_event(void *ctx, const struct tcg_event *e)
{
	struct pcr_sim *s = ctx;
	volatile uint8_t sink = 0;
	for (uint32_t i = 0; i < e->data_len; i++)
		sink ^= e->data[i];
	for (unsigned i = 0; e->desc[i]; i++)
		sink ^= (uint8_t)e->desc[i];
	(void)sink;
	if (e->startup_locality >= 0)
		pcr_sim_startup_clear(s, (uint8_t)e->startup_locality);
	if (!e->no_action)
		for (unsigned i = 0; i < e->digests.n; i++)
			pcr_sim_extend(s, e->pcr, e->digests.v[i].alg, e->digests.v[i].d,
				       e->digests.v[i].size);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pcr_sim sim;
	static int ready;
	char err[512];
	struct tcg_result res;
	if (!ready) {
		if (pcr_sim_init(&sim))
			return 0;
		ready = 1;
	}
	pcr_sim_startup_clear(&sim, 0);
	tcg_parse_mem(data, size, "fuzz", on_event, NULL, &sim, &res, err, sizeof err);
	return 0;
}
