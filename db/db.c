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

#include "model/tpm_cc.h"
#include "schema_sql.h"

uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* tpm_cc_name(cc): the command's name, or NULL. */
static void fn_cc_name(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	const char *n = tpm_cc_name((uint32_t)sqlite3_value_int64(argv[0]));
	if (n)
		sqlite3_result_text(ctx, n, -1, SQLITE_STATIC);
}

/* percentile(x, p): nearest-rank percentile, the smallest value whose rank r
 * (1-based, ascending) satisfies r * 100 >= p * n; the same definition as the
 * command_stats view. */
struct pct_state {
	double *v;
	size_t n, cap;
	double p;
	int bad;
};

static void pct_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct pct_state *s = sqlite3_aggregate_context(ctx, sizeof(*s));
	if (!s)
		return;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	double p = sqlite3_value_double(argv[1]);
	if (p < 0 || p > 100) {
		s->bad = 1;
		return;
	}
	s->p = p;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		double *nv = sqlite3_realloc64(s->v, cap * sizeof(double));
		if (!nv) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = sqlite3_value_double(argv[0]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void pct_final(sqlite3_context *ctx)
{
	struct pct_state *s = sqlite3_aggregate_context(ctx, 0);
	if (!s)
		return;
	if (s->bad) {
		sqlite3_result_error(ctx, "percentile(): p must be between 0 and 100", -1);
	} else if (s->n) {
		qsort(s->v, s->n, sizeof(double), cmp_double);
		size_t r = 1;
		while (r < s->n && (double)r * 100 < s->p * (double)s->n)
			r++;
		double v = s->v[r - 1];
		if (v == (double)(int64_t)v)
			sqlite3_result_int64(ctx, (int64_t)v);
		else
			sqlite3_result_double(ctx, v);
	}
	sqlite3_free(s->v);
}

int db_register_functions(sqlite3 *db)
{
	int rc = sqlite3_create_function(db, "tpm_cc_name", 1,
					 SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
					 NULL, fn_cc_name, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "percentile", 2, SQLITE_UTF8 | SQLITE_INNOCUOUS,
					     NULL, NULL, pct_step, pct_final);
	return rc == SQLITE_OK ? 0 : -EIO;
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
	if (sqlite3_prepare_v2(db, "INSERT INTO tpm_cc VALUES (?,?,?,?,?,?,?)", -1, &st, NULL))
		return -EIO;
	for (unsigned k = 0; (i = tpm_cc_at(k)); k++) {
		sqlite3_bind_int64(st, 1, i->cc);
		sqlite3_bind_text(st, 2, i->name, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, i->handles_in);
		sqlite3_bind_int(st, 4, i->auth_handles);
		sqlite3_bind_int(st, 5, i->handles_out);
		sqlite3_bind_int(st, 6, i->cmd_tpm2b);
		sqlite3_bind_int(st, 7, i->rsp_tpm2b);
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
static void sqlite_setup(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* A reader of a database that no writer has open (no -wal file beside it:
 * a writer's connection keeps one) opens it immutable, so that reading
 * leaves no -wal and -shm files behind (a read-only connection cannot remove
 * them). Fills uri ("file:PATH?immutable=1", PATH escaped) and returns 1,
 * or 0 to open path as it is. */
static int readonly_uri(const char *path, char *uri, size_t len)
{
	char wal[4200];
	struct stat st;
	snprintf(wal, sizeof wal, "%s-wal", path);
	if (lstat(wal, &st) == 0 || errno != ENOENT)
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

int db_open(const char *path, enum db_open_mode mode, sqlite3 **out, char *err, size_t errlen)
{
	static pthread_once_t setup = PTHREAD_ONCE_INIT;
	pthread_once(&setup, sqlite_setup);
	sqlite3 *db = NULL;
	int flags, rc = 0, created = 0;
	int64_t app = 0, ver = 0, tables = 0;
	struct stat st;
	char msg[256];

	*out = NULL;
	if (stat(path, &st) != 0) {
		if (mode != DB_CREATE) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto out;
		}
		rc = make_parent_dir(path);
		if (rc) {
			snprintf(err, errlen, "%s: cannot create its directory: %s", path,
				 strerror(-rc));
			goto out;
		}
		/* Created 0600 before SQLite opens it: the file may hold secrets. */
		int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto out;
		}
		close(fd);
		created = 1;
	} else if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		snprintf(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	flags = mode == DB_READ ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
	char uri[4200];
	const char *name = path;
	if (mode == DB_READ && readonly_uri(path, uri, sizeof uri)) {
		name = uri;
		flags |= SQLITE_OPEN_URI;
	}
	if (sqlite3_open_v2(name, &db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		rc = -EIO;
		snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
		goto out;
	}
	sqlite3_busy_timeout(db, 5000);
	if (pragma_int(db, "PRAGMA application_id", &app) ||
	    pragma_int(db, "PRAGMA user_version", &ver) ||
	    pragma_int(db, "SELECT count(*) FROM sqlite_schema", &tables)) {
		rc = -EINVAL;
		snprintf(err, errlen, "%s: not an SQLite database (%s)", path, sqlite3_errmsg(db));
		goto out;
	}
	if (tables == 0 && app == 0) {
		if (mode == DB_READ) {
			rc = -EINVAL;
			snprintf(err, errlen, "%s: empty file, not a tpmtrace database", path);
			goto out;
		}
		if (db_exec(db, "PRAGMA journal_mode=WAL", msg, sizeof msg) ||
		    db_exec(db, "BEGIN", msg, sizeof msg) ||
		    db_exec(db, schema_sql, msg, sizeof msg) || fill_cc_table(db) ||
		    db_exec(db,
			    "INSERT INTO meta VALUES ('schema_version','1'),"
			    "('created_by','tpmtrace " TPMTRACE_VERSION "');COMMIT",
			    msg, sizeof msg)) {
			rc = -EIO;
			snprintf(err, errlen, "%s: cannot create the schema: %s", path, msg);
			goto out;
		}
	} else if (app != TPMTRACE_APPLICATION_ID) {
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
	if (mode != DB_READ)
		db_exec(db, "PRAGMA journal_mode=WAL", NULL, 0);
	db_register_functions(db);
	*out = db;
	db = NULL;
out:
	if (db)
		sqlite3_close(db);
	if (rc && created)
		unlink(path);
	return rc;
}

void db_close(sqlite3 *db)
{
	if (db)
		sqlite3_close(db);
}

int64_t db_trace_begin(sqlite3 *db, const struct trace_info *ti)
{
	sqlite3_stmt *st;
	char host[256] = "";
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	int64_t id = -EIO;

	gethostname(host, sizeof host - 1);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	if (sqlite3_prepare_v2(
		db,
		"INSERT INTO trace (name, kind, source, started_at, start_ns, payloads,"
		" host, tool_version, parent_id, policy, emulated)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?)",
		-1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, ti->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, ti->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, ti->source, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, when, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (int64_t)mono_ns());
	sqlite3_bind_text(st, 6, ti->payloads, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, TPMTRACE_VERSION, -1, SQLITE_STATIC);
	if (ti->parent_id > 0)
		sqlite3_bind_int64(st, 9, ti->parent_id);
	sqlite3_bind_text(st, 10, ti->policy, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, ti->emulated, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_DONE)
		id = sqlite3_last_insert_rowid(db);
	sqlite3_finalize(st);
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
	sqlite3_bind_int64(st, 1, (int64_t)mono_ns());
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
