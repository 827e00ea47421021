/* The one JSON writer: every --json output, `export --jsonl` and the report's
 * JSON data are written through it (docs/architecture.md, "JSON").
 *
 * A writer keeps a stack of the open brackets (objects and arrays, up to
 * JSON_MAX_DEPTH deep) and writes the commas itself: the caller says what
 * comes next (a key, a value, a bracket) and never writes punctuation.
 *
 * Strings (keys and values) are written quoted with '"' and '\' escaped as
 * \" and \\, and every control byte (0x00-0x1f) as \u00xx (lower-case hex).
 * Valid UTF-8 passes through unchanged. Invalid UTF-8 is REPLACED: each byte
 * that does not begin a well-formed UTF-8 sequence (a stray continuation byte,
 * a truncated sequence, an overlong form, a UTF-16 surrogate, a code point
 * above U+10FFFF, the bytes 0xc0, 0xc1, 0xf5-0xff) is written as the escape
 * \ufffd (U+FFFD REPLACEMENT CHARACTER) and the scan goes on at the next byte.
 * The output is therefore always valid UTF-8 and valid JSON, whatever bytes a
 * file name or a log held; the replaced bytes are not recoverable from it.
 *
 * Numbers: integers in full; doubles with a fixed number of decimals ("%.*f")
 * or with 17 significant digits ("%.17g"), always with a '.' whatever the
 * locale; NaN and the infinities as null.
 *
 * Misuse is a bug in the caller: a value where a key is due, a key in an
 * array, a closing bracket that does not match the open one, a second key, a
 * bracket deeper than JSON_MAX_DEPTH, more than one value at the top (except
 * separated by json_newline). It fails an assert() in a debug build; with
 * NDEBUG the writer flags it (json_error()), writes nothing more, and
 * json_done() returns -1.
 *
 * Outputs: a FILE* (write errors stay with the FILE: ferror, cli_out_close),
 * or a growable buffer (json_init_buf) for a fragment built before it is
 * written; json_init_members starts a buffer inside an object, for members
 * that json_members() splices into another writer's open object. */
#ifndef TPMTRACE_DB_JSON_H
#define TPMTRACE_DB_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#define JSON_MAX_DEPTH 32

/* Separators: JSON_COMPACT writes "," and ":"; JSON_SPACED ", " and ": ". */
enum json_style { JSON_COMPACT = 0, JSON_SPACED = 1 };

struct json_w {
	FILE *f;   /* the output, or NULL: buf */
	char *buf; /* the buffer (NUL-terminated), or NULL */
	size_t len, cap;
	int spaced;			/* enum json_style */
	int depth;			/* open brackets */
	int base;			/* 1 for a members buffer: the object it is inside */
	char open[JSON_MAX_DEPTH + 1];	/* '{' or '[' per level; [0] the top */
	char items[JSON_MAX_DEPTH + 1]; /* the level has an item: a comma is due */
	int key_done;			/* a key was written: its value is due */
	int err;			/* misuse or out of memory */
	const char *ws;			/* whitespace before the next token (json_ws) */
};

/* A writer on f; style: enum json_style. */
void json_init_file(struct json_w *w, FILE *f, int style);
/* A writer into a growable buffer (json_buf). */
void json_init_buf(struct json_w *w, int style);
/* A buffer writer that starts inside an object: keys and values, no braces,
 * for json_members(). */
void json_init_members(struct json_w *w, int style);
/* The buffer's text ("" if empty or on error); valid until json_free(). */
const char *json_buf(const struct json_w *w);
void json_free(struct json_w *w);
/* Nonzero after misuse or a failed allocation. */
int json_error(const struct json_w *w);
/* 0 when every bracket was closed, one top value written (or a members
 * buffer is complete) and nothing went wrong; -1 otherwise. */
int json_done(const struct json_w *w);

void json_begin_object(struct json_w *w);
void json_end_object(struct json_w *w);
void json_begin_array(struct json_w *w);
void json_end_array(struct json_w *w);
/* The key of the next member (escaped like a string). */
void json_key(struct json_w *w, const char *k);

/* Values. json_str: s NULL gives null. json_strn: n bytes of s (NULs
 * included, as \u0000). json_strf: a printf-formatted string value. */
void json_str(struct json_w *w, const char *s);
void json_strn(struct json_w *w, const char *s, size_t n);
void json_strf(struct json_w *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* n bytes as a string of lower-case hex digits. */
void json_hex(struct json_w *w, const void *p, size_t n);
void json_int(struct json_w *w, int64_t v);
void json_uint(struct json_w *w, uint64_t v);
/* x with decimals digits after the '.'; NaN or infinite: null. */
void json_double(struct json_w *w, double x, int decimals);
/* x as "%.17g" (every double read back exactly); NaN or infinite: null. */
void json_real(struct json_w *w, double x);
void json_bool(struct json_w *w, int b);
void json_null(struct json_w *w);

/* A key and its value in one call. */
void json_kstr(struct json_w *w, const char *k, const char *s);
void json_kint(struct json_w *w, const char *k, int64_t v);
void json_kuint(struct json_w *w, const char *k, uint64_t v);
void json_kdouble(struct json_w *w, const char *k, double x, int decimals);
void json_kbool(struct json_w *w, const char *k, int b);
void json_knull(struct json_w *w, const char *k);

/* Splices the members written into m (json_init_members) into w's open
 * object, with the comma before them if one is due. An error in m is one in
 * w. */
void json_members(struct json_w *w, const struct json_w *m);
/* Whitespace (only ' ', '\n', '\t') written before the next token, after the
 * comma that precedes it (and instead of JSON_SPACED's space): for outputs
 * laid out over lines. ws is kept until then (a string literal). */
void json_ws(struct json_w *w, const char *ws);
/* A newline between top-level values (JSON lines): allowed only at the top,
 * after a value. */
void json_newline(struct json_w *w);

/* The current row of st (its first cols columns) as one object, each column
 * by its name: NULL as null, integers and reals as numbers, a BLOB as hex,
 * text as a string (sql --json's "rows"). */
void db_row_json(struct json_w *w, sqlite3_stmt *st, int cols);

#endif
