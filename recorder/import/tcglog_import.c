/* TCG firmware event logs (recorder/import/tcglog_import.h): tcg_parse and
 * tcg_parse_mem read the SHA-1 format and the crypto-agile one (the banks and
 * digest sizes from the Spec ID event), check every event's sizes, name its
 * type (tcg_event_type_str) and describe its data, and hand it to a callback.
 * tcg_import_file stores a log as a trace through log_store.h: a Startup at the
 * locality of the StartupLocality event before the first row, then for each
 * event an event row and, unless it is EV_NO_ACTION, one synthesized PCR_Extend
 * with its digests. Input through log_reader.h. */
#include "recorder/import/tcglog_import.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/import/log_store.h"

#define DESC_CAP       512
#define MAX_EVENT_DATA (16u << 20)

static const struct {
	uint32_t type;
	const char *name;
} ev_names[] = {
    {0x00000000, "EV_PREBOOT_CERT"},
    {0x00000001, "EV_POST_CODE"},
    {0x00000002, "EV_UNUSED"},
    {0x00000003, "EV_NO_ACTION"},
    {0x00000004, "EV_SEPARATOR"},
    {0x00000005, "EV_ACTION"},
    {0x00000006, "EV_EVENT_TAG"},
    {0x00000007, "EV_S_CRTM_CONTENTS"},
    {0x00000008, "EV_S_CRTM_VERSION"},
    {0x00000009, "EV_CPU_MICROCODE"},
    {0x0000000A, "EV_PLATFORM_CONFIG_FLAGS"},
    {0x0000000B, "EV_TABLE_OF_DEVICES"},
    {0x0000000C, "EV_COMPACT_HASH"},
    {0x0000000D, "EV_IPL"},
    {0x0000000E, "EV_IPL_PARTITION_DATA"},
    {0x0000000F, "EV_NONHOST_CODE"},
    {0x00000010, "EV_NONHOST_CONFIG"},
    {0x00000011, "EV_NONHOST_INFO"},
    {0x00000012, "EV_OMIT_BOOT_DEVICE_EVENTS"},
    {0x80000000, "EV_EFI_EVENT_BASE"},
    {0x80000001, "EV_EFI_VARIABLE_DRIVER_CONFIG"},
    {0x80000002, "EV_EFI_VARIABLE_BOOT"},
    {0x80000003, "EV_EFI_BOOT_SERVICES_APPLICATION"},
    {0x80000004, "EV_EFI_BOOT_SERVICES_DRIVER"},
    {0x80000005, "EV_EFI_RUNTIME_SERVICES_DRIVER"},
    {0x80000006, "EV_EFI_GPT_EVENT"},
    {0x80000007, "EV_EFI_ACTION"},
    {0x80000008, "EV_EFI_PLATFORM_FIRMWARE_BLOB"},
    {0x80000009, "EV_EFI_HANDOFF_TABLES"},
    {0x8000000A, "EV_EFI_PLATFORM_FIRMWARE_BLOB2"},
    {0x8000000B, "EV_EFI_HANDOFF_TABLES2"},
    {0x8000000C, "EV_EFI_VARIABLE_BOOT2"},
    {0x80000010, "EV_EFI_HCRTM_EVENT"},
    {0x800000E0, "EV_EFI_VARIABLE_AUTHORITY"},
    {0x800000E1, "EV_EFI_SPDM_FIRMWARE_BLOB"},
    {0x800000E2, "EV_EFI_SPDM_FIRMWARE_CONFIG"},
};

const char *tcg_event_type_str(uint32_t type)
{
	for (size_t i = 0; i < sizeof(ev_names) / sizeof(ev_names[0]); i++)
		if (ev_names[i].type == type)
			return ev_names[i].name;
	return NULL;
}

struct parser {
	const char *label;
	tcg_msg_fn msg;
	void *ctx;
	struct tcg_result *res;
	char *err;
	size_t errlen;
	unsigned n_algs;
	uint16_t alg[PCR_MAX_BANKS];
	uint16_t size[PCR_MAX_BANKS];
	char desc[DESC_CAP + 1];
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
	snprintf(ps->err, ps->errlen, "%s: event %llu at offset %llu: %s", ps->label,
		 (unsigned long long)index, (unsigned long long)off, m);
	return -EINVAL;
}

