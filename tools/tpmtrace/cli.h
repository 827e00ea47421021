/* The tpmtrace command: one file per subcommand, one table (main.c). Only this
 * directory turns errors into messages and exit status:
 * 0 ok, 1 error, 2 usage; `record -- CMD` returns CMD's status. */
#ifndef TPMTRACE_CLI_H
#define TPMTRACE_CLI_H

#include <stdio.h>

#define EXIT_USAGE 2

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const char *usage; /* the whole --help text */
};

/* Each subcommand file defines one of these (declared in main.c's table). */
#define SUBCOMMAND(name_) extern const struct subcommand subcmd_##name_

/* Prints "tpmtrace NAME: message" to stderr; returns 1 (for `return die(...)`). */
int die(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the usage error and a pointer to --help; returns EXIT_USAGE. */
int usage_error(const struct subcommand *sc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* True if argv holds -h or --help before any "--"; prints usage then. */
int want_help(const struct subcommand *sc, int argc, char **argv);

#endif
