/* `tpmtrace report --json`: the answer (model/report_headline.h) as one JSON
 * object, the numbers of the page's headline table, through db/json.h. */
#include <string.h>

#include "db/text.h"
#include "model/report_html.h"

/* A factor, or null where there is nothing to compare with (0). */
static void json_factor(struct json_w *w, const char *key, double x)
{
	if (x > 0)
		json_kdouble(w, key, x, 6);
	else
		json_knull(w, key);
}

static void json_row(struct json_w *w, const struct report_row *r)
{
	json_begin_object(w);
	json_kstr(w, "policy", r->policy);
	json_kstr(w, "kind", r->kind);
	int pred = !strcmp(r->kind, "predicted");
	json_kstr(w, "figures", pred ? "predicted" : model_figure_kind(r->emulated));
	json_kstr(w, "emulated", *r->emulated ? r->emulated : NULL);
	json_kuint(w, "runs", r->runs);
	/* The spread of repeated runs (model/run_stats.h); none for one run
	 * or a prediction. */
	if (pred) {
		json_knull(w, "tpm_ms_sd");
		json_knull(w, "tpm_ms_ci95");
	} else {
		model_run_stats_json(w, "tpm_ms_sd", "tpm_ms_ci95", &r->st);
	}
	model_run_cmp_json(w, "vs_password", r->has_cmp ? &r->cmp : NULL);
	json_kuint(w, "commands", r->commands);
	json_kdouble(w, "tpm_ms", r->tpm_ms, 6);
	json_kdouble(w, "total_ms", r->total_ms, 6);
	/* A prediction mostly priced at the fallback has no known range. */
	if (r->mostly_fallback) {
		json_knull(w, "tpm_low_ms");
		json_knull(w, "tpm_high_ms");
	} else {
		json_kdouble(w, "tpm_low_ms", r->lo_ms, 6);
		json_kdouble(w, "tpm_high_ms", r->hi_ms, 6);
	}
	json_factor(w, "factor_vs_password_tpm", r->x_password_tpm);
	json_factor(w, "factor_vs_password", r->x_password_total);
	json_factor(w, "factor_vs_recorded", r->x_recorded_total);
	json_kuint(w, "priced_at_fallback", r->fallback_cmds);
	json_kdouble(w, "fallback_ms", r->fallback_ms, 6);
	json_kdouble(w, "fallback_share", r->fallback_share, 6);
	json_kdouble(w, "derived_share", r->derived_share, 6);
	json_kbool(w, "mostly_fallback", r->mostly_fallback);
	json_kstr(w, "fell_back", r->fell_back);
	json_end_object(w);
}

/* The rows of one kind of figure: "measured" (kinds recorded and replay),
 * "emulated", or "predicted" from profile. */
static void json_rows(struct json_w *w, const struct report_headline *h, const char *figures,
		      const char *profile)
{
	json_begin_array(w);
	for (unsigned i = 0; i < h->n; i++) {
		const struct report_row *r = &h->rows[i];
		const char *f = !strcmp(r->kind, "predicted")  ? "predicted"
				: !strcmp(r->kind, "emulated") ? "emulated"
							       : "measured";
		if (!strcmp(f, figures) && (!profile || !strcmp(r->source, profile)))
			json_row(w, r);
	}
	json_end_array(w);
}

int report_json_write(FILE *f, const struct report_answer *a, const struct report_advise *adv,
		      const struct report_population *pop)
{
	const struct report_headline *h = &a->h;
	struct json_w w;
	json_init_file(&w, f, JSON_COMPACT);
	json_begin_object(&w);
	json_kint(&w, "version", 1);
	json_kint(&w, "trace", h->trace_id);
	json_kbool(&w, "timed", h->timed);
	json_kdouble(&w, "recorded_tpm_ms", h->recorded_tpm_ms, 6);
	json_kdouble(&w, "non_tpm_ms", h->non_tpm_ms, 6);
	json_kdouble(&w, "recorded_total_ms", h->recorded_total_ms, 6);
	json_kint(&w, "recorded_commands", h->recorded_commands);
	json_kdouble(&w, "recorded_span_ms", h->recorded_span_ms, 6);
	json_kint(&w, "tpmtrace_commands", h->tpmtrace_commands);
	json_kdouble(&w, "recorded_tpm_ms_incl_tpmtrace", h->tpm_ms_incl_tpmtrace, 6);
	json_kdouble(&w, "fallback_threshold", REPORT_FALLBACK_WARN, 2);
	json_key(&w, "measured");
	json_rows(&w, h, "measured", NULL);
	json_key(&w, "emulated");
	json_rows(&w, h, "emulated", NULL);
	json_key(&w, "predicted");
	json_begin_array(&w);
	for (unsigned p = 0; p < a->npred; p++) {
		json_begin_object(&w);
		json_kstr(&w, "profile", a->pred[p].profile);
		json_key(&w, "policies");
		json_rows(&w, h, "predicted", a->pred[p].profile);
		json_end_object(&w);
	}
	json_end_array(&w);
	if (adv)
		report_advise_json(&w, adv);
	if (pop)
		report_population_json(&w, pop);
	json_end_object(&w);
	json_newline(&w);
	return json_done(&w);
}
