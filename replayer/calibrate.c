/* tpmtrace calibrate (see calibrate.h): the kinds measured, in the order
 * run, and the run itself (setup, passes, statistics, cleanup). The steps
 * are in calibrate_ops.c, declared in calibrate_int.h. */
#include "replayer/calibrate_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void on_xfer(void *arg, const uint8_t *cmd, size_t len, const uint8_t *rsp, size_t rsp_len,
		    uint64_t t0, uint64_t t1, int rc)
{
	struct cal *k = arg;
	(void)cmd, (void)len, (void)rsp, (void)rsp_len, (void)rc;
	k->last_ns += t1 - t0; /* a retried command costs all its attempts */
	k->res->commands++;
}

struct kind {
	uint32_t cc;
	uint8_t auth; /* how the measured command is authorised (auth_send) */
	const char *variant;
	int nv; /* changes NV: skipped on hardware */
	int (*begin)(struct cal *);
	int (*pre)(struct cal *);
	int (*op)(struct cal *);
	int (*post)(struct cal *);
	int (*end)(struct cal *);
};

#define NONE	 TPM_AUTH_NONE
#define PW	 TPM_AUTH_PASSWORD
#define HMAC	 TPM_AUTH_HMAC
#define HMAC_ENC TPM_AUTH_HMAC_ENC

/* A command in the three forms tpm2-tools and the kernel send it in, one
 * after the other: with a password, an HMAC session, and an HMAC session with
 * parameter encryption. begin runs before the first, end after the last;
 * pre and post around each. */
#define FORMS3(cc, variant, nv, begin, pre, op, post, end)                                         \
	{cc, PW, variant, nv, begin, pre, op, post, NULL},                                         \
	    {cc, HMAC, variant, nv, NULL, pre, op, post, NULL},                                    \
	{                                                                                          \
		cc, HMAC_ENC, variant, nv, NULL, pre, op, post, end                                \
	}

/* In an order that keeps at most three objects loaded (a TPM without a
 * resource manager has three slots): the null key, and one more. A command
 * is measured in each authorisation form a boot or tpm2-tools sends it in
 * (PCR_Extend and NV_UndefineSpace have no parameter to encrypt; the null
 * key is created with a password only, as the kernel does). */
