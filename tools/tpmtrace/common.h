/* Helpers shared by the subcommands that read a database. */
#ifndef TPMTRACE_CLI_COMMON_H
#define TPMTRACE_CLI_COMMON_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <sqlite3.h>

/* Opens DB read-only (or read-write) and prints the error itself. */
sqlite3 *cli_open_db(const char *sub, const char *path, int write);
/* The trace to work on: the given id (checked to exist) or the newest.
 * Returns 0 and prints an error when there is none. */
int64_t cli_pick_trace(const char *sub, sqlite3 *db, const char *arg);
/* Prints s as a JSON string (quoted, escaped). */
void json_str(FILE *f, const char *s);
/* s for a terminal: control characters, DEL, C1 controls and bytes that are
 * not UTF-8 as \xNN (a backslash as \\), so that a name or detail from a
 * database or a log never reaches the terminal as an escape sequence. Writes
 * at most len bytes into buf (cut with "..." when longer) and returns it; NULL
 * gives "". */
const char *safe_text(const char *s, char *buf, size_t len);
/* The same, printed. */
void print_safe(FILE *f, const char *s);
/* Milliseconds with three decimals from ns. */
double ns_to_ms(double ns);

/* Runs argv[0] with argv as a child of the recorder: the signal mask
 * restored to mask, SIGPIPE at its default, and with tcti (unless NULL) in
 * TPM2TOOLS_TCTI, TCTI and TPMTRACE_TCTI. Returns the pid, or -1 with the
 * error printed for subcommand sub. */
pid_t cli_spawn(const char *sub, char *const argv[], const sigset_t *mask, const char *tcti);
/* A child's wait status as a shell would give it: its exit code, or 128 +
 * the signal that ended it. */
int cli_exit_status(int status);

/* A progress bar with rate and ETA on stderr, for long work. It shows only
 * when stderr is a terminal and CI is not set (quiet when piped or under CI);
 * progress_update() redraws at most ten times a second. */
struct progress {
	const char *what; /* "replay", "import" */
	const char *unit; /* "commands", "packets" */
	int enabled, shown;
	uint64_t t_start, t_last;
};
void progress_init(struct progress *p, const char *what, const char *unit, int allowed);
void progress_update(struct progress *p, uint64_t done, uint64_t total);
/* Clears the line if a bar was drawn. */
void progress_done(struct progress *p);

#endif
