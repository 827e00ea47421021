/* tpmtrace predict: the cost of a trace under session policies on a profiled TPM. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_predict.h"
#include "common.h"
#include "db/trace_kind.h"
#include "db/db.h"
#include "db/stats.h"
#include "model/trace_chip.h"
#include "model/trace_stream.h"
#include "model/tpm/decode.h"
#include "model/predict.h"
#include "model/predict_run.h"
#include "model/profile.h"
#include "model/tpm/tpm_cc.h"
#include "replayer/hostcrypto.h"

enum {
	O_TRACE = 256,
	O_PROFILE,
	O_POLICY,
	O_SYNTH,
	O_GAP,
	O_HOST,
	O_JSON,
	O_WIDE,
	O_BOOTS,
	O_SEED,
	O_VENDOR,
	O_OVER,
	O_VERBOSE = 'v'
};
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
     "linux-6.10, linux-6.12, linux-6.12-no-pcr-integrity,\n"
     "linux-6.18; proposed, not in all: one-session,\n"
     "persistent-key) or a spec salt=null-ecc|\n"
     "persistent:0x81000001|none,\n"
     "reuse=per-command|lazy|forever|saved,\n"
     "encrypt=off|kernel|all,\n"
     "nullkey=context-load|keep-loaded,pcr-integrity=on|off,\n"
     "hwrng=on|off, hmac=on|off, user-flush=on|off (knobs\n"
     "left out keep linux-6.10's value; docs/policies.md,\n"
     "also for the\n"
     "origins - firmware,\n"
     "kernel, user space - a policy honours); may be repeated",
     "@policy-all"},
    {"gap-ms", O_GAP, "MS", CLI_REAL,
     "non-TPM time between synthetic commands; with it the\n"
     "totals are whole and x password is given on totals\n"
     "as well as on TPM time (default: unknown, totals are\n"
     "TPM and host crypto only)",
     NULL, 0, 600000, M_SYNTH},
    {"host-crypto", O_HOST, "H", CLI_CHOICE,
     "measure (default): time tpmtrace's own session crypto\n"
     "on this host before predicting (a few ms: salted and\n"
     "unsalted session set-up, HMAC of a command and its\n"
     "response, parameter encryption, a Name) and price host\n"
     "crypto with it; estimate: the constant figures of\n"
     "model/predict.h, the same on every host (reproducible\noutput)",
     "measure estimate"},
    {"boots", O_BOOTS, "N", CLI_NUM,
     "the TPM time's spread over N sampled boots (default\n"
     "1000): each command drawn from its entry's distribution;\n"
     "p50, p95 and max per policy, and the commands whose tail\n"
     "outlasts the kernel's timeout for them",
     NULL, 1, 100000},
    {"seed", O_SEED, "N", CLI_U64,
     "the sampling's seed (default 1): the same seed, the\nsame figures"},
    {"vendor", O_VENDOR, "V", 0,
     "the population of one vendor's shipped profiles (IFX,\n"
     "NTC, STM, INTC, AMD, MSFT; a prefix): as --profile all"},
    {"over", O_OVER, "TIME", 0,
     "with --profile all or --vendor: how many profiles put\n"
     "the TPM time above TIME (10s, 500ms; at p50 and p95)"},
    {"json", O_JSON, NULL, 0, "one JSON object {\"version\":1,...} on stdout"},
    {"wide", O_WIDE, NULL, 0,
     "one line per policy with host crypto and the TPM range\n"
     "(longer than 100 columns)"},
    {"verbose", O_VERBOSE, NULL, 0,
     "one warning per command form the profile lacks or\n"
     "prices from another form (default: one summary line)"},
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
    "host crypto time, predicted total, the factor against the password baseline on TPM\n"
    "time and on totals (when the non-TPM time is known: a recorded trace, or --gap-ms),\n"
    "the same against the recorded trace (when it has latencies), and a range for the TPM time\n"
    "from the profile's distributions (low: min or mean-1.645 sd; high: p95, mean+1.645 sd\n"
    "or max; \"-\" for a prediction mostly priced at the fallback: its range is not\n"
    "known). Commands the profile lacks are priced at its fallback with a warning\n"
    "(one summary line; -v: one per command form). The trace's commands are those\n"
    "its clients sent: tpmtrace's own (flag 32) are left out (docs/schema.md,\n"
    "\"Figures\").\n"
    "The trace is streamed from DB, not loaded. A replay trace already holds its policy's\n"
    "sessions: predicting one warns.\n",
    "The per-operation host crypto figures are printed with the prediction.\n",
    "tpmtrace predict --synthetic pcr-extend:12313 --profile slb9670-linux-integrity\n"
    "tpmtrace predict --synthetic pcr-extend:12313 --gap-ms 1.99 --profile "
    "slb9670-linux-integrity\n"
    "tpmtrace predict boot.db --profile slb9670-linux-integrity --policy 'salt=none,reuse=lazy'\n",
};

/* Returns 0, or the exit status (the usage error printed). */
static int parse_args(int argc, char **argv, struct pcfg *c)
{
	struct cli_parse p;
	int key;
	*c = (struct pcfg){.measure_host = 1,
			   .gap_ms = -1,
			   .boots = PREDICT_BOOTS_DEFAULT,
			   .seed = PREDICT_SEED_DEFAULT,
			   .over_ms = -1};
	cli_parse_init(&p, &subcmd_predict, argc, argv);
	while ((key = cli_next(&p)) > 0) {
		switch (key) {
		case O_JSON:
			c->json = 1;
			break;
		case O_WIDE:
			c->wide = 1;
			break;
		case O_VERBOSE:
			c->verbose = 1;
			break;
		case O_TRACE:
			c->trace = p.arg;
			break;
		case O_PROFILE:
			c->profname = p.arg;
			break;
		case O_SYNTH:
			c->synth = p.arg;
			break;
		case O_HOST:
			c->measure_host = !strcmp(p.arg, "measure");
			break;
		case O_GAP:
			c->gap_ms = p.real;
			break;
		case O_BOOTS:
			c->boots = (unsigned)p.num;
			break;
		case O_SEED:
			c->seed = p.u64;
			break;
		case O_VENDOR:
			c->vendor = p.arg;
			break;
		case O_OVER:
			if (predict_parse_time(p.arg, &c->over_ms))
				return cli_usage_error(&subcmd_predict,
						       "--over %s: a time is a number with ms, s "
						       "or min (10s, 500ms)",
						       p.arg);
			break;
		case O_POLICY:
			if (c->npol_args >= PREDICT_MAX_POLICIES - 1)
				return cli_usage_error(&subcmd_predict,
						       "too many --policy options");
			c->pol_args[c->npol_args++] = p.arg;
			break;
		}
	}
	if (key < 0)
		return EXIT_USAGE;
	if (p.ind < argc - 1)
		return cli_usage_error(&subcmd_predict, "more than one database given");
	if (p.ind == argc - 1)
		c->dbpath = argv[p.ind];
	if (!c->dbpath == !c->synth)
		return cli_usage_error(&subcmd_predict, "give a DB or --synthetic (one of them)");
	if ((key = cli_only_mode(&p, c->synth ? M_SYNTH : M_DB,
				 c->synth ? "with --synthetic" : "with a DB")))
		return key;
	if (!c->profname && !c->vendor && c->synth)
		return cli_usage_error(&subcmd_predict,
				       "--profile is required with --synthetic (no trace names "
				       "its TPM)");
	c->population = c->vendor || (c->profname && !strcmp(c->profname, "all"));
	if (c->vendor && c->profname && strcmp(c->profname, "all"))
		return cli_usage_error(&subcmd_predict,
				       "--vendor is a population: it goes with --profile all or "
				       "alone");
	if (c->over_ms >= 0 && !c->population)
		return cli_usage_error(&subcmd_predict,
				       "--over counts profiles: it goes with --profile all or "
				       "--vendor");
	return 0;
}

