/* Is a database's schema tpmtrace's own (db/db.h: db_schema_check)? Every
 * object that bears one of tpmtrace's names must be what tpmtrace made it: a
 * table a plain table, an index an index, a view one of the texts a version of
 * tpmtrace wrote; no trigger hangs on them. Checked before anything is read,
 * so that a view put in place of a table or a redefined view (a recursive CTE
 * that never ends, a blob of a gigabyte) is refused with its name instead of
 * running (docs/security.md, "Hostile databases"). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "schema_sql.h"

/* The views earlier versions of tpmtrace wrote, as they wrote them: a
 * database made by any of them is still tpmtrace's. A change of a view in
 * db/schema.sql adds the text it replaces here. */
static const char old_views[] =
    "CREATE VIEW command_stats AS\n"
    "WITH r AS (\n"
    "	SELECT trace_id, cc, seq, latency_ns,\n"
    "	       row_number() OVER (PARTITION BY trace_id, cc ORDER BY latency_ns, seq) AS rn,\n"
    "	       count(*) OVER (PARTITION BY trace_id, cc) AS n,\n"
    "	       first_value(latency_ns) OVER (PARTITION BY trace_id, cc ORDER BY seq) AS first_ns\n"
    "	FROM command WHERE latency_ns IS NOT NULL\n"
    ")\n"
    "SELECT r.trace_id, r.cc, coalesce(t.name, printf('0x%08X', r.cc)) AS name,\n"
    "       count(*) AS count,\n"
    "       sum(latency_ns) AS total_ns,\n"
    "       min(latency_ns) AS min_ns,\n"
    "       avg(latency_ns) AS mean_ns,\n"
    "       min(CASE WHEN rn * 100 >= n * 50 THEN latency_ns END) AS p50_ns,\n"
    "       min(CASE WHEN rn * 100 >= n * 95 THEN latency_ns END) AS p95_ns,\n"
    "       min(CASE WHEN rn * 100 >= n * 99 THEN latency_ns END) AS p99_ns,\n"
    "       max(latency_ns) AS max_ns,\n"
    "       max(first_ns) AS first_ns\n"
    "FROM r LEFT JOIN tpm_cc t ON t.cc = r.cc\n"
    "GROUP BY r.trace_id, r.cc;\n"
    "CREATE VIEW command_named AS\n"
    "SELECT c.trace_id, c.seq, c.t_submit_ns, c.cc,\n"
    "       coalesce(n.name, printf('0x%08X', c.cc)) AS name,\n"
    "       c.latency_ns / 1e6 AS latency_ms, c.rc, c.pcr, c.auth_kind, c.n_sessions,\n"
    "       c.client_id, c.flags, c.malformed\n"
    "FROM command c LEFT JOIN tpm_cc n ON n.cc = c.cc;\n"
    "CREATE VIEW command_stats AS\n"
    "WITH r AS (\n"
    "	SELECT trace_id, cc, seq, latency_ns,\n"
    "	       row_number() OVER (PARTITION BY trace_id, cc ORDER BY latency_ns, seq) AS rn,\n"
    "	       count(*) OVER (PARTITION BY trace_id, cc) AS n,\n"
    "	       first_value(latency_ns) OVER (PARTITION BY trace_id, cc ORDER BY seq) AS first_ns\n"
    "	FROM command WHERE latency_ns IS NOT NULL AND flags & 32 = 0\n"
    ")\n"
    "SELECT r.trace_id, r.cc, coalesce(t.name, printf('0x%08X', r.cc)) AS name,\n"
    "       count(*) AS count,\n"
    "       sum(latency_ns) AS total_ns,\n"
    "       min(latency_ns) AS min_ns,\n"
    "       avg(latency_ns) AS mean_ns,\n"
    "       min(CASE WHEN rn * 100 >= n * 50 THEN latency_ns END) AS p50_ns,\n"
    "       min(CASE WHEN rn * 100 >= n * 95 THEN latency_ns END) AS p95_ns,\n"
    "       min(CASE WHEN rn * 100 >= n * 99 THEN latency_ns END) AS p99_ns,\n"
    "       max(latency_ns) AS max_ns,\n"
    "       max(first_ns) AS first_ns\n"
    "FROM r LEFT JOIN tpm_cc t ON t.cc = r.cc\n"
    "GROUP BY r.trace_id, r.cc;\n"
    "CREATE VIEW trace_summary AS\n"
    "SELECT t.id AS trace_id, t.name, t.kind, t.status, t.commands, t.events, t.dropped,\n"
    "       (SELECT count(*) FROM command c WHERE c.trace_id = t.id) AS stored,\n"
    "       (SELECT sum(latency_ns) FROM command c WHERE c.trace_id = t.id) AS tpm_ns,\n"
    "       (SELECT max(t_done_ns) - min(t_submit_ns) FROM command c WHERE c.trace_id = t.id) AS "
    "span_ns,\n"
    "       (SELECT count(*) FROM command c WHERE c.trace_id = t.id AND c.flags & 2) AS malformed\n"
    "FROM trace t;\n"
    "CREATE VIEW trace_summary AS\n"
    "SELECT t.id AS trace_id, t.name, t.kind, t.status, t.commands, t.events, t.dropped,\n"
    "       (SELECT count(*) FROM command c WHERE c.trace_id = t.id) AS stored,\n"
    "       (SELECT sum(latency_ns) FROM command c WHERE c.trace_id = t.id AND c.flags & 32 = 0) "
    "AS tpm_ns,\n"
    "       (SELECT max(t_done_ns) - min(t_submit_ns) FROM command c\n"
    "        WHERE c.trace_id = t.id AND c.flags & 32 = 0) AS span_ns,\n"
    "       (SELECT count(*) FROM command c WHERE c.trace_id = t.id AND c.flags & 2) AS "
    "malformed,\n"
    "       (SELECT count(*) FROM command c WHERE c.trace_id = t.id AND c.flags & 32 = 0) AS "
    "client_commands,\n"
    "       (SELECT count(*) FROM command c WHERE c.trace_id = t.id AND c.flags & 32) AS "
    "tpmtrace_commands,\n"
    "       (SELECT sum(latency_ns) FROM command c WHERE c.trace_id = t.id) AS "
    "tpm_ns_incl_tpmtrace,\n"
    "       (SELECT max(t_done_ns) - min(t_submit_ns) FROM command c WHERE c.trace_id = t.id)\n"
    "         AS span_ns_incl_tpmtrace\n"
    "FROM trace t;\n";

