/* The walker over the structure and command layouts (walk.h): one reader
 * of every TPM 2.0 message by the tables tpm_types.def and
 * tpm_cc_layout.def, through wire.h's sticky-error reader. */
#include "model/tpm/walk.h"

#include <string.h>

#include "model/tpm/params.h"

/* ---- the tables ---- */

#define F(n, t)                                                                                    \
	{                                                                                          \
#n, TPM_T_##t, 0, -1                                                               \
	}
#define S(n, t)                                                                                    \
	{                                                                                          \
#n, TPM_T_##t, 1, -1                                                               \
	}
#define U(n, t, i)                                                                                 \
	{                                                                                          \
#n, TPM_T_##t, 0, i                                                                \
	}
#define A(v, t)                                                                                    \
	{                                                                                          \
		v, TPM_T_##t                                                                       \
	}
#define FIELDS(...)                                                                                \
	.fields = (const struct tpm_walk_fld[])                                                    \
	{                                                                                          \
		__VA_ARGS__,                                                                       \
		{                                                                                  \
			NULL, 0, 0, 0                                                              \
		}                                                                                  \
	}
#define ARMS(...)                                                                                  \
	.arms = (const struct tpm_walk_arm[])                                                      \
	{                                                                                          \
		__VA_ARGS__,                                                                       \
		{                                                                                  \
			0, TPM_T_NONE                                                              \
		}                                                                                  \
	}

