/* tpmtrace replay: re-issue a stored trace against a TPM under a session
 * policy and store the run as a new trace (replayer/replay.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"
#include "model/tpm/pcr_bank.h"
#include "model/tpm/tpm_cc.h"
#include "model/policy.h"
#include "model/emulate.h"
#include "model/run_stats.h"
#include "replayer/replay.h"

enum {
	O_TRACE = 256,
	O_POLICY,
	O_TARGET,
	O_REPEAT,
	O_ALLOW,
	O_AUTH,
	O_JSON,
	O_EMU,
	O_SEED,
	O_MINFID,
	O_RUNS
};
static const struct cli_opt opts[] = {
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP},
    {"policy", O_POLICY, "P", 0,
     "as-recorded (default), password (every authorization\n"
     "an empty password), linux-6.10 (a salted HMAC session\n"
     "per protected command), linux-6.12 (one session kept:\n"
     "lazy flush), linux-6.12-no-pcr-integrity (PCR_Extend\n"
     "with a password), linux-6.18 (no kernel sessions:\n"
     "CONFIG_TCG_TPM2_HMAC=n), one-session and\n"
     "persistent-key (proposed),\n"
     "or a knob spec such as\n"
     "'salt=null-ecc,reuse=lazy,encrypt=off'\n(docs/policies.md; no policy wraps the "
     "firmware's or\nuser space's commands); all: every preset in turn",
     "@policy-all"},
    {"target", O_TARGET, "T", 0,
     "spawn (default): a private swtpm with fresh state,\n"
     "stopped afterwards; or a TCTI string:\n"
     "device:/dev/tpmrm0, swtpm:path=SOCK,\n"
     "swtpm:host=H,port=P, mssim:host=H,port=P, tabrmd.\n"
     "What the replay creates on such a target is removed\n"
     "at the end (docs/replay.md)",
     "@tcti"},
    {"repeat", O_REPEAT, "N", CLI_NUM,
     "replay N times (each run is its own trace; with spawn,\n"
     "each on a fresh swtpm); with N > 1 or --policy all, the\n"
     "output is a table per policy: runs, mean +- standard\n"
     "deviation of TPM and wall time, and the TPM time's\n"
     "ratio to password with its noise verdict (as perf stat\n"
     "-r; docs/cli.md, \"Measured, emulated, predicted\")",
     NULL, 1, 100000},
    {"runs", O_RUNS, NULL, 0,
     "with --repeat N > 1 or --policy all: each run's summary\n"
     "too, before the table (by default the table only)"},
    {"min-fidelity", O_MINFID, "PCT", CLI_REAL,
     "exit 1 when a run's fidelity is below PCT percent\n"
     "(default 95), or below an earlier run of the same\n"
     "trace, policy and target stored in DB",
     NULL, 0, 100},
    {"allow-destructive", O_ALLOW, NULL, 0,
     "on a target other than the spawned swtpm, also send\n"
     "commands that change persistent state the replay did\n"
     "not create (Clear, ChangeEPS, ChangePPS,\n"
     "HierarchyChangeAuth, NV_UndefineSpace, EvictControl,\n"
     "DictionaryAttackParameters, ...); refused otherwise"},
    {"auth", O_AUTH, "HANDLE=VALUE", CLI_MULTI,
     "authValue of an entity by its recorded handle (text,\n"
     "or hex:HEX), e.g. --auth 0x40000001=ownerpw"},
    {"emulate", O_EMU, "PROFILE", 0,
     "latency injection: hold every response until the\n"
     "latency PROFILE gives for that command (by command\n"
     "code, authorization kind and key/session variant,\n"
     "drawn from its distribution) has passed since it was\n"
     "sent, so the target answers like the profiled TPM; the\n"
     "stored latencies are the emulated ones (flag 4), the\n"
     "run's 'emulated' column names the profile. PROFILE: a\n"
     "file, a profile stored in DB, or a shipped one.\n"
     "Compare with 'tpmtrace predict' (docs/profiles.md)",
     "@profile"},
    {"emulate-seed", O_SEED, "N", CLI_U64,
     "seed of the latency draws (default: random; with\n"
     "--repeat, run i uses N+i); stored in the run's\n'emulate' event"},
    {"json", O_JSON, NULL, 0, "print the summary as JSON {\"version\":1,...} (no\nprogress bar)"},
};
static const struct cli_form forms[] = {{0, "DB", NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_replay = {
    "replay",
    run,
    "replay a trace against a TPM under a session policy",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Sends the commands of a stored trace to a TPM again, under a session policy,\n"
    "and stores each run in DB as a new trace (kind 'replay', parent = the source,\n"
    "with the policy and the target), with the latency of every command, so that\n"
    "'tpmtrace stats' and 'tpmtrace sql' compare recorded and replayed timing.\n"
    "Commands the policy adds (CreatePrimary, ContextSave/Load, StartAuthSession,\n"
    "FlushContext, ReadPublic) are stored too, in the order they were sent.\n"
    "\n"
    "Handles the target returns are mapped onto the recorded ones (objects,\n"
    "sessions, saved contexts). Recorded HMAC and policy sessions are started again\n"
    "and every HMAC is computed by tpmtrace (with the authValue the replay itself\n"
    "gave an entity it created, else --auth, else empty); every response HMAC is\n"
    "verified and a mismatch ends the run as an error. A command the target answers\n"
    "TPM_RC_RETRY (or YIELDED, TESTING) is sent again, as a TSS does. The summary\n"
    "gives the fidelity: the share of source commands re-issued faithfully and\n"
    "answered as when recorded.\n"
    "Bytes that were redacted when recording are replaced by a valid substitute\n"
    "(reported with the reason) or the command is refused (reported). On a target\n"
    "other than the spawned swtpm, everything the run created (NV indices,\n"
    "persistent and transient objects, sessions) is removed at the end, also after\n"
    "an error; what could not be removed is reported. See docs/replay.md.\n",
    "Exit status: 0 when every run was stored complete with its fidelity at least\n"
    "--min-fidelity; 1 when a run stopped (bad input, target gone, response HMAC\n"
    "mismatch: it is stored with status 'incomplete' and the reason is printed), fell\n"
    "below the fidelity asked for (the failing commands are printed) or left\n"
    "something on the target; 2 usage error.\n",
    "tpmtrace replay boot.db --policy linux-6.10\n"
    "tpmtrace replay boot.db --policy linux-6.10 --emulate slb9670-linux-integrity\n"
    "tpmtrace replay boot.db --trace 3 --policy password --target device:/dev/tpmrm0\n"
    "tpmtrace replay boot.db --trace 1 --policy all --repeat 3\n"
    "tpmtrace replay boot.db --trace 1 --policy password --repeat 2 --runs\n"
    "tpmtrace sql boot.db \"SELECT * FROM command_stats WHERE trace_id IN (1, 4)\"\n",
};

static void progress_cb(void *arg, uint64_t done, uint64_t total)
{
	progress_update(arg, done, total);
}

/* What the command line asked for. */
struct rcfg {
	const char *db_path, *trace, *policy, *target, *emulate;
	long repeat;
	int json, allow, have_seed, runs, table;
	struct json_w *w; /* --json: the writer on stdout */
	struct replay_auth *auths;
	unsigned n_auths;
	uint64_t seed;
	double min_fid;
	int64_t trace_id;
	/* The policies to run: one, or every preset (--policy all). */
	const char *pols[16];
	unsigned n_pols;
	struct run_stats tpm[16], wall[16];
	int64_t first_id[16], last_id[16];
};

