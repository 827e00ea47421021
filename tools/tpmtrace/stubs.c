#include "cli.h"
static int todo(int argc, char **argv) { (void)argc; return die(argv[0], "not implemented yet"); }
const struct subcommand subcmd_record = {"record", todo, "record TPM traffic", "usage\n"};
const struct subcommand subcmd_list = {"list", todo, "list traces", "usage\n"};
const struct subcommand subcmd_stats = {"stats", todo, "latency statistics", "usage\n"};
const struct subcommand subcmd_show = {"show", todo, "decoded commands", "usage\n"};
const struct subcommand subcmd_sql = {"sql", todo, "run SQL", "usage\n"};
const struct subcommand subcmd_verify = {"verify", todo, "integrity check", "usage\n"};
