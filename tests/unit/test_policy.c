/* Policy expansion: exact command counts per preset and knob, event handling,
 * and spec parsing errors. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/tpm/decode.h"
#include "model/policy.h"
#include "model/tpm/tpm_cc.h"
#include "testlib.h"

/* Counts of what the expander sent, per command code of interest and role. */
struct tally {
	unsigned n;
	unsigned cp, cs, cl, sas, fc, pe, rp, gr, other;
	unsigned role[POL_ROLE__COUNT];
	unsigned pe_auth[6];
	unsigned pe_continue;
	char seq[512]; /* the first commands, as letters */
};

static int count(void *ctx, const struct pol_out *o)
{
	struct tally *t = ctx;
	char ch = '?';
	t->n++;
	t->role[o->role]++;
	/* the commands of interest: a letter and a count each */
	static const struct {
		uint32_t cc;
		char letter;
		size_t count;
	} kinds[] = {
	    {TPM_CC_CreatePrimary, 'P', offsetof(struct tally, cp)},
	    {TPM_CC_ContextSave, 'S', offsetof(struct tally, cs)},
	    {TPM_CC_ContextLoad, 'L', offsetof(struct tally, cl)},
	    {TPM_CC_StartAuthSession, 'A', offsetof(struct tally, sas)},
	    {TPM_CC_FlushContext, 'F', offsetof(struct tally, fc)},
	    {TPM_CC_PCR_Extend, 'E', offsetof(struct tally, pe)},
	    {TPM_CC_ReadPublic, 'R', offsetof(struct tally, rp)},
	    {TPM_CC_GetRandom, 'G', offsetof(struct tally, gr)},
	};
	size_t k = 0;
	while (k < sizeof kinds / sizeof kinds[0] && kinds[k].cc != o->cc)
		k++;
	if (k == sizeof kinds / sizeof kinds[0]) {
		t->other++;
		ch = 'x';
	} else {
		(*(unsigned *)((char *)t + kinds[k].count))++;
		ch = kinds[k].letter;
	}
	if (ch == 'E') {
		t->pe_auth[o->auth_kind]++;
		if (o->sess_attrs & POL_SA_CONTINUE)
			t->pe_continue++;
	}
	size_t l = strlen(t->seq);
	if (l + 1 < sizeof t->seq) {
		t->seq[l] = ch;
		t->seq[l + 1] = 0;
	}
	return 0;
}

struct unseal_tally {
	unsigned n, unseal, auth, attrs;
};

static int count_unseal(void *ctx, const struct pol_out *o)
{
	struct unseal_tally *t = ctx;
	t->n++;
	if (o->cc == TPM_CC_Unseal) {
		t->unseal++;
		t->auth = o->auth_kind;
		t->attrs = o->sess_attrs;
	}
	return 0;
}

static struct pol_cmd extend(void)
{
	struct pol_cmd c = {
	    .cc = TPM_CC_PCR_Extend, .n_handles = 1, .auth_kind = TPM_AUTH_PASSWORD, .has_rc = 1};
	c.handles[0] = 10;
	return c;
}

static struct tally run_extends(const char *pol, unsigned n)
{
	struct policy p;
	struct pol_state s;
	struct tally t;
	char err[256];
	memset(&t, 0, sizeof t);
	CHECK(policy_parse(pol, &p, err, sizeof err) == 0, "%s: %s", pol, err);
	policy_expand_init(&s, &p, count, &t);
	struct pol_cmd c = extend();
	for (unsigned i = 0; i < n; i++)
		CHECK(policy_expand_cmd(&s, &c) == 0, "expand");
	return t;
}