/* --repeat runs of policy k; each run printed as it ends. Returns 0, or 1
 * with why set. */
static int run_policy(struct rcfg *c, unsigned k, struct progress *pg, char *why, size_t n)
{
	static struct replay_result res;
	struct replay_opts ro = {.db_path = c->db_path,
				 .trace_id = c->trace_id,
				 .policy = c->pols[k],
				 .target = c->target,
				 .allow_destructive = c->allow,
				 .auths = c->auths,
				 .n_auths = c->n_auths,
				 .emulate = c->emulate};
	if (pg->enabled) {
		ro.progress = progress_cb;
		ro.progress_arg = pg;
	}
	for (long i = 0; i < c->repeat; i++) {
		ro.emulate_seed = c->seed + (uint64_t)i;
		int rc = rp_replay_run(&ro, &res);
		progress_done(pg);
		pg->t_start = db_mono_ns();
		/* A run that never started (no target, bad profile) has no
		 * summary: only the reason. */
		if (rc && !res.trace_id) {
			snprintf(why, n, "%s", res.err);
			return 1;
		}
		int stop = replay_run_verdict(c->db_path, c->min_fid, &res, rc, why, n);
		/* The table alone by default: a run's summary only when asked
		 * for (--runs) or when it ends the command. */
		if (c->w)
			replay_result_json(c->w, &res, rc);
		else if (!c->table || c->runs || stop)
			replay_result_text(stdout, &res, rc);
		if (stop)
			return 1;
		model_run_stats_add(&c->tpm[k], cli_ns_to_ms((double)res.tpm_ns));
		model_run_stats_add(&c->wall[k], cli_ns_to_ms((double)res.wall_ns));
		if (!c->first_id[k])
			c->first_id[k] = res.trace_id;
		c->last_id[k] = res.trace_id;
	}
	return 0;
}

