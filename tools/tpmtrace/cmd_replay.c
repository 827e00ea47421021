/* tpmtrace replay: re-issue a stored trace against a TPM under a session
 * policy and store the run as a new trace (replayer/replay.h). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"
#include "model/tpm_cc.h"
#include "model/policy.h"
#include "replayer/emulate.h"
#include "replayer/replay.h"

static const char usage[] =
    "usage: tpmtrace replay DB [--trace ID] [--policy NAME|SPEC]\n"
    "                       [--target spawn|TCTI] [--repeat N] [--allow-destructive]\n"
    "                       [--auth HANDLE=VALUE]... [--emulate PROFILE [--emulate-seed N]]\n"
    "                       [--json]\n"
    "\n"
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
    "(reported with the reason) or the command is refused (reported). See\n"
    "docs/replay.md.\n"
    "\n"
    "Options:\n"
    "  --trace ID           the trace to replay (default: the newest that is not a\n"
    "                       replay)\n"
    "  --policy P           as-recorded (default), password (every authorization an\n"
    "                       empty password), linux-6.10 (a salted HMAC session per\n"
    "                       protected command), linux-6.12 (one session kept: lazy\n"
    "                       flush), linux-6.12-no-pcr-integrity (PCR_Extend with a\n"
    "                       password), or a knob spec such as\n"
    "                       'salt=null-ecc,reuse=lazy,encrypt=off' (docs/policies.md)\n"
    "  --target T           spawn (default): a private swtpm with fresh state, stopped\n"
    "                       afterwards; or a TCTI string: device:/dev/tpmrm0,\n"
    "                       swtpm:path=SOCK, swtpm:host=H,port=P, mssim:host=H,port=P,\n"
    "                       tabrmd\n"
    "  --repeat N           replay N times (each run is its own trace; with spawn,\n"
    "                       each on a fresh swtpm)\n"
    "  --allow-destructive  on a target other than the spawned swtpm, also send\n"
    "                       commands that change persistent state (Clear, ChangeEPS,\n"
    "                       ChangePPS, HierarchyChangeAuth, NV_UndefineSpace,\n"
    "                       EvictControl, DictionaryAttackParameters, ...); refused\n"
    "                       otherwise\n"
    "  --auth HANDLE=VALUE  authValue of an entity by its recorded handle (text, or\n"
    "                       hex:HEX), e.g. --auth 0x40000001=ownerpw; may be repeated\n"
    "  --emulate PROFILE    latency injection: hold every response until the latency\n"
    "                       PROFILE gives for that command (by command code,\n"
    "                       authorization kind and key/session variant, drawn from its\n"
    "                       distribution) has passed since it was sent, so the target\n"
    "                       answers like the profiled TPM; the stored latencies are the\n"
    "                       emulated ones (flag 4), the run's 'emulated' column names\n"
    "                       the profile. PROFILE: a file, a profile stored in DB, or a\n"
    "                       shipped one. Compare with 'tpmtrace predict' (docs/profiles.md)\n"
    "  --emulate-seed N     seed of the latency draws (default: random; with --repeat,\n"
    "                       run i uses N+i); stored in the run's 'emulate' event\n"
    "  --json               print the summary as JSON (no progress bar)\n"
    "  -h, --help           this text\n"
    "\n"
    "Exit status: 0 when every run was stored complete; 1 when a run stopped (bad\n"
    "input, target gone, response HMAC mismatch): it is stored with status\n"
    "'incomplete' and the reason is printed; 2 usage error.\n"
    "\n"
    "Examples:\n"
    "  tpmtrace replay boot.db --policy linux-6.10\n"
    "  tpmtrace replay boot.db --policy linux-6.10 --emulate slb9670-linux-integrity\n"
    "  tpmtrace replay boot.db --trace 3 --policy password --target device:/dev/tpmrm0\n"
    "  tpmtrace sql boot.db \"SELECT * FROM command_stats WHERE trace_id IN (1, 4)\"\n";

static int run(int argc, char **argv);
const struct subcommand subcmd_replay = {
    "replay", run, "replay a trace against a TPM under a session policy", usage};

static const char *const outcome_names[] = {"faithful", "substituted", "refused", "skipped",
					    "failed"};
static const char *const role_names[] = {"original",	"nullkey-init", "session-setup",
					 "session-end", "name-lookup",	"?",
					 "startup",	"rm-client-end"};

static void progress_cb(void *arg, uint64_t done, uint64_t total)
{
	progress_update(arg, done, total);
}

static const char *alg_name(uint16_t a)
{
	switch (a) {
	case 0x0004:
		return "sha1";
	case 0x000B:
		return "sha256";
	case 0x000C:
		return "sha384";
	case 0x000D:
		return "sha512";
	}
	return "?";
}

static void hex(FILE *f, const uint8_t *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* Source commands re-issued faithfully whose answer was no TPM error where
 * the recording had success. */
