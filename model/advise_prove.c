/* advise --prove (model/advise_prove.h): which run proves which finding, and
 * the replayed TPM time of each run. */
#include "model/advise_prove.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/stats.h"
#include "db/trace_kind.h"
#include "model/advise_proof.h"
#include "model/policy.h"

__attribute__((format(printf, 2, 3))) static void say(const struct advise_prove_opts *o,
						      const char *fmt, ...)
{
	char m[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	if (o->say)
		o->say(o->ctx, m);
}

#define FRESH_HINT                                                                                 \
	"; a trace that needs its recording TPM's objects or state does not replay on a fresh "    \
	"swtpm: --target"

__attribute__((format(printf, 2, 3))) static void prove_failed(struct advise_prove_result *p,
							       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->fail, sizeof p->fail, fmt, ap);
	va_end(ap);
	p->failed = 1;
	p->why = p->fail;
}

static const char *prove_policy(int kind, const char *trace_pol, char *out, size_t len)
{
	struct policy p;
	char err[256];
	if (!trace_pol[0] || policy_parse(trace_pol, &p, err, sizeof err) ||
	    p.mode != POL_MODE_SESSIONS || p.hmac_off)
		return NULL;
	if (kind == ADVISE_SESSION_PER_CMD && p.reuse == POL_REUSE_PER_COMMAND)
		p.reuse = POL_REUSE_LAZY;
	else if (kind == ADVISE_USER_INTERLEAVE && p.reuse == POL_REUSE_LAZY && !p.user_flush_off)
		p.user_flush_off = 1;
	else if (kind == ADVISE_HWRNG_SESSION && !p.hwrng_off)
		p.hwrng_off = 1;
	else
		return NULL;
	policy_spec(&p, out, len);
	return out;
}

/* Replays trace src under policy pol (o->replay) and reads the run it
 * stored: its id and TPM time, or -1. The TPM time leaves out the commands
 * the target answered TPM_RC_RETRY, YIELDED or TESTING (it did not run them;
 * a fresh swtpm answers one of the first authorized commands so, once),
 * which no finding's change removes. An emulated run's leaves out the
 * lateness its holds did not make up (owed_ns in its replay-stop event: the
 * host's, not the profiled TPM's), so that it is the profile's pace. */
