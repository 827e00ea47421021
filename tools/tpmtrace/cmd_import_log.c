/* Temporary: `tpmtrace import-log ima|tcglog ...` until the importers are
 * wired into `tpmtrace import` (tools/tpmtrace/cmd_import.c). */
#include <string.h>

#include "cli.h"
#include "import_logs.h"

SUBCOMMAND(import_log);

static int run_import_log(int argc, char **argv)
{
	if (argc < 2)
		return usage_error(&subcmd_import_log, "which log: ima or tcglog");
	if (!strcmp(argv[1], "ima"))
		return import_ima_main(argc - 1, argv + 1);
	if (!strcmp(argv[1], "tcglog"))
		return import_tcglog_main(argc - 1, argv + 1);
	return usage_error(&subcmd_import_log, "unknown log kind '%s' (ima or tcglog)", argv[1]);
}

const struct subcommand subcmd_import_log = {
    "import-log", run_import_log, "import IMA lists / TCG event logs (temporary)",
    "usage: tpmtrace import-log ima FILE... --db DB [--name N] [--kernel-rule RULE]\n"
    "                                [--banks LIST] [--format F] [--list-alg ALG]\n"
    "                                [--strict] [--quiet]\n"
    "       tpmtrace import-log tcglog FILE... --db DB [--name N] [--strict] [--quiet]\n"
    "\n"
    "Temporary entry point of the IMA and TCG log importers; they become\n"
    "'tpmtrace import ima' and 'tpmtrace import tcglog' (docs/importers.md).\n"
    "\n"
    "ima: Linux IMA lists (binary or ascii, native or canonical byte order,\n"
    "per-bank *_sha256 files), one trace per FILE; one TPM2_PCR_Extend per entry.\n"
    "  --kernel-rule RULE  per-bank (Linux >= 5.8, default), padded-sha1 (4.10-5.7),\n"
    "                      sha1-only (older)\n"
    "  --banks LIST        PCR banks of the TPM (default sha1,sha256)\n"
    "  --format F          auto (default), binary, ascii\n"
    "  --list-alg ALG      digest of the list (default: file name suffix, else detected)\n"
    "tcglog: TCG firmware event logs (SHA-1 or crypto-agile), one trace per FILE;\n"
    "TPM2_Startup at the StartupLocality, then one TPM2_PCR_Extend per event.\n"
    "Both:\n"
    "  --db DB             database (created if missing)\n"
    "  --name N            trace name (default: the file name)\n"
    "  --strict            a truncated last record (and, for ima, a template hash\n"
    "                      mismatch) is an error: exit 1, trace status 'incomplete'\n"
    "  --quiet             no summary line\n"
    "\n"
    "Example:\n"
    "  tpmtrace import-log tcglog binary_bios_measurements --db boot.db\n"
    "  tpmtrace import-log ima binary_runtime_measurements --db boot.db\n"};
