/* The replay engine (see replay.h and docs/replay.md). */
#include "replayer/replay.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <sqlite3.h>

#include "db/db.h"
#include "model/trace_stream.h"
#include "db/writer.h"
#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "recorder/recorder.h"
#include "model/tpm/redact.h"
#include "recorder/transport/swtpm_spawn.h"
#include "model/policy.h"
#include "model/tpm/variant.h"
#include "model/emulate.h"
#include "model/tpm/session.h"
#include "recorder/transport/tpmconn.h"

#define TPM_RC_INITIALIZE		0x100u
#define TPM_RH_OWNER			0x40000001u
#define TPM_RH_PLATFORM			0x4000000Cu
#define TPM_SE_TRIAL			0x03
#define TPM_ALG_RSA			0x0001
#define TPM_ALG_KEYEDHASH		0x0008
#define TPM_ALG_SYMCIPHER		0x0025
#define TPMA_OBJECT_SENSITIVEDATAORIGIN 0x20u
#define PUB_MAX				1200
#define MAX_OBJS			64
#define MAX_SESS			32
#define ROLE_STARTUP			6   /* by_role index of the Startup we add */
#define ROLE_CLEANUP			7   /* ... and of what removes the run's leftovers */
#define ROLE_CLIENT_END			8   /* ... and of a client's space flushed */
#define CLEAN_MAX			256 /* handles of one kind listed on a target */
#define MADE_MAX			32

/* Handles of one kind (GetCapability TPM_CAP_HANDLES) on the target. */
struct handle_set {
	unsigned n;
	uint32_t h[CLEAN_MAX];
};
/* The kinds a run may leave behind: transient objects, HMAC and policy
 * sessions, NV indices, persistent objects (Part 2 7.2 TPM_HT). */
static const uint32_t clean_kinds[] = {0x80000000, 0x02000000, 0x03000000, 0x01000000, 0x81000000};
#define N_CLEAN_KINDS (sizeof clean_kinds / sizeof clean_kinds[0])

/* An entity the replay knows: recorded handle, the target's handle, its Name
 * and (objects) its public area, for salts and Names without extra commands. */
struct obj {
	uint32_t rec, rep;
	uint8_t used, has_name;
	uint8_t created; /* by a command of the replay, for client (rm_spaces) */
	uint32_t client;
	struct tpm_name name;
	uint16_t publen;
	uint8_t pub[PUB_MAX]; /* TPM2B_PUBLIC, size included */
};

/* A session the trace started, as re-created on the target. */
struct rsess {
	uint32_t rec, client;
	uint8_t used, type;
	uint8_t bound, pol_authvalue, pol_password;
	struct sess s;
	struct tpm_name bind_name;
};

/* ContextSave of the recording <-> ContextSave of the replay. */
struct ctxmap {
	uint8_t digest[32]; /* SHA-256 of the recorded TPMS_CONTEXT */
	uint8_t *blob;
	size_t len;
	uint32_t rec_handle;
	struct obj o; /* the object saved (not for sessions) */
	int is_obj;
};

/* outPrivate (and outPublic) of the recording <-> those the target made:
 * a private blob only loads on the TPM that wrapped it (Part 1 23.3). */
struct privmap {
	uint8_t digest[32];  /* SHA-256 of the recorded TPM2B_PRIVATE */
	uint8_t *priv, *pub; /* TPM2Bs, size included */
	size_t privlen, publen;
	int has_auth; /* the userAuth the replay's Create sent */
	struct replay_auth auth;
};

/* authValues the replay itself gave entities it created (learn_auth). */
#define REPLAY_MAX_LEARNED 64

/* Resubmissions of one command the TPM answered with a retry-class warning
 * (tpm2-tss ESYS and the kernel's tpm_transmit resend such a command too):
 * enough for a busy TPM, bounded so that one stuck answer cannot hang a
 * run. */
#define REPLAY_MAX_RETRIES 16

struct src_cmd {
	uint64_t seq;
	uint32_t client; /* client_id */
	const uint8_t *cmd, *rsp;
	size_t len, rsp_len;
	uint32_t flags;
	int has_rc;
	uint32_t rc, rsp_handle;
	struct tpm_cmd c;
	struct pol_cmd pc;
	long load_priv; /* Load: the x->priv entry its blob maps to, or -1 */
};

struct rp {
	const struct replay_opts *o;
	struct replay_result *res;
	struct policy pol;
	struct pol_state ps;
	struct sess_crypto cr;
	struct tpmconn t;
	struct emulator em;
	int have_em;
	struct swtpm_child sw;
	int spawned;
	struct writer *w;
	struct recorder rec;
	int fatal;
	struct src_cmd *cur;
	int cur_outcome; /* REPLAY_* of the current source command */
	char cur_reason[200];
	int cur_role;
	struct replay_auth learned[REPLAY_MAX_LEARNED];
	unsigned n_learned;
	/* A command the recording shows answered TPM_RC_RETRY (or YIELDED,
	 * TESTING) and resubmitted, which the target here answered at once:
	 * the recording's resubmission (the same bytes next) is not sent again. */
	int resub_armed;
	uint64_t resub_seq;
	size_t resub_len;
	uint8_t resub[TPM_MAX_MESSAGE];
	/* When it succeeded: what the bookkeeping of a success needs (the
	 * handles and the response it got, the parameters it sent), done again
	 * with the resubmission's recorded response, which is the one later
	 * commands refer to (a Create's outPrivate, a CreatePrimary's handle). */
	int resub_ok;
	int resub_outcome; /* the command's own outcome: its resubmission's too */
	char resub_reason[200];
	uint32_t resub_hs[3];
	long resub_load_priv;
	size_t resub_rsp_len, resub_pl, resub_sent_len;
	uint8_t resub_rsp[TPM_MAX_MESSAGE], resub_pp[TPM_MAX_MESSAGE], resub_sent[TPM_MAX_MESSAGE];
	/* The kernel registers its null key after TPM2_Startup: policy steps
	 * that come before the TPM is started wait for it. */
	int started;
	struct pol_out deferred[8];
	unsigned n_deferred;
	/* the kernel's null key and its session */
	struct tpm_ecc_key nk;
	uint8_t nk_ctx[2048];
	size_t nk_ctx_len;
	uint32_t nk_loaded;
	struct sess ks;
	int ks_live;
	/* The trace was recorded in front of a resource manager with a space
	 * per client (tpm-cuse-proxy on /dev/tpmrmN): when a client has sent its
	 * last command, its objects and sessions are flushed as closing
	 * /dev/tpmrm0 does (tpm2_flush_space), so that a multi-process trace
	 * (clevis: one tpm2-tools process per step) fits the target's slots. */
	int rm_spaces;
	uint64_t *cl_last; /* by client id: seq of its last command */
	size_t n_cl;
	struct obj objs[MAX_OBJS];
	struct rsess sess[MAX_SESS];
	struct ctxmap *ctx;
	size_t n_ctx, cap_ctx;
	struct privmap *priv;
	size_t n_priv, cap_priv;
	/* On a target other than the spawned swtpm: what it held before the run
	 * (have_before: listed), and the NV indices and persistent objects the
	 * run made itself (the destructive commands that remove them again are
	 * the run's own business). */
	int have_before, before_due;
	struct handle_set before[N_CLEAN_KINDS];
	uint32_t made_nv[MADE_MAX], made_persist[MADE_MAX];
	unsigned n_made_nv, n_made_persist;
	uint8_t *origin; /* per client id (trace_origins_load) */
	uint8_t buf[TPM_MAX_MESSAGE];
};

/* Keys of the blob maps: with the replay's own crypto context (sess_hash),
 * not a fresh OpenSSL one per call. */
static void sha256(struct rp *x, const void *d, size_t n, uint8_t out[32])
{
	sess_hash(&x->cr, TPM_ALG_SHA256, d, n, out);
}

int replay_is_destructive(uint32_t cc)
{
	switch (cc) {
	case TPM_CC_Clear:
	case TPM_CC_ClearControl:
	case TPM_CC_ChangeEPS:
	case TPM_CC_ChangePPS:
	case TPM_CC_HierarchyChangeAuth:
	case TPM_CC_HierarchyControl:
	case TPM_CC_SetPrimaryPolicy:
	case TPM_CC_NV_UndefineSpace:
	case TPM_CC_NV_UndefineSpaceSpecial:
	case TPM_CC_NV_GlobalWriteLock:
	case TPM_CC_NV_ChangeAuth:
	case TPM_CC_DictionaryAttackParameters:
	case TPM_CC_DictionaryAttackLockReset:
	case TPM_CC_EvictControl:
	case TPM_CC_PCR_Allocate:
	case TPM_CC_PCR_SetAuthPolicy:
	case TPM_CC_PCR_SetAuthValue:
	case TPM_CC_PP_Commands:
	case TPM_CC_SetCommandCodeAuditStatus:
	case TPM_CC_ClockSet:
	case TPM_CC_ClockRateAdjust:
	case TPM_CC_FieldUpgradeStart:
	case TPM_CC_FieldUpgradeData:
	case TPM_CC_SetAlgorithmSet:
		return 1;
	}
	return 0;
}

int replay_auth_parse(const char *s, struct replay_auth *a, char *err, size_t errlen)
{
	const char *eq = strchr(s, '=');
	char *end;
	memset(a, 0, sizeof *a);
	if (!eq || eq == s) {
		snprintf(err, errlen, "--auth takes HANDLE=VALUE, not '%s'", s);
		return -EINVAL;
	}
	unsigned long long h = strtoull(s, &end, 0);
	if (end != eq || h > 0xffffffffull) {
		snprintf(err, errlen, "--auth '%s': '%.*s' is not a handle (e.g. 0x40000001)", s,
			 (int)(eq - s), s);
		return -EINVAL;
	}
	a->handle = (uint32_t)h;
	const char *v = eq + 1;
	if (!strncmp(v, "hex:", 4)) {
		v += 4;
		size_t n = strlen(v);
		if (n % 2 || n / 2 > sizeof a->value) {
			snprintf(err, errlen, "--auth '%s': odd or too long hex (at most 64 bytes)",
				 s);
			return -EINVAL;
		}
		for (size_t i = 0; i < n / 2; i++) {
			char b[3] = {v[2 * i], v[2 * i + 1], 0};
			unsigned long x = strtoul(b, &end, 16);
			if (*end) {
				snprintf(err, errlen, "--auth '%s': bad hex at offset %zu", s,
					 (size_t)(v - s) + 2 * i);
				return -EINVAL;
			}
			a->value[i] = (uint8_t)x;
		}
		a->len = (uint16_t)(n / 2);
	} else {
		size_t n = strlen(v);
		if (n > sizeof a->value) {
			snprintf(err, errlen, "--auth '%s': value longer than 64 bytes", s);
			return -EINVAL;
		}
		memcpy(a->value, v, n);
		a->len = (uint16_t)n;
	}
	/* the TPM drops trailing zeros of an authValue (Part 1 19.6.4.3) */
	while (a->len && !a->value[a->len - 1])
		a->len--;
	return 0;
}

/* ---- outcome bookkeeping ---------------------------------------------- */