static void test_presets(void)
{
	const unsigned N = 1000;
	struct tally t;

	t = run_extends("as-recorded", N);
	CHECK(t.n == N && t.pe == N && t.pe_auth[TPM_AUTH_PASSWORD] == N, "as-recorded n=%u", t.n);

	t = run_extends("password", N);
	CHECK(t.n == N && t.pe_auth[TPM_AUTH_PASSWORD] == N, "password n=%u", t.n);

	/* 6.10: N x {ContextLoad, StartAuthSession, FlushContext, PCR_Extend}
	 * + 1 x {CreatePrimary, ContextSave, FlushContext}. */
	t = run_extends("linux-6.10", N);
	CHECK(t.cl == N && t.sas == N && t.pe == N, "6.10 per-command: cl=%u sas=%u pe=%u", t.cl,
	      t.sas, t.pe);
	CHECK(t.cp == 1 && t.cs == 1 && t.fc == N + 1, "6.10 init: cp=%u cs=%u fc=%u", t.cp, t.cs,
	      t.fc);
	CHECK(t.n == 4 * N + 3, "6.10 total %u", t.n);
	CHECK(t.pe_auth[TPM_AUTH_HMAC] == N && t.pe_continue == 0, "6.10 extend hmac, no continue");
	CHECK(t.rp == 0, "no ReadPublic for PCR handles");
	CHECK(!strncmp(t.seq, "PSFLAFELAFE", 11), "6.10 order %s", t.seq);
	CHECK(t.role[POL_ROLE_NULLKEY_INIT] == 3 && t.role[POL_ROLE_SESSION_SETUP] == 3 * N,
	      "6.10 roles");

	/* 6.12: 1 x {ContextLoad, StartAuthSession, FlushContext} + N x PCR_Extend
	 * (+ the same chip-registration triple). */
	t = run_extends("linux-6.12", N);
	CHECK(t.cl == 1 && t.sas == 1 && t.pe == N, "6.12: cl=%u sas=%u pe=%u", t.cl, t.sas, t.pe);
	CHECK(t.role[POL_ROLE_SESSION_SETUP] == 3 && t.role[POL_ROLE_NULLKEY_INIT] == 3,
	      "6.12 roles setup=%u init=%u", t.role[POL_ROLE_SESSION_SETUP],
	      t.role[POL_ROLE_NULLKEY_INIT]);
	CHECK(t.n == N + 6, "6.12 total %u", t.n);
	CHECK(t.pe_continue == N, "6.12 keeps the session");
	CHECK(!strncmp(t.seq, "PSFLAFEEE", 9), "6.12 order %s", t.seq);

	t = run_extends("linux-6.12-no-pcr-integrity", N);
	CHECK(t.pe_auth[TPM_AUTH_PASSWORD] == N && t.sas == 0 && t.cl == 0,
	      "no-pcr-integrity: pw=%u sas=%u", t.pe_auth[TPM_AUTH_PASSWORD], t.sas);
	CHECK(t.n == N + 3, "no-pcr-integrity total %u", t.n);

	/* Knobs. */
	t = run_extends("salt=none,reuse=per-command", N);
	CHECK(t.sas == N && t.cl == 0 && t.cp == 0 && t.n == 2 * N, "unsalted per-command n=%u",
	      t.n);
	/* a persistent salt key is read once (ReadPublic), never made */
	t = run_extends("salt=persistent:0x81000001,reuse=lazy", N);
	CHECK(t.sas == 1 && t.cl == 0 && t.cp == 0 && t.rp == 1 && t.n == N + 2,
	      "persistent lazy n=%u rp=%u", t.n, t.rp);
	t = run_extends("persistent-key", N);
	CHECK(t.sas == 1 && t.cl == 0 && t.cp == 0 && t.rp == 1 && t.n == N + 2,
	      "persistent-key n=%u rp=%u", t.n, t.rp);
	/* linux-6.18 (CONFIG_TCG_TPM2_HMAC=n): the extends alone, with passwords */
	t = run_extends("linux-6.18", N);
	CHECK(t.n == N && t.pe_auth[TPM_AUTH_PASSWORD] == N && t.sas == 0 && t.cp == 0,
	      "linux-6.18 n=%u pw=%u", t.n, t.pe_auth[TPM_AUTH_PASSWORD]);
	/* one-session: registration, one set-up, each extend followed by a
	 * ContextSave and, after the first, preceded by a ContextLoad */
	t = run_extends("one-session", N);
	CHECK(t.sas == 1 && t.cp == 1 && t.cs == 1 + N && t.cl == 1 + (N - 1) &&
		  t.n == 3 + 3 + N + N + (N - 1) && t.pe_continue == N,
	      "one-session n=%u cs=%u cl=%u", t.n, t.cs, t.cl);
	t = run_extends("salt=null-ecc,reuse=per-command,nullkey=keep-loaded", N);
	CHECK(t.cp == 1 && t.cs == 0 && t.cl == 0 && t.fc == 0 && t.sas == N && t.n == 2 * N + 1,
	      "keep-loaded n=%u cp=%u fc=%u", t.n, t.cp, t.fc);
	t = run_extends("reuse=forever", N);
	CHECK(t.sas == 1 && t.n == N + 6, "forever n=%u", t.n);
}

