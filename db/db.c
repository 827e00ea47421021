/* Opening and creating tpmtrace databases (db/db.h). db_open and db_open_perm
 * check the application id and schema version, create a new file whole from
 * db/schema.sql (schema_sql.h) under the file rules of docs/security.md (0600,
 * O_EXCL|O_NOFOLLOW, no wider -wal/-shm/-journal companions), migrate versions 1
 * and 2 to 3 and refresh the views; every connection gets limits on the length of a
 * value and of an SQL text, and a DB_READ connection is query_only with ATTACH
 * denied and a statement time budget (TPMTRACE_DB_STATEMENT_MS); the SQL
 * functions db_register_functions adds are db/sql_functions.c's. Also the
 * trace rows (db_trace_begin, db_trace_end, db_last_trace), db_exec and the
 * monotonic clock db_mono_ns. */
#include "db/db.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/host_id.h"
#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "schema_sql.h"

uint64_t db_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A database made by an earlier tpmtrace keeps the views of its day: a
 * writer brings each view that differs to this schema's text (the figures'
 * definitions, docs/schema.md) and gets the views added since, so that the
 * stock sqlite3 shell reads what the commands print. Best effort: on any
 * failure the old view stays. */
static void views_refresh(sqlite3 *db)
{
	for (const char *p = schema_sql; (p = strstr(p, "CREATE VIEW ")) != NULL;) {
		const char *end = strstr(p, ";\n"), *nm = p + 12;
		size_t nl = strcspn(nm, " \n");
		char name[64], sql[8192], cmd[8400];
		if (!end || nl >= sizeof name || (size_t)(end - p) >= sizeof sql)
			return;
		memcpy(name, nm, nl);
		name[nl] = 0;
		memcpy(sql, p, (size_t)(end - p));
		sql[end - p] = 0;
		p = end;
		sqlite3_stmt *st = NULL;
		int stale = 0, missing = 0;
		if (sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_schema WHERE name=?", -1, &st,
				       NULL) == SQLITE_OK) {
			sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
			int src = sqlite3_step(st);
			if (src == SQLITE_ROW) {
				const char *cur = (const char *)sqlite3_column_text(st, 0);
				stale = !cur || strcmp(cur, sql);
			} else if (src == SQLITE_DONE) {
				missing = 1; /* a view added since the file was made */
			}
		}
		sqlite3_finalize(st);
		if (!stale && !missing)
			continue;
		if (missing)
			snprintf(cmd, sizeof cmd, "BEGIN IMMEDIATE;%s;COMMIT", sql);
		else
			snprintf(cmd, sizeof cmd, "BEGIN IMMEDIATE;DROP VIEW \"%s\";%s;COMMIT",
				 name, sql);
		if (db_exec(db, cmd, NULL, 0))
			db_exec(db, "ROLLBACK", NULL, 0);
	}
}

int db_exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		if (err)
			snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -EIO;
	}
	return 0;
}

