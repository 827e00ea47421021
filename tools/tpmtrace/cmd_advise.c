/* tpmtrace advise: what makes a trace slow and what to change (model/advise.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "model/advise.h"
#include "model/policy.h"
#include "model/profile.h"

enum { O_TRACE = 256, O_PROFILE, O_JSON };
static const struct cli_opt opts[] = {
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP},
    {"profile", O_PROFILE, "NAME|FILE", 0,
     "price each finding on this profile too (a file, a\n"
     "profile stored in DB or a shipped one); default: the\n"
     "recorded latencies only",
     "@profile"},
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
    "above their kind's p95 in the trace, and retries. Each finding gives where it is\n"
    "(seq range, clients, origins, counts), what its commands cost now (recorded, and\n"
    "priced on --profile), the change in the words of whoever must make it, and what\n"
    "is left after it (the commands it keeps, recorded and priced). A trace with nothing\n"
    "to find says so. docs/advise.md gives each pattern with its public source.\n",
    NULL,
    "tpmtrace advise boot.db --trace 1\n"
    "tpmtrace advise boot.db --trace 1 --profile slb9670-linux-integrity --json\n",
};

/* The words of each finding: what, and the change by who makes it. */
struct kind_text {
	const char *what;
	const char *who_kernel, *change_kernel;
	const char *who_app, *change_app;
};

static const struct kind_text texts[ADVISE__COUNT] = {
    [ADVISE_REPEATED_PRIMARY] =
	{"the same primary key re-created: CreatePrimary with the same hierarchy and template",
	 "kernel", "create the null key once and keep it (the persistent-key design)",
	 "application",
	 "create the primary once and keep it: make it persistent once (tpm2_evictcontrol -C o "
	 "-c primary.ctx 0x81000001) and use the handle (-c 0x81000001) instead of creating it "
	 "again; or keep the first one loaded"},
    [ADVISE_SESSION_PER_CMD] =
	{"a session set up for every command: StartAuthSession (with its salt key's load and "
	 "flush) for one use, then ended",
	 "kernel",
	 "use Linux 6.12 or later, which keeps its session (lazy flush, preset linux-6.12), or "
	 "build with CONFIG_TCG_TPM2_HMAC=n (the default since 6.18, preset password)",
	 "application (TSS user)",
	 "start the session once with continueSession set and use it for every command "
	 "(ESYS: Esys_TRSess_SetAttributes with TPMA_SESSION_CONTINUESESSION)"},
    [ADVISE_USER_INTERLEAVE] =
	{"the kernel's session re-created after user space used the TPM (a user-space write to "
	 "/dev/tpm* ends it)",
	 "kernel",
	 "build with CONFIG_TCG_TPM2_HMAC=n (the default since 6.18), or keep the session "
	 "across user-space access (policy knob reuse=forever); user space: do its TPM work "
	 "before or after the kernel's",
	 "user space", "do the TPM work before or after the kernel's, not between its commands"},
    [ADVISE_POLICY_REBUILT] =
	{"policy sessions rebuilt with the same policy: a new StartAuthSession and FlushContext "
	 "for each use",
	 "kernel", "keep the policy session (continueSession) and run its assertions again",
	 "application",
	 "keep one policy session (continueSession set) and run its assertions again before each "
	 "use (the TPM resets a used policy session) instead of starting a new one"},
    [ADVISE_HWRNG_SESSION] = {"reads of the kernel's TPM hwrng ending the kernel's HMAC session",
			      "kernel",
			      "build without CONFIG_HW_RANDOM_TPM (policy knob hwrng=off), or with "
			      "CONFIG_TCG_TPM2_HMAC=n (the default since 6.18)",
			      "kernel",
			      "build without CONFIG_HW_RANDOM_TPM (policy knob hwrng=off)"},
    [ADVISE_OUTLIERS] =
	{"commands far above their kind's p95 in this trace, and retries (TPM_RC_RETRY, "
	 "YIELDED, TESTING)",
	 "firmware or driver",
	 "find what delays them: a self-test not started early (TPM2_SelfTest), a retry loop, "
	 "a stall of the bus; the saving is each one's time above its kind's median",
	 "firmware or driver",
	 "find what delays them: a self-test not started early (TPM2_SelfTest), a retry loop, "
	 "a stall of the bus; the saving is each one's time above its kind's median"},
};

/* The clients of a finding: "comm (pid N)" each. */
struct client_name {
	char comm[64], peer[64];
	long long pid;
	int has_pid;
};

/* The change is an application's when user space sent most of the
 * finding's commands, or when nothing names the kernel and every client
 * has a pid (a recording through a proxy: programs, not the kernel). */
static int by_app(const struct advise_finding *f, const struct client_name *cn)
{
	if (f->by_origin[POL_ORIGIN_USER] >
	    f->by_origin[POL_ORIGIN_KERNEL] + f->by_origin[POL_ORIGIN_UNKNOWN])
		return 1;
	if (f->by_origin[POL_ORIGIN_KERNEL] || !f->n_clients)
		return 0;
	for (unsigned k = 0; k < f->n_clients; k++)
		if (!cn[k].has_pid)
			return 0;
	return 1;
}

