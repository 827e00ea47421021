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
		db_text_wrap(stderr, "tpmtrace predict: warning: ", 2, w, strlen(w), DB_TEXT_WIDTH);
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
	predict_run_warnings(stderr, &s, c.verbose);
	if (c.json && predict_run_json(stdout, &s))
		rc = cli_error("predict", "the JSON output went wrong");
	else if (!c.json)
		predict_run_text(stdout, &s, c.wide);
out:
	free(s.pr);
	profile_release(&s.prof);
	db_close(s.db);
	return rc;
}
