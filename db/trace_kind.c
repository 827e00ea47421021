/* Trace kinds (db/trace_kind.h): the rules of db/trace_kind.def and the
 * trace_kind view of db/schema.sql, read from the embedded schema so that the
 * classification is written once. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "db/trace_kind.h"
#include "schema_sql.h"

static const struct db_trace_kind_rule rules[] = {
#define DB_TRACE_KIND(id, name, what, def, push, boot, timed) {name, what, def, push, boot, timed},
#include "db/trace_kind.def"
#undef DB_TRACE_KIND
};

const struct db_trace_kind_rule *db_trace_kind_rule(enum db_trace_kind k)
{
	return &rules[(unsigned)k < DB_TRACE_KIND_N ? k : DB_TRACE_KIND_UNFINISHED];
}

int db_trace_kind_by_name(const char *name)
{
	for (int k = 0; name && k < DB_TRACE_KIND_N; k++)
		if (!strcmp(rules[k].name, name))
			return k;
	return -1;
}

static char with_clause[2048];

/* "WITH trace_kind AS (<the view's SELECT>) " from the embedded schema. */
static void make_with(void)
{
	static const char head[] = "CREATE VIEW trace_kind AS\n";
	const char *p = strstr(schema_sql, head), *end;
	if (!p || !(end = strstr(p, ";\n")))
		return;
	p += sizeof head - 1;
	int n = snprintf(with_clause, sizeof with_clause, "WITH trace_kind AS (%.*s) ",
			 (int)(end - p), p);
	if (n < 0 || (size_t)n >= sizeof with_clause)
		with_clause[0] = 0;
}

const char *db_trace_kind_with(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, make_with);
	return with_clause;
}

/* Prepares db_trace_kind_with() followed by tail. */
static int prepare(sqlite3 *db, const char *tail, sqlite3_stmt **st)
{
	char sql[3072];
	snprintf(sql, sizeof sql, "%s%s", db_trace_kind_with(), tail);
	return sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK ? 0 : -EIO;
}

int db_trace_kind_of(sqlite3 *db, int64_t id, enum db_trace_kind *k)
{
	sqlite3_stmt *st;
	int rc = -EIO;
	if (prepare(db, "SELECT kind FROM trace_kind WHERE trace_id = ?", &st))
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	int src = sqlite3_step(st);
	if (src == SQLITE_ROW) {
		int n = db_trace_kind_by_name((const char *)sqlite3_column_text(st, 0));
		*k = n < 0 ? DB_TRACE_KIND_UNFINISHED : (enum db_trace_kind)n;
		rc = 0;
	} else if (src == SQLITE_DONE) {
		rc = -ENOENT;
	}
	sqlite3_finalize(st);
	return rc;
}

int db_trace_finished(sqlite3 *db, int64_t id, char *why, size_t n)
{
	enum db_trace_kind k;
	if (n)
		why[0] = 0;
	if (db_trace_kind_of(db, id, &k))
		return -1;
	if (k != DB_TRACE_KIND_UNFINISHED)
		return 1;
	sqlite3_stmt *st;
	if (n && sqlite3_prepare_v2(db,
				    "SELECT status, kind, (SELECT count(*) FROM command"
				    " WHERE trace_id=t.id) FROM trace t WHERE id=?",
				    -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *status = (const char *)sqlite3_column_text(st, 0),
				   *kind = (const char *)sqlite3_column_text(st, 1);
			const char *by = kind && !strcmp(kind, "import")   ? "import"
					 : kind && !strcmp(kind, "replay") ? "replay"
									   : "recorder";
			long long cmds = sqlite3_column_int64(st, 2);
			if (status && !strcmp(status, "recording"))
				snprintf(why, n,
					 "status 'recording': its %s is still writing it, or was "
					 "killed before closing it; %lld commands committed",
					 by, cmds);
			else
				snprintf(why, n,
					 "status '%s': its %s stopped part-way; %lld commands "
					 "committed",
					 status ? status : "", by, cmds);
		}
		sqlite3_finalize(st);
	}
	return 0;
}

int64_t db_trace_latest(sqlite3 *db, int replay, int64_t *unfinished)
{
	sqlite3_stmt *st;
	int64_t id = 0;
	*unfinished = 0;
	if (prepare(db,
		    "SELECT coalesce(max(CASE WHEN k.kind <> 'unfinished' THEN t.id END), 0),"
		    " coalesce(max(CASE WHEN k.kind = 'unfinished' THEN t.id END), 0)"
		    " FROM trace_kind k JOIN trace t ON t.id = k.trace_id"
		    " WHERE ?1 = 0 OR t.kind = 'replay'",
		    &st))
		return -EIO;
	sqlite3_bind_int(st, 1, replay);
	if (sqlite3_step(st) == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		*unfinished = sqlite3_column_int64(st, 1);
	} else {
		id = -EIO;
	}
	sqlite3_finalize(st);
	return id;
}

int64_t db_trace_default(sqlite3 *db, char *why, size_t whylen)
{
	sqlite3_stmt *st;
	int64_t best[3] = {0, 0, 0}, n = 0;
	if (prepare(db, "SELECT trace_id, kind FROM trace_kind", &st)) {
		snprintf(why, whylen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	int src;
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		int k = db_trace_kind_by_name((const char *)sqlite3_column_text(st, 1));
		int rank = k < 0 ? 0 : rules[k].default_rank;
		n++;
		if (id > best[rank])
			best[rank] = id;
	}
	sqlite3_finalize(st);
	if (src != SQLITE_DONE) {
		snprintf(why, whylen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	if (best[1] || best[2])
		return best[1] ? best[1] : best[2];
	if (!n)
		snprintf(why, whylen, "the database holds no trace");
	else
		snprintf(why, whylen,
			 "the database holds no recording or import, only replays, derived or "
			 "unfinished traces: pick one with --trace ID (tpmtrace list)");
	return 0;
}

void db_trace_kind_policy(sqlite3 *db, int64_t id, char *kind, size_t klen, char *policy,
			  size_t plen)
{
	sqlite3_stmt *st;
	kind[0] = policy[0] = 0;
	if (sqlite3_prepare_v2(db, "SELECT kind, policy FROM trace WHERE id=?", -1, &st, NULL))
		return;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *p = (const char *)sqlite3_column_text(st, 1);
		snprintf(kind, klen, "%s", k ? k : "");
		snprintf(policy, plen, "%s", p ? p : "");
	}
	sqlite3_finalize(st);
}
