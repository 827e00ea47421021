/* show's filters and statements (model/trace_query.h). */
#include "model/trace_query.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db/db.h"
#include "db/text.h"
#include "model/tpm/tpm_cc.h"

/* --client NAME: the clients of that name, else those whose name begins
 * with it; a name stored cut (ending in DB_NAME_CUT) matches a name it
 * begins. */
#define CLIENT_NAME                                                                                \
	"trace_id=:trace AND (comm=:comm OR (NOT EXISTS (SELECT 1 FROM client WHERE"               \
	" trace_id=:trace AND comm=:comm) AND (substr(comm, 1, length(:comm))=:comm OR"            \
	" (substr(comm, -1)='" DB_NAME_CUT "' AND length(comm) > 1 AND substr(:comm, 1,"           \
	" length(comm) - 1)=substr(comm, 1, length(comm) - 1)))))"
/* --client pid:N (the value :v%u) */
#define CLIENT_PID "trace_id=:trace AND pid=:v%u"

static int parse_i64(const char *s, int base, int64_t *v)
{
	char *e;
	errno = 0;
	long long x = strtoll(s, &e, base);
	if (errno || e == s || *e || x < 0)
		return -1;
	*v = x;
	return 0;
}

/* A new value :vN; returns N. */
static unsigned add_val(struct trace_query *q, int64_t v)
{
	q->val[q->n_val] = v;
	return q->n_val++;
}

__attribute__((format(printf, 2, 3))) static void cat(struct trace_query *q, const char *fmt, ...)
{
	size_t l = strlen(q->where);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(q->where + l, sizeof q->where - l, fmt, ap);
	va_end(ap);
}

static int filter_cc(struct trace_query *q, const char *cc, char *err, size_t errlen)
{
	char buf[512];
	snprintf(buf, sizeof buf, "%s", cc);
	cat(q, " AND cc IN (");
	int n = 0;
	for (char *sp, *t = strtok_r(buf, ",", &sp); t; t = strtok_r(NULL, ",", &sp)) {
		int64_t v = 0;
		if (!(v = tpm_cc_from_name(t)) && (strncasecmp(t, "0x", 2) || parse_i64(t, 16, &v)))
			return db_errf(err, errlen, -EINVAL,
				       "--cc: '%s' is neither a command name nor a hex code", t);
		if (n >= 30)
			return db_errf(err, errlen, -EINVAL, "--cc: at most 30 codes");
		cat(q, n++ ? ",:v%u" : ":v%u", add_val(q, v));
	}
	if (!n)
		return db_errf(err, errlen, -EINVAL, "--cc: which command codes?");
	cat(q, ")");
	return 0;
}

static int filter_client(struct trace_query *q, const char *client, char *err, size_t errlen)
{
	int64_t v;
	if (!parse_i64(client, 10, &v)) {
		q->client_val = (int)add_val(q, v);
		cat(q, " AND client_id = :v%d", q->client_val);
	} else if (!strncmp(client, "pid:", 4)) {
		if (parse_i64(client + 4, 10, &v))
			return db_errf(err, errlen, -EINVAL, "--client: '%s': pid:N takes a number",
				       client);
		q->client_val = (int)add_val(q, v);
		q->client_pid = 1;
		cat(q, " AND client_id IN (SELECT id FROM client WHERE " CLIENT_PID ")",
		    (unsigned)q->client_val);
	} else {
		q->comm = client;
		cat(q, " AND client_id IN (SELECT id FROM client WHERE " CLIENT_NAME ")");
	}
	return 0;
}

static int filter_seq(struct trace_query *q, const char *seq, char *err, size_t errlen)
{
	const char *dash = strchr(seq + 1, '-');
	char a[32];
	snprintf(a, sizeof a, "%.*s", dash ? (int)(dash - seq) : 31, seq);
	if (parse_i64(a, 10, &q->seq_a) ||
	    (dash ? parse_i64(dash + 1, 10, &q->seq_b) : (q->seq_b = q->seq_a, 0)) ||
	    q->seq_b < q->seq_a)
		return db_errf(err, errlen, -EINVAL, "--seq: '%s' is not N or A-B (A <= B)", seq);
	q->has_seq = 1;
	unsigned ia = add_val(q, q->seq_a), ib = add_val(q, q->seq_b);
	cat(q, " AND seq BETWEEN :v%u AND :v%u", ia, ib);
	snprintf(q->ev_where, sizeof q->ev_where, " AND seq BETWEEN :v%u AND :v%u", ia, ib);
	return 0;
}

int trace_query_build(struct trace_query *q, const struct trace_query_args *a, char *err,
		      size_t errlen)
{
	int64_t v;
	int rc;
	memset(q, 0, sizeof *q);
	q->client_val = -1;
	if (a->cc && (rc = filter_cc(q, a->cc, err, errlen)))
		return rc;
	if (a->rc) {
		if (!strcasecmp(a->rc, "ok"))
			cat(q, " AND rc = 0");
		else if (!strcasecmp(a->rc, "error"))
			cat(q, " AND rc <> 0");
		else if (!parse_i64(a->rc, 16, &v))
			cat(q, " AND rc = :v%u", add_val(q, v));
		else
			return db_errf(err, errlen, -EINVAL,
				       "--rc: '%s' is not ok, error or a hex code", a->rc);
	}
	if (a->client && (rc = filter_client(q, a->client, err, errlen)))
		return rc;
	if (a->seq && (rc = filter_seq(q, a->seq, err, errlen)))
		return rc;
	if (a->has_slower)
		cat(q, " AND latency_ns > :v%u", add_val(q, (int64_t)(a->slower_ms * 1e6)));
	if (a->cc || a->rc || a->client || a->has_slower)
		snprintf(q->ev_where, sizeof q->ev_where, " AND 0");
	return 0;
}

