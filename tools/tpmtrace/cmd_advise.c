/* tpmtrace advise: what makes a trace slow and what to change (model/advise.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "db/stats.h"
#include "model/advise.h"
#include "model/advise_proof.h"
#include "model/advise_json.h"
#include "model/advise_prove.h"
#include "model/advise_words.h"
#include "model/policy.h"
#include "model/predict.h"
#include "model/profile.h"
#include "model/run_stats.h"
#include "model/report_advise.h"

enum { O_TRACE = 256, O_PROFILE, O_PROVE, O_TARGET, O_MEASURE, O_REWRITE, O_JSON };
static const struct cli_opt opts[] = {
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP},
    {"profile", O_PROFILE, "NAME|FILE", 0,
     "price each finding on this profile too (a file, a\n"
     "profile stored in DB or a shipped one); default: the\n"
     "recorded latencies only",
     "@profile"},
    {"prove", O_PROVE, NULL, 0,
     "with --profile: each finding proved by replay on swtpm\n"
     "emulating the profile. On a replay, a change that is a\n"
     "policy knob (session-per-command: reuse=lazy;\n"
     "user-interleave: user-flush=off; hwrng-session:\n"
     "hwrng=off): the source under the replay's policy and\n"
     "under the changed one. repeated-primary, an\n"
     "application's session-per-command, policy-rebuilt and\n"
     "context-churn: the trace and its rewrite (--rewrite) as\n"
     "recorded.\n"
     "Replayed and predicted saving side by side (the runs\n"
     "are stored in DB); outliers are not proved. A proof that\n"
     "fails (a replay or a rewrite) says why and exits 1.\n"
     "Emulated runs show that the change runs; their time is\n"
     "the profile's by construction: only --measure measures"},
    {"target", O_TARGET, "TCTI", 0,
     "with --prove: replay on this TPM (a tss2-tctildr string,\n"
     "as replay --target) instead of a private swtpm: one\n"
     "with the state the trace needs (a sealed key loads\n"
     "only under the seeds it was sealed with); each replay\n"
     "leaves it as it found it",
     "@tcti"},
    {"measure", O_MEASURE, NULL, 0,
     "with --target: time the proof's runs on the target\n"
     "itself, not emulating the profile: the saving is\n"
     "measured (a device: target implies it)"},
    {"rewrite", O_REWRITE, "NAME", CLI_CHOICE,
     "store the trace with a finding's change made, as a new\n"
     "trace (kind derived, for replay) and exit:\n"
     "repeated-primary drops each re-creation of a primary\n"
     "and the flushes between (the first one kept loaded);\n"
     "session-per-command keeps the first session and sends\n"
     "the later commands with it (their set-ups and ends\n"
     "dropped); policy-rebuilt keeps one policy session and\n"
     "runs the assertions on it before each use;\n"
     "context-churn drops a resource manager's swaps (each\n"
     "ContextSave, FlushContext and ContextLoad again: the\n"
     "objects and sessions kept loaded)",
     "repeated-primary session-per-command policy-rebuilt context-churn"},
    {"json", O_JSON, NULL, 0, "one JSON object {\"version\":1,...} on stdout"},
};
static const struct cli_form forms[] = {{0, "DB", NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_advise = {
    "advise",
    run,
    "find what makes a trace slow, what to change and what it saves",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Finds the patterns that make a trace slow and says what to change. One finding per\n"
    "pattern present, the largest saving first: a primary key re-created with the same\n"
    "hierarchy and template; a session set up for one command (kernel or application);\n"
    "the kernel's session re-created after user space used the TPM; a policy session\n"
    "rebuilt with the same policy; hwrng reads ending the kernel's session; commands far\n"
    "above their kind's p95 in the trace, and retries; a resource manager's ContextSave/\n"
    "ContextLoad swaps of the objects and sessions left loaded; work lost to failures (a\n"
    "policy session's use answered PCR_CHANGED, an NV index defined again). Each finding\n"
    "gives where it is (seq range, clients, origins, counts), what its commands cost now\n"
    "(recorded, and priced on --profile), the change in the words of whoever must make it,\n"
    "and what is left after it (the commands it keeps, recorded and priced). A trace with\n"
    "nothing to find says so. With --prove (and --profile) each finding is proved by replay on "
    "swtpm\n"
    "emulating the profile, the replayed saving beside the predicted: a change that is a\n"
    "policy knob by replaying a replay's source under its policy and under the changed one;\n"
    "a repeated primary, sessions set up per command and rebuilt policy sessions by\n"
    "replaying the trace and its rewrite (--rewrite); outliers are not proved (a replay does\n"
    "not reproduce a stall). docs/advise.md gives each pattern with its public source.\n",
    NULL,
    "tpmtrace advise boot.db --trace 1\n"
    "tpmtrace advise boot.db --trace 1 --profile slb9670-linux-integrity --json\n"
    "tpmtrace advise boot.db --trace 1 --rewrite session-per-command\n",
};

static void print_where(const struct advise_finding *f, const struct advise_client *cn)
{
	char buf[1024], sb[64];
	size_t o = 0;
	o += (size_t)snprintf(buf + o, sizeof buf - o,
			      "seq %llu-%llu; %llu occurrence%s, %llu commands",
			      (unsigned long long)f->first_seq, (unsigned long long)f->last_seq,
			      (unsigned long long)f->count, f->count == 1 ? "" : "s",
			      (unsigned long long)f->involved);
	if (f->groups > 1)
		o += (size_t)snprintf(buf + o, sizeof buf - o, " (%llu %s)",
				      (unsigned long long)f->groups,
				      f->kind == ADVISE_POLICY_REBUILT ? "policies" : "templates");
	o += (size_t)snprintf(buf + o, sizeof buf - o, "; origins:");
	for (int k = 0; k < 4; k++)
		if (f->by_origin[k] && o < sizeof buf)
			o += (size_t)snprintf(buf + o, sizeof buf - o, " %s %llu",
					      policy_origin_str(k),
					      (unsigned long long)f->by_origin[k]);
	o += (size_t)snprintf(buf + o, sizeof buf - o, "; clients:");
	int shown = 0;
	for (unsigned k = 0; k < f->n_clients && o < sizeof buf; k++) {
		char safe[64];
		if (!cn[k].comm[0])
			continue; /* a replay's own commands: no client */
		snprintf(sb, sizeof sb, " (pid %lld)", cn[k].pid);
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%s %s%s", shown++ ? "," : "",
				      db_text_safe(cn[k].comm, safe, sizeof safe),
				      cn[k].has_pid ? sb : "");
	}
	if (!shown && o < sizeof buf)
		o += (size_t)snprintf(buf + o, sizeof buf - o, " none named");
	db_text_wrap(stdout, "   where:  ", 11, buf, strlen(buf), DB_TEXT_WIDTH);
}

