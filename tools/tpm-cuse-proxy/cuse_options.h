/* tpm-cuse-proxy's options as one table (tools/tpmtrace/cli.h), as tpmtrace's
 * subcommands have them: the table drives the parsing, --help and, through
 * tools/gendoc at build time, tpm-cuse-proxy(8) and its bash completion.
 * Nothing here needs libfuse, so the generator and the unit test
 * (tests/unit/test_cuse_options.c) link it without the device. */
#ifndef TPMTRACE_CUSE_OPTIONS_H
#define TPMTRACE_CUSE_OPTIONS_H

#include "tools/tpmtrace/cli.h"

/* The program's forms (cli_form.mode). */
#define CUSE_MODE_PROXY	  0x1u
#define CUSE_MODE_RESTORE 0x2u
#define CUSE_MODE_PROBE	  0x4u
#define CUSE_MODE_BENCH	  0x8u

/* What the options say, before anything is opened. */
struct cuse_opts {
	const char *backend, *db_path, *trace_name, *probe, *bench, *pidfile;
	const char *name;    /* NULL: not given (tpmproxy0; --restore: every node) */
	const char *dev_dir; /* "/dev" */
	int no_record, foreground, debug, restore, payloads, takeover;
	int excl; /* -1: by the name (tpmrm*: shared), 0 --shared, 1 --exclusive */
	int count, rounds, json, bench_getrandom;
	int mode;   /* -1: not given */
	long gid;   /* -1: not given */
	int initrd; /* argv[0][0] was set to '@' */
};

/* The table: tpm-cuse-proxy --help, tpm-cuse-proxy(8), the completion. */
extern const struct subcommand cuse_proxy_cli;

/* Parses argv into o (defaults first). Returns -1 to go on, else the exit
 * status: 0 after --help (printed), EXIT_USAGE after a usage error
 * (printed, "tpm-cuse-proxy: ..." and a pointer to --help). --initrd
 * rewrites argv[0][0] to '@' at once. */
int cuse_parse_options(int argc, char **argv, struct cuse_opts *o);

#endif