/* Text of event data that is ASCII or UCS-2 (versions, actions, boot entries). */
static size_t printable(const uint8_t *p, size_t n, char *out, size_t cap)
{
	size_t k = 0;
	int ucs2 = n >= 4 && n % 2 == 0 && p[1] == 0 && p[0];
	size_t step = ucs2 ? 2 : 1;
	for (size_t i = 0; i + step <= n; i += step) {
		uint8_t c = p[i];
		if (ucs2 && p[i + 1])
			return 0;
		if (!c) {
			/* trailing NULs only */
			for (size_t j = i; j < n; j++)
				if (p[j])
					return 0;
			break;
		}
		if (c < 0x20 || c > 0x7e) {
			if (c == '\n' || c == '\t' || c == '\r')
				c = ' ';
			else
				return 0;
		}
		if (k + 1 < cap)
			out[k++] = (char)c;
	}
	out[k] = 0;
	return k;
}

static void describe(struct parser *ps, const struct tcg_event *e)
{
	const char *tn = tcg_event_type_str(e->type);
	char text[200];
	int n = tn ? snprintf(ps->desc, sizeof ps->desc, "%s", tn)
		   : snprintf(ps->desc, sizeof ps->desc, "0x%08x", e->type);
	size_t rest = sizeof ps->desc - (size_t)n;
	char *d = ps->desc + n;

	if (e->startup_locality >= 0) {
		snprintf(d, rest, " StartupLocality %d", e->startup_locality);
		return;
	}
	/* UEFI_VARIABLE_DATA (EV_EFI_VARIABLE_DRIVER_CONFIG, _BOOT, _BOOT2 and
	 * _AUTHORITY): GUID, u64 name chars, u64 data bytes, UCS-2 name. */
	if (e->type == 0x80000001 || e->type == 0x80000002 || e->type == 0x8000000C ||
	    (e->type == 0x800000E0 && e->data_len > 40)) {
		struct wire_rd r;
		wire_rd_init(&r, e->data, e->data_len);
		wire_skip(&r, 16);
		uint64_t nc = wire_u64_le(&r);
		wire_u64_le(&r);
		const uint8_t *name = nc < 100 ? wire_skip(&r, (size_t)nc * 2) : NULL;
		if (name && printable(name, (size_t)nc * 2, text, sizeof text)) {
			snprintf(d, rest, " %s", text);
			return;
		}
	}
	if (e->data_len && printable(e->data, e->data_len, text, sizeof text)) {
		snprintf(d, rest, " \"%s\"", text);
		return;
	}
	snprintf(d, rest, " (%u bytes)", e->data_len);
}

static int truncated(struct parser *ps, uint64_t index, uint64_t off, size_t have, size_t need)
{
	ps->res->tail = (struct log_tail){1, off, have};
	import_log_say(
	    ps->msg, ps->ctx, 0,
	    "%s: truncated event at offset %llu (event %llu): the file ends %zu bytes into an "
	    "event of at least %zu bytes; those bytes are ignored",
	    ps->label, (unsigned long long)off, (unsigned long long)index, have, need);
	return 0;
}

static int all_fill(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0 && p[i] != 0xff)
			return 0;
	return 1;
}

/* The rest of the log area: firmware reserves a fixed region, and some
 * copies keep its zero or 0xff fill after the last event. */
static int only_fill_left(struct log_rd *rd)
{
	size_t avail;
	for (;;) {
		const uint8_t *p = import_log_rd_peek(rd, 1, &avail);
		if (!p)
			return 1;
		p = import_log_rd_peek(rd, avail, &avail);
		if (!all_fill(p, avail))
			return 0;
		import_log_rd_consume(rd, avail);
	}
}