/* Flush events: user access, GetRandom, errors, suspend, reset. */
static void test_events(void)
{
	struct policy p;
	struct pol_state s;
	struct tally t;
	char err[256];
	struct pol_cmd e = extend();

	/* 6.12: E E user E G E(error) E -> sessions started: 1 (first) + after
	 * user + (GetRandom reuses the live one, then ends) + after GetRandom
	 * + after error = 4. */
	memset(&t, 0, sizeof t);
	CHECK(policy_parse("linux-6.12", &p, err, sizeof err) == 0, "%s", err);
	policy_expand_init(&s, &p, count, &t);
	policy_expand_cmd(&s, &e);
	policy_expand_cmd(&s, &e);
	struct pol_cmd u = {.cc = TPM_CC_GetCapability, .origin = POL_ORIGIN_USER};
	policy_expand_cmd(&s, &u);
	policy_expand_cmd(&s, &e);
	struct pol_cmd g = {.cc = TPM_CC_GetRandom, .has_rc = 1};
	policy_expand_cmd(&s, &g);
	struct pol_cmd bad = extend();
	bad.rc = 0x101; /* TPM_RC_FAILURE */
	policy_expand_cmd(&s, &bad);
	policy_expand_cmd(&s, &e);
	CHECK(t.sas == 4, "6.12 sessions started %u (seq %s)", t.sas, t.seq);
	/* Session ends: before the user command, after GetRandom, after the error. */
	CHECK(t.role[POL_ROLE_SESSION_END] == 3, "6.12 session ends %u",
	      t.role[POL_ROLE_SESSION_END]);
	CHECK(!strcmp(t.seq, "PSFLAFEEFxLAFEGFLAFEFLAFE"), "6.12 sequence %s", t.seq);

	/* Suspend event and reset. */
	memset(&t, 0, sizeof t);
	policy_expand_init(&s, &p, count, &t);
	policy_expand_cmd(&s, &e);
	policy_expand_event(&s, POL_EV_SUSPEND);
	policy_expand_cmd(&s, &e);
	policy_expand_event(&s, POL_EV_RESET);
	policy_expand_cmd(&s, &e);
	CHECK(t.sas == 3 && t.role[POL_ROLE_SESSION_END] == 1, "suspend/reset sas=%u end=%u (%s)",
	      t.sas, t.role[POL_ROLE_SESSION_END], t.seq);

	/* A trace that begins on a running kernel (record --kernel): no
	 * registration, the first extend starts a session. */
	memset(&t, 0, sizeof t);
	CHECK(policy_parse("linux-6.12", &p, err, sizeof err) == 0, "%s", err);
	policy_expand_init(&s, &p, count, &t);
	policy_expand_event(&s, POL_EV_ATTACHED);
	policy_expand_cmd(&s, &e);
	policy_expand_cmd(&s, &e);
	CHECK(!strcmp(t.seq, "LAFEE"), "attached: no registration, got %s", t.seq);

	/* forever ignores user access, not errors. */
	memset(&t, 0, sizeof t);
	CHECK(policy_parse("reuse=forever", &p, err, sizeof err) == 0, "%s", err);
	policy_expand_init(&s, &p, count, &t);
	policy_expand_cmd(&s, &e);
	policy_expand_cmd(&s, &u);
	policy_expand_cmd(&s, &e);
	policy_expand_cmd(&s, &bad);
	policy_expand_cmd(&s, &e);
	CHECK(t.sas == 2, "forever sessions %u (%s)", t.sas, t.seq);

	/* one-session: user space in between changes nothing (no flush, no new
	 * set-up); the session is loaded back for the next extend. */
	memset(&t, 0, sizeof t);
	CHECK(policy_parse("one-session", &p, err, sizeof err) == 0, "%s", err);
	policy_expand_init(&s, &p, count, &t);
	policy_expand_cmd(&s, &e);
	policy_expand_cmd(&s, &u);
	policy_expand_cmd(&s, &e);
	CHECK(t.sas == 1 && t.fc == 2 && t.cl == 2 && t.cs == 3, "one-session: sas=%u fc=%u (%s)",
	      t.sas, t.fc, t.seq);
	/* linux-6.18: no session to flush for user space, nothing registered */
	memset(&t, 0, sizeof t);
	CHECK(policy_parse("linux-6.18", &p, err, sizeof err) == 0, "%s", err);
	policy_expand_init(&s, &p, count, &t);
	policy_expand_cmd(&s, &e);
	policy_expand_cmd(&s, &u);
	policy_expand_cmd(&s, &e);
	CHECK(t.n == 3 && t.sas == 0 && t.fc == 0, "linux-6.18: %s", t.seq);

	/* 6.10 GetRandom: own session, encrypt, ended explicitly. Trusted-key
	 * Unseal of a transient blob: ReadPublic first. */
	memset(&t, 0, sizeof t);
	CHECK(policy_parse("linux-6.10", &p, err, sizeof err) == 0, "%s", err);
	policy_expand_init(&s, &p, count, &t);
	policy_expand_cmd(&s, &g);
	struct pol_cmd un = {.cc = TPM_CC_Unseal, .n_handles = 1, .auth_kind = TPM_AUTH_PASSWORD};
	un.handles[0] = 0x80000001;
	policy_expand_cmd(&s, &un);
	CHECK(!strcmp(t.seq, "PSFLAFGFLAFRx"), "6.10 GetRandom + Unseal %s", t.seq);
	CHECK(t.role[POL_ROLE_NAME_LOOKUP] == 1, "one name lookup");

	/* Password policy drops sessions where there is no authorization handle. */
	memset(&t, 0, sizeof t);
	CHECK(policy_parse("password", &p, err, sizeof err) == 0, "%s", err);
	policy_expand_init(&s, &p, count, &t);
	struct pol_cmd g2 = {.cc = TPM_CC_GetRandom, .auth_kind = TPM_AUTH_HMAC_ENC};
	policy_expand_cmd(&s, &g2);
	CHECK(t.gr == 1 && t.n == 1, "password GetRandom");
}

