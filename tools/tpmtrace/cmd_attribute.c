/* tpmtrace attribute: firmware, kernel or user space for every command of a
 * VM boot, from the guest kernel's ftrace (db/trace_attribute.h). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/trace_attribute.h"
#include "model/ftrace.h"
#include "recorder/log_reader.h"

static const char usage[] =
    "usage: tpmtrace attribute DB [--trace ID] --ftrace FILE [--json]\n"
    "       tpmtrace attribute --kernel-cmdline\n"
    "\n"
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
    "copy /sys/kernel/tracing/trace out of it as late as possible.\n"
    "\n"
    "Options:\n"
    "  --trace ID         the trace (default: the newest)\n"
    "  --ftrace FILE      the guest's /sys/kernel/tracing/trace\n"
    "  --kernel-cmdline   print the guest kernel's command line words and exit\n"
    "  --json             {\"version\":1,\"trace\":ID,\"firmware\":N,\"kernel\":N,...}\n"
    "  -h, --help         this text\n"
    "\n"
    "Example:\n"
    "  tpmtrace vm-record --db boot.db -- qemu-system-x86_64 ... \\\n"
    "      -append \"console=ttyS0 $(tpmtrace attribute --kernel-cmdline)\"\n"
    "  tpmtrace attribute boot.db --ftrace guest-trace.txt\n"
    "  tpmtrace stats boot.db --by origin\n";

static int run(int argc, char **argv);
const struct subcommand subcmd_attribute = {
    "attribute", run, "tell the firmware's, kernel's and user space's commands of a VM boot",
    usage};

static int run(int argc, char **argv)
{
	const char *trace_arg = NULL, *ftrace = NULL;
	int json = 0, cmdline = 0, o, ret = 1;
	enum { A_TRACE = 1, A_FTRACE, A_CMDLINE, A_JSON };
	static const struct option opts[] = {{"trace", required_argument, 0, A_TRACE},
					     {"ftrace", required_argument, 0, A_FTRACE},
					     {"kernel-cmdline", no_argument, 0, A_CMDLINE},
					     {"json", no_argument, 0, A_JSON},
					     {0, 0, 0, 0}};
	optind = 1;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case A_TRACE:
			trace_arg = optarg;
			break;
		case A_FTRACE:
			ftrace = optarg;
			break;
		case A_CMDLINE:
			cmdline = 1;
			break;
		case A_JSON:
			json = 1;
			break;
		default:
			return usage_error(&subcmd_attribute, "unknown option");
		}
	}
	if (cmdline) {
		if (optind != argc || ftrace || trace_arg)
			return usage_error(&subcmd_attribute,
					   "--kernel-cmdline takes nothing else");
		printf("%s\n", ftrace_guest_cmdline());
		return 0;
	}
	if (optind != argc - 1)
		return usage_error(&subcmd_attribute, "expected one database file");
	if (!ftrace)
		return usage_error(&subcmd_attribute, "give the guest's ftrace with --ftrace FILE");

	char err[512];
	const void *m = NULL;
	size_t len = 0;
	if (log_map_file(ftrace, &m, &len, err, sizeof err))
		return die("attribute", "%s", err);
	sqlite3 *db = cli_open_db("attribute", argv[optind], 1);
	if (!db) {
		log_unmap_file(m, len);
		return 1;
	}
	int64_t id = cli_pick_trace("attribute", db, trace_arg);
	if (!id)
		goto out;
	struct attribute_result r;
	int rc = trace_attribute_ftrace(db, id, m ? m : "", len, ftrace, &r, err, sizeof err);
	if (rc) {
		die("attribute", "%s", err);
		goto out;
	}
	if (json)
		printf("{\"version\":1,\"trace\":%lld,\"commands\":%llu,\"transmissions\":%llu,"
		       "\"firmware\":%llu,\"kernel\":%llu,\"hwrng\":%llu,\"userspace\":%llu,"
		       "\"uncovered\":%llu,\"checked\":%llu,\"first_seq\":%llu,"
		       "\"boundary_moved\":%s}\n",
		       (long long)id, (unsigned long long)r.commands,
		       (unsigned long long)r.transmissions, (unsigned long long)r.firmware,
		       (unsigned long long)r.kernel, (unsigned long long)r.hwrng,
		       (unsigned long long)r.user, (unsigned long long)r.uncovered,
		       (unsigned long long)r.checked, (unsigned long long)r.first_seq,
		       r.boundary_moved ? "true" : "false");
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
	log_unmap_file(m, len);
	return ret;
}
