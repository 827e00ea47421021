/* bench_session: host CPU of tpmtrace's session layer.
 *
 *   bench_session [--tcti CONF] [-n N] [--json]
 *
 * Without --tcti a private swtpm is started (and stopped) in a temporary
 * directory. Reports, as CPU time of this process (CLOCK_PROCESS_CPUTIME_ID;
 * the TPM's own work is in the swtpm process and not counted):
 *   1. the Linux 6.10 sequence per PCR_Extend (ContextLoad, salted
 *      StartAuthSession, FlushContext, PCR_Extend with HMAC, attrs 0), done by
 *      tpmtrace and by tpm2-tss ESYS on the same TPM and TCTI;
 *   2. the Linux 6.12 lazy-flush case: PCR_Extend on a continued session;
 *   3. the transport alone (a session-less command), to separate it out;
 *   4. crypto per command without a TPM for parameters of 16 B, 128 B, 1 KiB
 *      and 4 KiB: HMAC only, and HMAC with CFB both ways, fitted to
 *      fixed + per-byte cost; and the ECDH salt + session key per session.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/json.h"
#include "model/tpm/decode.h"
#include "model/tpm/wire.h"
#include "model/tpm/session.h"
#include "recorder/transport/tpmconn.h"
#include "swtpm.h"

#ifdef TPMTRACE_HAVE_ESYS
#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>
#endif

static struct sess_crypto c;
static struct tpmconn t;
static struct tpm_ecc_key null_key;
static uint8_t null_ctx[2048];
static size_t null_ctx_len;
static int iters = 200;

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		fprintf(stderr, "bench_session: ");                                                \
		fprintf(stderr, __VA_ARGS__);                                                      \
		fputc('\n', stderr);                                                               \
		exit(1);                                                                           \
	} while (0)

/* --- tpmtrace over the TPM --- */

static int kernel_session(struct sess *s)
{
	return tpmconn_kernel_session(&t, &c, &null_key, null_ctx, null_ctx_len, s);
}

struct result {
	double cpu_us, wall_us;
};

static struct result tt_kernel_610(void)
{
	uint8_t d[32] = {1};
	double c0 = cpu_now(), w0 = wall_now();
	for (int i = 0; i < iters; i++) {
		struct sess s;
		int rc = kernel_session(&s);
		s.attrs = 0;
		if (!rc)
			rc = tpmconn_pcr_extend_sha256(&t, &s, &c, 16, d);
		if (rc)
			FAIL("tpmtrace 6.10 extend %d: rc %d", i, rc);
	}
	return (struct result){(cpu_now() - c0) / iters * 1e6, (wall_now() - w0) / iters * 1e6};
}

static struct result tt_lazy(void)
{
	uint8_t d[32] = {2};
	struct sess s;
	if (kernel_session(&s))
		FAIL("session");
	s.attrs = TPMA_SESSION_CONTINUESESSION;
	double c0 = cpu_now(), w0 = wall_now();
	for (int i = 0; i < iters; i++) {
		int rc = tpmconn_pcr_extend_sha256(&t, &s, &c, 16, d);
		if (rc)
			FAIL("tpmtrace lazy extend %d: rc %d", i, rc);
	}
	struct result r = {(cpu_now() - c0) / iters * 1e6, (wall_now() - w0) / iters * 1e6};
	tpmconn_flush(&t, s.handle);
	return r;
}

/* A session-less PCR_Read: what the transport alone costs per command. */
static struct result transport_only(void)
{
	uint8_t v[64];
	uint16_t len;
	double c0 = cpu_now(), w0 = wall_now();
	for (int i = 0; i < iters; i++)
		if (tpmconn_pcr_read(&t, TPM_ALG_SHA256, 16, v, &len))
			FAIL("PCR_Read");
	return (struct result){(cpu_now() - c0) / iters * 1e6, (wall_now() - w0) / iters * 1e6};
}

/* --- ESYS over the same TPM --- */

#ifdef TPMTRACE_HAVE_ESYS
static ESYS_CONTEXT *e;
static TSS2_TCTI_CONTEXT *etcti;
static TPMS_CONTEXT *esys_key_ctx;