static void print_finding(unsigned i, const struct advise_result *r, const struct advise_finding *f,
			  const struct advise_client *cn, const char *prof, const char *fig)
{
	struct advise_words t;
	advise_words_of(f, cn, &t);
	char buf[1024], a[32], b[32], c[32], d[32];
	snprintf(buf, sizeof buf, "%s", t.what);
	printf("%u. %s\n", i + 1, advise_kind_name(f->kind));
	db_text_wrap(stdout, "   what:   ", 11, buf, strlen(buf), DB_TEXT_WIDTH);
	print_where(f, cn);
	predict_fmt_time(a, sizeof a, f->rec_ms);
	predict_fmt_time(b, sizeof b, f->now_ms);
	if (r->priced && f->kind != ADVISE_OUTLIERS)
		snprintf(buf, sizeof buf, "%s recorded (%s); %s predicted on %s", a, fig, b, prof);
	else
		snprintf(buf, sizeof buf, "%s recorded (%s)%s", a, fig,
			 r->priced ? "; a stall is not in any profile: the record's figures" : "");
	if (f->rec_unknown)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
			 " (%llu without a recorded latency)", (unsigned long long)f->rec_unknown);
	db_text_wrap(stdout, "   now:    ", 11, buf, strlen(buf), DB_TEXT_WIDTH);
	snprintf(buf, sizeof buf, "%s: %s", t.who, t.change);
	db_text_wrap(stdout, "   change: ", 11, buf, strlen(buf), DB_TEXT_WIDTH);
	predict_fmt_time(c, sizeof c, f->rec_after_ms);
	predict_fmt_time(d, sizeof d, f->after_ms);
	double save = advise_saving_ms(r, f);
	predict_fmt_time(a, sizeof a, save);
	if (r->priced && f->kind != ADVISE_OUTLIERS)
		snprintf(buf, sizeof buf,
			 "%llu of the %llu commands go; %s predicted on %s (%s from "
			 "the record); saves %s",
			 (unsigned long long)f->removed, (unsigned long long)f->involved, d, prof,
			 c, a);
	else
		snprintf(buf, sizeof buf,
			 "%llu of the %llu commands go; %s from the record; saves %s",
			 (unsigned long long)f->removed, (unsigned long long)f->involved, c, a);
	db_text_wrap(stdout, "   after:  ", 11, buf, strlen(buf), DB_TEXT_WIDTH);
}