/* Streams the trace of DB into the predictor; 0 or 1 (printed). */
static int feed_trace(const struct pcfg *c, struct predict_run *s)
{
	char err[1024], kind[16], tpol[128];
	uint64_t n = 0;
	int64_t id = cli_pick_trace("predict", s->db, c->trace);
	if (!id)
		return 1;
	db_trace_kind_policy(s->db, id, kind, sizeof kind, tpol, sizeof tpol);
	if (!strcmp(kind, "replay")) {
		char w[512];
		snprintf(w, sizeof w,
			 "trace %lld is a replay under policy %s: its commands already carry that "
			 "policy's sessions, and each policy adds its own on top (predict the "
			 "recording it replayed instead)",
			 (long long)id, tpol[0] ? tpol : "?");
		cli_print_wrapped(stderr, "tpmtrace predict: warning: ", 2, w, strlen(w),
				  CLI_WIDTH);
	}
	if (trace_stream_predict(s->db, id, s->pr, &n, err, sizeof err))
		return cli_error("predict", "%s: %s", c->dbpath, err);
	if (!n)
		return cli_error("predict", "%s: trace %lld is empty (no commands to expand)",
				 c->dbpath, (long long)id);
	predict_run_describe(s, c->dbpath, id, n);
	return 0;
}

