/* Connecting to the fleet server and its schema (db/pg/schema.sql). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/pg/pg.h"
#include "db/utf8.h"
#include "model/tpm/tpm_cc.h"
#include "pg_schema_sql.h"

/* A value for a message: bytes a terminal would act on (controls, bytes of
 * no UTF-8 character) and '\' as \xHH, cut at len. */
static void put_val(char *buf, size_t len, size_t *at, const char *v)
{
	const unsigned char *s = (const unsigned char *)v;
	size_t n = strlen(v);
	for (size_t i = 0; i < n && *at + 1 < len;) {
		size_t k =
		    s[i] >= 0x20 && s[i] != 0x7f && s[i] != '\\' ? db_utf8_seq(s + i, n - i) : 0;
		if (k && *at + k < len) {
			memcpy(buf + *at, s + i, k);
			*at += k;
			i += k;
		} else if (!k && *at + 4 < len) {
			*at += (size_t)snprintf(buf + *at, len - *at, "\\x%02x", s[i++]);
		} else {
			break;
		}
	}
	buf[*at] = 0;
}

/* "host H, port P, database D, user U" (hostaddr A after the host when
 * given); a NULL value is libpq's default. */
static void describe(const char *const v[5], char *buf, size_t len)
{
	static const char *const name[5] = {"host", "hostaddr", "port", "database", "user"};
	size_t at = 0;
	buf[0] = 0;
	for (int i = 0; i < 5; i++) {
		if (i == 1 && (!v[1] || !v[1][0]))
			continue;
		put_val(buf, len, &at, at ? ", " : "");
		put_val(buf, len, &at, name[i]);
		put_val(buf, len, &at, " ");
		put_val(buf, len, &at, v[i] && v[i][0] ? v[i] : "(libpq's default)");
	}
}

/* The keywords describe() shows, in its order. */
static const char *const shown[5] = {"host", "hostaddr", "port", "dbname", "user"};

/* libpq reads a database name that is a URL or holds '=' as a connection
 * string where it expands one (PQconnectdbParams): never shown. */
static int is_conninfo(const char *v)
{
	return v && (strchr(v, '=') || !strncmp(v, "postgresql://", 13) ||
		     !strncmp(v, "postgres://", 11));
}

/* What url holds: the five values shown (libpq's defaults, from the PG*
 * environment, where it gives none), whether it holds a secret (password,
 * sslpassword) and a database name that is a connection string. NULL: libpq
 * could not parse it. The values point into the two arrays returned, which
 * the caller frees with PQconninfoFree. */
struct parsed {
	PQconninfoOption *opt, *def;
	const char *v[5];
	int secret, nested;
};

static void parsed_free(struct parsed *p)
{
	PQconninfoFree(p->opt);
	PQconninfoFree(p->def);
}

static int parse(const char *url, struct parsed *p)
{
	char *perr = NULL;
	memset(p, 0, sizeof *p);
	/* The parser's message quotes the string: it is never shown. */
	p->opt = PQconninfoParse(url && url[0] ? url : "", &perr);
	PQfreemem(perr);
	if (!p->opt)
		return -EINVAL;
	p->def = PQconndefaults();
	for (PQconninfoOption *o = p->opt; o->keyword; o++) {
		if ((!strcmp(o->keyword, "password") || !strcmp(o->keyword, "sslpassword")) &&
		    o->val && o->val[0])
			p->secret = 1;
		for (int i = 0; i < 5; i++)
			if (!strcmp(o->keyword, shown[i]))
				p->v[i] = o->val;
	}
	for (PQconninfoOption *o = p->def; o && o->keyword; o++)
		for (int i = 0; i < 5; i++)
			if (!strcmp(o->keyword, shown[i]) && !p->v[i])
				p->v[i] = o->val;
	if (is_conninfo(p->v[3])) {
		p->nested = 1;
		struct parsed in;
		int bad = parse(p->v[3], &in);
		p->secret |= in.secret;
		parsed_free(&in);
		if (bad)
			return -EINVAL;
		p->v[3] = "(a connection string, not shown)";
	}
	return 0;
}

static const char unparsed[] =
    "the connection string could not be parsed by libpq (not shown: it may hold a password)";

int pg_conninfo_describe(const char *url, char *buf, size_t len)
{
	struct parsed p;
	int rc = pg_pq_load(buf, len);
	if (rc)
		return rc;
	if (parse(url, &p)) {
		parsed_free(&p);
		snprintf(buf, len, "%s", unparsed);
		return -EINVAL;
	}
	describe(p.v, buf, len);
	parsed_free(&p);
	return 0;
}

void pg_conn_describe(PGconn *c, char *buf, size_t len)
{
	const char *v[5] = {PQhost(c), NULL, PQport(c), PQdb(c), PQuser(c)};
	if (is_conninfo(v[3]))
		v[3] = "(a connection string, not shown)";
	describe(v, buf, len);
}