/* "Spec ID Event03" (PFP 9.4.5.1, TCG_EfiSpecIdEvent): signature[16],
 * platformClass u32, version minor/major, errata, uintnSize, u32
 * numberOfAlgorithms, {u16 algorithmId, u16 digestSize}[], u8 vendorInfoSize,
 * vendorInfo. Everything little-endian. */
static int read_spec_id(struct parser *ps, const uint8_t *p, uint32_t n, uint64_t off)
{
	struct wire_rd r;
	wire_rd_init(&r, p, n);
	wire_skip(&r, 16 + 4 + 4);
	uint32_t na = wire_u32_bo(&r, 0);
	if (r.err)
		return fail(ps, 0, off,
			    "Spec ID event of %u bytes, too short for its 28-byte header", n);
	if (na == 0 || na > PCR_MAX_BANKS)
		return fail(ps, 0, off, "Spec ID event lists %u algorithms (1 to %u taken)", na,
			    PCR_MAX_BANKS);
	if (wire_left(&r) < 4 * (size_t)na)
		return fail(ps, 0, off,
			    "Spec ID event of %u bytes, too short for the %u algorithms it lists",
			    n, na);
	for (uint32_t i = 0; i < na; i++) {
		ps->alg[i] = wire_u16_bo(&r, 0);
		ps->size[i] = wire_u16_bo(&r, 0);
		const struct pcr_alg *a = pcr_alg_by_id(ps->alg[i]);
		if (r.err || !ps->size[i] || ps->size[i] > PCR_MAX_DIGEST)
			return fail(ps, 0, off, "Spec ID event: bad digest size %u", ps->size[i]);
		if (a && a->size != ps->size[i])
			return fail(ps, 0, off, "Spec ID event: %s with digest size %u", a->name,
				    ps->size[i]);
		ps->res->algs[i] = ps->alg[i];
	}
	ps->n_algs = na;
	ps->res->n_algs = na;
	uint8_t vs = wire_u8(&r);
	wire_skip(&r, vs);
	if (r.err)
		return fail(ps, 0, off, "Spec ID event shorter than its algorithm list");
	return 0;
}

static int startup_locality(const uint8_t *p, uint32_t n)
{
	/* PFP 10.4.5.3: "StartupLocality\0" then the locality byte. */
	static const char sig[16] = "StartupLocality";
	if (n < 17 || memcmp(p, sig, 16))
		return -1;
	return p[16];
}

/* The fields of one event of len bytes at p (its sizes checked): in the
 * SHA-1 format or with the Spec ID event's digests; data size dl. Returns
 * non-zero if the bytes ran out (a length error of the caller's). */
static int tcg_read_event(const struct parser *ps, struct tcg_event *e, const uint8_t *p,
			  size_t len, int sha1_fmt, uint32_t dl)
{
	struct wire_rd r;
	wire_rd_init(&r, p, len);
	e->pcr = wire_u32_bo(&r, 0);
	e->type = wire_u32_bo(&r, 0);
	if (sha1_fmt) {
		e->digests.n = 1;
		e->digests.v[0].alg = TPM_ALG_SHA1;
		e->digests.v[0].size = 20;
		const uint8_t *d = wire_skip(&r, 20);
		if (d)
			memcpy(e->digests.v[0].d, d, 20);
	} else {
		e->digests.n = wire_u32_bo(&r, 0);
		for (unsigned i = 0; i < e->digests.n; i++) {
			struct pcr_digest *x = &e->digests.v[i];
			x->alg = wire_u16_bo(&r, 0);
			unsigned k = 0;
			while (k + 1 < ps->n_algs && ps->alg[k] != x->alg)
				k++;
			x->size = ps->size[k];
			const uint8_t *d = wire_skip(&r, x->size);
			if (d)
				memcpy(x->d, d, x->size);
		}
	}
	wire_u32_bo(&r, 0);
	e->data = wire_skip(&r, dl);
	e->data_len = dl;
	return r.err;
}

