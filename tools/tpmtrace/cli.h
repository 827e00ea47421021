/* The tpmtrace command: one file per subcommand, one table (subcommands.c).
 * Only this directory turns errors into messages and exit status:
 * 0 ok, 1 error, 2 usage; `record -- CMD` returns CMD's status.
 *
 * Each subcommand describes its options in one table (struct cli_opt, in the
 * manner of git's parse-options). The same table drives the parsing
 * (getopt_long: --opt VALUE, --opt=VALUE, values checked), the Options
 * section of --help, and - through tools/gendoc at build time - the
 * synopsis and options of tpmtrace(1) and the bash completion. */
#ifndef TPMTRACE_CLI_H
#define TPMTRACE_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#define EXIT_USAGE 2

/* cli_opt.flags */
#define CLI_REQ	   0x01u /* required in its form (the synopsis shows it bare) */
#define CLI_MULTI  0x02u /* may be given several times (synopsis: [...]...) */
#define CLI_NUM	   0x04u /* a whole number from min to max: cli_parse.num */
#define CLI_CHOICE 0x08u /* one of the words in values */
#define CLI_HIDDEN 0x10u /* accepted but not shown (a deprecated spelling) */
#define CLI_REAL   0x20u /* a decimal number from min to max: cli_parse.real */
#define CLI_TRACE  0x40u /* a trace: a positive id, latest or latest-replay */
#define CLI_U64	   0x80u /* an unsigned 64-bit number (decimal, 0x hex): cli_parse.u64 */

struct cli_opt {
	const char *name; /* long name, without "--" */
	int key;	  /* what cli_next returns; a letter is also the short option */
	const char *arg;  /* the value's name in help (ID, FILE); NULL: no value */
	unsigned flags;
	const char *help; /* lines of at most 56 columns, separated by '\n' */
	/* Completion and CLI_CHOICE: words separated by spaces, or one of
	 * @file @dir @profile @policy @policy-all @tcti @command. */
	const char *values;
	long long min, max; /* CLI_NUM, CLI_REAL */
	unsigned modes;	    /* the forms (bits) it belongs to; 0: all */
	unsigned group;	    /* options of one group are alternatives: (a | b) */
};

/* One synopsis line: the operands before the options and after them, and
 * the mode bit the options of this form carry. */
struct cli_form {
	unsigned mode;
	const char *head; /* e.g. "DB", "pcap FILE..." */
	const char *tail; /* e.g. "[-- COMMAND ARGS...]" */
};

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const struct cli_form *forms;
	unsigned n_forms;
	const struct cli_opt *opts;
	unsigned n_opts;
	const char *description; /* after the synopsis */
	const char *more;	 /* after the options (exit status, notes) */
	const char *examples;	 /* one command a line */
	/* Words the first operand takes (import KIND, profile ACTION), for
	 * the completion; NULL when it is a file. */
	const char *first_words;
	int stop_at_operand; /* options end at the first operand (record -- CMD) */
	/* A program of its own driven by a table (tpm-cuse-proxy): its name
	 * stands for "tpmtrace NAME" in usage lines and messages. */
	const char *program;
};

#define CLI_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define CLI_OPTS(a)  .opts = (a), .n_opts = CLI_COUNT(a)
#define CLI_FORMS(a) .forms = (a), .n_forms = CLI_COUNT(a)

/* Each subcommand file defines one of these (listed in subcommands.c). */
#define SUBCOMMAND(name_) extern const struct subcommand subcmd_##name_

/* Every subcommand, in the order `tpmtrace --help` lists them. */
extern const struct subcommand *const cli_subcommands[];
extern const unsigned cli_n_subcommands;

/* "tpmtrace NAME", or sc->program; b (of n bytes) may hold it. */
const char *cli_title(const struct subcommand *sc, char *b, size_t n);
/* Prints "tpmtrace NAME: message" (escaped) to stderr and returns 1; never
 * exits: `return cli_error(...)`, or release and `goto out` (docs/architecture.md,
 * "The command line: names and errors"). */
int cli_error(const char *sub, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the usage error and a pointer to --help ("TITLE: message",
 * "Try 'TITLE --help'."); returns EXIT_USAGE. */
int cli_usage_error(const struct subcommand *sc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* True if argv holds -h or --help before any "--"; prints the help then. */
int cli_want_help(const struct subcommand *sc, int argc, char **argv);
/* The whole --help text of a subcommand. */
void cli_help(FILE *f, const struct subcommand *sc);
/* One synopsis line (without "usage: "): the form's operands and options,
 * wrapped at width with continuation lines indented by indent. */
void cli_synopsis(FILE *f, const struct subcommand *sc, const struct cli_form *fm, int width,
		  int indent);

/* Whether option o is shown in form fm (not hidden, of its mode). */
int cli_in_form(const struct cli_opt *o, const struct cli_form *fm);
/* The synopsis token of option i in form fm: "[--trace ID]", "--profile P",
 * "(--spawn-swtpm | --backend SPEC)" for a group; marks what it covered in
 * *done. */
void cli_option_token(const struct subcommand *sc, const struct cli_form *fm, unsigned i, char *tok,
		      size_t n, uint64_t *done);
/* Each option token of a form's synopsis, in order: the required options and
 * groups first, then the optional ones (usage lines and the man page). */
void cli_synopsis_options(const struct subcommand *sc, const struct cli_form *fm,
			  void (*emit)(void *ctx, const char *tok), void *ctx);

#define CLI_MAX_OPTS 48

/* Parsing from the table:
 *	struct cli_parse p;
 *	cli_parse_init(&p, &subcmd_x, argc, argv);
 *	while ((k = cli_next(&p)) > 0)
 *		switch (k) { case O_TRACE: trace = p.arg; ... }
 *	if (k < 0)
 *		return EXIT_USAGE;	(the error is printed)
 *	operands: argv[p.ind .. argc) */
struct cli_parse {
	const struct subcommand *sc;
	int argc;
	char **argv;
	const char *arg;	   /* the option's value */
	long long num;		   /* CLI_NUM */
	double real;		   /* CLI_REAL */
	uint64_t u64;		   /* CLI_U64 */
	const struct cli_opt *opt; /* the option just returned */
	uint64_t seen;		   /* bit i: opts[i] was given */
	int ind;		   /* the first operand, once cli_next returned 0 */
	struct option lo[CLI_MAX_OPTS + 2];
	char shorts[2 * CLI_MAX_OPTS + 8];
};
void cli_parse_init(struct cli_parse *p, const struct subcommand *sc, int argc, char **argv);
int cli_next(struct cli_parse *p);
/* After parsing: a usage error for an option given that does not belong
 * to mode (why: "with --pcap-live", "for import ima"). Returns 0 or
 * EXIT_USAGE (printed). */
int cli_only_mode(const struct cli_parse *p, unsigned mode, const char *why);
/* Whether the option with this key was given. */
int cli_given(const struct cli_parse *p, int key);
/* After parsing, for the subcommands that take one DB operand: the operand,
 * or NULL with the usage error printed (none given, or more than one). */
const char *cli_db_operand(const struct cli_parse *p);

#endif