static void fmt_ms(char *b, size_t l, double ms)
{
	if (ms >= 10000)
		snprintf(b, l, "%.1f s", ms / 1000);
	else if (ms >= 1000)
		snprintf(b, l, "%.3f s", ms / 1000);
	else
		snprintf(b, l, "%.2f ms", ms);
}

static void load_clients(sqlite3 *db, int64_t id, const struct advise_finding *f,
			 struct client_name *out)
{
	sqlite3_stmt *st;
	memset(out, 0, sizeof *out * ADVISE_MAX_CLIENTS);
	/* a replay has no clients of its own: its source's (advise_load) */
	if (sqlite3_prepare_v2(db,
			       "SELECT comm, peer, pid FROM client WHERE id=?2 AND trace_id = CASE"
			       " WHEN EXISTS (SELECT 1 FROM client WHERE trace_id=?1) THEN ?1"
			       " ELSE (SELECT parent_id FROM trace WHERE id=?1) END",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	for (unsigned k = 0; k < f->n_clients; k++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, f->clients[k]);
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *c = (const char *)sqlite3_column_text(st, 0);
			const char *p = (const char *)sqlite3_column_text(st, 1);
			snprintf(out[k].comm, sizeof out[k].comm, "%s", c ? c : "?");
			snprintf(out[k].peer, sizeof out[k].peer, "%s", p ? p : "");
			out[k].has_pid = sqlite3_column_type(st, 2) != SQLITE_NULL;
			out[k].pid = sqlite3_column_int64(st, 2);
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
}

static void print_where(const struct advise_finding *f, const struct client_name *cn)
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
			o +=
			    (size_t)snprintf(buf + o, sizeof buf - o, " %s %llu", pol_origin_str(k),
					     (unsigned long long)f->by_origin[k]);
	o += (size_t)snprintf(buf + o, sizeof buf - o, "; clients:");
	int shown = 0;
	for (unsigned k = 0; k < f->n_clients && o < sizeof buf; k++) {
		char safe[64];
		if (!cn[k].comm[0])
			continue; /* a replay's own commands: no client */
		snprintf(sb, sizeof sb, " (pid %lld)", cn[k].pid);
		o += (size_t)snprintf(buf + o, sizeof buf - o, "%s %s%s", shown++ ? "," : "",
				      safe_text(cn[k].comm, safe, sizeof safe),
				      cn[k].has_pid ? sb : "");
	}
	if (!shown && o < sizeof buf)
		o += (size_t)snprintf(buf + o, sizeof buf - o, " none named");
	cli_print_wrapped(stdout, "   where:  ", 11, buf, strlen(buf), CLI_WIDTH);
}

static void print_finding(unsigned i, const struct advise_result *r, const struct advise_finding *f,
			  const struct client_name *cn, const char *prof)
{
	const struct kind_text *t = &texts[f->kind];
	char buf[1024], a[32], b[32], c[32], d[32];
	snprintf(buf, sizeof buf, "%s", t->what);
	printf("%u. %s\n", i + 1, advise_kind_name(f->kind));
	cli_print_wrapped(stdout, "   what:   ", 11, buf, strlen(buf), CLI_WIDTH);
	print_where(f, cn);
	fmt_ms(a, sizeof a, f->rec_ms);
	fmt_ms(b, sizeof b, f->now_ms);
	if (r->priced && f->kind != ADVISE_OUTLIERS)
		snprintf(buf, sizeof buf, "%s recorded; %s priced on %s", a, b, prof);
	else
		snprintf(buf, sizeof buf, "%s recorded%s", a,
			 r->priced ? " (a stall is not in any profile: the record's figures)" : "");
	if (f->rec_unknown)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
			 " (%llu without a recorded latency)", (unsigned long long)f->rec_unknown);
	cli_print_wrapped(stdout, "   now:    ", 11, buf, strlen(buf), CLI_WIDTH);
	int app = by_app(f, cn);
	snprintf(buf, sizeof buf, "%s: %s", app ? t->who_app : t->who_kernel,
		 app ? t->change_app : t->change_kernel);
	cli_print_wrapped(stdout, "   change: ", 11, buf, strlen(buf), CLI_WIDTH);
	fmt_ms(c, sizeof c, f->rec_after_ms);
	fmt_ms(d, sizeof d, f->after_ms);
	double save = advise_saving_ms(r, f);
	fmt_ms(a, sizeof a, save);
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
	cli_print_wrapped(stdout, "   after:  ", 11, buf, strlen(buf), CLI_WIDTH);
}

