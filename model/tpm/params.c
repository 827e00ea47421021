/* Field-by-field explanation of TPM 2.0 messages (params.h). Layouts from
 * TPM 2.0 Part 3 (the command and response tables of each command) and
 * Part 2 (the structures); read only through wire.h. */
#include "model/tpm/params.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/tpm/pcr_bank.h"
#include "model/tpm/tpm_ht.h"
#include "model/tpm/walk.h"

#define MAX_SECRET 8

struct dec {
	struct wire_rd r;
	tpm_field_fn fn;
	void *ctx;
	unsigned depth;
	int redacted;
	unsigned n_sec;
	size_t sec_off[MAX_SECRET], sec_len[MAX_SECRET];
	size_t param_off; /* where the parameter being explained starts */
	char txt[256];
};

/* ---- emitting ---- */

static void emit(struct dec *d, int kind, const char *name, const char *value, const uint8_t *b,
		 size_t n)
{
	struct tpm_field f = {d->depth, kind, name, value, b, n, d->param_off};
	d->fn(d->ctx, &f);
}

static void val(struct dec *d, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void val(struct dec *d, const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->txt, sizeof d->txt, fmt, ap);
	va_end(ap);
	emit(d, TPM_F_VALUE, name, d->txt, NULL, 0);
}

static void group(struct dec *d, const char *name, const char *value)
{
	emit(d, TPM_F_GROUP, name, value, NULL, 0);
	d->depth++;
}

static void end(struct dec *d)
{
	d->depth--;
}

static int secret(const struct dec *d, size_t off, size_t n)
{
	if (!d->redacted || !n)
		return 0;
	for (unsigned i = 0; i < d->n_sec; i++)
		if (off < d->sec_off[i] + d->sec_len[i] && d->sec_off[i] < off + n)
			return 1;
	return 0;
}

static void add_secret(struct dec *d, size_t off, size_t n)
{
	if (d->n_sec < MAX_SECRET && n) {
		d->sec_off[d->n_sec] = off;
		d->sec_len[d->n_sec++] = n;
	}
}

static int fail(struct dec *d, const char *what)
{
	snprintf(d->txt, sizeof d->txt, "? %s does not parse (at byte %zu of %zu)", what, d->r.off,
		 d->r.len);
	emit(d, TPM_F_ERROR, what, d->txt, NULL, 0);
	return -1;
}

/* ---- primitives ---- */

static uint8_t u8(struct dec *d, const char *name)
{
	uint8_t v = wire_u8(&d->r);
	if (!d->r.err)
		val(d, name, "%u (0x%02X)", v, v);
	return v;
}

static uint16_t u16(struct dec *d, const char *name)
{
	size_t off = d->r.off;
	uint16_t v = wire_u16(&d->r);
	if (d->r.err)
		return 0;
	if (secret(d, off, 2))
		emit(d, TPM_F_REDACTED, name, NULL, NULL, 2);
	else
		val(d, name, "%u (0x%04X)", v, v);
	return v;
}

static uint32_t u32(struct dec *d, const char *name)
{
	uint32_t v = wire_u32(&d->r);
	if (!d->r.err)
		val(d, name, "%u (0x%08X)", v, v);
	return v;
}

static void u64(struct dec *d, const char *name)
{
	size_t off = d->r.off;
	uint64_t v = wire_u64(&d->r);
	if (d->r.err)
		return;
	if (secret(d, off, 8))
		emit(d, TPM_F_REDACTED, name, NULL, NULL, 8);
	else
		val(d, name, "%llu (0x%016llX)", (unsigned long long)v, (unsigned long long)v);
}

static uint16_t alg(struct dec *d, const char *name)
{
	uint16_t a = wire_u16(&d->r);
	const char *s = tpm_alg_name(a);
	if (!d->r.err)
		val(d, name, "%s (0x%04X)", s ? s : "unknown algorithm", a);
	return a;
}

static uint32_t handle(struct dec *d, const char *name, uint32_t h)
{
	char b[32];
	const char *k = tpm_handle_kind(h, b, sizeof b);
	val(d, name, "0x%08X (%s)", h, k ? k : "unknown range");
	return h;
}

