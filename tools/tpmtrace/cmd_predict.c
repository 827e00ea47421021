/* tpmtrace predict: the cost of a trace under session policies on a profiled TPM. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"
#include "db/trace_stream.h"
#include "model/decode.h"
#include "model/predict.h"
#include "model/profile.h"
#include "model/tpm_cc.h"
#include "replayer/hostcrypto.h"

static const char usage[] =
    "usage: tpmtrace predict DB [--trace ID] --profile NAME|FILE [--policy P]...\n"
    "                        [--host-crypto measure|estimate] [--json]\n"
    "       tpmtrace predict --synthetic CMD:N[,CMD:N...] --profile NAME|FILE [--gap-ms MS]\n"
    "                        [--policy P]... [--host-crypto measure|estimate] [--json]\n"
    "\n"
    "Predicts what a trace costs under session policies on the TPM a latency profile\n"
    "describes. The trace is expanded under each policy by the same code the replayer\n"
    "uses (docs/policies.md), every command is priced from the profile, host-side crypto\n"
    "and the trace's non-TPM time (gaps between a response and the next command) are\n"
    "added. Per policy it prints the command counts (total and session setup), TPM time,\n"
    "host crypto time, predicted total, the factor against the password baseline and\n"
    "against the recorded trace (when it has latencies), and a range for the TPM time\n"
    "from the profile's distributions (low: min or mean-1.645 sd; high: p95, mean+1.645 sd\n"
    "or max). Commands the profile lacks are priced at its fallback with a warning.\n"
    "\n"
    "Options:\n"
    "  DB                 a tpmtrace database; the trace is streamed, not loaded\n"
    "  --trace ID         the trace to expand (default: the newest)\n"
    "  --profile P        a profile file, a profile stored in DB, or a shipped profile\n"
    "                     ('tpmtrace profile list')\n"
    "  --policy P         all (default), a preset (as-recorded, password, linux-6.10,\n"
    "                     linux-6.12, linux-6.12-no-pcr-integrity) or a spec\n"
    "                     salt=null-ecc|persistent:0x81000001|none,reuse=per-command|lazy|\n"
    "                     forever,encrypt=off|kernel|all,nullkey=context-load|keep-loaded,\n"
    "                     pcr-integrity=on|off,hwrng=on|off (knobs left out keep\n"
    "                     linux-6.10's value); docs/policies.md, also for the origins\n"
    "                     (firmware, kernel, user space) a policy honours;\n"
    "                     may be repeated\n"
    "  --synthetic S      no DB: a trace of N commands of each CMD in turn, sent by the\n"
    "                     kernel with password authorization where the command has an\n"
    "                     authorization handle, e.g. pcr-extend:12313 or\n"
    "                     pcr-extend:1000,get-random:10\n"
    "  --gap-ms MS        non-TPM time between synthetic commands (default 0)\n"
    "  --host-crypto H    measure (default): time tpmtrace's own session crypto on this\n"
    "                     host before predicting (a few ms: salted and unsalted session\n"
    "                     set-up, HMAC of a command and its response, parameter\n"
    "                     encryption, a Name) and price host crypto with it; estimate:\n"
    "                     the constant figures of model/predict.h, the same on every\n"
    "                     host (reproducible output)\n"
    "  --json             one JSON object on stdout\n"
    "  -h, --help         this text\n"
    "\n"
    "The per-operation host crypto figures are printed with the prediction.\n"
    "\n"
    "Examples:\n"
    "  tpmtrace predict --synthetic pcr-extend:12313 --profile slb9670-linux-integrity\n"
    "  tpmtrace predict boot.db --profile slb9670-linux-integrity --policy linux-6.10 "
    "--policy 'salt=none,reuse=lazy'\n";

static int run(int argc, char **argv);
const struct subcommand subcmd_predict = {
    "predict", run, "predict boot-time TPM cost under session policies", usage};

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
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			json = 1;
			continue;
		}
		if (!strcmp(a, "--trace") || !strcmp(a, "--profile") || !strcmp(a, "--policy") ||
		    !strcmp(a, "--synthetic") || !strcmp(a, "--gap-ms") ||
		    !strcmp(a, "--host-crypto")) {
			if (i + 1 >= argc)
				return usage_error(&subcmd_predict, "%s needs a value", a);
			const char *v = argv[++i];
			if (!strcmp(a, "--trace"))
				trace = v;
			else if (!strcmp(a, "--profile"))
				profname = v;
			else if (!strcmp(a, "--synthetic"))
				synth = v;
			else if (!strcmp(a, "--host-crypto")) {
				if (strcmp(v, "measure") && strcmp(v, "estimate"))
					return usage_error(&subcmd_predict,
							   "--host-crypto: '%s' is not measure or "
							   "estimate",
							   v);
				measure_host = !strcmp(v, "measure");
			} else if (!strcmp(a, "--gap-ms")) {
				char *e;
				gap_ms = strtod(v, &e);
				if (*e || !*v || !(gap_ms >= 0) || gap_ms > PROFILE_MAX_MS)
					return usage_error(&subcmd_predict,
							   "--gap-ms: '%s' is not 0..%g", v,
							   PROFILE_MAX_MS);
			} else if (npol_args < PREDICT_MAX_POLICIES - 1)
				pol_args[npol_args++] = v;
			else
				return usage_error(&subcmd_predict, "too many --policy options");
			continue;
		}
		if (a[0] == '-' && a[1])
			return usage_error(&subcmd_predict, "unknown option '%s'", a);
		if (dbpath)
			return usage_error(&subcmd_predict, "more than one database given");
		dbpath = a;
	}
	if (!profname)
		return usage_error(&subcmd_predict, "--profile is required");
	if (!dbpath == !synth)
		return usage_error(&subcmd_predict, "give a DB or --synthetic (one of them)");
	if (trace && !dbpath)
		return usage_error(&subcmd_predict, "--trace needs a DB");

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
		int64_t id = trace ? strtoll(trace, NULL, 10) : db_last_trace(db);
		uint64_t n = 0;
		if (id <= 0) {
			rc = die("predict", "%s: %s", dbpath,
				 trace ? "--trace must be a positive trace id"
				       : "the database holds no trace");
			goto out;
		}
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
		snprintf(desc, sizeof desc, "%s trace %lld: %llu commands, %llu events", dbpath,
			 (long long)id, (unsigned long long)n, (unsigned long long)pr->in_events);
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
