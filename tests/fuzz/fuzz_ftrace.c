/* libFuzzer target: ftrace function_graph text parsed from memory (the parser
 * behind `import ftrace` and `profile import ftrace`). */
#include <stddef.h>
#include <stdint.h>

#include "recorder/import/ftrace.h"

static int on_op(void *ctx, const struct ftrace_op *o)
{
	volatile char sink = 0;
	(void)ctx;
	for (const char *s = o->fn; s && *s; s++)
		sink ^= *s;
	for (const char *s = o->variant; s && *s; s++)
		sink ^= *s;
	(void)sink;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ftrace_stats st;
	char err[256];
	ftrace_parse_mem((const char *)data, size, "fuzz", on_op, NULL, &st, err, sizeof err);
	return 0;
}