static void bytes(struct dec *d, const char *name, const uint8_t *p, size_t n)
{
	if (secret(d, (size_t)(p - d->r.p), n))
		emit(d, TPM_F_REDACTED, name, NULL, NULL, n);
	else
		emit(d, TPM_F_BYTES, name, NULL, p, n);
}

static void tpm2b(struct dec *d, const char *name)
{
	uint16_t n;
	const uint8_t *p = wire_tpm2b(&d->r, &n);
	if (!d->r.err)
		bytes(d, name, p, n);
}

/* The rest of the area as hex. */
static void rest(struct dec *d, const char *name, size_t end_off)
{
	if (d->r.err || end_off <= d->r.off || end_off > d->r.len)
		return;
	size_t n = end_off - d->r.off;
	const uint8_t *p = wire_skip(&d->r, n);
	if (p)
		bytes(d, name, p, n);
}

/* A TPM2B holding a structure: the size, then fn on its contents, which must
 * fill it exactly. Redacted contents are not descended into. */
static void sized(struct dec *d, const char *name, void (*fn)(struct dec *, size_t))
{
	uint16_t n = wire_u16(&d->r);
	if (d->r.err)
		return;
	if (!wire_need(&d->r, n))
		return;
	if (secret(d, d->r.off, n)) {
		wire_skip(&d->r, n);
		emit(d, TPM_F_REDACTED, name, NULL, NULL, n);
		return;
	}
	snprintf(d->txt, sizeof d->txt, "size %u", n);
	group(d, name, d->txt);
	if (n) {
		size_t stop = d->r.off + n;
		fn(d, stop);
		if (!d->r.err && d->r.off != stop)
			d->r.err = 1;
	}
	end(d);
}

/* ---- structures (Part 2) ---- */

static void digest_alg(struct dec *d, const char *name)
{
	uint16_t a = alg(d, "hashAlg");
	const struct pcr_alg *pa = pcr_alg_by_id(a);
	if (d->r.err)
		return;
	if (!pa) {
		d->r.err = 1;
		return;
	}
	const uint8_t *p = wire_skip(&d->r, pa->size);
	if (p)
		bytes(d, name, p, pa->size);
}

static void pcr_selection(struct dec *d, const char *name)
{
	uint32_t n = wire_u32(&d->r);
	if (d->r.err)
		return;
	snprintf(d->txt, sizeof d->txt, "TPML_PCR_SELECTION count %u", n);
	group(d, name, d->txt);
	for (uint32_t i = 0; i < n && !d->r.err; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "[%u]", i);
		group(d, nm, NULL);
		alg(d, "hash");
		uint8_t sz = wire_u8(&d->r);
		const uint8_t *p = wire_skip(&d->r, sz);
		if (p) {
			char list[200];
			size_t l = 0;
			list[0] = 0;
			for (unsigned b = 0; b < 8u * sz && l < sizeof list; b++)
				if (p[b / 8] & (1u << (b % 8)))
					l += (size_t)snprintf(list + l, sizeof list - l, "%s%u",
							      l ? "," : "", b);
			val(d, "pcrSelect", "sizeofSelect %u, PCRs %s", sz, l ? list : "none");
		}
		end(d);
	}
	end(d);
}

static void digest_values(struct dec *d, const char *name)
{
	uint32_t n = wire_u32(&d->r);
	if (d->r.err)
		return;
	snprintf(d->txt, sizeof d->txt, "TPML_DIGEST_VALUES count %u", n);
	group(d, name, d->txt);
	for (uint32_t i = 0; i < n && !d->r.err; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "[%u]", i);
		group(d, nm, NULL);
		digest_alg(d, "digest");
		end(d);
	}
	end(d);
}

static void digest_list(struct dec *d, const char *name)
{
	uint32_t n = wire_u32(&d->r);
	if (d->r.err)
		return;
	snprintf(d->txt, sizeof d->txt, "TPML_DIGEST count %u", n);
	group(d, name, d->txt);
	for (uint32_t i = 0; i < n && !d->r.err; i++) {
		char nm[16];
		snprintf(nm, sizeof nm, "[%u]", i);
		tpm2b(d, nm);
	}
	end(d);
}