static void esys_setup(const char *conf)
{
	TPM2B_SENSITIVE_CREATE sens = {0};
	TPM2B_PUBLIC tmpl = {0};
	TPM2B_DATA outside = {0};
	TPML_PCR_SELECTION pcrs = {0};
	TPM2B_PUBLIC *op = NULL;
	TPM2B_CREATION_DATA *cd = NULL;
	TPM2B_DIGEST *ch = NULL;
	TPMT_TK_CREATION *tk = NULL;
	ESYS_TR key;
	if (Tss2_TctiLdr_Initialize(conf, &etcti) || Esys_Initialize(&e, etcti, NULL))
		FAIL("ESYS init");
	tmpl.publicArea.type = TPM2_ALG_ECC;
	tmpl.publicArea.nameAlg = TPM2_ALG_SHA256;
	tmpl.publicArea.objectAttributes = 0x00030472;
	tmpl.publicArea.parameters.eccDetail.symmetric.algorithm = TPM2_ALG_AES;
	tmpl.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128;
	tmpl.publicArea.parameters.eccDetail.symmetric.mode.aes = TPM2_ALG_CFB;
	tmpl.publicArea.parameters.eccDetail.scheme.scheme = TPM2_ALG_NULL;
	tmpl.publicArea.parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
	tmpl.publicArea.parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
	if (Esys_CreatePrimary(e, ESYS_TR_RH_NULL, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
			       &sens, &tmpl, &outside, &pcrs, &key, &op, &cd, &ch, &tk))
		FAIL("Esys_CreatePrimary");
	if (Esys_ContextSave(e, key, &esys_key_ctx) || Esys_FlushContext(e, key))
		FAIL("Esys_ContextSave");
	Esys_Free(op);
	Esys_Free(cd);
	Esys_Free(ch);
	Esys_Free(tk);
}

static void esys_teardown(void)
{
	Esys_Free(esys_key_ctx);
	Esys_Finalize(&e);
	Tss2_TctiLdr_Finalize(&etcti);
}

static const TPMT_SYM_DEF esys_sym = {
    .algorithm = TPM2_ALG_AES, .keyBits = {.aes = 128}, .mode = {.aes = TPM2_ALG_CFB}};

static ESYS_TR esys_kernel_session(void)
{
	ESYS_TR key, sess;
	if (Esys_ContextLoad(e, esys_key_ctx, &key))
		FAIL("Esys_ContextLoad");
	if (Esys_StartAuthSession(e, key, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				  NULL, TPM2_SE_HMAC, &esys_sym, TPM2_ALG_SHA256, &sess))
		FAIL("Esys_StartAuthSession");
	if (Esys_FlushContext(e, key))
		FAIL("Esys_FlushContext");
	return sess;
}

static struct result esys_kernel_610(void)
{
	TPML_DIGEST_VALUES dv = {.count = 1};
	dv.digests[0].hashAlg = TPM2_ALG_SHA256;
	double c0 = cpu_now(), w0 = wall_now();
	for (int i = 0; i < iters; i++) {
		ESYS_TR sess = esys_kernel_session();
		Esys_TRSess_SetAttributes(e, sess, 0, 0xff);
		TSS2_RC r =
		    Esys_PCR_Extend(e, ESYS_TR_PCR16, sess, ESYS_TR_NONE, ESYS_TR_NONE, &dv);
		if (r)
			FAIL("Esys_PCR_Extend 0x%x", r);
		/* The TPM ended the session (continueSession clear); ESYS keeps
		 * its object until it is closed. */
		Esys_TR_Close(e, &sess);
	}
	return (struct result){(cpu_now() - c0) / iters * 1e6, (wall_now() - w0) / iters * 1e6};
}

static struct result esys_lazy(void)
{
	TPML_DIGEST_VALUES dv = {.count = 1};
	dv.digests[0].hashAlg = TPM2_ALG_SHA256;
	ESYS_TR sess = esys_kernel_session();
	Esys_TRSess_SetAttributes(e, sess, TPMA_SESSION_CONTINUESESSION, 0xff);
	double c0 = cpu_now(), w0 = wall_now();
	for (int i = 0; i < iters; i++)
		if (Esys_PCR_Extend(e, ESYS_TR_PCR16, sess, ESYS_TR_NONE, ESYS_TR_NONE, &dv))
			FAIL("Esys_PCR_Extend lazy");
	struct result r = {(cpu_now() - c0) / iters * 1e6, (wall_now() - w0) / iters * 1e6};
	Esys_FlushContext(e, sess);
	return r;
}

