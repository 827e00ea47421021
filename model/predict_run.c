/* One prediction and its JSON document (model/predict_run.h). */
#include "model/predict_run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "db/json.h"
#include "db/stats.h"
#include "db/trace_kind.h"
#include "model/policy.h"
#include "model/tpm/tpm_cc.h"

void predict_run_describe(struct predict_run *s, const char *dbpath, int64_t id, uint64_t n)
{
	char err[256];
	sqlite3_stmt *ev;
	long long nev = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM event WHERE trace_id=?", -1, &ev,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(ev, 1, id);
		if (sqlite3_step(ev) == SQLITE_ROW)
			nev = sqlite3_column_int64(ev, 0);
		sqlite3_finalize(ev);
	}
	/* tpmtrace's own commands are not predicted (db/stats.h): say how many */
	struct db_trace_summary fig;
	if (!db_trace_summary_load(s->db, id, &fig, err, sizeof err)) {
		s->own = fig.own;
		db_trace_summary_free(&fig);
	}
	s->untimed = db_trace_has_timing(s->db, id) == 0;
	snprintf(s->desc, sizeof s->desc, "%s trace %lld: %llu commands, %lld events", dbpath,
		 (long long)id, (unsigned long long)n, nev);
}

int predict_run_figures(struct predict_run *s, unsigned boots, uint64_t seed)
{
	s->boots = boots;
	s->seed = seed;
	for (unsigned k = 0; k < s->npol; k++) {
		if (predict_spread(s->pr, k, boots, seed, &s->spread[k]))
			return -ENOMEM;
		s->nrisk[k] = predict_timeouts(s->pr, k, s->risk[k], 8);
	}
	s->nwarn = predict_warnings(s->pr, s->warns, 32);
	return 0;
}

/* A JSON object key for command code cc: its name, or 0xHEX. */
static void json_cc_key(struct json_w *w, uint32_t cc)
{
	char hex[16];
	json_key(w, tpm_cc_label(cc, hex, sizeof hex));
}

