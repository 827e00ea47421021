/* A run's figures and whether it ends a series (replayer/replay.h): the
 * names of roles and outcomes, the fidelity, the verdict. */
#include <stdio.h>
#include <string.h>

#include "db/db.h"
#include "replayer/replay.h"

static const char *const outcome_names[REPLAY__OUTCOMES + 1] = {[REPLAY_FAITHFUL] = "faithful",
								[REPLAY_SUBSTITUTED] =
								    "substituted",
								[REPLAY_REFUSED] = "refused",
								[REPLAY_SKIPPED] = "skipped",
								[REPLAY__OUTCOMES] = "failed"};
static const char *const role_names[REPLAY_N_ROLES] = {
    [POL_ROLE_ORIGINAL] = "original",		[POL_ROLE_NULLKEY_INIT] = "nullkey-init",
    [POL_ROLE_SESSION_SETUP] = "session-setup", [POL_ROLE_SESSION_END] = "session-end",
    [POL_ROLE_NAME_LOOKUP] = "name-lookup",	[REPLAY_ROLE_STARTUP] = "startup",
    [REPLAY_ROLE_CLEANUP] = "cleanup",		[REPLAY_ROLE_CLIENT_END] = "rm-client-end"};
_Static_assert(POL_ROLE__COUNT == 5, "a new pol_role needs its name in role_names");

const char *replay_role_name(unsigned role)
{
	return role < REPLAY_N_ROLES ? role_names[role] : "?";
}

const char *replay_outcome_name(unsigned outcome)
{
	return outcome <= REPLAY__OUTCOMES ? outcome_names[outcome] : "?";
}

uint64_t replay_faithful(const struct replay_result *r)
{
	uint64_t ok = r->outcome[REPLAY_FAITHFUL];
	return ok > r->failed ? ok - r->failed : 0;
}

double replay_fidelity(const struct replay_result *r)
{
	return r->processed ? 100.0 * (double)replay_faithful(r) / (double)r->processed : 100.0;
}

/* The fidelity of the newest earlier complete run of the same source,
 * policy and target (trace.fidelity); -1 if none. */
static double earlier_fidelity(const char *db_path, const struct replay_result *r, int64_t *which)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char err[256];
	double f = -1;
	*which = 0;
	if (db_open(db_path, DB_READ, &db, err, sizeof err))
		return -1;
	if (sqlite3_prepare_v2(db,
			       "SELECT id, fidelity FROM trace WHERE kind='replay' AND parent_id=?"
			       " AND policy=? AND source=? AND status='complete' AND id<?"
			       " AND fidelity IS NOT NULL ORDER BY id DESC LIMIT 1",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, r->source_id);
		sqlite3_bind_text(st, 2, r->policy, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, r->target, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, r->trace_id);
		if (sqlite3_step(st) == SQLITE_ROW) {
			*which = sqlite3_column_int64(st, 0);
			f = sqlite3_column_double(st, 1);
		}
	}
	sqlite3_finalize(st);
	db_close(db);
	return f;
}

/* "failed x1: NV_DefineSpace ...; ..." of the reasons that cost fidelity
 * (every outcome but faithful and skipped). */
static void failing_list(const struct replay_result *r, char *b, size_t n)
{
	size_t used = 0;
	b[0] = 0;
	for (unsigned i = 0; i < r->n_reasons && used + 1 < n; i++) {
		const struct replay_reason *x = &r->reasons[i];
		if (x->outcome == REPLAY_FAITHFUL || x->outcome == REPLAY_SKIPPED)
			continue;
		used += (size_t)snprintf(b + used, n - used, "%s%s x%llu: %s", used ? "; " : "",
					 replay_outcome_name(x->outcome),
					 (unsigned long long)x->count, x->text);
	}
	if (used >= n && n > 4)
		strcpy(b + n - 4, "...");
}

int replay_run_verdict(const char *db_path, double min_fid, const struct replay_result *r, int rc,
		       char *why, size_t n)
{
	if (rc) {
		snprintf(why, n, "%s (the partial run is stored as incomplete)", r->err);
		return 1;
	}
	if (r->cleanup_left) {
		snprintf(why, n,
			 "trace %lld: %u entities the run created could not be removed from "
			 "the target: %s",
			 (long long)r->trace_id, r->cleanup_left, r->cleanup_err);
		return 1;
	}
	double fid = replay_fidelity(r);
	int64_t prev_id;
	double prev = earlier_fidelity(db_path, r, &prev_id);
	char fails[700];
	if (!(fid + 1e-9 < min_fid || (prev >= 0 && fid + 0.05 < prev)))
		return 0;
	failing_list(r, fails, sizeof fails);
	if (fid + 1e-9 < min_fid)
		snprintf(why, n, "trace %lld: fidelity %.1f%% is below %.1f%% (--min-fidelity): %s",
			 (long long)r->trace_id, fid, min_fid, fails);
	else
		snprintf(why, n,
			 "trace %lld: fidelity %.1f%% is below the %.1f%% of trace %lld (the "
			 "same trace, policy and target): %s",
			 (long long)r->trace_id, fid, prev, (long long)prev_id, fails);
	return 1;
}
