/* The command layouts (model/tpm/tpm_cc_layout.def) and the walker
 * (model/tpm/walk.c) against each other, the consumers built on them and an
 * independent oracle.
 *
 * For every row of tpm_cc.def: it has a layout with as many handle names as
 * the row has handles and a response handle name where the row has one;
 * the layout's secret marks say what the row's cmd_secret/rsp_secret say.
 * Then, for every union arm in turn, a well-formed command and success
 * response are built from the layout (every TPM2B, list and selector filled
 * in) and walked: the walk must reach the end exactly, deep and not deep
 * alike; tpm2-tss's own unmarshalling (libtss2-mu, linked into this test
 * only) must end every parameter at the offset the walker says, and so
 * must decode.c's readers of the same unions; show -V's
 * explainer must start every parameter where the walker does and explain it
 * by name; redaction must zero exactly the bytes of the secret parameters
 * the walker yields, and the redacted explanation must show those as
 * <redacted>. Prints the coverage: commands with full layouts / all rows. */
#include <stdio.h>
#include <string.h>
#include <tss2/tss2_mu.h>

#include "model/tpm/params.h"
#include "model/tpm/redact.h"
#include "model/tpm/walk.h"
#include "testlib.h"

/* ---- building messages from layouts ---- */

static unsigned g_variant; /* which arm of each union */

static void gen_type(struct wire_wr *w, unsigned type, uint64_t sel, const char *name,
		     uint64_t *val);

static unsigned n_arms(const struct tpm_walk_type *t)
{
	unsigned n = 0;
	while (t->arms && t->arms[n].type != TPM_T_NONE)
		n++;
	return n;
}

/* The selector value a union field wants, skipping the arms tpm2-tss 3.2's
 * unmarshalling does not know although Part 2 has them (EdDSA, TDES, KDF2,
 * TPM_ST_ATTEST_NV_DIGEST). */
static uint64_t pick_arm(unsigned union_type)
{
	const struct tpm_walk_type *t = tpm_walk_type(union_type);
	if (t->kind == TPM_WK_DIGEST)
		return TPM_ALG_SHA256;
	unsigned n = n_arms(t);
	for (unsigned k = 0; k < n; k++) {
		const struct tpm_walk_arm *a = &t->arms[(g_variant + k) % n];
		if (a->value != TPM_ALG_EDDSA && a->value != TPM_ALG_EDDSA_PH &&
		    a->value != 0x801C && a->value != TPM_ALG_TDES && a->value != TPM_ALG_KDF2)
			return a->value;
	}
	return 0;
}

static void gen_fields(struct wire_wr *w, const struct tpm_walk_fld *f)
{
	uint64_t vals[16] = {0};
	for (unsigned i = 0; f && f[i].name; i++) {
		uint64_t want = 0;
		int is_sel = 0;
		for (unsigned j = i + 1; f[j].name; j++)
			if (f[j].sel == (int)i) {
				want = pick_arm(f[j].type);
				is_sel = 1;
			}
		uint64_t v = want;
		gen_type(w, f[i].type, f[i].sel >= 0 ? vals[f[i].sel] : 0, is_sel ? "" : f[i].name,
			 &v);
		if (i < 16)
			vals[i] = v;
	}
}