static int fill_cc_table(sqlite3 *db)
{
	sqlite3_stmt *st;
	const struct tpm_cc_info *i;
	int rc = 0;
	if (sqlite3_prepare_v2(db, "INSERT INTO tpm_cc VALUES (?,?,?,?,?,?,?,?)", -1, &st, NULL))
		return -EIO;
	for (unsigned k = 0; (i = tpm_cc_at(k)); k++) {
		sqlite3_bind_int64(st, 1, i->cc);
		sqlite3_bind_text(st, 2, i->name, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, i->handles_in);
		sqlite3_bind_int(st, 4, i->auth_handles);
		sqlite3_bind_int(st, 5, i->handles_out);
		sqlite3_bind_int(st, 6, i->cmd_tpm2b);
		sqlite3_bind_int(st, 7, i->rsp_tpm2b);
		sqlite3_bind_int(st, 8, i->destructive);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = -EIO;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int pragma_int(sqlite3 *db, const char *sql, int64_t *v)
{
	sqlite3_stmt *st;
	int rc = -EIO;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*v = sqlite3_column_int64(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/* Creates the directory of path with mode 0700 if it does not exist. */
static int make_parent_dir(const char *path)
{
	char *copy = strdup(path);
	int rc = 0;
	if (!copy)
		return -ENOMEM;
	char *dir = dirname(copy);
	struct stat st;
	if (stat(dir, &st) != 0 && mkdir(dir, 0700) != 0)
		rc = -errno;
	free(copy);
	return rc;
}

/* SQLite's allocator keeps usage statistics behind a process-wide mutex,
 * taken on every allocation, unless told otherwise before it initializes;
 * nothing here reads them. (If SQLite was initialized already, the call is
 * refused and changes nothing.) */
static int first_open_reads;

static void sqlite_setup(void)
{
	/* A process that reads first (list, stats, show, report, sql, replay
	 * of its source) has no recorder's hot path: it keeps the statistics,
	 * which the heap limit needs, and caps SQLite's heap. */
	if (!first_open_reads) {
		sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
		return;
	}
	sqlite3_initialize();
	sqlite3_hard_heap_limit64(DB_READ_HEAP);
}

/* A statement on a read-only connection that runs longer than its budget
 * (a recursive view of the user's, a query that never ends) is
 * interrupted: the budget starts when the statement does. */
struct stmt_clock {
	uint64_t deadline;
	uint64_t budget_ns;
};

static int on_stmt(unsigned type, void *ctx, void *p, void *x)
{
	struct stmt_clock *c = ctx;
	(void)type, (void)p, (void)x;
	c->deadline = db_mono_ns() + c->budget_ns;
	return 0;
}

static int on_progress(void *ctx)
{
	struct stmt_clock *c = ctx;
	return c->deadline && db_mono_ns() > c->deadline;
}

static uint64_t statement_budget_ns(void)
{
	const char *e = getenv("TPMTRACE_DB_STATEMENT_MS");
	char *end;
	unsigned long long ms = e && *e ? strtoull(e, &end, 10) : 0;
	if (!e || !*e || *end || !ms)
		ms = DB_STATEMENT_MS;
	return (uint64_t)ms * 1000000u;
}

static void fn_noop(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)ctx, (void)argc, (void)argv;
}

/* The clock lives as long as its connection: a function's destructor (run
 * when the connection closes) frees it. */
static void clocks_keep(sqlite3 *db, struct stmt_clock *c)
{
	sqlite3_create_function_v2(db, "tpmtrace_statement_clock", 0, SQLITE_UTF8, c, fn_noop, NULL,
				   NULL, free);
}

static struct stmt_clock *bound_connection(sqlite3 *db, enum db_open_mode mode)
{
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, DB_MAX_VALUE);
	sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, DB_MAX_SQL);
	if (mode != DB_READ)
		return NULL;
	struct stmt_clock *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->budget_ns = statement_budget_ns();
	sqlite3_trace_v2(db, SQLITE_TRACE_STMT, on_stmt, c);
	sqlite3_progress_handler(db, 10000, on_progress, c);
	return c;
}

/* A reader of a database in WAL mode that no writer has open (no -wal file
 * beside it: a writer's connection keeps one) opens it immutable, so that
 * reading leaves no -wal and -shm files behind (a read-only connection
 * cannot remove them). Fills uri ("file:PATH?immutable=1", PATH escaped) and returns 1,
 * or 0 to open path as it is. */
static int readonly_uri(const char *path, char *uri, size_t len)
{
	char wal[4200];
	struct stat st;
	unsigned char hdr[20];
	snprintf(wal, sizeof wal, "%s-wal", path);
	if (lstat(wal, &st) == 0 || errno != ENOENT)
		return 0;
	/* Only a database in WAL mode (file format write version 2, byte 18
	 * of the header) needs it: one in rollback-journal mode, as every
	 * writer leaves it (db_close_for_readers), is read without files. */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, hdr, sizeof hdr) : -1;
	if (fd >= 0)
		close(fd);
	if (got != (ssize_t)sizeof hdr || hdr[18] != 2)
		return 0;
	size_t n = (size_t)snprintf(uri, len, "file:");
	for (const char *s = path; *s && n + 4 < len; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '%' || c == '?' || c == '#' || c < 0x21 || c > 0x7e)
			n += (size_t)snprintf(uri + n, len - n, "%%%02X", c);
		else
			uri[n++] = (char)c;
	}
	if (n + 13 >= len)
		return 0;
	snprintf(uri + n, len - n, "?immutable=1");
	return 1;
}

/* A read-only connection may not write anywhere: no statement changes the
 * database (query_only) and none attaches another file, which is how VACUUM
 * INTO writes its copy even on a read-only connection. */
