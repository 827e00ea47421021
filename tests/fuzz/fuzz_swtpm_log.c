/* libFuzzer target: swtpm --log level=20 text parsed from memory; every
 * message handed out is read in full so that bad pointers show up. */
#include <stddef.h>
#include <stdint.h>

#include "recorder/import/swtpm_log.h"

static int on_command(void *ctx, const struct swlog_cmd *c)
{
	volatile uint8_t sink = 0;
	(void)ctx;
	for (size_t i = 0; i < c->cmd_len; i++)
		sink ^= c->cmd[i];
	for (size_t i = 0; c->rsp && i < c->rsp_len; i++)
		sink ^= c->rsp[i];
	(void)sink;
	return 0;
}

static int on_event(void *ctx, const struct swlog_event *e)
{
	volatile char sink = 0;
	(void)ctx;
	for (const char *s = e->kind; *s; s++)
		sink ^= *s;
	for (const char *s = e->detail; s && *s; s++)
		sink ^= *s;
	(void)sink;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct swlog_ops ops = {on_command, on_event};
	struct swlog_stats st;
	char err[256];
	import_swlog_parse_mem((const char *)data, size, "fuzz", &ops, NULL, &st, err, sizeof err);
	return 0;
}
