/* tpm-cuse-proxy's option table and its parsing into struct cuse_opts
 * (cuse_options.h), through the parser of tools/tpmtrace/cli.c: values are
 * checked there (--count, --rounds, --payloads, --bench-command) or here
 * (--mode octal, --group by name or number), errors are usage errors
 * (exit 2). main.c applies the result to the proxy's state. */
#include "cuse_options.h"

#include <grp.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "model/tpm/redact.h"

enum {
	O_BACKEND = 256,
	O_NAME,
	O_DB,
	O_NOREC,
	O_PAYLOADS,
	O_TNAME,
	O_MODE,
	O_GROUP,
	O_TAKEOVER,
	O_FG = 'f',
	O_EXCL = 300,
	O_SHARED,
	O_DEVDIR,
	O_DEBUG,
	O_PIDFILE,
	O_INITRD,
	O_RESTORE,
	O_PROBE,
	O_BENCH,
	O_BENCH_CMD,
	O_COUNT,
	O_ROUNDS,
	O_JSON
};

#define PROXY	CUSE_MODE_PROXY
#define RESTORE CUSE_MODE_RESTORE
#define PROBE	CUSE_MODE_PROBE
#define BENCH	CUSE_MODE_BENCH

static const struct cli_opt opts[] = {
    {"backend", O_BACKEND, "DEVICE|TCTI", CLI_REQ,
     "the real TPM: a device node (/dev/tpmrm0: each open\n"
     "of /dev/NAME gets its own backend open, i.e. its own\n"
     "resource manager space; /dev/tpm0: one open shared),\n"
     "swtpm:path=SOCK, swtpm:host=H,port=P, or any tpm2-tss\n"
     "TCTI string (mssim:host=H,port=P, tabrmd, ...)",
     "/dev/tpmrm0 /dev/tpm0 swtpm:path= swtpm:host= mssim:host= tabrmd", 0, 0, PROXY},
    {"name", O_NAME, "NAME", 0,
     "device name under /dev (default tpmproxy0). Names\n"
     "starting with tpmrm allow many opens; others one at\n"
     "a time (EBUSY), as the kernel's /dev/tpmrm0 and\n"
     "/dev/tpm0 do. With --restore: the node to put back\n"
     "(default: every *.real node that is a kernel TPM\n"
     "device)",
     NULL, 0, 0, PROXY | RESTORE},
    {"db", O_DB, "FILE", CLI_REQ, "database (created 0600 if missing)", "@file", 0, 0, PROXY, 1},
    {"no-record", O_NOREC, NULL, 0, "forward only, record nothing (for comparisons)", NULL, 0, 0,
     PROXY, 1},
    {"payloads", O_PAYLOADS, "MODE", CLI_CHOICE,
     "none, redacted (default: raw bytes, secrets zeroed)\n"
     "or full",
     "none redacted full", 0, 0, PROXY},
    {"trace-name", O_TNAME, "NAME", 0, "a name for the trace", NULL, 0, 0, PROXY},
    {"mode", O_MODE, "OCTAL", 0,
     "mode of /dev/NAME (default 0600, or the original's\n"
     "with --takeover)",
     NULL, 0, 0, PROXY},
    {"group", O_GROUP, "GROUP", 0, "group of /dev/NAME (name or number)", NULL, 0, 0, PROXY},
    {"takeover", O_TAKEOVER, NULL, 0,
     "serve under the kernel node's own name: /dev/NAME is\n"
     "moved to /dev/NAME.real and swapped with the CUSE\n"
     "node in one step; on exit (SIGTERM, SIGINT, backend\n"
     "gone) it is put back. A guardian process puts it\n"
     "back if the proxy is killed; --restore does the same\n"
     "by hand or from ExecStopPost",
     NULL, 0, 0, PROXY},
    {"foreground", O_FG, NULL, 0,
     "stay in the foreground (default: detach once\n"
     "/dev/NAME is ready, so a boot script can go on as\n"
     "soon as it returns)",
     NULL, 0, 0, PROXY},
    {"exclusive", O_EXCL, NULL, 0, "one open at a time (EBUSY), whatever the name", NULL, 0, 0,
     PROXY, 2},
    {"shared", O_SHARED, NULL, 0, "many opens at a time, whatever the name", NULL, 0, 0, PROXY, 2},
    {"dev-dir", O_DEVDIR, "DIR", 0, "where device nodes live (default /dev)", "@dir", 0, 0,
     PROXY | RESTORE},
    {"debug", O_DEBUG, NULL, 0, "libfuse debug output (implies --foreground)", NULL, 0, 0, PROXY},
    {"pidfile", O_PIDFILE, "FILE", 0,
     "write the (detached) proxy's pid to FILE, removed at\n"
     "exit",
     "@file", 0, 0, PROXY},
    {"initrd", O_INITRD, NULL, 0,
     "keep running across the switch to the real root\n"
     "(argv[0] starts with '@', as systemd wants of root\n"
     "storage daemons)",
     NULL, 0, 0, PROXY},
    {"restore", O_RESTORE, NULL, CLI_REQ, "put DIR/NAME.real back as DIR/NAME and exit", NULL, 0, 0,
     RESTORE},
    {"probe", O_PROBE, "DEVICE", CLI_REQ,
     "print how DEVICE answers good and bad writes, reads\n"
     "and polls (to compare a CUSE node with the kernel's)",
     "@file", 0, 0, PROBE},
    {"bench", O_BENCH, "LIST", CLI_REQ,
     "median round trip (write+read) of one command on\n"
     "each device of the comma-separated LIST (at most 8),\n"
     "interleaved in rounds",
     "@file", 0, 0, BENCH},
    {"bench-command", O_BENCH_CMD, "CMD", CLI_CHOICE,
     "extend (PCR_Extend of PCR 16, the default) or\n"
     "getrandom (GetRandom of 16 bytes)",
     "extend getrandom", 0, 0, BENCH},
    {"count", O_COUNT, "N", CLI_NUM, "commands per device per round (default 1)", NULL, 1, INT_MAX,
     BENCH},
    {"rounds", O_ROUNDS, "R", CLI_NUM, "rounds (default 1000)", NULL, 1, INT_MAX, BENCH},
    {"json", O_JSON, NULL, 0, "the medians as JSON", NULL, 0, 0, BENCH},
};