static struct result esys_transport_only(void)
{
	TPML_PCR_SELECTION sel = {.count = 1};
	sel.pcrSelections[0].hash = TPM2_ALG_SHA256;
	sel.pcrSelections[0].sizeofSelect = 3;
	sel.pcrSelections[0].pcrSelect[2] = 0x01;
	double c0 = cpu_now(), w0 = wall_now();
	for (int i = 0; i < iters; i++) {
		UINT32 upd;
		TPML_PCR_SELECTION *os = NULL;
		TPML_DIGEST *v = NULL;
		if (Esys_PCR_Read(e, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &sel, &upd, &os, &v))
			FAIL("Esys_PCR_Read");
		Esys_Free(os);
		Esys_Free(v);
	}
	return (struct result){(cpu_now() - c0) / iters * 1e6, (wall_now() - w0) / iters * 1e6};
}
#endif

/* --- crypto without a TPM --- */

/* Runs fn until at least 0.2 s of CPU went by; returns µs per call. */
static double per_call(void (*fn)(size_t), size_t arg)
{
	long n = 0, batch = 16;
	double c0 = cpu_now(), el;
	do {
		for (long i = 0; i < batch; i++)
			fn(arg);
		n += batch;
		batch *= 2;
		el = cpu_now() - c0;
	} while (el < 0.2);
	return el / n * 1e6;
}

static struct sess bs;
static uint8_t bparams[2 + 4096 + 6];
static uint8_t bcmd[8192];
static uint8_t brsp[8192], brsp_pristine[8192];
static size_t brsp_len;

static void prep_params(size_t n)
{
	struct wire_wr w;
	wire_wr_init(&w, bparams, sizeof(bparams));
	wire_wr_u16(&w, (uint16_t)n);
	uint8_t *d = wire_wr_reserve(&w, n);
	memset(d, 0x5a, n);
	wire_wr_u16(&w, TPM_ALG_SHA256);
	wire_wr_u32(&w, TPM_RH_NULL);
}

/* command side: nonce roll, (CFB), cpHash, HMAC, marshalling */
static void one_cmd(size_t n)
{
	size_t len;
	if (sess_cmd_build(&bs, &c, TPM_CC_Hash, NULL, NULL, 0, NULL, 0, bparams, 2 + n + 6, bcmd,
			   sizeof(bcmd), &len))
		FAIL("sess_cmd_build");
}

/* A response the TPM would send for a Hash whose result is an n-byte TPM2B,
 * with a valid HMAC for the current nonces. */
static void prep_rsp(size_t n)
{
	uint8_t nt[32], rph[32], hm[32];
	memset(nt, 0x77, 32);
	struct wire_wr w;
	wire_wr_init(&w, brsp, sizeof(brsp));
	wire_wr_u16(&w, TPM_ST_SESSIONS);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, (uint32_t)(2 + n));
	size_t poff = w.off;
	wire_wr_u16(&w, (uint16_t)n);
	memset(wire_wr_reserve(&w, n), 0xa5, n);
	wire_wr_tpm2b(&w, nt, 32);
	wire_wr_u8(&w, bs.attrs);
	memcpy(bs.nonce_tpm, nt, 32);
	sess_rphash(&c, TPM_ALG_SHA256, 0, TPM_CC_Hash, brsp + poff, 2 + n, rph);
	sess_rsp_hmac(&bs, &c, rph, bs.attrs, NULL, 0, hm);
	wire_wr_tpm2b(&w, hm, 32);
	wire_put_u32(brsp + 2, (uint32_t)w.off);
	brsp_len = w.off;
	memcpy(brsp_pristine, brsp, brsp_len);
}

/* response side: rpHash, HMAC check, (CFB); the copy restores the ciphertext */
static void one_rsp(size_t n)
{
	uint8_t *p;
	size_t pl;
	memcpy(brsp, brsp_pristine, brsp_len);
	if (sess_rsp_open(&bs, &c, TPM_CC_Hash, NULL, 0, brsp, brsp_len, &p, &pl))
		FAIL("sess_rsp_open");
}

static void one_salt(size_t n)
{
	uint8_t salt[32], sec[80], nc[32] = {1}, ntp[32] = {2};
	size_t sl;
	struct sess s;
	if (sess_ecdh_salt(&c, TPM_ALG_SHA256, null_key.x, 32, null_key.y, 32, salt, sec,
			   sizeof(sec), &sl) ||
	    sess_begin(&s, &c, 0x02000000, TPM_ALG_SHA256, TPM_ALG_AES, salt, 32, NULL, 0, nc, 32,
		       ntp, 32))
		FAIL("salt");
}

static void fit(const double *x, const double *y, int n, double *a, double *b)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (int i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	*b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	*a = (sy - *b * sx) / n;
}

