/* tpmtrace strip: the password-equivalent of a trace (model/trace_strip.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "model/trace_strip.h"

enum { O_TRACE = 256, O_NAME, O_JSON };
static const struct cli_opt opts[] = {
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP},
    {"name", O_NAME, "NAME", 0, "the new trace's name (default: password-equivalent\nof ID)"},
    {"json", O_JSON, NULL, 0,
     "{\"version\":1,\"source\":ID,\"trace\":NEW|null,\"commands\":N,...}"},
};
static const struct cli_form forms[] = {{0, "DB", NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_strip = {
    "strip",
    run,
    "store the password-equivalent of a trace (kernel HMAC sessions removed)",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Stores the password-equivalent of a trace as a new trace (kind 'derived', its\n"
    "parent the source): what a kernel built without HMAC sessions\n"
    "(CONFIG_TCG_TPM2_HMAC=n) would have sent for the same boot. From the kernel's\n"
    "commands (not the firmware's, not user space's: see `tpmtrace attribute`) it\n"
    "removes the null key's registration (CreatePrimary under TPM_RH_NULL,\n"
    "ContextSave, FlushContext), every session set-up (ContextLoad of the null key,\n"
    "StartAuthSession salted with it, FlushContext of it) and every FlushContext of\n"
    "such a session, and turns each command that used the session into the kernel's\n"
    "command without it: an empty password session where the command has an\n"
    "authorization handle (PCR_Extend), none where it has none (GetRandom). Raw bytes\n"
    "are rewritten to match; parameters the kernel encrypted stay as recorded.\n"
    "Everything else is copied: times, latencies, events, clients. Re-expanding the\n"
    "result (`predict`, `replay --policy linux-6.12`) gives the kernel's sessions\n"
    "back; docs/policies.md tells how exactly that was checked. A trace with nothing\n"
    "to strip makes no new trace: strip says so and exits 0 (--json: \"trace\":null).\n",
    NULL,
    "tpmtrace strip boot.db --trace 1\n"
    "tpmtrace predict boot.db --trace latest --profile slb9670-linux-integrity --policy "
    "linux-6.12\n",
};

static int run(int argc, char **argv)
{
	const char *trace_arg = NULL, *name = NULL;
	int json = 0, k, ret = 1;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_strip, argc, argv);
	while ((k = cli_next(&p)) > 0) {
		if (k == O_TRACE)
			trace_arg = p.arg;
		else if (k == O_NAME)
			name = p.arg;
		else if (k == O_JSON)
			json = 1;
	}
	if (k < 0)
		return EXIT_USAGE;
	const char *dbpath = cli_db_operand(&p);
	if (!dbpath)
		return EXIT_USAGE;
	sqlite3 *db = cli_open_db("strip", dbpath, 1);
	if (!db)
		return 1;
	int64_t id = cli_pick_trace("strip", db, trace_arg);
	if (!id)
		goto out;
	char err[512];
	struct strip_result r;
	if (trace_strip(db, id, name, &r, err, sizeof err)) {
		cli_error("strip", "%s", err);
		goto out;
	}
	char own[96] = "";
	if (r.own || r.source_own)
		snprintf(own, sizeof own, "\n  and %llu of %llu own commands (Startup, flushes)",
			 (unsigned long long)r.own, (unsigned long long)r.source_own);
	if (json)
		trace_strip_json(stdout, id, &r);
	else if (!r.trace_id)
		printf(
		    "trace %lld: nothing to strip (no kernel HMAC session, null key registration "
		    "or session\n  flush among its %llu commands); no trace made\n",
		    (long long)id, (unsigned long long)r.source_commands);
	else
		printf(
		    "trace %lld: the password-equivalent of trace %lld: %llu of %llu commands%s;\n"
		    "  removed %llu of the null key's registration, %llu of session set-up, %llu "
		    "session flushes;\n  %llu authorizations turned into passwords or dropped%s\n",
		    (long long)r.trace_id, (long long)id, (unsigned long long)r.commands,
		    (unsigned long long)r.source_commands, own, (unsigned long long)r.registration,
		    (unsigned long long)r.setup, (unsigned long long)r.ends,
		    (unsigned long long)r.rewritten,
		    r.sizes_assumed ? " (sizes assumed for some: no raw bytes stored)" : "");
	ret = 0;
out:
	sqlite3_close(db);
	return ret;
}
