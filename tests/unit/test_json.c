/* The JSON writer (db/json.h): commas and nesting written by the writer,
 * keys and strings escaped (control bytes as \u00xx), invalid UTF-8 replaced
 * by \ufffd byte by byte (checked against glibc's iconv as an independent
 * UTF-8 decoder: every output of random bytes is valid UTF-8), numbers
 * (NaN and infinities as null, no decimal comma under de_DE, built with
 * localedef into a directory of the test's own when none is installed), the buffer and
 * members fragments, and misuse caught: an abort where assertions are on,
 * the error flag with NDEBUG (each misuse runs in a child process). */
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/json.h"
#include "testlib.h"

/* The text a buffer writer holds after fn wrote into it (static storage). */
static const char *out_of(void (*fn)(struct json_w *), int style)
{
	static char text[4096];
	struct json_w w;
	json_init_buf(&w, style);
	fn(&w);
	snprintf(text, sizeof text, "%s%s", json_buf(&w), json_done(&w) ? " (not done)" : "");
	json_free(&w);
	return text;
}

static void nested(struct json_w *w)
{
	json_begin_object(w);
	json_kint(w, "version", 1);
	json_key(w, "a");
	json_begin_array(w);
	json_int(w, -3);
	json_begin_object(w);
	json_end_object(w);
	json_begin_array(w);
	json_end_array(w);
	json_str(w, "x");
	json_null(w);
	json_bool(w, 1);
	json_end_array(w);
	json_kuint(w, "u", UINT64_MAX);
	json_kint(w, "i", INT64_MIN);
	json_key(w, "o");
	json_begin_object(w);
	json_kbool(w, "f", 0);
	json_end_object(w);
	json_end_object(w);
}

static void test_commas_nesting(void)
{
	const char *c = out_of(nested, JSON_COMPACT);
	CHECK(!strcmp(c, "{\"version\":1,\"a\":[-3,{},[],\"x\",null,true],"
			 "\"u\":18446744073709551615,\"i\":-9223372036854775808,"
			 "\"o\":{\"f\":false}}"),
	      "compact: %s", c);
	c = out_of(nested, JSON_SPACED);
	CHECK(!strcmp(c, "{\"version\": 1, \"a\": [-3, {}, [], \"x\", null, true], "
			 "\"u\": 18446744073709551615, \"i\": -9223372036854775808, "
			 "\"o\": {\"f\": false}}"),
	      "spaced: %s", c);
}

/* s[0..n) written as a string value. */
static const char *str_of(const char *s, size_t n)
{
	static char text[4096];
	struct json_w w;
	json_init_buf(&w, JSON_COMPACT);
	json_strn(&w, s, n);
	snprintf(text, sizeof text, "%s", json_buf(&w));
	json_free(&w);
	return text;
}