static const struct kind kinds[] = {
    {TPM_CC_GetCapability, NONE, "-", 0, NULL, NULL, rp_cal_op_getcap, NULL, NULL},
    {TPM_CC_GetRandom, NONE, "-", 0, NULL, NULL, rp_cal_op_getrandom, NULL, NULL},
    {TPM_CC_GetRandom, HMAC_ENC, "-", 0, NULL, NULL, rp_cal_op_getrandom, NULL, NULL},
    {TPM_CC_PCR_Read, NONE, "-", 0, NULL, NULL, rp_cal_op_pcrread, NULL, NULL},
    {TPM_CC_PCR_Extend, PW, "-", 0, NULL, NULL, rp_cal_op_extend_pw, NULL, NULL},
    {TPM_CC_PCR_Extend, HMAC, "-", 0, NULL, NULL, rp_cal_op_extend_hmac, NULL, NULL},
    {TPM_CC_StartAuthSession, NONE, "salted-ecc", 0, NULL, NULL, rp_cal_op_sas_salted,
     rp_cal_flush_tmp, NULL},
    {TPM_CC_StartAuthSession, NONE, "unsalted", 0, NULL, NULL, rp_cal_op_sas_unsalted,
     rp_cal_flush_tmp, NULL},
    {TPM_CC_ContextSave, NONE, "-", 0, NULL, NULL, rp_cal_op_ctxsave, NULL, NULL},
    {TPM_CC_ContextLoad, NONE, "-", 0, NULL, NULL, rp_cal_load_nk, rp_cal_flush_tmp, NULL},
    {TPM_CC_FlushContext, NONE, "-", 0, NULL, rp_cal_load_nk, rp_cal_flush_tmp, NULL, NULL},
    {TPM_CC_CreatePrimary, PW, "ecc-p256", 0, NULL, NULL, rp_cal_op_cp_nullkey, rp_cal_flush_tmp,
     NULL},
    {TPM_CC_CreatePrimary, HMAC, "ecc-p256", 0, NULL, NULL, rp_cal_op_cp_ecc, rp_cal_flush_tmp,
     NULL},
    {TPM_CC_CreatePrimary, HMAC_ENC, "ecc-p256", 0, NULL, NULL, rp_cal_op_cp_ecc, rp_cal_flush_tmp,
     NULL},
    FORMS3(TPM_CC_CreatePrimary, "rsa-2048", 0, NULL, NULL, rp_cal_op_cp_rsa, rp_cal_flush_tmp,
	   NULL),
    {TPM_CC_ReadPublic, NONE, "-", 0, NULL, NULL, rp_cal_op_readpublic, NULL, NULL},
    FORMS3(TPM_CC_Create, "-", 0, NULL, NULL, rp_cal_op_create, NULL, NULL),
    FORMS3(TPM_CC_Create, "ecc-p256", 0, NULL, NULL, rp_cal_op_create_ecc, NULL, NULL),
    FORMS3(TPM_CC_Load, "-", 0, NULL, NULL, rp_cal_op_load, rp_cal_flush_tmp, NULL),
    FORMS3(TPM_CC_Unseal, "-", 0, rp_cal_begin_unseal, NULL, rp_cal_op_unseal, NULL,
	   rp_cal_end_unseal),
    {TPM_CC_PolicyPCR, NONE, "-", 0, rp_cal_begin_policy, NULL, rp_cal_op_policypcr, NULL, NULL},
    {TPM_CC_PolicyGetDigest, NONE, "-", 0, NULL, NULL, rp_cal_op_policydigest, NULL,
     rp_cal_end_policy},
    FORMS3(TPM_CC_NV_DefineSpace, "-", 1, rp_cal_begin_nvdef, NULL, rp_cal_op_nvdefine,
	   rp_cal_post_nvundefine, NULL),
    {TPM_CC_NV_UndefineSpace, PW, "-", 1, rp_cal_begin_nvdef, rp_cal_pre_nvdefine,
     rp_cal_op_nvundefine, NULL, NULL},
    {TPM_CC_NV_UndefineSpace, HMAC, "-", 1, NULL, rp_cal_pre_nvdefine, rp_cal_op_nvundefine, NULL,
     NULL},
    FORMS3(TPM_CC_NV_Write, "-", 1, rp_cal_begin_nv, NULL, rp_cal_op_nvwrite, NULL, NULL),
    FORMS3(TPM_CC_NV_Read, "-", 1, NULL, NULL, rp_cal_op_nvread, NULL, NULL),
    {TPM_CC_NV_ReadPublic, NONE, "-", 1, NULL, NULL, rp_cal_op_nvreadpublic, NULL, rp_cal_end_nv},
    FORMS3(TPM_CC_Sign, "-", 0, rp_cal_begin_sign, NULL, rp_cal_op_sign, NULL, NULL),
    FORMS3(TPM_CC_Quote, "-", 0, NULL, NULL, rp_cal_op_quote, NULL, rp_cal_end_sign),
};

/* A kind's name, as its profile line keys it: "Create hmac+enc ecc-p256". */
static const char *kind_name(const struct kind *d, char *buf, size_t n)
{
	snprintf(buf, n, "%s %s%s%s", tpm_cc_name(d->cc), profile_auth_str(d->auth),
		 strcmp(d->variant, "-") ? " " : "", strcmp(d->variant, "-") ? d->variant : "");
	return buf;
}

int rp_calibrate_is_hardware(const char *tcti)
{
	return tcti && strncmp(tcti, "swtpm", 5) != 0 && strncmp(tcti, "mssim", 5) != 0;
}

static int failed(struct cal *k, int rc, const char *what)
{
	if (rc > 0)
		snprintf(k->err, k->errlen, "%s: the TPM answered 0x%03x (%s)", what, (unsigned)rc,
			 tpm_rc_str((uint32_t)rc));
	else if (rc == -EIO)
		snprintf(k->err, k->errlen, "%s: the TPM stopped answering (TCTI error 0x%x)", what,
			 k->t.tss_rc);
	else
		snprintf(k->err, k->errlen, "%s: %s", what, strerror(-rc));
	return rc > 0 ? -EPROTO : rc;
}

/* Vendor, chip and firmware from the fixed properties (Part 2 6.13:
 * TPM_PT_MANUFACTURER 0x105, VENDOR_STRING_1..4 0x106-0x109,
 * FIRMWARE_VERSION_1/2 0x10B/0x10C). */
