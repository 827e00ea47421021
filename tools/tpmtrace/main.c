/* tpmtrace's entry point: main wraps stdout so that a failed write (ENOSPC,
 * EIO, EPIPE) turns the exit status into 1 with the reason, then run prints the
 * overview (--help) or the version, or finds the subcommand in cli_subcommands
 * (subcommands.c), answers its --help from its option table (cli.h) and runs
 * it. It also sets one malloc arena for the writer threads and quiets
 * tpm2-tss's own error log (TSS2_LOG) unless the user set it. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"

static void overview(FILE *f)
{
	fprintf(f, "usage: tpmtrace SUBCOMMAND [OPTIONS]\n\n"
		   "Records TPM 2.0 command traffic with timing into SQLite and reports on it.\n\n"
		   "Subcommands:\n");
	for (unsigned i = 0; i < cli_n_subcommands; i++)
		fprintf(f, "  %-10s %s\n", cli_subcommands[i]->name, cli_subcommands[i]->summary);
	fprintf(f, "\nRun 'tpmtrace SUBCOMMAND --help' for its options.\n"
		   "Exit status: 0 ok, 1 error, 2 usage error; 'record -- CMD' returns CMD's "
		   "status.\n");
}

/* Standard output checked once at the end, as git's run_builtin does: a
 * write that failed (ENOSPC, EIO, EPIPE) makes the exit status 1 with the
 * reason, whatever the subcommand returned. stdio forgets a failed write's
 * errno once its buffer is dropped, so stdout writes through stdout_write,
 * which keeps the first one. A closed stdout that nothing was written to is
 * not an error. */
static int stdout_errno;

static ssize_t stdout_write(void *cookie, const char *buf, size_t n)
{
	size_t done = 0;
	(void)cookie;
	while (done < n) {
		ssize_t k = write(1, buf + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!stdout_errno)
				stdout_errno = k < 0 ? errno : EIO;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)k;
	}
	return (ssize_t)n;
}

static void stdout_wrap(void)
{
	if (fcntl(1, F_GETFD) < 0)
		return;
	FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){.write = stdout_write});
	if (!f)
		return;
	setvbuf(f, NULL, isatty(1) ? _IOLBF : _IOFBF, BUFSIZ);
	stdout = f;
}

static int stdout_checked(int rc)
{
	struct stat st;
	errno = 0;
	int bad = fflush(stdout) != 0 || ferror(stdout);
	int e = errno;
	if (!bad && fstat(1, &st) == 0) {
		errno = 0;
		bad = fclose(stdout) != 0;
		e = errno;
	}
	if (!bad)
		return rc;
	e = stdout_errno ? stdout_errno : e ? e : EIO;
	fprintf(stderr, "tpmtrace: cannot write standard output: %s\n", strerror(e));
	return rc ? rc : 1;
}

static int run(int argc, char **argv);

int main(int argc, char **argv)
{
	stdout_wrap();
	return stdout_checked(run(argc, argv));
}

static int run(int argc, char **argv)
{
	/* The writer and checkpoint threads would each get a malloc arena of
	 * their own; one shared arena keeps a long recording's memory small. */
	mallopt(M_ARENA_MAX, 1);
	/* tpm2-tss logs its own errors to stderr ("ERROR:tcti:..."); tpmtrace
	 * reports them in its one line. TSS2_LOG set by the user wins. */
	setenv("TSS2_LOG", "all+NONE", 0);
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
	for (unsigned i = 0; i < cli_n_subcommands; i++) {
		if (!strcmp(argv[1], cli_subcommands[i]->name)) {
			if (cli_want_help(cli_subcommands[i], argc - 1, argv + 1))
				return 0;
			return cli_subcommands[i]->run(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "tpmtrace: '%s' is not a subcommand; 'tpmtrace --help' lists them.\n",
		cli_name(argv[1]));
	return EXIT_USAGE;
}