/* A VM boot's origins under linux-6.12: the firmware's commands pass as
 * recorded and start nothing; the kernel registers its null key after its
 * start-up commands; user space's commands and the hwrng's reads end the
 * session; hwrng=off drops the hwrng's reads. */
static void run_boot(const char *pol, struct tally *t)
{
	struct policy p;
	struct pol_state s;
	char err[256];
	const struct {
		uint32_t cc;
		uint8_t origin, kstartup, hwrng;
	} boot[] = {
	    {TPM_CC_Startup, POL_ORIGIN_FIRMWARE, 1, 0},
	    {TPM_CC_PCR_Extend, POL_ORIGIN_FIRMWARE, 0, 0},
	    {TPM_CC_PCR_Extend, POL_ORIGIN_FIRMWARE, 0, 0},
	    {TPM_CC_PCR_Extend, POL_ORIGIN_FIRMWARE, 0, 0},
	    {TPM_CC_GetRandom, POL_ORIGIN_FIRMWARE, 0, 0},
	    {TPM_CC_GetCapability, POL_ORIGIN_KERNEL, 1, 0}, /* tpm2_probe */
	    {TPM_CC_SelfTest, POL_ORIGIN_KERNEL, 1, 0},
	    {TPM_CC_GetCapability, POL_ORIGIN_KERNEL, 1, 0}, /* tpm2_get_cc_attrs_tbl */
	    {TPM_CC_GetCapability, POL_ORIGIN_KERNEL, 1, 0},
	    {TPM_CC_GetCapability, POL_ORIGIN_KERNEL, 0, 0}, /* TPM_CAP_PCRS */
	    {TPM_CC_PCR_Read, POL_ORIGIN_KERNEL, 0, 0},
	    {TPM_CC_PCR_Extend, POL_ORIGIN_KERNEL, 0, 0},
	    {TPM_CC_PCR_Extend, POL_ORIGIN_KERNEL, 0, 0},
	    {TPM_CC_GetRandom, POL_ORIGIN_KERNEL, 0, 1},
	    {TPM_CC_PCR_Extend, POL_ORIGIN_KERNEL, 0, 0},
	    {TPM_CC_GetCapability, POL_ORIGIN_USER, 1, 0},
	    {TPM_CC_PCR_Extend, POL_ORIGIN_KERNEL, 0, 0},
	    {TPM_CC_Shutdown, POL_ORIGIN_KERNEL, 0, 0},
	};
	memset(t, 0, sizeof *t);
	CHECK(policy_parse(pol, &p, err, sizeof err) == 0, "%s: %s", pol, err);
	policy_expand_init(&s, &p, count, t);
	for (size_t i = 0; i < sizeof boot / sizeof boot[0]; i++) {
		struct pol_cmd c = {.cc = boot[i].cc,
				    .origin = boot[i].origin,
				    .kstartup = boot[i].kstartup,
				    .hwrng = boot[i].hwrng,
				    .has_rc = 1};
		if (c.cc == TPM_CC_PCR_Extend) {
			c.n_handles = 1;
			c.handles[0] = boot[i].origin == POL_ORIGIN_FIRMWARE ? 0 : 10;
			c.auth_kind = TPM_AUTH_PASSWORD;
		}
		CHECK(policy_expand_cmd(&s, &c) == 0, "expand");
	}
}