int tcg_parse(struct log_rd *rd, const char *label, tcg_event_fn cb, tcg_msg_fn msg, void *ctx,
	      struct tcg_result *res, char *err, size_t errlen)
{
	struct parser ps = {.label = label ? label : "<memory>",
			    .msg = msg,
			    .ctx = ctx,
			    .err = err,
			    .errlen = errlen};
	struct tcg_result r0;
	struct tcg_event e;
	int rc = 0;

	if (!res)
		res = &r0;
	memset(res, 0, sizeof(*res));
	res->startup_locality = -1;
	ps.res = res;
	for (uint64_t index = 0;; index++) {
		size_t avail, need;
		uint64_t off = log_rd_offset(rd);
		if (index >= TCG_MAX_EVENTS)
			return fail(&ps, index, off,
				    "more than %u events: not a firmware event log this importer "
				    "takes",
				    TCG_MAX_EVENTS);
		const uint8_t *p = import_log_rd_peek(rd, 8, &avail);
		if (!p) {
			if (avail && !only_fill_left(rd))
				return truncated(&ps, index, off, avail, 8);
			break;
		}
		memset(&e, 0, sizeof e);
		e.index = index;
		e.offset = off;
		e.startup_locality = -1;
		int sha1_fmt = index == 0 || !res->crypto_agile;
		/* The first event is always in the SHA-1 format (TCG_PCR_EVENT):
		 * pcr, type, 20-byte digest, u32 size, data. TCG_PCR_EVENT2 has a
		 * TPML_DIGEST_VALUES in place of the digest. */
		if (sha1_fmt) {
			need = 32;
		} else {
			if (!(p = import_log_rd_peek(rd, 12, &avail)))
				goto short_event;
			uint32_t cnt = get_u32_bo(p + 8, 0);
			if (cnt == 0 && get_u32_bo(p, 0) == 0 && get_u32_bo(p + 4, 0) == 0 &&
			    only_fill_left(rd))
				break;
			if (cnt > PCR_MAX_BANKS)
				return fail(&ps, index, off, "digest count %u", cnt);
			need = 12;
			for (uint32_t i = 0; i < cnt; i++) {
				if (!(p = import_log_rd_peek(rd, need + 2, &avail)))
					goto short_event;
				uint16_t alg = (uint16_t)(p[need] | p[need + 1] << 8);
				unsigned k = 0;
				while (k < ps.n_algs && ps.alg[k] != alg)
					k++;
				if (k == ps.n_algs)
					return fail(
					    &ps, index, off,
					    "digest algorithm 0x%04x not in the Spec ID event",
					    alg);
				need += 2 + ps.size[k];
			}
			need += 4;
		}
		if (!(p = import_log_rd_peek(rd, need, &avail)))
			goto short_event;
		uint32_t dl = get_u32_bo(p + need - 4, 0);
		if (sha1_fmt && index > 0 && dl == 0 && get_u32_bo(p + 4, 0) == 0 &&
		    all_fill(p, need) && only_fill_left(rd))
			break;
		if (dl > MAX_EVENT_DATA)
			return fail(&ps, index, off, "event data size %u", dl);
		if (!(p = import_log_rd_peek(rd, need + dl, &avail))) {
			need += dl;
			goto short_event;
		}
		if (tcg_read_event(&ps, &e, p, need + dl, sha1_fmt, dl))
			return fail(&ps, index, off, "internal length error");
		e.no_action = e.type == EV_NO_ACTION;
		if (index == 0 && e.no_action && dl >= 16 &&
		    !memcmp(e.data, "Spec ID Event03", 16)) {
			rc = read_spec_id(&ps, e.data, dl, off);
			if (rc)
				return rc;
			res->crypto_agile = 1;
		}
		if (e.no_action) {
			e.startup_locality = startup_locality(e.data, dl);
			if (e.startup_locality >= 0) {
				if (res->extends)
					import_log_say(
					    ps.msg, ps.ctx, 0,
					    "%s: event %llu at offset %llu: StartupLocality after "
					    "the first measurement",
					    ps.label, (unsigned long long)index,
					    (unsigned long long)off);
				res->startup_locality = e.startup_locality;
			}
		} else {
			res->extends++;
		}
		res->events++;
		describe(&ps, &e);
		e.desc = ps.desc;
		if (cb && (rc = cb(ctx, &e)))
			return rc;
		import_log_rd_consume(rd, need + dl);
		continue;
	short_event:
		if (rd->io_err)
			break;
		return truncated(&ps, index, off, avail, need);
	}
	if (rd->io_err) {
		import_log_rd_error(rd, ps.label, err, errlen);
		return -rd->io_err;
	}
	if (rd->too_big)
		return fail(&ps, res->events, log_rd_offset(rd), "event larger than %u bytes",
			    LOG_RD_MAX_RECORD);
	return 0;
}