/* The policy the others are compared with: password, or -1. */
static int password_index(const struct rcfg *c)
{
	for (unsigned k = 0; k < c->n_pols; k++)
		if (!strcmp(c->pols[k], "password") && c->tpm[k].n)
			return (int)k;
	return -1;
}

static void json_summary(const struct rcfg *c, int pw)
{
	struct json_w *w = c->w;
	json_key(w, "summary");
	json_begin_array(w);
	for (unsigned k = 0; k < c->n_pols && c->tpm[k].n; k++) {
		json_begin_object(w);
		json_kstr(w, "policy", c->pols[k]);
		json_kstr(w, "figures", model_figure_kind(c->emulate));
		json_kstr(w, "emulated", c->emulate);
		json_kuint(w, "runs", c->tpm[k].n);
		json_kint(w, "first_trace", c->first_id[k]);
		json_kint(w, "last_trace", c->last_id[k]);
		json_kdouble(w, "tpm_ms_mean", c->tpm[k].mean, 6);
		model_run_stats_json(w, "tpm_ms_sd", "tpm_ms_ci95", &c->tpm[k]);
		json_kdouble(w, "wall_ms_mean", c->wall[k].mean, 6);
		model_run_stats_json(w, "wall_ms_sd", NULL, &c->wall[k]);
		if (pw >= 0 && (int)k != pw) {
			struct run_cmp r;
			model_run_stats_compare(&c->tpm[pw], &c->tpm[k], &r);
			model_run_cmp_json(w, "vs_password", &r);
		}
		json_end_object(w);
	}
	json_end_array(w);
}

/* Mean +- standard deviation per policy, in the manner of perf stat -r, and
 * each policy's TPM time against password with the noise rule
 * (model/run_stats.h). */
static void print_summary(const struct rcfg *c)
{
	int pw = password_index(c);
	if (c->w) {
		json_summary(c, pw);
		return;
	}
	char fig[200], head[512];
	model_figure_label(fig, sizeof fig, c->emulate);
	printf("\n");
	snprintf(head, sizeof head,
		 "per policy over %ld run%s each: TPM time %s (ms: mean +- sample standard "
		 "deviation (sd/mean), - for one run: no spread known; wall = wall time of the "
		 "run):",
		 c->repeat, c->repeat == 1 ? "" : "s", fig);
	db_text_wrap(stdout, "", 0, head, strlen(head), DB_TEXT_WIDTH);
	printf("  %-27s %4s %-7s %26s %26s\n", "policy", "runs", "traces", "TPM time ms",
	       "wall ms");
	for (unsigned k = 0; k < c->n_pols && c->tpm[k].n; k++) {
		char ids[32], a[48], b[48];
		snprintf(ids, sizeof ids, "%lld-%lld", (long long)c->first_id[k],
			 (long long)c->last_id[k]);
		model_run_stats_str(a, sizeof a, &c->tpm[k]);
		model_run_stats_str(b, sizeof b, &c->wall[k]);
		printf("  %-27.27s %4llu %-7s %26s %26s\n", c->pols[k],
		       (unsigned long long)c->tpm[k].n, ids, a, b);
	}
	if (pw < 0 || c->n_pols < 2)
		return;
	snprintf(head, sizeof head,
		 "TPM time against password: the ratio of the means, and the difference of the "
		 "means in ms +- half its 95%% interval (Welch); within noise when the interval "
		 "holds 0, not an effect; single runs have no spread:");
	printf("\n");
	db_text_wrap(stdout, "", 0, head, strlen(head), DB_TEXT_WIDTH);
	for (unsigned k = 0; k < c->n_pols && c->tpm[k].n; k++) {
		if ((int)k == pw)
			continue;
		struct run_cmp r;
		char v[96];
		model_run_stats_compare(&c->tpm[pw], &c->tpm[k], &r);
		model_run_cmp_str(v, sizeof v, &r);
		printf("  %-27.27s %s\n", c->pols[k], v);
	}
}

