#include "db/trace_stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/predict.h"
#include "model/variant.h"

/* Origins of the trace's clients, indexed by client id (small ids only). */
#define MAX_CLIENTS 65536

static int load_origins(sqlite3 *db, int64_t trace_id, uint8_t **out)
{
	sqlite3_stmt *st;
	uint8_t *o = calloc(MAX_CLIENTS, 1);
	if (!o)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, "SELECT id, pid, comm, peer FROM client WHERE trace_id=?", -1,
			       &st, NULL) != SQLITE_OK) {
		free(o);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, trace_id);
	int any_kernel = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *comm = (const char *)sqlite3_column_text(st, 2);
		const char *peer = (const char *)sqlite3_column_text(st, 3);
		if (id < 0 || id >= MAX_CLIENTS)
			continue;
		if ((comm && !strcmp(comm, "kernel")) || (peer && !strcmp(peer, "kernel"))) {
			o[id] = POL_ORIGIN_KERNEL;
			any_kernel = 1;
		} else if (sqlite3_column_type(st, 1) != SQLITE_NULL) {
			o[id] = POL_ORIGIN_USER;
		}
	}
	/* Only a trace that tells the kernel's commands apart has userspace
	 * clients; otherwise every command is priced as if the kernel sent it,
	 * which is also what replay does. */
	if (!any_kernel)
		memset(o, POL_ORIGIN_UNKNOWN, MAX_CLIENTS);
	sqlite3_finalize(st);
	*out = o;
	return 0;
}

int trace_stream(sqlite3 *db, int64_t trace_id, const struct trace_stream_ops *ops, void *ctx,
		 uint64_t *n_cmds, char *err, size_t errlen)
{
	sqlite3_stmt *cs = NULL, *es = NULL, *ts = NULL;
	uint8_t *origin = NULL;
	int rc = 0, crow, erow;

	*n_cmds = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM trace WHERE id=?", -1, &ts, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(ts, 1, trace_id);
	if (sqlite3_step(ts) != SQLITE_ROW) {
		snprintf(err, errlen, "no trace %lld in the database", (long long)trace_id);
		rc = -ENOENT;
		goto out;
	}
	if ((rc = load_origins(db, trace_id, &origin))) {
		if (rc == -EIO)
			goto dberr;
		goto out;
	}
	if (sqlite3_prepare_v2(db,
			       "SELECT seq, cc, handle1, handle2, handle3, auth_kind, sess_attrs,"
			       " rc, t_submit_ns, t_done_ns, latency_ns, client_id,"
			       /* the bytes only where they give the variant (model/variant.h) */
			       " CASE WHEN cc IN (0x131, 0x153, 0x176, 0x191) THEN cmd END"
			       " FROM command WHERE trace_id=? AND cc IS NOT NULL ORDER BY seq",
			       -1, &cs, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "SELECT seq, kind, detail FROM event WHERE trace_id=? ORDER BY seq",
			       -1, &es, NULL) != SQLITE_OK)
		goto dberr;
	sqlite3_bind_int64(cs, 1, trace_id);
	sqlite3_bind_int64(es, 1, trace_id);
	crow = sqlite3_step(cs);
	erow = sqlite3_step(es);
	while (crow == SQLITE_ROW || erow == SQLITE_ROW) {
		if (erow == SQLITE_ROW && (crow != SQLITE_ROW || sqlite3_column_int64(es, 0) <
								     sqlite3_column_int64(cs, 0))) {
			const char *kind = (const char *)sqlite3_column_text(es, 1);
			const char *detail = (const char *)sqlite3_column_text(es, 2);
			if (ops->event && kind && (rc = ops->event(ctx, kind, detail)))
				goto out;
			erow = sqlite3_step(es);
			continue;
		}
		struct pol_cmd c = {0};
		c.seq = (uint64_t)sqlite3_column_int64(cs, 0);
		c.cc = (uint32_t)sqlite3_column_int64(cs, 1);
		for (int i = 0; i < 3; i++) {
			if (sqlite3_column_type(cs, 2 + i) == SQLITE_NULL)
				break;
			c.handles[i] = (uint32_t)sqlite3_column_int64(cs, 2 + i);
			c.n_handles = (uint8_t)(i + 1);
		}
		c.auth_kind = (uint8_t)sqlite3_column_int(cs, 5);
		c.sess_attrs = (uint32_t)sqlite3_column_int64(cs, 6);
		if (sqlite3_column_type(cs, 7) != SQLITE_NULL) {
			c.has_rc = 1;
			c.rc = (uint32_t)sqlite3_column_int64(cs, 7);
		}
		if (sqlite3_column_type(cs, 11) != SQLITE_NULL) {
			int64_t cl = sqlite3_column_int64(cs, 11);
			if (cl >= 0 && cl < MAX_CLIENTS)
				c.origin = origin[cl];
		}
		if (sqlite3_column_type(cs, 12) == SQLITE_BLOB)
			c.variant = (uint8_t)tpm_cmd_variant(sqlite3_column_blob(cs, 12),
							     (size_t)sqlite3_column_bytes(cs, 12));
		int64_t lat =
		    sqlite3_column_type(cs, 10) == SQLITE_NULL ? -1 : sqlite3_column_int64(cs, 10);
		(*n_cmds)++;
		if ((rc = ops->cmd(ctx, &c, (uint64_t)sqlite3_column_int64(cs, 8),
				   (uint64_t)sqlite3_column_int64(cs, 9), lat)))
			goto out;
		crow = sqlite3_step(cs);
	}
	if (crow != SQLITE_DONE || erow != SQLITE_DONE)
		goto dberr;
	rc = 0;
	goto out;
dberr:
	snprintf(err, errlen, "reading trace %lld: %s", (long long)trace_id, sqlite3_errmsg(db));
	rc = -EIO;
out:
	sqlite3_finalize(ts);
	sqlite3_finalize(cs);
	sqlite3_finalize(es);
	free(origin);
	return rc;
}

static int predict_on_cmd(void *ctx, const struct pol_cmd *c, uint64_t ts, uint64_t td, int64_t lat)
{
	return predict_cmd(ctx, c, ts, td, lat);
}

static int predict_on_event(void *ctx, const char *kind, const char *detail)
{
	int ev = policy_event_from_kind(kind);
	(void)detail;
	return ev ? predict_event(ctx, (enum pol_event)ev) : 0;
}

int trace_stream_predict(sqlite3 *db, int64_t trace_id, struct predictor *pr, uint64_t *n_cmds,
			 char *err, size_t errlen)
{
	static const struct trace_stream_ops ops = {predict_on_cmd, predict_on_event};
	return trace_stream(db, trace_id, &ops, pr, n_cmds, err, errlen);
}
