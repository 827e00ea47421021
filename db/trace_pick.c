/* Which trace a command works on, a database path to create, a trace
 * removed (db/trace_pick.h). */
#include "db/trace_pick.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/db.h"
#include "db/text.h"
#include "db/trace_kind.h"

int db_check_create(const char *path, char *err, size_t errlen)
{
	struct stat st;
	if (!path[0])
		return db_errf(err, errlen, -EINVAL, "the database path is empty");
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) == 0 &&
	    S_ISREG(st.st_mode) && st.st_size == 0)
		return db_errf(err, errlen, -EINVAL,
			       "%s: a symbolic link to an empty file; tpmtrace does not make a "
			       "database of a file it reaches through a symbolic link",
			       path);
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return db_errf(err, errlen, -EINVAL,
				       "%s: is a directory, not a database file", path);
		if (!S_ISREG(st.st_mode))
			return db_errf(err, errlen, -EINVAL, "%s: not a regular file", path);
		if (st.st_size == 0)
			return db_errf(
			    err, errlen, -EINVAL,
			    "%s: empty file, not a tpmtrace database (remove it and tpmtrace "
			    "creates one)",
			    path);
		return 0;
	}
	if (errno != ENOENT)
		return db_errf(err, errlen, -EINVAL, "%s: %s", path, strerror(errno));
	/* Only the file is created: a mistyped directory is an error, not a
	 * new directory tree. */
	char *copy = strdup(path);
	if (!copy)
		return db_errf(err, errlen, -EINVAL, "out of memory");
	const char *dir = dirname(copy);
	int rc = 0;
	if (stat(dir, &st) != 0)
		rc = db_errf(err, errlen, -EINVAL, "%s: directory %s: %s", path, dir,
			     strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		rc = db_errf(err, errlen, -EINVAL, "%s: %s is not a directory", path, dir);
	free(copy);
	return rc;
}

static int64_t one_id(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t id = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			id = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return id;
}

int64_t db_trace_pick(sqlite3 *db, const char *arg, char *err, size_t errlen, char *warn,
		      size_t wlen)
{
	int64_t id;
	warn[0] = 0;
	if (!arg) {
		id = db_trace_default(db, err, errlen);
		return id > 0 ? id : 0;
	}
	if (!strcmp(arg, "latest") || !strcmp(arg, "latest-replay")) {
		/* Unfinished traces are never picked here (db/trace_kind.h). */
		int replay = !strcmp(arg, "latest-replay");
		int64_t open;
		if ((id = db_trace_latest(db, replay, &open)) > 0)
			return id;
		if (id < 0)
			db_errf(err, errlen, -EINVAL, "%s", sqlite3_errmsg(db));
		else if (!one_id(db, "SELECT count(*) FROM trace"))
			db_errf(err, errlen, -EINVAL, "the database holds no trace");
		else if (open)
			db_errf(err, errlen, -EINVAL,
				"no finished %s to take (trace %lld is unfinished: --trace %lld "
				"takes it)",
				replay ? "replay" : "trace", (long long)open, (long long)open);
		else
			db_errf(err, errlen, -EINVAL, "the database holds no replay");
		return 0;
	}
	char *end;
	long long n = strtoll(arg, &end, 10);
	if (!*arg || *end || n <= 0) {
		db_errf(err, errlen, -EINVAL,
			"--trace takes a trace id (see 'tpmtrace list'), latest or latest-replay, "
			"not '%s'",
			arg);
		return 0;
	}
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM trace WHERE id=?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, n);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	if (!found) {
		db_errf(err, errlen, -EINVAL,
			"no trace %lld in this database (see 'tpmtrace list')", n);
		return 0;
	}
	/* A trace given by id that is not finished (db_trace_finished) is used,
	 * and named: what a command prints of it may be cut short. */
	char why[256];
	if (!db_trace_finished(db, n, why, sizeof why))
		snprintf(warn, wlen, "trace %lld is unfinished (%s)", n, why);
	return n;
}

int db_trace_delete(const char *db_path, int64_t id, char *err, size_t errlen)
{
	sqlite3 *db;
	char e[256], sql[512];
	if (db_open(db_path, DB_WRITE, &db, err, errlen))
		return -EIO;
	sqlite3_busy_timeout(db, 10000);
	snprintf(sql, sizeof sql,
		 "BEGIN IMMEDIATE; DELETE FROM command WHERE trace_id=%lld;"
		 " DELETE FROM event WHERE trace_id=%lld; DELETE FROM client WHERE trace_id=%lld;"
		 " DELETE FROM trace_host WHERE trace_id=%lld; DELETE FROM trace WHERE id=%lld;"
		 " COMMIT",
		 (long long)id, (long long)id, (long long)id, (long long)id, (long long)id);
	int rc = db_exec(db, sql, e, sizeof e);
	if (rc) {
		db_exec(db, "ROLLBACK", NULL, 0);
		snprintf(err, errlen, "%s: could not remove trace %lld: %s", db_path, (long long)id,
			 e);
	}
	db_close(db);
	return rc ? -EIO : 0;
}