/* Every policy asked for, each --repeat times. */
static int replay_policies(struct rcfg *c)
{
	struct progress pg;
	int ret = 0;
	char why[1200] = "";
	struct json_w jw;
	json_init_file(&jw, stdout, JSON_COMPACT);
	c->w = c->json ? &jw : NULL;
	progress_init(&pg, "replay", "commands", !c->json);
	c->table = c->n_pols > 1 || c->repeat > 1;
	if (c->w) {
		json_begin_object(c->w);
		json_kint(c->w, "version", 1);
		json_key(c->w, "runs");
		json_begin_array(c->w);
	}
	for (unsigned k = 0; k < c->n_pols && !ret; k++)
		ret = run_policy(c, k, &pg, why, sizeof why);
	if (c->w)
		json_end_array(c->w);
	if (c->table)
		print_summary(c);
	if (c->w) {
		if (why[0])
			json_kstr(c->w, "error", why);
		json_end_object(c->w);
		json_newline(c->w);
		if (json_done(c->w) && !ret)
			ret = cli_error("replay", "the JSON output went wrong");
		c->w = NULL;
	}
	if (why[0])
		cli_error("replay", "%s", why);
	return ret;
}

/* The policies to run (one, or every preset for "all"), checked. */
static int pick_policies(struct rcfg *c)
{
	struct policy pol;
	char err[256];
	if (c->policy && !strcmp(c->policy, "all")) {
		const char *nm;
		for (unsigned j = 0; (nm = policy_preset_name(j)) && c->n_pols < 16; j++)
			c->pols[c->n_pols++] = nm;
		return 0;
	}
	if (policy_parse(c->policy ? c->policy : "as-recorded", &pol, err, sizeof err))
		return cli_usage_error(&subcmd_replay, "--policy: %s", err);
	c->pols[c->n_pols++] = c->policy ? c->policy : "as-recorded";
	return 0;
}

static int run(int argc, char **argv)
{
	static struct replay_auth auths[REPLAY_MAX_AUTHS];
	static struct rcfg c;
	char err[256];
	int k;
	struct cli_parse p;
	memset(&c, 0, sizeof c);
	c.repeat = 1;
	c.min_fid = 95.0;
	c.auths = auths;
	/* A target that goes away mid-write must end the run with a message
	 * and an incomplete trace, not kill tpmtrace: tss2's socket TCTIs
	 * write without MSG_NOSIGNAL. */
	signal(SIGPIPE, SIG_IGN);
	cli_parse_init(&p, &subcmd_replay, argc, argv);
	while ((k = cli_next(&p)) > 0) {
		switch (k) {
		case O_TRACE:
			c.trace = p.arg;
			break;
		case O_POLICY:
			c.policy = p.arg;
			break;
		case O_TARGET:
			c.target = strcmp(p.arg, "spawn") ? p.arg : NULL;
			break;
		case O_REPEAT:
			c.repeat = (long)p.num;
			break;
		case O_MINFID:
			c.min_fid = p.real;
			break;
		case O_ALLOW:
			c.allow = 1;
			break;
		case O_AUTH:
			if (c.n_auths == REPLAY_MAX_AUTHS)
				return cli_usage_error(&subcmd_replay, "at most %d --auth",
						       REPLAY_MAX_AUTHS);
			if (rp_replay_auth_parse(p.arg, &auths[c.n_auths], err, sizeof err))
				return cli_usage_error(&subcmd_replay, "--auth: %s", err);
			c.n_auths++;
			break;
		case O_JSON:
			c.json = 1;
			break;
		case O_RUNS:
			c.runs = 1;
			break;
		case O_EMU:
			c.emulate = p.arg;
			break;
		case O_SEED:
			c.seed = p.u64;
			c.have_seed = 1;
			break;
		}
	}
	if (k < 0)
		return EXIT_USAGE;
	if (!(c.db_path = cli_db_operand(&p)))
		return EXIT_USAGE;
	if (c.have_seed && !c.emulate)
		return cli_usage_error(&subcmd_replay, "--emulate-seed goes with --emulate");
	if (!c.have_seed)
		c.seed = emulate_random_seed();
	if ((k = pick_policies(&c)))
		return k;
	/* The trace, by the rule every analysis command follows. */
	sqlite3 *db = cli_open_db("replay", c.db_path, 0);
	if (!db)
		return 1;
	c.trace_id = cli_pick_trace("replay", db, c.trace);
	db_close(db);
	if (!c.trace_id)
		return 1;
	return replay_policies(&c);
}
