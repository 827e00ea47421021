/* Profiles in a tpmtrace database (the profile and profile_entry tables,
 * docs/schema.md): stored, loaded, and learned from a trace's latencies. */
#include "model/profile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "db/stats.h"

static int have_tables(sqlite3 *db, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int n = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT count(*) FROM sqlite_schema WHERE type='table' AND name IN "
			       "('profile','profile_entry')",
			       -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (n != 2) {
		snprintf(err, errlen,
			 "the database has no profile tables (created by an older tpmtrace); "
			 "store profiles in a new database");
		return -ENOENT;
	}
	return 0;
}

static void bind_ms(sqlite3_stmt *st, int i, double ms)
{
	if (isnan(ms))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, llround(ms * 1e6));
}

int profile_db_store_path(const char *dbpath, const struct profile *p, int replace, char *err,
			  size_t errlen)
{
	char why[1024];
	sqlite3 *db = NULL;
	int rc = db_open(dbpath, DB_CREATE, &db, err, errlen);
	if (rc)
		return rc;
	rc = profile_db_store(db, p, replace, why, sizeof why);
	db_close(db);
	if (rc)
		snprintf(err, errlen, "%s: %s", dbpath, why);
	return rc;
}

int profile_db_store(sqlite3 *db, const struct profile *p, int replace, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc = have_tables(db, err, errlen);
	int64_t id = 0;
	if (rc)
		return rc;
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	if (sqlite3_prepare_v2(db, "SELECT id FROM profile WHERE name=?", -1, &st, NULL))
		goto dberr;
	sqlite3_bind_text(st, 1, p->name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (id && !replace) {
		snprintf(err, errlen, "a profile named '%s' is already stored (use --replace)",
			 p->name);
		rc = -EEXIST;
		goto out;
	}
	if (id) {
		char sql[128];
		snprintf(sql, sizeof sql,
			 "DELETE FROM profile_entry WHERE profile_id=%lld;"
			 "DELETE FROM profile WHERE id=%lld",
			 (long long)id, (long long)id);
		if (sqlite3_exec(db, sql, NULL, NULL, NULL))
			goto dberr;
	}
	if (sqlite3_prepare_v2(
		db,
		"INSERT INTO profile (name, vendor, chip, firmware, bus, measured_by,"
		" date, source, note, covers, lacks, transport_ns, fallback_ns,"
		" created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,"
		" strftime('%Y-%m-%dT%H:%M:%SZ','now'))",
		-1, &st, NULL))
		goto dberr;
	const char *txt[] = {p->name, p->vendor, p->chip, p->firmware, p->bus,	p->measured_by,
			     p->date, p->source, p->note, p->covers,   p->lacks};
	for (int i = 0; i < 11; i++)
		sqlite3_bind_text(st, i + 1, txt[i], -1, SQLITE_STATIC);
	bind_ms(st, 12, p->transport_ms);
	bind_ms(st, 13, p->fallback_ms);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto dberr;
	id = sqlite3_last_insert_rowid(db);
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(
		db,
		"INSERT INTO profile_entry (profile_id, seq, cc, auth, variant, n,"
		" mean_ns, p50_ns, p95_ns, stdev_ns, min_ns, max_ns, comment,"
		" p90_ns, p99_ns, derived_from) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		-1, &st, NULL))
		goto dberr;
	for (size_t i = 0; i < p->n; i++) {
		const struct prof_entry *e = &p->e[i];
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		sqlite3_bind_int64(st, 3, e->cc);
		sqlite3_bind_text(st, 4, profile_auth_str(e->auth), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, e->variant, -1, SQLITE_STATIC);
		if (e->n)
			sqlite3_bind_int64(st, 6, (int64_t)e->n);
		else
			sqlite3_bind_null(st, 6);
		bind_ms(st, 7, e->mean_ms);
		bind_ms(st, 8, e->p50_ms);
		bind_ms(st, 9, e->p95_ms);
		bind_ms(st, 10, e->stdev_ms);
		bind_ms(st, 11, e->min_ms);
		bind_ms(st, 12, e->max_ms);
		sqlite3_bind_text(st, 13, e->comment, -1, SQLITE_STATIC);
		bind_ms(st, 14, e->p90_ms);
		bind_ms(st, 15, e->p99_ms);
		if (e->derived_from)
			sqlite3_bind_int64(st, 16, e->derived_from);
		else
			sqlite3_bind_null(st, 16);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto dberr;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL))
		goto dberr;
	return 0;
dberr:
	snprintf(err, errlen, "storing profile '%s': %s", p->name, sqlite3_errmsg(db));
	rc = -EIO;
out:
	sqlite3_finalize(st);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static double col_ms(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return NAN;
	return (double)sqlite3_column_int64(st, i) / 1e6;
}

int profile_db_load(sqlite3 *db, const char *name, struct profile *p, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int64_t id = 0;
	int rc = have_tables(db, err, errlen);
	profile_init(p);
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(db,
			       "SELECT id, name, vendor, chip, firmware, bus, measured_by, date,"
			       " source, note, covers, lacks, transport_ns, fallback_ns"
			       " FROM profile WHERE name=?",
			       -1, &st, NULL))
		goto dberr;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		goto dberr; /* a read error is not "no such profile" */
	if (rc != SQLITE_ROW) {
		snprintf(err, errlen, "no profile named '%s' in the database", name);
		rc = -ENOENT;
		goto out;
	}
	id = sqlite3_column_int64(st, 0);
	static const char *const keys[] = {"name", "vendor",	  "chip", "firmware",
					   "bus",  "measured-by", "date", "source",
					   "note", "covers",	  "lacks"};
	for (int i = 0; i < 11; i++) {
		const char *v = (const char *)sqlite3_column_text(st, i + 1);
		if (v && (rc = profile_set(p, keys[i], v)))
			goto out;
	}
	p->transport_ms = col_ms(st, 12);
	if (isnan(p->transport_ms))
		p->transport_ms = 0;
	p->fallback_ms = col_ms(st, 13);
	sqlite3_finalize(st);
	/* p90, p99 and derived_from are new in schema version 4: a file of version 3 opened
	 * read-only has not got them. */
	if (sqlite3_prepare_v2(
		db,
		"SELECT cc, auth, variant, n, mean_ns, p50_ns, p95_ns, stdev_ns,"
		" min_ns, max_ns, comment, p90_ns, p99_ns, derived_from FROM profile_entry"
		" WHERE profile_id=? ORDER BY seq",
		-1, &st, NULL) &&
	    sqlite3_prepare_v2(db,
			       "SELECT cc, auth, variant, n, mean_ns, p50_ns, p95_ns, stdev_ns,"
			       " min_ns, max_ns, comment, NULL, NULL, NULL FROM profile_entry"
			       " WHERE profile_id=? ORDER BY seq",
			       -1, &st, NULL))
		goto dberr;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct prof_entry e = {0};
		char msg[200];
		const char *a = (const char *)sqlite3_column_text(st, 1);
		const char *v = (const char *)sqlite3_column_text(st, 2);
		int ak = a ? profile_auth_parse(a) : -1;
		e.cc = (uint32_t)sqlite3_column_int64(st, 0);
		e.n = (uint64_t)sqlite3_column_int64(st, 3);
		e.mean_ms = col_ms(st, 4);
		e.p50_ms = col_ms(st, 5);
		e.p95_ms = col_ms(st, 6);
		e.stdev_ms = col_ms(st, 7);
		e.min_ms = col_ms(st, 8);
		e.max_ms = col_ms(st, 9);
		e.comment = (char *)sqlite3_column_text(st, 10);
		e.p90_ms = col_ms(st, 11);
		e.p99_ms = col_ms(st, 12);
		e.derived_from = (uint32_t)sqlite3_column_int64(st, 13);
		if (ak < 0 || !v || strlen(v) >= sizeof e.variant ||
		    profile_check_entry(&e, msg, sizeof msg)) {
			snprintf(err, errlen, "profile '%s' in the database: entry %zu is corrupt",
				 name, p->n + 1);
			rc = -EINVAL;
			goto out;
		}
		e.auth = (uint8_t)ak;
		strcpy(e.variant, v);
		if ((rc = profile_add(p, &e)))
			goto out;
	}
	if (rc != SQLITE_DONE)
		goto dberr;
	rc = 0;
	goto out;
dberr:
	snprintf(err, errlen, "loading profile '%s': %s", name, sqlite3_errmsg(db));
	rc = -EIO;
out:
	sqlite3_finalize(st);
	if (rc)
		profile_release(p);
	return rc;
}

