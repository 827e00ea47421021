/* Helpers shared by the subcommands that read a database. */
#ifndef TPMTRACE_CLI_COMMON_H
#define TPMTRACE_CLI_COMMON_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <sqlite3.h>

#include "db/json.h" /* json_str */
#include "db/out.h"
#include "db/trace_pick.h"
#include "db/text.h" /* db_text_safe */

/* Opens DB read-only (or read-write) and prints the error itself. */
sqlite3 *cli_open_db(const char *sub, const char *path, int write);
/* Before a subcommand creates or adds to the database path (record, import,
 * calibrate --db, profile import): its directory must exist (nothing is
 * created but the file), and an existing path must be a tpmtrace database (an
 * empty file is refused too: SQLite would take it for a new database).
 * Returns 0, or 1 with the error printed. */
int cli_db_for_create(const char *sub, const char *path);

/* The trace to work on, one rule for every analysis command (docs/cli.md):
 * arg NULL: db_trace_default (the newest recording or timed import, else the
 * newest untimed import; never a replay, derived or unfinished trace);
 * "latest": the newest trace; "latest-replay": the newest replay; else an id,
 * checked to exist, with a warning when it is unfinished.
 * Returns 0 and prints an error when there is none. */
int64_t cli_pick_trace(const char *sub, sqlite3 *db, const char *arg);
/* The help text of --trace, the same everywhere. */
#define CLI_TRACE_HELP                                                                             \
	"the trace: an id, latest or latest-replay (default:\n"                                    \
	"the newest recording or import; never a replay,\n"                                        \
	"derived or unfinished trace)"
/* --payloads, the same wherever bytes are stored (record, vm-record, import):
 * its help text and choices (parsed by tpm_payload_mode_parse), and the
 * warning that full prints before anything is stored. */
#define CLI_PAYLOADS_HELP                                                                          \
	"none: no raw bytes; redacted (default): raw bytes with\n"                                 \
	"secrets zeroed (docs/security.md); full: everything,\n"                                   \
	"secrets included (warns)"
#define CLI_PAYLOADS_CHOICES "none redacted full"
void cli_payloads_warn(const char *sub, int payloads, const char *db_path);
/* Deletes a trace and every row of it (a failed import that must leave
 * nothing behind). Returns 0 or 1 with the error printed. */
int cli_trace_delete(const char *sub, const char *db_path, int64_t id);

/* The outputs of db/out.h, their errors printed for subcommand sub: a
 * refused output (one of the inputs) with "Try 'tpmtrace SUB --help'." and
 * EXIT_USAGE; others 1. */
int cli_out_open(const char *sub, struct db_out *o, const char *path, const char *const *inputs);
int cli_out_check(const char *sub, const char *path, const char *const *inputs);
int cli_out_close(const char *sub, struct db_out *o, int ok);
/* The content written to o failed: o is closed and its temporary file removed,
 * and "PATH: REASON" printed, REASON the failed write's own errno (a full
 * disk), or why when no write failed (the writer's own error). Returns 1. */
int cli_out_fail(const char *sub, struct db_out *o, const char *path, const char *why);
/* A file name given on the command line, as db_text_safe shows it, for a
 * message: one of four buffers used in turn (at most four in one printf). */
const char *cli_name(const char *s);
/* Milliseconds with three decimals from ns. */
double cli_ns_to_ms(double ns);
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
