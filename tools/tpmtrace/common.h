/* Helpers shared by the subcommands that read a database. */
#ifndef TPMTRACE_CLI_COMMON_H
#define TPMTRACE_CLI_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

/* Opens DB read-only (or read-write) and prints the error itself. */
sqlite3 *cli_open_db(const char *sub, const char *path, int write);
/* The trace to work on: the given id (checked to exist) or the newest.
 * Returns 0 and prints an error when there is none. */
int64_t cli_pick_trace(const char *sub, sqlite3 *db, const char *arg);
/* Prints s as a JSON string (quoted, escaped). */
void json_str(FILE *f, const char *s);
/* Milliseconds with three decimals from ns. */
double ns_to_ms(double ns);

#endif