static int deny_attach(void *ctx, int action, const char *a, const char *b, const char *c,
		       const char *d)
{
	(void)ctx, (void)a, (void)b, (void)c, (void)d;
	return action == SQLITE_ATTACH ? SQLITE_DENY : SQLITE_OK;
}

/* The -wal, -shm (and -journal) SQLite would reuse beside a database it
 * writes: never through a symbolic link, never another user's, and never
 * readable or writable by more than the database itself (a leftover of a
 * killed writer, or planted). Narrowed to the database's mode if wider. */
static int companions_check(const char *path, mode_t dbmode, char *err, size_t errlen)
{
	static const char *const sfx[] = {"-wal", "-shm", "-journal"};
	char p[4200];
	for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
		struct stat st;
		snprintf(p, sizeof p, "%s%s", path, sfx[i]);
		if (lstat(p, &st) != 0)
			continue;
		if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
			snprintf(
			    err, errlen,
			    "%s: %s; tpmtrace will not write its database beside it (remove it "
			    "if no tpmtrace is using the database)",
			    p,
			    S_ISLNK(st.st_mode)	   ? "a symbolic link"
			    : !S_ISREG(st.st_mode) ? "not a regular file"
						   : "owned by another user");
			return -EPERM;
		}
		if (st.st_mode & 0777 & ~dbmode) {
			int fd = open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
			int rc = fd < 0 || fchmod(fd, dbmode) ? -errno : 0;
			if (fd >= 0)
				close(fd);
			if (rc) {
				snprintf(err, errlen, "%s: cannot narrow its mode to %04o: %s", p,
					 (unsigned)dbmode, strerror(-rc));
				return rc;
			}
		}
	}
	return 0;
}

/* Where a database to write goes (docs/security.md, "Files and
 * permissions"): a new file is created with O_EXCL|O_NOFOLLOW at perm; an
 * existing empty one is adopted only if it is ours, not reached through a
 * symbolic link and no wider than perm; an existing database must not be
 * writable by everyone. *nofollow: open it without following links. */
static int write_target(const char *path, enum db_open_mode mode, unsigned perm, int *created,
			int *nofollow, mode_t *dbmode, char *err, size_t errlen)
{
	struct stat st, tg;
	*created = 0;
	*nofollow = 1;
	if (lstat(path, &st) != 0) {
		if (errno != ENOENT || mode != DB_CREATE) {
			int e = errno;
			snprintf(err, errlen, "%s: %s", path, strerror(e));
			return -e;
		}
		int rc = make_parent_dir(path);
		if (rc) {
			snprintf(err, errlen, "%s: cannot create its directory: %s", path,
				 strerror(-rc));
			return rc;
		}
		/* Created at its mode before SQLite opens it: the file may hold
		 * secrets. Never through a link planted meanwhile. */
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, perm);
		if (fd < 0 || fchmod(fd, perm) != 0) {
			int e = errno;
			snprintf(err, errlen, "%s: %s", path, strerror(e));
			if (fd >= 0) {
				close(fd);
				unlink(path);
			}
			return -e;
		}
		close(fd);
		*created = 1;
		*dbmode = perm;
		return 0;
	}
	if (S_ISLNK(st.st_mode)) {
		/* A link to an existing database is followed; one to nothing or
		 * to an empty file would have tpmtrace create its file wherever
		 * the link points. */
		if (stat(path, &tg) != 0) {
			snprintf(err, errlen,
				 "%s: a symbolic link to a file that does not exist; tpmtrace does "
				 "not create a database through a symbolic link",
				 path);
			return -ELOOP;
		}
		if (S_ISREG(tg.st_mode) && tg.st_size == 0) {
			snprintf(err, errlen,
				 "%s: a symbolic link to an empty file; tpmtrace does not make a "
				 "database of a file it reaches through a symbolic link",
				 path);
			return -ELOOP;
		}
		st = tg;
		*nofollow = 0;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	*dbmode = st.st_mode & 0777;
	if (st.st_size == 0) {
		/* An empty file is adopted as a new database. */
		if (st.st_uid != geteuid()) {
			snprintf(
			    err, errlen,
			    "%s: an empty file owned by uid %u; tpmtrace makes its databases of "
			    "its own files only",
			    path, (unsigned)st.st_uid);
			return -EPERM;
		}
		if (st.st_mode & 0777 & ~perm) {
			snprintf(err, errlen,
				 "%s: an empty file with mode %04o, wider than the %04o of a new "
				 "database (it would hold the trace): chmod %o it, or remove it",
				 path, (unsigned)(st.st_mode & 0777), perm, perm);
			return -EPERM;
		}
	} else if (st.st_mode & S_IWOTH) {
		snprintf(err, errlen,
			 "%s: mode %04o lets everyone write the database; chmod o-w it first", path,
			 (unsigned)(st.st_mode & 0777));
		return -EPERM;
	}
	return 0;
}