static int64_t prove_run(sqlite3 *db, const struct advise_prove_opts *o, int64_t src,
			 const char *pol, double *tpm_ms)
{
	if (o->replay(o->ctx, src, pol))
		return -1;
	sqlite3_stmt *q;
	int64_t run = -1;
	if (sqlite3_prepare_v2(
		db,
		"SELECT t.id, (SELECT sum(latency_ns) FROM command WHERE trace_id=t.id"
		" AND " DB_CLIENT_CMDS " AND NOT tpm_rc_is_retry(coalesce(rc, 0)))"
		" - coalesce((SELECT CAST(substr(detail, instr(detail, ' owed_ns=') + 9)"
		" AS INTEGER) FROM event WHERE trace_id=t.id AND kind='replay-stop'"
		" AND instr(detail, ' owed_ns=') > 0), 0)"
		" FROM trace t WHERE parent_id=? AND kind='replay'"
		" ORDER BY t.id DESC LIMIT 1",
		-1, &q, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(q, 1, src);
	if (sqlite3_step(q) == SQLITE_ROW) {
		run = sqlite3_column_int64(q, 0);
		*tpm_ms = sqlite3_column_int64(q, 1) / 1e6;
	}
	sqlite3_finalize(q);
	return run;
}

/* A named rewrite (repeated-primary, session-per-command, policy-rebuilt,
 * context-churn):
 * the trace and its rewrite, each replayed as recorded. */
static void prove_rewrite(sqlite3 *db, const struct advise_prove_opts *o, int64_t id, int kind,
			  struct advise_prove_result *p)
{
	char err[512];
	uint64_t dropped;
	int64_t rw;
	if (advise_rewrite(db, id, advise_kind_name(kind), &rw, &dropped, err, sizeof err)) {
		say(o, "%s", err);
		prove_failed(p, "its rewrite failed: %s", err);
		return;
	}
	snprintf(p->before, sizeof p->before, "as-recorded");
	snprintf(p->after, sizeof p->after, "as-recorded, the %s rewrite trace %lld",
		 advise_kind_name(kind), (long long)rw);
	p->trace_before = prove_run(db, o, id, "as-recorded", &p->before_ms);
	p->trace_after = prove_run(db, o, rw, "as-recorded", &p->after_ms);
	if (p->trace_before < 0 || p->trace_after < 0) {
		say(o, "a replay of trace %lld or %lld failed", (long long)id, (long long)rw);
		prove_failed(p, "the replay of trace %lld or %lld failed (above)%s", (long long)id,
			     (long long)rw, o->target ? "" : FRESH_HINT);
	} else
		p->done = 1;
}

/* The source of a replay with a session-per-command finding of its own
 * (an application's sessions): its rewrite, else src itself; -1 when the
 * rewrite fails (said). */
static int64_t source_rewrite(sqlite3 *db, const struct advise_prove_opts *o, int64_t src)
{
	struct advise_cmd *c = NULL;
	struct advise_result *r = malloc(sizeof *r);
	size_t n = 0;
	int found = 0;
	if (r && !advise_load(db, src, &c, &n)) {
		advise_run(c, n, NULL, r);
		for (unsigned i = 0; i < r->n; i++)
			found |= r->f[i].kind == ADVISE_SESSION_PER_CMD && r->f[i].removed;
	}
	free(c);
	free(r);
	if (!found)
		return src;
	char err[512];
	uint64_t dropped;
	int64_t rw;
	if (advise_rewrite(db, src, "session-per-command", &rw, &dropped, err, sizeof err)) {
		say(o, "%s", err);
		return -1;
	}
	return rw;
}

unsigned advise_prove(sqlite3 *db, int64_t id, const struct advise_result *r,
		      const struct advise_prove_opts *o, struct advise_prove_result *pf)
{
	char kind[16], pol[128], after[128];
	unsigned n = 0;
	db_trace_kind_policy(db, id, kind, sizeof kind, pol, sizeof pol);
	sqlite3_stmt *q;
	int64_t src = 0;
	if (sqlite3_prepare_v2(db, "SELECT parent_id FROM trace WHERE id=?", -1, &q, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(q, 1, id);
		if (sqlite3_step(q) == SQLITE_ROW)
			src = sqlite3_column_int64(q, 0);
		sqlite3_finalize(q);
	}
	for (unsigned i = 0; i < r->n; i++) {
		struct advise_prove_result *p = &pf[i];
		memset(p, 0, sizeof *p);
		int k = r->f[i].kind, knob = !strcmp(kind, "replay") && src &&
					     prove_policy(k, pol, after, sizeof after);
		if (!knob && (k == ADVISE_REPEATED_PRIMARY || k == ADVISE_SESSION_PER_CMD ||
			      k == ADVISE_POLICY_REBUILT || k == ADVISE_CONTEXT_CHURN)) {
			prove_rewrite(db, o, id, k, p);
			n += (unsigned)p->done;
			continue;
		}
		if (!knob) {
			p->why =
			    k == ADVISE_OUTLIERS
				? "a stall or retry is the recording TPM's; a replay on swtpm "
				  "emulating a profile does not reproduce it (docs/advise.md, "
				  "Limits)"
			    : k == ADVISE_FAILED_REDONE
				? "the failure came from the order of the recording's clients (a "
				  "PCR extended between a policy and its use); a replay re-issues "
				  "them in that order, the change is to it (docs/advise.md, Limits)"
				: "this change is a policy knob, proved on a replay of a trace "
				  "with the policy it changes (docs/advise.md)";
			continue;
		}
		/* the replay's session-per-command holds the source's own too
		 * (an application's): the after run replays the source's rewrite */
		int64_t asrc = src;
		snprintf(p->before, sizeof p->before, "%s", pol);
		snprintf(p->after, sizeof p->after, "%s", after);
		if (k == ADVISE_SESSION_PER_CMD && (asrc = source_rewrite(db, o, src)) != src)
			snprintf(p->after, sizeof p->after, "%s, the %s rewrite trace %lld", after,
				 advise_kind_name(k), (long long)asrc);
		if (asrc < 0) {
			prove_failed(p, "the source's session-per-command rewrite failed (above)");
			continue;
		}
		p->trace_before = prove_run(db, o, src, p->before, &p->before_ms);
		p->trace_after = prove_run(db, o, asrc, after, &p->after_ms);
		if (p->trace_before < 0 || p->trace_after < 0) {
			say(o, "a replay of trace %lld failed", (long long)asrc);
			prove_failed(p, "the replay of trace %lld failed (above)%s",
				     (long long)asrc, o->target ? "" : FRESH_HINT);
			continue;
		}
		p->done = 1;
		n++;
	}
	return n;
}

void advise_prove_keep(sqlite3 *db, int64_t id, const struct advise_result *r, const char *prof,
		       const struct advise_prove_result *pf, const struct advise_prove_opts *o)
{
	char err[256];
	for (unsigned i = 0; i < r->n; i++) {
		struct advise_proof ap = {.trace_id = id,
					  .predicted_saving_ms = advise_saving_ms(r, &r->f[i]),
					  .replayed_before_ms = pf[i].before_ms,
					  .replayed_after_ms = pf[i].after_ms,
					  .before_trace = pf[i].trace_before,
					  .after_trace = pf[i].trace_after};
		if (!pf[i].done)
			continue;
		snprintf(ap.kind, sizeof ap.kind, "%s", advise_kind_name(r->f[i].kind));
		snprintf(ap.profile, sizeof ap.profile, "%s", prof);
		snprintf(ap.before_policy, sizeof ap.before_policy, "%s", pf[i].before);
		snprintf(ap.after_policy, sizeof ap.after_policy, "%s", pf[i].after);
		if (advise_proof_store(db, &ap, err, sizeof err))
			say(o, "the proof of %s not stored: %s", ap.kind, err);
	}
}