static void sym_val(struct dec *d, const char *name, const struct tpm_sym_def *s)
{
	const char *a = tpm_alg_name(s->alg), *m = tpm_alg_name(s->mode),
		   *h = tpm_alg_name(s->hash);
	if (s->alg == 0x0010)
		val(d, name, "%s", a);
	else if (s->alg == 0x000A)
		val(d, name, "%s hash %s", a, h ? h : "unknown");
	else
		val(d, name, "%s keyBits %u mode %s", a ? a : "unknown", s->key_bits,
		    m ? m : "unknown");
}

static void sym_def(struct dec *d, const char *name, int object)
{
	struct tpm_sym_def s;
	if (tpm_rd_sym_def(&d->r, object, &s) == 0)
		sym_val(d, name, &s);
}

static const char *curve_name(uint16_t c)
{
	const char *n = tpm_ecc_name(c);
	return n ? n : "unknown curve";
}

static void scheme_val(struct dec *d, const char *name, const struct tpm_scheme *s)
{
	const char *a = tpm_alg_name(s->scheme), *h = tpm_alg_name(s->hash);
	if (s->scheme == 0x0010 || !s->hash)
		val(d, name, "%s", a ? a : "unknown");
	else
		val(d, name, "%s hashAlg %s", a ? a : "unknown", h ? h : "unknown");
}

static void public_area(struct dec *d, size_t stop)
{
	(void)stop;
	uint16_t type = alg(d, "type");
	alg(d, "nameAlg");
	uint32_t oa = wire_u32(&d->r);
	char b[200];
	tpm_bits_str(oa, tpm_obj_bits, 20, b, sizeof b);
	if (!d->r.err)
		val(d, "objectAttributes", "0x%08X (%s)", oa, b);
	tpm2b(d, "authPolicy");
	struct tpm_public_parms pp;
	if (d->r.err || tpm_rd_public_parms(&d->r, type, &pp) < 0)
		return;
	group(d, "parameters", NULL);
	if (type == 0x0001 || type == 0x0023 || type == 0x0025)
		sym_val(d, "symmetric", &pp.symmetric);
	if (type != 0x0025)
		scheme_val(d, "scheme", &pp.scheme);
	if (type == 0x0001) {
		val(d, "keyBits", "%u", pp.key_bits);
		val(d, "exponent", "%u", pp.exponent);
	} else if (type == 0x0023) {
		val(d, "curveID", "%s (0x%04X)", curve_name(pp.curve), pp.curve);
		scheme_val(d, "kdf", &pp.kdf);
	}
	end(d);
	if (type == 0x0023) {
		group(d, "unique", "TPMS_ECC_POINT");
		tpm2b(d, "x");
		tpm2b(d, "y");
		end(d);
	} else {
		tpm2b(d, "unique");
	}
}

static void sensitive_create(struct dec *d, size_t stop)
{
	(void)stop;
	tpm2b(d, "userAuth");
	tpm2b(d, "data");
}

static void nv_public(struct dec *d, size_t stop)
{
	(void)stop;
	handle(d, "nvIndex", wire_u32(&d->r));
	alg(d, "nameAlg");
	uint32_t a = wire_u32(&d->r);
	char b[300];
	tpm_bits_str(a & ~0xF0u, tpm_nv_bits, 32, b, sizeof b);
	static const char *const nt[] = {"ORDINARY", "COUNTER",	 "BITS",    NULL,
					 "EXTEND",   "PIN_FAIL", "PIN_PASS"};
	unsigned t = (a >> 4) & 0xF;
	if (!d->r.err)
		val(d, "attributes", "0x%08X (TPM_NT_%s, %s)", a, t < 7 && nt[t] ? nt[t] : "?", b);
	tpm2b(d, "authPolicy");
	u16(d, "dataSize");
}

static void context(struct dec *d, const char *name)
{
	group(d, name, "TPMS_CONTEXT");
	u64(d, "sequence");
	handle(d, "savedHandle", wire_u32(&d->r));
	handle(d, "hierarchy", wire_u32(&d->r));
	tpm2b(d, "contextBlob");
	end(d);
}

static void ticket(struct dec *d, const char *name)
{
	group(d, name, NULL);
	uint16_t t = wire_u16(&d->r);
	const char *s = tpm_st_name(t);
	if (!d->r.err)
		val(d, "tag", "%s (0x%04X)", s ? s : "unknown", t);
	handle(d, "hierarchy", wire_u32(&d->r));
	tpm2b(d, "digest");
	end(d);
}