#define MAX_OBJS 64

struct obj {
	char type[8];
	char name[32];
	char *sql; /* normalised; views only */
};

static struct obj objs[MAX_OBJS];
static size_t n_objs;
static int setup_rc;

/* The text of a statement with comments dropped and every run of white space
 * one blank, so that the comparison is about the SQL only. */
static char *normalise(const char *s)
{
	char *o = malloc(strlen(s) + 1), *p = o;
	int blank = 0;
	if (!o)
		return NULL;
	while (*s) {
		if (s[0] == '-' && s[1] == '-') {
			while (*s && *s != '\n')
				s++;
			blank = 1;
			continue;
		}
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
			blank = 1;
			s++;
			continue;
		}
		if (blank && p != o)
			*p++ = ' ';
		blank = 0;
		*p++ = *s++;
	}
	while (p > o && p[-1] == ';')
		p--;
	*p = 0;
	return o;
}

static struct obj *add(const char *type, const char *name, const char *sql)
{
	if (n_objs == MAX_OBJS || strlen(name) >= sizeof objs[0].name)
		return NULL;
	struct obj *o = &objs[n_objs++];
	snprintf(o->type, sizeof o->type, "%s", type);
	snprintf(o->name, sizeof o->name, "%s", name);
	o->sql = sql ? normalise(sql) : NULL;
	return o;
}

/* The end of the statement at s: its ';' outside quotes and comments, or the
 * end of the text. */
static const char *stmt_end(const char *s)
{
	for (; *s && *s != ';'; s++) {
		if (*s == '\'' || *s == '"') {
			char q = *s;
			while (*++s && *s != q)
				;
			if (!*s)
				break;
		} else if (s[0] == '-' && s[1] == '-') {
			while (s[1] && s[1] != '\n')
				s++;
		}
	}
	return s;
}