/* Version 1 to 2: trace.uuid and trace_host (db/schema.sql, which a new
 * file gets whole). Files opened read-only stay at version 1 and read the
 * same; traces made before have no UUID until push gives them one. */
static int migrate_v1(sqlite3 *db, char *err, size_t errlen)
{
	int rc =
	    db_exec(db,
		    "BEGIN IMMEDIATE; ALTER TABLE trace ADD COLUMN uuid TEXT;"
		    " CREATE UNIQUE INDEX trace_uuid ON trace (uuid);"
		    " CREATE TABLE trace_host (trace_id INTEGER PRIMARY KEY REFERENCES trace(id),"
		    " hostname TEXT, machine_id_sha256 TEXT, kernel_release TEXT,"
		    " kernel_cmdline TEXT, boot_id TEXT);"
		    " UPDATE meta SET value='2' WHERE key='schema_version';"
		    " PRAGMA user_version = 2; COMMIT",
		    err, errlen);
	if (rc)
		db_exec(db, "ROLLBACK", NULL, 0);
	return rc;
}

/* Opens a migration from version from: the write lock taken, the version
 * read again under it (another tpmtrace may have migrated the file since
 * this one looked). Returns 1 with the transaction open when the file is at
 * version from, 0 (committed) when it is not, or -EIO (rolled back). */
static int migration_begin(sqlite3 *db, int64_t from, char *err, size_t errlen)
{
	int64_t ver = 0;
	if (db_exec(db, "BEGIN IMMEDIATE", err, errlen))
		return -EIO;
	if (pragma_int(db, "PRAGMA user_version", &ver)) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		db_exec(db, "ROLLBACK", NULL, 0);
		return -EIO;
	}
	if (ver != from)
		return db_exec(db, "COMMIT", err, errlen) ? -EIO : 0;
	return 1;
}

/* Version 2 to 3: advise_proof (db/schema.sql). Files opened read-only stay
 * at version 2 and read the same (no proof stored: advise_proof_latest()
 * finds none). The version is read again under the write lock: another
 * tpmtrace may have migrated the file since this one looked. */
static int migrate_v2(sqlite3 *db, char *err, size_t errlen)
{
	int m = migration_begin(db, 2, err, errlen);
	if (m <= 0)
		return m;
	int rc = db_exec(
	    db,
	    "CREATE TABLE advise_proof (id INTEGER PRIMARY KEY,"
	    " trace_id INTEGER NOT NULL REFERENCES trace(id), kind TEXT NOT NULL,"
	    " profile TEXT NOT NULL, predicted_saving_ms REAL NOT NULL,"
	    " replayed_saving_ms REAL NOT NULL, replayed_before_ms REAL NOT NULL,"
	    " replayed_after_ms REAL NOT NULL, before_trace INTEGER REFERENCES trace(id),"
	    " after_trace INTEGER REFERENCES trace(id), before_policy TEXT, after_policy TEXT,"
	    " created_at TEXT);"
	    " CREATE INDEX advise_proof_trace ON advise_proof (trace_id, kind, profile);"
	    " UPDATE meta SET value='3' WHERE key='schema_version';"
	    " PRAGMA user_version = 3; COMMIT",
	    err, errlen);
	if (rc)
		db_exec(db, "ROLLBACK", NULL, 0);
	return rc;
}

/* Version 3 to 4: a profile entry's p90, p99 and the command it is derived
 * from (profile_entry.p90_ns, p99_ns, derived_from). Files opened read-only
 * stay at version 3 and read the same (those unknown). The version is read
 * again under the write lock. */