int tcg_parse_mem(const uint8_t *p, size_t len, const char *label, tcg_event_fn cb, tcg_msg_fn msg,
		  void *ctx, struct tcg_result *res, char *err, size_t errlen)
{
	struct log_rd rd;
	import_log_rd_open_mem(&rd, p, len);
	int rc = tcg_parse(&rd, label, cb, msg, ctx, res, err, errlen);
	import_log_rd_close(&rd);
	return rc;
}

/* ---- import into a database ---- */

struct import_ctx {
	struct log_sink sink;
	const struct tcg_import_cfg *cfg;
	struct tcg_result *res;
	const char *path;
	int started;
	char *err;
	size_t errlen;
};

static void import_msg(void *vctx, int sev, const char *m)
{
	struct import_ctx *ic = vctx;
	if (ic->cfg->msg)
		ic->cfg->msg(ic->cfg->msg_ctx, sev, m);
}

static int import_event(void *vctx, const struct tcg_event *e)
{
	struct import_ctx *ic = vctx;
	int rc = 0;
	/* Firmware sends TPM2_Startup before measuring: one at the locality
	 * the log names, before the first stored row. */
	if (!ic->started && (e->startup_locality >= 0 || !e->no_action)) {
		rc = import_log_sink_startup(
		    &ic->sink, (uint8_t)(e->startup_locality >= 0 ? e->startup_locality : 0));
		ic->started = 1;
	}
	if (!rc)
		rc = import_log_sink_event(&ic->sink, "tcg", e->desc);
	if (!rc && !e->no_action && e->pcr >= PCR_COUNT) {
		import_log_bad_pcr(&ic->res->bad_pcr, e->pcr, import_msg, ic,
				   "%s: event %llu at offset %llu", ic->path,
				   (unsigned long long)e->index, (unsigned long long)e->offset);
		return 0;
	}
	if (!rc && !e->no_action)
		rc = import_log_sink_extend(&ic->sink, e->pcr, 0, &e->digests);
	if (rc)
		snprintf(ic->err, ic->errlen, "cannot store event %llu: %s",
			 (unsigned long long)e->index, strerror(-rc));
	return rc;
}

int tcg_import_file(const char *path, const struct tcg_import_cfg *cfg, int64_t *trace_id,
		    struct tcg_result *res, char *err, size_t errlen)
{
	struct import_ctx ic = {.cfg = cfg, .path = path, .err = err, .errlen = errlen};
	struct tcg_result r0;
	struct log_rd rd;

	if (!res)
		res = &r0;
	memset(res, 0, sizeof(*res));
	ic.res = res;
	int rc = import_log_import_begin(&ic.sink, &rd, cfg->db_path, cfg->name, "tcglog", path,
					 cfg->follow, "TCG firmware event log", err, errlen);
	if (rc)
		return rc;
	ic.sink.keep_partial = cfg->keep_partial;
	rc = tcg_parse(&rd, path, import_event, import_msg, &ic, res, err, errlen);
	if (!rc && !ic.started)
		rc = import_log_sink_startup(&ic.sink, 0);
	rc = import_log_import_end(&ic.sink, &rd, rc, cfg->db_path, path, cfg->strict, "event",
				   &res->tail, err, errlen);
	*trace_id = ic.sink.trace_id;
	res->stored_commands = ic.sink.commands;
	res->stored_events = ic.sink.events;
	return rc;
}