static void test_origins(void)
{
	struct tally t;
	run_boot("linux-6.12", &t);
	CHECK(!strcmp(t.seq, "xEEEGxxxxPSFxxLAFEEGFLAFEFxLAFEFx"), "6.12 boot %s", t.seq);
	CHECK(t.pe_auth[TPM_AUTH_PASSWORD] == 3 && t.pe_auth[TPM_AUTH_HMAC] == 4,
	      "firmware extends as recorded, kernel's with HMAC: pw=%u hmac=%u",
	      t.pe_auth[TPM_AUTH_PASSWORD], t.pe_auth[TPM_AUTH_HMAC]);
	run_boot("salt=null-ecc,reuse=lazy,hwrng=off", &t);
	CHECK(!strcmp(t.seq, "xEEEGxxxxPSFxxLAFEEEFxLAFEFx"), "hwrng=off boot %s", t.seq);
	/* user-flush=off: the user-space command ends nothing; the hwrng's
	 * read and Shutdown still end the session */
	run_boot("salt=null-ecc,reuse=lazy,user-flush=off", &t);
	CHECK(!strcmp(t.seq, "xEEEGxxxxPSFxxLAFEEGFLAFExEFx"), "user-flush=off boot %s", t.seq);
	run_boot("linux-6.12-no-pcr-integrity", &t);
	CHECK(!strcmp(t.seq, "xEEEGxxxxPSFxxEELAFGFExEx"), "no-pcr-integrity boot %s", t.seq);
	run_boot("as-recorded", &t);
	CHECK(t.n == 18 && t.cp == 0, "as-recorded boot n=%u", t.n);

	/* A firmware Startup after the kernel's commands is a new boot: the next
	 * kernel registers its null key again. */
	struct policy p;
	struct pol_state s;
	char err[256];
	memset(&t, 0, sizeof t);
	CHECK(policy_parse("linux-6.12", &p, err, sizeof err) == 0, "%s", err);
	policy_expand_init(&s, &p, count, &t);
	struct pol_cmd e = extend();
	e.origin = POL_ORIGIN_KERNEL;
	struct pol_cmd su = {.cc = TPM_CC_Startup, .origin = POL_ORIGIN_FIRMWARE, .has_rc = 1};
	policy_expand_cmd(&s, &e);
	policy_expand_cmd(&s, &su);
	policy_expand_cmd(&s, &e);
	CHECK(!strcmp(t.seq, "PSFLAFExPSFLAFE"), "reboot %s", t.seq);

	/* The kernel's start-up commands and its first command, from bytes. */
	static const uint8_t probe[] = {0x80, 0x01, 0, 0, 0, 22, 0,    0, 0x01, 0x7A, 0,
					0,    0,    6, 0, 0, 1,	 0x29, 0, 0,	0,    1};
	static const uint8_t pcrs[] = {0x80, 0x01, 0, 0, 0, 22, 0, 0, 0x01, 0x7A, 0,
				       0,    0,	   5, 0, 0, 0,	0, 0, 0,    0,	  1};
	static const uint8_t st_no[] = {0x80, 0x01, 0, 0, 0, 11, 0, 0, 0x01, 0x43, 0};
	static const uint8_t st_yes[] = {0x80, 0x01, 0, 0, 0, 11, 0, 0, 0x01, 0x43, 1};
	CHECK(policy_kernel_first_cmd(probe, sizeof probe), "tpm2_probe's GetCapability");
	CHECK(!policy_kernel_first_cmd(pcrs, sizeof pcrs), "GetCapability(PCRS) is not");
	CHECK(policy_kernel_first_cmd(st_no, sizeof st_no), "SelfTest(NO)");
	CHECK(!policy_kernel_first_cmd(st_yes, sizeof st_yes), "SeaBIOS's full SelfTest is not");
	CHECK(!policy_kernel_first_cmd(probe, 9), "short");
	CHECK(policy_startup_cmd(TPM_CC_GetCapability, probe, sizeof probe), "probe: start-up");
	CHECK(!policy_startup_cmd(TPM_CC_GetCapability, pcrs, sizeof pcrs), "PCRS: not start-up");
	CHECK(policy_startup_cmd(TPM_CC_GetCapability, NULL, 0), "no bytes: start-up");
	CHECK(policy_startup_cmd(TPM_CC_SelfTest, NULL, 0) &&
		  !policy_startup_cmd(TPM_CC_PCR_Read, NULL, 0),
	      "SelfTest, PCR_Read");
	CHECK(!strcmp(policy_origin_str(POL_ORIGIN_FIRMWARE), "firmware") &&
		  !strcmp(policy_origin_str(POL_ORIGIN_USER), "userspace"),
	      "origin names");
}