/* Profile, predictor, host crypto; 0 or the exit status (printed). */
static int prepare(const struct pcfg *c, struct predict_run *s)
{
	char err[1024];
	int rc;
	if (predict_policies(c->pol_args, c->npol_args, s->pols, s->show, &s->npol, &s->base, err,
			     sizeof err))
		return cli_usage_error(&subcmd_predict, "%s", err);
	if (c->dbpath && db_open(c->dbpath, DB_READ, &s->db, err, sizeof err))
		return cli_error("predict", "%s", err);
	const char *profname = c->profname;
	char chosen[160];
	if (!profname) {
		/* No --profile: the shipped profile of the trace's own TPM. */
		struct trace_chip chip;
		int64_t id = cli_pick_trace("predict", s->db, c->trace);
		if (!id)
			return 1;
		if (trace_chip_load(s->db, id, &chip, err, sizeof err))
			return cli_error("predict", "%s: %s", c->dbpath, err);
		/* one line: what the trace's answers name, and what to do */
		if (trace_chip_profile(&chip, chosen, sizeof chosen)) {
			if (!chip.manufacturer[0] || !chip.firmware[0])
				return cli_error("predict",
						 "no --profile, and no GetCapability answer of "
						 "the trace names its TPM");
			return cli_error("predict",
					 "no --profile, none shipped for this TPM (%s fw %s)",
					 chip.manufacturer, chip.firmware);
		}
		snprintf(
		    s->why, sizeof s->why,
		    "chosen for the trace's TPM: its GetCapability answers name %s firmware %s",
		    chip.manufacturer, chip.firmware);
		profname = chosen;
	}
	if (profile_resolve(s->db, profname, &s->prof, &s->from, err, sizeof err))
		return cli_error("predict", "%s", err);
	s->pr = malloc(sizeof *s->pr);
	if (!s->pr || predict_init(s->pr, &s->prof, s->pols, s->npol))
		return cli_error("predict", "out of memory");
	predict_host_estimate(&s->host);
	if (c->measure_host) {
		if ((rc = rp_host_crypto_measure(&s->host)))
			return cli_error("predict",
					 "measuring host crypto failed (%s); --host-crypto "
					 "estimate uses the constant estimate",
					 strerror(-rc));
		predict_set_host(s->pr, &s->host);
	}
	return 0;
}

/* The TPM range, or "-" when most of the time is priced at the fallback:
 * the profile's spread says nothing about a guess. */
