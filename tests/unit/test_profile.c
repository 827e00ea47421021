/* Profiles: text format errors with file:line, round trips through the text
 * format and the database, lookup fallback, the ftrace importer, the shipped
 * profiles. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/db.h"
#include "model/tpm/decode.h"
#include "model/profile.h"
#include "model/profile_derive.h"
#include "recorder/import/profile_import.h"
#include "model/tpm/tpm_cc.h"
#include "testlib.h"

static const char good[] = "tpmtrace-profile 1\n"
			   "# comment\n"
			   "name: t1\n"
			   "chip: TEST\n"
			   "source: first\n"
			   "source: second\n"
			   "transport-ms: 0.5\n"
			   "PCR_Extend password - n=10 mean=6.36 p50=6.3 p95=7.1 stdev=0.4 min=6 "
			   "max=8  # measured\n"
			   "PCR_Extend hmac - mean=24.36\n"
			   "StartAuthSession none salted-ecc mean=84.75 min=80 max=90\n"
			   "0x00000165 none - mean=3.2\n";

static void expect_error(const char *text, const char *want)
{
	struct profile p;
	char err[512] = "";
	int rc = profile_parse(text, strlen(text), "t.profile", &p, err, sizeof err);
	CHECK(rc < 0, "accepted: %s", text);
	CHECK(strstr(err, want) != NULL, "message '%s' lacks '%s'", err, want);
	CHECK(p.n == 0 && p.name == NULL, "profile left empty on error");
}

static void test_parse(void)
{
	struct profile p, q;
	char err[512] = "";
	CHECK(profile_parse(good, strlen(good), "good", &p, err, sizeof err) == 0, "%s", err);
	CHECK(p.n == 4, "entries %zu", p.n);
	CHECK(!strcmp(p.name, "t1") && !strcmp(p.source, "first\nsecond"), "header");
	CHECK(p.transport_ms == 0.5, "transport");
	CHECK(p.e[0].n == 10 && p.e[0].p95_ms == 7.1 && !strcmp(p.e[0].comment, "measured"),
	      "entry 0");
	CHECK(p.e[3].cc == TPM_CC_FlushContext && isnan(p.e[3].p50_ms), "hex code entry");
	CHECK(p.e[0].line == 8, "line %u", p.e[0].line);

	/* Round trip through the writer. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(profile_write(f, &p) == 0, "write");
	fclose(f);
	CHECK(profile_parse(buf, len, "written", &q, err, sizeof err) == 0, "reparse: %s", err);
	CHECK(q.n == p.n, "same entries");
	for (size_t i = 0; i < p.n && i < q.n; i++) {
		CHECK(q.e[i].cc == p.e[i].cc && q.e[i].auth == p.e[i].auth &&
			  !strcmp(q.e[i].variant, p.e[i].variant) &&
			  q.e[i].mean_ms == p.e[i].mean_ms && q.e[i].n == p.e[i].n,
		      "entry %zu differs", i);
		CHECK((isnan(q.e[i].p95_ms) && isnan(p.e[i].p95_ms)) ||
			  q.e[i].p95_ms == p.e[i].p95_ms,
		      "p95 %zu", i);
	}
	CHECK(!strcmp(q.source, p.source), "sources");
	free(buf);
	profile_release(&q);

	/* Lookup and fallback rules. */
	enum prof_match how;
	const struct prof_entry *e;
	e = profile_lookup(&p, TPM_CC_PCR_Extend, TPM_AUTH_HMAC, "-", &how);
	CHECK(e && e->mean_ms == 24.36 && how == PROF_EXACT, "exact");
	e = profile_lookup(&p, TPM_CC_PCR_Extend, TPM_AUTH_HMAC_ENC, "-", &how);
	CHECK(e && e->mean_ms == 24.36 && how == PROF_OTHER_AUTH, "hmac+enc -> hmac");
	e = profile_lookup(&p, TPM_CC_StartAuthSession, TPM_AUTH_NONE, "unsalted", &how);
	CHECK(e && e->mean_ms == 84.75 && how == PROF_OTHER_VARIANT, "other variant");
	e = profile_lookup(&p, TPM_CC_ContextSave, TPM_AUTH_NONE, "-", &how);
	CHECK(!e && how == PROF_MISSING, "missing");
	/* Median of 6.36, 24.36, 84.75, 3.2 = (6.36 + 24.36) / 2. */
	CHECK(fabs(profile_fallback(&p) - 15.36) < 1e-9, "fallback %g", profile_fallback(&p));
	double lo, hi;
	CHECK(profile_entry_range(&p.e[0], &lo, &hi) == 1 && hi == 7.1 && lo == 6, "range %g..%g",
	      lo, hi);
	CHECK(profile_entry_range(&p.e[1], &lo, &hi) == 0 && lo == 24.36 && hi == 24.36,
	      "no spread");
	profile_release(&p);

	/* Errors name the file and line. */
	expect_error("", "empty file");
	expect_error("hello\n", "t.profile:1: not a tpmtrace profile");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend password - mean=-1\n",
		     "t.profile:3: mean=-1 ms: a latency must be positive");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend password - mean=0\n",
		     "t.profile:3: mean=0 ms");
	expect_error("tpmtrace-profile 1\nname: x\n\nPCR_Extend password - mean=9e9\n",
		     "t.profile:4: mean=9e+09 ms is absurd");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend password - mean=abc\n",
		     "t.profile:3: mean=abc is not a number");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend password - mean=nan\n",
		     "t.profile:3: mean=nan is not a number");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend password - mean=inf\n",
		     "t.profile:3: mean=inf ms");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extnd password - mean=1\n",
		     "t.profile:3: unknown command 'PCR_Extnd'");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend pw - mean=1\n",
		     "t.profile:3: unknown authorization 'pw'");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend password - p50=1\n",
		     "t.profile:3: mean= is required");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend password - mean=5 min=6 max=7\n",
		     "t.profile:3: mean=5 ms lies outside");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend password - mean=5 p50=6 p95=4\n",
		     "t.profile:3: p50=6 ms is above p95=4 ms");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend password - mean=5 n=0\n",
		     "t.profile:3: n=0");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend password - mean=5 colour=3\n",
		     "t.profile:3: unknown field 'colour'");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend password\n", "t.profile:3: an entry");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend password - mean=1\n"
		     "PCR_Extend password - mean=2\n",
		     "t.profile:4: PCR_Extend password - is already given on line 3");
	expect_error("tpmtrace-profile 1\nname: x\ncolour: blue\n", "t.profile:3: unknown header");
	expect_error("tpmtrace-profile 1\nname: x\ntransport-ms: -1\n",
		     "t.profile:3: transport-ms");
	expect_error("tpmtrace-profile 1\nPCR_Extend password - mean=1\n", "no 'name:' line");
	expect_error("tpmtrace-profile 1\nname: x\n", "no entries");
	expect_error("tpmtrace-profile 1\nname: x\nPCR_Extend password a/b mean=1\n",
		     "t.profile:3: variant 'a/b'");
	const char bin[] = "tpmtrace-profile 1\nname: x\0\n";
	struct profile p2;
	char err2[256];
	CHECK(profile_parse(bin, sizeof bin - 1, "b", &p2, err2, sizeof err2) < 0 &&
		  strstr(err2, "binary"),
	      "NUL byte: %s", err2);
}