/* One implementation's times (us, two decimals) as the object key. */
static void json_times(struct json_w *w, const char *key, const struct result *k610,
		       const struct result *lazy, const struct result *x)
{
	json_key(w, key);
	json_begin_object(w);
	json_kdouble(w, "kernel610_cpu_us", k610->cpu_us, 2);
	json_kdouble(w, "kernel610_wall_us", k610->wall_us, 2);
	json_kdouble(w, "lazy_cpu_us", lazy->cpu_us, 2);
	json_kdouble(w, "lazy_wall_us", lazy->wall_us, 2);
	json_kdouble(w, "transport_cpu_us", x->cpu_us, 2);
	json_end_object(w);
}

int main(int argc, char **argv)
{
	const char *conf = NULL;
	int json = 0, no_crypto = 0;
	struct swtpm_proc tpm = {0};
	char dir[] = "/tmp/tpmtrace-bench-XXXXXX";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tcti") && i + 1 < argc)
			conf = argv[++i];
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			iters = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--no-crypto"))
			no_crypto = 1;
		else {
			fprintf(stderr,
				"usage: bench_session [--tcti CONF] [-n N] [--json] [--no-crypto]\n"
				"  --tcti CONF  TPM to use (default: a private swtpm)\n"
				"  -n N         commands per TPM measurement (200)\n"
				"  --json       one JSON object instead of text\n"
				"  --no-crypto  skip the TPM-less crypto figures\n"
				"example: bench_session -n 500\n");
			return 2;
		}
	}
	if (iters < 1)
		iters = 1;
	if (!conf) {
		if (!swtpm_available()) {
			printf("SKIPPED: swtpm is not installed\n");
			return 77;
		}
		if (!mkdtemp(dir) || swtpm_start(&tpm, dir))
			FAIL("cannot start swtpm");
		conf = tpm.tcti;
	}
	if (sess_crypto_init(&c) || tpmconn_open(&t, conf))
		FAIL("init (tcti %s)", conf);
	if (tpmconn_create_null_primary(&t, &c, TPM_RH_NULL, &null_key) ||
	    tpmconn_context_save(&t, null_key.handle, null_ctx, sizeof(null_ctx), &null_ctx_len) ||
	    tpmconn_flush(&t, null_key.handle))
		FAIL("null key");

	/* warm up both paths once */
	iters = iters > 10 ? iters : 10;
	int saved = iters;
	iters = 5;
	tt_kernel_610();
	iters = saved;
	struct result tt610 = tt_kernel_610(), ttlazy = tt_lazy(), ttx = transport_only();
	struct result es610 = {0}, eslazy = {0}, esx = {0};
	int have_esys = 0;
#ifdef TPMTRACE_HAVE_ESYS
	tpmconn_close(&t);
	esys_setup(conf);
	iters = 5;
	esys_kernel_610();
	iters = saved;
	es610 = esys_kernel_610();
	eslazy = esys_lazy();
	esx = esys_transport_only();
	esys_teardown();
	have_esys = 1;
	if (tpmconn_open(&t, conf))
		FAIL("reopen");