/* A protected command answered TPM_RC_RETRY and sent again: the TPM did not
 * start it, so its session is not ended, dropped or saved, and the
 * resubmission goes with it, without new Name lookups (tpm_transmit sends the
 * same bytes again). */
static void tally_start(struct tally *t, struct policy *p, struct pol_state *s, const char *pol)
{
	char err[256];
	memset(t, 0, sizeof *t);
	CHECK(policy_parse(pol, p, err, sizeof err) == 0, "%s: %s", pol, err);
	policy_expand_init(s, p, count, t);
}

static struct tally run_retry(const char *pol, struct pol_cmd c)
{
	struct policy p;
	struct pol_state s;
	struct tally t;
	tally_start(&t, &p, &s, pol);
	struct pol_cmd retry = c;
	retry.rc = 0x922;
	policy_expand_cmd(&s, &c);
	policy_expand_cmd(&s, &retry);
	policy_expand_cmd(&s, &c);
	policy_expand_cmd(&s, &c);
	return t;
}

static void test_retry(void)
{
	struct tally t = run_retry("linux-6.10", extend());
	CHECK(!strcmp(t.seq, "PSFLAFELAFEELAFE"), "6.10 retry: %s", t.seq);
	t = run_retry("linux-6.12", extend());
	CHECK(!strcmp(t.seq, "PSFLAFEEEE") && t.role[POL_ROLE_SESSION_END] == 0, "6.12 retry: %s",
	      t.seq);
	t = run_retry("one-session", extend());
	CHECK(!strcmp(t.seq, "PSFLAFESLEESLES"), "one-session retry: %s", t.seq);
	/* a Load under a transient parent: its Name is read once for the
	 * command and its resubmission */
	struct pol_cmd ld = {
	    .cc = TPM_CC_Load, .n_handles = 1, .auth_kind = TPM_AUTH_HMAC, .has_rc = 1};
	ld.handles[0] = 0x80000001;
	t = run_retry("linux-6.12", ld);
	CHECK(!strcmp(t.seq, "PSFLAFRxRxxRx"), "6.12 Load retry: %s", t.seq);
	/* YIELDED and TESTING are retries too; another error ends the session */
	struct pol_cmd e = extend();
	for (unsigned i = 0; i < 3; i++) {
		static const uint32_t rcs[3] = {0x908, 0x90A, 0x101};
		struct policy p;
		struct pol_state s;
		tally_start(&t, &p, &s, "linux-6.12");
		struct pol_cmd r = e;
		r.rc = rcs[i];
		policy_expand_cmd(&s, &r);
		policy_expand_cmd(&s, &e);
		CHECK(t.sas == (i < 2 ? 1u : 2u), "rc 0x%x: %u sessions (%s)", rcs[i], t.sas,
		      t.seq);
	}
}