int pg_connect(const char *url, PGconn **out, char *err, size_t errlen)
{
	char where[512];
	struct parsed p;
	*out = NULL;
	int rc = pg_pq_load(err, errlen);
	if (rc)
		return rc;
	/* Parsed first: nothing is sent for a string libpq cannot read, or
	 * one that holds a password. */
	if (parse(url, &p)) {
		parsed_free(&p);
		snprintf(err, errlen, "%s", unparsed);
		return -EINVAL;
	}
	describe(p.v, where, sizeof where);
	int secret = p.secret, nested = p.nested;
	parsed_free(&p);
	if (secret) {
		snprintf(err, errlen,
			 "the connection string (%s) holds a password, which the command line "
			 "shows to every user; put it in ~/.pgpass (or the file PGPASSFILE names)",
			 where);
		return -EPERM;
	}
	/* PQconnectdb would take it as the database's name, and the server's
	 * answer would quote it. */
	if (nested) {
		snprintf(err, errlen,
			 "the connection string (%s) gives a connection string as the database "
			 "name, which is not expanded here; give its parts in the string itself",
			 where);
		return -EINVAL;
	}
	PGconn *c = PQconnectdb(url ? url : "");
	if (!c) {
		snprintf(err, errlen, "cannot connect to the server (%s): out of memory", where);
		return -ENOMEM;
	}
	if (PQstatus(c) != CONNECTION_OK) {
		char m[512];
		snprintf(m, sizeof m, "%s", PQerrorMessage(c));
		m[strcspn(m, "\n")] = 0;
		pg_conn_describe(c, where, sizeof where);
		snprintf(err, errlen, "cannot connect to the server (%s): %s", where, m);
		PQfinish(c);
		return -ECONNREFUSED;
	}
	PQsetClientEncoding(c, "UTF8");
	*out = c;
	return 0;
}

/* The server's message of a failed result, on one line. */
static void res_err(PGconn *c, PGresult *r, const char *what, char *err, size_t errlen)
{
	char m[512];
	snprintf(m, sizeof m, "%s", r ? PQresultErrorMessage(r) : PQerrorMessage(c));
	if (!m[0])
		snprintf(m, sizeof m, "%s", PQerrorMessage(c));
	m[strcspn(m, "\n")] = 0;
	snprintf(err, errlen, "%s: %s", what, m);
}

/* Runs sql; 0, or -EIO with the server's message. */
static int run(PGconn *c, const char *sql, const char *what, char *err, size_t errlen)
{
	PGresult *r = PQexec(c, sql);
	int ok =
	    r && (PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK);
	if (!ok)
		res_err(c, r, what, err, errlen);
	PQclear(r);
	return ok ? 0 : -EIO;
}

static int fill_cc(PGconn *c, char *err, size_t errlen)
{
	const struct tpm_cc_info *i;
	char line[256];
	PGresult *r = PQexec(c, "COPY tpm_cc FROM STDIN");
	if (!r || PQresultStatus(r) != PGRES_COPY_IN) {
		res_err(c, r, "filling tpm_cc", err, errlen);
		PQclear(r);
		return -EIO;
	}
	PQclear(r);
	for (unsigned k = 0; (i = tpm_cc_at(k)); k++) {
		int n = snprintf(line, sizeof line, "%u\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", i->cc,
				 i->name, i->handles_in, i->auth_handles, i->handles_out,
				 i->cmd_tpm2b, i->rsp_tpm2b, i->destructive);
		if (PQputCopyData(c, line, n) != 1)
			break;
	}
	PQputCopyEnd(c, NULL);
	r = PQgetResult(c);
	int ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		res_err(c, r, "filling tpm_cc", err, errlen);
	PQclear(r);
	while ((r = PQgetResult(c)))
		PQclear(r);
	return ok ? 0 : -EIO;
}

/* What the database holds: 1 our schema (its version in *ver), 0 nothing of
 * ours nor a table named like ours, -EPROTO another application's. */
