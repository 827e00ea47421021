/* libFuzzer target: IMA measurement lists (binary and ascii) parsed from
 * memory with every kernel rule; nothing is stored. */
#include <stddef.h>
#include <stdint.h>

#include "recorder/import/ima_import.h"

static int on_entry(void *ctx, const struct ima_entry *e)
{
	/* Touch what a consumer reads so that bad pointers show up. */
	volatile uint8_t sink = 0;
	(void)ctx;
	for (uint32_t i = 0; i < e->tdata_len; i++)
		sink ^= e->tdata[i];
	for (unsigned i = 0; i < e->logged_len; i++)
		sink ^= e->logged[i];
	for (unsigned i = 0; e->line[i]; i++)
		sink ^= (uint8_t)e->line[i];
	(void)sink;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct ima_result res;
	struct ima_opts o = {.label = "fuzz"};
	if (size < 1)
		return 0;
	/* The first byte picks rule, format and list digest. */
	o.rule = (enum ima_rule)(data[0] % 3);
	o.format = (enum ima_format)((data[0] >> 2) % 3);
	o.list_alg = (data[0] & 0x20) ? TPM_ALG_SHA256 : 0;
	ima_parse_mem(data + 1, size - 1, &o, on_entry, NULL, NULL, &res, err, sizeof err);
	return 0;
}