static void json_policy(struct json_w *w, const struct predict_run *s, unsigned k)
{
	const struct predictor *pr = s->pr;
	const struct pred_result *r = &pr->r[k];
	struct pred_factors f;
	char spec[160];
	predict_factors(pr, k, s->base, &f);
	policy_spec(&r->pol, spec, sizeof spec);
	json_begin_object(w);
	json_kstr(w, "name", r->pol.name);
	json_kstr(w, "spec", spec);
	json_kuint(w, "commands", r->commands);
	json_key(w, "by_role");
	json_begin_object(w);
	for (int ro = 0; ro < POL_ROLE__COUNT; ro++)
		json_kuint(w, policy_role_str(ro), r->by_role[ro]);
	json_end_object(w);
	json_key(w, "by_command");
	json_begin_object(w);
	for (unsigned c = 0; c < r->n_cc; c++) {
		json_cc_key(w, r->by_cc[c].cc);
		json_uint(w, r->by_cc[c].n);
	}
	json_end_object(w);
	json_key(w, "tpm_ms_by_command");
	json_begin_object(w);
	for (unsigned c = 0; c < r->n_cc; c++) {
		json_cc_key(w, r->by_cc[c].cc);
		json_double(w, r->by_cc[c].tpm_ms, 6);
	}
	json_end_object(w);
	json_kdouble(w, "tpm_ms", r->tpm_ms, 6);
	/* A prediction mostly priced at the fallback has no known range. */
	double share = predict_fallback_share(pr, k);
	if (share > PREDICT_FALLBACK_WARN) {
		json_knull(w, "tpm_low_ms");
		json_knull(w, "tpm_high_ms");
	} else {
		json_kdouble(w, "tpm_low_ms", r->tpm_lo_ms, 6);
		json_kdouble(w, "tpm_high_ms", r->tpm_hi_ms, 6);
	}
	json_kdouble(w, "tpm_ms_without_spread", r->nospread_ms, 6);
	json_kdouble(w, "host_crypto_ms", r->host_ms, 6);
	if (s->untimed)
		json_knull(w, "total_ms");
	else
		json_kdouble(w, "total_ms", predict_total_ms(pr, k), 6);
	json_kdouble(w, "factor_vs_password", f.total_vs_base, 6);
	json_kdouble(w, "factor_vs_password_tpm", f.tpm_vs_base, 6);
	if (f.total_known)
		json_kdouble(w, "factor_vs_password_total", f.total_vs_base, 6);
	else
		json_knull(w, "factor_vs_password_total");
	if (f.have_rec) {
		json_kdouble(w, "factor_vs_recorded", f.total_vs_rec, 6);
		json_kdouble(w, "factor_vs_recorded_tpm", f.tpm_vs_rec, 6);
		json_kdouble(w, "factor_vs_recorded_total", f.total_vs_rec, 6);
	}
	json_kuint(w, "approximated", r->approx);
	json_kuint(w, "priced_at_fallback", r->missing);
	json_kdouble(w, "fallback_share", share, 6);
	json_kbool(w, "mostly_fallback", share > PREDICT_FALLBACK_WARN);
	json_kuint(w, "priced_derived", predict_derived(pr, k));
	json_kdouble(w, "derived_share", predict_derived_share(pr, k), 6);
	const struct pred_spread *sp = &s->spread[k];
	json_key(w, "tpm_sampled");
	json_begin_object(w);
	json_kuint(w, "boots", sp->runs);
	json_kuint(w, "seed", sp->seed);
	json_kdouble(w, "p50_ms", sp->p50_ms, 6);
	json_kdouble(w, "p95_ms", sp->p95_ms, 6);
	json_kdouble(w, "max_ms", sp->max_ms, 6);
	json_kdouble(w, "sampled_share", sp->sampled, 6);
	json_end_object(w);
	json_key(w, "timeout_risk");
	json_begin_array(w);
	for (unsigned j = 0; j < s->nrisk[k]; j++) {
		const struct pred_timeout *t = &s->risk[k][j];
		char cc[16];
		json_begin_object(w);
		json_kstr(w, "command", tpm_cc_label(t->cc, cc, sizeof cc));
		json_kstr(w, "auth", profile_auth_str(t->auth));
		json_kstr(w, "variant", t->e ? t->e->variant : NULL);
		json_kbool(w, "derived", t->e && t->e->derived_from);
		json_kuint(w, "count", t->count);
		json_kstr(w, "kernel", predict_kernel_name(t->kernel));
		json_kdouble(w, "timeout_ms", t->timeout_ms, 3);
		json_kdouble(w, "p_command", t->p_cmd, 6);
		json_kdouble(w, "p_boot", t->p_boot, 6);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
}

int predict_run_json(FILE *f, const struct predict_run *s)
{
	const struct predictor *pr = s->pr;
	const struct pred_host *h = &s->host;
	struct json_w w;
	json_init_file(&w, f, JSON_COMPACT);
	json_begin_object(&w);
	json_kint(&w, "version", 1);
	json_kstr(&w, "profile", s->prof.name);
	json_kstr(&w, "profile_from", s->from);
	json_kstr(&w, "profile_chosen", s->why[0] ? s->why : NULL);
	json_kstr(&w, "trace", s->desc);
	json_kuint(&w, "input_commands", pr->in_commands);
	json_kuint(&w, "hwrng_reads", pr->in_hwrng);
	json_kbool(&w, "timing", !s->untimed);
	if (s->untimed)
		json_knull(&w, "non_tpm_ms");
	else
		json_kdouble(&w, "non_tpm_ms", pr->gap_ms, 6);
	json_kbool(&w, "non_tpm_known", pr->gap_known);
	if (pr->recorded_n) {
		json_kdouble(&w, "recorded_tpm_ms", pr->recorded_tpm_ms, 6);
		json_kdouble(&w, "recorded_total_ms", pr->recorded_tpm_ms + pr->gap_ms, 6);
	}
	json_kstr(&w, "host_crypto",
		  h->measured ? "measured on this host" : "constant estimate, not measured");
	json_key(&w, "host_crypto_per_op_ms");
	json_begin_object(&w);
	json_kdouble(&w, "salt_ecc", h->salt_ecc, 6);
	json_kdouble(&w, "salt", h->salt, 6);
	json_kdouble(&w, "unsalted", h->unsalted, 6);
	json_kdouble(&w, "hmac", h->hmac, 6);
	json_kdouble(&w, "enc", h->enc, 6);
	json_kdouble(&w, "name", h->name, 6);
	json_end_object(&w);
	json_key(&w, "policies");
	json_begin_array(&w);
	for (unsigned k = 0; k < s->npol; k++)
		if (s->show[k])
			json_policy(&w, s, k);
	json_end_array(&w);
	json_key(&w, "warnings");
	json_begin_array(&w);
	for (unsigned j = 0; j < s->nwarn; j++)
		json_str(&w, s->warns[j]);
	json_end_array(&w);
	json_end_object(&w);
	json_newline(&w);
	return json_done(&w);
}