static const struct cli_form forms[] = {
    {PROXY, NULL, NULL},
    {RESTORE, NULL, NULL},
    {PROBE, NULL, NULL},
    {BENCH, NULL, NULL},
};

const struct subcommand cuse_proxy_cli = {
    .name = "tpm-cuse-proxy",
    .program = "tpm-cuse-proxy",
    .summary = "a TPM character device that records every command it forwards",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    .description = "Serves a CUSE character device /dev/NAME that behaves like the kernel's\n"
		   "TPM devices: a write carries one whole command, a read returns the\n"
		   "response (or the part asked for, the rest on the next read), a second\n"
		   "write before the response is read fails with EBUSY, O_NONBLOCK and poll\n"
		   "work. Every command is forwarded to the backend, one at a time, and\n"
		   "recorded into a tpmtrace database with its timing and the process that\n"
		   "sent it. --restore, --probe and --bench need no CUSE device.\n",
    .more = "Exit status: 0 on a clean stop (SIGTERM, SIGINT) once the database is\n"
	    "complete, 1 on an error, 2 on a usage error.\n",
    .examples =
	"tpm-cuse-proxy --backend /dev/tpmrm0 --name tpmproxy0 --db /run/tpm.db --mode 0660 "
	"--group tss\n"
	"TPM2TOOLS_TCTI=device:/dev/tpmproxy0 tpm2_pcrread sha256:0\n"
	"tpm-cuse-proxy --backend /dev/tpm0 --name tpm0 --takeover --db /run/boot.db\n"
	"tpm-cuse-proxy --restore --name tpm0\n",
};

static int parse_group(const char *s, long *gid)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s && !*end && v >= 0) {
		*gid = v;
		return 0;
	}
	struct group *gr = getgrnam(s);
	if (!gr)
		return -1;
	*gid = gr->gr_gid;
	return 0;
}

/* The value of option key (p->arg, p->num) into o. Returns -1 to go on,
 * else the exit status. */
static int apply_option(const struct cli_parse *p, int key, char **argv, struct cuse_opts *o)
{
	const struct subcommand *sc = &cuse_proxy_cli;
	char *end;
	switch (key) {
	case O_BACKEND:
		o->backend = p->arg;
		break;
	case O_NAME:
		o->name = p->arg;
		break;
	case O_DB:
		o->db_path = p->arg;
		break;
	case O_NOREC:
		o->no_record = 1;
		break;
	case O_PAYLOADS:
		o->payloads = tpm_payload_mode_parse(p->arg);
		break;
	case O_TNAME:
		o->trace_name = p->arg;
		break;
	case O_MODE: {
		long m = strtol(p->arg, &end, 8);
		if (*end || m < 0 || m > 07777)
			return cli_usage_error(sc, "--mode takes an octal mode, not '%s'", p->arg);
		o->mode = (int)m;
		break;
	}
	case O_GROUP:
		if (parse_group(p->arg, &o->gid))
			return cli_usage_error(sc, "--group: no group '%s'", p->arg);
		break;
	case O_TAKEOVER:
		o->takeover = 1;
		break;
	case O_FG:
		o->foreground = 1;
		break;
	case O_EXCL:
		o->excl = 1;
		break;
	case O_SHARED:
		o->excl = 0;
		break;
	case O_DEVDIR:
		o->dev_dir = p->arg;
		break;
	case O_DEBUG:
		o->debug = o->foreground = 1;
		break;
	case O_PIDFILE:
		o->pidfile = p->arg;
		break;
	case O_INITRD:
		/* systemd leaves processes whose argv[0] starts with '@'
		 * running across the switch to the real root
		 * (https://systemd.io/ROOT_STORAGE_DAEMONS/). */
		argv[0][0] = '@';
		o->initrd = 1;
		break;
	case O_RESTORE:
		o->restore = 1;
		break;
	case O_PROBE:
		o->probe = p->arg;
		break;
	case O_BENCH:
		o->bench = p->arg;
		break;
	case O_BENCH_CMD:
		o->bench_getrandom = !strcmp(p->arg, "getrandom");
		break;
	case O_COUNT:
		o->count = (int)p->num;
		break;
	case O_ROUNDS:
		o->rounds = (int)p->num;
		break;
	case O_JSON:
		o->json = 1;
		break;
	}
	return -1;
}

int cuse_parse_options(int argc, char **argv, struct cuse_opts *o)
{
	struct cli_parse p;
	int k, rc;

	*o = (struct cuse_opts){.dev_dir = "/dev",
				.payloads = PAYLOADS_REDACTED,
				.excl = -1,
				.count = 1,
				.rounds = 1000,
				.mode = -1,
				.gid = -1};
	if (cli_want_help(&cuse_proxy_cli, argc, argv))
		return 0;
	cli_parse_init(&p, &cuse_proxy_cli, argc, argv);
	while ((k = cli_next(&p)) > 0)
		if ((rc = apply_option(&p, k, argv, o)) >= 0)
			return rc;
	if (k < 0)
		return EXIT_USAGE;
	if (p.ind < argc)
		return cli_usage_error(&cuse_proxy_cli, "unexpected argument '%s'", argv[p.ind]);
	return -1;
}
