/* IMA measurement lists (recorder/import/ima_import.h): ima_parse and
 * ima_parse_mem read the binary list (detect_binary, parse_binary) or the ascii
 * one (parse_ascii, whose lines are rebuilt into the binary template data),
 * check each entry's template hash against its template data (hash_ok) and
 * compute the digest each bank was extended with under the kernel's rule of the
 * day (ima_rule_parse: per-bank, padded-sha1, sha1-only), and hand every entry,
 * with the line tpmtrace shows for it, to a callback. ima_import_file stores a
 * list as a trace through log_store.h: one ima event and one synthesized
 * PCR_Extend per entry (--strict refuses an entry whose hash does not match).
 * Format facts from the kernel's security/integrity/ima sources; input through
 * log_reader.h. */
#include "recorder/import/ima_import.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/import/log_store.h"

#define MAX_FIELDS	  16
#define LINE_CAP	  1024 /* the ascii form kept per entry */
#define MAX_MISMATCH_MSGS 10
#define LEGACY_NAME_PAD	  256 /* IMA_EVENT_NAME_LEN_MAX + 1 */

const char *ima_rule_str(enum ima_rule r)
{
	switch (r) {
	case IMA_RULE_PER_BANK:
		return "per-bank";
	case IMA_RULE_PADDED_SHA1:
		return "padded-sha1";
	case IMA_RULE_SHA1_ONLY:
		return "sha1-only";
	}
	return "?";
}

int ima_rule_parse(const char *s, enum ima_rule *out)
{
	for (int r = IMA_RULE_PER_BANK; r <= IMA_RULE_SHA1_ONLY; r++)
		if (!strcmp(s, ima_rule_str((enum ima_rule)r))) {
			*out = (enum ima_rule)r;
			return 0;
		}
	return -EINVAL;
}

/* How a template field is stored and shown (kernel ima_template_lib.c). */
enum fkind {
	FK_D,	 /* 20 raw bytes, shown as hex */
	FK_N,	 /* legacy name, no NUL */
	FK_DNG,	 /* "<algo>:" NUL digest, shown as algo:hex (also d-modsig, d-ngv2) */
	FK_NNG,	 /* name with NUL, shown without */
	FK_HEX,	 /* opaque bytes shown as hex */
	FK_STR,	 /* string with NUL (evm xattrnames) */
	FK_UINT, /* integer in the list's byte order, shown in decimal */
};

static const struct {
	const char *id;
	enum fkind kind;
} field_ids[] = {
    {"d", FK_D},
    {"n", FK_N},
    {"d-ng", FK_DNG},
    {"d-ngv2", FK_DNG},
    {"n-ng", FK_NNG},
    {"sig", FK_HEX},
    {"buf", FK_HEX},
    {"d-modsig", FK_DNG},
    {"modsig", FK_HEX},
    {"evmsig", FK_HEX},
    {"xattrnames", FK_STR},
    {"xattrlengths", FK_HEX},
    {"xattrvalues", FK_HEX},
    {"iuid", FK_UINT},
    {"igid", FK_UINT},
    {"imode", FK_UINT},
};

static const struct {
	const char *name;
	const char *fmt;
} templates[] = {
    {"ima", "d|n"},
    {"ima-ng", "d-ng|n-ng"},
    {"ima-ngv2", "d-ngv2|n-ng"},
    {"ima-sig", "d-ng|n-ng|sig"},
    {"ima-sigv2", "d-ngv2|n-ng|sig"},
    {"ima-buf", "d-ng|n-ng|buf"},
    {"ima-modsig", "d-ng|n-ng|sig|d-modsig|modsig"},
    {"evm-sig", "d-ng|n-ng|evmsig|xattrnames|xattrlengths|xattrvalues|iuid|igid|imode"},
};

struct parser {
	const struct ima_opts *o;
	ima_msg_fn msg;
	void *ctx;
	struct ima_result *res;
	char *err;
	size_t errlen;
	struct pcr_sim hs; /* used only for its hash contexts */
	int be;
	uint16_t list_alg;
	unsigned list_size;
	unsigned n_banks;
	uint16_t banks[PCR_MAX_BANKS];
	/* template cache: the fields of the last template name seen */
	char tname[IMA_NAME_MAX + 1];
	int legacy; /* the "ima" template */
	int known;  /* fields are known */
	unsigned nf;
	uint8_t kinds[MAX_FIELDS];
	uint8_t *tbuf; /* template data rebuilt from an ascii line */
	size_t tcap;
	uint8_t hin[20 + LEGACY_NAME_PAD];
	char line[LINE_CAP + 1];
	size_t line_len;
	int order_settled; /* ascii: byte order confirmed by a matching hash */
};

