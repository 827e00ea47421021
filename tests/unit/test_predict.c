/* The cost model: the SLB9670 acceptance figure (12,313 IMA extends, password
 * to linux-6.10), command counts through the predictor, streaming a trace
 * from SQLite with gaps, events and userspace clients. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/db.h"
#include "model/trace_stream.h"
#include "model/tpm/decode.h"
#include "model/predict.h"
#include "model/profile.h"
#include "model/tpm/tpm_cc.h"
#include "testlib.h"

/* Published measurements on the SLB9670 (linux-integrity list, reference
 * kernel-sessions.md): 12,313 IMA extends took 102.8 s without HMAC and
 * 1,941.71 s with the 6.10 HMAC sessions. */
#define MEASURED_PASSWORD_S 102.8
#define MEASURED_HMAC_S	    1941.71
#define N_EXTENDS	    12313

static unsigned find(const struct predictor *pr, const char *name)
{
	for (unsigned i = 0; i < pr->n_pol; i++)
		if (!strcmp(pr->r[i].pol.name, name))
			return i;
	return 0;
}

static uint64_t cc_count(const struct pred_result *r, uint32_t cc)
{
	for (unsigned i = 0; i < r->n_cc; i++)
		if (r->by_cc[i].cc == cc)
			return r->by_cc[i].n;
	return 0;
}

static void load_presets(struct policy *pols, unsigned *n)
{
	char err[256];
	const char *name;
	*n = 0;
	for (unsigned i = 0; (name = policy_preset_name(i)); i++)
		CHECK(policy_parse(name, &pols[(*n)++], err, sizeof err) == 0, "%s", err);
}

static void test_acceptance(void)
{
	struct profile prof;
	struct policy pols[8];
	unsigned n;
	char err[256];
	struct predictor *pr = malloc(sizeof *pr);

	CHECK(profile_load_builtin("slb9670-linux-integrity", &prof, err, sizeof err) == 0, "%s",
	      err);
	load_presets(pols, &n);
	CHECK(predict_init(pr, &prof, pols, n) == 0, "init");
	struct pol_cmd c = {.cc = TPM_CC_PCR_Extend,
			    .n_handles = 1,
			    .auth_kind = TPM_AUTH_PASSWORD,
			    .origin = POL_ORIGIN_KERNEL,
			    .has_rc = 1};
	c.handles[0] = 10;
	for (unsigned i = 0; i < N_EXTENDS; i++)
		CHECK(predict_cmd(pr, &c, 0, 0, -1) == 0, "cmd");
	predict_finish(pr);

	const struct pred_result *pw = &pr->r[find(pr, "password")];
	const struct pred_result *k610 = &pr->r[find(pr, "linux-6.10")];
	const struct pred_result *k612 = &pr->r[find(pr, "linux-6.12")];

	/* Exact counts (docs/policies.md). */
	CHECK(cc_count(k610, TPM_CC_ContextLoad) == N_EXTENDS &&
		  cc_count(k610, TPM_CC_StartAuthSession) == N_EXTENDS &&
		  cc_count(k610, TPM_CC_PCR_Extend) == N_EXTENDS &&
		  cc_count(k610, TPM_CC_FlushContext) == N_EXTENDS + 1 &&
		  cc_count(k610, TPM_CC_CreatePrimary) == 1 &&
		  cc_count(k610, TPM_CC_ContextSave) == 1,
	      "6.10 counts");
	CHECK(k610->commands == 4ull * N_EXTENDS + 3, "6.10 total %llu",
	      (unsigned long long)k610->commands);
	CHECK(k612->by_role[POL_ROLE_SESSION_SETUP] == 3 &&
		  cc_count(k612, TPM_CC_PCR_Extend) == N_EXTENDS &&
		  k612->commands == N_EXTENDS + 6ull,
	      "6.12 counts");

	double predicted = (k610->tpm_ms - pw->tpm_ms) / 1000;
	double measured = MEASURED_HMAC_S - MEASURED_PASSWORD_S;
	double rel = (predicted - measured) / measured;
	printf("SLB9670, %d PCR extends, password -> linux-6.10 TPM time increase:\n", N_EXTENDS);
	printf("  predicted %.1f s (%.1f s -> %.1f s)\n", predicted, pw->tpm_ms / 1000,
	       k610->tpm_ms / 1000);
	printf("  measured  %.1f s (%.1f s -> %.1f s)\n", measured, MEASURED_PASSWORD_S,
	       MEASURED_HMAC_S);
	printf("  difference %+.1f%%\n", rel * 100);
	CHECK(fabs(rel) <= 0.10, "prediction %.1f s is not within 10%% of %.1f s", predicted,
	      measured);
	/* The one command the profile lacks (ContextSave at registration) is
	 * reported, not silently priced. */
	CHECK(k610->missing == 1 && k610->n_miss == 1 && k610->miss[0].cc == TPM_CC_ContextSave,
	      "missing ContextSave reported (%llu)", (unsigned long long)k610->missing);
	CHECK(pw->missing == 0 && pw->approx == 0, "password priced exactly");
	CHECK(k610->host_ms > 0 && pw->host_ms == 0, "host crypto only with sessions");
	free(pr);
	profile_release(&prof);
}