static int migrate_v3(sqlite3 *db, char *err, size_t errlen)
{
	static const char *const cols[] = {"p90_ns", "p99_ns", "derived_from"};
	char sql[160];
	int m = migration_begin(db, 3, err, errlen);
	if (m <= 0)
		return m;
	/* Each column added unless there (a file made by hand from a newer one). */
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
		int64_t has = 0;
		snprintf(sql, sizeof sql,
			 "SELECT count(*) FROM pragma_table_info('profile_entry') WHERE name='%s'",
			 cols[i]);
		if (pragma_int(db, sql, &has)) {
			snprintf(err, errlen, "%s", sqlite3_errmsg(db));
			db_exec(db, "ROLLBACK", NULL, 0);
			return -EIO;
		}
		snprintf(sql, sizeof sql, "ALTER TABLE profile_entry ADD COLUMN %s INTEGER",
			 cols[i]);
		if (!has && db_exec(db, sql, err, errlen)) {
			db_exec(db, "ROLLBACK", NULL, 0);
			return -EIO;
		}
	}
	int rc = db_exec(db,
			 "UPDATE meta SET value='4' WHERE key='schema_version';"
			 " PRAGMA user_version = 4; COMMIT",
			 err, errlen);
	if (rc)
		db_exec(db, "ROLLBACK", NULL, 0);
	return rc;
}

/* Version 4 to 5: a replay's fidelity in its trace row (trace.fidelity),
 * filled for the complete replays already stored from their replay-stop
 * event, which said it as "fidelity=PCT ...". Files opened read-only stay at
 * version 4 (a later replay there finds no earlier fidelity). */
static int migrate_v4(sqlite3 *db, char *err, size_t errlen)
{
	int64_t has = 0;
	int m = migration_begin(db, 4, err, errlen);
	if (m <= 0)
		return m;
	if (pragma_int(db, "SELECT count(*) FROM pragma_table_info('trace') WHERE name='fidelity'",
		       &has)) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		db_exec(db, "ROLLBACK", NULL, 0);
		return -EIO;
	}
	if ((!has && db_exec(db, "ALTER TABLE trace ADD COLUMN fidelity REAL", err, errlen)) ||
	    db_exec(db,
		    "UPDATE trace SET fidelity = (SELECT CAST(substr(e.detail, 10,"
		    " instr(e.detail || ' ', ' ') - 10) AS REAL) FROM event e"
		    " WHERE e.trace_id = trace.id AND e.kind = 'replay-stop'"
		    " AND e.detail LIKE 'fidelity=%' ORDER BY e.seq DESC LIMIT 1)"
		    " WHERE kind = 'replay' AND status = 'complete' AND fidelity IS NULL;"
		    " UPDATE meta SET value='5' WHERE key='schema_version';"
		    " PRAGMA user_version = 5; COMMIT",
		    err, errlen)) {
		db_exec(db, "ROLLBACK", NULL, 0);
		return -EIO;
	}
	return 0;
}

/* Creates the schema of a new database unless another process did: the
 * write lock is taken first (BEGIN IMMEDIATE waits for the other creator's
 * transaction, busy_timeout), then the file is looked at again. *app and
 * *ver are what the file says once the lock is held. */
static int create_schema(sqlite3 *db, int64_t *app, int64_t *ver, int wal, char *msg, size_t len)
{
	int64_t tables = 0;
	/* WAL before the transaction (the mode cannot change inside one); a
	 * second creator finds it set already. */
	if ((wal && db_exec(db, "PRAGMA journal_mode=WAL", msg, len)) ||
	    db_exec(db, "BEGIN IMMEDIATE", msg, len))
		return -EIO;
	if (pragma_int(db, "PRAGMA application_id", app) ||
	    pragma_int(db, "PRAGMA user_version", ver) ||
	    pragma_int(db, "SELECT count(*) FROM sqlite_schema", &tables)) {
		snprintf(msg, len, "%s", sqlite3_errmsg(db));
		goto fail;
	}
	if (tables != 0 || *app != 0)
		return db_exec(db, "COMMIT", msg, len); /* made by the other one */
	if (db_exec(db, schema_sql, msg, len))
		goto fail;
	if (fill_cc_table(db)) {
		snprintf(msg, len, "filling tpm_cc: %s", sqlite3_errmsg(db));
		goto fail;
	}
	if (db_exec(db,
		    "INSERT INTO meta VALUES ('schema_version','5'),"
		    "('created_by','tpmtrace " TPMTRACE_VERSION "');COMMIT",
		    msg, len))
		goto fail;
	*app = TPMTRACE_APPLICATION_ID;
	*ver = TPMTRACE_SCHEMA_VERSION;
	return 0;
fail:
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -EIO;
}

