/* libFuzzer target: db_text_safe (db/text.c), which every
 * human-readable output passes text from files and databases through (list,
 * show, stats, the report, importer warnings). Checked beyond memory safety:
 * the output is terminated and within the buffer, and holds no control
 * character, DEL or C1 control (raw 0x80-0x9F or UTF-8 C2 80-9F): nothing
 * that a terminal takes for an escape sequence. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db/text.h"

static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t cap = 1 + data[0] % 64; /* small buffers too: the cut must hold */
	char *in = malloc(size);
	memcpy(in, data + 1, size - 1);
	in[size - 1] = 0;
	char *out = malloc(cap + 1);
	out[cap] = 'X'; /* a guard byte past the buffer */
	const char *s = db_text_safe(in, out, cap);
	check(s == out && out[cap] == 'X');
	size_t n = strlen(out);
	check(n < cap);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)out[i];
		check(c >= 0x20 && c != 0x7F);
		/* U+0080-U+009F (C2 80-9F) never; a continuation byte only
		 * inside a multibyte sequence, never alone. */
		if (c == 0xC2 && i + 1 < n)
			check((unsigned char)out[i + 1] >= 0xA0);
		if (c >= 0x80 && c <= 0xBF)
			check(i > 0 && (unsigned char)out[i - 1] >= 0x80);
	}
	free(in);
	free(out);
	return 0;
}