static uint64_t fidelity_n(const struct replay_result *r)
{
	uint64_t ok = r->outcome[REPLAY_FAITHFUL];
	return ok > r->failed ? ok - r->failed : 0;
}

static void print_json(FILE *f, const struct replay_result *r, int rc)
{
	fprintf(f, "{\"source\":%lld,\"trace\":%lld,\"policy\":", (long long)r->source_id,
		(long long)r->trace_id);
	json_str(f, r->policy);
	fprintf(f, ",\"target\":");
	json_str(f, r->target);
	fprintf(f, ",\"status\":\"%s\",\"error\":", r->status);
	json_str(f, rc ? r->err : NULL);
	fprintf(f,
		",\"source_commands\":%llu,\"processed\":%llu,\"sent\":%llu,\"faithful\":%llu,"
		"\"substituted\":%llu,\"refused\":%llu,\"skipped\":%llu,\"failed\":%llu,"
		"\"fidelity\":%.4f,\"hmac_verified\":%llu,\"retries\":%llu,\"tpm_ns\":%llu,"
		"\"source_tpm_ns\":%llu,"
		"\"crypto_ns\":%llu,\"wall_ns\":%llu,",
		(unsigned long long)r->source_commands, (unsigned long long)r->processed,
		(unsigned long long)r->sent, (unsigned long long)r->outcome[REPLAY_FAITHFUL],
		(unsigned long long)r->outcome[REPLAY_SUBSTITUTED],
		(unsigned long long)r->outcome[REPLAY_REFUSED],
		(unsigned long long)r->outcome[REPLAY_SKIPPED], (unsigned long long)r->failed,
		r->processed ? (double)fidelity_n(r) / (double)r->processed : 0.0,
		(unsigned long long)r->hmac_checked, (unsigned long long)r->retries,
		(unsigned long long)r->tpm_ns, (unsigned long long)r->src_tpm_ns,
		(unsigned long long)r->crypto_ns, (unsigned long long)r->wall_ns);
	if (r->emulated[0]) {
		fprintf(f, "\"emulated\":");
		json_str(f, r->emulated);
		fprintf(f,
			",\"emulate_seed\":%llu,\"emulate_approximated\":%llu,"
			"\"emulate_fallback\":%llu,\"emulate_late\":%llu,\"emulate_late_ns\":%llu,"
			"\"emulate_owed_ns\":%llu,",
			(unsigned long long)r->emulate_seed, (unsigned long long)r->emu_approx,
			(unsigned long long)r->emu_missing, (unsigned long long)r->emu_late,
			(unsigned long long)r->emu_late_ns, (unsigned long long)r->emu_debt_ns);
	}
	fprintf(f, "\"sent_by_role\":{");
	int first = 1;
	for (int i = 0; i < 8; i++) {
		if (!r->by_role[i])
			continue;
		fprintf(f, "%s\"%s\":%llu", first ? "" : ",", role_names[i],
			(unsigned long long)r->by_role[i]);
		first = 0;
	}
	fprintf(f, "},\"reasons\":[");
	for (unsigned i = 0; i < r->n_reasons; i++) {
		const struct replay_reason *n = &r->reasons[i];
		fprintf(f, "%s{\"outcome\":\"%s\",\"command\":", i ? "," : "",
			outcome_names[n->outcome]);
		json_str(f, n->cc ? tpm_cc_name(n->cc) : NULL);
		fprintf(f, ",\"count\":%llu,\"first_seq\":%llu,\"reason\":",
			(unsigned long long)n->count, (unsigned long long)n->first_seq);
		json_str(f, n->text);
		fputc('}', f);
	}
	fprintf(f, "],\"commands\":[");
	for (unsigned i = 0; i < r->n_cc; i++) {
		const struct replay_cc_stat *s = &r->cc[i];
		const char *nm = tpm_cc_name(s->cc);
		fprintf(f, "%s{\"cc\":%u,\"name\":", i ? "," : "", s->cc);
		json_str(f, nm);
		fprintf(f,
			",\"recorded\":%llu,\"replayed\":%llu,\"recorded_ns\":%llu,"
			"\"replayed_ns\":%llu,\"rc_differs\":%llu}",
			(unsigned long long)s->n_src, (unsigned long long)s->n_rep,
			(unsigned long long)s->src_ns, (unsigned long long)s->rep_ns,
			(unsigned long long)s->rc_differs);
	}
	fprintf(f, "],\"pcrs\":{");
	for (unsigned b = 0; b < r->n_banks; b++) {
		const struct replay_bank *k = &r->banks[b];
		fprintf(f, "%s\"%s\":{", b ? "," : "", alg_name(k->alg));
		int c = 0;
		for (int i = 0; i < 24; i++) {
			if (!(k->mask & (1u << i)))
				continue;
			fprintf(f, "%s\"%d\":\"", c++ ? "," : "", i);
			hex(f, k->v[i], k->size);
			fputc('"', f);
		}
		fputc('}', f);
	}
	fprintf(f, "}}");
}