/* A new database appears whole: its schema is made in a private file beside
 * path (O_EXCL, at perm) and that file is linked to path, which fails if
 * path exists by then (another tpmtrace created it first: its database is
 * used). So no process ever sees an empty file under path, and none removes
 * a file another one may be using (only its own private name). 0 when path
 * exists afterwards. */
static int create_whole(const char *path, unsigned perm, char *err, size_t errlen)
{
	char tmp[4200], msg[256];
	sqlite3 *db = NULL;
	int64_t app = 0, ver = 0;
	int rc = make_parent_dir(path);
	if (rc) {
		snprintf(err, errlen, "%s: cannot create its directory: %s", path, strerror(-rc));
		return rc;
	}
	char *copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	char *base = basename(copy);
	int n = snprintf(tmp, sizeof tmp, "%.*s.%s.new-XXXXXX", (int)(base - copy), path, base);
	free(copy);
	if (n < 0 || (size_t)n >= sizeof tmp) {
		snprintf(err, errlen, "%s: path too long", path);
		return -ENAMETOOLONG;
	}
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0 || fchmod(fd, perm) != 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return -e;
	}
	close(fd);
	if (sqlite3_open_v2(tmp, &db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		snprintf(msg, sizeof msg, "%s", db ? sqlite3_errmsg(db) : "cannot open");
		rc = -EIO;
	} else {
		/* Nobody sees the file before it is linked: no journal and no
		 * sync while it is made (a crash leaves only the private name),
		 * one sync of the whole file before the link. */
		db_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF", NULL, 0);
		rc = create_schema(db, &app, &ver, 0, msg, sizeof msg);
	}
	if (db)
		sqlite3_close(db);
	if (!rc && (fd = open(tmp, O_RDWR | O_CLOEXEC | O_NOFOLLOW)) >= 0) {
		if (fdatasync(fd) != 0) {
			rc = -errno;
			snprintf(msg, sizeof msg, "%s", strerror(errno));
		}
		close(fd);
	}
	if (!rc && link(tmp, path) != 0 && errno != EEXIST) {
		rc = -errno;
		snprintf(msg, sizeof msg, "%s", strerror(errno));
	}
	unlink(tmp);
	if (rc)
		snprintf(err, errlen, "%s: cannot create the database: %s", path, msg);
	return rc;
}

/* DB_OPEN_IS_STDOUT, with the message, when standard output is the
 * database at path or its -wal, -shm or -journal file (a shell's 1<>db):
 * what the command prints would overwrite it. Else 0. */
static int stdout_is_db(const char *path, char *err, size_t errlen)
{
	static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
	struct stat so, sd;
	char p[4200];
	if (fstat(STDOUT_FILENO, &so) || !S_ISREG(so.st_mode))
		return 0;
	for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
		snprintf(p, sizeof p, "%.4000s%s", path, suffix[i]);
		if (stat(p, &sd) == 0 && sd.st_dev == so.st_dev && sd.st_ino == so.st_ino) {
			snprintf(err, errlen,
				 "%s: standard output is this database's file; what the command "
				 "prints would overwrite it (send the output elsewhere)",
				 path);
			return DB_OPEN_IS_STDOUT;
		}
	}
	return 0;
}

/* The header could not be read: a database another connection holds locked
 * past the busy timeout (-EBUSY), or not an SQLite database (-EINVAL). */
static int unreadable(sqlite3 *db, const char *path, char *err, size_t errlen)
{
	int code = sqlite3_errcode(db) & 0xff;
	if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
		snprintf(err, errlen,
			 "%s: the database is locked by another process (busy for 5 s); try again "
			 "when it is done",
			 path);
		return -EBUSY;
	}
	snprintf(err, errlen, "%s: not an SQLite database (%s)", path, sqlite3_errmsg(db));
	return -EINVAL;
}

int db_open(const char *path, enum db_open_mode mode, sqlite3 **out, char *err, size_t errlen)
{
	return db_open_perm(path, mode, 0600, out, err, errlen);
}

