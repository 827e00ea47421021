/* Well-formed UTF-8 (RFC 3629, as PostgreSQL's text checks it): the JSON
 * writer's replacement of invalid bytes (db/json.h) and push's conversion of
 * text columns (docs/fleet.md) scan with these. Inline: both run per byte. */
#ifndef TPMTRACE_DB_UTF8_H
#define TPMTRACE_DB_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* s[0..n), n > 0, begins a well-formed UTF-8 sequence of this many bytes, or
 * 0 (a stray continuation byte, a truncated sequence, an overlong form, a
 * UTF-16 surrogate, a code point above U+10FFFF). */
static inline size_t db_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t need;
	unsigned char lo = 0x80, hi = 0xbf;
	if (c < 0x80)
		return 1;
	if (c < 0xc2)
		return 0;
	if (c < 0xe0)
		need = 2;
	else if (c < 0xf0) {
		need = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80; /* no overlong forms */
		hi = c == 0xed ? 0x9f : 0xbf; /* no UTF-16 surrogates */
	} else if (c < 0xf5) {
		need = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf; /* nothing above U+10FFFF */
	} else
		return 0;
	if (n < need || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < need; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return need;
}

/* 1 when s[0..n) is well-formed UTF-8 holding no NUL (what a PostgreSQL text
 * value may be), else 0. Eight ASCII bytes at a time: text is mostly ASCII. */
static inline int db_utf8_text_ok(const unsigned char *s, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	size_t i = 0;
	while (i < n) {
		if (n - i >= 8) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			/* No high bit set and no zero byte among the eight. */
			if (!(w & highs) && !((w - ones) & ~w & highs)) {
				i += 8;
				continue;
			}
		}
		if (!s[i])
			return 0;
		size_t k = db_utf8_seq(s + i, n - i);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

#endif
