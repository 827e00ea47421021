/* Streaming a trace (model/trace_stream.h): trace_stream walks one trace's
 * command and event rows in seq order through two SQLite cursors merged by seq,
 * without loading the trace, and calls the caller's ops once per row with the
 * command as a struct pol_cmd (model/policy.h). Each command carries its
 * client's origin - firmware, kernel, user - which trace_client_origin guesses
 * from the client's comm and peer names and trace_origins_load reads for all
 * clients of a trace. trace_stream_predict feeds a trace to a predictor
 * (model/predict.h). */
#include "model/trace_stream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/stats.h"
#include "model/predict.h"
#include "model/tpm/variant.h"

static int names(const char *s, const char *what)
{
	return s && !strcmp(s, what);
}

int trace_client_origin(const char *comm, const char *peer, int has_pid, int trace_names_kernel,
			int *hwrng)
{
	if (hwrng)
		*hwrng = 0;
	for (int k = 0; k < 2; k++) {
		const char *s = k ? peer : comm;
		if (s && (strstr(s, "firmware") || strstr(s, "bios") || strstr(s, "uefi") ||
			  strstr(s, "ovmf")))
			return POL_ORIGIN_FIRMWARE;
	}
	if (names(comm, "kernel") || names(peer, "kernel") || names(comm, "ima") ||
	    names(peer, "ima")) {
		if (hwrng)
			*hwrng = names(peer, "hwrng");
		return POL_ORIGIN_KERNEL;
	}
	if (names(comm, "userspace") || names(peer, "userspace"))
		return POL_ORIGIN_USER;
	/* record --kernel: "userspace /dev/tpmrm0", "rm-swap /dev/tpmrm0" */
	if (peer && (!strncmp(peer, "userspace ", 10) || !strncmp(peer, "rm-swap", 7)))
		return POL_ORIGIN_USER;
	if (has_pid && trace_names_kernel)
		return POL_ORIGIN_USER;
	return POL_ORIGIN_UNKNOWN;
}

int trace_origins_load(sqlite3 *db, int64_t trace_id, uint8_t **out)
{
	sqlite3_stmt *st;
	uint8_t *o = calloc(TRACE_MAX_CLIENTS, 1);
	int names_kernel = 0, rc = 0;
	if (!o)
		return -ENOMEM;
	if (sqlite3_prepare_v2(db, "SELECT id, pid, comm, peer FROM client WHERE trace_id=?", -1,
			       &st, NULL) != SQLITE_OK) {
		free(o);
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, trace_id);
	/* Two passes: whether a pid means userspace depends on the whole trace. */
	for (int pass = 0; pass < 2; pass++) {
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(st, 0);
			int hw;
			int org = trace_client_origin((const char *)sqlite3_column_text(st, 2),
						      (const char *)sqlite3_column_text(st, 3),
						      sqlite3_column_type(st, 1) != SQLITE_NULL,
						      names_kernel, &hw);
			if (pass == 0) {
				names_kernel |=
				    org == POL_ORIGIN_KERNEL || org == POL_ORIGIN_FIRMWARE;
				continue;
			}
			if (id >= 0 && id < TRACE_MAX_CLIENTS)
				o[id] = (uint8_t)(org | (hw ? TRACE_ORIGIN_HWRNG : 0));
		}
		/* reset returns the error a step stopped at (BUSY, CORRUPT, ...) */
		if (sqlite3_reset(st) != SQLITE_OK) {
			rc = -EIO;
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc) {
		free(o);
		return rc;
	}
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
	if ((rc = trace_origins_load(db, trace_id, &origin))) {
		if (rc == -EIO)
			goto dberr;
		goto out;
	}
	if (sqlite3_prepare_v2(
		db,
		"SELECT seq, cc, handle1, handle2, handle3, auth_kind, sess_attrs,"
		" rc, t_submit_ns, t_done_ns, latency_ns, client_id,"
		/* the bytes only where they give the variant (model/tpm/variant.h) */
		" CASE WHEN cc IN (tpm_cc('CreatePrimary'), tpm_cc('Create'),"
		" tpm_cc('StartAuthSession'), tpm_cc('CreateLoaded'), tpm_cc('GetCapability'))"
		" THEN cmd END"
		/* the trace's commands (db/stats.h): not those tpmtrace sent itself */
		" FROM command WHERE trace_id=? AND cc IS NOT NULL AND " DB_CLIENT_CMDS
		" ORDER BY seq",
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
			if (cl >= 0 && cl < TRACE_MAX_CLIENTS) {
				c.origin = origin[cl] & ~TRACE_ORIGIN_HWRNG;
				c.hwrng = !!(origin[cl] & TRACE_ORIGIN_HWRNG);
			}
		}
		const uint8_t *blob = NULL;
		size_t blen = 0;
		if (sqlite3_column_type(cs, 12) == SQLITE_BLOB) {
			blob = sqlite3_column_blob(cs, 12);
			blen = (size_t)sqlite3_column_bytes(cs, 12);
			c.variant = (uint8_t)tpm_cmd_variant(blob, blen);
		}
		c.kstartup = (uint8_t)policy_startup_cmd(c.cc, blob, blen);
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
