/* tpmtrace predict: the cost of a trace under session policies on a profiled TPM. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"
#include "model/trace_stream.h"
#include "model/tpm/decode.h"
#include "model/predict.h"
#include "model/profile.h"
#include "model/tpm/tpm_cc.h"
#include "replayer/hostcrypto.h"

enum { O_TRACE = 256, O_PROFILE, O_POLICY, O_SYNTH, O_GAP, O_HOST, O_JSON };
enum { M_DB = 1, M_SYNTH = 2 };
static const struct cli_opt opts[] = {
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP, NULL, 0, 0, M_DB},
    {"synthetic", O_SYNTH, "CMD:N[,CMD:N...]", CLI_REQ,
     "no DB: a trace of N commands of each CMD in turn, sent\n"
     "by the kernel with password authorization where the\n"
     "command has an authorization handle, e.g.\n"
     "pcr-extend:12313 or pcr-extend:1000,get-random:10",
     NULL, 0, 0, M_SYNTH},
    {"profile", O_PROFILE, "NAME|FILE", CLI_REQ,
     "a profile file, a profile stored in DB, or a shipped\nprofile ('tpmtrace profile list')",
     "@profile"},
    {"policy", O_POLICY, "P", CLI_MULTI,
     "all (default), a preset (as-recorded, password,\n"
     "linux-6.10, linux-6.12, linux-6.12-no-pcr-integrity)\n"
     "or a spec salt=null-ecc|persistent:0x81000001|none,\n"
     "reuse=per-command|lazy|forever,encrypt=off|kernel|all,\n"
     "nullkey=context-load|keep-loaded,pcr-integrity=on|off,\n"
     "hwrng=on|off (knobs left out keep linux-6.10's value;\n"
     "docs/policies.md, also for the origins - firmware,\n"
     "kernel, user space - a policy honours); may be repeated",
     "@policy-all"},
    {"gap-ms", O_GAP, "MS", CLI_REAL, "non-TPM time between synthetic commands (default 0)", NULL,
     0, 600000, M_SYNTH},
    {"host-crypto", O_HOST, "H", CLI_CHOICE,
     "measure (default): time tpmtrace's own session crypto\n"
     "on this host before predicting (a few ms: salted and\n"
     "unsalted session set-up, HMAC of a command and its\n"
     "response, parameter encryption, a Name) and price host\n"
     "crypto with it; estimate: the constant figures of\n"
     "model/predict.h, the same on every host (reproducible\noutput)",
     "measure estimate"},
    {"json", O_JSON, NULL, 0, "one JSON object {\"version\":1,...} on stdout"},
};
static const struct cli_form forms[] = {{M_DB, "DB", NULL}, {M_SYNTH, NULL, NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_predict = {
    "predict",
    run,
    "predict boot-time TPM cost under session policies",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Predicts what a trace costs under session policies on the TPM a latency profile\n"
    "describes. The trace is expanded under each policy by the same code the replayer\n"
    "uses (docs/policies.md), every command is priced from the profile, host-side crypto\n"
    "and the trace's non-TPM time (gaps between a response and the next command) are\n"
    "added. Per policy it prints the command counts (total and session setup), TPM time,\n"
    "host crypto time, predicted total, the factor against the password baseline and\n"
    "against the recorded trace (when it has latencies), and a range for the TPM time\n"
    "from the profile's distributions (low: min or mean-1.645 sd; high: p95, mean+1.645 sd\n"
    "or max). Commands the profile lacks are priced at its fallback with a warning.\n"
    "The trace is streamed from DB, not loaded. A replay trace already holds its policy's\n"
    "sessions: predicting one warns.\n",
    "The per-operation host crypto figures are printed with the prediction.\n",
    "tpmtrace predict --synthetic pcr-extend:12313 --profile slb9670-linux-integrity\n"
    "tpmtrace predict boot.db --profile slb9670-linux-integrity --policy linux-6.10 "
    "--policy 'salt=none,reuse=lazy'\n",
};

/* "pcr-extend" -> PCR_Extend */
static uint32_t cc_from_user(const char *s, size_t len)
{
	char buf[64];
	if (len >= sizeof buf)
		return 0;
	for (size_t i = 0; i < len; i++)
		buf[i] = s[i] == '-' ? '_' : s[i];
	buf[len] = 0;
	return tpm_cc_from_name(buf);
}