/* Binds every named parameter st has: :trace, :comm and the values. */
static void bind(sqlite3_stmt *st, int64_t id, const struct trace_query *q)
{
	int i = sqlite3_bind_parameter_index(st, ":trace");
	if (i)
		sqlite3_bind_int64(st, i, id);
	if (q->comm && (i = sqlite3_bind_parameter_index(st, ":comm")))
		sqlite3_bind_text(st, i, q->comm, -1, SQLITE_STATIC);
	for (unsigned k = 0; k < q->n_val; k++) {
		char name[16];
		snprintf(name, sizeof name, ":v%u", k);
		if ((i = sqlite3_bind_parameter_index(st, name)))
			sqlite3_bind_int64(st, i, q->val[k]);
	}
}

static sqlite3_stmt *prepare(sqlite3 *db, int64_t id, const struct trace_query *q, const char *sql,
			     char *err, size_t errlen)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL)) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return NULL;
	}
	bind(st, id, q);
	return st;
}

sqlite3_stmt *trace_query_list(sqlite3 *db, int64_t id, const struct trace_query *q, char *err,
			       size_t errlen)
{
	char sql[2048];
	snprintf(sql, sizeof sql,
		 "SELECT 0, seq, t_submit_ns, cc, handle1, handle2, handle3, n_sessions,"
		 " sess_handle, sess_attrs, pcr, client_id, rc, latency_ns, malformed, rsp_handle,"
		 " NULL, NULL, flags FROM command WHERE trace_id=:trace%s"
		 " UNION ALL SELECT 1, seq, t_ns, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
		 " client_id, NULL, NULL, NULL, NULL, kind, detail, NULL FROM event"
		 " WHERE trace_id=:trace%s ORDER BY 2",
		 q->where, q->ev_where);
	return prepare(db, id, q, sql, err, errlen);
}

sqlite3_stmt *trace_query_explain(sqlite3 *db, int64_t id, const struct trace_query *q, char *err,
				  size_t errlen)
{
	char sql[2048];
	snprintf(sql, sizeof sql,
		 "SELECT cc, cmd, rsp, flags, client_id,"
		 " (SELECT comm FROM client l WHERE l.trace_id=:trace AND l.id=client_id),"
		 " latency_ns, rc, seq FROM command WHERE trace_id=:trace%s ORDER BY seq",
		 q->where);
	return prepare(db, id, q, sql, err, errlen);
}

int64_t trace_query_first_time(sqlite3 *db, int64_t id)
{
	sqlite3_stmt *st;
	int64_t t0 = -1;
	if (sqlite3_prepare_v2(
		db,
		"SELECT t FROM (SELECT seq, t_submit_ns t FROM command WHERE trace_id=?1"
		" AND t_submit_ns IS NOT NULL UNION ALL SELECT seq, t_ns FROM event"
		" WHERE trace_id=?1 AND t_ns IS NOT NULL) ORDER BY seq LIMIT 1",
		-1, &st, NULL))
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		t0 = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return t0;
}

int trace_query_client_known(sqlite3 *db, int64_t id, const struct trace_query *q)
{
	char sql[600];
	sqlite3_stmt *st;
	int known = 1;
	if (q->comm)
		snprintf(sql, sizeof sql, "SELECT EXISTS (SELECT 1 FROM client WHERE %s)",
			 CLIENT_NAME);
	else if (q->client_pid)
		snprintf(sql, sizeof sql,
			 "SELECT EXISTS (SELECT 1 FROM client WHERE " CLIENT_PID ")",
			 (unsigned)q->client_val);
	else
		snprintf(sql, sizeof sql,
			 "SELECT EXISTS (SELECT 1 FROM client WHERE trace_id=:trace AND id=:v%d) OR"
			 " EXISTS (SELECT 1 FROM command WHERE trace_id=:trace AND client_id=:v%d)",
			 q->client_val, q->client_val);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		bind(st, id, q);
		known = sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	return known;
}

void trace_query_client_names(sqlite3 *db, int64_t id, char *out, size_t len)
{
	sqlite3_stmt *st;
	char safe[96];
	out[0] = 0;
	if (sqlite3_prepare_v2(
		db,
		"SELECT DISTINCT coalesce(comm, peer, id) FROM client WHERE trace_id=?"
		" ORDER BY id",
		-1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			size_t l = strlen(out);
			db_text_safe((const char *)sqlite3_column_text(st, 0), safe, sizeof safe);
			if (l + strlen(safe) + 7 > 60) {
				snprintf(out + l, len - l, ", ...");
				break;
			}
			snprintf(out + l, len - l, "%s%s", l ? ", " : "", safe);
		}
	}
	sqlite3_finalize(st);
}

void trace_query_policy(sqlite3 *db, int64_t id, char *out, size_t len)
{
	sqlite3_stmt *st;
	snprintf(out, len, "?");
	if (sqlite3_prepare_v2(db, "SELECT policy FROM trace WHERE id=? AND policy IS NOT NULL", -1,
			       &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		db_text_safe((const char *)sqlite3_column_text(st, 0), out, len);
	sqlite3_finalize(st);
}
