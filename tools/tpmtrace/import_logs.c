/* tpmtrace import ima|tcglog: measurement logs into traces of synthesized
 * TPM2_PCR_Extend commands (recorder/ima_import.c, recorder/tcglog_import.c). */
#include "import_logs.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "common.h"
#include "recorder/ima_import.h"
#include "recorder/tcglog_import.h"

#define SUB "import"

const char import_ima_usage[] =
    "usage: tpmtrace import ima FILE... --db DB [--name N] [--kernel-rule RULE]\n"
    "                           [--banks LIST] [--format auto|binary|ascii]\n"
    "                           [--list-alg ALG] [--strict] [--quiet] [--follow]\n"
    "\n"
    "Imports Linux IMA measurement lists (binary_runtime_measurements,\n"
    "ascii_runtime_measurements, or the per-bank *_sha256 files of Linux >= 6.10),\n"
    "one trace per FILE. Each entry becomes the TPM2_PCR_Extend the kernel sent\n"
    "(one digest per bank) with a success response, flagged as synthetic time\n"
    "(latency 0), and an 'ima' event row holding the entry as the ascii list\n"
    "shows it. Templates: ima, ima-ng, ima-ngv2, ima-sig, ima-sigv2, ima-buf,\n"
    "ima-modsig, evm-sig (binary only) and custom format strings. Byte order\n"
    "(native or ima_canonical_fmt) is detected. Every template hash is checked\n"
    "against its template data; mismatches are reported with entry and offset.\n"
    "\n"
    "  --db DB             database (created if missing)\n"
    "  --name N            trace name (default: the file name)\n"
    "  --kernel-rule RULE  what the kernel extended into each bank:\n"
    "                        per-bank     Linux >= 5.8: H_bank(template data) (default)\n"
    "                        padded-sha1  4.10-5.7: SHA-1 template hash, zero-padded\n"
    "                        sha1-only    older: only the SHA-1 bank\n"
    "                      violations extend 0xff (bank width for per-bank, else 20 bytes)\n"
    "  --banks LIST        PCR banks of the TPM (default sha1,sha256)\n"
    "  --format F          auto (default), binary or ascii\n"
    "  --list-alg ALG      digest of the list (default: from a _sha256 style file name\n"
    "                      suffix, else detected)\n"
    "  --strict            a truncated last record or a template hash mismatch is an\n"
    "                      error (exit 1, trace status 'incomplete')\n"
    "  --quiet             no summary line\n"
    "  --follow            read a FIFO or character device to its end (at most\n"
    "                      1 GiB); without it they are refused\n"
    "\n"
    "Example:\n"
    "  tpmtrace import ima /sys/kernel/security/ima/binary_runtime_measurements \\\n"
    "      --db boot.db --kernel-rule per-bank --banks sha1,sha256\n"
    "  tpmtrace pcrs boot.db --expect pcrs.yaml\n";

const char import_tcglog_usage[] =
    "usage: tpmtrace import tcglog FILE... --db DB [--name N] [--strict] [--quiet]\n"
    "                              [--follow]\n"
    "\n"
    "Imports TCG firmware event logs (binary_bios_measurements), SHA-1 (TCG 1.2)\n"
    "or crypto-agile (banks from the Spec ID Event03 header), one trace per FILE:\n"
    "a TPM2_Startup(CLEAR) at the StartupLocality of the log (locality 0 if it\n"
    "has none; 3 makes PCR 0 start at 00..03), then one TPM2_PCR_Extend per\n"
    "measured event with all of its digests. EV_NO_ACTION events are not\n"
    "extended. Every event is kept as a 'tcg' event row (type and description).\n"
    "\n"
    "  --db DB     database (created if missing)\n"
    "  --name N    trace name (default: the file name)\n"
    "  --strict    a truncated last event is an error (exit 1)\n"
    "  --quiet     no summary line\n"
    "  --follow    read a FIFO or character device to its end (at most 1 GiB);\n"
    "              without it they are refused\n"
    "\n"
    "Example:\n"
    "  tpmtrace import tcglog /sys/kernel/security/tpm0/binary_bios_measurements \\\n"
    "      --db boot.db\n"
    "  tpmtrace pcrs boot.db --trace 1 --expect <(tpm2_pcrread)\n";