static void creation_data(struct dec *d, size_t stop)
{
	(void)stop;
	pcr_selection(d, "pcrSelect");
	tpm2b(d, "pcrDigest");
	u8(d, "locality");
	alg(d, "parentNameAlg");
	tpm2b(d, "parentName");
	tpm2b(d, "parentQualifiedName");
	tpm2b(d, "outsideInfo");
}

static void attest(struct dec *d, size_t stop)
{
	u32(d, "magic");
	uint16_t t = wire_u16(&d->r);
	const char *s = tpm_st_name(t);
	if (!d->r.err)
		val(d, "type", "%s (0x%04X)", s ? s : "unknown", t);
	tpm2b(d, "qualifiedSigner");
	tpm2b(d, "extraData");
	group(d, "clockInfo", NULL);
	u64(d, "clock");
	u32(d, "resetCount");
	u32(d, "restartCount");
	u8(d, "safe");
	end(d);
	u64(d, "firmwareVersion");
	if (t == 0x8018) {
		group(d, "attested", "TPMS_QUOTE_INFO");
		pcr_selection(d, "pcrSelect");
		tpm2b(d, "pcrDigest");
		end(d);
	} else {
		rest(d, "attested", stop);
	}
}

static void signature(struct dec *d, const char *name, size_t stop)
{
	group(d, name, "TPMT_SIGNATURE");
	uint16_t a = alg(d, "sigAlg");
	if (a == 0x0014 || a == 0x0016) {
		alg(d, "hash");
		tpm2b(d, "sig");
	} else if (a == 0x0018 || a == 0x001A || a == 0x001B || a == 0x001C) {
		alg(d, "hash");
		tpm2b(d, "signatureR");
		tpm2b(d, "signatureS");
	} else if (a == 0x0005) {
		digest_alg(d, "digest");
	} else if (a != 0x0010) {
		rest(d, "signature", stop);
	}
	end(d);
}

static void list_u32(struct dec *d, const char *what, int names)
{
	uint32_t n = wire_u32(&d->r);
	if (d->r.err)
		return;
	snprintf(d->txt, sizeof d->txt, "count %u", n);
	group(d, what, d->txt);
	for (uint32_t i = 0; i < n && !d->r.err; i++) {
		uint32_t v = wire_u32(&d->r);
		const char *nm = names == 1 ? tpm_cc_name(v & 0xFFFF) : NULL;
		char b[32];
		if (names == 2)
			nm = tpm_handle_kind(v, b, sizeof b);
		if (!d->r.err)
			val(d, "", "0x%08X%s%s%s", v, nm ? " (" : "", nm ? nm : "", nm ? ")" : "");
	}
	end(d);
}

static void capability_data(struct dec *d, size_t stop)
{
	group(d, "capabilityData", "TPMS_CAPABILITY_DATA");
	uint32_t cap = wire_u32(&d->r);
	const char *cn = tpm_cap_name(cap);
	if (!d->r.err)
		val(d, "capability", "TPM_CAP_%s (0x%08X)", cn ? cn : "unknown", cap);
	if (cap == 0 || cap == 6 || cap == 7 || cap == 8) {
		uint32_t n = wire_u32(&d->r);
		snprintf(d->txt, sizeof d->txt, "count %u", n);
		if (!d->r.err)
			group(d, "data", d->txt);
		for (uint32_t i = 0; i < n && !d->r.err; i++) {
			if (cap == 0) {
				uint16_t a = wire_u16(&d->r);
				uint32_t at = wire_u32(&d->r);
				const char *an = tpm_alg_name(a);
				val(d, an ? an : "alg", "0x%04X attributes 0x%08X", a, at);
			} else if (cap == 6) {
				uint32_t p = wire_u32(&d->r), v = wire_u32(&d->r);
				val(d, "property", "0x%08X value 0x%08X (%u)", p, v, v);
			} else if (cap == 7) {
				uint32_t tag = wire_u32(&d->r);
				uint8_t sz = wire_u8(&d->r);
				const uint8_t *p = wire_skip(&d->r, sz);
				if (p)
					val(d, "tag", "0x%08X sizeofSelect %u", tag, sz);
			} else {
				val(d, "curve", "0x%04X", wire_u16(&d->r));
			}
		}
		if (!d->r.err)
			end(d);
	} else if (cap == 1) {
		list_u32(d, "handles", 2);
	} else if (cap == 2 || cap == 3 || cap == 4) {
		list_u32(d, cap == 2 ? "commandAttributes" : "commandCodes", 1);
	} else if (cap == 5) {
		pcr_selection(d, "assignedPCR");
	} else {
		rest(d, "data", stop);
	}
	end(d);
}