int db_open_perm(const char *path, enum db_open_mode mode, unsigned perm, sqlite3 **out, char *err,
		 size_t errlen)
{
	static pthread_once_t setup = PTHREAD_ONCE_INIT;
	if (mode == DB_READ)
		__atomic_store_n(&first_open_reads, 1, __ATOMIC_RELAXED);
	pthread_once(&setup, sqlite_setup);
	sqlite3 *db = NULL;
	int flags, rc = 0, created = 0, nofollow = 0, opened = 0;
	struct stmt_clock *clock = NULL;
	int64_t app = 0, ver = 0, tables = 0;
	mode_t dbmode = 0600;
	struct stat st;
	char msg[256];

	*out = NULL;
	if (mode == DB_READ) {
		if (stat(path, &st) != 0) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			rc = -EINVAL;
			snprintf(err, errlen, "%s: not a regular file", path);
			goto out;
		}
	} else {
		if (mode == DB_CREATE && lstat(path, &st) != 0 && errno == ENOENT) {
			rc = create_whole(path, perm, err, errlen);
			if (rc)
				goto out;
		}
		rc = write_target(path, mode, perm, &created, &nofollow, &dbmode, err, errlen);
		if (!rc)
			rc = companions_check(path, dbmode, err, errlen);
		if (rc)
			goto out;
	}
	if ((rc = stdout_is_db(path, err, errlen)))
		goto out;
	flags = mode == DB_READ ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
	char uri[4200];
	const char *name = path;
	if (mode == DB_READ && readonly_uri(path, uri, sizeof uri)) {
		name = uri;
		flags |= SQLITE_OPEN_URI;
	}
	if (nofollow)
		flags |= SQLITE_OPEN_NOFOLLOW;
	if (sqlite3_open_v2(name, &db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = -EIO;
		snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
		goto out;
	}
	opened = 1;
	clock = bound_connection(db, mode);
	sqlite3_busy_timeout(db, 5000);
	if (mode == DB_READ) {
		db_exec(db, "PRAGMA query_only=1", NULL, 0);
		sqlite3_set_authorizer(db, deny_attach, NULL);
	}
	if (pragma_int(db, "PRAGMA application_id", &app) ||
	    pragma_int(db, "PRAGMA user_version", &ver) ||
	    pragma_int(db, "SELECT count(*) FROM sqlite_schema", &tables)) {
		rc = unreadable(db, path, err, errlen);
		goto out;
	}
	if (tables == 0 && app == 0) {
		if (mode == DB_READ) {
			rc = -EINVAL;
			snprintf(err, errlen, "%s: empty file, not a tpmtrace database", path);
			goto out;
		}
		/* Another tpmtrace may be creating the same new file (it created
		 * it, this one adopted it empty, or the other way round): the
		 * schema is made in one write transaction, after looking again
		 * inside it whether the other one made it meanwhile. */
		rc = create_schema(db, &app, &ver, 1, msg, sizeof msg);
		if (rc) {
			snprintf(err, errlen, "%s: cannot create the schema: %s", path, msg);
			goto out;
		}
	}
	if (app != TPMTRACE_APPLICATION_ID) {
		rc = -EINVAL;
		snprintf(err, errlen,
			 "%s: not a tpmtrace database (SQLite application_id 0x%08llx, expected "
			 "0x%08x)",
			 path, (unsigned long long)app, TPMTRACE_APPLICATION_ID);
		goto out;
	} else if (ver > TPMTRACE_SCHEMA_VERSION) {
		rc = -EINVAL;
		snprintf(err, errlen,
			 "%s: schema version %lld is newer than this tpmtrace understands (%d); "
			 "use a newer tpmtrace",
			 path, (long long)ver, TPMTRACE_SCHEMA_VERSION);
		goto out;
	} else if (ver < 1) {
		rc = -EINVAL;
		snprintf(err, errlen, "%s: tpmtrace database without a schema version", path);
		goto out;
	}
	/* Before anything is read: tpmtrace's objects are what it made them. */
	rc = db_schema_check(db, msg, sizeof msg);
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, msg);
		goto out;
	}
	if (mode != DB_READ && ver == 1 && migrate_v1(db, msg, sizeof msg)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: cannot migrate schema version 1 to 2: %s", path, msg);
		goto out;
	}
	if (mode != DB_READ && ver <= 2 && migrate_v2(db, msg, sizeof msg)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: cannot migrate schema version 2 to 3: %s", path, msg);
		goto out;
	}
	if (mode != DB_READ && ver <= 3 && migrate_v3(db, msg, sizeof msg)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: cannot migrate schema version 3 to 4: %s", path, msg);
		goto out;
	}
	if (mode != DB_READ && ver <= 4 && migrate_v4(db, msg, sizeof msg)) {
		rc = -EIO;
		snprintf(err, errlen, "%s: cannot migrate schema version 4 to 5: %s", path, msg);
		goto out;
	}
	if (mode != DB_READ)
		db_exec(db, "PRAGMA journal_mode=WAL", NULL, 0);
	if (mode != DB_READ)
		views_refresh(db);
	db_register_functions(db);
	if (clock)
		clocks_keep(db, clock); /* freed with db */
	clock = NULL;
	*out = db;
	db = NULL;