static void test_escaping(void)
{
	static const struct {
		const char *in;
		size_t n;
		const char *want;
	} t[] = {
	    {"plain", 5, "\"plain\""},
	    {"a\"b\\c", 5, "\"a\\\"b\\\\c\""},
	    {"\x1b[2J\a\n\t\x1f", 8, "\"\\u001b[2J\\u0007\\u000a\\u0009\\u001f\""},
	    {"nul\0x", 5, "\"nul\\u0000x\""},
	    {"\x7f/", 2, "\"\x7f/\""}, /* DEL and '/' are valid JSON as they are */
	    /* valid UTF-8 passes unchanged: 2, 3 and 4 bytes */
	    {"\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\x91", 9, "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x94\x91\""},
	    /* invalid: each byte that begins no well-formed sequence -> \ufffd */
	    {"\xff", 1, "\"\\ufffd\""},
	    {"a\x80z", 3, "\"a\\ufffdz\""},				 /* stray continuation */
	    {"\xc3", 1, "\"\\ufffd\""},					 /* truncated at the end */
	    {"\xc3z", 2, "\"\\ufffdz\""},				 /* truncated */
	    {"\xe2\x82z", 3, "\"\\ufffd\\ufffdz\""},			 /* truncated 3-byte */
	    {"\xc0\xaf", 2, "\"\\ufffd\\ufffd\""},			 /* overlong '/' */
	    {"\xe0\x80\xaf", 3, "\"\\ufffd\\ufffd\\ufffd\""},		 /* overlong */
	    {"\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\""},		 /* surrogate D800 */
	    {"\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* > U+10FFFF */
	    {"\xf5\x80", 2, "\"\\ufffd\\ufffd\""},
	    {"\xef\xbf\xbd", 3, "\"\xef\xbf\xbd\""},   /* U+FFFD itself is valid */
	    {"x\xe9y\x1b", 4, "\"x\\ufffdy\\u001b\""}, /* Latin-1 name, ESC */
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		const char *got = str_of(t[i].in, t[i].n);
		CHECK(!strcmp(got, t[i].want), "case %zu: got %s, want %s", i, got, t[i].want);
	}
	/* Keys are escaped the same way. */
	struct json_w w;
	json_init_buf(&w, JSON_COMPACT);
	json_begin_object(&w);
	json_kstr(&w, "k\"\x01\xff", NULL);
	json_end_object(&w);
	CHECK(!strcmp(json_buf(&w), "{\"k\\\"\\u0001\\ufffd\":null}"), "key: %s", json_buf(&w));
	json_free(&w);
	/* json_str stops at the NUL; NULL is null. */
	json_init_buf(&w, JSON_COMPACT);
	json_begin_array(&w);
	json_str(&w, "a\0b");
	json_str(&w, NULL);
	json_strf(&w, "0x%08X", 0x1a2bu);
	json_hex(&w, "\x00\xab\xff", 3);
	json_end_array(&w);
	CHECK(!strcmp(json_buf(&w), "[\"a\",null,\"0x00001A2B\",\"00abff\"]"), "%s", json_buf(&w));
	json_free(&w);
}

static void test_random_bytes_valid_utf8(void)
{
	unsigned seed = 23, bad = 0, replaced = 0, oracle = 1;
	for (int round = 0; round < 3000; round++) {
		char in[64];
		size_t n = (size_t)(rand_r(&seed) % 64);
		for (size_t i = 0; i < n; i++) /* mostly high bytes: invalid sequences */
			in[i] = (char)(rand_r(&seed) % 3 ? 0x80 + rand_r(&seed) % 128
							 : rand_r(&seed) % 256);
		const char *got = str_of(in, n);
		int v = tl_iconv_utf8_valid(got, strlen(got));
		if (v < 0) {
			oracle = 0;
			break;
		}
		bad += !v;
		replaced += strstr(got, "\\ufffd") != NULL;
		for (const char *p = got; *p; p++)
			bad += (unsigned char)*p < 0x20; /* a raw control byte */
	}
	CHECK(oracle, "iconv UTF-8 -> UTF-32LE is available");
	CHECK(bad == 0, "%u of 3000 outputs of random bytes are not valid UTF-8 JSON", bad);
	CHECK(replaced > 1000, "random high bytes were replaced (%u outputs with \\ufffd)",
	      replaced);
	/* The oracle itself tells the raw input is invalid: the test can fail. */
	CHECK(tl_iconv_utf8_valid("\xed\xa0\x80", 3) == 0 && tl_iconv_utf8_valid("a\xff", 2) == 0,
	      "iconv rejects a surrogate and 0xff");
}

static void numbers(struct json_w *w)
{
	json_begin_array(w);
	json_double(w, 1.5, 6);
	json_double(w, -0.125, 2);
	json_double(w, 2.5e6, 0);
	json_double(w, NAN, 6);
	json_double(w, INFINITY, 3);
	json_double(w, -INFINITY, 0);
	json_real(w, 0.1);
	json_real(w, 1e300);
	json_real(w, NAN);
	json_end_array(w);
}

static void test_numbers(void)
{
	const char *want =
	    "[1.500000,-0.12,2500000,null,null,null,0.10000000000000001,1.0000000000000001e+300,"
	    "null]";
	const char *c = out_of(numbers, JSON_COMPACT);
	CHECK(!strcmp(c, want), "numbers: %s", c);
	/* A locale with a decimal comma must not reach the output. */
	static const char *const commas[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
					     "nl_NL.UTF-8", NULL};
	const char *loc = NULL;
	for (int i = 0; commas[i] && !loc; i++)
		loc = setlocale(LC_NUMERIC, commas[i]) ? commas[i] : NULL;
	char dir[600], cmd[1400];
	snprintf(dir, sizeof dir, "%s/locale", tl_tmpdir());
	if (!loc && !access("/usr/bin/localedef", X_OK)) {
		/* None installed: glibc's localedef builds de_DE into a
		 * directory of our own, read through LOCPATH. */
		snprintf(cmd, sizeof cmd,
			 "mkdir -p '%s' && localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' "
			 ">/dev/null 2>&1",
			 dir, dir);
		if (system(cmd) == 0 && !setenv("LOCPATH", dir, 1))
			loc = setlocale(LC_NUMERIC, "de_DE.UTF-8") ? "de_DE.UTF-8 (built)" : NULL;
	}
	if (loc) {
		char b[32];
		snprintf(b, sizeof b, "%.1f", 1.5);
		CHECK(!strcmp(b, "1,5"), "%s writes 1.5 as %s with printf: the check can fail", loc,
		      b);
		c = out_of(numbers, JSON_COMPACT);
		CHECK(!strcmp(c, want), "numbers in %s: %s", loc, c);
		setlocale(LC_NUMERIC, "C");
	} else {
		printf("no locale with a decimal comma installed: that check not run\n");
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tl_tmpdir());
	if (system(cmd))
		printf("could not remove %s\n", tl_tmpdir());
}

static void test_buffer_members_ws(void)
{
	/* A buffer grows past its first allocation. */
	struct json_w w;
	json_init_buf(&w, JSON_COMPACT);
	json_begin_array(&w);
	for (int i = 0; i < 2000; i++)
		json_str(&w, "0123456789");
	json_end_array(&w);
	CHECK(!json_done(&w) && strlen(json_buf(&w)) == 2 + 2000 * 12 + 1999,
	      "2000 strings in the buffer: %zu bytes", strlen(json_buf(&w)));
	json_free(&w);
	/* Members built beforehand and spliced into an open object. */
	struct json_w m, e;
	json_init_members(&m, JSON_SPACED);
	json_kint(&m, "entries", 3);
	json_kstr(&m, "format", "a\x01");
	json_init_members(&e, JSON_SPACED);
	CHECK(!json_done(&m) && !json_done(&e), "members buffers are complete");
	json_init_buf(&w, JSON_SPACED);
	json_begin_object(&w);
	json_kstr(&w, "file", "f");
	json_members(&w, &m);
	json_members(&w, &e); /* empty: no comma */
	json_kbool(&w, "last", 1);
	json_end_object(&w);
	CHECK(
	    !strcmp(json_buf(&w),
		    "{\"file\": \"f\", \"entries\": 3, \"format\": \"a\\u0001\", \"last\": true}"),
	    "spliced: %s", json_buf(&w));
	json_free(&w);
	json_free(&m);
	/* Whitespace laid out between items, after the comma. */
	json_init_buf(&w, JSON_SPACED);
	json_begin_object(&w);
	json_key(&w, "imports");
	json_begin_array(&w);
	for (int i = 0; i < 2; i++) {
		json_ws(&w, "\n    ");
		json_begin_object(&w);
		json_end_object(&w);
	}
	json_ws(&w, "\n  ");
	json_end_array(&w);
	json_kint(&w, "files", 2);
	json_end_object(&w);
	json_newline(&w);
	json_begin_array(&w); /* JSON lines: a second top value after the newline */
	json_end_array(&w);
	CHECK(!strcmp(json_buf(&w), "{\"imports\": [\n    {},\n    {}\n  ], \"files\": 2}\n[]"),
	      "laid out: %s", json_buf(&w));
	CHECK(!json_done(&w), "done");
	json_free(&w);
	/* A file writer writes through. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	json_init_file(&w, f, JSON_COMPACT);
	json_begin_object(&w);
	json_kstr(&w, "n", "\xfe");
	json_end_object(&w);
	json_newline(&w);
	fclose(f);
	CHECK(!json_done(&w) && !strcmp(text, "{\"n\":\"\\ufffd\"}\n"), "file: %s", text);
	free(text);
}

/* Misuses, each run in a child: where assertions are on it must abort,
 * with NDEBUG flag the error and write nothing more. */
static void misuse_value_for_key(struct json_w *w)
{
	json_begin_object(w);
	json_int(w, 1);
}
static void misuse_key_in_array(struct json_w *w)
{
	json_begin_array(w);
	json_key(w, "k");
}
static void misuse_wrong_close(struct json_w *w)
{
	json_begin_object(w);
	json_end_array(w);
}
static void misuse_close_nothing(struct json_w *w)
{
	json_end_object(w);
}
static void misuse_two_keys(struct json_w *w)
{
	json_begin_object(w);
	json_key(w, "a");
	json_key(w, "b");
}
static void misuse_close_after_key(struct json_w *w)
{
	json_begin_object(w);
	json_key(w, "a");
	json_end_object(w);
}
static void misuse_two_tops(struct json_w *w)
{
	json_int(w, 1);
	json_int(w, 2);
}
static void misuse_too_deep(struct json_w *w)
{
	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		json_begin_array(w);
}
static void misuse_newline_inside(struct json_w *w)
{
	json_begin_array(w);
	json_newline(w);
}
static void misuse_ws(struct json_w *w)
{
	json_begin_array(w);
	json_ws(w, ",");
}

static void test_misuse(void)
{
	static const struct {
		const char *what;
		void (*fn)(struct json_w *);
	} t[] = {
	    {"a value where a key is due", misuse_value_for_key},
	    {"a key in an array", misuse_key_in_array},
	    {"closing the wrong bracket", misuse_wrong_close},
	    {"closing with nothing open", misuse_close_nothing},
	    {"a key after a key", misuse_two_keys},
	    {"closing after a key", misuse_close_after_key},
	    {"two values at the top", misuse_two_tops},
	    {"nesting deeper than JSON_MAX_DEPTH", misuse_too_deep},
	    {"a newline inside an array", misuse_newline_inside},
	    {"json_ws given a comma", misuse_ws},
	};
#ifdef NDEBUG
	const int debug = 0;
#else
	const int debug = 1;
#endif
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0) {
			struct json_w w;
			json_init_buf(&w, JSON_COMPACT);
			t[i].fn(&w);
			size_t len = w.len;
			json_int(&w, 7); /* nothing more is written after the error */
			json_end_array(&w);
			_exit(json_error(&w) && json_done(&w) && w.len == len && !*json_buf(&w)
				  ? 3
				  : 4);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		if (debug)
			CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "%s: aborts (status %d)",
			      t[i].what, st);
		else
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3, "%s: flagged (status %d)",
			      t[i].what, st);
	}
	/* And correct use is not flagged: the check above can tell. */
	struct json_w w;
	json_init_buf(&w, JSON_COMPACT);
	json_begin_object(&w);
	json_end_object(&w);
	CHECK(!json_error(&w) && !json_done(&w), "correct use: no error");
	json_free(&w);
	json_init_buf(&w, JSON_COMPACT);
	json_begin_object(&w);
	CHECK(json_done(&w) == -1 && !json_error(&w), "an object left open is not done");
	json_free(&w);
}

int main(void)
{
	test_commas_nesting();
	test_escaping();
	test_random_bytes_valid_utf8();
	test_numbers();
	test_buffer_members_ws();
	test_misuse();
	return tl_finish("test_json");
}