/* ---- the parameters, by the layouts (model/tpm/walk.h) ---- */

static const char *yes_no(uint64_t v)
{
	return v ? "YES" : "NO";
}

/* An integer the walker read, by its type. */
static void int_val(struct dec *d, const struct tpm_walk_field *f)
{
	char b[300];
	const char *s;
	uint32_t v = (uint32_t)f->value;
	switch (f->type) {
	case TPM_T_TPM_ALG_ID:
		s = tpm_alg_name((uint16_t)v);
		val(d, f->name, "%s (0x%04X)", s ? s : "unknown algorithm", v);
		return;
	case TPM_T_TPM_HANDLE:
		handle(d, f->name, v);
		return;
	case TPM_T_TPMI_YES_NO:
		val(d, f->name, "%s (%u)", yes_no(v), v);
		return;
	case TPM_T_TPM_ST:
		s = tpm_st_name((uint16_t)v);
		val(d, f->name, "%s (0x%04X)", s ? s : "unknown", v);
		return;
	case TPM_T_TPM_CAP:
		s = tpm_cap_name(v);
		val(d, f->name, "TPM_CAP_%s (0x%08X)", s ? s : "unknown", v);
		return;
	case TPM_T_TPM_CC:
		s = tpm_cc_name(v);
		val(d, f->name, "TPM_CC_%s (0x%08X)", s ? s : "unknown", v);
		return;
	case TPM_T_TPM_ECC_CURVE:
		val(d, f->name, "%s (0x%04X)", curve_name((uint16_t)v), v);
		return;
	case TPM_T_TPMA_OBJECT:
		tpm_bits_str(v, tpm_obj_bits, 20, b, sizeof b);
		val(d, f->name, "0x%08X (%s)", v, b);
		return;
	case TPM_T_TPMA_NV:
		tpm_bits_str(v & ~0xF0u, tpm_nv_bits, 32, b, sizeof b);
		val(d, f->name, "0x%08X (%s)", v, b);
		return;
	}
	if (f->len == 8)
		val(d, f->name, "%llu (0x%016llX)", (unsigned long long)f->value,
		    (unsigned long long)f->value);
	else
		val(d, f->name, "%u (0x%0*X)", v, (int)f->len * 2, v);
}

/* The generic explanation: every part the walker yields, by name. */
static int generic_fn(void *ctx, const struct tpm_walk_field *f)
{
	struct dec *d = ctx;
	const struct tpm_walk_type *t = tpm_walk_type(f->type);
	char nm[16];
	const char *name = f->name;
	if (!name) {
		snprintf(nm, sizeof nm, "[%u]", f->index);
		name = nm;
	}
	struct tpm_walk_field g = *f;
	g.name = name;
	if (f->event == TPM_WE_ENTER) {
		if (t->kind == TPM_WK_SIZED && secret(d, f->data_off, f->data_len)) {
			emit(d, TPM_F_REDACTED, name, NULL, NULL, f->data_len);
			return 1;
		}
		if (t->kind == TPM_WK_SIZED || t->kind == TPM_WK_LIST)
			snprintf(d->txt, sizeof d->txt, "%s %u",
				 t->kind == TPM_WK_LIST ? "count" : "size", (unsigned)f->value);
		group(d, name, t->kind == TPM_WK_STRUCT ? t->name : d->txt);
	} else if (f->event == TPM_WE_LEAVE) {
		end(d);
	} else if (f->event == TPM_WE_FIELD) {
		if (t->kind <= TPM_WK_U64 && !secret(d, f->off, f->len))
			int_val(d, &g);
		else if (t->kind <= TPM_WK_U64)
			emit(d, TPM_F_REDACTED, name, NULL, NULL, f->len);
		else
			bytes(d, name, d->r.p + f->data_off, f->data_len);
	}
	return 0;
}

