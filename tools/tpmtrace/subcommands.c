/* The table of subcommands (git's commands[]): `tpmtrace --help` lists them
 * in this order, main() dispatches through it and tools/gendoc generates
 * tpmtrace(1) and the bash completion from it. */
#include "cli.h"

/* One subcommand a line (clang-format would reflow them differently on
 * every run). */
// clang-format off
#define SUBCOMMANDS(X) \
	X(record) \
	X(vm_record) \
	X(attribute) \
	X(list) \
	X(stats) \
	X(show) \
	X(diff) \
	X(sql) \
	X(verify) \
	X(import) \
	X(export) \
	X(pcrs) \
	X(replay) \
	X(strip) \
	X(advise) \
	X(predict) \
	X(profile) \
	X(calibrate) \
	X(report) \
	X(push) \
	X(fleet)
// clang-format on

#define DECLARE(n) SUBCOMMAND(n);
SUBCOMMANDS(DECLARE)
#undef DECLARE

const struct subcommand *const cli_subcommands[] = {
#define ENTRY(n) &subcmd_##n,
    SUBCOMMANDS(ENTRY)
#undef ENTRY
};
const unsigned cli_n_subcommands = CLI_COUNT(cli_subcommands);
