/* The TPM 2.0 message decoder (model/tpm/decode.h): tpm_cmd_decode and
 * tpm_rsp_decode check the header, tag and size, locate the handle area, the
 * authorization sessions (kinds from their handles and attributes) and the
 * parameters of a command or response from its row of the command table
 * (tpm_cc.h), and name what is malformed (tpm_malformed_str). The tpm_rd_*
 * readers parse the algorithm-selected unions of Part 2 (symmetric definitions,
 * schemes, public parameters) for the decoders of parameters, with the layout
 * walker (walk.h) over their rows of tpm_types.def. Reads only
 * through the bounds-checked readers of wire.h; response code text (tpm_rc_str)
 * comes from tpm2-tss's libtss2-rc. */
#include "model/tpm/decode.h"

#include <tss2/tss2_rc.h>

#include "model/tpm/tpm_ht.h"
#include "model/tpm/walk.h"
#include "model/tpm/wire.h"

static const char *const mal_text[TPM_MAL_COUNT] = {
    [TPM_MAL_NONE] = "",
    [TPM_MAL_SHORT_HEADER] = "shorter than the 10-byte header",
    [TPM_MAL_SIZE_OVER] = "size field larger than the bytes received (truncated)",
    [TPM_MAL_SIZE_UNDER] = "size field smaller than the bytes received",
    [TPM_MAL_TOO_LARGE] = "larger than 4096 bytes",
    [TPM_MAL_BAD_TAG] = "unknown tag",
    [TPM_MAL_UNKNOWN_CC] = "unknown command code",
    [TPM_MAL_HANDLES] = "handle area past the end",
    [TPM_MAL_AUTH_SIZE] = "authorization size past the end",
    [TPM_MAL_AUTH] = "sessions do not fill the authorization area",
    [TPM_MAL_TOO_MANY_SESSIONS] = "more than 3 sessions",
    [TPM_MAL_PARAM_SIZE] = "parameter size past the end",
    [TPM_MAL_SIZE_BELOW_HEADER] = "size field smaller than the 10-byte header",
};

const char *tpm_malformed_str(int reason)
{
	if (reason < 0 || reason >= TPM_MAL_COUNT)
		return "unknown reason";
	return mal_text[reason];
}

const char *tpm_auth_kind_str(int kind)
{
	switch (kind) {
	case TPM_AUTH_NONE:
		return "none";
	case TPM_AUTH_PASSWORD:
		return "password";
	case TPM_AUTH_HMAC:
		return "hmac";
	case TPM_AUTH_HMAC_ENC:
		return "hmac+enc";
	case TPM_AUTH_POLICY:
		return "policy";
	case TPM_AUTH_POLICY_ENC:
		return "policy+enc";
	}
	return "?";
}

const char *tpm_rc_str(uint32_t rc)
{
	return Tss2_RC_Decode(rc);
}

/* Common header checks (Part 1 18.2): 10 bytes, size field equal to the
 * message length, at most TPM_MAX_MESSAGE, a known tag. */
static int header_check(const uint8_t *buf, size_t len, uint16_t *tag, uint32_t *size,
			uint32_t *code)
{
	if (len < TPM_HEADER_SIZE)
		return TPM_MAL_SHORT_HEADER;
	*tag = wire_get_u16(buf);
	*size = wire_get_u32(buf + 2);
	*code = wire_get_u32(buf + 6);
	if (len > TPM_MAX_MESSAGE)
		return TPM_MAL_TOO_LARGE;
	if (*size > len)
		return TPM_MAL_SIZE_OVER;
	if (*size < len)
		return TPM_MAL_SIZE_UNDER;
	return 0;
}

/* One session in an authorization area (Part 1 18.6 command, 18.8 response):
 * command: handle, nonce, attributes, hmac; response: nonce, attributes, hmac. */
static void session_read(struct wire_rd *r, struct tpm_session *s, int with_handle)
{
	s->handle = with_handle ? wire_u32(r) : 0;
	s->nonce_off = (uint16_t)r->off + 2;
	wire_tpm2b(r, &s->nonce_size);
	s->attrs = wire_u8(r);
	s->hmac_off = (uint16_t)r->off + 2;
	wire_tpm2b(r, &s->hmac_size);
}

