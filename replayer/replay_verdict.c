/* A run's figures and whether it ends a series (replayer/replay.h): the
 * names of roles and outcomes, the fidelity, the verdict, the run as JSON. */
#include <stdio.h>
#include <string.h>

#include "db/db.h"
#include "db/json.h"
#include "db/text.h"
#include "model/run_stats.h"
#include "model/tpm/pcr_bank.h"
#include "model/tpm/tpm_cc.h"
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

/* The run's span (docs/schema.md, "Figures"): first submit to last response
 * of its commands, tpmtrace's own left out. */
uint64_t replay_span_ns(const struct replay_result *r)
{
	return r->last_ns > r->first_ns ? r->last_ns - r->first_ns : 0;
}

/* The run's counts and times: the members of its object before the lists. */
static void json_counts(struct json_w *w, const struct replay_result *r)
{
	json_kuint(w, "source_commands", r->source_commands);
	json_kuint(w, "source_tpmtrace_commands", r->source_own);
	json_kuint(w, "processed", r->processed);
	json_kuint(w, "sent", r->sent);
	json_kuint(w, "faithful", r->outcome[REPLAY_FAITHFUL]);
	json_kuint(w, "substituted", r->outcome[REPLAY_SUBSTITUTED]);
	json_kuint(w, "refused", r->outcome[REPLAY_REFUSED]);
	json_kuint(w, "skipped", r->outcome[REPLAY_SKIPPED]);
	json_kuint(w, "failed", r->failed);
	json_kdouble(w, "fidelity",
		     r->processed ? (double)replay_faithful(r) / (double)r->processed : 0.0, 4);
	json_kuint(w, "hmac_verified", r->hmac_checked);
	json_kuint(w, "retries", r->retries);
	json_kuint(w, "tpm_ns", r->tpm_ns);
	json_kuint(w, "source_tpm_ns", r->src_tpm_ns);
	json_kuint(w, "crypto_ns", r->crypto_ns);
	json_kuint(w, "wall_ns", r->wall_ns);
	json_kuint(w, "trace_commands", r->sent - r->sent_own);
	json_kuint(w, "tpmtrace_commands", r->sent_own);
	json_kuint(w, "span_ns", replay_span_ns(r));
	json_kstr(w, "figures", model_figure_kind(r->emulated));
	if (r->emulated[0]) {
		json_kstr(w, "emulated", r->emulated);
		json_kuint(w, "emulate_seed", r->emulate_seed);
		json_kuint(w, "emulate_approximated", r->emu_approx);
		json_kuint(w, "emulate_fallback", r->emu_missing);
		json_kuint(w, "emulate_late", r->emu_late);
		json_kuint(w, "emulate_late_ns", r->emu_late_ns);
		json_kuint(w, "emulate_owed_ns", r->emu_debt_ns);
	}
	if (strcmp(r->target, "swtpm (spawned)")) {
		json_kuint(w, "cleaned", r->cleaned);
		json_kuint(w, "cleanup_left", r->cleanup_left);
		json_kstr(w, "cleanup_error", r->cleanup_left ? r->cleanup_err : NULL);
	}
}

