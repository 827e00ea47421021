/* Connecting to the fleet server and its schema (db/pg/schema.sql). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/pg/pg.h"
#include "model/tpm/tpm_cc.h"
#include "pg_schema_sql.h"

/* Copies s[0..n) into buf at *at, bounded. */
static void put(char *buf, size_t len, size_t *at, const char *s, size_t n)
{
	while (n-- && *at + 1 < len)
		buf[(*at)++] = *s++;
	buf[*at] = 0;
}

const char *pg_url_mask(const char *url, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	if (!url || !url[0]) {
		snprintf(buf, len, "(PG* environment)");
		return buf;
	}
	const char *s = url, *scheme = strstr(url, "://");
	if (scheme) {
		/* user:password@ before the host. */
		const char *auth = scheme + 3, *end = auth + strcspn(auth, "/?#");
		const char *amp = NULL;
		for (const char *p = auth; p < end; p++)
			if (*p == '@')
				amp = p;
		const char *colon = amp ? memchr(auth, ':', (size_t)(amp - auth)) : NULL;
		if (colon) {
			put(buf, len, &at, url, (size_t)(colon + 1 - url));
			put(buf, len, &at, "****", 4);
			s = amp;
		}
	}
	/* password=VALUE, in a query string or key=value form. */
	while (*s) {
		const char *p = strstr(s, "password=");
		if (!p) {
			put(buf, len, &at, s, strlen(s));
			break;
		}
		p += 9;
		put(buf, len, &at, s, (size_t)(p - s));
		put(buf, len, &at, "****", 4);
		s = p + strcspn(p, "& ");
	}
	return buf;
}

int pg_connect(const char *url, PGconn **out, char *err, size_t errlen)
{
	char masked[1024], *perr = NULL;
	*out = NULL;
	pg_url_mask(url, masked, sizeof masked);
	if (url && url[0]) {
		PQconninfoOption *opt = PQconninfoParse(url, &perr);
		if (!opt) {
			snprintf(err, errlen, "%s: not a connection URL or string%s", masked,
				 perr ? " (libpq could not parse it)" : "");
			PQfreemem(perr);
			return -EINVAL;
		}
		int pw = 0;
		for (PQconninfoOption *o = opt; o->keyword; o++)
			if (!strcmp(o->keyword, "password") && o->val && o->val[0])
				pw = 1;
		PQconninfoFree(opt);
		if (pw) {
			snprintf(err, errlen,
				 "%s: the URL holds a password, which the command line shows to "
				 "every user; put it in ~/.pgpass (or the file PGPASSFILE names)",
				 masked);
			return -EPERM;
		}
	}
	PGconn *c = PQconnectdb(url ? url : "");
	if (!c) {
		snprintf(err, errlen, "%s: out of memory", masked);
		return -ENOMEM;
	}
	if (PQstatus(c) != CONNECTION_OK) {
		char m[512];
		snprintf(m, sizeof m, "%s", PQerrorMessage(c));
		m[strcspn(m, "\n")] = 0;
		snprintf(err, errlen, "cannot connect to %s: %s", masked, m);
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