static void print_text(FILE *f, const struct replay_result *r, int rc)
{
	fprintf(f, "replay of trace %lld, policy %s, target %s: trace %lld, %s\n",
		(long long)r->source_id, r->policy, r->target, (long long)r->trace_id, r->status);
	if (rc)
		fprintf(f, "  stopped: %s\n", r->err);
	fprintf(
	    f,
	    "  source commands %llu (handled %llu): %llu replayed faithfully, %llu substituted, "
	    "%llu refused, %llu skipped\n",
	    (unsigned long long)r->source_commands, (unsigned long long)r->processed,
	    (unsigned long long)r->outcome[REPLAY_FAITHFUL],
	    (unsigned long long)r->outcome[REPLAY_SUBSTITUTED],
	    (unsigned long long)r->outcome[REPLAY_REFUSED],
	    (unsigned long long)r->outcome[REPLAY_SKIPPED]);
	if (r->processed)
		fprintf(f,
			"  fidelity %.1f%%: %llu of %llu source commands re-issued faithfully and "
			"answered as when recorded\n",
			100.0 * (double)fidelity_n(r) / (double)r->processed,
			(unsigned long long)fidelity_n(r), (unsigned long long)r->processed);
	fprintf(f, "  commands sent %llu:", (unsigned long long)r->sent);
	for (int i = 0; i < 8; i++)
		if (r->by_role[i])
			fprintf(f, " %s %llu", role_names[i], (unsigned long long)r->by_role[i]);
	fprintf(f,
		"\n  response HMACs verified %llu; TPM errors where the recording succeeded %llu\n",
		(unsigned long long)r->hmac_checked, (unsigned long long)r->failed);
	if (r->retries)
		fprintf(f,
			"  resubmitted %llu times after TPM_RC_RETRY/YIELDED/TESTING (the TPM did "
			"not start the command)\n",
			(unsigned long long)r->retries);
	fprintf(f, "  TPM time %.3f ms (recorded %.3f ms), host crypto %.3f ms, wall %.3f ms\n",
		ms(r->tpm_ns), ms(r->src_tpm_ns), ms(r->crypto_ns), ms(r->wall_ns));
	if (r->emulated[0])
		fprintf(f,
			"  emulated %s (seed %llu): %llu responses held; %llu priced from another "
			"variant or authorization, %llu at the profile's fallback; %llu came "
			"after their drawn latency (%.3f ms in all, %.3f ms not made up by "
			"later holds)\n",
			r->emulated, (unsigned long long)r->emulate_seed,
			(unsigned long long)r->emu_commands, (unsigned long long)r->emu_approx,
			(unsigned long long)r->emu_missing, (unsigned long long)r->emu_late,
			ms(r->emu_late_ns), ms(r->emu_debt_ns));
	for (unsigned i = 0; i < r->n_reasons; i++) {
		const struct replay_reason *n = &r->reasons[i];
		fprintf(f, "  %s x%llu (first at seq %llu): %s\n", outcome_names[n->outcome],
			(unsigned long long)n->count, (unsigned long long)n->first_seq, n->text);
	}
	fprintf(f, "  %-26s %9s %9s %12s %12s %6s\n", "command", "recorded", "replayed",
		"rec mean ms", "rep mean ms", "rc!=");
	for (unsigned i = 0; i < r->n_cc; i++) {
		const struct replay_cc_stat *s = &r->cc[i];
		const char *nm = tpm_cc_name(s->cc);
		char buf[16];
		if (!nm) {
			snprintf(buf, sizeof buf, "0x%08x", s->cc);
			nm = buf;
		}
		fprintf(f, "  %-26s %9llu %9llu %12.3f %12.3f %6llu\n", nm,
			(unsigned long long)s->n_src, (unsigned long long)s->n_rep,
			s->n_src ? ms(s->src_ns) / (double)s->n_src : 0.0,
			s->n_rep ? ms(s->rep_ns) / (double)s->n_rep : 0.0,
			(unsigned long long)s->rc_differs);
	}
	for (unsigned b = 0; b < r->n_banks; b++)
		for (int i = 0; i < 24; i++)
			if ((r->banks[b].mask & (1u << i)) && i == 16) {
				fprintf(f, "  PCR %s:%d = ", alg_name(r->banks[b].alg), i);
				hex(f, r->banks[b].v[i], r->banks[b].size);
				fputc('\n', f);
			}
}