static void generic(struct dec *d, const struct tpm_walk_fld *f, size_t stop)
{
	size_t to;
	if (d->r.err)
		return;
	if (tpm_walk_value(d->r.p, d->r.off, stop, f->type, f->name, TPM_WALK_DEEP, generic_fn, d,
			   &to) < 0)
		d->r.err = 1;
	else
		d->r.off = to;
}

/* One parameter: the formatters above for the types show -V has always
 * explained so (their text is fixed by tests/golden/show_v), the generic
 * walk for the others. */
static void param(struct dec *d, const struct tpm_walk_fld *f, size_t stop)
{
	const char *n = f->name;
	struct tpm_scheme sc;
	uint8_t v8;
	switch (f->type) {
	case TPM_T_UINT8:
		u8(d, n);
		return;
	case TPM_T_UINT16:
	case TPM_T_TPM_SU:
		u16(d, n);
		return;
	case TPM_T_UINT32:
		u32(d, n);
		return;
	case TPM_T_UINT64:
		u64(d, n);
		return;
	case TPM_T_TPM_ALG_ID:
		alg(d, n);
		return;
	case TPM_T_TPM_HANDLE:
		handle(d, n, wire_u32(&d->r));
		return;
	case TPM_T_TPM_SE:
		v8 = wire_u8(&d->r);
		if (!d->r.err)
			val(d, n, "%s (0x%02X)",
			    v8 == TPM_SE_HMAC	  ? "TPM_SE_HMAC"
			    : v8 == TPM_SE_POLICY ? "TPM_SE_POLICY"
			    : v8 == TPM_SE_TRIAL  ? "TPM_SE_TRIAL"
						  : "unknown",
			    v8);
		return;
	case TPM_T_TPMI_YES_NO:
		v8 = wire_u8(&d->r);
		if (!d->r.err)
			val(d, n, "%s (%u)", yes_no(v8), v8);
		return;
	case TPM_T_TPM_CAP: {
		uint32_t c = wire_u32(&d->r);
		const char *cn = tpm_cap_name(c);
		if (!d->r.err)
			val(d, n, "TPM_CAP_%s (0x%08X)", cn ? cn : "unknown", c);
		return;
	}
	case TPM_T_TPM2B:
		tpm2b(d, n);
		return;
	case TPM_T_TPML_DIGEST_VALUES:
		digest_values(d, n);
		return;
	case TPM_T_TPML_PCR_SELECTION:
		pcr_selection(d, n);
		return;
	case TPM_T_TPML_DIGEST:
		digest_list(d, n);
		return;
	case TPM_T_TPMS_CONTEXT:
		context(d, n);
		return;
	case TPM_T_TPM2B_SENSITIVE_CREATE:
		sized(d, n, sensitive_create);
		return;
	case TPM_T_TPM2B_PUBLIC:
		sized(d, n, public_area);
		return;
	case TPM_T_TPM2B_NV_PUBLIC:
		sized(d, n, nv_public);
		return;
	case TPM_T_TPM2B_CREATION_DATA:
		sized(d, n, creation_data);
		return;
	case TPM_T_TPM2B_ATTEST:
		sized(d, n, attest);
		return;
	case TPM_T_TPMT_SYM_DEF:
	case TPM_T_TPMT_SYM_DEF_OBJECT:
		sym_def(d, n, f->type == TPM_T_TPMT_SYM_DEF_OBJECT);
		return;
	case TPM_T_TPMT_SIG_SCHEME:
		if (!d->r.err && tpm_rd_sig_scheme(&d->r, &sc) == 0)
			scheme_val(d, n, &sc);
		return;
	case TPM_T_TPMT_TK:
		ticket(d, n);
		return;
	case TPM_T_TPMT_SIGNATURE:
		signature(d, n, stop);
		return;
	case TPM_T_TPMS_CAPABILITY_DATA:
		capability_data(d, stop);
		return;
	}
	generic(d, f, stop);
}

struct by_layout {
	struct dec *d;
	const struct tpm_walk_fld *fields;
	size_t stop;
	unsigned next; /* the first parameter not explained yet */
};

/* Each parameter the walker yields (its secrets noted first), explained
 * from where the explainer's own reader is. */
static int on_param(void *ctx, const struct tpm_walk_field *f)
{
	struct by_layout *x = ctx;
	if (f->depth || f->event != TPM_WE_FIELD)
		return 0;
	if (f->secret)
		add_secret(x->d, f->data_off, f->data_len);
	x->d->param_off = x->d->r.off;
	param(x->d, &x->fields[f->index], x->stop);
	x->next = f->index + 1;
	return 0;
}