static void gen_type(struct wire_wr *w, unsigned type, uint64_t sel, const char *name,
		     uint64_t *val)
{
	const struct tpm_walk_type *t = tpm_walk_type(type);
	static const uint8_t bytes[8] = {0x5e, 0xc7, 0x3e, 0x70, 0x11, 0x22, 0x33, 0x44};
	if (t->kind == TPM_WK_UNION) {
		const struct tpm_walk_type *arm = NULL;
		for (unsigned i = 0; t->arms[i].type != TPM_T_NONE; i++)
			if (t->arms[i].value == sel)
				arm = tpm_walk_type(t->arms[i].type);
		t = arm ? arm : tpm_walk_type(t->sub);
		type = (unsigned)(t - tpm_walk_type(0));
	}
	uint64_t v = name[0] ? (!strcmp(name, "magic") ? 0xFF544347u : 0x0B) : *val;
	switch (t->kind) {
	case TPM_WK_U8:
		wire_wr_u8(w, (uint8_t)(name[0] ? 1 : v));
		break;
	case TPM_WK_U16:
		wire_wr_u16(w, (uint16_t)v);
		break;
	case TPM_WK_U32:
		wire_wr_u32(w, (uint32_t)v);
		break;
	case TPM_WK_U64:
		wire_wr_u32(w, 0);
		wire_wr_u32(w, (uint32_t)v);
		break;
	case TPM_WK_TPM2B:
		wire_wr_tpm2b(w, bytes, 8);
		break;
	case TPM_WK_REST:
		wire_wr_bytes(w, bytes, 4);
		break;
	case TPM_WK_SELECT:
		wire_wr_u8(w, 3);
		wire_wr_bytes(w, "\x01\x00\x80", 3);
		break;
	case TPM_WK_DIGEST:
		for (unsigned i = 0; i < tpm_alg_digest_size((uint16_t)sel); i++)
			wire_wr_u8(w, (uint8_t)i);
		break;
	case TPM_WK_SIZED: {
		size_t at = w->off;
		wire_wr_u16(w, 0);
		gen_type(w, t->sub, 0, "x", val);
		if (!w->err)
			wire_put_u16(w->p + at, (uint16_t)(w->off - at - 2));
		break;
	}
	case TPM_WK_LIST:
		wire_wr_u32(w, 2);
		gen_type(w, t->sub, 0, "x", val);
		gen_type(w, t->sub, 0, "x", val);
		break;
	case TPM_WK_STRUCT:
		gen_fields(w, t->fields);
		break;
	}
	*val = v;
}

struct msg {
	uint8_t cmd[4096], rsp[4096];
	size_t cmd_len, rsp_len;
	struct tpm_cmd c;
	struct tpm_rsp r;
};

static int build(const struct tpm_cc_info *info, const struct tpm_cc_layout *l, struct msg *m)
{
	struct wire_wr w;
	wire_wr_init(&w, m->cmd, sizeof m->cmd);
	wire_wr_u16(&w, TPM_ST_NO_SESSIONS);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, info->cc);
	for (unsigned i = 0; i < info->handles_in; i++)
		wire_wr_u32(&w, 0x80000000u + i);
	gen_fields(&w, l->cmd);
	m->cmd_len = w.off;
	wire_put_u32(m->cmd + 2, (uint32_t)w.off);
	int err = w.err;
	wire_wr_init(&w, m->rsp, sizeof m->rsp);
	wire_wr_u16(&w, TPM_ST_NO_SESSIONS);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, 0);
	if (info->handles_out)
		wire_wr_u32(&w, 0x80000001u);
	gen_fields(&w, l->rsp);
	m->rsp_len = w.off;
	wire_put_u32(m->rsp + 2, (uint32_t)w.off);
	if (err || w.err || tpm_cmd_decode(m->cmd, m->cmd_len, &m->c) ||
	    tpm_rsp_decode(m->rsp, m->rsp_len, info->cc, &m->r))
		return -1;
	return 0;
}

/* ---- the oracle: tpm2-tss's unmarshalling of each parameter ---- */

#define MU(T)                                                                                      \
	static TSS2_RC mu_##T(const uint8_t *b, size_t n, size_t *o)                               \
	{                                                                                          \
		static T v;                                                                        \
		memset(&v, 0, sizeof v);                                                           \
		return Tss2_MU_##T##_Unmarshal(b, n, o, &v);                                       \
	}