static void json_finding(const struct advise_result *r, const struct advise_finding *f,
			 const struct client_name *cn)
{
	const struct kind_text *t = &texts[f->kind];
	int app = by_app(f, cn);
	printf("{\"kind\":");
	json_str(stdout, advise_kind_name(f->kind));
	printf(",\"what\":");
	json_str(stdout, t->what);
	printf(",\"count\":%llu,\"groups\":%llu,\"commands\":%llu,\"removed\":%llu,"
	       "\"first_seq\":%llu,\"last_seq\":%llu,\"origins\":{",
	       (unsigned long long)f->count, (unsigned long long)f->groups,
	       (unsigned long long)f->involved, (unsigned long long)f->removed,
	       (unsigned long long)f->first_seq, (unsigned long long)f->last_seq);
	for (int k = 0, n = 0; k < 4; k++)
		if (f->by_origin[k]) {
			printf("%s\"%s\":%llu", n++ ? "," : "", pol_origin_str(k),
			       (unsigned long long)f->by_origin[k]);
		}
	printf("},\"clients\":[");
	for (unsigned k = 0, shown = 0; k < f->n_clients; k++) {
		if (!cn[k].comm[0])
			continue;
		printf("%s{\"id\":%u,\"comm\":", shown++ ? "," : "", f->clients[k]);
		json_str(stdout, cn[k].comm);
		if (cn[k].has_pid)
			printf(",\"pid\":%lld}", cn[k].pid);
		else
			printf(",\"pid\":null}");
	}
	printf("],\"recorded_ms\":%.6f,\"recorded_after_ms\":%.6f,\"recorded_unknown\":%llu,",
	       f->rec_ms, f->rec_after_ms, (unsigned long long)f->rec_unknown);
	if (r->priced)
		printf("\"priced_ms\":%.6f,\"priced_after_ms\":%.6f,\"priced_fallback\":%llu,",
		       f->now_ms, f->after_ms, (unsigned long long)f->priced_fallback);
	else
		printf("\"priced_ms\":null,\"priced_after_ms\":null,\"priced_fallback\":null,");
	printf("\"saving_ms\":%.6f,\"who\":", advise_saving_ms(r, f));
	json_str(stdout, app ? t->who_app : t->who_kernel);
	printf(",\"change\":");
	json_str(stdout, app ? t->change_app : t->change_kernel);
	printf("}");
}

static void output(sqlite3 *db, const char *dbpath, int64_t id, const struct advise_result *r,
		   const char *prof, int json)
{
	struct client_name cn[ADVISE_MAX_CLIENTS];
	char a[32], b[32];
	if (json) {
		printf("{\"version\":1,\"trace\":%lld,\"commands\":%llu,\"recorded_ms\":%.6f,"
		       "\"profile\":",
		       (long long)id, (unsigned long long)r->commands, r->rec_ms);
		json_str(stdout, prof);
		if (r->priced)
			printf(",\"priced_ms\":%.6f", r->now_ms);
		else
			printf(",\"priced_ms\":null");
		printf(",\"findings\":[");
		for (unsigned i = 0; i < r->n; i++) {
			load_clients(db, id, &r->f[i], cn);
			printf("%s", i ? "," : "");
			json_finding(r, &r->f[i], cn);
		}
		printf("]}\n");
		return;
	}
	fmt_ms(a, sizeof a, r->rec_ms);
	fmt_ms(b, sizeof b, r->now_ms);
	printf("%s trace %lld: %llu commands, %s recorded", dbpath, (long long)id,
	       (unsigned long long)r->commands, a);
	if (r->priced)
		printf(", %s priced on %s", b, prof);
	printf("\n");
	if (!r->n) {
		printf("nothing to change: none of the patterns of docs/advise.md is in this "
		       "trace\n");
		return;
	}
	printf("%u finding%s, the largest saving first:\n", r->n, r->n == 1 ? "" : "s");
	for (unsigned i = 0; i < r->n; i++) {
		load_clients(db, id, &r->f[i], cn);
		printf("\n");
		print_finding(i, r, &r->f[i], cn, prof);
	}
}

static int run(int argc, char **argv)
{
	const char *trace_arg = NULL, *profname = NULL, *from;
	int json = 0, k, ret = 1;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_advise, argc, argv);
	while ((k = cli_next(&p)) > 0) {
		if (k == O_TRACE)
			trace_arg = p.arg;
		else if (k == O_PROFILE)
			profname = p.arg;
		else if (k == O_JSON)
			json = 1;
	}
	if (k < 0)
		return EXIT_USAGE;
	const char *dbpath = cli_db_operand(&p);
	if (!dbpath)
		return EXIT_USAGE;
	sqlite3 *db = cli_open_db("advise", dbpath, 0);
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
	if (profname && profile_resolve(db, profname, &prof, &from, err, sizeof err)) {
		die("advise", "%s", err);
		goto out;
	}
	if (advise_load(db, id, &cmds, &n)) {
		die("advise", "%s: trace %lld: %s", dbpath, (long long)id, sqlite3_errmsg(db));
		goto out;
	}
	if (!(r = malloc(sizeof *r))) {
		die("advise", "out of memory");
		goto out;
	}
	advise_run(cmds, n, profname ? &prof : NULL, r);
	output(db, dbpath, id, r, profname ? prof.name : NULL, json);
	ret = 0;
out:
	free(r);
	free(cmds);
	profile_release(&prof);
	sqlite3_close(db);
	return ret;
}