/* --target: the TPM the proofs replay on (NULL: a private swtpm each);
 * --measure (or a device: target): its runs timed there, no profile emulated. */
static const char *prove_target;
static int prove_measure;

/* What a proof's replays need: the database and the profile to emulate. */
struct prove_ctx {
	const char *dbpath, *prof;
};

/* advise_prove_opts.replay: tpmtrace replay of trace src under policy pol
 * emulating the profile (or timed on --measure's target), its output
 * discarded. */
static int prove_replay(void *ctx, int64_t src, const char *pol)
{
	const struct prove_ctx *c = ctx;
	char id[32];
	snprintf(id, sizeof id, "%lld", (long long)src);
	char *argv[] = {
	    "/proc/self/exe",	  "replay",    (char *)c->dbpath, "--trace",	   id,
	    "--policy",		  (char *)pol, "--emulate",	  (char *)c->prof, "--target",
	    (char *)prove_target, NULL};
	if (!prove_target)
		argv[9] = NULL; /* a private swtpm */
	if (prove_measure) {
		argv[7] = argv[9]; /* timed on the target: no --emulate */
		argv[8] = argv[10];
		argv[9] = NULL;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return cli_exit_status(st);
}

static void prove_say(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "tpmtrace advise: --prove: %s\n", msg);
}

/* What the proof's figures are (model/advise_proof.h). */
static void proof_basis(char *b, size_t n, const char *prof, const struct advise_prove_result *p)
{
	advise_prove_basis(b, n, prof, prove_target, prove_measure, p);
}

static void print_proof(const struct advise_result *r, const struct advise_finding *f,
			const struct advise_prove_result *p, const char *prof)
{
	char a[32], b[32], c[32], d[32], buf[2048];
	if (p && !p->done && p->why) {
		snprintf(buf, sizeof buf, "none: %s", p->why);
		db_text_wrap(stdout, "   proof:  ", 11, buf, strlen(buf), DB_TEXT_WIDTH);
	}
	if (!p || !p->done)
		return;
	predict_fmt_time(a, sizeof a, p->before_ms);
	predict_fmt_time(b, sizeof b, p->after_ms);
	predict_fmt_time(c, sizeof c, p->before_ms - p->after_ms);
	predict_fmt_time(d, sizeof d, advise_saving_ms(r, f));
	/* Emulated runs: the change runs, its time is the profile's; one run each. */
	char fig[600];
	proof_basis(fig, sizeof fig, prof, p);
	snprintf(buf, sizeof buf,
		 "%s; one run each (n=1: no spread known): %s under %s (trace "
		 "%lld), %s under %s (trace %lld); saves %s %s, %s predicted (%+.1f%%)",
		 fig, a, p->before, (long long)p->trace_before, b, p->after,
		 (long long)p->trace_after, c, prove_measure ? "measured" : "replayed", d,
		 100 * advise_proof_diff(r, f, p));
	db_text_wrap(stdout, "   proof:  ", 11, buf, strlen(buf), DB_TEXT_WIDTH);
}

static void output(sqlite3 *db, const char *dbpath, int64_t id, const struct advise_result *r,
		   const char *prof, int json, const struct advise_prove_result *pf)
{
	struct advise_client cn[ADVISE_MAX_CLIENTS];
	char a[32], b[32], fig[160];
	const char *figkind;
	if (json) {
		struct advise_json_opts jo = {prof, prove_target, prove_measure};
		advise_json_write(stdout, db, id, r, pf, &jo);
		return;
	}
	advise_trace_figures(db, id, fig, sizeof fig, &figkind);
	predict_fmt_time(a, sizeof a, r->rec_ms);
	predict_fmt_time(b, sizeof b, r->now_ms);
	char head[PATH_MAX + 512];
	int hl = snprintf(head, sizeof head, "%s trace %lld: %llu commands, %s recorded (%s)",
			  dbpath, (long long)id, (unsigned long long)r->commands, a, fig);
	if (r->priced && hl > 0 && (size_t)hl < sizeof head)
		snprintf(head + hl, sizeof head - (size_t)hl, ", %s predicted on %s", b, prof);
	db_text_wrap(stdout, "", 2, head, strlen(head), DB_TEXT_WIDTH);
	if (!r->n) {
		printf("nothing to change: none of the patterns of docs/advise.md is in this "
		       "trace\n");
		return;
	}
	printf("%u finding%s, the largest saving first:\n", r->n, r->n == 1 ? "" : "s");
	for (unsigned i = 0; i < r->n; i++) {
		advise_clients_load(db, id, &r->f[i], cn);
		printf("\n");
		print_finding(i, r, &r->f[i], cn, prof, fig);
		if (pf)
			print_proof(r, &r->f[i], &pf[i], prof);
	}
}