MU(UINT8)
MU(UINT16)
MU(UINT32)
MU(UINT64)
MU(TPM2B_MAX_BUFFER)
MU(TPM2B_PUBLIC)
MU(TPM2B_SENSITIVE_CREATE)
MU(TPM2B_NV_PUBLIC)
MU(TPM2B_CREATION_DATA)
MU(TPM2B_ATTEST)
MU(TPM2B_ECC_POINT)
MU(TPM2B_SENSITIVE)
MU(TPML_PCR_SELECTION)
MU(TPML_DIGEST_VALUES)
MU(TPML_DIGEST)
MU(TPML_CC)
MU(TPML_ALG)
MU(TPML_AC_CAPABILITIES)
MU(TPMS_CONTEXT)
MU(TPMS_CAPABILITY_DATA)
MU(TPMS_TIME_INFO)
MU(TPMS_ALGORITHM_DETAIL_ECC)
MU(TPMS_AC_OUTPUT)
MU(TPMT_SYM_DEF)
MU(TPMT_SYM_DEF_OBJECT)
MU(TPMT_SIG_SCHEME)
MU(TPMT_RSA_DECRYPT)
MU(TPMT_KDF_SCHEME)
MU(TPMT_SIGNATURE)
MU(TPMT_TK_CREATION)
MU(TPMT_HA)
MU(TPMT_PUBLIC_PARMS)

typedef TSS2_RC (*mu_fn)(const uint8_t *, size_t, size_t *);

static mu_fn oracle(unsigned type)
{
	switch (type) {
#define O(t, f)                                                                                    \
	case TPM_T_##t:                                                                            \
		return mu_##f;
		O(UINT8, UINT8)
		O(TPMI_YES_NO, UINT8)
		O(TPM_SE, UINT8)
		O(UINT16, UINT16)
		O(TPM_ALG_ID, UINT16)
		O(TPM_ST, UINT16)
		O(TPM_SU, UINT16)
		O(TPM_ECC_CURVE, UINT16)
		O(UINT32, UINT32)
		O(TPM_HANDLE, UINT32)
		O(TPM_CAP, UINT32)
		O(TPM_CC, UINT32)
		O(UINT64, UINT64)
		O(TPM2B, TPM2B_MAX_BUFFER)
		/* Rev 1.83 structures tpm2-tss 3.2 has not: only where the
		 * TPM2B ends is checked. */
		O(TPM2B_NV_PUBLIC_2, TPM2B_MAX_BUFFER)
		O(TPM2B_SET_CAPABILITY_DATA, TPM2B_MAX_BUFFER)
		O(TPM2B_PUBLIC, TPM2B_PUBLIC)
		O(TPM2B_SENSITIVE_CREATE, TPM2B_SENSITIVE_CREATE)
		O(TPM2B_NV_PUBLIC, TPM2B_NV_PUBLIC)
		O(TPM2B_CREATION_DATA, TPM2B_CREATION_DATA)
		O(TPM2B_ATTEST, TPM2B_ATTEST)
		O(TPM2B_ECC_POINT, TPM2B_ECC_POINT)
		O(TPM2B_SENSITIVE, TPM2B_SENSITIVE)
		O(TPML_PCR_SELECTION, TPML_PCR_SELECTION)
		O(TPML_DIGEST_VALUES, TPML_DIGEST_VALUES)
		O(TPML_DIGEST, TPML_DIGEST)
		O(TPML_CC, TPML_CC)
		O(TPML_ALG, TPML_ALG)
		O(TPML_AC_CAPABILITIES, TPML_AC_CAPABILITIES)
		O(TPMS_CONTEXT, TPMS_CONTEXT)
		O(TPMS_CAPABILITY_DATA, TPMS_CAPABILITY_DATA)
		O(TPMS_TIME_INFO, TPMS_TIME_INFO)
		O(TPMS_ALGORITHM_DETAIL_ECC, TPMS_ALGORITHM_DETAIL_ECC)
		O(TPMS_AC_OUTPUT, TPMS_AC_OUTPUT)
		O(TPMT_SYM_DEF, TPMT_SYM_DEF)
		O(TPMT_SYM_DEF_OBJECT, TPMT_SYM_DEF_OBJECT)
		O(TPMT_SIG_SCHEME, TPMT_SIG_SCHEME)
		O(TPMT_RSA_DECRYPT, TPMT_RSA_DECRYPT)
		O(TPMT_KDF_SCHEME, TPMT_KDF_SCHEME)
		O(TPMT_SIGNATURE, TPMT_SIGNATURE)
		O(TPMT_TK, TPMT_TK_CREATION)
		O(TPMT_HA, TPMT_HA)
		O(TPMT_PUBLIC_PARMS, TPMT_PUBLIC_PARMS)
#undef O
	}
	return NULL;
}