/* A trace in a real database: two userspace GetCapability calls between
 * kernel extends, a suspend event, 1 ms gaps. */
static void test_stream(void)
{
	const char *dir = tl_tmpdir();
	char path[512], err[512];
	sqlite3 *db;
	snprintf(path, sizeof path, "%s/stream.db", dir);
	unlink(path);
	CHECK(db_open(path, DB_CREATE, &db, err, sizeof err) == 0, "%s", err);
	struct trace_info ti = {.name = "t", .kind = "import", .payloads = "none"};
	int64_t id = db_trace_begin(db, &ti);
	CHECK(id > 0, "trace");
	char sql[1024];
	snprintf(
	    sql, sizeof sql,
	    "INSERT INTO client (trace_id, id, pid, comm) VALUES (%lld, 1, 4242, 'tpm2_getcap');"
	    "INSERT INTO client (trace_id, id, comm) VALUES (%lld, 2, 'kernel');",
	    (long long)id, (long long)id);
	CHECK(db_exec(db, sql, err, sizeof err) == 0, "%s", err);
	/* seq: 1 E(k) 2 E(k) 3 GetCap(user) 4 E(k) 5 SUSPEND event 6 E(k) */
	const struct {
		int seq;
		uint32_t cc;
		int client;
	} rows[] = {{1, TPM_CC_PCR_Extend, 2},
		    {2, TPM_CC_PCR_Extend, 2},
		    {3, TPM_CC_GetCapability, 1},
		    {4, TPM_CC_PCR_Extend, 2},
		    {6, TPM_CC_PCR_Extend, 2}};
	for (int i = 0; i < 5; i++) {
		long long t0 = 1000000000LL + rows[i].seq * 10000000LL; /* 10 ms apart */
		snprintf(sql, sizeof sql,
			 "INSERT INTO command (trace_id, seq, t_submit_ns, t_done_ns, latency_ns,"
			 " cc, rc, handle1, auth_kind, client_id) VALUES (%lld, %d, %lld, %lld, %d,"
			 " %u, 0, %d, %d, %d)",
			 (long long)id, rows[i].seq, t0, t0 + 9000000LL, 9000000, rows[i].cc,
			 rows[i].cc == TPM_CC_PCR_Extend ? 10 : 6, rows[i].client == 2 ? 1 : 0,
			 rows[i].client);
		CHECK(db_exec(db, sql, err, sizeof err) == 0, "%s", err);
	}
	snprintf(sql, sizeof sql,
		 "INSERT INTO event (trace_id, seq, kind) VALUES (%lld, 5, 'SUSPEND')",
		 (long long)id);
	CHECK(db_exec(db, sql, err, sizeof err) == 0, "%s", err);

	struct profile prof;
	struct policy pols[8];
	unsigned n;
	CHECK(profile_load_builtin("slb9670-linux-integrity", &prof, err, sizeof err) == 0, "%s",
	      err);
	load_presets(pols, &n);
	struct predictor *pr = malloc(sizeof *pr);
	CHECK(predict_init(pr, &prof, pols, n) == 0, "init");
	uint64_t got = 0;
	CHECK(trace_stream_predict(db, id, pr, &got, err, sizeof err) == 0, "%s", err);
	CHECK(got == 5, "streamed %llu", (unsigned long long)got);
	predict_finish(pr);
	/* Gaps: commands of 9 ms start every 10 ms by seq; seq 5 is the event,
	 * so the gaps are 1 + 1 + 1 + 11 ms. */
	CHECK(fabs(pr->gap_ms - 14.0) < 1e-9, "gaps %g ms", pr->gap_ms);
	CHECK(fabs(pr->recorded_tpm_ms - 45.0) < 1e-9, "recorded %g ms", pr->recorded_tpm_ms);
	/* linux-6.12: session 1 for E E, ended before the userspace command;
	 * session 2 for E, ended by the suspend; session 3 for the last E. */
	const struct pred_result *k612 = &pr->r[find(pr, "linux-6.12")];
	CHECK(pr->in_events == 1, "events %llu", (unsigned long long)pr->in_events);
	CHECK(cc_count(k612, TPM_CC_StartAuthSession) == 3, "6.12 sessions %llu",
	      (unsigned long long)cc_count(k612, TPM_CC_StartAuthSession));
	CHECK(cc_count(k612, TPM_CC_GetCapability) == 1, "user command passed through");

	CHECK(trace_stream_predict(db, id + 100, pr, &got, err, sizeof err) == -ENOENT &&
		  strstr(err, "no trace"),
	      "missing trace: %s", err);
	free(pr);
	profile_release(&prof);
	db_close(db);
	unlink(path);
}

