/* The rules every command follows for its database and its trace
 * (docs/cli.md): a database path to create, the trace to work on, and a
 * trace removed whole (a failed import). */
#ifndef TPMTRACE_DB_TRACE_PICK_H
#define TPMTRACE_DB_TRACE_PICK_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* Before a command creates or adds to the database path (record, import,
 * calibrate --db, profile import): its directory must exist (nothing is
 * created but the file), and an existing path must be a tpmtrace database
 * (an empty file is refused too: SQLite would take it for a new database).
 * 0, or -errno with err naming the path and what is wrong. */
int db_check_create(const char *path, char *err, size_t errlen);
/* The trace to work on: arg NULL: db_trace_default (the newest recording or
 * timed import, else the newest untimed import; never a replay, derived or
 * unfinished trace); "latest": the newest finished trace; "latest-replay":
 * the newest finished replay; else an id, checked to exist (warn names it
 * when it is unfinished, else warn is ""). 0 with err set when there is
 * none. */
int64_t db_trace_pick(sqlite3 *db, const char *arg, char *err, size_t errlen, char *warn,
		      size_t wlen);
/* Deletes trace id of db_path and every row of it. 0, or -EIO with err set. */
int db_trace_delete(const char *db_path, int64_t id, char *err, size_t errlen);

#endif