static uint8_t auth_kind_of(const struct tpm_cmd *c)
{
	uint8_t kind = TPM_AUTH_NONE;
	for (unsigned i = 0; i < c->n_sessions; i++) {
		uint32_t h = c->sess[i].handle;
		int enc = c->sess[i].attrs & (TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT);
		uint8_t k;
		if (h == TPM_RS_PW)
			k = TPM_AUTH_PASSWORD;
		else if (tpm_ht_of(h) == TPM_HT_POLICY_SESSION)
			k = enc ? TPM_AUTH_POLICY_ENC : TPM_AUTH_POLICY;
		else
			k = enc ? TPM_AUTH_HMAC_ENC : TPM_AUTH_HMAC;
		/* Sessions that only encrypt do not authorize; the heaviest wins. */
		if (k > kind)
			kind = k;
	}
	return kind;
}

int tpm_cmd_decode(const uint8_t *buf, size_t len, struct tpm_cmd *c)
{
	struct wire_rd r;
	int mal;

	memset(c, 0, sizeof(*c));
	c->pcr = -1;
	mal = header_check(buf, len, &c->tag, &c->size, &c->cc);
	/* A message cut short still has a readable header: keep its fields. */
	if (mal)
		goto out;
	if (c->tag != TPM_ST_NO_SESSIONS && c->tag != TPM_ST_SESSIONS) {
		mal = TPM_MAL_BAD_TAG;
		goto out;
	}
	c->info = tpm_cc_lookup(c->cc);
	if (!c->info) {
		mal = TPM_MAL_UNKNOWN_CC;
		goto out;
	}
	wire_rd_init(&r, buf, len);
	wire_skip(&r, TPM_HEADER_SIZE);
	for (unsigned i = 0; i < c->info->handles_in; i++)
		c->handles[i] = wire_u32(&r);
	if (r.err) {
		mal = TPM_MAL_HANDLES;
		goto out;
	}
	c->n_handles = c->info->handles_in;
	switch (c->cc) {
	case TPM_CC_PCR_Extend:
	case TPM_CC_PCR_Event:
	case TPM_CC_PCR_Reset:
		if (c->handles[0] <= 31)
			c->pcr = (int32_t)c->handles[0];
		break;
	}
	if (c->tag == TPM_ST_SESSIONS) {
		c->auth_size = wire_u32(&r);
		if (r.err || c->auth_size > wire_left(&r)) {
			mal = TPM_MAL_AUTH_SIZE;
			goto out;
		}
		size_t end = r.off + c->auth_size;
		struct wire_rd a;
		wire_rd_init(&a, buf, end);
		a.off = r.off;
		while (wire_left(&a) > 0) {
			if (c->n_sessions == TPM_MAX_SESSIONS) {
				mal = TPM_MAL_TOO_MANY_SESSIONS;
				goto out;
			}
			session_read(&a, &c->sess[c->n_sessions], 1);
			if (a.err) {
				mal = TPM_MAL_AUTH;
				goto out;
			}
			c->sess_attrs[c->n_sessions] = c->sess[c->n_sessions].attrs;
			c->n_sessions++;
		}
		if (c->n_sessions == 0) {
			mal = TPM_MAL_AUTH;
			goto out;
		}
		r.off = end;
	}
	c->param_off = (uint32_t)r.off;
	c->param_size = (uint32_t)(len - r.off);
	c->auth_kind = auth_kind_of(c);
out:
	c->malformed = mal;
	return mal;
}