static void identify(struct cal *k, struct profile *p)
{
	struct wire_wr w;
	struct wire_rd r;
	char vendor[5] = "", chip[17] = "", fw[32] = "";
	uint32_t fw1 = 0, fw2 = 0;
	rp_cal_cmd_start(k, &w, TPM_CC_GetCapability, NULL, 0, 0);
	wire_wr_u32(&w, 6);
	wire_wr_u32(&w, 0x105);
	wire_wr_u32(&w, 8);
	if (tpmconn_cmd_send(&k->t, &w))
		return;
	rp_cal_rsp_params(k, TPM_CC_GetCapability, &r, NULL);
	wire_u8(&r);  /* moreData */
	wire_u32(&r); /* capability */
	uint32_t n = wire_u32(&r);
	for (uint32_t i = 0; i < n && !r.err; i++) {
		uint32_t prop = wire_u32(&r), v = wire_u32(&r);
		char s[5] = {(char)(v >> 24), (char)(v >> 16), (char)(v >> 8), (char)v, 0};
		for (int j = 0; j < 4; j++)
			if (s[j] && (s[j] < 0x20 || s[j] > 0x7e))
				s[j] = '?';
		if (prop == 0x105)
			snprintf(vendor, sizeof vendor, "%s", s);
		else if (prop >= 0x106 && prop <= 0x109)
			strncat(chip, s, sizeof chip - strlen(chip) - 1);
		else if (prop == 0x10B)
			fw1 = v;
		else if (prop == 0x10C)
			fw2 = v;
	}
	if (r.err)
		return;
	snprintf(fw, sizeof fw, "%u.%u.%u.%u", fw1 >> 16, fw1 & 0xffff, fw2 >> 16, fw2 & 0xffff);
	for (char *s = vendor + strlen(vendor); s > vendor && (s[-1] == ' ' || !s[-1]); s--)
		s[-1] = 0;
	if (vendor[0])
		profile_set(p, "vendor", vendor);
	if (chip[0])
		profile_set(p, "chip", chip);
	profile_set(p, "firmware", fw);
}

static int setup(struct cal *k, struct profile *p)
{
	struct wire_wr w;
	int rc;
	rp_cal_cmd_start(k, &w, TPM_CC_Startup, NULL, 0, 0);
	wire_wr_u16(&w, 0); /* TPM_SU_CLEAR */
	rc = tpmconn_cmd_send(&k->t, &w);
	if (rc && rc != TPM_RC_INITIALIZE)
		return failed(k, rc, "Startup");
	identify(k, p);
	/* The kernel's null key, its saved context, and a salted session. */
	if ((rc = tpmconn_create_null_primary(&k->t, &k->cr, TPM_RH_NULL, &k->nk)))
		return failed(k, rc, "CreatePrimary of the null key");
	rp_cal_track(k, k->nk.handle);
	if ((rc = tpmconn_context_save(&k->t, k->nk.handle, k->nk_ctx, sizeof k->nk_ctx,
				       &k->nk_ctx_len)))
		return failed(k, rc, "ContextSave of the null key");
	if ((rc = tpmconn_start_salted(&k->t, &k->cr, &k->nk, &k->hs)))
		return failed(k, rc, "StartAuthSession (salted)");
	rp_cal_track(k, k->hs.handle);
	/* Create and Load need a sealed object to exist before they are
	 * measured in turn. */
	if ((rc = rp_cal_create(k, 0, &k->seal_priv, &k->seal_pub)))
		return failed(k, rc, "Create of the sealed object");
	return 0;
}