static void test_file_and_db(void)
{
	const char *dir = tl_tmpdir();
	char path[512], dbp[512], err[512];
	struct profile p, q;
	sqlite3 *db;
	snprintf(path, sizeof path, "%s/p.profile", dir);
	snprintf(dbp, sizeof dbp, "%s/p.db", dir);

	CHECK(profile_parse(good, strlen(good), "good", &p, err, sizeof err) == 0, "%s", err);
	/* (Files are written atomically and 0600 by the tpmtrace command's one
	 * output helper, db/out.c; here only the format.) */
	FILE *pf = fopen(path, "w");
	CHECK(pf && profile_write(pf, &p) == 0, "write %s", path);
	if (pf)
		fclose(pf);
	CHECK(profile_load_file(path, &q, err, sizeof err) == 0 && q.n == p.n, "%s", err);
	profile_release(&q);
	char missing[512];
	snprintf(missing, sizeof missing, "%s/missing.profile", dir);
	CHECK(profile_load_file(missing, &q, err, sizeof err) < 0 && strstr(err, "missing.profile"),
	      "missing file message %s", err);

	CHECK(db_open(dbp, DB_CREATE, &db, err, sizeof err) == 0, "%s", err);
	CHECK(profile_db_store(db, &p, 0, err, sizeof err) == 0, "%s", err);
	CHECK(profile_db_store(db, &p, 0, err, sizeof err) == -EEXIST, "duplicate refused");
	CHECK(profile_db_store(db, &p, 1, err, sizeof err) == 0, "replace: %s", err);
	CHECK(profile_db_load(db, "t1", &q, err, sizeof err) == 0, "%s", err);
	CHECK(q.n == p.n && !strcmp(q.chip, "TEST") && q.transport_ms == 0.5, "db header");
	for (size_t i = 0; i < p.n && i < q.n; i++)
		CHECK(q.e[i].cc == p.e[i].cc && fabs(q.e[i].mean_ms - p.e[i].mean_ms) < 1e-9 &&
			  q.e[i].n == p.e[i].n && !strcmp(q.e[i].variant, p.e[i].variant),
		      "db entry %zu", i);
	CHECK(q.e[0].comment && !strcmp(q.e[0].comment, "measured"), "db comment");
	profile_release(&q);
	CHECK(profile_db_load(db, "nope", &q, err, sizeof err) == -ENOENT, "not found");
	/* A corrupt row is reported, not used. */
	db_exec(db, "UPDATE profile_entry SET mean_ns=-5 WHERE seq=1", err, sizeof err);
	CHECK(profile_db_load(db, "t1", &q, err, sizeof err) == -EINVAL && strstr(err, "entry 2"),
	      "corrupt row: %s", err);
	db_close(db);
	profile_release(&p);
	unlink(path);
	unlink(dbp);
}