static int run(int argc, char **argv)
{
	const char *trace = NULL, *policy = NULL, *target = NULL;
	long repeat = 1;
	int json = 0, allow = 0, o;
	static struct replay_auth auths[REPLAY_MAX_AUTHS];
	unsigned n_auths = 0;
	char err[256];
	const char *emulate = NULL;
	uint64_t seed = 0;
	int have_seed = 0;
	enum { O_TRACE = 1, O_POLICY, O_TARGET, O_REPEAT, O_ALLOW, O_AUTH, O_JSON, O_EMU, O_SEED };
	static const struct option opts[] = {{"trace", required_argument, 0, O_TRACE},
					     {"policy", required_argument, 0, O_POLICY},
					     {"target", required_argument, 0, O_TARGET},
					     {"repeat", required_argument, 0, O_REPEAT},
					     {"allow-destructive", no_argument, 0, O_ALLOW},
					     {"auth", required_argument, 0, O_AUTH},
					     {"json", no_argument, 0, O_JSON},
					     {"emulate", required_argument, 0, O_EMU},
					     {"emulate-seed", required_argument, 0, O_SEED},
					     {0, 0, 0, 0}};
	/* A target that goes away mid-write must end the run with a message
	 * and an incomplete trace, not kill tpmtrace: tss2's socket TCTIs
	 * write without MSG_NOSIGNAL. */
	signal(SIGPIPE, SIG_IGN);
	optind = 1;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case O_TRACE:
			trace = optarg;
			break;
		case O_POLICY:
			policy = optarg;
			break;
		case O_TARGET:
			target = strcmp(optarg, "spawn") ? optarg : NULL;
			break;
		case O_REPEAT: {
			char *end;
			repeat = strtol(optarg, &end, 10);
			if (*end || repeat < 1 || repeat > 100000)
				return usage_error(&subcmd_replay, "--repeat takes a count >= 1");
			break;
		}
		case O_ALLOW:
			allow = 1;
			break;
		case O_AUTH:
			if (n_auths == REPLAY_MAX_AUTHS)
				return usage_error(&subcmd_replay, "at most %d --auth",
						   REPLAY_MAX_AUTHS);
			if (replay_auth_parse(optarg, &auths[n_auths], err, sizeof err))
				return usage_error(&subcmd_replay, "%s", err);
			n_auths++;
			break;
		case O_JSON:
			json = 1;
			break;
		case O_EMU:
			emulate = optarg;
			break;
		case O_SEED: {
			char *end;
			errno = 0;
			seed = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg || optarg[0] == '-')
				return usage_error(&subcmd_replay,
						   "--emulate-seed takes an unsigned integer");
			have_seed = 1;
			break;
		}
		default:
			return usage_error(&subcmd_replay, "unknown option");
		}
	}
	if (optind != argc - 1)
		return usage_error(&subcmd_replay,
				   optind >= argc ? "which database?" : "one database only");
	const char *db_path = argv[optind];
	if (have_seed && !emulate)
		return usage_error(&subcmd_replay, "--emulate-seed goes with --emulate");
	if (!have_seed)
		seed = emulate_random_seed();
	struct policy pol;
	if (policy_parse(policy ? policy : "as-recorded", &pol, err, sizeof err))
		return usage_error(&subcmd_replay, "--policy: %s", err);
	int64_t trace_id = 0;
	if (trace) {
		sqlite3 *db = cli_open_db("replay", db_path, 0);
		if (!db)
			return 1;
		trace_id = cli_pick_trace("replay", db, trace);
		db_close(db);
		if (!trace_id)
			return 1;
	}
	struct progress pg;
	progress_init(&pg, "replay", "commands", !json);
	struct replay_opts ro = {.db_path = db_path,
				 .trace_id = trace_id,
				 .policy = policy,
				 .target = target,
				 .allow_destructive = allow,
				 .auths = auths,
				 .n_auths = n_auths,
				 .emulate = emulate};
	if (pg.enabled) {
		ro.progress = progress_cb;
		ro.progress_arg = &pg;
	}
	static struct replay_result res;
	int ret = 0;
	if (json)
		printf("{\"version\":1,\"runs\":[");
	for (long i = 0; i < repeat; i++) {
		ro.emulate_seed = seed + (uint64_t)i;
		int rc = replay_run(&ro, &res);
		progress_done(&pg);
		pg.t_start = mono_ns();
		if (json) {
			if (i)
				putchar(',');
			print_json(stdout, &res, rc);
		} else {
			print_text(stdout, &res, rc);
		}
		if (rc) {
			die("replay", "%s%s", res.err,
			    res.trace_id ? " (the partial run is stored as incomplete)" : "");
			ret = 1;
			break;
		}
	}
	if (json)
		printf("]}\n");
	return ret;
}