static void cleanup(struct cal *k)
{
	/* Newest first: sessions and objects the kinds left, then the null
	 * key; the NV index last. */
	while (k->n_handles) {
		uint32_t h = k->handles[k->n_handles - 1];
		if (tpmconn_flush(&k->t, h)) {
			k->res->left++;
			k->n_handles--;
			continue;
		}
		k->res->cleaned++;
		k->n_handles--;
	}
	for (unsigned i = 0; i < CAL_MAX_NV; i++) {
		if (!k->nv[i])
			continue;
		if (rp_cal_nv_undefine(k, k->nv[i], NULL)) {
			k->res->left++;
			k->nv[i] = 0;
		} else {
			k->res->cleaned++;
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* One call of kind d with its unmeasured steps around it; *lat gets the
 * time of the measured command (all its attempts). Only that command is
 * authorised as the kind measures; the steps around it use empty password
 * sessions. */
static int measure_one(struct cal *k, const struct kind *d, uint64_t *lat)
{
	int rc;
	k->auth = TPM_AUTH_PASSWORD;
	if ((d->begin && (rc = d->begin(k))) || (d->pre && (rc = d->pre(k))))
		return rc;
	k->auth = d->auth;
	if (k->fault_auth_pw && (d->auth == TPM_AUTH_HMAC || d->auth == TPM_AUTH_HMAC_ENC))
		k->auth = TPM_AUTH_PASSWORD;
	k->last_ns = 0;
	rc = d->op(k);
	k->auth = TPM_AUTH_PASSWORD;
	if (rc)
		return rc;
	*lat = k->last_ns;
	if ((d->post && (rc = d->post(k))) || (d->end && (rc = d->end(k))))
		return rc;
	return 0;
}

static void header(struct cal *k, struct profile *p, const char *target)
{
	char host[128] = "", date[32], buf[1024];
	time_t now = time(NULL);
	struct tm tm;
	gethostname(host, sizeof host - 1);
	gmtime_r(&now, &tm);
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (k->o->name) {
		profile_set(p, "name", k->o->name);
	} else {
		char d[16];
		strftime(d, sizeof d, "%Y%m%d", &tm);
		snprintf(buf, sizeof buf, "calibrated-%s-%s", host[0] ? host : "host", d);
		for (char *s = buf; *s; s++)
			if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
			    !(*s >= '0' && *s <= '9') && *s != '-' && *s != '_' && *s != '.')
				*s = '-';
		profile_set(p, "name", buf);
	}
	profile_set(p, "measured-by", "tpmtrace calibrate (" TPMTRACE_VERSION ")");
	profile_set(p, "date", date);
	profile_set(p, "bus",
		    k->o->tcti ? k->o->tcti : "swtpm spawned by tpmtrace (unix socket, same host)");
	snprintf(buf, sizeof buf,
		 "measured by tpmtrace calibrate on host %s, target %s, %s: %u measured calls "
		 "per kind after 1 cold and %u warm-up calls",
		 host, target, date, k->o->iterations, k->o->warmup);
	profile_set(p, "source", buf);
	profile_set(p, "note",
		    "times are around the TCTI transmit and receive on the measuring host "
		    "(transport included, host crypto excluded); each entry's comment gives its "
		    "first (cold) call");
	p->transport_ms = 0;
}

/* A kind's profile entry from its m measured times v (sorted here) and its
 * comment (its cold call); ms: room for m figures. */
static int cal_entry(struct profile *p, const struct kind *d, uint64_t *v, unsigned m, double *ms,
		     const char *comment, char *err, size_t errlen)
{
	/* Rounded to 1 ns: the profile keeps 6 decimals of a millisecond. */
	qsort(v, m, sizeof *v, cmp_u64);
	for (unsigned j = 0; j < m; j++)
		ms[j] = (double)v[j] / 1e6;
	struct prof_entry e = {.cc = d->cc, .auth = d->auth};
	snprintf(e.variant, sizeof e.variant, "%s", d->variant);
	profile_entry_stats(&e, ms, m);
	/* To the nanosecond, the resolution of the clock. */
	double *f[] = {&e.mean_ms, &e.p50_ms,	&e.p90_ms, &e.p95_ms,
		       &e.p99_ms,  &e.stdev_ms, &e.min_ms, &e.max_ms};
	for (unsigned j = 0; j < sizeof f / sizeof f[0]; j++)
		if (isfinite(*f[j]))
			*f[j] = round(*f[j] * 1e6) / 1e6;
	/* A clock that did not move: keep the figures positive. */
	profile_entry_floor(&e, 1e-6);
	e.comment = (char *)comment;
	int rc = profile_add(p, &e);
	if (rc) {
		char name[64];
		snprintf(err, errlen, "%s: cannot add the entry (%s)",
			 kind_name(d, name, sizeof name), strerror(-rc));
	}
	return rc;
}

int rp_calibrate_run(const struct calibrate_opts *o, struct profile *p,
		     struct calibrate_result *res, char *err, size_t errlen)
{
	struct cal *k = calloc(1, sizeof *k);
	uint64_t *ns = NULL;
	int rc = 0;
	const unsigned nk = sizeof kinds / sizeof kinds[0];
	char covers[2048] = "", lacks[1024] = "";

	memset(res, 0, sizeof *res);
	if (!k)
		return -ENOMEM;
	k->auth = TPM_AUTH_PASSWORD; /* outside a measured command (measure_one) */
	const char *fault = getenv("TPMTRACE_FAULT_CALIBRATE_AUTH_PASSWORD");
	k->fault_auth_pw = fault && *fault && strcmp(fault, "0");
	k->o = o;
	k->res = res;
	k->err = err;
	k->errlen = errlen;
	ns = calloc((size_t)nk * (o->iterations ? o->iterations : 1), sizeof *ns);
	double *ms = calloc(o->iterations ? o->iterations : 1, sizeof *ms);
	uint64_t cold[sizeof kinds / sizeof kinds[0]] = {0};
	if (!ns || !ms || !o->iterations) {
		rc = o->iterations ? -ENOMEM : -EINVAL;
		snprintf(err, errlen, "%s", o->iterations ? "out of memory" : "no iterations");
		goto out;
	}
	if (!o->tcti) {
		if ((rc = swtpm_spawn(&k->sw, NULL, SWTPM_SOCKETS, err, errlen)))
			goto out;
		k->spawned = 1;
		snprintf(res->target, sizeof res->target, "swtpm (spawned)");
	} else {
		snprintf(res->target, sizeof res->target, "%s", o->tcti);
	}
	if ((rc = tpmconn_open(&k->t, k->spawned ? k->sw.tcti : o->tcti))) {
		snprintf(err, errlen, "cannot open the target '%s' (TCTI error 0x%x)",
			 k->spawned ? k->sw.tcti : o->tcti, k->t.tss_rc);
		goto out;
	}
	if ((rc = sess_crypto_init(&k->cr))) {
		snprintf(err, errlen, "OpenSSL set-up failed");
		goto out;
	}
	k->cr_ok = 1;
	k->t.on_xfer = on_xfer;
	/* TPM_RC_RETRY, YIELDED, TESTING (Part 2 6.6.3): the TPM did not start
	 * the command; the transport sends it again, as every TSS does, for
	 * setup and cleanup too. */
	k->t.max_retries = CAL_MAX_RETRIES;
	k->t.on_xfer_arg = k;
	header(k, p, res->target);
	if ((rc = setup(k, p)))
		goto out;

	/* Passes: each sends every kind once (its begin and end steps
	 * around it, unmeasured), pass 0 the cold call, then the warm-up
	 * passes, then the measured ones. A kind's samples so spread over
	 * the whole run: a moment of load on the host, or a CPU that runs
	 * slower for a second, is shared by all kinds instead of falling on
	 * one; and no command is timed in a loop of itself, where the
	 * target's code and data stay hot in the caches as they never are in
	 * a boot or a replay, which mix commands. */
	int hw = rp_calibrate_is_hardware(o->tcti) && !o->allow_destructive;
	unsigned total = 1 + o->warmup + o->iterations;
	char name[64];
	for (unsigned i = 0; i < nk; i++)
		if (kinds[i].nv && hw) {
			res->kinds_skipped++;
			snprintf(lacks + strlen(lacks), sizeof lacks - strlen(lacks), "%s%s",
				 lacks[0] ? ", " : "", kind_name(&kinds[i], name, sizeof name));
		}
	for (unsigned j = 0; j < total && !rc; j++) {
		for (unsigned i = 0; i < nk; i++) {
			const struct kind *d = &kinds[i];
			if (d->nv && hw)
				continue;
			uint64_t lat = 0;
			if ((rc = measure_one(k, d, &lat))) {
				rc = failed(k, rc, kind_name(d, name, sizeof name));
				break;
			}
			if (j == 0)
				cold[i] = lat;
			else if (j > o->warmup)
				ns[(size_t)i * o->iterations + (j - 1 - o->warmup)] = lat;
			if (o->progress)
				o->progress(o->progress_arg, i + 1, nk,
					    kind_name(d, name, sizeof name), j + 1, total);
		}
	}
	for (unsigned i = 0; i < nk && !rc; i++) {
		const struct kind *d = &kinds[i];
		unsigned m = o->iterations;
		if (d->nv && hw)
			continue;
		char comment[160];
		snprintf(comment, sizeof comment, "cold (first call) %.6f ms; %u warm-up calls",
			 (double)cold[i] / 1e6, o->warmup);
		if ((rc = cal_entry(p, d, ns + (size_t)i * o->iterations, m, ms, comment, err,
				    errlen)))
			break;
		res->kinds_measured++;
		snprintf(covers + strlen(covers), sizeof covers - strlen(covers), "%s%s",
			 covers[0] ? ", " : "", kind_name(d, name, sizeof name));
	}
	if (!rc) {
		profile_set(p, "covers", covers);
		if (lacks[0]) {
			char b[1200];
			snprintf(b, sizeof b,
				 "%s (skipped on hardware: they define and undefine NV space; "
				 "--allow-destructive measures them)",
				 lacks);
			profile_set(p, "lacks", b);
			snprintf(res->skipped, sizeof res->skipped, "%s", b);
		} else {
			profile_set(p, "lacks", "commands not listed in covers");
		}
	}
out:
	if (k->t.tcti) {
		k->t.on_xfer = on_xfer;
		cleanup(k);
		if (res->left && !rc) {
			snprintf(err, errlen, "%u handle(s) could not be flushed or undefined",
				 res->left);
			rc = -EIO;
		}
	}
	tpmconn_close(&k->t);
	if (k->cr_ok)
		sess_crypto_release(&k->cr);
	if (k->spawned)
		swtpm_stop(&k->sw);
	free(ns);
	free(ms);
	free(k);
	return rc;
}