/* The parameters by the layout, from the reader's position to stop. */
static void by_layout(struct dec *d, const struct tpm_walk_fld *fields, size_t stop)
{
	struct by_layout x = {d, fields, stop, 0};
	tpm_walk_params(d->r.p, d->r.off, stop, fields, 0, on_param, &x, NULL);
	/* Where the walk stopped, the rest is explained as far as it goes
	 * (what parsed of the parameter, then the error). */
	for (unsigned i = x.next; fields && fields[i].name; i++) {
		d->param_off = d->r.off;
		param(d, &fields[i], stop);
	}
	d->param_off = SIZE_MAX;
}

int tpm_params_known(uint32_t cc)
{
	const struct tpm_cc_layout *l = tpm_cc_layout(cc);
	return l && l->full;
}

/* ---- whole messages ---- */

/* The handles' names in the Part 3 tables ("handleN" for the others). */
static const char *handle_name(uint32_t cc, int rsp, unsigned i)
{
	static const char *const generic_names[3] = {"handle1", "handle2", "handle3"};
	const struct tpm_cc_layout *l = tpm_cc_layout(cc);
	const char *n = NULL;
	if (l && rsp)
		n = l->rsp_handle;
	for (unsigned k = 0; l && !rsp && l->handles && l->handles[k] && k <= i; k++)
		n = k == i ? l->handles[k] : NULL;
	return n ? n : generic_names[i < 3 ? i : 0];
}

static void header(struct dec *d, uint16_t tag, uint32_t size, const char *code_name, uint32_t code,
		   const char *code_text)
{
	const char *t = tpm_st_name(tag);
	group(d, "Header", NULL);
	val(d, "tag", "%s (0x%04X)", t ? t : "unknown", tag);
	val(d, code_name[0] == 'c' ? "commandSize" : "responseSize", "%u", size);
	val(d, code_name, "%s (0x%08X)", code_text, code);
	end(d);
}

static void sessions(struct dec *d, const struct tpm_session *s, unsigned n, uint32_t auth_size,
		     int cmd)
{
	if (cmd)
		snprintf(d->txt, sizeof d->txt, "authorizationSize %u, %u session%s", auth_size, n,
			 n == 1 ? "" : "s");
	else
		snprintf(d->txt, sizeof d->txt, "%u session%s", n, n == 1 ? "" : "s");
	group(d, "Authorization area", d->txt);
	for (unsigned i = 0; i < n; i++) {
		char nm[16], b[120];
		snprintf(nm, sizeof nm, "Session %u", i + 1);
		group(d, nm, NULL);
		if (cmd)
			handle(d, "sessionHandle", s[i].handle);
		bytes(d, "nonce", d->r.p + s[i].nonce_off, s[i].nonce_size);
		tpm_bits_str(s[i].attrs, tpm_sess_bits, 8, b, sizeof b);
		val(d, "sessionAttributes", "0x%02X (%s)", s[i].attrs, b);
		if (cmd &&
		    (s[i].handle == TPM_RS_PW || tpm_ht_of(s[i].handle) == TPM_HT_POLICY_SESSION))
			add_secret(d, s[i].hmac_off, s[i].hmac_size);
		bytes(d, cmd && s[i].handle == TPM_RS_PW ? "password" : "hmac",
		      d->r.p + s[i].hmac_off, s[i].hmac_size);
		end(d);
	}
	end(d);
}

static int params(struct dec *d, int is_cmd, uint32_t cc, size_t off, size_t stop)
{
	const struct tpm_cc_layout *l = tpm_cc_layout(cc);
	d->r.off = off;
	d->r.len = stop;
	if (stop <= off && tpm_params_known(cc))
		return 0;
	snprintf(d->txt, sizeof d->txt, "%zu bytes", stop > off ? stop - off : 0);
	group(d, "Parameters", d->txt);
	int ret = 0;
	if (!tpm_params_known(cc)) {
		rest(d, "(no layout here) bytes", stop);
		ret = 1;
	} else {
		by_layout(d, is_cmd ? l->cmd : l->rsp, stop);
		if (d->r.err || d->r.off != stop) {
			if (!d->r.err && d->r.off < stop)
				rest(d, "? trailing bytes", stop);
			ret = fail(d, "parameters");
		}
	}
	end(d);
	return ret;
}