/* The one origin rule (model/trace_stream.h) predict, replay, stats and report use. */
static void test_origin_rule(void)
{
	int hw = -1;
	CHECK(trace_client_origin(NULL, "firmware", 0, 0, &hw) == POL_ORIGIN_FIRMWARE && hw == 0,
	      "vm-record's firmware client");
	CHECK(trace_client_origin("seabios", NULL, 1, 1, NULL) == POL_ORIGIN_FIRMWARE, "a BIOS");
	CHECK(trace_client_origin("kernel", "guest", 0, 1, &hw) == POL_ORIGIN_KERNEL && hw == 0,
	      "attribute's kernel client");
	CHECK(trace_client_origin("kernel", "hwrng", 0, 1, &hw) == POL_ORIGIN_KERNEL && hw == 1,
	      "the kernel's hwrng");
	CHECK(trace_client_origin(NULL, "kernel", 0, 0, NULL) == POL_ORIGIN_KERNEL, "peer kernel");
	CHECK(trace_client_origin("userspace", "guest", 0, 1, NULL) == POL_ORIGIN_USER,
	      "attribute's user-space client");
	CHECK(trace_client_origin("tpm2_getcap", NULL, 1, 1, NULL) == POL_ORIGIN_USER,
	      "a process, in a trace that names the kernel");
	CHECK(trace_client_origin("tpm2_getcap", NULL, 1, 0, NULL) == POL_ORIGIN_UNKNOWN,
	      "a process, in a trace that does not: priced as the kernel's");
	CHECK(trace_client_origin(NULL, "guest", 0, 1, NULL) == POL_ORIGIN_UNKNOWN,
	      "vm-record's guest client, not told apart");
	CHECK(trace_client_origin(NULL, "127.0.0.1:4000", 0, 1, NULL) == POL_ORIGIN_UNKNOWN,
	      "a TCP peer");
	CHECK(trace_client_origin("tpm2_getcap", "userspace /dev/tpmrm0", 1, 0, NULL) ==
		  POL_ORIGIN_USER,
	      "record --kernel's user space, in a trace without kernel clients");
	CHECK(trace_client_origin("tpm2_createprim", "rm-swap /dev/tpmrm0", 1, 0, NULL) ==
		  POL_ORIGIN_USER,
	      "record --kernel's resource-manager swaps");
	CHECK(trace_client_origin("kernel", "kernel-session", 0, 1, &hw) == POL_ORIGIN_KERNEL &&
		  hw == 0,
	      "record --kernel's kernel sessions");
	CHECK(trace_client_origin(NULL, "userspaceX", 0, 0, NULL) == POL_ORIGIN_UNKNOWN,
	      "a peer that only starts like userspace");
}

int main(void)
{
	test_acceptance();
	test_stream();
	test_origin_rule();
	return tl_finish("test_predict");
}