static int synthetic(struct predictor *pr, const char *spec, double gap_ms, char *desc, size_t dlen)
{
	const char *s = spec;
	size_t dl = 0;
	uint64_t total = 0;
	desc[0] = 0;
	while (*s) {
		size_t len = strcspn(s, ",");
		const char *colon = memchr(s, ':', len);
		char *end;
		if (!colon)
			return usage_error(
			    &subcmd_predict,
			    "--synthetic: '%.*s' is not CMD:N (e.g. pcr-extend:12313)", (int)len,
			    s);
		uint32_t cc = cc_from_user(s, (size_t)(colon - s));
		if (!cc)
			return usage_error(&subcmd_predict, "--synthetic: unknown command '%.*s'",
					   (int)(colon - s), s);
		errno = 0;
		long long n = strtoll(colon + 1, &end, 10);
		if (end != s + len || errno || n <= 0 || n > 1000000000LL)
			return usage_error(&subcmd_predict,
					   "--synthetic: count '%.*s' is not 1..1000000000",
					   (int)(s + len - colon - 1), colon + 1);
		const struct tpm_cc_info *ci = tpm_cc_lookup(cc);
		struct pol_cmd c = {.cc = cc, .origin = POL_ORIGIN_KERNEL, .has_rc = 1};
		c.auth_kind = ci && ci->auth_handles ? TPM_AUTH_PASSWORD : TPM_AUTH_NONE;
		if (cc == TPM_CC_PCR_Extend) {
			c.n_handles = 1;
			c.handles[0] = 10; /* IMA's PCR */
		}
		for (long long i = 0; i < n; i++) {
			c.seq = total++;
			int rc = predict_cmd(pr, &c, 0, 0, -1);
			if (rc)
				return die("predict", "expansion failed (%d)", rc);
		}
		dl += (size_t)snprintf(desc + dl, dl < dlen ? dlen - dl : 0, "%s%lld x %s",
				       dl ? ", " : "", n, tpm_cc_name(cc));
		s += len;
		if (*s)
			s++;
	}
	if (total > 1)
		predict_add_gap(pr, gap_ms * (double)(total - 1));
	return 0;
}

static void fmt_time(char *b, size_t l, double ms)
{
	if (ms >= 10000)
		snprintf(b, l, "%.1f s", ms / 1000);
	else if (ms >= 1000)
		snprintf(b, l, "%.3f s", ms / 1000);
	else
		snprintf(b, l, "%.2f ms", ms);
}

/* A JSON object key for command code cc (its name, or 0xHEX), after a
 * comma unless it is member i == 0. */
static void json_cc_key(unsigned i, uint32_t cc)
{
	const char *nm = tpm_cc_name(cc);
	char hex[16];
	snprintf(hex, sizeof hex, "0x%08X", cc);
	printf("%s", i ? "," : "");
	json_str(stdout, nm ? nm : hex);
}