static void print_msg(void *ctx, int sev, const char *m)
{
	char buf[1024];
	(void)ctx;
	/* Warnings quote the log (names, template names): escaped. */
	fprintf(stderr, "tpmtrace " SUB ": %s: %s\n", sev ? "error" : "warning",
		safe_text(m, buf, sizeof buf));
}

static int help_or(int argc, char **argv, const char *usage)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage, stdout);
			return 1;
		}
	return 0;
}

/* The options both importers take. */
struct log_cli {
	const char *db, *name;
	int strict, quiet, follow;
};
#define LOG_CLI_OPTIONS                                                                            \
	{"db", required_argument, NULL, 'd'}, {"name", required_argument, NULL, 'n'},              \
	    {"strict", no_argument, NULL, 's'}, {"follow", no_argument, NULL, 'F'},                \
	{                                                                                          \
		"quiet", no_argument, NULL, 'q'                                                    \
	}

/* Takes --db, --name, --strict or --quiet: 1 if c was one of them. */
static int log_cli_opt(int c, struct log_cli *o)
{
	switch (c) {
	case 'd':
		o->db = optarg;
		return 1;
	case 'n':
		o->name = optarg;
		return 1;
	case 's':
		o->strict = 1;
		return 1;
	case 'q':
		o->quiet = 1;
		return 1;
	case 'F':
		o->follow = 1;
		return 1;
	}
	return 0;
}

/* After the options: 0, or EXIT_USAGE and why when --db or FILE is missing
 * (c: getopt's last answer, an unknown option when not -1). */
static int log_cli_check(const struct log_cli *o, int c, int argc, const char *kind)
{
	if (c == -1 && o->db && optind < argc)
		return 0;
	if (c == -1)
		fprintf(stderr, "tpmtrace import %s: %s\n", kind,
			!o->db ? "--db is required" : "no FILE given");
	fprintf(stderr, "Try 'tpmtrace import %s --help'.\n", kind);
	return EXIT_USAGE;
}