/* Reads a word of s into w (at most n - 1 characters); returns what follows. */
static const char *word(const char *s, char *w, size_t n)
{
	size_t k = 0;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	while (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r' && *s != '(') {
		if (k + 1 < n)
			w[k++] = *s;
		s++;
	}
	w[k] = 0;
	return s;
}

/* The objects of the CREATE TABLE, [UNIQUE] INDEX and VIEW statements of s,
 * a view with its text as SQLite stores it (from CREATE to the end of the
 * statement). 0, or -1 when one cannot be listed. */
static int add_statements(const char *s)
{
	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (s[0] == '-' && s[1] == '-') {
			while (*s && *s != '\n')
				s++;
			continue;
		}
		const char *end = stmt_end(s);
		char w[3][32];
		const char *r = word(word(s, w[0], sizeof w[0]), w[1], sizeof w[1]);
		if (!strcmp(w[0], "CREATE") && !strcmp(w[1], "UNIQUE"))
			r = word(r, w[1], sizeof w[1]);
		word(r, w[2], sizeof w[2]);
		if (!strcmp(w[0], "CREATE")) {
			const char *type = !strcmp(w[1], "TABLE")   ? "table"
					   : !strcmp(w[1], "INDEX") ? "index"
					   : !strcmp(w[1], "VIEW")  ? "view"
								    : NULL;
			char *text =
			    type && !strcmp(type, "view") ? strndup(s, (size_t)(end - s)) : NULL;
			int ok = type && (text || strcmp(type, "view")) && add(type, w[2], text);
			free(text);
			if (!ok)
				return -1;
		}
		s = *end ? end + 1 : end;
	}
	return 0;
}

/* The list: the embedded schema's objects (db/schema.sql), then the earlier
 * views. Read from the texts rather than made in a database in memory: that
 * took 40% of the instructions of a `tpmtrace stats` (test_db checks the list
 * against what SQLite makes). */
static void setup(void)
{
	setup_rc = add_statements(schema_sql) || add_statements(old_views) ? -EIO : 0;
}

/* 0 once the list is made (the first call makes it), else -EIO. */
static int schema_ready(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, setup);
	return setup_rc;
}

/* The expected type of name, or NULL for a name that is not tpmtrace's. */
static const char *expected_type(const char *name)
{
	schema_ready();
	for (size_t i = 0; i < n_objs; i++)
		if (!strcmp(objs[i].name, name))
			return objs[i].type;
	return NULL;
}

static int view_known(const char *name, const char *sql)
{
	char *n = normalise(sql);
	int known = 0;
	for (size_t i = 0; n && i < n_objs && !known; i++)
		known = objs[i].sql && !strcmp(objs[i].name, name) && !strcmp(objs[i].sql, n);
	free(n);
	return known;
}

const char *db_schema_type(const char *name)
{
	return expected_type(name);
}

int db_schema_view_known(const char *name, const char *sql)
{
	return !schema_ready() && view_known(name, sql);
}

int db_schema_check(sqlite3 *db, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = 0, src;
	if (schema_ready()) {
		snprintf(err, errlen, "cannot read the embedded schema");
		return -EIO;
	}
	if (sqlite3_prepare_v2(db, "SELECT type, name, tbl_name, sql FROM main.sqlite_schema", -1,
			       &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot read its schema: %s", sqlite3_errmsg(db));
		return -EIO;
	}
	while (!rc && (src = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *tbl = (const char *)sqlite3_column_text(st, 2);
		const char *sql = (const char *)sqlite3_column_text(st, 3);
		const char *want = name ? expected_type(name) : NULL;
		if (!type || !name)
			continue;
		if (!strcmp(type, "trigger") && tbl && expected_type(tbl)) {
			snprintf(
			    err, errlen,
			    "foreign schema: trigger %.40s on %.40s is not tpmtrace's (tpmtrace "
			    "makes no triggers)",
			    name, tbl);
			rc = -EINVAL;
		} else if (!want) {
			continue; /* the user's own object */
		} else if (strcmp(type, want) != 0) {
			snprintf(err, errlen,
				 "foreign schema: %.40s is a %.10s, tpmtrace's %.40s is a %.10s",
				 name, type, name, want);
			rc = -EINVAL;
		} else if (!strcmp(type, "table") && (!sql || strncmp(sql, "CREATE TABLE", 12))) {
			snprintf(err, errlen,
				 "foreign schema: table %.40s is not a plain table (%.40s...)",
				 name, sql ? sql : "no SQL");
			rc = -EINVAL;
		} else if (!strcmp(type, "view") && (!sql || !view_known(name, sql))) {
			snprintf(
			    err, errlen,
			    "foreign schema: view %.40s is not tpmtrace's (its SQL is none that "
			    "a tpmtrace version wrote)",
			    name);
			rc = -EINVAL;
		}
	}
	if (!rc && src != SQLITE_DONE) {
		snprintf(err, errlen, "cannot read its schema: %s", sqlite3_errmsg(db));
		rc = -EIO;
	}
	sqlite3_finalize(st);
	return rc;
}