static const struct tpm_walk_type types[TPM_T__COUNT] = {
#define TPM_TYPE(name_, kind_, sub_, parts)                                                        \
	[TPM_T_##name_] = {.name = #name_, .kind = kind_, .sub = TPM_T_##sub_, parts},
#include "model/tpm/tpm_types.def"
#undef TPM_TYPE
};

#define H(...)                                                                                     \
	(const char *const[])                                                                      \
	{                                                                                          \
		__VA_ARGS__, NULL                                                                  \
	}
#define NOH NULL
#define P(...)                                                                                     \
	(const struct tpm_walk_fld[])                                                              \
	{                                                                                          \
		__VA_ARGS__,                                                                       \
		{                                                                                  \
			NULL, 0, 0, 0                                                              \
		}                                                                                  \
	}
#define NOP NULL

#define CC_FIRST 0x11Fu
#define CC_LAST	 0x1A1u

/* Indexed by code - CC_FIRST, as tpm_cc.c's table. */
static const struct tpm_cc_layout by_code[CC_LAST - CC_FIRST + 1] = {
#define TPM_LAYOUT(name_, full_, h, rh, c, r)                                                      \
	[TPM_CC_##name_ - CC_FIRST] = {#name_, TPM_CC_##name_, full_, h, rh, c, r},
#include "model/tpm/tpm_cc_layout.def"
#undef TPM_LAYOUT
};

/* Part 2 6.5.2: the TCG's test code (tpm_cc.c); its data in and out are
 * opaque, so secret. */
static const struct tpm_cc_layout vendor_test = {
    "Vendor_TCG_Test",	    TPM_CC_Vendor_TCG_Test,  1, NULL, NULL,
    P(S(inputData, TPM2B)), P(S(outputData, TPM2B)),
};

/* Every command of tpm_cc.def has a layout: the layouts name commands that
 * exist (TPM_CC_ constants), none twice (-Woverride-init), and there are as
 * many as commands. */
enum {
	N_CC_ROWS = 0
#define TPM_CC(...) +1
#include "model/tpm/tpm_cc.def"
#undef TPM_CC
	,
	N_LAYOUT_ROWS = 0
#define TPM_LAYOUT(...) +1
#include "model/tpm/tpm_cc_layout.def"
#undef TPM_LAYOUT
};
_Static_assert(N_CC_ROWS == N_LAYOUT_ROWS,
	       "every row of tpm_cc.def needs a row of tpm_cc_layout.def");

const struct tpm_walk_type *tpm_walk_type(unsigned type)
{
	return type < TPM_T__COUNT ? &types[type] : NULL;
}

const struct tpm_cc_layout *tpm_cc_layout(uint32_t cc)
{
	if (cc >= CC_FIRST && cc <= CC_LAST) {
		const struct tpm_cc_layout *l = &by_code[cc - CC_FIRST];
		return l->name ? l : NULL;
	}
	return cc == TPM_CC_Vendor_TCG_Test ? &vendor_test : NULL;
}

const struct tpm_cc_layout *tpm_cc_layout_at(unsigned i)
{
	const struct tpm_cc_info *info = tpm_cc_at(i);
	return info ? tpm_cc_layout(info->cc) : NULL;
}

/* ---- the walker ---- */

struct walker {
	struct wire_rd r;
	tpm_walk_fn fn;
	void *ctx;
	int deep;
	unsigned quiet; /* > 0: parts read without events (a skipped structure) */
};

static int say(struct walker *w, struct tpm_walk_field *f)
{
	if (w->quiet || (!w->deep && f->depth))
		return 0;
	return w->fn(w->ctx, f);
}

static int walk_type(struct walker *w, struct tpm_walk_field *f, uint64_t sel);

/* A structure's fields in order, each union or digest given its sibling's
 * value as selector. */
static int walk_struct(struct walker *w, const struct tpm_walk_type *t,
		       const struct tpm_walk_field *p)
{
	uint64_t vals[16] = {0};
	for (unsigned i = 0; t->fields && t->fields[i].name; i++) {
		const struct tpm_walk_fld *fl = &t->fields[i];
		struct tpm_walk_field c = {.area = p->area,
					   .name = fl->name,
					   .type = fl->type,
					   .depth = p->depth + 1,
					   .index = i,
					   .secret = p->secret || fl->secret};
		if (walk_type(w, &c, fl->sel >= 0 && fl->sel < 16 ? vals[fl->sel] : 0) < 0)
			return -1;
		if (i < 16)
			vals[i] = c.value;
	}
	return 0;
}

static int walk_list(struct walker *w, const struct tpm_walk_type *t, struct tpm_walk_field *f)
{
	for (uint64_t i = 0; i < f->value; i++) {
		struct tpm_walk_field c = {.area = f->area,
					   .type = t->sub,
					   .depth = f->depth + 1,
					   .index = (unsigned)i,
					   .secret = f->secret};
		if (walk_type(w, &c, 0) < 0)
			return -1;
	}
	return 0;
}

/* A structure, list or SIZED: its header read (f->value, data), then its
 * parts between ENTER and LEAVE when deep, or one FIELD at the end. */
static int walk_composite(struct walker *w, const struct tpm_walk_type *t, struct tpm_walk_field *f)
{
	int top = !w->deep && !w->quiet && f->depth == 0;
	int skip = 0;
	if (!top) {
		f->event = TPM_WE_ENTER;
		skip = say(w, f) == 1;
	}
	if (skip && t->kind == TPM_WK_SIZED) {
		wire_skip(&w->r, f->data_len);
	} else {
		w->quiet += skip;
		int rc;
		if (t->kind == TPM_WK_SIZED) {
			size_t len = w->r.len, stop = f->data_off + f->data_len;
			w->r.len = stop;
			struct tpm_walk_field c = *f;
			c.type = t->sub;
			c.depth = f->depth + 1;
			c.index = 0;
			rc = f->data_len ? walk_type(w, &c, 0) : 0; /* an empty TPM2B: none */
			if (!rc && w->r.off != stop)
				w->r.err = 1, rc = -1;
			w->r.len = len;
		} else if (t->kind == TPM_WK_LIST) {
			rc = walk_list(w, t, f);
		} else {
			rc = walk_struct(w, t, f);
		}
		w->quiet -= skip;
		if (rc < 0)
			return -1;
	}
	f->len = w->r.off - f->off;
	f->event = top ? TPM_WE_FIELD : TPM_WE_LEAVE;
	say(w, f);
	return 0;
}

static const struct tpm_walk_type *union_arm(const struct tpm_walk_type *t, uint64_t sel)
{
	for (unsigned i = 0; t->arms && t->arms[i].type != TPM_T_NONE; i++)
		if (t->arms[i].value == sel)
			return &types[t->arms[i].type];
	return t->sub != TPM_T_NONE ? &types[t->sub] : NULL;
}

static int walk_type(struct walker *w, struct tpm_walk_field *f, uint64_t sel)
{
	const struct tpm_walk_type *t = &types[f->type];
	static const uint8_t int_size[] = {1, 2, 4, 8};
	f->off = w->r.off;
	if (t->kind == TPM_WK_UNION) {
		t = union_arm(t, sel);
		if (!t) {
			w->r.err = 1; /* a selector the union does not have */
			return -1;
		}
		f->type = (unsigned)(t - types);
	}
	switch (t->kind) {
	case TPM_WK_U8:
	case TPM_WK_U16:
	case TPM_WK_U32:
	case TPM_WK_U64:
		f->len = int_size[t->kind - TPM_WK_U8];
		f->value = f->len == 1	 ? wire_u8(&w->r)
			   : f->len == 2 ? wire_u16(&w->r)
			   : f->len == 4 ? wire_u32(&w->r)
					 : wire_u64(&w->r);
		f->data_off = f->off;
		f->data_len = f->len;
		break;
	case TPM_WK_TPM2B:
	case TPM_WK_SIZED:
	case TPM_WK_SELECT:
	case TPM_WK_DIGEST:
		if (t->kind == TPM_WK_DIGEST) {
			f->value = tpm_alg_digest_size((uint16_t)sel);
			if (!f->value)
				w->r.err = 1; /* not a hash tpmtrace knows */
		} else {
			f->value = t->kind == TPM_WK_SELECT ? wire_u8(&w->r) : wire_u16(&w->r);
		}
		f->data_off = w->r.off;
		f->data_len = (size_t)f->value;
		if (!wire_need(&w->r, f->data_len))
			return -1;
		f->len = f->data_off + f->data_len - f->off;
		if (t->kind == TPM_WK_SIZED && (w->deep || f->depth))
			return walk_composite(w, t, f);
		w->r.off += f->data_len;
		break;
	case TPM_WK_REST:
		f->data_off = f->off;
		f->data_len = f->len = w->r.len - w->r.off;
		w->r.off = w->r.len;
		break;
	case TPM_WK_LIST:
		f->value = wire_u32(&w->r);
		f->data_off = w->r.off;
		if (w->r.err)
			return -1;
		return walk_composite(w, t, f);
	default:
		f->data_off = f->off;
		return walk_composite(w, t, f);
	}
	if (w->r.err)
		return -1;
	f->event = TPM_WE_FIELD;
	say(w, f);
	return 0;
}

/* Parameter i failed at off: say so (depth 0, whatever the flags). */
static void failed(struct walker *w, const char *name, unsigned type, unsigned i, size_t off)
{
	struct tpm_walk_field e = {.event = TPM_WE_ERROR,
				   .area = TPM_WA_PARAM,
				   .name = name,
				   .type = type,
				   .index = i,
				   .off = off,
				   .data_off = off};
	w->fn(w->ctx, &e);
}

static int walk_fields(struct walker *w, const struct tpm_walk_fld *fields)
{
	uint64_t vals[16] = {0};
	for (unsigned i = 0; fields && fields[i].name; i++) {
		struct tpm_walk_field f = {.area = TPM_WA_PARAM,
					   .name = fields[i].name,
					   .type = fields[i].type,
					   .index = i,
					   .secret = fields[i].secret};
		size_t off = w->r.off;
		int8_t s = fields[i].sel;
		if (walk_type(w, &f, s >= 0 && s < 16 ? vals[s] : 0) < 0) {
			failed(w, fields[i].name, fields[i].type, i, off);
			return -1;
		}
		if (i < 16)
			vals[i] = f.value;
	}
	return 0;
}

static void walker_init(struct walker *w, const uint8_t *buf, size_t off, size_t end, int flags,
			tpm_walk_fn fn, void *ctx)
{
	wire_rd_init(&w->r, buf, end);
	w->r.off = off <= end ? off : end;
	w->fn = fn;
	w->ctx = ctx;
	w->deep = flags & TPM_WALK_DEEP;
	w->quiet = 0;
}

int tpm_walk_params(const uint8_t *buf, size_t off, size_t end, const struct tpm_walk_fld *fields,
		    int flags, tpm_walk_fn fn, void *ctx, size_t *stop)
{
	struct walker w;
	walker_init(&w, buf, off, end, flags, fn, ctx);
	int rc = walk_fields(&w, fields);
	if (stop)
		*stop = w.r.off;
	return rc ? rc : w.r.off != end ? -2 : 0;
}

int tpm_walk_value(const uint8_t *buf, size_t off, size_t end, unsigned type, const char *name,
		   int flags, tpm_walk_fn fn, void *ctx, size_t *stop)
{
	struct walker w;
	struct tpm_walk_fld one[2] = {{name, (uint16_t)type, 0, -1}, {NULL, 0, 0, 0}};
	if (type >= TPM_T__COUNT || types[type].kind == TPM_WK_UNION)
		return -1;
	walker_init(&w, buf, off, end, flags, fn, ctx);
	int rc = walk_fields(&w, one);
	if (stop)
		*stop = w.r.off;
	return rc;
}

static void walk_handles(const char *const *names, const uint32_t *h, unsigned n, size_t off,
			 tpm_walk_fn fn, void *ctx)
{
	static const char *const generic[3] = {"handle1", "handle2", "handle3"};
	int named = names != NULL;
	for (unsigned i = 0; i < n && i < 3; i++) {
		const char *nm = named && names[i] ? names[i] : generic[i];
		named = named && names[i];
		struct tpm_walk_field f = {.event = TPM_WE_FIELD,
					   .area = TPM_WA_HANDLE,
					   .name = nm,
					   .type = TPM_T_TPM_HANDLE,
					   .index = i,
					   .off = off + 4 * i,
					   .len = 4,
					   .data_off = off + 4 * i,
					   .data_len = 4,
					   .value = h[i]};
		fn(ctx, &f);
	}
}

int tpm_walk_cmd(const uint8_t *buf, size_t len, const struct tpm_cmd *c, int flags, tpm_walk_fn fn,
		 void *ctx)
{
	const struct tpm_cc_layout *l = tpm_cc_layout(c->cc);
	if (c->malformed)
		return 1;
	walk_handles(l ? l->handles : NULL, c->handles, c->n_handles, TPM_HEADER_SIZE, fn, ctx);
	if (!l)
		return 1;
	size_t end = (size_t)c->param_off + c->param_size;
	int rc = tpm_walk_params(buf, c->param_off, end <= len ? end : len, l->cmd, flags, fn, ctx,
				 NULL);
	return l->full || rc == -1 ? rc : 1;
}

int tpm_walk_rsp(const uint8_t *buf, size_t len, const struct tpm_cmd *c, const struct tpm_rsp *r,
		 int flags, tpm_walk_fn fn, void *ctx)
{
	const struct tpm_cc_layout *l = tpm_cc_layout(c->cc);
	if (c->malformed || r->malformed || r->rc)
		return 1;
	const char *const rh[2] = {l ? l->rsp_handle : NULL, NULL};
	walk_handles(rh, &r->handle, r->n_handles, TPM_HEADER_SIZE, fn, ctx);
	if (!l)
		return 1;
	size_t end = (size_t)r->param_off + r->param_size;
	int rc = tpm_walk_params(buf, r->param_off, end <= len ? end : len, l->rsp, flags, fn, ctx,
				 NULL);
	return l->full || rc == -1 ? rc : 1;
}

struct find {
	const char *name;
	struct tpm_walk_field *out;
	int found;
};

static int find_fn(void *ctx, const struct tpm_walk_field *f)
{
	struct find *x = ctx;
	if (f->event == TPM_WE_FIELD && f->area == TPM_WA_PARAM && !f->depth && !x->found &&
	    !strcmp(f->name, x->name)) {
		*x->out = *f;
		x->found = 1;
	}
	return 0;
}

int tpm_walk_find_cmd(const uint8_t *buf, size_t len, const struct tpm_cmd *c, const char *name,
		      struct tpm_walk_field *f)
{
	struct find x = {name, f, 0};
	tpm_walk_cmd(buf, len, c, 0, find_fn, &x);
	return x.found ? 0 : -1;
}