/* ---- walking ---- */

#define MAXF 32

struct seen {
	unsigned n, n_deep, errors;
	size_t off[MAXF], len[MAXF], data_off[MAXF], data_len[MAXF];
	unsigned type[MAXF];
	int secret[MAXF];
	const char *name[MAXF];
};

static int collect(void *ctx, const struct tpm_walk_field *f)
{
	struct seen *s = ctx;
	if (f->event == TPM_WE_ERROR)
		s->errors++;
	if (f->area != TPM_WA_PARAM || f->depth)
		return 0;
	if ((f->event == TPM_WE_FIELD || f->event == TPM_WE_LEAVE) && s->n < MAXF) {
		s->off[s->n] = f->off;
		s->len[s->n] = f->len;
		s->data_off[s->n] = f->data_off;
		s->data_len[s->n] = f->data_len;
		s->type[s->n] = f->type;
		s->secret[s->n] = f->secret;
		s->name[s->n++] = f->name;
	}
	return 0;
}

static int count_deep(void *ctx, const struct tpm_walk_field *f)
{
	((struct seen *)ctx)->n_deep++;
	return f->event == TPM_WE_ERROR ? 0 : 0;
}

/* The secret string tpm_cc.def's rows carry, from the layout's marks. */
static void secret_string(const struct tpm_walk_fld *f, char *out, size_t n)
{
	size_t l = 0, last = 0;
	out[0] = 0;
	for (unsigned i = 0; f && f[i].name && l + 3 < n; i++) {
		const struct tpm_walk_type *t = tpm_walk_type(f[i].type);
		int b = t->kind == TPM_WK_TPM2B || t->kind == TPM_WK_SIZED;
		int sz = t->kind == TPM_WK_U8	 ? 1
			 : t->kind == TPM_WK_U16 ? 2
			 : t->kind == TPM_WK_U32 ? 4
						 : 8;
		if (f[i].secret && !b)
			out[l++] = '!';
		out[l++] = b ? (f[i].secret ? 'S' : 'B') : (char)('0' + sz);
		if (f[i].secret)
			last = l;
		if (!b && t->kind > TPM_WK_U64)
			out[l - 1] = '?'; /* a structure: not expressible there */
	}
	out[last] = 0;
}

/* decode.c's readers of the same unions (the explainer's formatters and the
 * replayer use them) end where the walker does. */
static void check_decode(const char *what, const struct tpm_cc_info *info, const uint8_t *buf,
			 size_t len, const struct seen *s, unsigned i)
{
	struct wire_rd r;
	struct tpm_sym_def sd;
	struct tpm_scheme sc;
	struct tpm_public_parms pp;
	int rc;
	wire_rd_init(&r, buf, len);
	r.off = s->off[i];
	switch (s->type[i]) {
	case TPM_T_TPMT_SYM_DEF:
	case TPM_T_TPMT_SYM_DEF_OBJECT:
		rc = tpm_rd_sym_def(&r, s->type[i] == TPM_T_TPMT_SYM_DEF_OBJECT, &sd);
		break;
	case TPM_T_TPMT_SIG_SCHEME:
		rc = tpm_rd_sig_scheme(&r, &sc);
		break;
	case TPM_T_TPMT_PUBLIC_PARMS:
		rc = tpm_rd_public_parms(&r, wire_u16(&r), &pp);
		break;
	default:
		return;
	}
	CHECK(rc == 0 && r.off == s->off[i] + s->len[i],
	      "%s %s: %s ends at %zu for the walker, %zu for decode.c", info->name, what,
	      s->name[i], s->off[i] + s->len[i], r.off);
}