int profile_db_list(sqlite3 *db, void (*fn)(void *ctx, const struct profile *p), void *ctx,
		    char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = have_tables(db, err, errlen);
	if (rc)
		return rc;
	if (sqlite3_prepare_v2(db, "SELECT name FROM profile ORDER BY name", -1, &st, NULL)) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	/* One that does not load is skipped, its error kept (as the shipped ones). */
	int bad = 0;
	char why[1024];
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct profile p;
		const char *name = (const char *)sqlite3_column_text(st, 0);
		if (profile_db_load(db, name ? name : "", &p, why, sizeof why)) {
			if (!bad)
				snprintf(err, errlen, "%s", why);
			bad = 1;
			continue;
		}
		fn(ctx, &p);
		profile_release(&p);
	}
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return -EIO;
	}
	sqlite3_finalize(st);
	return bad ? -EINVAL : 0;
}

int profile_learn(sqlite3 *db, int64_t trace_id, struct profile *p, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	double *v = NULL;
	size_t n = 0, cap = 0;
	int64_t cur_cc = -1, cur_auth = -1;
	int rc = 0, step;
	char buf[256];

	profile_init(p);
	/* Sorted by group so that each group's samples are contiguous; the
	 * sample array is reused across groups. */
	if (sqlite3_prepare_v2(db,
			       "SELECT cc, coalesce(auth_kind, 0), latency_ns FROM command"
			       " WHERE trace_id=? AND latency_ns IS NOT NULL AND cc IS NOT NULL"
			       " AND (flags & 10) = 0 AND " DB_CLIENT_CMDS
			       " AND (rc = 0 OR rc IS NULL) ORDER BY cc, 2",
			       -1, &st, NULL)) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, trace_id);
	for (;;) {
		step = sqlite3_step(st);
		int64_t cc = -2, auth = -2;
		if (step == SQLITE_ROW) {
			cc = sqlite3_column_int64(st, 0);
			auth = sqlite3_column_int64(st, 1);
		} else if (step != SQLITE_DONE) {
			snprintf(err, errlen, "reading trace %lld: %s", (long long)trace_id,
				 sqlite3_errmsg(db));
			rc = -EIO;
			goto out;
		}
		if ((cc != cur_cc || auth != cur_auth) && n) {
			struct prof_entry e = {0};
			e.cc = (uint32_t)cur_cc;
			e.auth = cur_auth >= 0 && cur_auth <= 5 ? (uint8_t)cur_auth : 0;
			strcpy(e.variant, "-");
			profile_entry_stats(&e, v, n);
			/* A command answered in under a microsecond is a cached or
			 * synthetic time, not a latency: clamp to 1 us. */
			profile_entry_floor(&e, 0.001);
			if (profile_check_entry(&e, buf, sizeof buf) == 0)
				rc = profile_add(p, &e);
			if (rc == -EEXIST)
				rc = 0;
			if (rc)
				goto out;
			n = 0;
		}
		if (step == SQLITE_DONE)
			break;
		cur_cc = cc;
		cur_auth = auth;
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			double *nv = realloc(v, cap * sizeof *v);
			if (!nv) {
				rc = -ENOMEM;
				goto out;
			}
			v = nv;
		}
		v[n++] = (double)sqlite3_column_int64(st, 2) / 1e6;
	}
	if (!p->n) {
		snprintf(err, errlen, "trace %lld has no commands with a latency to learn from",
			 (long long)trace_id);
		rc = -ENOENT;
		goto out;
	}
	snprintf(buf, sizeof buf, "learned-trace-%lld", (long long)trace_id);
	profile_set(p, "name", buf);
	snprintf(buf, sizeof buf, "tpmtrace profile learn, trace %lld", (long long)trace_id);
	profile_set(p, "source", buf);
	profile_set(p, "measured-by", "tpmtrace (recorded latencies)");
	profile_set(p, "covers",
		    "the commands of the trace, as recorded (variants not told apart)");
	profile_set(p, "note",
		    "Latencies as seen by the recorder include its transport; transport-ms is 0.");
out:
	sqlite3_finalize(st);
	free(v);
	if (rc)
		profile_release(p);
	return rc;
}