#endif

	/* crypto without a TPM */
	static const size_t sizes[] = {16, 128, 1024, 4096};
	double xs[4], hm[4] = {0}, enc[4] = {0}, ha = 0, hb = 0, ea = 0, eb = 0, salt_us = 0;
	uint8_t nc[32] = {3}, ntp[32] = {4}, salt[32] = {5};
	sess_begin(&bs, &c, 0x02000000, TPM_ALG_SHA256, TPM_ALG_AES, salt, 32, NULL, 0, nc, 32, ntp,
		   32);
	for (int i = 0; i < 4 && !no_crypto; i++) {
		xs[i] = (double)sizes[i];
		prep_params(sizes[i]);
		bs.attrs = TPMA_SESSION_CONTINUESESSION;
		double cmd = per_call(one_cmd, sizes[i]);
		prep_rsp(sizes[i]);
		double rsp = per_call(one_rsp, sizes[i]);
		hm[i] = cmd + rsp;
		bs.attrs =
		    TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT;
		cmd = per_call(one_cmd, sizes[i]);
		prep_rsp(sizes[i]);
		rsp = per_call(one_rsp, sizes[i]);
		enc[i] = cmd + rsp;
	}
	if (!no_crypto) {
		fit(xs, hm, 4, &ha, &hb);
		fit(xs, enc, 4, &ea, &eb);
		salt_us = per_call(one_salt, 0);
	}

	if (json) {
		struct json_w w;
		json_init_file(&w, stdout, JSON_COMPACT);
		json_begin_object(&w);
		json_kint(&w, "iterations", iters);
		json_times(&w, "tpmtrace", &tt610, &ttlazy, &ttx);
		if (have_esys)
			json_times(&w, "esys", &es610, &eslazy, &esx);
		json_key(&w, "crypto");
		json_begin_object(&w);
		json_key(&w, "sizes");
		json_begin_array(&w);
		for (int i = 0; i < 4; i++)
			json_uint(&w, sizes[i]);
		json_end_array(&w);
		json_key(&w, "hmac_us");
		json_begin_array(&w);
		for (int i = 0; i < 4; i++)
			json_double(&w, hm[i], 3);
		json_end_array(&w);
		json_key(&w, "hmac_cfb_us");
		json_begin_array(&w);
		for (int i = 0; i < 4; i++)
			json_double(&w, enc[i], 3);
		json_end_array(&w);
		json_kdouble(&w, "hmac_fixed_us", ha, 3);
		json_kdouble(&w, "hmac_per_byte_ns", hb * 1e3, 3);
		json_kdouble(&w, "hmac_cfb_fixed_us", ea, 3);
		json_kdouble(&w, "hmac_cfb_per_byte_ns", eb * 1e3, 3);
		json_kdouble(&w, "salt_session_us", salt_us, 2);
		json_end_object(&w);
		json_end_object(&w);
		json_newline(&w);
	} else {
		printf("TPM: %s, %d commands per figure; host CPU of this process per unit\n", conf,
		       iters);
		printf("%-44s %12s %12s %8s\n", "", "tpmtrace", "ESYS", "ratio");
		printf("%-44s %9.1f us %9.1f us %7.1fx\n",
		       "6.10 extend (Load+Start+Flush+Extend) CPU", tt610.cpu_us, es610.cpu_us,
		       have_esys ? es610.cpu_us / tt610.cpu_us : 0);
		printf("%-44s %9.1f us %9.1f us %7.1fx\n",
		       "  minus transport (4 x session-less cmd)", tt610.cpu_us - 4 * ttx.cpu_us,
		       es610.cpu_us - 4 * esx.cpu_us,
		       have_esys ? (es610.cpu_us - 4 * esx.cpu_us) / (tt610.cpu_us - 4 * ttx.cpu_us)
				 : 0);
		printf("%-44s %9.1f us %9.1f us\n", "  wall", tt610.wall_us, es610.wall_us);
		printf("%-44s %9.1f us %9.1f us %7.1fx\n",
		       "6.12 lazy extend (continued session) CPU", ttlazy.cpu_us, eslazy.cpu_us,
		       have_esys ? eslazy.cpu_us / ttlazy.cpu_us : 0);
		printf("%-44s %9.1f us %9.1f us %7.1fx\n",
		       "  minus transport (1 x session-less cmd)", ttlazy.cpu_us - ttx.cpu_us,
		       eslazy.cpu_us - esx.cpu_us,
		       have_esys ? (eslazy.cpu_us - esx.cpu_us) / (ttlazy.cpu_us - ttx.cpu_us) : 0);
		printf("%-44s %9.1f us %9.1f us\n", "  wall", ttlazy.wall_us, eslazy.wall_us);
		printf("%-44s %9.1f us %9.1f us\n", "transport: session-less PCR_Read CPU",
		       ttx.cpu_us, esx.cpu_us);
		if (!have_esys)
			printf("(built without tss2-esys: no ESYS figures)\n");
		if (no_crypto)
			goto done;
		printf("\ncrypto per command, no TPM (command build + response check):\n");
		printf("%8s %14s %14s\n", "param", "HMAC only", "HMAC+CFB x2");
		for (int i = 0; i < 4; i++)
			printf("%6zu B %11.3f us %11.3f us\n", sizes[i], hm[i], enc[i]);
		printf("fit: HMAC only    %.3f us fixed + %.3f ns/byte\n", ha, hb * 1e3);
		printf("fit: HMAC+CFB x2  %.3f us fixed + %.3f ns/byte\n", ea, eb * 1e3);
		printf("per session: ECDH P-256 salt + session key  %.2f us\n", salt_us);
	}
done:
	tpmconn_close(&t);
	sess_crypto_release(&c);
	if (tpm.pid) {
		swtpm_stop(&tpm);
		char cmd[200];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "bench_session: could not remove %s\n", dir);
	}
	return 0;
}