static void check_side(const char *what, const struct tpm_cc_info *info, const uint8_t *buf,
		       size_t len, const struct seen *s, size_t param_off, size_t end)
{
	CHECK(s->errors == 0, "%s %s: the walk fails", info->name, what);
	CHECK(s->n == 0 || s->off[0] == param_off, "%s %s: starts at %zu, not %zu", info->name,
	      what, s->n ? s->off[0] : 0, param_off);
	for (unsigned i = 0; i < s->n; i++) {
		CHECK(i == 0 || s->off[i] == s->off[i - 1] + s->len[i - 1],
		      "%s %s: %s not contiguous", info->name, what, s->name[i]);
		check_decode(what, info, buf, len, s, i);
		mu_fn mu = oracle(s->type[i]);
		CHECK(mu != NULL, "%s %s: no oracle for %s", info->name, what,
		      tpm_walk_type(s->type[i])->name);
		if (!mu)
			continue;
		size_t o = s->off[i];
		TSS2_RC rc = mu(buf, len, &o);
		CHECK(rc == 0 && o == s->off[i] + s->len[i],
		      "%s %s: %s (%s) ends at %zu for the walker, %zu for tpm2-tss (rc 0x%x, "
		      "selector 0x%04x)",
		      info->name, what, s->name[i], tpm_walk_type(s->type[i])->name,
		      s->off[i] + s->len[i], o, rc, wire_get_u16(buf + s->off[i]));
	}
	CHECK(!s->n || s->off[s->n - 1] + s->len[s->n - 1] == end, "%s %s: ends short", info->name,
	      what);
}

/* Redaction zeroes exactly the secret parameters' bytes the walker yields. */
static void check_redaction(const char *what, const struct tpm_cc_info *info, const uint8_t *orig,
			    const uint8_t *red, size_t len, const struct seen *s)
{
	for (size_t b = 0; b < len; b++) {
		int in_secret = 0;
		for (unsigned i = 0; i < s->n; i++)
			if (s->secret[i] && b >= s->data_off[i] &&
			    b < s->data_off[i] + s->data_len[i])
				in_secret = 1;
		CHECK(in_secret ? red[b] == 0 : red[b] == orig[b],
		      "%s %s: byte %zu %s by redaction", info->name, what, b,
		      in_secret ? "not zeroed" : "changed");
		if (in_secret ? red[b] != 0 : red[b] != orig[b])
			break;
	}
}

/* What show -V's explainer says of a message: where each parameter began
 * (its reader's position), which ones it gave as <redacted>, any error. */
struct told {
	unsigned n, n_red, errors;
	size_t off[MAXF], red_off[MAXF];
};

static void listen(void *ctx, const struct tpm_field *f)
{
	struct told *t = ctx;
	if (f->kind == TPM_F_ERROR)
		t->errors++;
	if (f->param_off == SIZE_MAX)
		return;
	if ((!t->n || t->off[t->n - 1] != f->param_off) && t->n < MAXF)
		t->off[t->n++] = f->param_off;
	if (f->kind == TPM_F_REDACTED && t->n_red < MAXF)
		t->red_off[t->n_red++] = f->param_off;
}

static void check_explainer(const char *what, const struct tpm_cc_info *info, const struct seen *s,
			    const struct told *plain, const struct told *red, int rc)
{
	CHECK(rc == 0 && !plain->errors, "%s %s: not explained by name (%d)", info->name, what, rc);
	CHECK(plain->n == s->n, "%s %s: %u parameters explained, %u walked", info->name, what,
	      plain->n, s->n);
	for (unsigned i = 0; i < plain->n && i < s->n; i++)
		CHECK(plain->off[i] == s->off[i], "%s %s: %s at %zu for the explainer, %zu walked",
		      info->name, what, s->name[i], plain->off[i], s->off[i]);
	unsigned k = 0;
	for (unsigned i = 0; i < s->n; i++) {
		int shown = k < red->n_red && red->red_off[k] == s->off[i];
		if (shown)
			k++;
		if (s->secret[i] && s->data_len[i])
			CHECK(shown, "%s %s: secret %s not <redacted>", info->name, what,
			      s->name[i]);
		else
			CHECK(!shown, "%s %s: %s <redacted> but public", info->name, what,
			      s->name[i]);
	}
}