/* The run's lists: commands per role, reasons, per command code, PCRs. */
static void json_lists(struct json_w *w, const struct replay_result *r)
{
	json_key(w, "sent_by_role");
	json_begin_object(w);
	for (int i = 0; i < REPLAY_N_ROLES; i++)
		if (r->by_role[i])
			json_kuint(w, replay_role_name((unsigned)i), r->by_role[i]);
	json_end_object(w);
	json_key(w, "reasons");
	json_begin_array(w);
	for (unsigned i = 0; i < r->n_reasons; i++) {
		const struct replay_reason *n = &r->reasons[i];
		json_begin_object(w);
		json_kstr(w, "outcome", replay_outcome_name(n->outcome));
		json_kstr(w, "command", n->cc ? tpm_cc_name(n->cc) : NULL);
		json_kuint(w, "count", n->count);
		json_kuint(w, "first_seq", n->first_seq);
		json_kstr(w, "reason", n->text);
		json_end_object(w);
	}
	json_end_array(w);
	json_key(w, "commands");
	json_begin_array(w);
	for (unsigned i = 0; i < r->n_cc; i++) {
		const struct replay_cc_stat *s = &r->cc[i];
		json_begin_object(w);
		json_kuint(w, "cc", s->cc);
		json_kstr(w, "name", tpm_cc_name(s->cc));
		json_kuint(w, "recorded", s->n_src);
		json_kuint(w, "replayed", s->n_rep);
		json_kuint(w, "recorded_ns", s->src_ns);
		json_kuint(w, "replayed_ns", s->rep_ns);
		json_kuint(w, "rc_differs", s->rc_differs);
		json_end_object(w);
	}
	json_end_array(w);
	json_key(w, "pcrs");
	json_begin_object(w);
	for (unsigned b = 0; b < r->n_banks; b++) {
		const struct replay_bank *k = &r->banks[b];
		{
			const struct pcr_alg *x = pcr_alg_by_id(k->alg);
			json_key(w, x ? x->name : "?");
		}
		json_begin_object(w);
		for (int i = 0; i < 24; i++) {
			if (!(k->mask & (1u << i)))
				continue;
			char key[12];
			snprintf(key, sizeof key, "%d", i);
			json_key(w, key);
			json_hex(w, k->v[i], k->size);
		}
		json_end_object(w);
	}
	json_end_object(w);
}

void replay_result_json(struct json_w *w, const struct replay_result *r, int rc)
{
	json_begin_object(w);
	json_kint(w, "source", r->source_id);
	json_kint(w, "trace", r->trace_id);
	json_kstr(w, "policy", r->policy);
	json_kstr(w, "target", r->target);
	json_kstr(w, "status", r->status);
	json_kstr(w, "error", rc ? r->err : NULL);
	json_counts(w, r);
	json_lists(w, r);
	json_end_object(w);
}

/* A bank's name as tpm2-tools prints it (model/tpm/pcr_bank.c's table). */
static const char *alg_name(uint16_t a)
{
	const struct pcr_alg *x = pcr_alg_by_id(a);
	return x ? x->name : "?";
}