static int run(int argc, char **argv)
{
	const char *trace_arg = NULL, *profname = NULL, *from;
	int json = 0, do_prove = 0, k, ret = 1;
	const char *rewrite = NULL;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_advise, argc, argv);
	while ((k = cli_next(&p)) > 0) {
		if (k == O_TRACE)
			trace_arg = p.arg;
		else if (k == O_PROFILE)
			profname = p.arg;
		else if (k == O_JSON)
			json = 1;
		else if (k == O_PROVE)
			do_prove = 1;
		else if (k == O_TARGET)
			prove_target = p.arg;
		else if (k == O_MEASURE)
			prove_measure = 1;
		else if (k == O_REWRITE)
			rewrite = p.arg;
	}
	if (k < 0)
		return EXIT_USAGE;
	if (do_prove && !profname)
		return cli_usage_error(&subcmd_advise,
				       "--prove needs --profile (the TPM to emulate)");
	if (prove_target && !do_prove)
		return cli_usage_error(&subcmd_advise, "--target is where --prove replays");
	if (prove_measure && !prove_target)
		return cli_usage_error(&subcmd_advise,
				       "--measure needs --target (a private swtpm has only the "
				       "profile's times)");
	if (prove_target && !strncmp(prove_target, "device:", 7))
		prove_measure = 1; /* a TPM of its own: measured */
	const char *dbpath = cli_db_operand(&p);
	if (!dbpath)
		return EXIT_USAGE;
	sqlite3 *db = cli_open_db("advise", dbpath, do_prove || rewrite);
	if (!db)
		return 1;
	struct profile prof;
	profile_init(&prof);
	struct advise_cmd *cmds = NULL;
	struct advise_result *r = NULL;
	size_t n = 0;
	char err[1024];
	int64_t id = cli_pick_trace("advise", db, trace_arg);
	if (!id)
		goto out;
	if (rewrite) {
		int64_t rw;
		uint64_t dropped;
		if (advise_rewrite(db, id, rewrite, &rw, &dropped, err, sizeof err)) {
			cli_error("advise", "%s", err);
			goto out;
		}
		if (json)
			printf("{\"version\":1,\"source\":%lld,\"trace\":%lld,\"rewrite\":\"%s\","
			       "\"dropped\":%llu}\n",
			       (long long)id, (long long)rw, rewrite, (unsigned long long)dropped);
		else
			printf("trace %lld: the %s rewrite of trace %lld, %llu commands dropped\n",
			       (long long)rw, rewrite, (long long)id, (unsigned long long)dropped);
		ret = 0;
		goto out;
	}
	if (profname && profile_resolve(db, profname, &prof, &from, err, sizeof err)) {
		cli_error("advise", "%s", err);
		goto out;
	}
	if (advise_load(db, id, &cmds, &n)) {
		cli_error("advise", "%s: trace %lld: %s", dbpath, (long long)id,
			  sqlite3_errmsg(db));
		goto out;
	}
	if (!(r = malloc(sizeof *r))) {
		cli_error("advise", "out of memory");
		goto out;
	}
	advise_run(cmds, n, profname ? &prof : NULL, r);
	struct advise_prove_result pf[ADVISE_MAX_FINDINGS];
	if (do_prove) {
		struct prove_ctx pc = {dbpath, profname};
		struct advise_prove_opts po = {prove_target, prove_replay, prove_say, &pc};
		advise_prove(db, id, r, &po, pf);
		advise_prove_keep(db, id, r, prof.name, pf, &po);
	}
	output(db, dbpath, id, r, profname ? prof.name : NULL, json, do_prove ? pf : NULL);
	ret = 0;
	/* --prove asked for a proof that a failure kept from being made */
	for (unsigned i = 0; do_prove && i < r->n; i++)
		if (pf[i].failed)
			ret = 1;
out:
	free(r);
	free(cmds);
	profile_release(&prof);
	sqlite3_close(db);
	return ret;
}