static void range_str(char *b, size_t n, const struct predict_run *s, unsigned k)
{
	const struct pred_result *r = &s->pr->r[k];
	char d[32], e[32];
	if (predict_fallback_share(s->pr, k) > PREDICT_FALLBACK_WARN) {
		snprintf(b, n, "-");
		return;
	}
	predict_fmt_time(d, sizeof d, r->tpm_lo_ms);
	predict_fmt_time(e, sizeof e, r->tpm_hi_ms);
	/* a range only where the entries have spread; else the one figure */
	if (!strcmp(d, e))
		snprintf(b, n, "%s", d);
	else
		snprintf(b, n, "%s..%s", d, e);
}

/* What the range and the figures rest on: the share without spread data,
 * the share priced at the fallback. */
static void notes_str(char *b, size_t n, const struct predict_run *s, unsigned k)
{
	const struct pred_result *r = &s->pr->r[k];
	size_t len = 0;
	b[0] = 0;
	if (r->tpm_ms > 0 && r->nospread_ms / r->tpm_ms > 0.005)
		len += (size_t)snprintf(b, n, " no spread data for %.0f%%",
					100 * r->nospread_ms / r->tpm_ms);
	double share = predict_fallback_share(s->pr, k);
	if (share > PREDICT_FALLBACK_WARN && len < n)
		snprintf(b + len, n - len, "%s MOSTLY FALLBACK (%.0f%%)", len ? ";" : "",
			 100 * share);
}

/* A factor in 5 columns: 2 decimals below 100, fewer above. */
static void factor5(char *b, size_t n, double x)
{
	snprintf(b, n, x < 99.995 ? "%.2f" : x < 999.95 ? "%.1f" : "%.0f", x);
}

static void text_policy(const struct predict_run *s, unsigned k, int wide)
{
	const struct pred_result *r = &s->pr->r[k];
	struct pred_factors f;
	char a[32], b[32], c[32], ft[16], fr[48], rg[80], nt[160];
	double tot = predict_total_ms(s->pr, k);
	predict_factors(s->pr, k, s->base, &f);
	predict_fmt_time(a, sizeof a, r->tpm_ms);
	predict_fmt_time(b, sizeof b, r->host_ms);
	if (s->untimed)
		snprintf(c, sizeof c, "-");
	else
		predict_fmt_time(c, sizeof c, tot);
	range_str(rg, sizeof rg, s, k);
	notes_str(nt, sizeof nt, s, k);
	if (f.total_known)
		snprintf(ft, sizeof ft, "%.2f", f.total_vs_base);
	else
		snprintf(ft, sizeof ft, "-");
	uint64_t setup = r->by_role[POL_ROLE_NULLKEY_INIT] + r->by_role[POL_ROLE_SESSION_SETUP] +
			 r->by_role[POL_ROLE_SESSION_END] + r->by_role[POL_ROLE_NAME_LOOKUP];
	if (wide) {
		if (f.have_rec)
			snprintf(fr, sizeof fr, " %8.2f %8.2f", f.tpm_vs_rec, f.total_vs_rec);
		else
			fr[0] = 0;
		printf("%-30.30s %10llu %9llu %12s %11s %12s %8.2f %8s%s  %s%s%s%s\n", r->pol.name,
		       (unsigned long long)r->commands, (unsigned long long)setup, a, b, c,
		       f.tpm_vs_base, ft, fr, rg, nt[0] ? " (" : "", nt[0] ? nt + 1 : "",
		       nt[0] ? ")" : "");
		return;
	}
	char f1[16], f3[16], f4[16];
	factor5(f1, sizeof f1, f.tpm_vs_base);
	if (f.total_known)
		factor5(ft, sizeof ft, f.total_vs_base);
	if (f.have_rec) {
		factor5(f3, sizeof f3, f.tpm_vs_rec);
		factor5(f4, sizeof f4, f.total_vs_rec);
		snprintf(fr, sizeof fr, " %5s %5s", f3, f4);
	} else {
		fr[0] = 0;
	}
	printf("%-27.27s %8llu %5llu %9s %9s %9s %5s %5s%s\n", r->pol.name,
	       (unsigned long long)r->commands, (unsigned long long)setup, a, b, c, f1, ft, fr);
}