static void note(struct rp *x, int outcome, uint32_t cc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void note(struct rp *x, int outcome, uint32_t cc, const char *fmt, ...)
{
	char text[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (outcome < REPLAY__OUTCOMES &&
	    (outcome > x->cur_outcome || (outcome == x->cur_outcome && !x->cur_reason[0]))) {
		x->cur_outcome = outcome;
		snprintf(x->cur_reason, sizeof x->cur_reason, "%s", text);
	}
	struct replay_result *r = x->res;
	for (unsigned i = 0; i < r->n_reasons; i++)
		if (r->reasons[i].outcome == outcome && r->reasons[i].cc == cc &&
		    !strcmp(r->reasons[i].text, text)) {
			r->reasons[i].count++;
			return;
		}
	if (r->n_reasons < REPLAY_MAX_REASONS) {
		struct replay_reason *n = &r->reasons[r->n_reasons++];
		n->outcome = (uint8_t)outcome;
		n->cc = cc;
		n->first_seq = x->cur ? x->cur->seq : 0;
		n->count = 1;
		snprintf(n->text, sizeof n->text, "%s", text);
	}
}

static struct replay_cc_stat *cc_stat(struct replay_result *r, uint32_t cc)
{
	for (unsigned i = 0; i < r->n_cc; i++)
		if (r->cc[i].cc == cc)
			return &r->cc[i];
	if (r->n_cc == REPLAY_MAX_CC)
		return NULL;
	struct replay_cc_stat *s = &r->cc[r->n_cc++];
	memset(s, 0, sizeof *s);
	s->cc = cc;
	return s;
}

static int fail(struct rp *x, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct rp *x, int rc, const char *fmt, ...)
{
	va_list ap;
	if (!x->fatal) {
		va_start(ap, fmt);
		vsnprintf(x->res->err, sizeof x->res->err, fmt, ap);
		va_end(ap);
		x->fatal = rc ? rc : -EIO;
	}
	return x->fatal;
}

/* Every exchange with the target, the helpers' included: stored and timed. */
static void on_xfer(void *arg, const uint8_t *cmd, size_t len, const uint8_t *rsp, size_t rsp_len,
		    uint64_t t0, uint64_t t1, int rc)
{
	struct rp *x = arg;
	struct rec_timing tm = {.t_submit = t0,
				.t_done = t1,
				.rc = rc < 0 ? rc : 0,
				.flags = (x->t.emu && rc >= 0 ? REC_F_EMULATED : 0) |
					 (x->cur_role == ROLE_CLEANUP ? REC_F_OWN : 0)};
	x->res->sent++;
	x->res->tpm_ns += t1 - t0;
	if (x->cur_role >= 0 && x->cur_role < 8)
		x->res->by_role[x->cur_role]++;
	if (len >= TPM_HEADER_SIZE) {
		struct replay_cc_stat *s = cc_stat(x->res, wire_get_u32(cmd + 6));
		if (s) {
			s->n_rep++;
			s->rep_ns += t1 - t0;
		}
	}
	recorder_log(&x->rec, 0, 0, cmd, len, rsp, rsp_len, &tm);
}

/* Sends x->buf[0..len) (or cmd), fatal on a transport failure. Returns 0 or
 * the TPM response code (positive), or the fatal -errno. */
static int xfer(struct rp *x, const uint8_t *cmd, size_t len)
{
	/* tpmconn resends a command the TPM did not start, as a TSS does;
	 * not the one the recording shows with that very answer: the
	 * recording's own resubmission follows, and its response is the one
	 * later commands refer to (a Create's outPrivate). */
	int mirror = x->cur_role == POL_ROLE_ORIGINAL && x->cur && x->cur->has_rc &&
		     tpmconn_rc_is_retry(x->cur->rc);
	x->t.max_retries = mirror ? 0 : REPLAY_MAX_RETRIES;
	int rc = tpmconn_xfer(&x->t, cmd, len);
	x->t.max_retries = REPLAY_MAX_RETRIES;
	if (rc == -EIO)
		return fail(x, rc,
			    "the target stopped answering (TCTI error 0x%x) at source seq %llu",
			    x->t.tss_rc, x->cur ? (unsigned long long)x->cur->seq : 0ull);
	if (rc)
		return fail(x, rc, "malformed response from the target at source seq %llu",
			    x->cur ? (unsigned long long)x->cur->seq : 0ull);
	return tpmconn_rc(&x->t);
}

/* ---- entities ------------------------------------------------------------ */

static struct obj *obj_find(struct rp *x, uint32_t rec)
{
	for (int i = 0; i < MAX_OBJS; i++)
		if (x->objs[i].used && x->objs[i].rec == rec)
			return &x->objs[i];
	return NULL;
}

static struct obj *obj_add(struct rp *x, uint32_t rec, uint32_t rep)
{
	struct obj *o = obj_find(x, rec);
	for (int i = 0; !o && i < MAX_OBJS; i++)
		if (!x->objs[i].used)
			o = &x->objs[i];
	if (!o)
		o = &x->objs[rec % MAX_OBJS]; /* full: an old entry goes */
	memset(o, 0, sizeof *o);
	o->used = 1;
	o->rec = rec;
	o->rep = rep;
	return o;
}

static void obj_set_name(struct obj *o, const uint8_t *n, uint16_t len)
{
	if (len > SESS_MAX_NAME)
		return;
	memcpy(o->name.b, n, len);
	o->name.size = len;
	o->has_name = 1;
}

static void obj_set_pub(struct obj *o, const uint8_t *tpm2b, size_t len)
{
	if (len > PUB_MAX)
		return;
	memcpy(o->pub, tpm2b, len);
	o->publen = (uint16_t)len;
}

static struct rsess *sess_find(struct rp *x, uint32_t rec)
{
	for (int i = 0; i < MAX_SESS; i++)
		if (x->sess[i].used && x->sess[i].rec == rec)
			return &x->sess[i];
	return NULL;
}

static void sess_drop(struct rp *x, uint32_t rec)
{
	struct rsess *s = sess_find(x, rec);
	if (s)
		s->used = 0;
}

static int is_mapped_type(uint32_t h)
{
	uint8_t t = (uint8_t)(h >> 24);
	return t == 0x80 || t == 0x02 || t == 0x03;
}

/* The target's handle for a recorded one; -ENOENT if the trace never made it. */
static int map_handle(struct rp *x, uint32_t rec, uint32_t *rep)
{
	if (!is_mapped_type(rec)) {
		*rep = rec;
		return 0;
	}
	if ((rec >> 24) == 0x80) {
		struct obj *o = obj_find(x, rec);
		if (!o)
			return -ENOENT;
		*rep = o->rep;
		return 0;
	}
	struct rsess *s = sess_find(x, rec);
	if (!s)
		return -ENOENT;
	*rep = s->s.handle;
	return 0;
}

/* The authValue of an entity by its recorded handle: the one the replay
 * itself gave it when it created it (NV_DefineSpace, CreatePrimary, Create
 * then Load, HierarchyChangeAuth, NV_ChangeAuth: what the target now holds,
 * even where the recording's bytes were redacted), else --auth. */
static const struct replay_auth *auth_for(struct rp *x, uint32_t rec)
{
	for (unsigned i = 0; i < x->n_learned; i++)
		if (x->learned[i].handle == rec)
			return &x->learned[i];
	for (unsigned i = 0; i < x->o->n_auths; i++)
		if (x->o->auths[i].handle == rec)
			return &x->o->auths[i];
	return NULL;
}

/* Records (or, value NULL, forgets) the authValue of recorded handle rec. */
static void learn_auth(struct rp *x, uint32_t rec, const uint8_t *value, size_t len)
{
	unsigned i = 0;
	while (i < x->n_learned && x->learned[i].handle != rec)
		i++;
	if (!value || len > sizeof x->learned[0].value) {
		if (i < x->n_learned)
			x->learned[i] = x->learned[--x->n_learned];
		return;
	}
	if (i == x->n_learned) {
		if (x->n_learned == REPLAY_MAX_LEARNED)
			return; /* full: --auth or the empty default apply */
		x->n_learned++;
	}
	x->learned[i].handle = rec;
	x->learned[i].len = (uint16_t)len;
	memcpy(x->learned[i].value, value, len);
}

/* The userAuth in a TPM2B_SENSITIVE_CREATE (Part 2 11.1.15) at r. */
static const uint8_t *sensitive_create_auth(struct wire_rd *r, uint16_t *len)
{
	uint16_t n;
	wire_u16(r); /* size */
	const uint8_t *a = wire_tpm2b(r, &n);
	*len = n;
	return r->err ? NULL : a;
}

/* ---- public areas (Part 2 12.2) --------------------------------------- */

struct pubinfo {
	uint16_t type, name_alg;
	uint32_t attrs;
	const uint8_t *x, *y; /* ECC point, or RSA modulus in x */
	uint16_t xl, yl;
	uint32_t exponent;
};

static int pub_parse(const uint8_t *tpm2b, size_t len, struct pubinfo *p)
{
	struct wire_rd r;
	uint16_t n;
	memset(p, 0, sizeof *p);
	wire_rd_init(&r, tpm2b, len);
	wire_u16(&r);
	p->type = wire_u16(&r);
	p->name_alg = wire_u16(&r);
	p->attrs = wire_u32(&r);
	wire_tpm2b(&r, &n); /* authPolicy */
	switch (p->type) {
	case TPM_ALG_RSA:
	case TPM_ALG_ECC: {
		/* The parameters per their unions' selectors (model/tpm/decode.c):
		 * an ECDAA scheme has a count, a KDF a hash, RSAES nothing. */
		struct tpm_public_parms pp;
		if (tpm_rd_public_parms(&r, p->type, &pp))
			return -EPROTO;
		p->exponent = pp.exponent;
		p->x = wire_tpm2b(&r, &p->xl);
		if (p->type == TPM_ALG_ECC)
			p->y = wire_tpm2b(&r, &p->yl);
		break;
	}
	default:
		return r.err ? -EPROTO : 0;
	}
	return r.err ? -EPROTO : 0;
}

/* RSA-OAEP of the salt with label "SECRET" (Part 1 C.6.3, Part 3 11.1). */
static int rsa_salt(struct rp *x, const struct pubinfo *p, uint8_t *salt, unsigned sl,
		    uint8_t *secret, size_t cap, size_t *slen)
{
	int rc = -EIO;
	EVP_PKEY *pk = NULL;
	EVP_PKEY_CTX *pc = NULL, *ec = NULL;
	OSSL_PARAM_BLD *b = NULL;
	OSSL_PARAM *par = NULL;
	BIGNUM *n = BN_bin2bn(p->x, p->xl, NULL), *e = BN_new();
	const EVP_MD *md = NULL;
	(void)x;
	if (!n || !e || !BN_set_word(e, p->exponent ? p->exponent : 65537))
		goto out;
	if (!(b = OSSL_PARAM_BLD_new()) || !OSSL_PARAM_BLD_push_BN(b, "n", n) ||
	    !OSSL_PARAM_BLD_push_BN(b, "e", e) || !(par = OSSL_PARAM_BLD_to_param(b)))
		goto out;
	if (!(pc = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) ||
	    EVP_PKEY_fromdata_init(pc) <= 0 ||
	    EVP_PKEY_fromdata(pc, &pk, EVP_PKEY_PUBLIC_KEY, par) <= 0)
		goto out;
	switch (p->name_alg) {
	case TPM_ALG_SHA1:
		md = EVP_sha1();
		break;
	case TPM_ALG_SHA256:
		md = EVP_sha256();
		break;
	case TPM_ALG_SHA384:
		md = EVP_sha384();
		break;
	case TPM_ALG_SHA512:
		md = EVP_sha512();
		break;
	default:
		rc = -ENOTSUP;
		goto out;
	}
	if (RAND_bytes(salt, (int)sl) != 1 || !(ec = EVP_PKEY_CTX_new(pk, NULL)) ||
	    EVP_PKEY_encrypt_init(ec) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_padding(ec, RSA_PKCS1_OAEP_PADDING) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_oaep_md(ec, md) <= 0 || EVP_PKEY_CTX_set_rsa_mgf1_md(ec, md) <= 0)
		goto out;
	{
		char *label = OPENSSL_strdup("SECRET"); /* the NUL is part of the label */
		if (!label || EVP_PKEY_CTX_set0_rsa_oaep_label(ec, label, 7) <= 0) {
			OPENSSL_free(label);
			goto out;
		}
	}
	*slen = cap;
	if (EVP_PKEY_encrypt(ec, secret, slen, salt, sl) <= 0)
		goto out;
	rc = 0;
out:
	EVP_PKEY_CTX_free(ec);
	EVP_PKEY_CTX_free(pc);
	EVP_PKEY_free(pk);
	OSSL_PARAM_free(par);
	OSSL_PARAM_BLD_free(b);
	BN_free(n);
	BN_free(e);
	return rc;
}

/* ---- building commands and opening responses ------------------------- */

/* One entry of an authorization area (Part 1 18.5). */
struct authent {
	int is_sess;
	struct sess *s;
	struct rsess *rs; /* NULL for the kernel's session */
	uint8_t attrs;
	/* the authValue in the HMAC and CFB keys (Part 1 19.6.5, 21.2) */
	const uint8_t *key_auth;
	size_t key_auth_len;
	int inc_auth; /* the authValue is part of the keys (key_auth may be empty) */
	/* the authValue of the response HMAC key when the command changed it
	 * (auth_after); NULL: key_auth */
	const struct replay_auth *auth_after;
	/* password (TPM_RS_PW, or a policy session after PolicyPassword) */
	const uint8_t *pw;
	size_t pw_len;
	int pw_in_hmac;
};

static void crypto_time(struct rp *x, uint64_t t0, uint64_t tpm0)
{
	uint64_t spent = mono_ns() - t0, tpm = x->res->tpm_ns - tpm0;
	x->res->crypto_ns += spent > tpm ? spent - tpm : 0;
}

/* Builds tag/size/cc, handles, the authorization area and the parameters
 * (params is modified: the first one is encrypted when a session asks). */
static int build_cmd(struct rp *x, uint32_t cc, const uint32_t *handles, unsigned nh,
		     const struct tpm_name *names, struct authent *a, unsigned na, uint8_t *params,
		     size_t plen, uint8_t *out, size_t cap, size_t *outlen)
{
	const struct tpm_cc_info *ci = tpm_cc_lookup(cc);
	struct wire_wr w;
	uint8_t hmac[SESS_MAX_DIGEST];
	int rc;
	for (unsigned i = 0; i < na; i++)
		if (a[i].is_sess && (rc = sess_nonce_roll(a[i].s)))
			return rc;
	/* Part 1 21.1: only the first parameter, only a TPM2B, and only one
	 * session may decrypt. */
	for (unsigned i = 0; i < na; i++) {
		if (!a[i].is_sess || !(a[i].attrs & TPMA_SESSION_DECRYPT))
			continue;
		if (!ci || !ci->cmd_tpm2b || plen < 2 || wire_get_u16(params) > plen - 2)
			return -EINVAL;
		rc = sess_param_crypt(a[i].s, &x->cr, a[i].key_auth, a[i].key_auth_len, 0,
				      params + 2, wire_get_u16(params));
		if (rc)
			return rc;
		break;
	}
	wire_wr_init(&w, out, cap);
	wire_wr_u16(&w, na ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, cc);
	for (unsigned i = 0; i < nh; i++)
		wire_wr_u32(&w, handles[i]);
	if (na) {
		size_t size_at = w.off;
		/* Other sessions that decrypt or encrypt enter the first one's
		 * HMAC (Part 1 19.6.5). */
		const struct sess *dec = NULL, *enc = NULL;
		for (unsigned i = 1; i < na; i++) {
			if (a[i].is_sess && (a[i].attrs & TPMA_SESSION_DECRYPT))
				dec = a[i].s;
			if (a[i].is_sess && (a[i].attrs & TPMA_SESSION_ENCRYPT))
				enc = a[i].s;
		}
		wire_wr_u32(&w, 0);
		for (unsigned i = 0; i < na; i++) {
			if (!a[i].is_sess) {
				/* A password session's attributes are sent as the
				 * policy says (SeaBIOS sets continueSession). */
				wire_wr_u32(&w, TPM_RS_PW);
				wire_wr_u16(&w, 0);
				wire_wr_u8(&w, a[i].attrs);
				wire_wr_tpm2b(&w, a[i].pw, (uint16_t)a[i].pw_len);
				continue;
			}
			struct sess *s = a[i].s;
			wire_wr_u32(&w, s->handle);
			wire_wr_tpm2b(&w, s->nonce_caller, s->nonce_caller_len);
			wire_wr_u8(&w, a[i].attrs);
			if (a[i].pw_in_hmac) {
				wire_wr_tpm2b(&w, a[i].pw, (uint16_t)a[i].pw_len);
				continue;
			}
			uint8_t cph[SESS_MAX_DIGEST];
			s->attrs = a[i].attrs;
			if ((rc = sess_cphash(&x->cr, s->hash_alg, cc, names, nh, params, plen,
					      cph)) ||
			    (rc = sess_cmd_hmac_first(s, &x->cr, cph, a[i].key_auth,
						      a[i].key_auth_len, i ? NULL : dec,
						      i ? NULL : enc, hmac)))
				return rc;
			wire_wr_tpm2b(&w, hmac, s->dsize);
		}
		if (!w.err)
			wire_put_u32(out + size_at, (uint32_t)(w.off - size_at - 4));
	}
	wire_wr_bytes(&w, params, plen);
	if (w.err)
		return -ENOBUFS;
	wire_put_u32(out + 2, (uint32_t)w.off);
	*outlen = w.off;
	return 0;
}

/* The TPM keys a response HMAC with the entity's authValue as it is after
 * the command: the new one after HierarchyChangeAuth and NV_ChangeAuth,
 * none after NV_UndefineSpaceSpecial deleted the index (Part 1 19.6.5; the
 * reference code skips includeAuth for an index that is gone). 1 with the
 * value in *out when cc is such a command. */
static int auth_after(uint32_t cc, const uint8_t *params, size_t plen, struct replay_auth *out)
{
	struct wire_rd q;
	uint16_t n;
	out->len = 0;
	if (cc == TPM_CC_NV_UndefineSpaceSpecial)
		return 1;
	if (cc != TPM_CC_HierarchyChangeAuth && cc != TPM_CC_NV_ChangeAuth)
		return 0;
	wire_rd_init(&q, params, plen);
	const uint8_t *v = wire_tpm2b(&q, &n);
	if (q.err || n > sizeof out->value)
		return 0;
	out->len = n;
	memcpy(out->value, v, n);
	return 1;
}

/* Checks the sessions of a successful response: new nonceTPM, response HMAC
 * (Part 1 19.6.6; a mismatch is -EBADMSG and ends the run), and decrypts the
 * first parameter when asked. *pp, *pl: the parameters. */
static int open_rsp(struct rp *x, uint32_t cc, struct authent *a, unsigned na, uint8_t *rsp,
		    size_t len, uint8_t **pp, size_t *pl)
{
	const struct tpm_cc_info *ci = tpm_cc_lookup(cc);
	struct wire_rd r;
	wire_rd_init(&r, rsp, len);
	uint16_t tag = wire_u16(&r);
	wire_u32(&r);
	uint32_t rc = wire_u32(&r);
	if (rc)
		return 0;
	if (ci)
		wire_skip(&r, 4u * ci->handles_out);
	size_t poff;
	uint32_t psize;
	if (tag == TPM_ST_SESSIONS) {
		psize = wire_u32(&r);
		poff = r.off;
		wire_skip(&r, psize);
	} else {
		poff = r.off;
		psize = (uint32_t)wire_left(&r);
		wire_skip(&r, psize);
	}
	if (r.err || (na && tag != TPM_ST_SESSIONS))
		return -EPROTO;
	*pp = rsp + poff;
	*pl = psize;
	for (unsigned i = 0; i < na; i++) {
		uint16_t nl, hl;
		const uint8_t *nonce = wire_tpm2b(&r, &nl);
		uint8_t rattrs = wire_u8(&r);
		const uint8_t *h = wire_tpm2b(&r, &hl);
		if (r.err)
			return -EPROTO;
		if (!a[i].is_sess)
			continue;
		struct sess *s = a[i].s;
		if (nl > SESS_MAX_DIGEST)
			return -EPROTO;
		memcpy(s->nonce_tpm, nonce, nl);
		s->nonce_tpm_len = nl;
		if (a[i].pw_in_hmac && hl == 0)
			continue; /* PolicyPassword: the TPM sends no HMAC */
		uint8_t rph[SESS_MAX_DIGEST], want[SESS_MAX_DIGEST];
		int e = sess_rphash(&x->cr, s->hash_alg, 0, cc, rsp + poff, psize, rph);
		const struct replay_auth *after = a[i].inc_auth ? a[i].auth_after : NULL;
		if (!e)
			e = sess_rsp_hmac(s, &x->cr, rph, rattrs,
					  after ? after->value : a[i].key_auth,
					  after ? after->len : a[i].key_auth_len, want);
		if (e)
			return e;
		if (hl != s->dsize || CRYPTO_memcmp(h, want, hl))
			return -EBADMSG;
		x->res->hmac_checked++;
	}
	if (wire_left(&r))
		return -EPROTO;
	for (unsigned i = 0; i < na; i++) {
		if (!a[i].is_sess || !(a[i].attrs & TPMA_SESSION_ENCRYPT) || !ci || !ci->rsp_tpm2b)
			continue;
		if (psize < 2 || wire_get_u16(rsp + poff) > psize - 2)
			return -EPROTO;
		return sess_param_crypt(a[i].s, &x->cr, a[i].key_auth, a[i].key_auth_len, 1,
					rsp + poff + 2, wire_get_u16(rsp + poff));
	}
	return 0;
}

/* Sends a command built by build_cmd and opens its response. Returns the TPM
 * rc (positive), 0, or a fatal -errno. The response stays in x->t.rsp. */
static int send_auth(struct rp *x, uint32_t cc, const uint32_t *handles, unsigned nh,
		     const struct tpm_name *names, struct authent *a, unsigned na, uint8_t *params,
		     size_t plen, uint8_t **pp, size_t *pl)
{
	uint8_t cmd[TPM_MAX_MESSAGE];
	size_t len = 0;
	uint64_t t0 = mono_ns(), tpm0 = x->res->tpm_ns;
	int rc = build_cmd(x, cc, handles, nh, names, a, na, params, plen, cmd, sizeof cmd, &len);
	crypto_time(x, t0, tpm0);
	if (rc)
		return fail(x, rc, "cannot build %s for source seq %llu: %s", tpm_cc_name(cc),
			    (unsigned long long)x->cur->seq, strerror(-rc));
	rc = xfer(x, cmd, len);
	if (rc)
		return rc;
	t0 = mono_ns();
	tpm0 = x->res->tpm_ns;
	rc = open_rsp(x, cc, a, na, x->t.rsp, x->t.rsp_len, pp, pl);
	crypto_time(x, t0, tpm0);
	if (rc == -EBADMSG)
		return fail(x, rc,
			    "response HMAC of %s (source seq %llu) does not verify: the response "
			    "was changed or does not come from the TPM holding the session",
			    tpm_cc_name(cc), (unsigned long long)x->cur->seq);
	if (rc)
		return fail(x, rc, "malformed %s response (source seq %llu)", tpm_cc_name(cc),
			    (unsigned long long)x->cur->seq);
	return 0;
}

/* ---- Names ----------------------------------------------------------- */

/* ReadPublic / NV_ReadPublic of a target handle into o (an extra command). */
static int read_public(struct rp *x, uint32_t rep, struct obj *o)
{
	uint8_t cmd[14];
	int nv = (rep >> 24) == 0x01;
	wire_put_u16(cmd, TPM_ST_NO_SESSIONS);
	wire_put_u32(cmd + 2, 14);
	wire_put_u32(cmd + 6, nv ? TPM_CC_NV_ReadPublic : TPM_CC_ReadPublic);
	wire_put_u32(cmd + 10, rep);
	int saved = x->cur_role, rc;
	x->cur_role = POL_ROLE_NAME_LOOKUP;
	rc = xfer(x, cmd, sizeof cmd);
	x->cur_role = saved;
	if (rc)
		return rc;
	struct wire_rd r;
	uint16_t n;
	wire_rd_init(&r, x->t.rsp, x->t.rsp_len);
	wire_skip(&r, TPM_HEADER_SIZE);
	size_t po = r.off;
	wire_tpm2b(&r, &n);
	size_t pl = r.off - po;
	const uint8_t *name = wire_tpm2b(&r, &n);
	if (r.err)
		return fail(x, -EPROTO, "malformed ReadPublic response");
	if (!nv)
		obj_set_pub(o, x->t.rsp + po, pl);
	obj_set_name(o, name, n);
	return 0;
}

/* Name of a handle for cpHash (Part 1 16), rec: recorded, rep: target's. */
static int name_of(struct rp *x, uint32_t rec, uint32_t rep, struct tpm_name *out)
{
	uint8_t t = (uint8_t)(rep >> 24);
	if (t == 0x00 || t == 0x02 || t == 0x03 || t == 0x40)
		return sess_name_handle(rep, out);
	struct obj *o = obj_find(x, rec);
	if (!o)
		o = obj_add(x, rec, rep);
	if (!o->has_name) {
		int rc = read_public(x, rep, o);
		if (rc)
			return rc > 0 ? -ENOENT : rc;
	}
	*out = o->name;
	return 0;
}

/* ---- the trace's own sessions (Part 3 11.1 TPM2_StartAuthSession) ----- */

/* TPM2_StartAuthSession with our own nonce (and salt when rk is a key):
 * rk, rb are target handles (TPM_RH_NULL for none), key the tpmKey's entry.
 * Returns 0 (out set up), a TPM rc > 0, -ENOTSUP when the key cannot salt,
 * or a fatal -errno. */
static int start_raw(struct rp *x, uint32_t rk, struct obj *key, uint32_t rb,
		     const uint8_t *bind_auth, size_t bind_len, uint8_t type, uint16_t sym,
		     uint16_t bits, uint16_t mode, uint16_t hash, uint16_t nc_len, struct sess *out,
		     struct authent *a, unsigned na, const struct tpm_name *names)
{
	uint8_t salt[SESS_MAX_DIGEST], secret[600], cmd[TPM_MAX_MESSAGE];
	size_t salt_len = 0, secret_len = 0;
	uint64_t t0 = mono_ns(), tpm0 = x->res->tpm_ns;
	struct wire_wr w;
	struct wire_rd r;
	uint16_t n;
	int rc = 0;
	if (rk != TPM_RH_NULL) {
		struct pubinfo pi;
		if (!key->publen && (rc = read_public(x, rk, key)))
			return rc < 0 ? rc : -ENOTSUP;
		t0 = mono_ns();
		tpm0 = x->res->tpm_ns;
		rc = pub_parse(key->pub, key->publen, &pi);
		unsigned sl = sess_digest_size(pi.name_alg);
		if (!rc && pi.type == TPM_ALG_ECC)
			rc = sess_ecdh_salt(&x->cr, pi.name_alg, pi.x, pi.xl, pi.y, pi.yl, salt,
					    secret, sizeof secret, &secret_len);
		else if (!rc && pi.type == TPM_ALG_RSA && sl)
			rc = rsa_salt(x, &pi, salt, sl, secret, sizeof secret, &secret_len);
		else
			rc = -ENOTSUP;
		if (rc) {
			crypto_time(x, t0, tpm0);
			return -ENOTSUP;
		}
		salt_len = sl;
	}
	memset(out, 0, sizeof *out);
	out->nonce_caller_len = nc_len;
	sess_nonce_roll(out);
	wire_wr_init(&w, cmd, sizeof cmd);
	if (!na) {
		wire_wr_u16(&w, TPM_ST_NO_SESSIONS);
		wire_wr_u32(&w, 0);
		wire_wr_u32(&w, TPM_CC_StartAuthSession);
		wire_wr_u32(&w, rk);
		wire_wr_u32(&w, rb);
	}
	size_t p0 = w.off;
	wire_wr_tpm2b(&w, out->nonce_caller, nc_len);
	wire_wr_tpm2b(&w, secret, (uint16_t)secret_len);
	wire_wr_u8(&w, type);
	wire_wr_u16(&w, sym);
	if (sym != TPM_ALG_NULL) {
		wire_wr_u16(&w, bits);
		wire_wr_u16(&w, mode);
	}
	wire_wr_u16(&w, hash);
	crypto_time(x, t0, tpm0);
	uint32_t h;
	if (na) {
		/* The recording's own sessions (an encryption session for
		 * nonceCaller, as systemd-cryptsetup starts its policy session
		 * under its HMAC session): carried, with our nonce in clear
		 * before send_auth encrypts it. */
		uint8_t *pp = NULL;
		size_t pl = 0;
		uint32_t hs[2] = {rk, rb};
		rc = send_auth(x, TPM_CC_StartAuthSession, hs, 2, names, a, na, cmd + p0,
			       w.off - p0, &pp, &pl);
		if (rc)
			goto out;
		wire_rd_init(&r, x->t.rsp, x->t.rsp_len);
		wire_skip(&r, TPM_HEADER_SIZE);
		h = wire_u32(&r); /* the handle area; send_auth checked the rest */
		if (r.err) {
			rc = fail(x, -EPROTO, "malformed StartAuthSession response");
			goto out;
		}
		wire_rd_init(&r, pp, pl);
	} else {
		wire_put_u32(cmd + 2, (uint32_t)w.off);
		rc = xfer(x, cmd, w.off);
		if (rc)
			goto out;
		wire_rd_init(&r, x->t.rsp, x->t.rsp_len);
		wire_skip(&r, TPM_HEADER_SIZE);
		h = wire_u32(&r);
	}
	const uint8_t *nt = wire_tpm2b(&r, &n);
	if (r.err) {
		rc = fail(x, -EPROTO, "malformed StartAuthSession response");
		goto out;
	}
	t0 = mono_ns();
	tpm0 = x->res->tpm_ns;
	uint8_t nc[SESS_MAX_DIGEST];
	memcpy(nc, out->nonce_caller, nc_len);
	rc = sess_begin(out, &x->cr, h, hash, sym, salt, salt_len, bind_auth, bind_len, nc, nc_len,
			nt, n);
	crypto_time(x, t0, tpm0);
	if (rc)
		rc = fail(x, rc, "session set-up failed: %s", strerror(-rc));
out:
	memset(salt, 0, sizeof salt);
	return rc;
}

/* The trace's own TPM2_StartAuthSession, started again on the target. */
static int start_session(struct rp *x)
{
	struct src_cmd *sc = x->cur;
	struct wire_rd r;
	uint16_t n;
	uint32_t tpm_key = sc->c.handles[0], bind = sc->c.handles[1], rk, rb;
	wire_rd_init(&r, sc->cmd, sc->len);
	r.off = sc->c.param_off;
	wire_tpm2b(&r, &n); /* nonceCaller */
	uint16_t nc_len = n;
	wire_tpm2b(&r, &n); /* encryptedSalt: made for the recording TPM's key */
	uint8_t type = wire_u8(&r);
	/* TPMT_SYM_DEF per its selector: XOR has a hash and no mode. */
	struct tpm_sym_def sd;
	int sym_rc = tpm_rd_sym_def(&r, 0, &sd);
	uint16_t sym = sd.alg, bits = sd.key_bits, mode = sd.mode;
	uint16_t hash = wire_u16(&r);
	if (r.err || sc->c.n_handles != 2) {
		/* Refused with its reason, as other refusals are: one command
		 * that does not parse does not end the replay. */
		if (sym_rc)
			note(x, REPLAY_REFUSED, sc->c.cc,
			     "StartAuthSession: symmetric algorithm 0x%04x is not one a "
			     "TPMT_SYM_DEF has",
			     sym);
		else
			note(x, REPLAY_REFUSED, sc->c.cc,
			     "StartAuthSession: its parameters run past the end");
		return 0;
	}
	if (sym == TPM_ALG_XOR) {
		note(x, REPLAY_REFUSED, sc->c.cc,
		     "StartAuthSession: symmetric XOR (hash 0x%04x) parameter obfuscation is not "
		     "supported here",
		     sd.hash);
		return 0;
	}
	unsigned ds = sess_digest_size(hash);
	if (!ds ||
	    (sym != TPM_ALG_NULL && (sym != TPM_ALG_AES || bits != 128 || mode != TPM_ALG_CFB)) ||
	    (type != TPM_SE_HMAC && type != TPM_SE_POLICY && type != TPM_SE_TRIAL)) {
		note(x, REPLAY_REFUSED, sc->c.cc,
		     "StartAuthSession: session type %u, symmetric 0x%x/%u/0x%x or hash 0x%x not "
		     "supported here",
		     type, sym, bits, mode, hash);
		return 0;
	}
	if (nc_len < 16 || nc_len > ds)
		nc_len = (uint16_t)ds;
	if (map_handle(x, tpm_key, &rk) || map_handle(x, bind, &rb)) {
		note(x, REPLAY_REFUSED, sc->c.cc,
		     "StartAuthSession: tpmKey or bind was loaded before the trace started");
		return 0;
	}
	struct obj *key = NULL;
	if (tpm_key != TPM_RH_NULL && !(key = obj_find(x, tpm_key)))
		key = obj_add(x, tpm_key, rk);
	/* Bound session: the bind entity's authValue goes into the session key
	 * (Part 1 19.6.8); we only know it through --auth. */
	const struct replay_auth *ba = bind != TPM_RH_NULL ? auth_for(x, bind) : NULL;
	struct tpm_name bind_name = {0};
	if (bind != TPM_RH_NULL) {
		int rc = name_of(x, bind, rb, &bind_name);
		if (rc < 0 && rc != -ENOENT)
			return rc;
	}
	/* Its own sessions (no authorization handles: audit, encrypt or
	 * decrypt only), under the target's keys of those sessions. */
	struct authent a[TPM_MAX_SESSIONS];
	struct tpm_name names[2];
	unsigned na = 0;
	memset(a, 0, sizeof a);
	for (unsigned i = 0; i < sc->c.n_sessions && i < TPM_MAX_SESSIONS; i++) {
		const struct tpm_session *ts = &sc->c.sess[i];
		struct rsess *ars = ts->handle == TPM_RS_PW ? NULL : sess_find(x, ts->handle);
		if (!ars) {
			note(x, REPLAY_REFUSED, sc->c.cc,
			     "StartAuthSession: session 0x%08x was started before the trace (or "
			     "refused)",
			     ts->handle);
			return 0;
		}
		a[na].is_sess = 1;
		a[na].s = &ars->s;
		a[na].rs = ars;
		a[na++].attrs = ts->attrs;
	}
	if (na) {
		int e = name_of(x, tpm_key, rk, &names[0]);
		if (!e)
			e = name_of(x, bind, rb, &names[1]);
		if (e == -ENOENT) {
			note(x, REPLAY_REFUSED, sc->c.cc,
			     "StartAuthSession: the Name of tpmKey or bind is unknown");
			return 0;
		}
		if (e)
			return e;
	}
	struct sess s;
	int rc = start_raw(x, rk, key, rb, ba ? ba->value : NULL, ba ? ba->len : 0, type, sym, bits,
			   mode, hash, nc_len, &s, a, na, names);
	if (rc == -ENOTSUP) {
		note(x, REPLAY_REFUSED, sc->c.cc,
		     "StartAuthSession: cannot salt to the key 0x%08x (neither ECC nor RSA, or its "
		     "public area is unknown)",
		     tpm_key);
		return 0;
	}
	if (rc)
		return rc < 0 ? rc : 0;
	struct rsess *rs = sess_find(x, sc->rsp_handle);
	for (int i = 0; !rs && i < MAX_SESS; i++)
		if (!x->sess[i].used)
			rs = &x->sess[i];
	if (!rs)
		rs = &x->sess[sc->rsp_handle % MAX_SESS];
	memset(rs, 0, sizeof *rs);
	rs->s = s;
	rs->used = 1;
	rs->rec = sc->rsp_handle;
	rs->type = type;
	rs->bound = bind != TPM_RH_NULL;
	rs->bind_name = bind_name;
	rs->client = sc->client;
	return 0;
}

/* ---- contexts (Part 3 28) ---------------------------------------------- */

static struct ctxmap *ctx_find(struct rp *x, const uint8_t *d)
{
	for (size_t i = x->n_ctx; i-- > 0;)
		if (!memcmp(x->ctx[i].digest, d, 32))
			return &x->ctx[i];
	return NULL;
}

static int ctx_add(struct rp *x, const uint8_t *rec_blob, size_t rec_len, const uint8_t *blob,
		   size_t len, uint32_t rec_handle)
{
	if (x->n_ctx == x->cap_ctx) {
		size_t nc = x->cap_ctx ? 2 * x->cap_ctx : 16;
		struct ctxmap *m = realloc(x->ctx, nc * sizeof *m);
		if (!m)
			return -ENOMEM;
		x->ctx = m;
		x->cap_ctx = nc;
	}
	struct ctxmap *m = &x->ctx[x->n_ctx];
	memset(m, 0, sizeof *m);
	if (!(m->blob = malloc(len)))
		return -ENOMEM;
	memcpy(m->blob, blob, len);
	m->len = len;
	sha256(x, rec_blob, rec_len, m->digest);
	m->rec_handle = rec_handle;
	struct obj *o = obj_find(x, rec_handle);
	if (o && (rec_handle >> 24) == 0x80) {
		m->o = *o;
		m->is_obj = 1;
	}
	x->n_ctx++;
	return 0;
}

static struct privmap *priv_find(struct rp *x, const uint8_t *tpm2b, size_t len)
{
	uint8_t d[32];
	sha256(x, tpm2b, len, d);
	for (size_t i = x->n_priv; i-- > 0;)
		if (!memcmp(x->priv[i].digest, d, 32))
			return &x->priv[i];
	return NULL;
}

static int priv_add(struct rp *x, const uint8_t *rec, size_t rec_len, const uint8_t *priv,
		    size_t privlen, const uint8_t *pub, size_t publen)
{
	if (x->n_priv == x->cap_priv) {
		size_t nc = x->cap_priv ? 2 * x->cap_priv : 16;
		struct privmap *m = realloc(x->priv, nc * sizeof *m);
		if (!m)
			return -ENOMEM;
		x->priv = m;
		x->cap_priv = nc;
	}
	struct privmap *m = &x->priv[x->n_priv];
	memset(m, 0, sizeof *m);
	if (!(m->priv = malloc(privlen + publen + 1)))
		return -ENOMEM;
	memcpy(m->priv, priv, privlen);
	m->privlen = privlen;
	if (pub) {
		m->pub = m->priv + privlen;
		memcpy(m->pub, pub, publen);
		m->publen = publen;
	}
	sha256(x, rec, rec_len, m->digest);
	x->n_priv++;
	return 0;
}

/* Recorded response parameters of the current command (after handles). */
static int rec_rsp_params(struct rp *x, const uint8_t **p, size_t *len)
{
	struct tpm_rsp rr;
	if (!x->cur->rsp || tpm_rsp_decode(x->cur->rsp, x->cur->rsp_len, x->cur->c.cc, &rr) ||
	    rr.rc)
		return -ENOENT;
	*p = x->cur->rsp + rr.param_off;
	*len = rr.param_size;
	return 0;
}

static int context_load(struct rp *x)
{
	struct src_cmd *sc = x->cur;
	uint8_t d[32], cmd[TPM_MAX_MESSAGE];
	sha256(x, sc->cmd + sc->c.param_off, sc->c.param_size, d);
	struct ctxmap *m = ctx_find(x, d);
	if (!m && !x->spawned) {
		/* Not saved during this replay: on the TPM that saved it (same
		 * boot), the recorded blob may still load. */
		int rc = xfer(x, sc->cmd, sc->len);
		if (rc < 0)
			return rc;
		if (!rc && x->t.rsp_len >= TPM_HEADER_SIZE + 4 && (sc->rsp_handle >> 24) == 0x80) {
			struct obj *o =
			    obj_add(x, sc->rsp_handle, wire_get_u32(x->t.rsp + TPM_HEADER_SIZE));
			o->created = 1;
			o->client = sc->client;
		}
		if (rc)
			x->res->failed++;
		if (rc)
			note(x, REPLAY__OUTCOMES, sc->c.cc,
			     "ContextLoad of a context saved before the trace: the target answered "
			     "0x%x",
			     rc);
		return 0;
	}
	if (!m) {
		note(x, REPLAY_REFUSED, sc->c.cc,
		     "ContextLoad of a context saved before the trace started (its blob only "
		     "loads on the TPM that saved it)");
		return 0;
	}
	if (m->len + TPM_HEADER_SIZE > sizeof cmd)
		return fail(x, -ENOBUFS, "context too large");
	wire_put_u16(cmd, TPM_ST_NO_SESSIONS);
	wire_put_u32(cmd + 2, (uint32_t)(m->len + TPM_HEADER_SIZE));
	wire_put_u32(cmd + 6, TPM_CC_ContextLoad);
	memcpy(cmd + TPM_HEADER_SIZE, m->blob, m->len);
	int rc = xfer(x, cmd, m->len + TPM_HEADER_SIZE);
	if (rc)
		return rc < 0 ? rc : 0;
	if (x->t.rsp_len < TPM_HEADER_SIZE + 4)
		return fail(x, -EPROTO, "short ContextLoad response");
	uint32_t rep = wire_get_u32(x->t.rsp + TPM_HEADER_SIZE);
	if ((sc->rsp_handle >> 24) == 0x80) {
		struct obj *o = obj_add(x, sc->rsp_handle, rep);
		if (m->is_obj) {
			*o = m->o;
			o->rec = sc->rsp_handle;
			o->rep = rep;
			o->used = 1;
		}
		/* Loaded into this client's space (rm_spaces), whoever saved it. */
		o->created = 1;
		o->client = sc->client;
	} else {
		struct rsess *s = sess_find(x, sc->rsp_handle);
		if (s) {
			s->s.handle = rep;
			s->client = sc->client;
		}
	}
	return 0;
}

/* ---- redacted bytes -------------------------------------------------- */

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* The recorder zeroes secrets and keeps sizes (model/tpm/redact.c). Replaces
 * what was zeroed by a valid substitute, or refuses (returns 1). */
static int unredact(struct rp *x, uint8_t *p, size_t *plen, size_t cap)
{
	uint32_t cc = x->cur->c.cc;
	if (!(x->cur->flags & REC_F_REDACTED) || *plen < 2)
		return 0;
	size_t n = wire_get_u16(p);
	if (n + 2 > *plen || !n || !all_zero(p + 2, n))
		return 0;
	switch (cc) {
	case TPM_CC_Create:
	case TPM_CC_CreatePrimary:
	case TPM_CC_CreateLoaded: {
		/* TPM2B_SENSITIVE_CREATE {userAuth, data} (Part 2 11.1.15). Four
		 * zero bytes are both empty: the original exactly. */
		if (n == 4)
			return 0;
		uint32_t attrs = 0;
		if (*plen >= 2 + n + 2 + 8)
			attrs = wire_get_u32(p + 2 + n + 2 + 4);
		/* sensitiveDataOrigin: the TPM makes the key, data must be empty
		 * (Part 3 12.1); otherwise keep the length of the sealed data. */
		size_t data = attrs & TPMA_OBJECT_SENSITIVEDATAORIGIN ? 0 : n - 4;
		size_t newn = 4 + data;
		if (*plen - n + newn > cap)
			return 0;
		memmove(p + 2 + newn, p + 2 + n, *plen - 2 - n);
		wire_put_u16(p, (uint16_t)newn);
		memset(p + 2, 0, newn);
		wire_put_u16(p + 4, (uint16_t)data);
		*plen = *plen - n + newn;
		note(x, REPLAY_SUBSTITUTED, cc,
		     "%s: sensitive area redacted when recording; sent empty userAuth and %zu "
		     "zero bytes of data",
		     tpm_cc_name(cc), data);
		return 0;
	}
	case TPM_CC_HierarchyChangeAuth:
	case TPM_CC_NV_ChangeAuth:
	case TPM_CC_ObjectChangeAuth:
	case TPM_CC_NV_DefineSpace:
	case TPM_CC_NV_DefineSpace2:
	case TPM_CC_PCR_SetAuthValue:
	case TPM_CC_HMAC_Start:
	case TPM_CC_HashSequenceStart:
		/* all-zero authValue = empty once trailing zeros go (Part 1 19.6.4.3) */
		note(x, REPLAY_SUBSTITUTED, cc,
		     "%s: authValue redacted when recording; the zeroed value is an empty "
		     "authValue",
		     tpm_cc_name(cc));
		return 0;
	case TPM_CC_Duplicate:
		note(x, REPLAY_SUBSTITUTED, cc,
		     "Duplicate: encryptionKeyIn redacted; an all-zero key of the same size used");
		return 0;
	case TPM_CC_NV_Write:
	case TPM_CC_RSA_Encrypt:
	case TPM_CC_EncryptDecrypt2:
	case TPM_CC_ECC_Encrypt:
	case TPM_CC_MakeCredential:
	case TPM_CC_StirRandom:
		/* Data, not a key: zeros of the same size cost the TPM the same. */
		note(x, REPLAY_SUBSTITUTED, cc,
		     "%s: data redacted when recording; %zu zero bytes of the same size sent",
		     tpm_cc_name(cc), n);
		return 0;
	}
	note(x, REPLAY_REFUSED, cc, "%s: its secret first parameter was redacted when recording",
	     tpm_cc_name(cc));
	return 1;
}

/* The authValue for authorization handle i: --auth, else the recorded
 * password when it was kept, else empty. */
static void auth_value(struct rp *x, unsigned i, const uint8_t **v, size_t *len)
{
	const struct src_cmd *sc = x->cur;
	const struct replay_auth *a = i < sc->c.n_handles ? auth_for(x, sc->c.handles[i]) : NULL;
	*v = NULL;
	*len = 0;
	if (a) {
		*v = a->value;
		*len = a->len;
		return;
	}
	if (i >= sc->c.n_sessions || sc->c.sess[i].handle != TPM_RS_PW || !sc->c.sess[i].hmac_size)
		return;
	const uint8_t *p = sc->cmd + sc->c.sess[i].hmac_off;
	if (all_zero(p, sc->c.sess[i].hmac_size)) {
		if (sc->flags & REC_F_REDACTED)
			note(x, REPLAY_SUBSTITUTED, sc->c.cc,
			     "password of 0x%08x redacted when recording: sent empty (give --auth)",
			     sc->c.handles[i]);
		return;
	}
	*v = p;
	*len = sc->c.sess[i].hmac_size;
}

/* The authValues a successful command gave entities, from the parameters
 * the replay sent (Part 3: NV_DefineSpace 31.3, NV_ChangeAuth 31.14,
 * HierarchyChangeAuth 24.8, CreatePrimary 24.1, CreateLoaded 12.9, Create
 * 12.1 for a later Load 12.2). A transient handle that is flushed or taken
 * by a new object forgets what it had. */
static void learn_from(struct rp *x, const uint8_t *sent, size_t sent_len, size_t npriv0)
{
	struct src_cmd *sc = x->cur;
	const struct tpm_cmd *c = &sc->c;
	struct wire_rd q;
	const uint8_t *v;
	uint16_t n;
	wire_rd_init(&q, sent, sent_len);
	switch (c->cc) {
	case TPM_CC_NV_DefineSpace: {
		v = wire_tpm2b(&q, &n);
		wire_u16(&q); /* TPM2B_NV_PUBLIC size, then nvIndex */
		uint32_t idx = wire_u32(&q);
		if (!q.err)
			learn_auth(x, idx, v, n);
		break;
	}
	case TPM_CC_NV_ChangeAuth:
	case TPM_CC_HierarchyChangeAuth:
		v = wire_tpm2b(&q, &n);
		if (!q.err && c->n_handles)
			learn_auth(x, c->handles[0], v, n);
		break;
	case TPM_CC_NV_UndefineSpace:
	case TPM_CC_NV_UndefineSpaceSpecial:
		if (c->n_handles >= 2 && c->cc == TPM_CC_NV_UndefineSpace)
			learn_auth(x, c->handles[1], NULL, 0);
		else if (c->n_handles)
			learn_auth(x, c->handles[0], NULL, 0);
		break;
	case TPM_CC_CreatePrimary:
	case TPM_CC_CreateLoaded:
		v = sensitive_create_auth(&q, &n);
		if (sc->rsp_handle)
			learn_auth(x, sc->rsp_handle, v, n);
		break;
	case TPM_CC_Create:
		v = sensitive_create_auth(&q, &n);
		if (v && x->n_priv == npriv0 + 1 && n <= sizeof x->priv[0].auth.value) {
			/* capture() just mapped this Create's outPrivate. */
			struct privmap *m = &x->priv[x->n_priv - 1];
			m->has_auth = 1;
			m->auth.len = n;
			memcpy(m->auth.value, v, n);
		}
		break;
	case TPM_CC_Load: {
		/* replay_original looked the blob up already */
		const struct privmap *m = sc->load_priv >= 0 ? &x->priv[sc->load_priv] : NULL;
		if (sc->rsp_handle)
			learn_auth(x, sc->rsp_handle, m && m->has_auth ? m->auth.value : NULL,
				   m ? m->auth.len : 0);
		break;
	}
	case TPM_CC_LoadExternal:
		if (sc->rsp_handle)
			learn_auth(x, sc->rsp_handle, NULL, 0);
		break;
	case TPM_CC_EvictControl: {
		/* A transient object made persistent keeps its authValue; a
		 * persistent one evicted is gone. */
		uint32_t ph = wire_u32(&q);
		const struct replay_auth *a = NULL;
		if (q.err || c->n_handles < 2)
			break;
		for (unsigned i = 0; i < x->n_learned; i++)
			if (x->learned[i].handle == c->handles[1])
				a = &x->learned[i];
		if ((c->handles[1] >> 24) == 0x81)
			learn_auth(x, ph, NULL, 0);
		else if (a) {
			struct replay_auth copy = *a;
			learn_auth(x, ph, copy.value, copy.len);
		}
		break;
	}
	case TPM_CC_FlushContext:
		if (c->param_size >= 4)
			learn_auth(x, wire_get_u32(sc->cmd + c->param_off), NULL, 0);
		break;
	default:
		break;
	}
}

static int in_list(const uint32_t *l, unsigned n, uint32_t h)
{
	for (unsigned i = 0; i < n; i++)
		if (l[i] == h)
			return 1;
	return 0;
}

static void list_add(uint32_t *l, unsigned *n, uint32_t h)
{
	if (!in_list(l, *n, h) && *n < MADE_MAX)
		l[(*n)++] = h;
}

static void list_del(uint32_t *l, unsigned *n, uint32_t h)
{
	for (unsigned i = 0; i < *n; i++)
		if (l[i] == h) {
			l[i] = l[--*n];
			return;
		}
}

/* NV indices and persistent objects the run made (and removed again). */
static void track_made(struct rp *x, const uint32_t *hs, const uint8_t *sent, size_t sent_len)
{
	const struct tpm_cmd *c = &x->cur->c;
	struct wire_rd q;
	uint16_t n;
	wire_rd_init(&q, sent, sent_len);
	switch (c->cc) {
	case TPM_CC_NV_DefineSpace: {
		wire_tpm2b(&q, &n); /* auth */
		wire_u16(&q);	    /* TPM2B_NV_PUBLIC size, then nvIndex */
		uint32_t idx = wire_u32(&q);
		if (!q.err)
			list_add(x->made_nv, &x->n_made_nv, idx);
		break;
	}
	case TPM_CC_NV_UndefineSpace:
		if (c->n_handles >= 2)
			list_del(x->made_nv, &x->n_made_nv, c->handles[1]);
		break;
	case TPM_CC_NV_UndefineSpaceSpecial:
		if (c->n_handles >= 1)
			list_del(x->made_nv, &x->n_made_nv, c->handles[0]);
		break;
	case TPM_CC_EvictControl: {
		uint32_t ph = wire_u32(&q);
		if (q.err || c->n_handles < 2)
			break;
		if ((hs[1] >> 24) == 0x81)
			list_del(x->made_persist, &x->n_made_persist, hs[1]);
		else
			list_add(x->made_persist, &x->n_made_persist, ph);
		break;
	}
	}
}

/* What a successful command tells about handles, Names and contexts. */
static void capture(struct rp *x, const uint32_t *hs, const uint8_t *pp, size_t pl,
		    struct authent *a, unsigned na, const uint8_t *sent, size_t sent_len)
{
	size_t npriv0 = x->n_priv;
	struct src_cmd *sc = x->cur;
	const struct tpm_cmd *c = &sc->c;
	struct wire_rd r, q;
	uint16_t n;
	struct obj *o = NULL;
	if (c->info && c->info->handles_out && (sc->rsp_handle >> 24) == 0x80 &&
	    x->t.rsp_len >= TPM_HEADER_SIZE + 4) {
		o = obj_add(x, sc->rsp_handle, wire_get_u32(x->t.rsp + TPM_HEADER_SIZE));
		o->created = 1;
		o->client = sc->client;
	}
	wire_rd_init(&r, pp, pl);
	wire_rd_init(&q, sent, sent_len);
	switch (c->cc) {
	case TPM_CC_Create:
	case TPM_CC_Import:
	case TPM_CC_ObjectChangeAuth: {
		const uint8_t *rp;
		size_t rl, po = 0;
		uint16_t rn, pn;
		wire_tpm2b(&r, &n);
		size_t privlen = r.off;
		wire_tpm2b(&r, &pn);
		size_t publen = c->cc == TPM_CC_Create && !r.err ? r.off - privlen : 0;
		po = privlen;
		if (rec_rsp_params(x, &rp, &rl) || rl < 2 || (rn = wire_get_u16(rp)) + 2u > rl ||
		    privlen > pl)
			break;
		if (priv_add(x, rp, rn + 2u, pp, privlen, publen ? pp + po : NULL, publen))
			fail(x, -ENOMEM, "out of memory");
		break;
	}
	case TPM_CC_CreatePrimary:
	case TPM_CC_CreateLoaded: {
		if (c->cc == TPM_CC_CreateLoaded)
			wire_tpm2b(&r, &n); /* outPrivate */
		size_t po = r.off;
		wire_tpm2b(&r, &n);
		size_t plen = r.off - po;
		if (c->cc == TPM_CC_CreatePrimary) {
			wire_tpm2b(&r, &n); /* creationData */
			wire_tpm2b(&r, &n); /* creationHash */
			wire_u16(&r);	    /* creationTicket */
			wire_u32(&r);
			wire_tpm2b(&r, &n);
		}
		const uint8_t *name = wire_tpm2b(&r, &n);
		if (o && !r.err) {
			obj_set_pub(o, pp + po, plen);
			obj_set_name(o, name, n);
		}
		break;
	}
	case TPM_CC_Load:
	case TPM_CC_LoadExternal: {
		const uint8_t *name = wire_tpm2b(&r, &n);
		if (o && !r.err)
			obj_set_name(o, name, n);
		wire_tpm2b(&q, &n); /* inPrivate / inPrivate (TPM2B_SENSITIVE) */
		size_t po = q.off;
		wire_tpm2b(&q, &n);
		if (o && !q.err)
			obj_set_pub(o, sent + po, q.off - po);
		break;
	}
	case TPM_CC_ReadPublic:
	case TPM_CC_NV_ReadPublic: {
		size_t po = r.off;
		wire_tpm2b(&r, &n);
		size_t plen = r.off - po;
		const uint8_t *name = wire_tpm2b(&r, &n);
		if (r.err)
			break;
		o = obj_find(x, c->handles[0]);
		if (!o)
			o = obj_add(x, c->handles[0], hs[0]);
		if (c->cc == TPM_CC_ReadPublic)
			obj_set_pub(o, pp + po, plen);
		obj_set_name(o, name, n);
		break;
	}
	case TPM_CC_NV_Write:
	case TPM_CC_NV_Increment:
	case TPM_CC_NV_Extend:
	case TPM_CC_NV_SetBits:
	case TPM_CC_NV_WriteLock:
	case TPM_CC_NV_ReadLock:
	case TPM_CC_NV_UndefineSpace:
	case TPM_CC_NV_UndefineSpaceSpecial:
	case TPM_CC_NV_ChangeAuth:
	case TPM_CC_NV_GlobalWriteLock:
	case TPM_CC_EvictControl:
		/* The Name of an NV index changes with its attributes (written,
		 * locked; Part 1 37); persistent objects come and go. */
		for (int i = 0; i < MAX_OBJS; i++) {
			uint8_t t = (uint8_t)(x->objs[i].rec >> 24);
			if (x->objs[i].used && (t == 0x01 || t == 0x81))
				x->objs[i].used = 0;
		}
		break;
	case TPM_CC_ContextSave: {
		const uint8_t *rp;
		size_t rl;
		if (!rec_rsp_params(x, &rp, &rl) && ctx_add(x, rp, rl, pp, pl, c->handles[0]))
			fail(x, -ENOMEM, "out of memory");
		break;
	}
	case TPM_CC_FlushContext: {
		uint32_t h = c->param_size >= 4 ? wire_get_u32(sc->cmd + c->param_off) : 0;
		struct obj *f = obj_find(x, h);
		if ((h >> 24) == 0x80 && f)
			f->used = 0;
		else
			sess_drop(x, h);
		break;
	}
	case TPM_CC_PolicyAuthValue:
	case TPM_CC_PolicyPassword:
	case TPM_CC_PolicyRestart: {
		struct rsess *s = sess_find(x, c->handles[0]);
		if (s) {
			s->pol_authvalue = c->cc == TPM_CC_PolicyAuthValue;
			s->pol_password = c->cc == TPM_CC_PolicyPassword;
		}
		break;
	}
	}
	learn_from(x, sent, sent_len, npriv0);
	track_made(x, hs, sent, sent_len);
	/* Part 1 19.6.4: without continueSession the TPM ends the session. */
	for (unsigned i = 0; i < na; i++) {
		if (!a[i].is_sess || (a[i].attrs & TPMA_SESSION_CONTINUESESSION))
			continue;
		if (a[i].rs)
			a[i].rs->used = 0;
		else
			x->ks_live = 0;
	}
}

enum { PLAN_RECORDED, PLAN_PASSWORD, PLAN_KERNEL };

static int emit(void *ctx, const struct pol_out *o);

/* A protected command finds no kernel session because an earlier command
 * failed on the target (not in the recording) and the session was flushed:
 * start one as the policy would. */
static int kernel_resume(struct rp *x)
{
	struct pol_out o = {.role = POL_ROLE_SESSION_SETUP};
	int rc = 0, ctxload = x->pol.salt == POL_SALT_NULL_ECC &&
			      x->pol.nullkey == POL_NULLKEY_CONTEXT_LOAD;
	note(x, REPLAY__OUTCOMES, x->cur->c.cc,
	     "session started again after a failed command (not in the policy's sequence)");
	if (ctxload) {
		o.cc = TPM_CC_ContextLoad;
		if ((rc = emit(x, &o)))
			return rc;
	}
	o.cc = TPM_CC_StartAuthSession;
	o.variant = x->pol.salt == POL_SALT_NULL_ECC	 ? POL_VAR_SALTED_ECC
		    : x->pol.salt == POL_SALT_PERSISTENT ? POL_VAR_SALTED
							 : POL_VAR_UNSALTED;
	o.handle = x->pol.salt_handle;
	if ((rc = emit(x, &o)))
		return rc;
	if (ctxload) {
		o.cc = TPM_CC_FlushContext;
		rc = emit(x, &o);
	}
	x->cur_role = POL_ROLE_ORIGINAL;
	return rc;
}

/* A destructive command on an entity this run made itself: undefining an
 * NV index it defined, evicting a persistent object it made (or making one:
 * undone at the end). It changes nothing the target had before the run. */
static int on_own_entity(struct rp *x, const struct tpm_cmd *c)
{
	switch (c->cc) {
	case TPM_CC_NV_UndefineSpace:
		return c->n_handles >= 2 && in_list(x->made_nv, x->n_made_nv, c->handles[1]);
	case TPM_CC_NV_UndefineSpaceSpecial:
	case TPM_CC_NV_ChangeAuth:
		return c->n_handles >= 1 && in_list(x->made_nv, x->n_made_nv, c->handles[0]);
	case TPM_CC_EvictControl:
		return c->n_handles >= 2 &&
		       ((c->handles[1] >> 24) == 0x80 ||
			in_list(x->made_persist, x->n_made_persist, c->handles[1]));
	}
	return 0;
}

static void snapshot(struct rp *x);

static int replay_original(struct rp *x, const struct pol_out *po)
{
	struct src_cmd *sc = x->cur;
	const struct tpm_cmd *c = &sc->c;
	const struct tpm_cc_info *ci = c->info;
	uint32_t hs[3] = {0};
	struct tpm_name names[3];
	uint8_t params[TPM_MAX_MESSAGE], *pp = NULL;
	size_t plen, pl = 0;
	struct authent a[TPM_MAX_SESSIONS];
	unsigned na = 0;
	int rc, need_names = 0;
	uint8_t sent[TPM_MAX_MESSAGE];
	size_t sent_len = 0;

	memset(a, 0, sizeof a);
	if (!x->spawned && !x->o->allow_destructive && replay_is_destructive(c->cc) &&
	    !on_own_entity(x, c)) {
		note(x, REPLAY_REFUSED, c->cc,
		     "%s is destructive and the target is not the spawned swtpm "
		     "(--allow-destructive)",
		     tpm_cc_name(c->cc));
		return 0;
	}
	if (c->malformed) {
		/* The TPM got these bytes when recording and answered: send them
		 * again as they are. */
		rc = xfer(x, sc->cmd, sc->len);
		goto compare;
	}
	if (c->cc == TPM_CC_StartAuthSession)
		return start_session(x);
	if (c->cc == TPM_CC_ContextLoad)
		return context_load(x);
	for (unsigned i = 0; i < c->n_handles; i++) {
		if (map_handle(x, c->handles[i], &hs[i])) {
			note(x, REPLAY_REFUSED, c->cc,
			     "%s: handle 0x%08x was not created in this replay (made before the "
			     "trace "
			     "started, or by a command that was refused or failed)",
			     tpm_cc_name(c->cc), c->handles[i]);
			return 0;
		}
	}
	plen = c->param_size;
	memcpy(params, sc->cmd + c->param_off, plen);
	if (c->cc == TPM_CC_FlushContext && plen == 4) {
		uint32_t h;
		if (map_handle(x, wire_get_u32(params), &h)) {
			note(x, REPLAY_REFUSED, c->cc,
			     "FlushContext of 0x%08x, made before the trace started",
			     wire_get_u32(params));
			return 0;
		}
		wire_put_u32(params, h);
	}
	if (unredact(x, params, &plen, sizeof params))
		return 0;
	if (c->cc == TPM_CC_Load && plen >= 2 && wire_get_u16(params) + 2u <= plen) {
		size_t pvl = wire_get_u16(params) + 2u;
		struct privmap *m = priv_find(x, params, pvl);
		sc->load_priv = m ? m - x->priv : -1;
		if (m) {
			uint8_t np[TPM_MAX_MESSAGE];
			size_t rest = plen - pvl, nl;
			const uint8_t *pub = params + pvl;
			size_t publ = rest;
			if (m->pub) {
				pub = m->pub;
				publ = m->publen; /* inPublic is the only other parameter */
			}
			nl = m->privlen + publ;
			if (nl > sizeof np)
				return fail(x, -ENOBUFS, "Load too large");
			memcpy(np, m->priv, m->privlen);
			memcpy(np + m->privlen, pub, publ);
			memcpy(params, np, nl);
			plen = nl;
		}
	}
	/* A parameter that was sent encrypted under a recorded session's key
	 * cannot be recovered: that key is gone. */
	for (unsigned i = 0; i < c->n_sessions; i++)
		if ((c->sess[i].attrs & TPMA_SESSION_DECRYPT) && plen >= 2 &&
		    wire_get_u16(params)) {
			note(x, REPLAY_REFUSED, c->cc,
			     "%s: first parameter was encrypted under a recorded session key",
			     tpm_cc_name(c->cc));
			return 0;
		}

	int plan = PLAN_RECORDED;
	if (policy_auth_kept(c->auth_kind))
		plan = PLAN_RECORDED; /* as the expansion did (policy_auth_kept) */
	else if (x->pol.mode == POL_MODE_PASSWORD)
		plan = PLAN_PASSWORD;
	else if (x->pol.mode == POL_MODE_SESSIONS && policy_kernel_protects(c->cc))
		plan = po->auth_kind == TPM_AUTH_PASSWORD ? PLAN_PASSWORD
		       : po->auth_kind >= TPM_AUTH_HMAC	  ? PLAN_KERNEL
							  : PLAN_RECORDED;
	unsigned n_auth = ci ? ci->auth_handles : 0;
	const uint8_t *av[TPM_MAX_SESSIONS];
	size_t avl[TPM_MAX_SESSIONS];
	for (unsigned i = 0; i < TPM_MAX_SESSIONS; i++)
		auth_value(x, i, &av[i], &avl[i]);
	if (plan == PLAN_PASSWORD) {
		for (unsigned i = 0; po->auth_kind != TPM_AUTH_NONE && i < n_auth && i < 3; i++) {
			a[na].pw = av[i];
			a[na].attrs = po->sess_attrs;
			a[na++].pw_len = avl[i];
		}
	} else if (plan == PLAN_KERNEL) {
		if (!x->ks_live && (rc = kernel_resume(x)))
			return rc;
		a[0].is_sess = 1;
		a[0].s = &x->ks;
		a[0].attrs = po->sess_attrs;
		if (n_auth) {
			a[0].key_auth = av[0];
			a[0].key_auth_len = avl[0];
			a[0].inc_auth = 1;
		}
		na = 1;
		need_names = 1;
	} else {
		for (unsigned i = 0; i < c->n_sessions; i++) {
			const struct tpm_session *s = &c->sess[i];
			if (s->handle == TPM_RS_PW) {
				a[na].pw = i < n_auth ? av[i] : NULL;
				a[na].attrs = s->attrs;
				a[na++].pw_len = i < n_auth ? avl[i] : 0;
				continue;
			}
			struct rsess *rs = sess_find(x, s->handle);
			if (!rs) {
				note(x, REPLAY_REFUSED, c->cc,
				     "%s: session 0x%08x was started before the trace (or refused)",
				     tpm_cc_name(c->cc), s->handle);
				return 0;
			}
			a[na].is_sess = 1;
			a[na].s = &rs->s;
			a[na].rs = rs;
			a[na].attrs = s->attrs;
			need_names = 1;
			if (i < n_auth) {
				int use_auth = 1;
				if (rs->type != TPM_SE_HMAC) {
					use_auth = rs->pol_authvalue;
					if (rs->pol_password) {
						a[na].pw_in_hmac = 1;
						a[na].pw = av[i];
						a[na].pw_len = avl[i];
					}
				}
				a[na].key_auth = use_auth ? av[i] : NULL;
				a[na].key_auth_len = use_auth ? avl[i] : 0;
				a[na].inc_auth = use_auth;
			}
			na++;
		}
	}
	if (need_names) {
		for (unsigned i = 0; i < c->n_handles; i++) {
			rc = name_of(x, c->handles[i], hs[i], &names[i]);
			if (rc == -ENOENT) {
				note(x, REPLAY_REFUSED, c->cc, "%s: the Name of 0x%08x is unknown",
				     tpm_cc_name(c->cc), c->handles[i]);
				return 0;
			}
			if (rc)
				return rc;
		}
		/* Part 1 19.6.5: a session bound to the entity it authorizes
		 * leaves the authValue out of the HMAC key. */
		for (unsigned i = 0; i < na && i < c->n_handles; i++)
			if (a[i].rs && a[i].rs->bound && a[i].rs->type == TPM_SE_HMAC &&
			    a[i].rs->bind_name.size == names[i].size &&
			    !memcmp(a[i].rs->bind_name.b, names[i].b, names[i].size)) {
				a[i].key_auth = NULL;
				a[i].key_auth_len = 0;
				a[i].inc_auth = 0;
			}
	}
	/* Keep the second parameter as sent (Load's inPublic) before the first
	 * may be encrypted in place. */
	sent_len = plen;
	memcpy(sent, params, plen);
	struct replay_auth after;
	if (na && auth_after(c->cc, params, plen, &after))
		a[0].auth_after = &after;
	rc = send_auth(x, c->cc, hs, c->n_handles, names, a, na, params, plen, &pp, &pl);
	if (rc < 0)
		return rc;
	if (rc > 0 && plan == PLAN_KERNEL && x->ks_live && sc->has_rc && !sc->rc) {
		/* The kernel flushes its session when a command fails; the
		 * expansion, which follows the recording, did not expect this
		 * failure. */
		struct pol_out end = {.cc = TPM_CC_FlushContext, .role = POL_ROLE_SESSION_END};
		note(x, REPLAY__OUTCOMES, c->cc,
		     "%s failed where the recording succeeded: the kernel session was flushed",
		     tpm_cc_name(c->cc));
		int e = emit(x, &end);
		if (e)
			return e;
	}
	if (rc == 0)
		capture(x, hs, pp, pl, a, na, sent, sent_len);
compare:
	if (rc < 0)
		return rc;
	if (c->cc == TPM_CC_Startup && (!rc || (uint32_t)rc == TPM_RC_INITIALIZE) && !x->started) {
		x->started = 1;
		if (x->before_due)
			snapshot(x);
		for (unsigned i = 0; i < x->n_deferred && !x->fatal; i++)
			emit(x, &x->deferred[i]);
		x->n_deferred = 0;
		x->cur_role = POL_ROLE_ORIGINAL;
	}
	/* A Startup that the recording's TPM refused as already started (a
	 * client's at boot, after the firmware's) got the same answer here:
	 * compared as any command. */
	if (c->cc == TPM_CC_Startup && (uint32_t)rc == TPM_RC_INITIALIZE && !x->spawned &&
	    !(sc->has_rc && sc->rc == TPM_RC_INITIALIZE)) {
		note(x, REPLAY_SUBSTITUTED, c->cc, "Startup: the target was already started");
		return 0;
	}
	if (sc->has_rc && tpmconn_rc_is_retry(sc->rc) && !tpmconn_rc_is_retry((uint32_t)rc) &&
	    sc->len <= sizeof x->resub) {
		x->resub_armed = 1;
		x->resub_seq = sc->seq;
		x->resub_len = sc->len;
		memcpy(x->resub, sc->cmd, sc->len);
		x->resub_outcome = x->cur_outcome;
		snprintf(x->resub_reason, sizeof x->resub_reason, "%s", x->cur_reason);
		x->resub_ok = rc == 0 && !c->malformed && x->t.rsp_len <= sizeof x->resub_rsp &&
			      pl <= sizeof x->resub_pp && sent_len <= sizeof x->resub_sent;
		if (x->resub_ok) {
			memcpy(x->resub_hs, hs, sizeof x->resub_hs);
			x->resub_load_priv = sc->load_priv;
			x->resub_rsp_len = x->t.rsp_len;
			memcpy(x->resub_rsp, x->t.rsp, x->t.rsp_len);
			x->resub_pl = pl;
			if (pl)
				memcpy(x->resub_pp, pp, pl);
			x->resub_sent_len = sent_len;
			memcpy(x->resub_sent, sent, sent_len);
		}
	}
	if (!sc->has_rc || (uint32_t)rc != sc->rc) {
		struct replay_cc_stat *st = cc_stat(x->res, c->cc);
		if (st)
			st->rc_differs++;
		if (rc && (!sc->has_rc || sc->rc == 0)) {
			x->res->failed++;
			note(x, REPLAY__OUTCOMES, c->cc, "%s: the target answered 0x%x (%s)",
			     tpm_cc_name(c->cc), rc, tpm_rc_str((uint32_t)rc));
		}
	}
	return 0;
}

/* ---- policy steps ------------------------------------------------------ */

static int kstep(struct rp *x, int rc, const char *what)
{
	if (rc == -EIO)
		return fail(x, rc, "the target stopped answering (TCTI error 0x%x) during %s",
			    x->t.tss_rc, what);
	if (rc < 0)
		return fail(x, rc, "policy step %s failed: %s", what, strerror(-rc));
	if (rc > 0)
		return fail(x, -EPROTO, "policy step %s failed: TPM rc 0x%x (%s)", what, rc,
			    tpm_rc_str((uint32_t)rc));
	return 0;
}

static int emit(void *ctx, const struct pol_out *o)
{
	struct rp *x = ctx;
	uint64_t t0, tpm0;
	int rc = 0;
	if (x->fatal)
		return x->fatal;
	if (o->role != POL_ROLE_ORIGINAL && !x->started) {
		if (x->n_deferred == sizeof x->deferred / sizeof x->deferred[0])
			return fail(x, -EPROTO, "policy steps before TPM2_Startup");
		x->deferred[x->n_deferred] = *o;
		x->deferred[x->n_deferred++].src = NULL;
		return 0;
	}
	x->cur_role = o->role;
	switch (o->role) {
	case POL_ROLE_ORIGINAL:
		rc = replay_original(x, o);
		break;
	case POL_ROLE_NULLKEY_INIT:
		if (o->cc == TPM_CC_CreatePrimary)
			rc = kstep(x,
				   tpmconn_create_null_primary(&x->t, &x->cr, TPM_RH_NULL, &x->nk),
				   "CreatePrimary of the null key");
		else if (o->cc == TPM_CC_ContextSave)
			rc = kstep(x,
				   tpmconn_context_save(&x->t, x->nk.handle, x->nk_ctx,
							sizeof x->nk_ctx, &x->nk_ctx_len),
				   "ContextSave of the null key");
		else
			rc = kstep(x, tpmconn_flush(&x->t, x->nk.handle),
				   "FlushContext of the null key");
		break;
	case POL_ROLE_SESSION_SETUP:
		if (o->cc == TPM_CC_ContextLoad) {
			rc = kstep(
			    x, tpmconn_context_load(&x->t, x->nk_ctx, x->nk_ctx_len, &x->nk_loaded),
			    "ContextLoad of the null key");
		} else if (o->cc == TPM_CC_StartAuthSession) {
			t0 = mono_ns();
			tpm0 = x->res->tpm_ns;
			if (o->variant == POL_VAR_SALTED_ECC) {
				struct tpm_ecc_key k = x->nk;
				if (x->pol.nullkey == POL_NULLKEY_CONTEXT_LOAD)
					k.handle = x->nk_loaded;
				rc = tpmconn_start_salted(&x->t, &x->cr, &k, &x->ks);
				crypto_time(x, t0, tpm0);
			} else {
				/* salt=persistent:H (o->handle) or salt=none */
				struct obj *key = NULL;
				uint32_t h = o->variant == POL_VAR_SALTED ? o->handle : TPM_RH_NULL;
				if (h != TPM_RH_NULL && !(key = obj_find(x, h)))
					key = obj_add(x, h, h);
				rc = start_raw(x, h, key, TPM_RH_NULL, NULL, 0, TPM_SE_HMAC,
					       TPM_ALG_AES, 128, TPM_ALG_CFB, TPM_ALG_SHA256, 32,
					       &x->ks, NULL, 0, NULL);
				if (rc == -ENOTSUP)
					rc = fail(x, -ENOTSUP,
						  "salt=persistent:0x%08x: that key cannot salt a "
						  "session (not loaded, or neither ECC nor RSA)",
						  h);
			}
			rc = kstep(x, rc, "StartAuthSession");
			x->ks_live = !rc;
		} else {
			rc = kstep(x, tpmconn_flush(&x->t, x->nk_loaded),
				   "FlushContext of the null key");
		}
		break;
	case POL_ROLE_SESSION_END:
		if (x->ks_live)
			rc = kstep(x, tpmconn_flush(&x->t, x->ks.handle),
				   "FlushContext of the session");
		x->ks_live = 0;
		break;
	case POL_ROLE_NAME_LOOKUP: {
		uint32_t rep;
		struct tpm_name nm;
		if (!map_handle(x, o->handle, &rep)) {
			struct obj *ob = obj_find(x, o->handle);
			if (!ob)
				ob = obj_add(x, o->handle, rep);
			rc = read_public(x, rep, ob);
			if (rc > 0)
				rc = 0; /* the command itself will be refused or fail */
		}
		(void)nm;
		break;
	}
	}
	x->cur_role = POL_ROLE_ORIGINAL;
	return x->fatal ? x->fatal : (rc < 0 ? rc : 0);
}

/* ---- the run ------------------------------------------------------------ */

/* PCR_Read (Part 3 22.4) of all 24 PCRs of one bank, eight at a time; not
 * stored: the run's rows are the policy's sequence only. */
static int read_bank(struct rp *x, uint16_t alg, struct replay_bank *b)
{
	uint32_t want = 0xffffff;
	memset(b, 0, sizeof *b);
	b->alg = alg;
	for (int round = 0; round < 4 && want; round++) {
		uint8_t cmd[20];
		wire_put_u16(cmd, TPM_ST_NO_SESSIONS);
		wire_put_u32(cmd + 2, 20);
		wire_put_u32(cmd + 6, TPM_CC_PCR_Read);
		wire_put_u32(cmd + 10, 1);
		wire_put_u16(cmd + 14, alg);
		cmd[16] = 3;
		cmd[17] = (uint8_t)want;
		cmd[18] = (uint8_t)(want >> 8);
		cmd[19] = (uint8_t)(want >> 16);
		int rc = tpmconn_xfer(&x->t, cmd, sizeof cmd);
		if (rc || tpmconn_rc(&x->t))
			return rc ? rc : -EPROTO;
		struct wire_rd r;
		wire_rd_init(&r, x->t.rsp, x->t.rsp_len);
		wire_skip(&r, TPM_HEADER_SIZE + 4);
		uint32_t ns = wire_u32(&r), got = 0;
		for (uint32_t i = 0; i < ns && !r.err; i++) {
			uint16_t a = wire_u16(&r);
			uint8_t n = wire_u8(&r);
			const uint8_t *m = wire_skip(&r, n);
			if (a == alg && m)
				for (unsigned j = 0; j < n && j < 3; j++)
					got |= (uint32_t)m[j] << (8 * j);
		}
		uint32_t nd = wire_u32(&r);
		unsigned idx = 0;
		for (uint32_t i = 0; i < nd && !r.err; i++) {
			uint16_t dl;
			const uint8_t *d = wire_tpm2b(&r, &dl);
			while (idx < 24 && !(got & (1u << idx)))
				idx++;
			if (!d || idx == 24 || dl > 64)
				return -EPROTO;
			memcpy(b->v[idx], d, dl);
			b->size = (uint8_t)dl;
			b->mask |= 1u << idx;
			idx++;
		}
		if (r.err)
			return -EPROTO;
		if (!got)
			break; /* bank not allocated */
		want &= ~got;
	}
	return 0;
}

static int read_pcrs(struct rp *x)
{
	static const uint16_t algs[] = {TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384,
					TPM_ALG_SHA512};
	x->t.on_xfer = NULL;
	x->t.emu = NULL; /* the summary's reads are not part of the run */
	for (unsigned i = 0; i < 4; i++) {
		struct replay_bank *b = &x->res->banks[x->res->n_banks];
		int rc = read_bank(x, algs[i], b);
		if (rc == -EIO)
			return rc;
		if (!rc && b->mask)
			x->res->n_banks++;
	}
	return 0;
}

static int startup(struct rp *x)
{
	static const uint8_t su[12] = {0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x44, 0, 0};
	x->cur_role = ROLE_STARTUP;
	int rc = xfer(x, su, sizeof su);
	x->cur_role = POL_ROLE_ORIGINAL;
	if (rc < 0)
		return rc;
	if (rc && (uint32_t)rc != TPM_RC_INITIALIZE)
		return fail(x, -EPROTO, "TPM2_Startup answered 0x%x (%s)", rc,
			    tpm_rc_str((uint32_t)rc));
	x->started = 1;
	if (x->before_due)
		snapshot(x);
	return 0;
}

/* Reads the source trace's facts; 0 or -errno with res->err set. */
static int source_check(struct rp *x, sqlite3 *db)
{
	struct replay_result *res = x->res;
	sqlite3_stmt *st = NULL;
	int rc = -ENOENT;
	if (!res->source_id) {
		if (sqlite3_prepare_v2(
			db, "SELECT coalesce(max(id),0) FROM trace WHERE kind <> 'replay'", -1, &st,
			NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW)
			res->source_id = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		if (!res->source_id) {
			snprintf(res->err, sizeof res->err, "%s holds no trace to replay",
				 x->o->db_path);
			return -ENOENT;
		}
	}
	if (sqlite3_prepare_v2(db,
			       "SELECT payloads, (SELECT count(*) FROM command WHERE trace_id=?1),"
			       " (SELECT count(*) FROM command WHERE trace_id=?1 AND cmd IS NULL"
			       "   AND NOT flags & 2)"
			       " FROM trace WHERE id=?1",
			       -1, &st, NULL) != SQLITE_OK) {
		snprintf(res->err, sizeof res->err, "%s: %s", x->o->db_path, sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, res->source_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		snprintf(res->err, sizeof res->err, "%s: no trace %lld", x->o->db_path,
			 (long long)res->source_id);
		goto out;
	}
	const char *pl = (const char *)sqlite3_column_text(st, 0);
	res->source_commands = (uint64_t)sqlite3_column_int64(st, 1);
	if ((pl && !strcmp(pl, "none")) || sqlite3_column_int64(st, 2) > 0) {
		snprintf(res->err, sizeof res->err,
			 "%s: trace %lld was recorded without payloads (--payloads none): there "
			 "are no command bytes to replay",
			 x->o->db_path, (long long)res->source_id);
		rc = -ENODATA;
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/* The source side of the per-command-code comparison. A run that read the
 * whole trace summed it while streaming (src_stat_row); one that stopped
 * early asks SQLite for the whole trace's figures instead. Either way the
 * source codes come first, by code, then codes only the replay sent. */
static void src_stat_row(struct rp *x, sqlite3_stmt *st)
{
	if (sqlite3_column_type(st, 8) == SQLITE_NULL)
		return;
	struct replay_cc_stat *s = cc_stat(x->res, (uint32_t)sqlite3_column_int64(st, 8));
	if (s) {
		s->n_src++;
		s->src_ns += (uint64_t)sqlite3_column_int64(st, 9);
	}
}

static int cc_stat_order(const void *a, const void *b)
{
	const struct replay_cc_stat *p = a, *q = b;
	if (!p->n_src != !q->n_src)
		return p->n_src ? -1 : 1;
	if (p->n_src)
		return p->cc < q->cc ? -1 : p->cc > q->cc;
	return 0;
}

static void src_stats_finish(struct rp *x, sqlite3 *db, int streamed_all)
{
	struct replay_result *res = x->res;
	sqlite3_stmt *st = NULL;
	if (!streamed_all) {
		for (unsigned i = 0; i < res->n_cc; i++)
			res->cc[i].n_src = res->cc[i].src_ns = 0;
		if (sqlite3_prepare_v2(
			db,
			"SELECT cc, count(*), coalesce(sum(latency_ns),0) FROM command"
			" WHERE trace_id=? AND cc IS NOT NULL GROUP BY cc",
			-1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, res->source_id);
			while (sqlite3_step(st) == SQLITE_ROW) {
				struct replay_cc_stat *s =
				    cc_stat(res, (uint32_t)sqlite3_column_int64(st, 0));
				if (s) {
					s->n_src = (uint64_t)sqlite3_column_int64(st, 1);
					s->src_ns = (uint64_t)sqlite3_column_int64(st, 2);
				}
			}
		}
		sqlite3_finalize(st);
	}
	res->src_tpm_ns = 0;
	for (unsigned i = 0; i < res->n_cc; i++)
		res->src_tpm_ns += res->cc[i].src_ns;
	/* Insertion sort: stable, and the array is short. */
	for (unsigned i = 1; i < res->n_cc; i++) {
		struct replay_cc_stat v = res->cc[i];
		unsigned j = i;
		for (; j > 0 && cc_stat_order(&res->cc[j - 1], &v) > 0; j--)
			res->cc[j] = res->cc[j - 1];
		res->cc[j] = v;
	}
}

/* FlushContext of a target handle, sent for the replay's own bookkeeping
 * (role rm-client-end); a TPM error is not the trace's and is ignored. */
static int flush_target(struct rp *x, uint32_t rep)
{
	uint8_t cmd[14];
	wire_put_u16(cmd, TPM_ST_NO_SESSIONS);
	wire_put_u32(cmd + 2, sizeof cmd);
	wire_put_u32(cmd + 6, TPM_CC_FlushContext);
	wire_put_u32(cmd + 10, rep);
	int saved = x->cur_role, rc;
	x->cur_role = ROLE_CLIENT_END;
	rc = xfer(x, cmd, sizeof cmd);
	x->cur_role = saved;
	return rc < 0 ? rc : 0;
}

/* A client of a per-client-space trace sent its last command: what it still
 * has loaded goes, as when it closed /dev/tpmrm0. */
static void client_end(struct rp *x, uint32_t client)
{
	for (int i = 0; i < MAX_OBJS && !x->fatal; i++) {
		struct obj *o = &x->objs[i];
		if (o->used && o->created && o->client == client && (o->rec >> 24) == 0x80 &&
		    !flush_target(x, o->rep))
			o->used = 0;
	}
	for (int i = 0; i < MAX_SESS && !x->fatal; i++) {
		struct rsess *r = &x->sess[i];
		if (r->used && r->client == client && !flush_target(x, r->s.handle))
			r->used = 0;
	}
}

/* rm_spaces: the trace came from tpm-cuse-proxy in front of a /dev/tpmrmN
 * node (source "cuse:NODE <- .../tpmrmN"), where each client had its own
 * resource-manager space; cl_last: each client's last command. */
static int rm_spaces_init(struct rp *x, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	const char *src = NULL, *be;
	if (sqlite3_prepare_v2(db, "SELECT source FROM trace WHERE id=?", -1, &st, NULL) !=
	    SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, x->res->source_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		src = (const char *)sqlite3_column_text(st, 0);
	be = src && !strncmp(src, "cuse:", 5) ? strstr(src, " <- ") : NULL;
	if (be) {
		const char *base = strrchr(be + 4, '/');
		x->rm_spaces = !strncmp(base ? base + 1 : be + 4, "tpmrm", 5);
	}
	sqlite3_finalize(st);
	if (!x->rm_spaces)
		return 0;
	if (sqlite3_prepare_v2(
		db,
		"SELECT client_id, max(seq) FROM command WHERE trace_id=? AND"
		" client_id BETWEEN 0 AND 65535 GROUP BY client_id ORDER BY client_id",
		-1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, x->res->source_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		size_t id = (size_t)sqlite3_column_int64(st, 0);
		if (id >= x->n_cl) {
			uint64_t *n = realloc(x->cl_last, (id + 1) * sizeof *n);
			if (!n) {
				sqlite3_finalize(st);
				return -ENOMEM;
			}
			memset(n + x->n_cl, 0, (id + 1 - x->n_cl) * sizeof *n);
			x->cl_last = n;
			x->n_cl = id + 1;
		}
		x->cl_last[id] = (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return 0;
}

/* One source row: checks, then hands it to the policy expansion. */
static int one_command(struct rp *x, sqlite3_stmt *st)
{
	struct src_cmd sc;
	memset(&sc, 0, sizeof sc);
	sc.load_priv = -1;
	sc.seq = (uint64_t)sqlite3_column_int64(st, 1);
	sc.cmd = sqlite3_column_blob(st, 2);
	sc.len = (size_t)sqlite3_column_bytes(st, 2);
	sc.rsp = sqlite3_column_blob(st, 3);
	sc.rsp_len = (size_t)sqlite3_column_bytes(st, 3);
	sc.flags = (uint32_t)sqlite3_column_int64(st, 4);
	sc.has_rc = sqlite3_column_type(st, 5) != SQLITE_NULL;
	sc.rc = (uint32_t)sqlite3_column_int64(st, 5);
	sc.rsp_handle = (uint32_t)sqlite3_column_int64(st, 6);
	sc.client = (uint32_t)sqlite3_column_int64(st, 10);
	x->cur = &sc;
	x->cur_outcome = REPLAY_FAITHFUL;
	x->cur_reason[0] = 0;
	int rc = 0;
	if (sc.flags & REC_F_MALFORMED && sc.flags & REC_F_NO_RESPONSE) {
		/* The recorder never forwarded these bytes (recorder_malformed). */
		note(x, REPLAY_SKIPPED, 0, "malformed when recorded and never sent to the TPM");
		goto done;
	}
	/* A stored command that cannot be sent is refused with its reason and
	 * the replay goes on, as for any other refusal (what depended on it is
	 * refused in turn). */
	if (!sc.cmd || sc.len < TPM_HEADER_SIZE) {
		note(x, REPLAY_REFUSED, 0,
		     "%s: trace %lld, seq %llu: command bytes missing or shorter than a TPM "
		     "header (%zu bytes): not sent",
		     x->o->db_path, (long long)x->res->source_id, (unsigned long long)sc.seq,
		     sc.len);
		goto done;
	}
	tpm_cmd_decode(sc.cmd, sc.len, &sc.c);
	if (sc.c.malformed && !(sc.flags & REC_F_MALFORMED)) {
		note(x, REPLAY_REFUSED, sc.c.cc,
		     "%s: trace %lld, seq %llu: stored command does not parse (%s at %zu bytes): "
		     "not sent",
		     x->o->db_path, (long long)x->res->source_id, (unsigned long long)sc.seq,
		     tpm_malformed_str(sc.c.malformed), sc.len);
		goto done;
	}
	if (sc.rsp && !sc.rsp_handle && sc.c.info && sc.c.info->handles_out &&
	    sc.rsp_len >= TPM_HEADER_SIZE + 4)
		sc.rsp_handle = wire_get_u32(sc.rsp + TPM_HEADER_SIZE);
	sc.pc.cc = sc.c.cc;
	sc.pc.n_handles = sc.c.n_handles;
	memcpy(sc.pc.handles, sc.c.handles, sizeof sc.pc.handles);
	sc.pc.auth_kind = sc.c.auth_kind;
	/* The origin rule predict uses (model/trace_stream.h). */
	sc.pc.origin = POL_ORIGIN_UNKNOWN;
	if (x->origin && sqlite3_column_type(st, 10) != SQLITE_NULL) {
		int64_t cl = sqlite3_column_int64(st, 10);
		if (cl >= 0 && cl < TRACE_MAX_CLIENTS) {
			sc.pc.origin = x->origin[cl] & ~TRACE_ORIGIN_HWRNG;
			sc.pc.hwrng = !!(x->origin[cl] & TRACE_ORIGIN_HWRNG);
		}
	}
	sc.pc.kstartup = (uint8_t)policy_startup_cmd(sc.c.cc, sc.cmd, sc.len);
	sc.pc.variant = (uint8_t)tpm_cmd_variant_of(&sc.c, sc.cmd, sc.len);
	sc.pc.has_rc = (uint8_t)sc.has_rc;
	sc.pc.rc = sc.rc;
	sc.pc.sess_attrs = tpm_pack_attrs(sc.c.sess_attrs, sc.c.n_sessions);
	sc.pc.seq = sc.seq;
	if (x->resub_armed) {
		x->resub_armed = 0;
		if (sc.len == x->resub_len && !memcmp(sc.cmd, x->resub, sc.len)) {
			/* The command was replayed once and answered as the
			 * recording's resubmission was: faithful, not sent again. */
			if (x->resub_ok) {
				memcpy(x->t.rsp, x->resub_rsp, x->resub_rsp_len);
				x->t.rsp_len = x->resub_rsp_len;
				sc.load_priv = x->resub_load_priv;
				capture(x, x->resub_hs, x->resub_pl ? x->resub_pp : NULL,
					x->resub_pl, NULL, 0, x->resub_sent, x->resub_sent_len);
			}
			if (x->resub_outcome != REPLAY_FAITHFUL && x->resub_reason[0])
				note(x, x->resub_outcome, sc.c.cc, "%s", x->resub_reason);
			else
				note(x, REPLAY_FAITHFUL, sc.c.cc,
				     "%s: the recording's resubmission after TPM_RC_RETRY (seq "
				     "%llu), which the target answered at once: not sent again",
				     tpm_cc_name(sc.c.cc), (unsigned long long)x->resub_seq);
			goto done;
		}
	}
	uint64_t sent = x->ps.emitted[POL_ROLE_ORIGINAL];
	rc = policy_expand_cmd(&x->ps, &sc.pc);
	if (!rc && !x->fatal && x->ps.emitted[POL_ROLE_ORIGINAL] == sent)
		note(x, REPLAY_SKIPPED, sc.c.cc,
		     "%s: the policy does not send it (a read of the kernel's TPM hwrng, "
		     "hwrng=off)",
		     tpm_cc_name(sc.c.cc));
done:
	if (!x->fatal)
		x->res->outcome[x->cur_outcome]++;
	x->res->processed++;
	if (!x->fatal && x->rm_spaces && sc.client < x->n_cl && x->cl_last[sc.client] == sc.seq)
		client_end(x, sc.client);
	x->cur = NULL;
	return x->fatal ? x->fatal : rc;
}

/* ---- leaving an external target as it was ------------------------------ */

/* TPM2_GetCapability(TPM_CAP_HANDLES) (Part 3 30.2) of one kind, every page.
 * Returns 0, -errno or the TPM's response code. */
static int list_handles(struct tpmconn *t, uint32_t first, struct handle_set *s)
{
	uint32_t prop = first;
	s->n = 0;
	for (int page = 0; page < 64; page++) {
		struct wire_wr w;
		struct wire_rd r;
		tpmconn_cmd_begin(t, &w, TPM_ST_NO_SESSIONS, TPM_CC_GetCapability);
		wire_wr_u32(&w, 1); /* TPM_CAP_HANDLES */
		wire_wr_u32(&w, prop);
		wire_wr_u32(&w, CLEAN_MAX);
		int rc = tpmconn_cmd_send(t, &w);
		if (rc)
			return rc;
		wire_rd_init(&r, t->rsp, t->rsp_len);
		wire_skip(&r, TPM_HEADER_SIZE);
		uint8_t more = wire_u8(&r);
		wire_u32(&r); /* capability */
		uint32_t n = wire_u32(&r), last = 0;
		for (uint32_t i = 0; i < n && !r.err; i++) {
			uint32_t h = wire_u32(&r);
			if ((h >> 24) != (first >> 24)) {
				more = 0;
				break;
			}
			if (s->n < CLEAN_MAX)
				s->h[s->n++] = h;
			last = h;
		}
		if (r.err)
			return -EPROTO;
		if (!more || !n)
			break;
		prop = last + 1;
	}
	return 0;
}

/* What the external target holds before the run: listed without being
 * stored (the trace is what the run sent). A target not started yet
 * (TPM_RC_INITIALIZE) is listed once the run has started it. */
static void snapshot(struct rp *x)
{
	tpmconn_xfer_fn keep = x->t.on_xfer;
	x->t.on_xfer = NULL;
	x->before_due = 0;
	int rc = 0;
	for (size_t k = 0; k < N_CLEAN_KINDS && !rc; k++)
		rc = list_handles(&x->t, clean_kinds[k], &x->before[k]);
	x->t.on_xfer = keep;
	if ((uint32_t)rc == TPM_RC_INITIALIZE && !x->started)
		x->before_due = 1;
	x->have_before = !rc;
}

/* An authorization area of one password session with the authValue the
 * run knows for hierarchy h (--auth, or what the run itself set). */
static void wr_pw_of(struct rp *x, struct wire_wr *w, uint32_t h)
{
	const struct replay_auth *a = auth_for(x, h);
	uint16_t n = a ? a->len : 0;
	wire_wr_u32(w, 9u + n);
	wire_wr_u32(w, TPM_RS_PW);
	wire_wr_u16(w, 0);
	wire_wr_u8(w, 0);
	wire_wr_u16(w, n);
	if (n)
		wire_wr_bytes(w, a->value, n);
}

/* Removes one entity the run left: 0 or why not. */
static int remove_one(struct rp *x, uint32_t h)
{
	struct wire_wr w;
	uint8_t t = (uint8_t)(h >> 24);
	if (t == 0x80 || t == 0x02 || t == 0x03)
		return tpmconn_flush(&x->t, h);
	if (t == 0x01) {
		/* Part 3 31.4: by the hierarchy that defined it (Part 2 13.4
		 * TPMA_NV_PLATFORMCREATE, bit 30, from NV_ReadPublic 31.6). */
		uint32_t auth = TPM_RH_OWNER;
		tpmconn_cmd_begin(&x->t, &w, TPM_ST_NO_SESSIONS, TPM_CC_NV_ReadPublic);
		wire_wr_u32(&w, h);
		if (!tpmconn_cmd_send(&x->t, &w) && x->t.rsp_len >= TPM_HEADER_SIZE + 12 &&
		    (wire_get_u32(x->t.rsp + TPM_HEADER_SIZE + 8) & (1u << 30)))
			auth = TPM_RH_PLATFORM;
		tpmconn_cmd_begin(&x->t, &w, TPM_ST_SESSIONS, TPM_CC_NV_UndefineSpace);
		wire_wr_u32(&w, auth);
		wire_wr_u32(&w, h);
		wr_pw_of(x, &w, auth);
		return tpmconn_cmd_send(&x->t, &w);
	}
	/* Part 3 28.5: a persistent object is evicted by its hierarchy
	 * (platform for 0x81800000 and up, Part 2 7.5). */
	uint32_t auth = h >= 0x81800000u ? TPM_RH_PLATFORM : TPM_RH_OWNER;
	tpmconn_cmd_begin(&x->t, &w, TPM_ST_SESSIONS, TPM_CC_EvictControl);
	wire_wr_u32(&w, auth);
	wire_wr_u32(&w, h);
	wr_pw_of(x, &w, auth);
	wire_wr_u32(&w, h);
	return tpmconn_cmd_send(&x->t, &w);
}

/* At the end of a run on an external target, also after an error: what is
 * there now and was not before the run is removed (objects and sessions
 * flushed, NV indices undefined, persistent objects evicted), as the
 * replay's own commands (role cleanup, flag 32); what cannot be removed
 * is reported in res. */
static void cleanup_target(struct rp *x)
{
	struct replay_result *res = x->res;
	struct handle_set now;
	size_t used = 0;
	if (x->spawned)
		return;
	if (!x->have_before) {
		res->cleanup_left = 1;
		snprintf(res->cleanup_err, sizeof res->cleanup_err,
			 "the target's handles could not be listed before the run");
		return;
	}
	x->cur_role = ROLE_CLEANUP;
	for (size_t k = 0; k < N_CLEAN_KINDS; k++) {
		int rc = list_handles(&x->t, clean_kinds[k], &now);
		if (rc) {
			res->cleanup_left++;
			used += (size_t)snprintf(
			    res->cleanup_err + used,
			    used < sizeof res->cleanup_err ? sizeof res->cleanup_err - used : 0,
			    "%slisting 0x%02x handles: %s", used ? "; " : "", clean_kinds[k] >> 24,
			    rc < 0 ? strerror(-rc) : tpm_rc_str((uint32_t)rc));
			continue;
		}
		/* Newest first: a session may be bound to an object made after. */
		for (unsigned i = now.n; i-- > 0;) {
			uint32_t h = now.h[i];
			if (in_list(x->before[k].h, x->before[k].n, h))
				continue;
			rc = remove_one(x, h);
			if (!rc) {
				res->cleaned++;
				continue;
			}
			res->cleanup_left++;
			if (used < sizeof res->cleanup_err)
				used += (size_t)snprintf(
				    res->cleanup_err + used, sizeof res->cleanup_err - used,
				    "%s0x%08x: %s", used ? "; " : "", h,
				    rc < 0 ? strerror(-rc) : tpm_rc_str((uint32_t)rc));
		}
	}
	x->cur_role = POL_ROLE_ORIGINAL;
}

/* Whether the trace's first command to succeed is TPM2_Startup: then the
 * trace starts the TPM itself (whatever it sent before was refused). Without
 * response codes: whether its first command is Startup. */
static int trace_starts_itself(sqlite3 *db, int64_t id)
{
	sqlite3_stmt *st;
	int r = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT cc FROM command WHERE trace_id=? AND (rc=0 OR rc IS NULL)"
			       " ORDER BY seq LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		r = (uint32_t)sqlite3_column_int64(st, 0) == TPM_CC_Startup;
	sqlite3_finalize(st);
	return r;
}

int replay_run(const struct replay_opts *o, struct replay_result *res)
{
	struct rp *x = calloc(1, sizeof *x);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL, *ev = NULL;
	char err[512];
	int rc, streamed_all = 0;
	uint64_t t_start = mono_ns();

	memset(res, 0, sizeof *res);
	res->status = "incomplete";
	if (!x) {
		snprintf(res->err, sizeof res->err, "out of memory");
		return -ENOMEM;
	}
	x->o = o;
	x->res = res;
	res->source_id = o->trace_id;
	if ((rc = policy_parse(o->policy ? o->policy : "as-recorded", &x->pol, err, sizeof err))) {
		snprintf(res->err, sizeof res->err, "--policy: %.480s", err);
		goto out;
	}
	snprintf(res->policy, sizeof res->policy, "%s", x->pol.name);
	if ((rc = db_open(o->db_path, DB_WRITE, &db, err, sizeof err))) {
		snprintf(res->err, sizeof res->err, "%s", err);
		goto out;
	}
	if ((rc = source_check(x, db)))
		goto out;
	if ((rc = trace_origins_load(db, res->source_id, &x->origin))) {
		snprintf(res->err, sizeof res->err, "%s: reading the clients of trace %lld: %s",
			 o->db_path, (long long)res->source_id, sqlite3_errmsg(db));
		goto out;
	}
	if ((rc = rm_spaces_init(x, db))) {
		snprintf(res->err, sizeof res->err, "%s: %s", o->db_path, sqlite3_errmsg(db));
		goto out;
	}
	if (o->emulate) {
		/* Before anything is started or stored: a bad profile leaves the
		 * database as it was. */
		if ((rc = emulate_init(&x->em, db, o->emulate, o->emulate_seed, err, sizeof err))) {
			snprintf(res->err, sizeof res->err, "--emulate: %.490s", err);
			goto out;
		}
		x->have_em = 1;
		snprintf(res->emulated, sizeof res->emulated, "%s", x->em.prof.name);
		res->emulate_seed = o->emulate_seed;
	}
	if (!o->target) {
		if ((rc = swtpm_spawn(&x->sw, NULL, SWTPM_SOCKETS, err, sizeof err))) {
			snprintf(res->err, sizeof res->err, "%s", err);
			goto out;
		}
		x->spawned = 1;
		snprintf(res->target, sizeof res->target, "swtpm (spawned)");
	} else {
		snprintf(res->target, sizeof res->target, "%s", o->target);
	}
	if ((rc = tpmconn_open(&x->t, x->spawned ? x->sw.tcti : o->target))) {
		snprintf(res->err, sizeof res->err, "cannot open the target '%s' (TCTI error 0x%x)",
			 x->spawned ? x->sw.tcti : o->target, x->t.tss_rc);
		goto out;
	}
	x->t.max_retries = REPLAY_MAX_RETRIES;
	if (!x->spawned)
		snapshot(x);
	if ((rc = sess_crypto_init(&x->cr))) {
		snprintf(res->err, sizeof res->err, "OpenSSL set-up failed");
		goto out;
	}
	char name[64];
	snprintf(name, sizeof name, "replay of %lld", (long long)res->source_id);
	struct trace_info ti = {.name = name,
				.kind = "replay",
				.source = res->target,
				.payloads = "redacted",
				.policy = x->pol.name,
				.parent_id = res->source_id,
				.emulated = x->have_em ? x->em.prof.name : NULL};
	int64_t id = db_trace_begin(db, &ti);
	if (id < 0) {
		snprintf(res->err, sizeof res->err, "%s: cannot add a trace: %s", o->db_path,
			 sqlite3_errmsg(db));
		rc = -EIO;
		goto out;
	}
	res->trace_id = id;
	/* The writer blocks instead of dropping, and yields the CPUs to
	 * this thread and a local swtpm (writer.h). */
	struct writer_cfg wc = {
	    .path = o->db_path, .trace_id = id, .block_when_full = 1, .nice = 10};
	if ((rc = writer_start(&x->w, &wc, err, sizeof err))) {
		snprintf(res->err, sizeof res->err, "%s", err);
		db_trace_end(db, id, 0, 0, 0, "incomplete");
		goto out;
	}
	recorder_init(&x->rec, x->w, NULL, PAYLOADS_REDACTED);
	x->t.on_xfer = on_xfer;
	x->t.on_xfer_arg = x;
	if (x->have_em) {
		x->t.emu = &x->em;
		snprintf(err, sizeof err, "profile=%s from=%s seed=%llu", x->em.prof.name,
			 x->em.from, (unsigned long long)x->em.seed);
		writer_event(x->w, mono_ns(), "emulate", err, 0);
	}
	snprintf(err, sizeof err, "source=%lld policy=%s target=%s", (long long)res->source_id,
		 x->pol.name, res->target);
	writer_event(x->w, mono_ns(), "replay-start", err, 0);
	policy_expand_init(&x->ps, &x->pol, emit, x);

	/* Commands and events share one sequence: two cursors in seq order
	 * (each on its (trace_id, seq) index), merged here. A UNION ordered by
	 * seq would sort the whole trace, blobs included, before the first row. */
	if (sqlite3_prepare_v2(
		db,
		"SELECT 0, seq, cmd, rsp, flags, rc, rsp_handle, NULL, cc, latency_ns, client_id"
		" FROM command WHERE trace_id=? ORDER BY seq",
		-1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "SELECT 1, seq, NULL, NULL, 0, NULL, NULL, kind FROM event"
			       " WHERE trace_id=? ORDER BY seq",
			       -1, &ev, NULL) != SQLITE_OK) {
		fail(x, -EIO, "%s: %s", o->db_path, sqlite3_errmsg(db));
	} else {
		int first = 1, rc_ev, starts_itself = trace_starts_itself(db, res->source_id);
		sqlite3_bind_int64(st, 1, res->source_id);
		sqlite3_bind_int64(ev, 1, res->source_id);
		rc = sqlite3_step(st);
		rc_ev = sqlite3_step(ev);
		while (!x->fatal && (rc == SQLITE_ROW || rc_ev == SQLITE_ROW)) {
			if (rc_ev == SQLITE_ROW &&
			    (rc != SQLITE_ROW ||
			     sqlite3_column_int64(ev, 1) <= sqlite3_column_int64(st, 1))) {
				const char *k = (const char *)sqlite3_column_text(ev, 7);
				int evk = k ? policy_event_from_kind(k) : 0;
				if (evk)
					policy_expand_event(&x->ps, (enum pol_event)evk);
				rc_ev = sqlite3_step(ev);
				continue;
			}
			if (first) {
				/* The target starts the way the trace did: a trace
				 * whose first command to succeed is Startup (a
				 * recording from power-on: SeaBIOS probes with
				 * ReadClock before it starts the TPM) starts the TPM
				 * itself; any other gets a Startup here. */
				first = 0;
				if (!starts_itself && startup(x))
					break;
			}
			src_stat_row(x, st);
			one_command(x, st);
			if (o->progress)
				o->progress(o->progress_arg, res->processed, res->source_commands);
			rc = sqlite3_step(st);
		}
		if (!x->fatal && (rc != SQLITE_DONE || rc_ev != SQLITE_DONE))
			fail(x, -EIO, "%s: reading trace %lld: %s", o->db_path,
			     (long long)res->source_id, sqlite3_errmsg(db));
		streamed_all = !x->fatal;
	}
	src_stats_finish(x, db, streamed_all);
	sqlite3_finalize(ev);
	ev = NULL;
	sqlite3_finalize(st);
	st = NULL;
	if (!x->fatal && read_pcrs(x))
		fail(x, -EIO, "the target stopped answering while reading the PCRs");
	cleanup_target(x);
	/* The fidelity is stored with the run: a later run of the same trace,
	 * policy and target compares itself with it (tpmtrace replay). */
	char stop[160];
	uint64_t faithful = res->outcome[REPLAY_FAITHFUL] > res->failed
				? res->outcome[REPLAY_FAITHFUL] - res->failed
				: 0;
	snprintf(stop, sizeof stop, "fidelity=%.4f faithful=%llu processed=%llu cleaned=%u left=%u",
		 res->processed ? 100.0 * (double)faithful / (double)res->processed : 100.0,
		 (unsigned long long)faithful, (unsigned long long)res->processed, res->cleaned,
		 res->cleanup_left);
	writer_event(x->w, mono_ns(), x->fatal ? "replay-error" : "replay-stop",
		     x->fatal ? res->err : stop, 0);
	struct writer_stats ws;
	rc = writer_stop(x->w, x->fatal ? "incomplete" : "complete", &ws);
	x->w = NULL;
	if (rc && !x->fatal)
		fail(x, rc, "%s: could not finalize trace %lld", o->db_path, (long long)id);
	if (!x->fatal && ws.dropped)
		fail(x, -EIO, "%s: %llu rows could not be stored", o->db_path,
		     (unsigned long long)ws.dropped);
	rc = x->fatal;
	if (!rc)
		res->status = "complete";
out:
	res->wall_ns = mono_ns() - t_start;
	res->retries = x->t.retries;
	if (x->have_em) {
		res->emu_commands = x->em.commands;
		res->emu_approx = x->em.approx;
		res->emu_missing = x->em.missing;
		res->emu_late = x->em.late;
		res->emu_late_ns = x->em.late_ns;
		res->emu_debt_ns = x->em.debt_ns;
		emulate_release(&x->em);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ev);
	if (x->w)
		writer_stop(x->w, "incomplete", NULL);
	db_close(db);
	tpmconn_close(&x->t);
	sess_crypto_release(&x->cr);
	if (x->spawned)
		swtpm_stop(&x->sw);
	for (size_t i = 0; i < x->n_ctx; i++)
		free(x->ctx[i].blob);
	free(x->ctx);
	for (size_t i = 0; i < x->n_priv; i++)
		free(x->priv[i].priv);
	free(x->priv);
	free(x->origin);
	free(x->cl_last);
	free(x);
	return rc;
}