static int inspect(PGconn *c, long *ver, char *err, size_t errlen)
{
	PGresult *r = PQexec(c, "SELECT to_regclass('tpmtrace_meta') IS NOT NULL,"
				" to_regclass('trace') IS NOT NULL OR to_regclass('command') IS"
				" NOT NULL OR to_regclass('event') IS NOT NULL");
	if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
		res_err(c, r, "reading the server's schema", err, errlen);
		PQclear(r);
		return -EIO;
	}
	int meta = PQgetvalue(r, 0, 0)[0] == 't', tables = PQgetvalue(r, 0, 1)[0] == 't';
	PQclear(r);
	if (!meta) {
		if (!tables)
			return 0;
		snprintf(err, errlen,
			 "the database has tables named trace, command or event but no "
			 "tpmtrace_meta: another application's schema; use a database of its own "
			 "for tpmtrace");
		return -EPROTO;
	}
	r = PQexec(c, "SELECT (SELECT value FROM tpmtrace_meta WHERE key='application'),"
		      " (SELECT value FROM tpmtrace_meta WHERE key='schema_version')");
	if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
		res_err(c, r, "reading tpmtrace_meta", err, errlen);
		PQclear(r);
		return -EIO;
	}
	const char *app = PQgetisnull(r, 0, 0) ? "" : PQgetvalue(r, 0, 0);
	const char *v = PQgetisnull(r, 0, 1) ? "" : PQgetvalue(r, 0, 1);
	char *end;
	*ver = strtol(v, &end, 10);
	int bad = strcmp(app, "tpmtrace") || !v[0] || *end;
	if (bad)
		snprintf(err, errlen,
			 "tpmtrace_meta holds application '%.40s', schema version '%.20s': not a "
			 "tpmtrace fleet schema",
			 app, v);
	PQclear(r);
	return bad ? -EPROTO : 1;
}

/* Version 1 to 2: trace_host.tpm_profile; the firmware as TPMScan and the
 * profiles write it (four 16-bit numbers, "7.85.17.51968") instead of hex
 * "00070055.0011cb00"; the views made again (fleet_trace gains tpm_profile).
 * A trace pushed before has no profile (NULL). */
static const char migrate_1_2[] =
    "ALTER TABLE trace_host ADD COLUMN IF NOT EXISTS tpm_profile text;"
    " UPDATE trace_host SET tpm_firmware = concat_ws('.',"
    " ('x' || substr(tpm_firmware, 1, 4))::bit(16)::int,"
    " ('x' || substr(tpm_firmware, 5, 4))::bit(16)::int,"
    " ('x' || substr(tpm_firmware, 10, 4))::bit(16)::int,"
    " ('x' || substr(tpm_firmware, 14, 4))::bit(16)::int)"
    " WHERE tpm_firmware ~ '^[0-9a-f]{8}\\.[0-9a-f]{8}$';"
    " UPDATE tpmtrace_meta SET value = '2' WHERE key = 'schema_version';";

/* The views of the schema (its text from the "-- Views:" line on, each a
 * CREATE OR REPLACE VIEW), for a migration. */
static const char *schema_views(void)
{
	const char *v = strstr(pg_schema_sql, "\n-- Views:");
	return v ? v + 1 : NULL;
}

int pg_schema_ensure(PGconn *c, int create, char *err, size_t errlen)
{
	long ver = 0;
	char sql[256];
	/* One creator at a time: concurrent first pushes wait here, and the
	 * others then find the schema made. */
	int rc = run(c, "BEGIN; SELECT pg_advisory_xact_lock(1414548820)", "locking the schema",
		     err, errlen);
	if (rc)
		return rc;
	rc = inspect(c, &ver, err, errlen);
	if (rc == 0 && !create) {
		snprintf(err, errlen, "no tpmtrace schema on the server: nothing pushed yet");
		rc = -ENOENT;
	} else if (rc == 0) {
		snprintf(sql, sizeof sql,
			 "INSERT INTO tpmtrace_meta VALUES ('application','tpmtrace'),"
			 " ('schema_version','%d'), ('created_by','tpmtrace " TPMTRACE_VERSION "')",
			 PG_SCHEMA_VERSION);
		rc = run(c, pg_schema_sql, "creating the schema", err, errlen);
		if (!rc)
			rc = fill_cc(c, err, errlen);
		if (!rc)
			rc = run(c, sql, "creating the schema", err, errlen);
	} else if (rc == 1 && ver == 1 && PG_SCHEMA_VERSION == 2) {
		rc = run(c, migrate_1_2, "migrating the schema from version 1", err, errlen);
		if (!rc)
			rc = schema_views() ? run(c, schema_views(), "migrating the schema's views",
						  err, errlen)
					    : -EIO;
	} else if (rc == 1 && ver != PG_SCHEMA_VERSION) {
		snprintf(
		    err, errlen,
		    "the server's tpmtrace schema is version %ld, this tpmtrace writes version "
		    "%d and has no migration from it; %s",
		    ver, PG_SCHEMA_VERSION,
		    ver > PG_SCHEMA_VERSION ? "use a newer tpmtrace" : "push into a new database");
		rc = -EPROTO;
	} else if (rc == 1) {
		rc = 0;
	}
	if (rc) {
		run(c, "ROLLBACK", "rollback", NULL, 0);
		return rc;
	}
	return run(c, "COMMIT", "creating the schema", err, errlen);
}
