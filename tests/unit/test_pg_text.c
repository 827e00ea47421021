/* The text push sends (docs/fleet.md): db_utf8_text_ok, the fast scan that
 * lets a value go unconverted, agrees with glibc's iconv decoder (an oracle
 * that shares no code with it) and a NUL search on random bytes at every
 * alignment of its eight-byte steps; pg_text_convert writes the documented
 * spelling (bytes of no UTF-8 character and NUL as \xhh, '\' doubled) and
 * its output is always a value PostgreSQL takes. */
#include <stdlib.h>
#include <string.h>

#include "db/pg/pg_copy.h"
#include "db/utf8.h"
#include "testlib.h"

static int oracle_ok(const char *s, size_t n)
{
	int v = tl_iconv_utf8_valid(s, n);
	return v < 0 ? -1 : v && !memchr(s, 0, n);
}

static void test_scan_random(void)
{
	unsigned seed = 36, differ = 0, valid = 0, invalid = 0, oracle = 1;
	char buf[80];
	for (int round = 0; round < 20000; round++) {
		/* Mostly ASCII with a rare NUL or high byte, at a random offset: the
		 * scan's word steps meet them at every position. */
		size_t off = (size_t)(rand_r(&seed) % 8), n = (size_t)(rand_r(&seed) % 64);
		int mode = rand_r(&seed) % 4;
		for (size_t i = 0; i < n; i++) {
			int r = rand_r(&seed) % 100;
			buf[off + i] =
			    (char)(mode == 0 || r < 90 ? 0x20 + rand_r(&seed) % 95
				   : r < 93	       ? 0
				   : r < 96
				       ? "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"[rand_r(&seed) % 9]
				       : 0x80 + rand_r(&seed) % 128);
		}
		if (mode == 1 && n >= 3) /* a well-formed character, placed whole */
			memcpy(buf + off + (size_t)rand_r(&seed) % (n - 2), "\xe2\x82\xac", 3);
		int want = oracle_ok(buf + off, n);
		if (want < 0) {
			oracle = 0;
			break;
		}
		int got = db_utf8_text_ok((const unsigned char *)buf + off, n);
		differ += got != want;
		valid += want;
		invalid += !want;
	}
	CHECK(oracle, "iconv UTF-8 -> UTF-32LE is available");
	CHECK(differ == 0, "the scan and the oracle differ on %u of 20000 values", differ);
	CHECK(valid > 2000 && invalid > 2000, "both kinds met (%u valid, %u invalid)", valid,
	      invalid);
	/* The oracle itself tells these apart: the test can fail. */
	CHECK(oracle_ok("abcdefgh\xed\xa0\x80", 11) == 0 && oracle_ok("abcdefghi\0", 10) == 0 &&
		  oracle_ok("abcdefgh\xc3\xa9", 10) == 1,
	      "the oracle rejects a surrogate and a NUL past eight bytes, takes an e-acute");
}

static const char *conv(const char *s, size_t n)
{
	static char out[4 * 64 + 1];
	out[pg_text_convert((const unsigned char *)s, n, out)] = 0;
	return out;
}

static void test_convert(void)
{
	static const struct {
		const char *in;
		size_t n;
		const char *want;
	} v[] = {
#define V(in, want) {in, sizeof in - 1, want}
	    V("/usr/bin/\xff\xfe bad", "/usr/bin/\\xff\\xfe bad"),
	    V("a\\x41\xc3", "a\\\\x41\\xc3"),
	    V("n\0ul\0", "n\\x00ul\\x00"),
	    V("\xed\xa0\x80 \xc0\xaf \xf4\x90\x80\x80",
	      "\\xed\\xa0\\x80 \\xc0\\xaf \\xf4\\x90\\x80\\x80"),
	    V("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\x80",
	      "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\\x80"),
#undef V
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		const char *got = conv(v[i].in, v[i].n);
		CHECK(!strcmp(got, v[i].want), "value %zu: %s, want %s", i, got, v[i].want);
	}
	/* Whatever the bytes, the output is a value PostgreSQL takes. */
	unsigned seed = 10, bad = 0;
	char in[64];
	for (int round = 0; round < 5000; round++) {
		size_t n = (size_t)(rand_r(&seed) % 64);
		for (size_t i = 0; i < n; i++)
			in[i] = (char)(rand_r(&seed) % 256);
		const char *got = conv(in, n);
		bad += oracle_ok(got, strlen(got)) != 1;
	}
	CHECK(bad == 0, "%u of 5000 converted random values are not UTF-8 without NUL", bad);
}

int main(void)
{
	test_scan_random();
	test_convert();
	return tl_finish("test_pg_text");
}