static int fail(struct parser *ps, uint64_t index, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(struct parser *ps, uint64_t index, uint64_t off, const char *fmt, ...)
{
	char m[384];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	snprintf(ps->err, ps->errlen, "%s: entry %llu at offset %llu: %s", ps->o->label,
		 (unsigned long long)index, (unsigned long long)off, m);
	return -EINVAL;
}

static int kind_of(const char *id, size_t n)
{
	for (size_t i = 0; i < sizeof(field_ids) / sizeof(field_ids[0]); i++)
		if (strlen(field_ids[i].id) == n && !memcmp(field_ids[i].id, id, n))
			return field_ids[i].kind;
	return -1;
}

/* Looks up the fields of a template: a built-in name, or a custom format
 * string ("d-ng|n-ng|buf": the kernel shows the format as the name). */
static void set_template(struct parser *ps, const char *name)
{
	if (!strcmp(ps->tname, name) && ps->tname[0])
		return;
	snprintf(ps->tname, sizeof ps->tname, "%s", name);
	const char *fmt = name;
	for (size_t i = 0; i < sizeof(templates) / sizeof(templates[0]); i++)
		if (!strcmp(templates[i].name, name))
			fmt = templates[i].fmt;
	ps->legacy = !strcmp(name, "ima");
	ps->nf = 0;
	ps->known = 1;
	while (*fmt && ps->known) {
		size_t k = strcspn(fmt, "|");
		int kind = kind_of(fmt, k);
		if (kind < 0 || ps->nf == MAX_FIELDS)
			ps->known = 0;
		else
			ps->kinds[ps->nf++] = (uint8_t)kind;
		fmt += k;
		if (*fmt == '|')
			fmt++;
	}
	if (!ps->nf)
		ps->known = 0;
}

static void line_add(struct parser *ps, const char *s, size_t n)
{
	size_t room = LINE_CAP - ps->line_len;
	if (n > room) {
		n = room;
		if (room >= 3) {
			memcpy(ps->line + ps->line_len, s, room - 3);
			memcpy(ps->line + LINE_CAP - 3, "...", 3);
			ps->line_len = LINE_CAP;
			ps->line[ps->line_len] = 0;
			return;
		}
	}
	memcpy(ps->line + ps->line_len, s, n);
	ps->line_len += n;
	ps->line[ps->line_len] = 0;
}

static void line_hex(struct parser *ps, const uint8_t *p, size_t n)
{
	char h[129];
	while (n && ps->line_len < LINE_CAP) {
		size_t k = n > 64 ? 64 : n;
		import_log_hex(h, p, k);
		line_add(ps, h, 2 * k);
		p += k;
		n -= k;
	}
}

static void line_str(struct parser *ps, const uint8_t *p, size_t n)
{
	/* A name is shown as is; a NUL ends it, a newline would break the line. */
	char b[64];
	size_t k = 0;
	for (size_t i = 0; i < n && p[i]; i++) {
		b[k++] = p[i] == '\n' || p[i] == '\r' ? '?' : (char)p[i];
		if (k == sizeof b) {
			line_add(ps, b, k);
			k = 0;
		}
	}
	line_add(ps, b, k);
}

/* The shown form of one field (kernel ima_show_template_*, IMA_SHOW_ASCII). */
static void line_field(struct parser *ps, int kind, const uint8_t *p, size_t n)
{
	line_add(ps, " ", 1);
	if (!n)
		return;
	switch (kind) {
	case FK_D:
	case FK_HEX:
		line_hex(ps, p, n);
		break;
	case FK_N:
	case FK_NNG:
	case FK_STR:
		line_str(ps, p, n);
		break;
	case FK_DNG: {
		const uint8_t *nul = memchr(p, 0, n);
		if (nul && nul > p && nul[-1] == ':') {
			line_add(ps, (const char *)p, (size_t)(nul - p));
			line_hex(ps, nul + 1, n - (size_t)(nul + 1 - p));
		} else {
			line_hex(ps, p, n);
		}
		break;
	}
	case FK_UINT: {
		uint64_t v = 0;
		for (size_t i = 0; i < n && i < 8; i++)
			v |= (uint64_t)p[ps->be ? n - 1 - i : i] << (8 * i);
		char b[24];
		int k = snprintf(b, sizeof b, "%llu", (unsigned long long)v);
		line_add(ps, b, (size_t)k);
		break;
	}
	}
}

static void line_start(struct parser *ps, uint32_t pcr, const uint8_t *logged, unsigned n)
{
	char b[16];
	ps->line_len = 0;
	int k = snprintf(b, sizeof b, "%2u ", pcr);
	line_add(ps, b, (size_t)k);
	line_hex(ps, logged, n);
	line_add(ps, " ", 1);
	line_add(ps, ps->tname, strlen(ps->tname));
}

/* Walks the fields of non-legacy template data (each u32 length, data) and
 * renders them. Returns 0, or -1 if the data does not hold the template's
 * fields exactly. */
static int render_fields(struct parser *ps, const uint8_t *td, uint32_t len)
{
	struct wire_rd r;
	unsigned i = 0;
	wire_rd_init(&r, td, len);
	while (wire_left(&r) > 0) {
		uint32_t fl = wire_u32_bo(&r, ps->be);
		const uint8_t *f = wire_skip(&r, fl);
		if (r.err)
			return -1;
		line_field(ps, ps->known && i < ps->nf ? ps->kinds[i] : FK_HEX, f, fl);
		i++;
	}
	return ps->known && i != ps->nf ? -1 : 0;
}

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The bytes the template hash covers (ima_calc_field_array_hash_tfm): the
 * template data as it is for every template but "ima", for which it is the
 * 20-byte digest and the name zero-padded to 256 bytes, lengths not hashed. */
static const uint8_t *hash_input(struct parser *ps, const uint8_t *td, uint32_t len, size_t *hlen)
{
	if (!ps->legacy) {
		*hlen = len;
		return td;
	}
	uint32_t nl = get_u32_bo(td + 20, ps->be);
	memset(ps->hin, 0, sizeof ps->hin);
	memcpy(ps->hin, td, 20);
	memcpy(ps->hin + 20, td + 24, nl);
	*hlen = sizeof ps->hin;
	return ps->hin;
}

/* Fills e->ext per the kernel rule, checks the logged digest, and hands the
 * entry on. */
static int finish_entry(struct parser *ps, struct ima_entry *e, ima_entry_fn cb)
{
	if (ps->res->entries >= IMA_MAX_ENTRIES)
		return fail(ps, e->index, e->offset,
			    "more than %u entries: not a measurement list this importer takes",
			    IMA_MAX_ENTRIES);
	size_t hlen;
	const uint8_t *hin = hash_input(ps, e->tdata, e->tdata_len, &hlen);
	uint8_t listed[PCR_MAX_DIGEST], sha1[20];
	int have_sha1 = 0;

	e->violation = all_zero(e->logged, e->logged_len);
	e->hash_ok = 1;
	if (!e->violation) {
		if (pcr_sim_hash(&ps->hs, ps->list_alg, hin, hlen, listed))
			return fail(ps, e->index, e->offset, "cannot compute the template hash");
		e->hash_ok = !memcmp(listed, e->logged, e->logged_len);
		if (ps->list_alg == TPM_ALG_SHA1) {
			memcpy(sha1, e->logged, 20);
			have_sha1 = 1;
		}
	}
	e->ext.n = 0;
	for (unsigned i = 0; i < ps->n_banks; i++) {
		const struct pcr_alg *a = pcr_alg_by_id(ps->banks[i]);
		struct pcr_digest *x = &e->ext.v[e->ext.n++];
		x->alg = a->alg;
		x->size = a->size;
		memset(x->d, 0, sizeof x->d);
		if (e->violation) {
			/* ima_add_violation extends 0xff: the whole bank width since
			 * 5.8, before that a padded SHA-1 value. */
			memset(x->d, 0xff, ps->o->rule == IMA_RULE_PER_BANK ? a->size : 20);
			continue;
		}
		if (ps->o->rule == IMA_RULE_PER_BANK) {
			if (a->alg == ps->list_alg)
				memcpy(x->d, e->logged, a->size); /* what the kernel logged */
			else if (pcr_sim_hash(&ps->hs, a->alg, hin, hlen, x->d))
				return fail(ps, e->index, e->offset, "cannot compute %s", a->name);
			continue;
		}
		if (!have_sha1) {
			if (pcr_sim_hash(&ps->hs, TPM_ALG_SHA1, hin, hlen, sha1))
				return fail(ps, e->index, e->offset, "cannot compute sha1");
			have_sha1 = 1;
		}
		memcpy(x->d, sha1, a->size < 20 ? a->size : 20);
	}
	ps->res->entries++;
	if (e->violation)
		ps->res->violations++;
	if (!e->hash_ok) {
		ps->res->mismatches++;
		if (ps->res->mismatches <= MAX_MISMATCH_MSGS)
			import_log_say(
			    ps->msg, ps->ctx, 0,
			    "%s: entry %llu at offset %llu: template hash does not match the "
			    "template data (%s)%s",
			    ps->o->label, (unsigned long long)e->index,
			    (unsigned long long)e->offset, ps->tname,
			    ps->res->mismatches == MAX_MISMATCH_MSGS
				? "; further mismatches counted only"
				: "");
	}
	e->line = ps->line;
	return cb ? cb(ps->ctx, e) : 0;
}

static int truncated(struct parser *ps, uint64_t index, uint64_t off, size_t have, size_t need)
{
	ps->res->tail = (struct log_tail){1, off, have};
	import_log_say(
	    ps->msg, ps->ctx, 0,
	    "%s: truncated record at offset %llu (entry %llu): the file ends %zu bytes into a "
	    "record of at least %zu bytes; those bytes are ignored",
	    ps->o->label, (unsigned long long)off, (unsigned long long)index, have, need);
	return 0;
}

static int plausible_header(const uint8_t *p, size_t avail, size_t dsize, int be)
{
	if (avail < 8 + dsize)
		return 0;
	uint32_t pcr = get_u32_bo(p, be), nl = get_u32_bo(p + 4 + dsize, be);
	if (pcr >= 64 || nl == 0 || nl > IMA_NAME_MAX)
		return 0;
	for (size_t i = 0; i < nl && 8 + dsize + i < avail; i++)
		if (p[8 + dsize + i] < 0x21 || p[8 + dsize + i] > 0x7e)
			return 0;
	return 1;
}

static const char *name_suffix_alg(const char *label, uint16_t *alg)
{
	const char *us = label ? strrchr(label, '_') : NULL;
	const struct pcr_alg *a = us ? pcr_alg_by_name(us + 1) : NULL;
	if (a)
		*alg = a->alg;
	return a ? a->name : NULL;
}

/* Byte order and digest width from the first record: a PCR index below 64
 * and a printable template name decide. */
static int detect_binary(struct parser *ps, struct log_rd *rd)
{
	size_t avail;
	import_log_rd_peek(rd, 8 + 64 + IMA_NAME_MAX, &avail);
	const uint8_t *p = import_log_rd_peek(rd, avail, &avail);
	if (!avail)
		return 0;
	for (int be = 0; be < 2; be++) {
		for (unsigned k = 0; k < PCR_COMMON_ALGS; k++) {
			uint16_t alg = ps->list_alg ? ps->list_alg : pcr_alg_common(k)->alg;
			if (plausible_header(p, avail, pcr_alg_by_id(alg)->size, be)) {
				ps->be = be;
				ps->list_alg = alg;
				return 0;
			}
			if (ps->list_alg)
				break;
		}
	}
	if (avail < 28) /* shorter than any record: let the parser report it */
		return 0;
	return fail(ps, 1, 0,
		    "not an IMA binary measurement list (no PCR index and template name where "
		    "expected, in either byte order)");
}

static int parse_binary(struct parser *ps, struct log_rd *rd, ima_entry_fn cb)
{
	struct ima_entry e;
	int rc = detect_binary(ps, rd);
	if (rc)
		return rc;
	if (!ps->list_alg)
		ps->list_alg = TPM_ALG_SHA1;
	ps->list_size = pcr_alg_by_id(ps->list_alg)->size;
	const size_t D = ps->list_size;
	for (uint64_t index = 1;; index++) {
		size_t avail, need = 8 + D;
		uint64_t off = log_rd_offset(rd);
		const uint8_t *p = import_log_rd_peek(rd, need, &avail);
		if (!p) {
			if (rd->io_err)
				break;
			return avail ? truncated(ps, index, off, avail, need) : 0;
		}
		uint32_t pcr = get_u32_bo(p, ps->be);
		uint32_t nl = get_u32_bo(p + 4 + D, ps->be);
		if (nl == 0 || nl > IMA_NAME_MAX)
			return fail(ps, index, off, "template name length %u (1-%u expected)", nl,
				    IMA_NAME_MAX);
		need += nl + 4;
		if (!(p = import_log_rd_peek(rd, need, &avail)))
			return rd->io_err ? 0 : truncated(ps, index, off, avail, need);
		memset(&e, 0, sizeof e);
		memcpy(e.template_name, p + 8 + D, nl);
		if (memchr(e.template_name, 0, nl))
			return fail(ps, index, off, "NUL in the template name");
		set_template(ps, e.template_name);
		size_t tstart = 8 + D + nl;
		uint32_t tl;
		if (ps->legacy) {
			/* "ima": 20-byte digest, u32 name length, name; no total length. */
			need = tstart + 24;
			if (!(p = import_log_rd_peek(rd, need, &avail)))
				return rd->io_err ? 0 : truncated(ps, index, off, avail, need);
			uint32_t fnl = get_u32_bo(p + tstart + 20, ps->be);
			if (fnl > IMA_NAME_MAX)
				return fail(ps, index, off, "file name length %u (at most %u)", fnl,
					    IMA_NAME_MAX);
			tl = 24 + fnl;
		} else {
			tl = get_u32_bo(p + tstart, ps->be);
			tstart += 4;
			if (tl > LOG_RD_MAX_RECORD - tstart)
				return fail(ps, index, off, "template data length %u too large",
					    tl);
		}
		need = tstart + tl;
		if (!(p = import_log_rd_peek(rd, need, &avail)))
			return rd->io_err ? 0 : truncated(ps, index, off, avail, need);
		e.index = index;
		e.offset = off;
		e.pcr = pcr;
		e.logged = p + 4;
		e.logged_len = (unsigned)D;
		e.tdata = p + tstart;
		e.tdata_len = tl;
		line_start(ps, pcr, e.logged, e.logged_len);
		if (ps->legacy) {
			line_field(ps, FK_D, e.tdata, 20);
			line_field(ps, FK_N, e.tdata + 24, tl - 24);
		} else if (render_fields(ps, e.tdata, tl)) {
			if (ps->known)
				return fail(ps, index, off,
					    "template data (%u bytes) does not hold the fields of "
					    "template %s",
					    tl, ps->tname);
			return fail(ps, index, off,
				    "template data (%u bytes) is not a list of "
				    "length-prefixed fields",
				    tl);
		}
		rc = finish_entry(ps, &e, cb);
		if (rc)
			return rc;
		import_log_rd_consume(rd, need);
	}
	import_log_rd_error(rd, ps->o->label, ps->err, ps->errlen);
	return -rd->io_err;
}

static uint8_t *tbuf_need(struct parser *ps, size_t n)
{
	if (n > ps->tcap) {
		size_t cap = ps->tcap ? ps->tcap : 4096;
		while (cap < n)
			cap *= 2;
		uint8_t *nb = realloc(ps->tbuf, cap);
		if (!nb)
			return NULL;
		ps->tbuf = nb;
		ps->tcap = cap;
	}
	return ps->tbuf;
}

static int hexdigit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Rebuilds the binary template data of an ascii entry from its shown fields
 * (the inverse of the kernel's field_show). Field lengths are written in the
 * byte order be. Returns the length, or -1 with a reason in why. */
static long rebuild(struct parser *ps, const char *const *fs, const size_t *fl, unsigned nf, int be,
		    const char **why)
{
	size_t cap = 0, off = 0;
	for (unsigned i = 0; i < nf; i++)
		cap += 4 + fl[i] + 2;
	uint8_t *t = tbuf_need(ps, cap + 24);
	if (!t) {
		*why = "out of memory";
		return -1;
	}
	for (unsigned i = 0; i < nf; i++) {
		const char *s = fs[i];
		size_t n = fl[i], len = 0;
		uint8_t *lenp = ps->legacy && i == 0 ? NULL : t + off;
		if (lenp)
			off += 4;
		switch (ps->kinds[i]) {
		case FK_D:
		case FK_HEX:
			if (n % 2 || import_log_unhex(s, n, t + off, n / 2)) {
				*why = "a hex field is not hex";
				return -1;
			}
			len = n / 2;
			break;
		case FK_N:
			if (n > IMA_NAME_MAX) {
				*why = "the legacy file name is longer than 255 bytes";
				return -1;
			}
			memcpy(t + off, s, n);
			len = n;
			break;
		case FK_NNG:
			memcpy(t + off, s, n);
			t[off + n] = 0;
			len = n + 1;
			break;
		case FK_DNG: {
			if (!n)
				break;
			const char *c = s + n;
			while (c > s && c[-1] != ':')
				c--;
			size_t pre = (size_t)(c - s), hx = n - pre;
			if (!pre || hx % 2 || import_log_unhex(c, hx, t + off + pre + 1, hx / 2)) {
				*why = "a digest field is not algo:hex";
				return -1;
			}
			memcpy(t + off, s, pre);
			t[off + pre] = 0;
			len = pre + 1 + hx / 2;
			break;
		}
		default:
			*why = "the template has fields whose binary form the ascii list does not "
			       "show (use binary_runtime_measurements)";
			return -1;
		}
		if (ps->legacy && i == 0 && len != 20) {
			*why = "the legacy digest is not 20 bytes";
			return -1;
		}
		if (lenp)
			put_u32_bo(lenp, (uint32_t)len, be);
		off += len;
	}
	return (long)off;
}

static int parse_ascii(struct parser *ps, struct log_rd *rd, ima_entry_fn cb)
{
	struct ima_entry e;
	const char *fs[MAX_FIELDS];
	size_t fl[MAX_FIELDS];
	uint64_t index = 0;
	const char *line;
	size_t len;

	for (;;) {
		uint64_t off = log_rd_offset(rd);
		if (!(line = import_log_rd_line(rd, &len)))
			break;
		if (rd->too_big)
			return fail(ps, index + 1, off, "line longer than %u bytes",
				    LOG_RD_MAX_RECORD);
		if (len && line[len - 1] == '\r')
			len--;
		const char *p = line, *end = line + len;
		while (p < end && *p == ' ')
			p++;
		if (p == end)
			continue;
		index++;
		memset(&e, 0, sizeof e);
		e.index = index;
		e.offset = off;
		/* "%2d " pcr, hex template digest, template name. */
		uint32_t pcr = 0;
		const char *q = p;
		while (q < end && *q >= '0' && *q <= '9' && pcr < 1000)
			pcr = pcr * 10 + (uint32_t)(*q++ - '0');
		if (q == p || q == end || *q != ' ')
			return fail(ps, index, off, "no PCR index at the start of the line");
		p = q + 1;
		q = p;
		while (q < end && hexdigit(*q))
			q++;
		size_t hx = (size_t)(q - p);
		uint8_t logged[PCR_MAX_DIGEST];
		const struct pcr_alg *la =
		    ps->list_alg ? pcr_alg_by_id(ps->list_alg) : pcr_alg_by_size(hx / 2);
		if (q == end || *q != ' ' || !la || hx != 2u * la->size ||
		    import_log_unhex(p, hx, logged, la->size))
			return fail(ps, index, off, "template digest is not %s hex",
				    la ? la->name : PCR_COMMON_SLASHED);
		ps->list_alg = la->alg;
		ps->list_size = la->size;
		p = q + 1;
		q = memchr(p, ' ', (size_t)(end - p));
		if (!q)
			q = end;
		if (q == p || (size_t)(q - p) > IMA_NAME_MAX)
			return fail(ps, index, off, "no template name");
		memcpy(e.template_name, p, (size_t)(q - p));
		set_template(ps, e.template_name);
		if (!ps->known)
			return fail(ps, index, off, "unknown template '%s'", e.template_name);
		/* Each field follows one space; the last runs to the end of the line
		 * (an empty field is just its space; a missing one counts as empty). */
		p = q;
		for (unsigned i = 0; i < ps->nf; i++) {
			if (p < end)
				p++;
			q = i + 1 < ps->nf ? memchr(p, ' ', (size_t)(end - p)) : NULL;
			if (!q)
				q = end;
			fs[i] = p;
			fl[i] = (size_t)(q - p);
			p = q;
		}
		const char *why = NULL;
		long tl = rebuild(ps, fs, fl, ps->nf, ps->be, &why);
		if (tl < 0)
			return fail(ps, index, off, "%s", why);
		e.pcr = pcr;
		e.logged = logged;
		e.logged_len = la->size;
		e.tdata = ps->tbuf;
		e.tdata_len = (uint32_t)tl;
		if (!ps->order_settled && !ps->legacy && !all_zero(logged, la->size)) {
			/* Lengths inside the template data are hashed in the byte
			 * order of the machine that made the list: settle it on the
			 * first entry whose hash can tell. */
			uint8_t h[PCR_MAX_DIGEST];
			size_t hlen;
			const uint8_t *hin = hash_input(ps, e.tdata, e.tdata_len, &hlen);
			if (!pcr_sim_hash(&ps->hs, la->alg, hin, hlen, h) &&
			    memcmp(h, logged, la->size)) {
				long t2 = rebuild(ps, fs, fl, ps->nf, !ps->be, &why);
				hin = hash_input(ps, ps->tbuf, (uint32_t)t2, &hlen);
				if (t2 >= 0 && !pcr_sim_hash(&ps->hs, la->alg, hin, hlen, h) &&
				    !memcmp(h, logged, la->size))
					ps->be = !ps->be;
				else
					t2 = rebuild(ps, fs, fl, ps->nf, ps->be, &why);
				e.tdata = ps->tbuf;
				e.tdata_len = (uint32_t)t2;
			}
			ps->order_settled = 1;
		}
		ps->line_len = 0;
		line_add(ps, line, (size_t)(end - line));
		int rc = finish_entry(ps, &e, cb);
		if (rc)
			return rc;
	}
	if (rd->io_err) {
		import_log_rd_error(rd, ps->o->label, ps->err, ps->errlen);
		return -rd->io_err;
	}
	return 0;
}

static int looks_ascii(struct log_rd *rd)
{
	size_t avail;
	import_log_rd_peek(rd, 4, &avail);
	const uint8_t *p = import_log_rd_peek(rd, avail < 4 ? avail : 4, &avail);
	if (avail < 3)
		return 0;
	/* "%2d ": " 9 " or "10 " */
	return (p[0] == ' ' || (p[0] >= '0' && p[0] <= '9')) && p[1] >= '0' && p[1] <= '9' &&
	       (p[2] == ' ' || (p[2] >= '0' && p[2] <= '9'));
}

int ima_parse(struct log_rd *rd, const struct ima_opts *o, ima_entry_fn cb, ima_msg_fn msg,
	      void *ctx, struct ima_result *res, char *err, size_t errlen)
{
	struct parser *ps = calloc(1, sizeof(*ps));
	struct ima_result dummy;
	struct ima_opts oo = *o;
	int rc;

	if (!res)
		res = &dummy;
	memset(res, 0, sizeof(*res));
	if (!oo.label)
		oo.label = "<memory>";
	rc = ps ? pcr_sim_init(&ps->hs) : -ENOMEM;
	if (rc) {
		snprintf(err, errlen, "%s", pcr_sim_init_error(rc));
		goto out;
	}
	ps->o = &oo;
	ps->msg = msg;
	ps->ctx = ctx;
	ps->res = res;
	ps->err = err;
	ps->errlen = errlen;
	ps->list_alg = o->list_alg;
	if (!ps->list_alg)
		name_suffix_alg(o->label, &ps->list_alg);
	if (o->rule == IMA_RULE_SHA1_ONLY) {
		ps->n_banks = 1;
		ps->banks[0] = TPM_ALG_SHA1;
	} else if (o->n_banks) {
		ps->n_banks = o->n_banks > PCR_MAX_BANKS ? PCR_MAX_BANKS : o->n_banks;
		memcpy(ps->banks, o->banks, ps->n_banks * sizeof(uint16_t));
	} else {
		ps->n_banks = 2;
		ps->banks[0] = TPM_ALG_SHA1;
		ps->banks[1] = TPM_ALG_SHA256;
	}
	for (unsigned i = 0; i < ps->n_banks; i++) {
		if (!pcr_alg_by_id(ps->banks[i]) || pcr_sim_bank(&ps->hs, ps->banks[i]) < 0) {
			snprintf(err, errlen, "bank 0x%04x cannot be computed", ps->banks[i]);
			rc = -ENOTSUP;
			goto out;
		}
	}
	res->ascii = o->format == IMA_FMT_ASCII || (o->format == IMA_FMT_AUTO && looks_ascii(rd));
	rc = res->ascii ? parse_ascii(ps, rd, cb) : parse_binary(ps, rd, cb);
	res->big_endian = ps->be;
	res->list_alg = ps->list_alg;
out:
	if (ps) {
		pcr_sim_release(&ps->hs);
		free(ps->tbuf);
		free(ps);
	}
	return rc;
}

int ima_parse_mem(const uint8_t *p, size_t len, const struct ima_opts *o, ima_entry_fn cb,
		  ima_msg_fn msg, void *ctx, struct ima_result *res, char *err, size_t errlen)
{
	struct log_rd rd;
	import_log_rd_open_mem(&rd, p, len);
	int rc = ima_parse(&rd, o, cb, msg, ctx, res, err, errlen);
	import_log_rd_close(&rd);
	return rc;
}

/* ---- import into a database ---- */

struct import_ctx {
	struct log_sink sink;
	const struct ima_import_cfg *cfg;
	struct ima_result *res;
	char *err;
	size_t errlen;
};

static void import_msg(void *vctx, int sev, const char *m)
{
	struct import_ctx *ic = vctx;
	if (ic->cfg->msg)
		ic->cfg->msg(ic->cfg->msg_ctx, sev, m);
}

static int import_entry(void *vctx, const struct ima_entry *e)
{
	struct import_ctx *ic = vctx;
	int rc;
	if (!e->hash_ok && ic->cfg->strict) {
		snprintf(ic->err, ic->errlen,
			 "%s: entry %llu at offset %llu: template hash does not match the template "
			 "data (--strict)",
			 ic->cfg->opts.label, (unsigned long long)e->index,
			 (unsigned long long)e->offset);
		return -EBADMSG;
	}
	rc = import_log_sink_event(&ic->sink, "ima", e->line);
	if (!rc && e->pcr >= PCR_COUNT) {
		import_log_bad_pcr(&ic->res->bad_pcr, e->pcr, import_msg, ic,
				   "%s: entry %llu at offset %llu", ic->cfg->opts.label,
				   (unsigned long long)e->index, (unsigned long long)e->offset);
		return 0;
	}
	if (!rc)
		rc = import_log_sink_extend(&ic->sink, e->pcr, 0, &e->ext);
	if (rc)
		snprintf(ic->err, ic->errlen, "cannot store entry %llu: %s",
			 (unsigned long long)e->index, strerror(-rc));
	return rc;
}

int ima_import_file(const char *path, const struct ima_import_cfg *cfg, int64_t *trace_id,
		    struct ima_result *res, char *err, size_t errlen)
{
	struct import_ctx ic = {.cfg = cfg, .err = err, .errlen = errlen};
	struct ima_import_cfg c2 = *cfg;
	struct ima_result r0;
	struct log_rd rd;
	char notes[256];

	if (!res)
		res = &r0;
	memset(res, 0, sizeof(*res));
	c2.opts.label = path;
	ic.cfg = &c2;
	ic.res = res;
	snprintf(notes, sizeof notes, "IMA measurement list; kernel rule %s",
		 ima_rule_str(cfg->opts.rule));
	int rc = import_log_import_begin(&ic.sink, &rd, cfg->db_path, cfg->name, "ima", path,
					 cfg->follow, notes, err, errlen);
	if (rc)
		return rc;
	ic.sink.keep_partial = cfg->keep_partial;
	rc = ima_parse(&rd, &c2.opts, import_entry, import_msg, &ic, res, err, errlen);
	rc = import_log_import_end(&ic.sink, &rd, rc, cfg->db_path, path, cfg->strict, "record",
				   &res->tail, err, errlen);
	*trace_id = ic.sink.trace_id;
	res->stored_commands = ic.sink.commands;
	res->stored_events = ic.sink.events;
	return rc;
}
