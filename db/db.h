/* Opening tpmtrace databases, schema checks, SQL functions, trace rows. */
#ifndef TPMTRACE_DB_H
#define TPMTRACE_DB_H

#include <stddef.h>
#include <stdint.h>

#include <errno.h>

#include <sqlite3.h>

#define TPMTRACE_SCHEMA_VERSION 5
#define TPMTRACE_APPLICATION_ID 0x54504D54 /* "TPMT" */

enum db_open_mode {
	DB_READ = 0,   /* must exist, opened read-only */
	DB_WRITE = 1,  /* must exist */
	DB_CREATE = 2, /* created (0600, directory 0700) if missing */
};

/* Opens a tpmtrace database. On error returns -errno or -EINVAL (not a tpmtrace
 * file, newer schema) and writes a message naming the file to err. Registers
 * tpm_cc_name() and percentile(). DB_READ connections write nothing anywhere
 * (query_only, no ATTACH: not even VACUUM INTO). For writing, a new file is
 * created 0600 with O_EXCL|O_NOFOLLOW; an existing empty file is adopted only
 * if it is the caller's, reached without a symbolic link and no wider than
 * 0600; a database writable by everyone is refused; -wal/-shm/-journal files
 * left beside it are narrowed to its mode (docs/security.md). A database
 * that is the process's standard output (a shell's 1<>db) is refused with
 * DB_OPEN_IS_STDOUT: nothing may be printed then, not even a JSON error. A
 * database another connection holds locked past the busy timeout is an
 * error that says so (-EBUSY). */
#define DB_OPEN_IS_STDOUT (-EBADF)
int db_open(const char *path, enum db_open_mode mode, sqlite3 **out, char *err, size_t errlen);
/* The same with perm in place of 0600 (record --mode). */
int db_open_perm(const char *path, enum db_open_mode mode, unsigned perm, sqlite3 **out, char *err,
		 size_t errlen);
void db_close(sqlite3 *db);
/* 0 if every object of db that bears one of tpmtrace's names is what a
 * tpmtrace version made it (tables are plain tables, views one of the texts
 * a version wrote, no trigger on them); else -EINVAL and err names the object
 * ("foreign schema: ..."). db_open checks it before anything is read. */
int db_schema_check(sqlite3 *db, char *err, size_t errlen);
/* What db_schema_check expects: the type ("table", "index", "view") of one
 * of tpmtrace's names, NULL for another name; whether sql is a text a
 * tpmtrace version wrote for the view name. */
const char *db_schema_type(const char *name);
int db_schema_view_known(const char *name, const char *sql);
/* A client's name (client.comm) ending in this mark may be cut from a longer
 * one (recorder_proc_name): U+2026 HORIZONTAL ELLIPSIS. */
#define DB_NAME_CUT "\xe2\x80\xa6"

/* The bounds of every connection db_open makes (docs/security.md, "Hostile
 * databases"): a value at most DB_MAX_VALUE bytes, an SQL text at most
 * DB_MAX_SQL; on a read-only connection a statement runs at most
 * TPMTRACE_DB_STATEMENT_MS (default DB_STATEMENT_MS) before it is
 * interrupted, and in a process whose first database is opened read-only
 * SQLite's heap is capped at DB_READ_HEAP. */
#define DB_MAX_VALUE	(32 * 1024 * 1024)
#define DB_MAX_SQL	(1024 * 1024)
#define DB_STATEMENT_MS 60000
#define DB_READ_HEAP	(128ll * 1024 * 1024)
/* Closes a connection that ends a recording, import or replay (db_writer_stop):
 * the file is left in rollback-journal mode if no other connection has it,
 * so that readers need no -shm (they may not be able to create one). One
 * journal-mode switch (~20 ms here), at the end only. */
void db_close_for_readers(sqlite3 *db);

/* Registers the tpmtrace SQL functions on a connection. */
/* The nearest rank (1-based) of percentile p (0-100) among n sorted values:
 * the smallest r >= 1 with r * 100 >= p * n, at most n; the definition of
 * percentile() and the command_stats view, used by every percentile shown. */
size_t db_nearest_rank(size_t n, double p);

int db_register_functions(sqlite3 *db);

/* Current monotonic time in ns (CLOCK_MONOTONIC). */
uint64_t db_mono_ns(void);

struct db_host_id;
struct trace_info {
	const char *name;
	const char *kind; /* record | replay | import | derived */
	const char *source;
	const char *payloads;
	const char *policy;
	const char *emulated;
	int64_t parent_id; /* 0 for none */
	/* Made on another machine (an imported file): its host identity
	 * (trace.host, trace_host) is the file's, from host when the file
	 * carries one, else unknown (NULL) — never this host's. */
	int foreign;
	const struct db_host_id *host;
	const char *notes; /* NULL for none */
};

/* Inserts a trace row with status 'recording'; returns its id or -errno. */
int64_t db_trace_begin(sqlite3 *db, const struct trace_info *ti);
/* Marks a trace finished: counts, end time, status. Returns 0 or -errno. */
int db_trace_end(sqlite3 *db, int64_t id, uint64_t commands, uint64_t events, uint64_t dropped,
		 const char *status);

/* Runs a statement and prints nothing; returns 0 or -EIO with err set. */
int db_exec(sqlite3 *db, const char *sql, char *err, size_t errlen);

/* The newest trace id in the file, or 0 if none. */
int64_t db_last_trace(sqlite3 *db);

#endif