static void explain_both(const struct tpm_cc_info *info, const struct msg *m, const struct seen *sc,
			 const struct seen *sr)
{
	struct told pc = {0}, rc_ = {0}, pr = {0}, rr = {0};
	int a = tpm_explain_cmd(m->cmd, m->cmd_len, 0, listen, &pc);
	tpm_explain_cmd(m->cmd, m->cmd_len, 1, listen, &rc_);
	check_explainer("command", info, sc, &pc, &rc_, a);
	int b = tpm_explain_rsp(m->rsp, m->rsp_len, m->cmd, m->cmd_len, 0, listen, &pr);
	tpm_explain_rsp(m->rsp, m->rsp_len, m->cmd, m->cmd_len, 1, listen, &rr);
	check_explainer("response", info, sr, &pr, &rr, b);
}

static void check_row(const struct tpm_cc_info *info, const struct tpm_cc_layout *l)
{
	unsigned nh = 0;
	while (l->handles && l->handles[nh])
		nh++;
	CHECK(nh == info->handles_in, "%s: %u handle names for %u handles", info->name, nh,
	      info->handles_in);
	CHECK(!l->rsp_handle == !info->handles_out, "%s: response handle name and count differ",
	      info->name);
	char cs[32], rs[32];
	secret_string(l->cmd, cs, sizeof cs);
	secret_string(l->rsp, rs, sizeof rs);
	CHECK(!strcmp(cs, info->cmd_secret), "%s: layout's command secrets '%s', tpm_cc.def '%s'",
	      info->name, cs, info->cmd_secret);
	CHECK(!strcmp(rs, info->rsp_secret), "%s: layout's response secrets '%s', tpm_cc.def '%s'",
	      info->name, rs, info->rsp_secret);
	if (!l->full)
		return;
	for (g_variant = 0; g_variant < 12; g_variant++) {
		static struct msg m;
		memset(&m, 0, sizeof m);
		CHECK(build(info, l, &m) == 0, "%s: the built messages do not decode", info->name);
		struct seen sc = {0}, sr = {0}, dc = {0}, dr = {0};
		CHECK(tpm_walk_cmd(m.cmd, m.cmd_len, &m.c, 0, collect, &sc) == 0 &&
			  tpm_walk_cmd(m.cmd, m.cmd_len, &m.c, TPM_WALK_DEEP, count_deep, &dc) == 0,
		      "%s: the command does not walk (variant %u)", info->name, g_variant);
		CHECK(tpm_walk_rsp(m.rsp, m.rsp_len, &m.c, &m.r, 0, collect, &sr) == 0 &&
			  tpm_walk_rsp(m.rsp, m.rsp_len, &m.c, &m.r, TPM_WALK_DEEP, count_deep,
				       &dr) == 0,
		      "%s: the response does not walk (variant %u)", info->name, g_variant);
		check_side("command", info, m.cmd, m.cmd_len, &sc, m.c.param_off, m.cmd_len);
		check_side("response", info, m.rsp, m.rsp_len, &sr, m.r.param_off, m.rsp_len);
		explain_both(info, &m, &sc, &sr);
		uint8_t red[4096];
		memcpy(red, m.cmd, m.cmd_len);
		redact_command(red, m.cmd_len, &m.c);
		check_redaction("command", info, m.cmd, red, m.cmd_len, &sc);
		memcpy(red, m.rsp, m.rsp_len);
		redact_response(red, m.rsp_len, &m.c, &m.r);
		check_redaction("response", info, m.rsp, red, m.rsp_len, &sr);
	}
}

int main(void)
{
	unsigned rows = 0, full = 0;
	for (unsigned i = 0; tpm_cc_at(i); i++) {
		const struct tpm_cc_info *info = tpm_cc_at(i);
		const struct tpm_cc_layout *l = tpm_cc_layout(info->cc);
		rows++;
		CHECK(l != NULL && l == tpm_cc_layout_at(i), "%s: no layout", info->name);
		if (!l)
			continue;
		CHECK(!strcmp(l->name, info->name) && l->cc == info->cc, "%s: layout of %s",
		      info->name, l->name);
		full += l->full;
		check_row(info, l);
	}
	printf("coverage: %u of %u command codes have full layouts\n", full, rows);
	return tl_finish("test_tpm_walk");
}
