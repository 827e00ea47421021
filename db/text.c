/* Text made safe for a terminal (db/text.h). */
#include "text.h"

#include <stdarg.h>
#include <string.h>

#include "utf8.h"

/* Length of the well-formed UTF-8 sequence (db/utf8.h) at s, NUL-terminated,
 * that a terminal shows as text (not a C1 control), or 0. */
static size_t utf8_text(const unsigned char *s)
{
	size_t n = db_utf8_seq(s, strnlen((const char *)s, 4));
	if (n < 2 || (s[0] == 0xC2 && s[1] <= 0x9F))
		return 0;
	return n;
}

/* The text for the byte (or UTF-8 sequence) at p: written to tmp, its
 * length returned and the bytes it takes in *adv. A backslash is doubled
 * when backslash is set. */
static size_t escape_one(const unsigned char *p, char tmp[8], size_t *adv, int backslash)
{
	*adv = 1;
	if (*p == '\\' && backslash) {
		memcpy(tmp, "\\\\", 2);
		return 2;
	}
	if (*p >= 0x20 && *p < 0x7F) {
		tmp[0] = (char)*p;
		return 1;
	}
	if (*p >= 0x80 && (*adv = utf8_text(p)) != 0) {
		memcpy(tmp, p, *adv);
		return *adv;
	}
	*adv = 1;
	snprintf(tmp, 8, "\\x%02x", *p);
	return 4;
}

const char *db_text_safe(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	if (!len)
		return buf;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		char tmp[8];
		size_t adv, n = escape_one(p, tmp, &adv, 1);
		if (o + n + 4 > len) {
			snprintf(buf + o, len - o, "%s", len - o > 3 ? "..." : "");
			return buf;
		}
		memcpy(buf + o, tmp, n);
		o += n;
		p += adv;
	}
	buf[o] = 0;
	return buf;
}

void db_text_print_safe(FILE *f, const char *s)
{
	char buf[4096];
	fputs(db_text_safe(s, buf, sizeof buf), f);
}

void db_text_print_term(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		char tmp[8];
		size_t adv, n = escape_one(p, tmp, &adv, 0);
		fwrite(tmp, 1, n, f);
		p += adv;
	}
}

void db_text_wrap(FILE *f, const char *lead, int indent, const char *text, size_t len, int width)
{
	int col = fprintf(f, "%s", lead);
	size_t i = 0;
	int first = 1;
	while (i < len) {
		while (i < len && text[i] == ' ')
			i++;
		size_t w = i;
		while (w < len && text[w] != ' ')
			w++;
		if (w == i)
			break;
		int n = (int)(w - i);
		if (!first && col + 1 + n > width) {
			col = fprintf(f, "\n%*s", indent, "") - 1;
			first = 1;
		}
		col += fprintf(f, "%s%.*s", first ? "" : " ", n, text + i);
		first = 0;
		i = w;
	}
	fputc('\n', f);
}

int db_errf(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}
