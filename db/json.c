/* The JSON writer (db/json.h): the bracket stack and the commas, string
 * escaping with invalid UTF-8 replaced by \ufffd, numbers without locale, and
 * misuse caught (an abort in a debug build, a flag with NDEBUG). */
#include "db/json.h"
#include "db/utf8.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void init(struct json_w *w, FILE *f, int style)
{
	memset(w, 0, sizeof *w);
	w->f = f;
	w->spaced = style == JSON_SPACED;
}

void json_init_file(struct json_w *w, FILE *f, int style)
{
	init(w, f, style);
}

void json_init_buf(struct json_w *w, int style)
{
	init(w, NULL, style);
}

void json_init_members(struct json_w *w, int style)
{
	init(w, NULL, style);
	w->base = w->depth = 1;
	w->open[1] = '{';
}

const char *json_buf(const struct json_w *w)
{
	return w->buf && !w->err ? w->buf : "";
}

void json_free(struct json_w *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

int json_error(const struct json_w *w)
{
	return w->err;
}

int json_done(const struct json_w *w)
{
	return !w->err && w->depth == w->base && !w->key_done ? 0 : -1;
}

/* A caller's bug: abort where assertions are on, else flag it and stop. */
static void misuse(struct json_w *w, const char *what)
{
#ifndef NDEBUG
	fprintf(stderr, "json writer misuse: %s\n", what);
	abort();
#else
	(void)what;
#endif
	w->err = 1;
}

static void put(struct json_w *w, const char *s, size_t n)
{
	if (w->err || !n)
		return;
	if (w->f) {
		fwrite(s, 1, n, w->f);
		return;
	}
	if (w->len + n + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		while (cap < w->len + n + 1)
			cap *= 2;
		char *b = realloc(w->buf, cap);
		if (!b) {
			w->err = 1;
			return;
		}
		w->buf = b;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = 0;
}

static void puts_(struct json_w *w, const char *s)
{
	put(w, s, strlen(s));
}

static void put_ws(struct json_w *w)
{
	if (w->ws)
		puts_(w, w->ws);
	w->ws = NULL;
}

/* Before a key (key 1) or a value (key 0): checks that it may come here and
 * writes the comma. Returns 0 when nothing may be written. */
static int before(struct json_w *w, int key)
{
	if (w->err)
		return 0;
	int d = w->depth;
	char o = w->open[d];
	if (o == '{' && !key && w->key_done) { /* the member's value */
		w->key_done = 0;
		put_ws(w);
		return !w->err;
	}
	if (o == '{' && !key) {
		misuse(w, "a value where a key is due");
		return 0;
	}
	if (o != '{' && key) {
		misuse(w, o == '[' ? "a key in an array" : "a key outside an object");
		return 0;
	}
	if (o == '{' && w->key_done) {
		misuse(w, "a key where its value is due");
		return 0;
	}
	if (!o && w->items[0]) {
		misuse(w, "a second value at the top");
		return 0;
	}
	if (w->items[d])
		put(w, w->ws ? "," : w->spaced ? ", " : ",", w->ws || !w->spaced ? 1 : 2);
	put_ws(w);
	w->items[d] = 1;
	return !w->err;
}

static void put_string(struct json_w *w, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t run = 0; /* bytes of s[i - run, i) that pass unchanged */
	put(w, "\"", 1);
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t k = c >= 0x20 && c != '"' && c != '\\' ? db_utf8_seq(s + i, n - i) : 0;
		if (k) {
			run += k;
			i += k;
			continue;
		}
		put(w, (const char *)s + i - run, run);
		run = 0;
		char esc[8];
		if (c == '"' || c == '\\')
			snprintf(esc, sizeof esc, "\\%c", c);
		else if (c < 0x20)
			snprintf(esc, sizeof esc, "\\u%04x", c);
		else
			snprintf(esc, sizeof esc, "\\ufffd");
		puts_(w, esc);
		i++;
	}
	put(w, (const char *)s + n - run, run);
	put(w, "\"", 1);
}

static void open_(struct json_w *w, char o)
{
	if (!w->err && w->depth >= JSON_MAX_DEPTH) {
		misuse(w, "brackets nested too deep");
		return;
	}
	if (!before(w, 0))
		return;
	put(w, o == '{' ? "{" : "[", 1);
	w->depth++;
	w->open[w->depth] = o;
	w->items[w->depth] = 0;
}

static void close_(struct json_w *w, char o)
{
	if (w->err)
		return;
	if (w->depth == w->base || w->open[w->depth] != o) {
		misuse(w, "a closing bracket that does not match the open one");
		return;
	}
	if (w->key_done) {
		misuse(w, "an object closed after a key without its value");
		return;
	}
	put_ws(w);
	put(w, o == '{' ? "}" : "]", 1);
	w->depth--;
}

void json_begin_object(struct json_w *w)
{
	open_(w, '{');
}

void json_end_object(struct json_w *w)
{
	close_(w, '{');
}

void json_begin_array(struct json_w *w)
{
	open_(w, '[');
}

void json_end_array(struct json_w *w)
{
	close_(w, '[');
}

void json_key(struct json_w *w, const char *k)
{
	if (!k) {
		if (!w->err)
			misuse(w, "a NULL key");
		return;
	}
	if (!before(w, 1))
		return;
	put_string(w, k, strlen(k));
	put(w, w->spaced ? ": " : ":", w->spaced ? 2 : 1);
	w->key_done = 1;
}

void json_str(struct json_w *w, const char *s)
{
	if (!s)
		json_null(w);
	else if (before(w, 0))
		put_string(w, s, strlen(s));
}

void json_strn(struct json_w *w, const char *s, size_t n)
{
	if (before(w, 0))
		put_string(w, s, n);
}

void json_strf(struct json_w *w, const char *fmt, ...)
{
	char small[256], *s = small;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		w->err = 1;
		return;
	}
	if ((size_t)n >= sizeof small) {
		s = malloc((size_t)n + 1);
		if (!s) {
			w->err = 1;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(s, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	json_strn(w, s, (size_t)n);
	if (s != small)
		free(s);
}

void json_hex(struct json_w *w, const void *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = p;
	if (!before(w, 0))
		return;
	put(w, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		char two[2] = {digits[b[i] >> 4], digits[b[i] & 15]};
		put(w, two, 2);
	}
	put(w, "\"", 1);
}

static void put_number(struct json_w *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put_number(struct json_w *w, const char *fmt, ...)
{
	char b[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof b) {
		w->err = 1;
		return;
	}
	for (char *c = b; *c; c++)
		if (*c == ',') /* a locale's decimal comma */
			*c = '.';
	if (before(w, 0))
		put(w, b, (size_t)n);
}

void json_int(struct json_w *w, int64_t v)
{
	put_number(w, "%lld", (long long)v);
}

void json_uint(struct json_w *w, uint64_t v)
{
	put_number(w, "%llu", (unsigned long long)v);
}

void json_double(struct json_w *w, double x, int decimals)
{
	if (!isfinite(x)) {
		json_null(w);
		return;
	}
	if (decimals < 0)
		decimals = 0;
	if (decimals > 17)
		decimals = 17;
	put_number(w, "%.*f", decimals, x);
}

void json_real(struct json_w *w, double x)
{
	if (!isfinite(x))
		json_null(w);
	else
		put_number(w, "%.17g", x);
}

void json_bool(struct json_w *w, int b)
{
	if (before(w, 0))
		puts_(w, b ? "true" : "false");
}

void json_null(struct json_w *w)
{
	if (before(w, 0))
		puts_(w, "null");
}

void json_kstr(struct json_w *w, const char *k, const char *s)
{
	json_key(w, k);
	json_str(w, s);
}

void json_kint(struct json_w *w, const char *k, int64_t v)
{
	json_key(w, k);
	json_int(w, v);
}

void json_kuint(struct json_w *w, const char *k, uint64_t v)
{
	json_key(w, k);
	json_uint(w, v);
}

void json_kdouble(struct json_w *w, const char *k, double x, int decimals)
{
	json_key(w, k);
	json_double(w, x, decimals);
}

void json_kbool(struct json_w *w, const char *k, int b)
{
	json_key(w, k);
	json_bool(w, b);
}

void json_knull(struct json_w *w, const char *k)
{
	json_key(w, k);
	json_null(w);
}

void json_members(struct json_w *w, const struct json_w *m)
{
	if (w->err)
		return;
	if (m->err || m->depth != m->base || m->key_done) {
		w->err = 1;
		return;
	}
	if (!m->len)
		return;
	if (w->open[w->depth] != '{' || w->key_done) {
		misuse(w, "members spliced where no member may come");
		return;
	}
	if (w->items[w->depth])
		put(w, w->spaced ? ", " : ",", w->spaced ? 2 : 1);
	put(w, m->buf, m->len);
	w->items[w->depth] = 1;
}

void json_ws(struct json_w *w, const char *ws)
{
	if (ws[strspn(ws, " \n\t")]) {
		misuse(w, "json_ws given more than whitespace");
		return;
	}
	w->ws = ws;
}

void json_newline(struct json_w *w)
{
	if (w->err)
		return;
	if (w->depth || w->base || !w->items[0]) {
		misuse(w, "a newline inside a value or before one");
		return;
	}
	put(w, "\n", 1);
	w->items[0] = 0;
}

void db_row_json(struct json_w *w, sqlite3_stmt *st, int cols)
{
	json_begin_object(w);
	for (int i = 0; i < cols; i++) {
		json_key(w, sqlite3_column_name(st, i));
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_NULL:
			json_null(w);
			break;
		case SQLITE_INTEGER:
			json_int(w, sqlite3_column_int64(st, i));
			break;
		case SQLITE_FLOAT:
			json_real(w, sqlite3_column_double(st, i));
			break;
		case SQLITE_BLOB: {
			const void *b = sqlite3_column_blob(st, i);
			json_hex(w, b, (size_t)sqlite3_column_bytes(st, i));
			break;
		}
		default: {
			const char *t = (const char *)sqlite3_column_text(st, i);
			json_strn(w, t, (size_t)sqlite3_column_bytes(st, i));
		}
		}
	}
	json_end_object(w);
}