static void test_parse_errors(void)
{
	struct policy p;
	char err[256];
	const struct {
		const char *spec;
		const char *want; /* a piece of the message */
	} bad[] = {
	    {"", "empty"},
	    {"linux-6.99", "neither a preset"},
	    {"salt=rsa", "offset 5: salt='rsa'"},
	    {"reuse=sometimes", "offset 6: reuse='sometimes'"},
	    {"salt=none,colour=blue", "offset 10: unknown knob 'colour'"},
	    {"salt=none,salt=none", "given twice"},
	    {"salt=persistent:0x40000001", "persistent handle"},
	    {"salt=persistent:", "salt="},
	    {"salt=none,nullkey=keep-loaded", "only applies to salt=null-ecc"},
	    {"encrypt=some", "encrypt='some'"},
	    {"reuse=lazy,", "trailing comma"},
	    {"reuse", "neither a preset"},
	    {"reuse=lazy,salt", "not knob=value"},
	    {"pcr-integrity=maybe", "pcr-integrity='maybe'"},
	    {"reuse=lazy,hwrng=sometimes", "offset 17: hwrng='sometimes'"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err[0] = 0;
		int rc = policy_parse(bad[i].spec, &p, err, sizeof err);
		CHECK(rc < 0, "'%s' accepted", bad[i].spec);
		CHECK(strstr(err, bad[i].want) != NULL, "'%s': message '%s' lacks '%s'",
		      bad[i].spec, err, bad[i].want);
	}
	CHECK(policy_parse("salt=persistent:0x81000001,reuse=lazy,encrypt=all,pcr-integrity=off",
			   &p, err, sizeof err) == 0,
	      "%s", err);
	CHECK(p.salt == POL_SALT_PERSISTENT && p.salt_handle == 0x81000001 &&
		  p.reuse == POL_REUSE_LAZY && p.encrypt == POL_ENC_ALL && !p.pcr_integrity,
	      "knobs");
	char spec[160];
	policy_spec(&p, spec, sizeof spec);
	struct policy q;
	CHECK(policy_parse(spec, &q, err, sizeof err) == 0 && !memcmp(&p, &q, sizeof p),
	      "canonical spec round trip: %s", spec);
	/* The 6.12 preset equals the spec that names its knobs. */
	CHECK(policy_parse("linux-6.12", &p, err, sizeof err) == 0, "preset");
	CHECK(policy_parse("salt=null-ecc,reuse=lazy,encrypt=kernel,nullkey=context-load", &q, err,
			   sizeof err) == 0,
	      "%s", err);
	CHECK(p.salt == q.salt && p.reuse == q.reuse && p.encrypt == q.encrypt &&
		  p.nullkey == q.nullkey && p.pcr_integrity == q.pcr_integrity,
	      "preset = spec");
	CHECK(policy_parse("reuse=lazy,hwrng=off", &p, err, sizeof err) == 0 && p.hwrng_off,
	      "hwrng=off: %s", err);
	policy_spec(&p, spec, sizeof spec);
	CHECK(strstr(spec, ",hwrng=off") && policy_parse(spec, &q, err, sizeof err) == 0 &&
		  !memcmp(&p, &q, sizeof p),
	      "hwrng round trip: %s", spec);
	CHECK(policy_parse("reuse=lazy,user-flush=off", &p, err, sizeof err) == 0 &&
		  p.user_flush_off,
	      "user-flush=off: %s", err);
	policy_spec(&p, spec, sizeof spec);
	CHECK(strstr(spec, ",user-flush=off") && policy_parse(spec, &q, err, sizeof err) == 0 &&
		  !memcmp(&p, &q, sizeof p),
	      "user-flush round trip: %s", spec);
	CHECK(policy_parse("linux-6.12", &p, err, sizeof err) == 0 && !p.hwrng_off,
	      "presets model HW_RANDOM_TPM");
	policy_spec(&p, spec, sizeof spec);
	CHECK(!strstr(spec, "hwrng"), "hwrng named only when off: %s", spec);
	CHECK(policy_event_from_kind("suspend") == POL_EV_SUSPEND, "event kind");
	CHECK(policy_event_from_kind("SET_LOCALITY") == 0, "irrelevant event");
	CHECK(policy_event_from_kind("kernel-attached") == POL_EV_ATTACHED,
	      "record --kernel's start");
}

/* An Unseal authorized by a policy session (systemd-cryptsetup's, clevis's)
 * keeps its sessions under every preset: no session set-up, no password, the
 * recorded authorization kind and attributes. */
static void test_policy_auth_kept(void)
{
	static const char *const presets[] = {"password", "linux-6.10", "linux-6.12",
					      "linux-6.12-no-pcr-integrity"};
	for (unsigned i = 0; i < sizeof presets / sizeof presets[0]; i++) {
		struct policy p;
		struct pol_state s;
		char err[256];
		struct unseal_tally t = {0};
		CHECK(policy_parse(presets[i], &p, err, sizeof err) == 0, "%s", err);
		struct pol_cmd c = {.cc = TPM_CC_Unseal,
				    .n_handles = 1,
				    .auth_kind = TPM_AUTH_POLICY,
				    .sess_attrs = 0x4101,
				    .has_rc = 1};
		c.handles[0] = 0x80000001;
		policy_expand_init(&s, &p, count_unseal, &t);
		CHECK(policy_expand_cmd(&s, &c) == 0, "%s: expand", presets[i]);
		CHECK(t.unseal == 1 && t.auth == TPM_AUTH_POLICY && t.attrs == 0x01,
		      "%s: Unseal as recorded (n %u, auth %u, attrs 0x%x)", presets[i], t.unseal,
		      t.auth, t.attrs);
		CHECK(!policy_auth_kept(TPM_AUTH_HMAC) && policy_auth_kept(TPM_AUTH_POLICY_ENC),
		      "policy_auth_kept");
	}
}

int main(void)
{
	test_presets();
	test_events();
	test_origins();
	test_policy_auth_kept();
	test_retry();
	test_parse_errors();
	return tl_finish("test_policy");
}