static void hex(FILE *f, const uint8_t *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

void replay_result_text(FILE *f, const struct replay_result *r, int rc)
{
	char pb[1024], tb[1024];
	fprintf(f, "replay of trace %lld, policy %s, target %s: trace %lld, %s\n",
		(long long)r->source_id, db_text_safe(r->policy, pb, sizeof pb),
		db_text_safe(r->target, tb, sizeof tb), (long long)r->trace_id, r->status);
	if (rc)
		fprintf(f, "  stopped: %s\n", r->err);
	if (r->source_own)
		fprintf(f, "  source commands %llu, and %llu own commands (Startup, flushes)\n",
			(unsigned long long)r->source_commands, (unsigned long long)r->source_own);
	else
		fprintf(f, "  source commands %llu\n", (unsigned long long)r->source_commands);
	fprintf(f,
		"  handled %llu: %llu replayed faithfully, %llu substituted, "
		"%llu refused, %llu skipped\n",
		(unsigned long long)r->processed, (unsigned long long)r->outcome[REPLAY_FAITHFUL],
		(unsigned long long)r->outcome[REPLAY_SUBSTITUTED],
		(unsigned long long)r->outcome[REPLAY_REFUSED],
		(unsigned long long)r->outcome[REPLAY_SKIPPED]);
	if (r->processed)
		fprintf(f,
			"  fidelity %.1f%%: %llu of %llu source commands re-issued faithfully and "
			"answered as when recorded\n",
			replay_fidelity(r), (unsigned long long)replay_faithful(r),
			(unsigned long long)r->processed);
	char roles[512] = "", sent[96];
	size_t rl = 0;
	for (int i = 0; i < REPLAY_N_ROLES && rl < sizeof roles; i++)
		if (r->by_role[i])
			rl += (size_t)snprintf(roles + rl, sizeof roles - rl, "%s%s %llu",
					       rl ? " " : "", replay_role_name((unsigned)i),
					       (unsigned long long)r->by_role[i]);
	snprintf(sent, sizeof sent, "  commands sent %llu (%llu of them tpmtrace's own): ",
		 (unsigned long long)r->sent, (unsigned long long)r->sent_own);
	db_text_wrap(f, sent, 4, roles, strlen(roles), DB_TEXT_WIDTH);
	fprintf(f,
		"  response HMACs verified %llu; TPM errors where the recording succeeded %llu\n",
		(unsigned long long)r->hmac_checked, (unsigned long long)r->failed);
	if (r->retries)
		fprintf(f,
			"  resubmitted %llu times after TPM_RC_RETRY/YIELDED/TESTING (the TPM did "
			"not start the command)\n",
			(unsigned long long)r->retries);
	if (strcmp(r->target, "swtpm (spawned)")) {
		fprintf(f, "  target left as found: %u entities the run created removed",
			r->cleaned);
		if (r->cleanup_left)
			fprintf(f, "; %u could not be: %s", r->cleanup_left, r->cleanup_err);
		fputc('\n', f);
	}
	char fig[200];
	model_figure_label(fig, sizeof fig, r->emulated);
	fprintf(f,
		"  %llu commands: TPM time %.3f ms (recorded %.3f ms), span %.3f ms\n"
		"  host crypto %.3f ms, wall %.3f ms (the whole run, start-up included)\n",
		(unsigned long long)(r->sent - r->sent_own), ms(r->tpm_ns), ms(r->src_tpm_ns),
		ms(replay_span_ns(r)), ms(r->crypto_ns), ms(r->wall_ns));
	snprintf(sent, sizeof sent, "  figures: ");
	char what[400];
	snprintf(what, sizeof what,
		 "%s, one run (n=1: no spread known; --repeat N gives n, mean and spread)", fig);
	db_text_wrap(f, sent, 4, what, strlen(what), DB_TEXT_WIDTH);
	if (r->emulated[0])
		fprintf(f,
			"  emulated %s (seed %llu): %llu responses held;\n"
			"    %llu priced from another variant or authorization, %llu at the "
			"profile's fallback;\n"
			"    %llu came after their drawn latency (%.3f ms in all, %.3f ms not made "
			"up by later holds)\n",
			r->emulated, (unsigned long long)r->emulate_seed,
			(unsigned long long)r->emu_commands, (unsigned long long)r->emu_approx,
			(unsigned long long)r->emu_missing, (unsigned long long)r->emu_late,
			ms(r->emu_late_ns), ms(r->emu_debt_ns));
	for (unsigned i = 0; i < r->n_reasons; i++) {
		const struct replay_reason *n = &r->reasons[i];
		char lead[96];
		snprintf(lead, sizeof lead,
			 "  %s x%llu (first at seq %llu): ", replay_outcome_name(n->outcome),
			 (unsigned long long)n->count, (unsigned long long)n->first_seq);
		db_text_wrap(f, lead, 4, n->text, strlen(n->text), DB_TEXT_WIDTH);
	}
	fprintf(f, "  %-26s %9s %9s %12s %12s %6s\n", "command", "recorded", "replayed",
		"rec mean ms", "rep mean ms", "rc!=");
	for (unsigned i = 0; i < r->n_cc; i++) {
		const struct replay_cc_stat *s = &r->cc[i];
		const char *nm = tpm_cc_name(s->cc);
		char buf[16];
		if (!nm) {
			snprintf(buf, sizeof buf, "0x%08x", s->cc);
			nm = buf;
		}
		fprintf(f, "  %-26s %9llu %9llu %12.3f %12.3f %6llu\n", nm,
			(unsigned long long)s->n_src, (unsigned long long)s->n_rep,
			s->n_src ? ms(s->src_ns) / (double)s->n_src : 0.0,
			s->n_rep ? ms(s->rep_ns) / (double)s->n_rep : 0.0,
			(unsigned long long)s->rc_differs);
	}
	for (unsigned b = 0; b < r->n_banks; b++)
		for (int i = 0; i < 24; i++)
			if ((r->banks[b].mask & (1u << i)) && i == 16) {
				/* 32 bytes a line: a SHA-512 value fits 100 columns */
				unsigned sz = r->banks[b].size;
				fprintf(f, "  PCR %s:%d = ", alg_name(r->banks[b].alg), i);
				for (unsigned o = 0; o < sz; o += 32) {
					if (o)
						fputs("\n                  ", f);
					hex(f, r->banks[b].v[i] + o, sz - o < 32 ? sz - o : 32);
				}
				fputc('\n', f);
			}
}
