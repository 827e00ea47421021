#include <malloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
	X(sql) \
	X(verify) \
	X(import) \
	X(export) \
	X(pcrs) \
	X(replay) \
	X(strip) \
	X(predict) \
	X(profile) \
	X(calibrate) \
	X(report)
// clang-format on

#define DECLARE(n) SUBCOMMAND(n);
SUBCOMMANDS(DECLARE)
#undef DECLARE

static const struct subcommand *const table[] = {
#define ENTRY(n) &subcmd_##n,
    SUBCOMMANDS(ENTRY)
#undef ENTRY
};

int die(const char *sub, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "tpmtrace %s: ", sub);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int usage_error(const struct subcommand *sc, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "tpmtrace %s: ", sc->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'tpmtrace %s --help'.\n", sc->name);
	return EXIT_USAGE;
}

int want_help(const struct subcommand *sc, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(sc->usage, stdout);
			return 1;
		}
	}
	return 0;
}

static void overview(FILE *f)
{
	fprintf(f, "usage: tpmtrace SUBCOMMAND [OPTIONS]\n\n"
		   "Records TPM 2.0 command traffic with timing into SQLite and reports on it.\n\n"
		   "Subcommands:\n");
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		fprintf(f, "  %-10s %s\n", table[i]->name, table[i]->summary);
	fprintf(f, "\nRun 'tpmtrace SUBCOMMAND --help' for its options.\n"
		   "Exit status: 0 ok, 1 error, 2 usage error; 'record -- CMD' returns CMD's "
		   "status.\n");
}

int main(int argc, char **argv)
{
	/* The writer and checkpoint threads would each get a malloc arena of
	 * their own; one shared arena keeps a long recording's memory small. */
	mallopt(M_ARENA_MAX, 1);
	if (argc < 2) {
		overview(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		overview(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("tpmtrace %s\n", TPMTRACE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (!strcmp(argv[1], table[i]->name)) {
			if (want_help(table[i], argc - 1, argv + 1))
				return 0;
			return table[i]->run(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "tpmtrace: '%s' is not a subcommand.\n", argv[1]);
	overview(stderr);
	return EXIT_USAGE;
}