static int run(int argc, char **argv)
{
	const char *dbpath = NULL, *trace = NULL, *profname = NULL, *synth = NULL;
	const char *pol_args[PREDICT_MAX_POLICIES];
	unsigned npol_args = 0;
	int json = 0, rc = 0, measure_host = 1;
	double gap_ms = 0;
	struct pred_host host;
	char err[1024], desc[512] = "";
	struct policy pols[PREDICT_MAX_POLICIES];
	unsigned npol = 0;
	int show[PREDICT_MAX_POLICIES] = {0};
	struct profile prof;
	const char *from = "";
	sqlite3 *db = NULL;
	struct predictor *pr = NULL;

	profile_init(&prof);
	struct cli_parse p;
	int key;
	cli_parse_init(&p, &subcmd_predict, argc, argv);
	while ((key = cli_next(&p)) > 0) {
		switch (key) {
		case O_JSON:
			json = 1;
			break;
		case O_TRACE:
			trace = p.arg;
			break;
		case O_PROFILE:
			profname = p.arg;
			break;
		case O_SYNTH:
			synth = p.arg;
			break;
		case O_HOST:
			measure_host = !strcmp(p.arg, "measure");
			break;
		case O_GAP:
			gap_ms = p.real;
			break;
		case O_POLICY:
			if (npol_args >= PREDICT_MAX_POLICIES - 1)
				return usage_error(&subcmd_predict, "too many --policy options");
			pol_args[npol_args++] = p.arg;
			break;
		}
	}
	if (key < 0)
		return EXIT_USAGE;
	if (p.ind < argc - 1)
		return usage_error(&subcmd_predict, "more than one database given");
	if (p.ind == argc - 1)
		dbpath = argv[p.ind];
	if (!dbpath == !synth)
		return usage_error(&subcmd_predict, "give a DB or --synthetic (one of them)");
	if ((key = cli_only_mode(&p, synth ? M_SYNTH : M_DB,
				 synth ? "with --synthetic" : "with a DB")))
		return key;
	if (!profname)
		return usage_error(&subcmd_predict, "--profile is required");

	/* Policies: "all" expands to the presets; password is always computed
	 * as the baseline, shown only if asked for. */
	if (!npol_args)
		pol_args[npol_args++] = "all";
	for (unsigned k = 0; k < npol_args; k++) {
		if (!strcmp(pol_args[k], "all")) {
			const char *n;
			for (unsigned j = 0; (n = policy_preset_name(j)); j++) {
				if (npol >= PREDICT_MAX_POLICIES - 1)
					return usage_error(&subcmd_predict, "too many policies");
				policy_parse(n, &pols[npol], err, sizeof err);
				show[npol++] = 1;
			}
			continue;
		}
		if (npol >= PREDICT_MAX_POLICIES - 1)
			return usage_error(&subcmd_predict, "too many policies");
		if (policy_parse(pol_args[k], &pols[npol], err, sizeof err))
			return usage_error(&subcmd_predict, "--policy '%s': %s", pol_args[k], err);
		show[npol++] = 1;
	}
	int base = -1;
	for (unsigned k = 0; k < npol; k++)
		if (pols[k].mode == POL_MODE_PASSWORD && base < 0)
			base = (int)k;
	if (base < 0) {
		policy_parse("password", &pols[npol], err, sizeof err);
		show[npol] = 0;
		base = (int)npol++;
	}

	if (dbpath && db_open(dbpath, DB_READ, &db, err, sizeof err))
		return die("predict", "%s", err);
	if (profile_resolve(db, profname, &prof, &from, err, sizeof err)) {
		rc = die("predict", "%s", err);
		goto out;
	}
	pr = malloc(sizeof *pr);
	if (!pr || predict_init(pr, &prof, pols, npol)) {
		rc = die("predict", "out of memory");
		goto out;
	}
	predict_host_estimate(&host);
	if (measure_host) {
		if ((rc = host_crypto_measure(&host))) {
			rc = die("predict",
				 "measuring host crypto failed (%s); --host-crypto "
				 "estimate uses the constant estimate",
				 strerror(-rc));
			goto out;
		}
		predict_set_host(pr, &host);
	}
	if (synth) {
		if ((rc = synthetic(pr, synth, gap_ms, desc, sizeof desc)))
			goto out;
	} else {
		int64_t id = cli_pick_trace("predict", db, trace);
		uint64_t n = 0;
		char kind[16], tpol[128];
		if (!id) {
			rc = 1;
			goto out;
		}
		cli_trace_kind(db, id, kind, sizeof kind, tpol, sizeof tpol);
		if (!strcmp(kind, "replay"))
			fprintf(
			    stderr,
			    "tpmtrace predict: warning: trace %lld is a replay under policy %s: "
			    "its commands already carry that policy's sessions, and each policy "
			    "adds its own on top (predict the recording it replayed instead)\n",
			    (long long)id, tpol[0] ? tpol : "?");
		rc = trace_stream_predict(db, id, pr, &n, err, sizeof err);
		if (rc) {
			rc = die("predict", "%s: %s", dbpath, err);
			goto out;
		}
		if (!n) {
			rc = die("predict", "%s: trace %lld is empty (no commands to expand)",
				 dbpath, (long long)id);
			goto out;
		}
		sqlite3_stmt *ev;
		long long nev = 0;
		if (sqlite3_prepare_v2(db, "SELECT count(*) FROM event WHERE trace_id=?", -1, &ev,
				       NULL) == SQLITE_OK) {
			sqlite3_bind_int64(ev, 1, id);
			if (sqlite3_step(ev) == SQLITE_ROW)
				nev = sqlite3_column_int64(ev, 0);
			sqlite3_finalize(ev);
		}
		snprintf(desc, sizeof desc, "%s trace %lld: %llu commands, %lld events", dbpath,
			 (long long)id, (unsigned long long)n, nev);
	}
	predict_finish(pr);

	double base_total = predict_total_ms(pr, (unsigned)base);
	int have_rec = pr->recorded_n > 0;
	double rec_total = pr->recorded_tpm_ms + pr->gap_ms;

	/* Warnings: each (command, authorization, variant) the profile had to
	 * approximate or lacked, once, with the commands affected. */
	unsigned nwarn = 0;
	char warns[32][256];
	for (unsigned k = 0; k < npol; k++) {
		const struct pred_result *r = &pr->r[k];
		for (unsigned m = 0; m < r->n_miss; m++) {
			const struct pred_missing *x = &r->miss[m];
			char w[256];
			if (x->how == PROF_MISSING)
				snprintf(
				    w, sizeof w,
				    "profile %s lacks %s (%s%s%s): priced at its fallback %.3f "
				    "ms",
				    prof.name, tpm_cc_name(x->cc) ? tpm_cc_name(x->cc) : "?",
				    prof_auth_str(x->auth), x->variant ? ", " : "",
				    x->variant ? pol_variant_str(x->variant) : "", pr->fallback_ms);
			else
				snprintf(w, sizeof w,
					 "profile %s has no %s with %s%s%s: priced as %s %s (%s)",
					 prof.name, tpm_cc_name(x->cc) ? tpm_cc_name(x->cc) : "?",
					 prof_auth_str(x->auth), x->variant ? ", " : "",
					 x->variant ? pol_variant_str(x->variant) : "",
					 prof_auth_str(x->used->auth), x->used->variant,
					 prof_match_str(x->how));
			unsigned j;
			for (j = 0; j < nwarn; j++)
				if (!strcmp(warns[j], w))
					break;
			if (j == nwarn && nwarn < 32)
				strcpy(warns[nwarn++], w);
		}
	}
	for (unsigned j = 0; j < nwarn; j++)
		fprintf(stderr, "tpmtrace predict: warning: %s\n", warns[j]);

	if (json) {
		printf("{\"version\":1,\"profile\":");
		json_str(stdout, prof.name);
		printf(",\"profile_from\":");
		json_str(stdout, from);
		printf(",\"trace\":");
		json_str(stdout, desc);
		printf(",\"input_commands\":%llu,\"non_tpm_ms\":%.6f",
		       (unsigned long long)pr->in_commands, pr->gap_ms);
		if (have_rec)
			printf(",\"recorded_tpm_ms\":%.6f,\"recorded_total_ms\":%.6f",
			       pr->recorded_tpm_ms, rec_total);
		printf(",\"host_crypto\":\"%s\",\"host_crypto_per_op_ms\":{\"salt_ecc\":%.6f,"
		       "\"salt\":%.6f,\"unsalted\":%.6f,\"hmac\":%.6f,\"enc\":%.6f,\"name\":%.6f}",
		       host.measured ? "measured on this host" : "constant estimate, not measured",
		       host.salt_ecc, host.salt, host.unsalted, host.hmac, host.enc, host.name);
		printf(",\"policies\":[");
		int first = 1;
		for (unsigned k = 0; k < npol; k++) {
			const struct pred_result *r = &pr->r[k];
			char spec[160];
			if (!show[k])
				continue;
			policy_spec(&r->pol, spec, sizeof spec);
			printf("%s{\"name\":", first ? "" : ",");
			first = 0;
			json_str(stdout, r->pol.name);
			printf(",\"spec\":");
			json_str(stdout, spec);
			printf(",\"commands\":%llu,\"by_role\":{", (unsigned long long)r->commands);
			for (int ro = 0; ro < POL_ROLE__COUNT; ro++)
				printf("%s\"%s\":%llu", ro ? "," : "", pol_role_str(ro),
				       (unsigned long long)r->by_role[ro]);
			printf("},\"by_command\":{");
			for (unsigned c = 0; c < r->n_cc; c++) {
				json_cc_key(c, r->by_cc[c].cc);
				printf(":%llu", (unsigned long long)r->by_cc[c].n);
			}
			printf("},\"tpm_ms_by_command\":{");
			for (unsigned c = 0; c < r->n_cc; c++) {
				json_cc_key(c, r->by_cc[c].cc);
				printf(":%.6f", r->by_cc[c].tpm_ms);
			}
			printf("},\"tpm_ms\":%.6f,\"tpm_low_ms\":%.6f,\"tpm_high_ms\":%.6f,"
			       "\"tpm_ms_without_spread\":%.6f,\"host_crypto_ms\":%.6f,"
			       "\"total_ms\":%.6f,\"factor_vs_password\":%.6f",
			       r->tpm_ms, r->tpm_lo_ms, r->tpm_hi_ms, r->nospread_ms, r->host_ms,
			       predict_total_ms(pr, k),
			       base_total > 0 ? predict_total_ms(pr, k) / base_total : 0);
			if (have_rec)
				printf(",\"factor_vs_recorded\":%.6f",
				       rec_total > 0 ? predict_total_ms(pr, k) / rec_total : 0);
			printf(",\"approximated\":%llu,\"priced_at_fallback\":%llu}",
			       (unsigned long long)r->approx, (unsigned long long)r->missing);
		}
		printf("],\"warnings\":[");
		for (unsigned j = 0; j < nwarn; j++) {
			printf("%s", j ? "," : "");
			json_str(stdout, warns[j]);
		}
		printf("]}\n");
		goto out;
	}

	char a[32], b[32], c[32], d[32], e[32], f[32];
	printf("profile: %s (%s)%s%s\n", prof.name, from, prof.chip ? ", " : "",
	       prof.chip ? prof.chip : "");
	printf("trace:   %s\n", desc);
	fmt_time(a, sizeof a, pr->gap_ms);
	printf("non-TPM time (gaps between commands): %s\n", a);
	if (have_rec) {
		fmt_time(a, sizeof a, pr->recorded_tpm_ms);
		fmt_time(b, sizeof b, rec_total);
		printf("recorded: TPM time %s, total %s\n", a, b);
	}
	printf("host crypto: %s: salted session %.1f us, unsalted %.1f us, HMAC per command "
	       "%.1f us, parameter encryption +%.1f us, Name %.1f us\n\n",
	       host.measured ? "measured on this host (tpmtrace's session code)"
			     : "constant estimate, not measured (model/predict.h)",
	       host.salt_ecc * 1e3, host.unsalted * 1e3, host.hmac * 1e3, host.enc * 1e3,
	       host.name * 1e3);
	printf("%-30s %10s %9s %12s %11s %12s %8s %9s  %s\n", "policy", "commands", "setup",
	       "TPM time", "host crypto", "total", "x passwd", have_rec ? "x record" : "",
	       "TPM range (low..high)");
	for (unsigned k = 0; k < npol; k++) {
		const struct pred_result *r = &pr->r[k];
		if (!show[k])
			continue;
		double tot = predict_total_ms(pr, k);
		fmt_time(a, sizeof a, r->tpm_ms);
		fmt_time(b, sizeof b, r->host_ms);
		fmt_time(c, sizeof c, tot);
		fmt_time(d, sizeof d, r->tpm_lo_ms);
		fmt_time(e, sizeof e, r->tpm_hi_ms);
		if (have_rec)
			snprintf(f, sizeof f, "%.2f", rec_total > 0 ? tot / rec_total : 0);
		else
			f[0] = 0;
		uint64_t setup =
		    r->by_role[POL_ROLE_NULLKEY_INIT] + r->by_role[POL_ROLE_SESSION_SETUP] +
		    r->by_role[POL_ROLE_SESSION_END] + r->by_role[POL_ROLE_NAME_LOOKUP];
		printf("%-30.30s %10llu %9llu %12s %11s %12s %8.2f %9s  %s..%s", r->pol.name,
		       (unsigned long long)r->commands, (unsigned long long)setup, a, b, c,
		       base_total > 0 ? tot / base_total : 0, f, d, e);
		if (r->tpm_ms > 0 && r->nospread_ms / r->tpm_ms > 0.005)
			printf(" (no spread data for %.0f%%)", 100 * r->nospread_ms / r->tpm_ms);
		printf("\n");
	}
	printf("\ncommands sent per policy:\n");
	for (unsigned k = 0; k < npol; k++) {
		const struct pred_result *r = &pr->r[k];
		if (!show[k])
			continue;
		printf("  %-30.30s", r->pol.name);
		for (unsigned j = 0; j < r->n_cc && j < 8; j++)
			printf(" %s %llu",
			       tpm_cc_name(r->by_cc[j].cc) ? tpm_cc_name(r->by_cc[j].cc) : "?",
			       (unsigned long long)r->by_cc[j].n);
		if (r->n_cc > 8)
			printf(" ...");
		printf("\n");
	}
out:
	free(pr);
	profile_release(&prof);
	db_close(db);
	return rc;
}
