/* tpmtrace attribute: firmware, kernel or user space for every command of a
 * VM boot, from the guest kernel's ftrace (recorder/import/trace_attribute.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "recorder/import/trace_attribute.h"
#include "recorder/import/ftrace.h"
#include "recorder/import/log_reader.h"

enum { M_DB = 1, M_CMDLINE = 2 };
enum { O_TRACE = 256, O_FTRACE, O_CMDLINE, O_JSON };
static const struct cli_opt opts[] = {
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP, NULL, 0, 0, M_DB},
    {"ftrace", O_FTRACE, "FILE", CLI_REQ, "the guest's /sys/kernel/tracing/trace", "@file", 0, 0,
     M_DB},
    {"json", O_JSON, NULL, 0, "{\"version\":1,\"trace\":ID,\"firmware\":N,\"kernel\":N,...}", NULL,
     0, 0, M_DB},
    {"kernel-cmdline", O_CMDLINE, NULL, CLI_REQ,
     "print the guest kernel's command line words and exit", NULL, 0, 0, M_CMDLINE},
};
static const struct cli_form forms[] = {{M_DB, "DB", NULL}, {M_CMDLINE, NULL, NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_attribute = {
    "attribute",
    run,
    "tell the firmware's, kernel's and user space's commands of a VM boot",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Tells whose every command of a `tpmtrace vm-record` trace is: the firmware's,\n"
    "the kernel's (its TPM hwrng's reads apart) or user space's. vm-record already\n"
    "ends the firmware's part at the kernel's first command (its TPM probe); this\n"
    "lines the guest kernel's ftrace of its TPM driver up with the trace, one\n"
    "transmission per command: a command sent through /dev/tpm0 or /dev/tpmrm0\n"
    "(tpm_dev_transmit) is user space's, except the kernel's own flush of its session\n"
    "there; one sent by tpm_hwrng_read is the hwrng's; every other is the kernel's.\n"
    "Each transmission inside a function that names its command (tpm2_pcr_extend,\n"
    "tpm2_flush_context, ...) must meet that command in the trace, or nothing is\n"
    "changed. The commands get the clients 'firmware', 'kernel', 'kernel'/'hwrng' and\n"
    "'userspace', which predict, replay, stats --by origin and report read\n"
    "(docs/policies.md); commands after the ftrace's last transmission (the guest's\n"
    "power-off, after it read its trace) keep their client (vm-record's 'guest').\n"
    "An 'attribute' event records the run.\n"
    "\n"
    "The guest must trace from boot on: give its kernel the command line that\n"
    "--kernel-cmdline prints (CONFIG_FUNCTION_GRAPH_TRACER and DYNAMIC_FTRACE), and\n"
    "copy /sys/kernel/tracing/trace out of it as late as possible.\n",
    NULL,
    "tpmtrace attribute --kernel-cmdline\n"
    "tpmtrace attribute boot.db --ftrace guest-trace.txt\n"
    "tpmtrace stats boot.db --by origin\n",
};

static int run(int argc, char **argv)
{
	const char *trace_arg = NULL, *ftrace = NULL;
	int json = 0, k, ret = 1;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_attribute, argc, argv);
	while ((k = cli_next(&p)) > 0) {
		if (k == O_TRACE)
			trace_arg = p.arg;
		else if (k == O_FTRACE)
			ftrace = p.arg;
		else if (k == O_JSON)
			json = 1;
	}
	if (k < 0)
		return EXIT_USAGE;
	if (cli_given(&p, O_CMDLINE)) {
		if ((k = cli_only_mode(&p, M_CMDLINE, "with --kernel-cmdline")))
			return k;
		if (p.ind != argc)
			return cli_usage_error(&subcmd_attribute,
					       "--kernel-cmdline takes nothing else");
		printf("%s\n", ftrace_guest_cmdline());
		return 0;
	}
	const char *dbpath = cli_db_operand(&p);
	if (!dbpath)
		return EXIT_USAGE;
	if (!ftrace)
		return cli_usage_error(&subcmd_attribute,
				       "give the guest's ftrace with --ftrace FILE");

	char err[512];
	const void *m = NULL;
	size_t len = 0;
	if (import_log_map_file(ftrace, 0, &m, &len, NULL, err, sizeof err))
		return cli_error("attribute", "%s", err);
	sqlite3 *db = cli_open_db("attribute", dbpath, 1);
	if (!db) {
		import_log_unmap_file(m, len);
		return 1;
	}
	int64_t id = cli_pick_trace("attribute", db, trace_arg);
	if (!id)
		goto out;
	struct attribute_result r;
	int rc =
	    import_trace_attribute_ftrace(db, id, m ? m : "", len, ftrace, &r, err, sizeof err);
	if (rc) {
		cli_error("attribute", "%s", err);
		goto out;
	}
	if (json)
		import_trace_attribute_json(stdout, id, &r);
	else
		printf("trace %lld: %llu commands: %llu firmware, %llu kernel, %llu the kernel's "
		       "TPM hwrng (reads and their sessions), %llu user space, %llu after the "
		       "ftrace ends (their client unchanged); "
		       "the kernel starts at seq %llu%s; %llu of %llu transmissions checked "
		       "against the command their function names\n",
		       (long long)id, (unsigned long long)r.commands,
		       (unsigned long long)r.firmware, (unsigned long long)r.kernel,
		       (unsigned long long)r.hwrng, (unsigned long long)r.user,
		       (unsigned long long)r.uncovered, (unsigned long long)r.first_seq,
		       r.boundary_moved ? " (not where vm-record saw the kernel's probe)" : "",
		       (unsigned long long)r.checked, (unsigned long long)r.transmissions);
	ret = 0;
out:
	sqlite3_close(db);
	import_log_unmap_file(m, len);
	return ret;
}