int tpm_rsp_decode(const uint8_t *buf, size_t len, uint32_t cc, struct tpm_rsp *p)
{
	struct wire_rd r;
	const struct tpm_cc_info *info;
	int mal;

	memset(p, 0, sizeof(*p));
	mal = header_check(buf, len, &p->tag, &p->size, &p->rc);
	if (mal)
		goto out;
	if (p->tag != TPM_ST_NO_SESSIONS && p->tag != TPM_ST_SESSIONS &&
	    p->tag != TPM_ST_RSP_COMMAND) {
		mal = TPM_MAL_BAD_TAG;
		goto out;
	}
	/* An error response is the header alone (Part 1 18.4). */
	info = tpm_cc_lookup(cc);
	if (p->rc != 0 || !info)
		goto out;
	wire_rd_init(&r, buf, len);
	wire_skip(&r, TPM_HEADER_SIZE);
	if (info->handles_out) {
		p->handle = wire_u32(&r);
		if (r.err) {
			mal = TPM_MAL_HANDLES;
			goto out;
		}
		p->n_handles = 1;
	}
	if (p->tag == TPM_ST_SESSIONS) {
		p->param_size = wire_u32(&r);
		p->param_off = (uint32_t)r.off;
		if (r.err || !wire_skip(&r, p->param_size)) {
			mal = TPM_MAL_PARAM_SIZE;
			goto out;
		}
		while (wire_left(&r) > 0) {
			if (p->n_sessions == TPM_MAX_SESSIONS) {
				mal = TPM_MAL_TOO_MANY_SESSIONS;
				goto out;
			}
			session_read(&r, &p->sess[p->n_sessions], 0);
			if (r.err) {
				mal = TPM_MAL_AUTH;
				goto out;
			}
			p->n_sessions++;
		}
	} else {
		p->param_off = (uint32_t)r.off;
		p->param_size = (uint32_t)(len - r.off);
	}
out:
	p->malformed = mal;
	return mal;
}

/* ---- Part 2 unions (see decode.h) ---- */

/* The unions are read by the layout walker from their rows in
 * tpm_types.def (model/tpm/walk.h); these readers only gather what it
 * yields into the structures of decode.h. The reader moves as the walk
 * did: past what parsed, its error flag set where it stopped. */

struct gather {
	struct tpm_sym_def *sym; /* the TPMT_SYM_DEF being read, if one is open */
	struct tpm_scheme *sch;	 /* the scheme being read */
	unsigned sym_depth, sch_depth;
	struct tpm_sym_def *sym_to; /* where the next ones go */
	struct tpm_scheme *sch_to, *kdf_to;
	struct tpm_public_parms *pp; /* RSA's keyBits, exponent; ECC's curveID */
};

static int is_scheme(unsigned t)
{
	return t == TPM_T_TPMT_SIG_SCHEME || t == TPM_T_TPMT_RSA_SCHEME ||
	       t == TPM_T_TPMT_ECC_SCHEME || t == TPM_T_TPMT_KDF_SCHEME ||
	       t == TPM_T_TPMT_KEYEDHASH_SCHEME;
}

static void gather_field(struct gather *g, const struct tpm_walk_field *f)
{
	uint16_t v = (uint16_t)f->value;
	if (g->sym && f->depth == g->sym_depth + 1 && !strcmp(f->name, "algorithm"))
		g->sym->alg = v;
	else if (g->sym && f->depth == g->sym_depth + 1) /* XOR's details: its hash */
		g->sym->hash = v;
	else if (g->sym && f->depth == g->sym_depth + 2)
		*(!strcmp(f->name, "keyBits") ? &g->sym->key_bits : &g->sym->mode) = v;
	else if (g->sch && f->depth == g->sch_depth + 1)
		g->sch->scheme = v;
	else if (g->sch && f->depth == g->sch_depth + 2)
		*(!strcmp(f->name, "hashAlg") ? &g->sch->hash
		  : !strcmp(f->name, "count") ? &g->sch->count
					      : &g->sch->kdf) = v;
	else if (g->pp && f->depth == 1 && !strcmp(f->name, "keyBits"))
		g->pp->key_bits = v;
	else if (g->pp && f->depth == 1 && !strcmp(f->name, "exponent"))
		g->pp->exponent = (uint32_t)f->value;
	else if (g->pp && f->depth == 1 && !strcmp(f->name, "curveID"))
		g->pp->curve = v;
}