/* One file's import failed: why, and the trace it left behind, if any. */
static void log_cli_failed(const char *err, int64_t id)
{
	die(SUB, "%s", err);
	if (id)
		fprintf(stderr, "tpmtrace " SUB ": trace %lld kept as 'incomplete'\n",
			(long long)id);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int import_ima_main(int argc, char **argv)
{
	static const struct option opts[] = {
	    LOG_CLI_OPTIONS,
	    {"kernel-rule", required_argument, NULL, 'k'},
	    {"banks", required_argument, NULL, 'b'},
	    {"format", required_argument, NULL, 'f'},
	    {"list-alg", required_argument, NULL, 'a'},
	    {NULL, 0, NULL, 0},
	};
	struct ima_import_cfg cfg = {.msg = print_msg};
	struct log_cli o = {0};
	char err[512];
	int c, rc = 0;

	if (help_or(argc, argv, import_ima_usage))
		return 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (log_cli_opt(c, &o))
			continue;
		switch (c) {
		case 'k':
			if (ima_rule_parse(optarg, &cfg.opts.rule))
				return die(SUB,
					   "unknown --kernel-rule '%s' (per-bank, padded-sha1, "
					   "sha1-only)",
					   optarg);
			break;
		case 'b': {
			int n = pcr_alg_parse_list(optarg, cfg.opts.banks, PCR_MAX_BANKS, err,
						   sizeof err);
			if (n < 0)
				return die(SUB, "--banks: %s", err);
			cfg.opts.n_banks = (unsigned)n;
			break;
		}
		case 'f':
			if (!strcmp(optarg, "auto"))
				cfg.opts.format = IMA_FMT_AUTO;
			else if (!strcmp(optarg, "binary"))
				cfg.opts.format = IMA_FMT_BINARY;
			else if (!strcmp(optarg, "ascii"))
				cfg.opts.format = IMA_FMT_ASCII;
			else
				return die(SUB, "unknown --format '%s' (auto, binary, ascii)",
					   optarg);
			break;
		case 'a': {
			const struct pcr_alg *a = pcr_alg_by_name(optarg);
			if (!a)
				return die(SUB, "unknown --list-alg '%s'", optarg);
			cfg.opts.list_alg = a->alg;
			break;
		}
		default:
			return log_cli_check(&o, c, argc, "ima");
		}
	}
	if (log_cli_check(&o, c, argc, "ima"))
		return EXIT_USAGE;
	cfg.db_path = o.db;
	cfg.name = o.name;
	cfg.strict = o.strict;
	cfg.follow = o.follow;
	for (int i = optind; i < argc; i++) {
		struct ima_result res;
		int64_t id = 0;
		double t0 = now_s();
		if (ima_import_file(argv[i], &cfg, &id, &res, err, sizeof err)) {
			log_cli_failed(err, id);
			rc = 1;
			continue;
		}
		if (!o.quiet) {
			const struct pcr_alg *la = pcr_alg_by_id(res.list_alg);
			printf("%s: trace %lld: %llu entries (%llu violations, %llu template hash "
			       "mismatches, %llu for PCRs beyond 23 not extended%s), %s list%s, %s "
			       "digests, kernel rule %s, %.2f s\n",
			       argv[i], (long long)id, (unsigned long long)res.entries,
			       (unsigned long long)res.violations,
			       (unsigned long long)res.mismatches, (unsigned long long)res.bad_pcr,
			       res.tail.truncated ? ", truncated last record ignored" : "",
			       res.ascii ? "ascii" : "binary",
			       res.ascii	? ""
			       : res.big_endian ? " big-endian"
						: " little-endian",
			       la ? la->name : "?", ima_rule_str(cfg.opts.rule), now_s() - t0);
		}
	}
	return rc;
}

int import_tcglog_main(int argc, char **argv)
{
	static const struct option opts[] = {LOG_CLI_OPTIONS, {NULL, 0, NULL, 0}};
	struct tcg_import_cfg cfg = {.msg = print_msg};
	struct log_cli o = {0};
	char err[512];
	int c, rc = 0;

	if (help_or(argc, argv, import_tcglog_usage))
		return 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
		if (!log_cli_opt(c, &o))
			return log_cli_check(&o, c, argc, "tcglog");
	if (log_cli_check(&o, c, argc, "tcglog"))
		return EXIT_USAGE;
	cfg.db_path = o.db;
	cfg.name = o.name;
	cfg.strict = o.strict;
	cfg.follow = o.follow;
	for (int i = optind; i < argc; i++) {
		struct tcg_result res;
		int64_t id = 0;
		if (tcg_import_file(argv[i], &cfg, &id, &res, err, sizeof err)) {
			log_cli_failed(err, id);
			rc = 1;
			continue;
		}
		if (!o.quiet) {
			char banks[128] = "sha1";
			size_t k = 0;
			for (unsigned b = 0; b < res.n_algs && k < sizeof banks - 16; b++) {
				const struct pcr_alg *a = pcr_alg_by_id(res.algs[b]);
				k += (size_t)snprintf(banks + k, sizeof banks - k, "%s%s",
						      b ? "," : "", a ? a->name : "?");
			}
			printf("%s: trace %lld: %llu events, %llu extends (%llu for PCRs beyond 23 "
			       "not made), %s format, banks %s, startup locality %d%s\n",
			       argv[i], (long long)id, (unsigned long long)res.events,
			       (unsigned long long)res.extends, (unsigned long long)res.bad_pcr,
			       res.crypto_agile ? "crypto-agile" : "SHA-1", banks,
			       res.startup_locality < 0 ? 0 : res.startup_locality,
			       res.tail.truncated ? ", truncated last event ignored" : "");
		}
	}
	return rc;
}