/* The TPM range and its notes, one line per policy (fits 100 columns). */
static void text_ranges(const struct predict_run *s)
{
	printf("\n%-27s %-20s %s\n", "TPM range", "(low..high)", "notes");
	for (unsigned k = 0; k < s->npol; k++) {
		char rg[80], nt[160];
		if (!s->show[k])
			continue;
		range_str(rg, sizeof rg, s, k);
		notes_str(nt, sizeof nt, s, k);
		printf("%-27.27s %-20s%s\n", s->pr->r[k].pol.name, rg, nt);
	}
}

/* The TPM time's spread over sampled boots, one line per policy, and the
 * commands whose tail outlasts the kernel's timeout for them. */
static void text_spread(const struct predict_run *s)
{
	char a[32], b[32], c[32], t[512];
	printf("\nTPM time over %u sampled boots (seed %llu)   %9s %9s %9s  %s\n", s->boots,
	       (unsigned long long)s->seed, "p50", "p95", "max", "sampled");
	for (unsigned k = 0; k < s->npol; k++) {
		const struct pred_spread *sp = &s->spread[k];
		if (!s->show[k])
			continue;
		predict_fmt_time(a, sizeof a, sp->p50_ms);
		predict_fmt_time(b, sizeof b, sp->p95_ms);
		predict_fmt_time(c, sizeof c, sp->max_ms);
		printf("  %-42.42s %9s %9s %9s  %5.0f%%\n", s->pr->r[k].pol.name, a, b, c,
		       100 * sp->sampled);
	}
	for (unsigned k = 0; k < s->npol; k++) {
		if (!s->show[k])
			continue;
		for (unsigned j = 0; j < s->nrisk[k]; j++) {
			const struct pred_timeout *r = &s->risk[k][j];
			char cc[16];
			predict_fmt_time(a, sizeof a, r->timeout_ms);
			snprintf(
			    t, sizeof t,
			    "%s: %s %s x%llu%s: %.2g%% of them take over %s, the timeout of %s; "
			    "%.2g%% of boots",
			    s->pr->r[k].pol.name, tpm_cc_label(r->cc, cc, sizeof cc),
			    r->e ? r->e->variant : "(fallback)", (unsigned long long)r->count,
			    r->e && r->e->derived_from ? " (derived)" : "", 100 * r->p_cmd, a,
			    predict_kernel_name(r->kernel), 100 * r->p_boot);
			cli_print_wrapped(stdout, "timeout risk: ", 2, t, strlen(t), CLI_WIDTH);
		}
	}
}

/* Commands priced from derived entries: said, they are not measured. */
static void derived_note(const struct predict_run *s)
{
	uint64_t most = 0;
	double share = 0;
	for (unsigned k = 0; k < s->npol; k++) {
		if (!s->show[k])
			continue;
		uint64_t n = predict_derived(s->pr, k);
		double sh = predict_derived_share(s->pr, k);
		most = n > most ? n : most;
		share = sh > share ? sh : share;
	}
	if (!most)
		return;
	char t[300];
	snprintf(t, sizeof t,
		 "up to %llu command%s per policy priced from derived entries, up to %.0f%% of the "
		 "TPM time (another command's figures, not measured: 'profile show' marks them *; "
		 "docs/profiles.md)",
		 (unsigned long long)most, most == 1 ? "" : "s", 100 * share);
	cli_print_wrapped(stdout, "derived: ", 2, t, strlen(t), CLI_WIDTH);
}

/* The kernel's TPM hwrng reads on its own clock, not the workload's: a
 * policy that lengthens the boot gets more of its reads (and their sessions)
 * than the trace holds. Said where a shown policy wraps them in sessions. */