out:
	if (db)
		sqlite3_close(db);
	free(clock);
	/* A file this call created is never removed once SQLite had it open:
	 * another tpmtrace may have adopted it meanwhile (an empty file is
	 * adopted as a new database, and one left empty is harmless). */
	if (rc && created && !opened)
		unlink(path);
	return rc;
}

void db_close(sqlite3 *db)
{
	if (db)
		sqlite3_close(db);
}

void db_close_for_readers(sqlite3 *db)
{
	if (!db)
		return;
	if (!sqlite3_db_readonly(db, "main")) {
		/* A reader that may not write the directory (record --mode 0640
		 * --group G) cannot open a database in WAL mode without its -shm:
		 * leave it in rollback mode; the next writer turns WAL on again
		 * (db_open). Never waits: with others still connected it stays
		 * WAL. */
		sqlite3_busy_timeout(db, 0);
		sqlite3_exec(db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
	}
	sqlite3_close(db);
}

int64_t db_trace_begin(sqlite3 *db, const struct trace_info *ti)
{
	sqlite3_stmt *st;
	struct db_host_id host;
	char when[32], uuid[37];
	time_t now = time(NULL);
	struct tm tm;
	int64_t id = -EIO;

	if (!ti->foreign)
		db_host_id_read(&host);
	else if (ti->host)
		host = *ti->host;
	else
		memset(&host, 0, sizeof host); /* unknown: every column NULL */
	if (db_uuid_new(uuid))
		return -EIO;
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	if (sqlite3_prepare_v2(
		db,
		"INSERT INTO trace (name, kind, source, started_at, start_ns, payloads,"
		" host, tool_version, parent_id, policy, emulated, uuid, notes)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
		-1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, ti->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, ti->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, ti->source, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, when, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (int64_t)db_mono_ns());
	sqlite3_bind_text(st, 6, ti->payloads, -1, SQLITE_STATIC);
	if (host.hostname[0])
		sqlite3_bind_text(st, 7, host.hostname, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, TPMTRACE_VERSION, -1, SQLITE_STATIC);
	if (ti->parent_id > 0)
		sqlite3_bind_int64(st, 9, ti->parent_id);
	sqlite3_bind_text(st, 10, ti->policy, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, ti->emulated, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 12, uuid, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 13, ti->notes, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(db);
	sqlite3_finalize(st);
	if (id > 0 && db_host_id_store(db, id, &host))
		id = -EIO;
	return id;
}

int db_trace_end(sqlite3 *db, int64_t id, uint64_t commands, uint64_t events, uint64_t dropped,
		 const char *status)
{
	sqlite3_stmt *st;
	int rc = -EIO;
	if (sqlite3_prepare_v2(
		db,
		"UPDATE trace SET end_ns=?, commands=?, events=?, dropped=?, status=?"
		" WHERE id=?",
		-1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, (int64_t)db_mono_ns());
	sqlite3_bind_int64(st, 2, (int64_t)commands);
	sqlite3_bind_int64(st, 3, (int64_t)events);
	sqlite3_bind_int64(st, 4, (int64_t)dropped);
	sqlite3_bind_text(st, 5, status, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, id);
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = 0;
	sqlite3_finalize(st);
	return rc;
}

int64_t db_last_trace(sqlite3 *db)
{
	int64_t v = 0;
	if (pragma_int(db, "SELECT coalesce(max(id),0) FROM trace", &v))
		return 0;
	return v;
}