static int gather_fn(void *ctx, const struct tpm_walk_field *f)
{
	struct gather *g = ctx;
	int sym = f->type == TPM_T_TPMT_SYM_DEF || f->type == TPM_T_TPMT_SYM_DEF_OBJECT;
	if (f->event == TPM_WE_ENTER && sym) {
		g->sym = g->sym_to;
		g->sym->mode = TPM_ALG_NULL;
		g->sym_depth = f->depth;
	} else if (f->event == TPM_WE_ENTER && f->type == TPM_T_TPMS_SYM_KEY_MODE && g->sym) {
		g->sym->mode = 0; /* a block cipher's mode is read, not defaulted */
	} else if (f->event == TPM_WE_ENTER && is_scheme(f->type)) {
		g->sch = f->type == TPM_T_TPMT_KDF_SCHEME && g->kdf_to ? g->kdf_to : g->sch_to;
		g->sch_depth = f->depth;
	} else if (f->event == TPM_WE_LEAVE && sym) {
		g->sym = NULL;
	} else if (f->event == TPM_WE_LEAVE && is_scheme(f->type)) {
		g->sch = NULL;
	} else if (f->event == TPM_WE_FIELD) {
		gather_field(g, f);
	}
	return 0;
}

/* Walks one type at the reader's position into g. */
static int rd_walk(struct wire_rd *r, unsigned type, struct gather *g)
{
	size_t stop;
	if (r->err)
		return -1;
	int rc =
	    tpm_walk_value(r->p, r->off, r->len, type, "value", TPM_WALK_DEEP, gather_fn, g, &stop);
	r->off = stop;
	if (rc < 0)
		r->err = 1;
	return r->err ? -1 : 0;
}

int tpm_rd_sym_def(struct wire_rd *r, int object, struct tpm_sym_def *d)
{
	struct gather g = {.sym_to = d};
	memset(d, 0, sizeof *d);
	d->mode = TPM_ALG_NULL;
	return rd_walk(r, object ? TPM_T_TPMT_SYM_DEF_OBJECT : TPM_T_TPMT_SYM_DEF, &g);
}

static int rd_scheme(struct wire_rd *r, unsigned type, struct tpm_scheme *s)
{
	struct gather g = {.sch_to = s};
	memset(s, 0, sizeof *s);
	return rd_walk(r, type, &g);
}

int tpm_rd_keyedhash_scheme(struct wire_rd *r, struct tpm_scheme *s)
{
	return rd_scheme(r, TPM_T_TPMT_KEYEDHASH_SCHEME, s);
}

int tpm_rd_sig_scheme(struct wire_rd *r, struct tpm_scheme *s)
{
	return rd_scheme(r, TPM_T_TPMT_SIG_SCHEME, s);
}

int tpm_rd_rsa_scheme(struct wire_rd *r, struct tpm_scheme *s)
{
	return rd_scheme(r, TPM_T_TPMT_RSA_SCHEME, s);
}

int tpm_rd_ecc_scheme(struct wire_rd *r, struct tpm_scheme *s)
{
	return rd_scheme(r, TPM_T_TPMT_ECC_SCHEME, s);
}

int tpm_rd_kdf_scheme(struct wire_rd *r, struct tpm_scheme *s)
{
	return rd_scheme(r, TPM_T_TPMT_KDF_SCHEME, s);
}

int tpm_rd_public_parms(struct wire_rd *r, uint16_t type, struct tpm_public_parms *p)
{
	struct gather g = {
	    .sym_to = &p->symmetric, .sch_to = &p->scheme, .kdf_to = &p->kdf, .pp = p};
	const struct tpm_walk_type *u = tpm_walk_type(TPM_T_TPMU_PUBLIC_PARMS);
	memset(p, 0, sizeof *p);
	p->type = type;
	for (unsigned i = 0; u->arms[i].type != TPM_T_NONE; i++)
		if (u->arms[i].value == type)
			return rd_walk(r, u->arms[i].type, &g);
	r->err = 1; /* a selector the union does not have */
	return -1;
}