static void hwrng_note(const struct predict_run *s)
{
	int wraps = 0;
	for (unsigned k = 0; k < s->npol; k++)
		if (s->show[k] && s->pols[k].mode == POL_MODE_SESSIONS && !s->pols[k].hwrng_off)
			wraps = 1;
	if (!s->pr->in_hwrng || !wraps)
		return;
	char t[400];
	snprintf(t, sizeof t,
		 "%llu read%s of the kernel's TPM hwrng, priced where the trace has them; the "
		 "kernel reads on its own clock (every max(1 s, uptime/2) in its first 30 s), so "
		 "a boot a policy lengthens reads more, each with its session: not counted here "
		 "(hwrng=off leaves them out)",
		 (unsigned long long)s->pr->in_hwrng, s->pr->in_hwrng == 1 ? "" : "s");
	cli_print_wrapped(stdout, "hwrng: ", 2, t, strlen(t), CLI_WIDTH);
}

static void print_text(const struct predict_run *s, int wide)
{
	const struct predictor *pr = s->pr;
	const struct pred_host *h = &s->host;
	char a[32], b[32];
	printf("profile: %s (%s)%s%s\n", s->prof.name, s->from, s->prof.chip ? ", " : "",
	       s->prof.chip ? s->prof.chip : "");
	if (s->why[0])
		cli_print_wrapped(stdout, "         ", 9, s->why, strlen(s->why), CLI_WIDTH);
	/* 100 columns whatever the path (escaped: a name from the command line) */
	char desc[1100];
	db_text_safe(s->desc, desc, sizeof desc);
	cli_print_wrapped(stdout, "trace:   ", 9, desc, strlen(desc), CLI_WIDTH);
	if (s->own)
		printf("         (and %lld commands tpmtrace sent itself, left out)\n",
		       (long long)s->own);
	predict_fmt_time(a, sizeof a, pr->gap_ms);
	if (s->untimed)
		printf(
		    "no timing in this trace: TPM time priced from the profile, no gaps, no boot "
		    "total\n");
	else if (pr->gap_known)
		printf("non-TPM time (gaps between commands): %s\n", a);
	else
		printf("non-TPM time: unknown (--gap-ms gives it): totals are TPM time and host\n"
		       "crypto only, x passwd on totals is not given\n");
	if (pr->recorded_n) {
		predict_fmt_time(a, sizeof a, pr->recorded_tpm_ms);
		predict_fmt_time(b, sizeof b, pr->recorded_tpm_ms + pr->gap_ms);
		printf("recorded: TPM time %s, total %s\n", a, b);
	}
	hwrng_note(s);
	derived_note(s);
	printf("host crypto: %s: salted session %.1f us,\n  unsalted %.1f us, HMAC per command "
	       "%.1f us, parameter encryption +%.1f us, Name %.1f us\n\n",
	       h->measured ? "measured on this host (tpmtrace's session code)"
			   : "constant estimate, not measured (model/predict.h)",
	       h->salt_ecc * 1e3, h->unsalted * 1e3, h->hmac * 1e3, h->enc * 1e3, h->name * 1e3);
	if (wide) {
		printf("%-30s %10s %9s %12s %11s %12s %17s%s\n", "", "", "", "", "", "",
		       "x password", pr->recorded_n ? "        x recorded" : "");
		printf("%-30s %10s %9s %12s %11s %12s %8s %8s", "policy", "commands", "setup",
		       "TPM time", "host crypto", "total", "TPM", "total");
		if (pr->recorded_n)
			printf(" %8s %8s", "TPM", "total");
		printf("  TPM range (low..high)\n");
	} else {
		printf("%-27s %8s %5s %9s %9s %9s %11s%s\n", "", "", "", "", "", "", "x password",
		       pr->recorded_n ? "  x recorded" : "");
		printf("%-27s %8s %5s %9s %9s %9s %5s %5s", "policy", "commands", "setup",
		       "TPM time", "host", "total", "TPM", "total");
		if (pr->recorded_n)
			printf(" %5s %5s", "TPM", "total");
		printf("\n");
	}
	for (unsigned k = 0; k < s->npol; k++)
		if (s->show[k])
			text_policy(s, k, wide);
	if (!wide)
		text_ranges(s);
	text_spread(s);
	printf("\ncommands sent per policy:\n");
	for (unsigned k = 0; k < s->npol; k++) {
		const struct pred_result *r = &pr->r[k];
		if (!s->show[k])
			continue;
		int col = printf("  %-27.27s", r->pol.name);
		unsigned j = 0;
		for (; j < r->n_cc && (wide ? j < 8 : 1); j++) {
			const char *nm =
			    tpm_cc_name(r->by_cc[j].cc) ? tpm_cc_name(r->by_cc[j].cc) : "?";
			char item[64];
			int w = snprintf(item, sizeof item, " %s %llu", nm,
					 (unsigned long long)r->by_cc[j].n);
			if (!wide && col + w > 96)
				break;
			col += printf("%s", item);
		}
		if (j < r->n_cc)
			printf(" ...");
		printf("\n");
	}
}