int tpm_explain_cmd(const uint8_t *buf, size_t len, int redacted, tpm_field_fn fn, void *ctx)
{
	struct dec d = {.fn = fn, .ctx = ctx, .redacted = redacted, .param_off = SIZE_MAX};
	struct tpm_cmd c;
	wire_rd_init(&d.r, buf, len);
	tpm_cmd_decode(buf, len, &c);
	if (len < TPM_HEADER_SIZE)
		return fail(&d, "header");
	const char *nm = c.info ? c.info->name : NULL;
	char code_text[64];
	snprintf(code_text, sizeof code_text, "TPM_CC_%s", nm ? nm : "unknown");
	header(&d, c.tag, c.size, "commandCode", c.cc, code_text);
	if (c.malformed) {
		snprintf(d.txt, sizeof d.txt, "? malformed: %s", tpm_malformed_str(c.malformed));
		emit(&d, TPM_F_ERROR, "message", d.txt, NULL, 0);
		return -1;
	}
	if (c.n_handles) {
		group(&d, "Handles", NULL);
		for (unsigned i = 0; i < c.n_handles; i++) {
			handle(&d, handle_name(c.cc, 0, i), c.handles[i]);
		}
		end(&d);
	}
	if (c.tag == TPM_ST_SESSIONS)
		sessions(&d, c.sess, c.n_sessions, c.auth_size, 1);
	return params(&d, 1, c.cc, c.param_off, (size_t)c.param_off + c.param_size);
}

int tpm_explain_rsp(const uint8_t *buf, size_t len, const uint8_t *cmd, size_t cmd_len,
		    int redacted, tpm_field_fn fn, void *ctx)
{
	struct dec d = {.fn = fn, .ctx = ctx, .redacted = redacted, .param_off = SIZE_MAX};
	struct tpm_cmd c;
	struct tpm_rsp r;
	memset(&c, 0, sizeof c);
	if (cmd)
		tpm_cmd_decode(cmd, cmd_len, &c);
	uint32_t cc = cmd && !c.malformed ? c.cc : 0;
	wire_rd_init(&d.r, buf, len);
	tpm_rsp_decode(buf, len, cc, &r);
	if (len < TPM_HEADER_SIZE)
		return fail(&d, "header");
	header(&d, r.tag, r.size, "responseCode", r.rc, tpm_rc_str(r.rc));
	if (r.malformed) {
		snprintf(d.txt, sizeof d.txt, "? malformed: %s", tpm_malformed_str(r.malformed));
		emit(&d, TPM_F_ERROR, "message", d.txt, NULL, 0);
		return -1;
	}
	if (r.rc || !cc)
		return 0;
	if (r.n_handles) {
		group(&d, "Handles", NULL);
		handle(&d, handle_name(cc, 1, 0), r.handle);
		end(&d);
	}
	size_t stop = (size_t)r.param_off + r.param_size;
	int ret = params(&d, 0, cc, r.param_off, stop);
	d.r.len = len;
	if (r.tag == TPM_ST_SESSIONS)
		sessions(&d, r.sess, r.n_sessions, 0, 0);
	return ret;
}

int tpm_field_format(const struct tpm_field *f, char *out, size_t n)
{
	const char *name = f->name ? f->name : "";
	const char *sep = name[0] ? ": " : "";
	switch (f->kind) {
	case TPM_F_GROUP:
		return snprintf(out, n, "%s%s%s", name, f->value ? sep : "",
				f->value ? f->value : "");
	case TPM_F_VALUE:
	case TPM_F_ERROR:
		return snprintf(out, n, "%s%s%s", name, sep, f->value ? f->value : "");
	case TPM_F_REDACTED:
		return snprintf(out, n, "%s%ssize %zu <redacted>", name, sep, f->n_bytes);
	}
	int l = snprintf(out, n, "%s%ssize %zu%s", name, sep, f->n_bytes, f->n_bytes ? " " : "");
	for (size_t i = 0; i < f->n_bytes; i++) {
		if (l >= 0 && (size_t)l + 2 < n)
			snprintf(out + l, n - (size_t)l, "%02x", f->bytes[i]);
		l += 2;
	}
	return l;
}