/* An ftrace function_graph sample in the form posted to linux-integrity:
 * one HMAC-protected PCR extend on 6.10 and one without a session. */
static const char ftrace_sample[] = "# tracer: function_graph\n"
				    "#\n"
				    "# CPU  DURATION                  FUNCTION CALLS\n"
				    "# |     |   |                     |   |   |   |\n"
				    " 1)               |  tpm2_pcr_extend() {\n"
				    " 1)               |    tpm2_start_auth_session() {\n"
				    " 1) * 36981.25 us |      tpm2_load_context();\n"
				    " 1) * 84750.50 us |      tpm_transmit_cmd();\n"
				    " 1) # 3201.00 us  |      tpm2_flush_context();\n"
				    " 1) @ 124940.1 us |    }\n"
				    " 1)   1.250 us    |    tpm_buf_append_name();\n"
				    " 1)   8.100 us    |    tpm_buf_fill_hmac_session();\n"
				    " 1) * 24356.46 us |    tpm_transmit_cmd();\n"
				    " 1) + 12.000 us   |    tpm_buf_check_hmac_response();\n"
				    " 1) @ 151171.0 us |  }\n"
				    " ------------------------------------------\n"
				    " 0)  kworker-12    =>  ima-34      \n"
				    " ------------------------------------------\n"
				    " 0)               |  tpm2_pcr_extend() {\n"
				    " 0) # 6360.00 us  |    tpm_transmit_cmd();\n"
				    " 0) # 6371.00 us  |  } /* tpm2_pcr_extend */\n"
				    " 0)               |  tpm2_pcr_extend() {\n"
				    " 0) # 6340.00 us  |    tpm_transmit_cmd();\n"
				    " 0) # 6350.00 us  |  }\n";

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void test_ftrace(void)
{
	const char *dir = tl_tmpdir();
	char path[512], err[512];
	struct profile p;
	enum prof_match how;
	const struct prof_entry *e;
	snprintf(path, sizeof path, "%s/extend.trace", dir);
	CHECK(write_file(path, ftrace_sample) == 0, "write sample");
	CHECK(import_profile_ftrace(path, &p, err, sizeof err) == 0, "%s", err);
	e = profile_lookup(&p, TPM_CC_PCR_Extend, TPM_AUTH_HMAC, "-", &how);
	CHECK(e && how == PROF_EXACT && e->n == 1 && fabs(e->mean_ms - 24.35646) < 1e-9,
	      "hmac extend %g", e ? e->mean_ms : -1);
	e = profile_lookup(&p, TPM_CC_PCR_Extend, TPM_AUTH_PASSWORD, "-", &how);
	CHECK(e && how == PROF_EXACT && e->n == 2 && fabs(e->mean_ms - 6.35) < 1e-9 &&
		  e->min_ms == 6.34 && e->max_ms == 6.36,
	      "password extend n=%llu mean=%g", e ? (unsigned long long)e->n : 0,
	      e ? e->mean_ms : -1);
	e = profile_lookup(&p, TPM_CC_ContextLoad, TPM_AUTH_NONE, "-", &how);
	CHECK(e && how == PROF_EXACT && fabs(e->mean_ms - 36.98125) < 1e-9, "ContextLoad");
	e = profile_lookup(&p, TPM_CC_StartAuthSession, TPM_AUTH_NONE, "salted-ecc", &how);
	CHECK(e && how == PROF_EXACT && fabs(e->mean_ms - 84.7505) < 1e-9, "StartAuthSession");
	e = profile_lookup(&p, TPM_CC_FlushContext, TPM_AUTH_NONE, "-", &how);
	CHECK(e && how == PROF_EXACT && fabs(e->mean_ms - 3.201) < 1e-9, "FlushContext");
	CHECK(p.n == 5, "5 entries, got %zu", p.n);
	CHECK(p.covers && strstr(p.covers, "PCR_Extend/hmac"), "covers %s", p.covers);
	profile_release(&p);

	/* Bad input names file:line. */
	const struct {
		const char *text, *want;
	} bad[] = {
	    {"# tracer\n 1) abc.5 us |  tpm_transmit_cmd();\n", ":2: duration 'abc.5'"},
	    {" 1) * 900000000.0 us |  tpm_transmit_cmd();\n", ":1: duration 900000000.0 us is "
							      "absurd"},
	    {"hello world\n", ":1: not a function_graph line"},
	    {"# only comments\n 1)  2.0 us | kfree();\n", "no timed TPM commands"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK(write_file(path, bad[i].text) == 0, "write");
		err[0] = 0;
		CHECK(import_profile_ftrace(path, &p, err, sizeof err) < 0, "bad %zu accepted", i);
		CHECK(strstr(err, "extend.trace") && strstr(err, bad[i].want), "bad %zu: '%s'", i,
		      err);
	}
	unlink(path);
}

static void test_shipped(void)
{
	char name[128], err[512];
	unsigned n = profile_builtin_count();
	CHECK(n >= 6, "shipped profiles %u", n);
	for (unsigned i = 0; i < n; i++) {
		struct profile p;
		profile_builtin_name(i, name, sizeof name);
		CHECK(profile_load_builtin(name, &p, err, sizeof err) == 0, "%s: %s", name, err);
		CHECK(p.name && !strcmp(p.name, name), "%s: name line matches the file", name);
		CHECK(p.source && p.covers && p.lacks, "%s: provenance, covers, lacks", name);
		profile_release(&p);
	}
	struct profile p;
	CHECK(profile_load_builtin("slb9670-linux-integrity", &p, err, sizeof err) == 0, "%s", err);
	enum prof_match how;
	const struct prof_entry *e =
	    profile_lookup(&p, TPM_CC_PCR_Extend, TPM_AUTH_PASSWORD, "-", &how);
	CHECK(e && e->mean_ms == 6.36, "SLB9670 password extend");
	e = profile_lookup(&p, TPM_CC_StartAuthSession, TPM_AUTH_NONE, "salted-ecc", &how);
	CHECK(e && e->mean_ms == 84.75, "SLB9670 StartAuthSession");
	profile_release(&p);
	CHECK(profile_load_builtin("no-such", &p, err, sizeof err) == -ENOENT, "unknown shipped");
}

/* The rules (docs/profiles.md, "Derived entries"): a measured entry is never
 * replaced, a derived one never used as a source, a rule whose sources are
 * missing adds nothing, and sums add figure by figure. */
static void test_derive(void)
{
	static const char src[] =
	    "tpmtrace-profile 1\nname: d\n"
	    "Sign password ecc-p256.ecdsa n=10 mean=70 p50=69 p95=75 stdev=3 min=60 max=80\n"
	    "HMAC password sha256.256b n=20 mean=14 p50=14 p95=15 stdev=4 min=12 max=17\n"
	    "GetRandom none 32b n=5 mean=4 min=3 max=6\n"
	    "FlushContext none - mean=3.2  # measured\n"
	    "Hash none sha256.256b derived=Sign mean=5\n";
	struct profile p;
	char err[512], names[512];
	CHECK(profile_parse(src, strlen(src), "d", &p, err, sizeof err) == 0, "%s", err);
	int n = profile_derive(&p, names, sizeof names);
	CHECK(n > 0, "derived %d", n);
	const struct prof_entry *e =
	    profile_lookup_exact(&p, TPM_CC_StartAuthSession, TPM_AUTH_NONE, "salted-ecc");
	CHECK(e && e->derived_from == TPM_CC_Sign, "salted session from Sign");
	CHECK(e && e->mean_ms == 84 && e->p50_ms == 83 && e->p95_ms == 90 && e->min_ms == 72 &&
		  e->max_ms == 97 && e->stdev_ms == 5 && e->n == 10,
	      "Sign + HMAC, figure by figure (stdev in quadrature, the smaller n)");
	CHECK(e && e->comment && strstr(e->comment, "derived: Sign ecc-p256.ecdsa + HMAC"),
	      "the rule in the comment: %s", e && e->comment ? e->comment : "");
	e = profile_lookup_exact(&p, TPM_CC_ContextLoad, TPM_AUTH_NONE, "-");
	CHECK(e && e->mean_ms == 28 && e->max_ms == 34 && e->stdev_ms == 8, "2 x HMAC");
	e = profile_lookup_exact(&p, TPM_CC_FlushContext, TPM_AUTH_NONE, "-");
	CHECK(e && e->mean_ms == 3.2 && !e->derived_from, "a measured entry kept");
	e = profile_lookup_exact(&p, TPM_CC_GetCapability, TPM_AUTH_NONE, "-");
	CHECK(e && e->mean_ms == 4 && isnan(e->p95_ms) && e->derived_from == TPM_CC_GetRandom,
	      "fixed cost from GetRandom, its unknown figures unknown");
	CHECK(!profile_lookup_exact(&p, TPM_CC_PCR_Extend, TPM_AUTH_PASSWORD, "-"),
	      "no extend from a derived Hash");
	CHECK(!profile_lookup_exact(&p, TPM_CC_StartAuthSession, TPM_AUTH_NONE, "salted"),
	      "no RSA salt without RSA_Decrypt");
	CHECK(!profile_lookup_exact(&p, TPM_CC_NV_Write, TPM_AUTH_PASSWORD, "-"), "no NV write");
	CHECK(strstr(names, "StartAuthSession") && strstr(names, "ContextLoad") &&
		  !strstr(names, "FlushContext"),
	      "names: %s", names);
	char err2[512];
	CHECK(profile_check(&p, err2, sizeof err2) == 0, "derived entries valid: %s", err2);
	CHECK(profile_derive(&p, NULL, 0) == 0, "a second pass adds nothing");
	profile_release(&p);
}

int main(void)
{
	test_parse();
	test_derive();
	test_file_and_db();
	test_ftrace();
	test_shipped();
	return tl_finish("test_profile");
}