/* The warnings: each with -v (or when there are at most 3), else one line
 * that counts them and names the commands priced at the fallback. */
static void print_warnings(const struct predict_run *s, int verbose)
{
	if (verbose || s->nwarn <= 3) {
		for (unsigned j = 0; j < s->nwarn; j++)
			cli_print_wrapped(stderr, "tpmtrace predict: warning: ", 2, s->warns[j],
					  strlen(s->warns[j]), CLI_WIDTH);
		return;
	}
	unsigned lacks = 0;
	int more = 0;
	char names[200] = "";
	size_t len = 0;
	for (unsigned j = 0; j < s->nwarn; j++) {
		const char *l = strstr(s->warns[j], " lacks ");
		if (!l)
			continue;
		lacks++;
		l += 7;
		size_t nl = strcspn(l, " (:");
		char nm[64];
		snprintf(nm, sizeof nm, "%.*s", (int)(nl < 63 ? nl : 63), l);
		if (strstr(names, nm))
			continue;
		if (len + nl + 6 >= sizeof names || len + nl + strlen(s->prof.name) > 52) {
			more = 1;
			continue;
		}
		len +=
		    (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", nm);
	}
	if (lacks)
		fprintf(
		    stderr,
		    "tpmtrace predict: warning: profile %s lacks %s%s\n"
		    "  (%u command forms, priced at its fallback); %u more priced from another\n"
		    "  variant or authorization (-v: each)\n",
		    s->prof.name, names, more ? ", ..." : "", lacks, s->nwarn - lacks);
	else
		fprintf(
		    stderr,
		    "tpmtrace predict: warning: profile %s: %u command forms priced from another "
		    "variant or\n  authorization (-v: each)\n",
		    s->prof.name, s->nwarn);
}

static int run(int argc, char **argv)
{
	static struct predict_run s;
	struct pcfg c;
	char err[1024];
	int rc = parse_args(argc, argv, &c);
	if (rc)
		return rc;
	if (c.population)
		return predict_population_run(&c);
	memset(&s, 0, sizeof s);
	s.from = "";
	profile_init(&s.prof);
	if ((rc = prepare(&c, &s)))
		goto out;
	if (c.synth) {
		rc = predict_synthetic(s.pr, c.synth, c.gap_ms, s.desc, sizeof s.desc, err,
				       sizeof err);
		if (rc == -EINVAL)
			rc = cli_usage_error(&subcmd_predict, "--synthetic: %s", err);
		else if (rc)
			rc = cli_error("predict", "%s", err);
	} else {
		rc = feed_trace(&c, &s);
	}
	if (rc)
		goto out;
	predict_finish(s.pr);
	if (predict_run_figures(&s, c.boots, c.seed)) {
		rc = cli_error("predict", "out of memory");
		goto out;
	}
	print_warnings(&s, c.verbose);
	if (c.json && predict_run_json(stdout, &s))
		rc = cli_error("predict", "the JSON output went wrong");
	else if (!c.json)
		print_text(&s, c.wide);
out:
	free(s.pr);
	profile_release(&s.prof);
	db_close(s.db);
	return rc;
}
