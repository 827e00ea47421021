/* libFuzzer target: the JSON writer (db/json.h) driven by the input, one
 * operation per byte (begin/end an object or array, a key or a string of the
 * next bytes, numbers from the next 8 bytes as a double, true, null, a newline
 * at the top, members spliced from a fragment). A model of the bracket stack
 * says which operations are misuse: with NDEBUG the writer must flag exactly
 * those (json_error) and write nothing after; with assertions on they are not
 * made (they abort by design). Checked beyond memory safety: the output is
 * valid UTF-8 (decoded here: no overlong form, no surrogate, nothing above
 * U+10FFFF), holds no control byte but the newlines of json_newline, its
 * brackets outside strings balance, and a writer left with every bracket
 * closed is done. */
#include <stdlib.h>
#include <string.h>

#include "db/json.h"

static void check(int ok)
{
	if (!ok)
		abort();
}

/* The output's properties (see above); depth_zero: all brackets closed. */
static void check_text(const char *t, size_t n, int depth_zero)
{
	int depth = 0, in_str = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)t[i];
		size_t k = c < 0x80		   ? 1
			   : c >= 0xc2 && c < 0xe0 ? 2
			   : c >= 0xe0 && c < 0xf0 ? 3
			   : c >= 0xf0 && c < 0xf5 ? 4
						   : 0;
		check(k && i + k <= n);
		uint32_t cp = k == 1 ? c : c & (0x7f >> k);
		for (size_t j = 1; j < k; j++) {
			check(((unsigned char)t[i + j] & 0xc0) == 0x80);
			cp = cp << 6 | ((unsigned char)t[i + j] & 0x3f);
		}
		check(k != 3 || (cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff)));
		check(k != 4 || (cp >= 0x10000 && cp <= 0x10ffff));
		check(c >= 0x20 || (c == '\n' && !in_str));
		if (in_str && c == '\\')
			i++; /* the escaped byte (ASCII) */
		else if (c == '"')
			in_str = !in_str;
		else if (!in_str && (c == '{' || c == '['))
			depth++;
		else if (!in_str && (c == '}' || c == ']'))
			check(--depth >= 0);
		i += k;
	}
	check(!in_str);
	check(!depth_zero || depth == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifdef NDEBUG
	const int misuse_ok = 1;
#else
	const int misuse_ok = 0;
#endif
	struct json_w w, m;
	json_init_buf(&w, size && data[0] & 1 ? JSON_SPACED : JSON_COMPACT);
	json_init_members(&m, JSON_COMPACT);
	json_kstr(&m, "m", "\xff");
	char open[JSON_MAX_DEPTH + 1] = {0};
	int d = 0, key_done = 0, top_done = 0, misused = 0;
	for (size_t i = 1; i < size && !misused; i++) {
		int op = data[i] % 12;
		size_t n = i + 1 < size ? data[i + 1] % 16 : 0;
		if (i + 2 + n > size)
			n = 0;
		const char *s = n ? (const char *)data + i + 2 : "";
		int value = op == 0 || op == 2 || (op >= 5 && op <= 8);
		int legal;
		if (value)
			legal = (d == 0		  ? !top_done
				 : open[d] == '{' ? key_done
						  : 1) &&
				((op != 0 && op != 2) || d < JSON_MAX_DEPTH);
		else if (op == 4)
			legal = d > 0 && open[d] == '{' && !key_done;
		else if (op == 1)
			legal = d > 0 && open[d] == '{' && !key_done;
		else if (op == 3)
			legal = d > 0 && open[d] == '[';
		else if (op == 9)
			legal = d == 0 && top_done;
		else /* 10, 11: members */
			legal = d > 0 && open[d] == '{' && !key_done;
		if (!legal && !misuse_ok)
			continue;
		size_t before = w.len;
		char k[17];
		uint64_t bits = 0;
		memcpy(k, s, n);
		k[n] = 0;
		memcpy(&bits, s, n < 8 ? n : 8);
		double x;
		memcpy(&x, &bits, sizeof x);
		switch (op) {
		case 0:
		case 2:
			if (op == 0)
				json_begin_object(&w);
			else
				json_begin_array(&w);
			break;
		case 1:
			json_end_object(&w);
			break;
		case 3:
			json_end_array(&w);
			break;
		case 4:
			json_key(&w, k); /* the bytes up to a NUL */
			break;
		case 5:
			json_strn(&w, s, n);
			break;
		case 6:
			json_int(&w, (int64_t)bits);
			break;
		case 7:
			if (n & 1)
				json_real(&w, x);
			else
				json_double(&w, x, (int)n);
			break;
		case 8:
			if (n & 1)
				json_bool(&w, n & 2);
			else
				json_null(&w);
			break;
		case 9:
			json_newline(&w);
			break;
		default:
			json_members(&w, &m);
			break;
		}
		if (!legal) { /* flagged, and nothing written */
			check(json_error(&w) && w.len == before);
			misused = 1;
			break;
		}
		check(!json_error(&w));
		if (value && d == 0)
			top_done = 1;
		if (value && open[d] == '{')
			key_done = 0;
		if (op == 0 || op == 2)
			open[++d] = op == 0 ? '{' : '[';
		else if (op == 1 || op == 3)
			d--;
		else if (op == 4)
			key_done = 1;
		else if (op == 9)
			top_done = 0;
		i += 1 + n; /* the operation's bytes */
	}
	check_text(w.buf ? w.buf : "", w.len, !misused && d == 0);
	if (!misused && d == 0)
		check(json_done(&w) == 0);
	json_free(&w);
	json_free(&m);
	return 0;
}
