/* advise --json (model/advise_json.h). */
#include "model/advise_json.h"

#include <stdio.h>
#include <string.h>

#include "db/json.h"
#include "model/advise_proof.h"
#include "model/advise_words.h"
#include "model/policy.h"
#include "model/run_stats.h"

void advise_prove_basis(char *b, size_t n, const char *prof, const char *target, int measure,
			const struct advise_prove_result *p)
{
	advise_proof_basis(b, n, measure ? NULL : prof, target, !strcmp(p->before, "as-recorded"));
}

/* What the trace's own figures are: "measured", or "emulated: latency from
 * profile NAME" for a replay on a swtpm that emulated a profile (its times
 * are the profile's); kind gets model_figure_kind's word. */
void advise_trace_figures(sqlite3 *db, int64_t id, char *label, size_t n, const char **kind)
{
	sqlite3_stmt *st;
	char em[128] = "";
	if (sqlite3_prepare_v2(db, "SELECT emulated FROM trace WHERE id=?", -1, &st, NULL) ==
	    SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(em, sizeof em, "%s", (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	*kind = model_figure_kind(*em ? em : NULL);
	if (*em)
		snprintf(label, n, "%s: latency from profile %s", *kind, em);
	else
		snprintf(label, n, "%s", *kind);
}

double advise_proof_diff(const struct advise_result *r, const struct advise_finding *f,
			 const struct advise_prove_result *p)
{
	double pred = advise_saving_ms(r, f), rep = p->before_ms - p->after_ms;
	return pred ? (rep - pred) / pred : 0;
}

static void json_finding(struct json_w *w, const struct advise_result *r,
			 const struct advise_finding *f, const struct advise_client *cn)
{
	struct advise_words t;
	advise_words_of(f, cn, &t);
	json_kstr(w, "kind", advise_kind_name(f->kind));
	json_kstr(w, "what", t.what);
	json_kuint(w, "count", f->count);
	json_kuint(w, "groups", f->groups);
	json_kuint(w, "commands", f->involved);
	json_kuint(w, "removed", f->removed);
	json_kuint(w, "first_seq", f->first_seq);
	json_kuint(w, "last_seq", f->last_seq);
	json_key(w, "origins");
	json_begin_object(w);
	for (int k = 0; k < 4; k++)
		if (f->by_origin[k])
			json_kuint(w, policy_origin_str(k), f->by_origin[k]);
	json_end_object(w);
	json_key(w, "clients");
	json_begin_array(w);
	for (unsigned k = 0; k < f->n_clients; k++) {
		if (!cn[k].comm[0])
			continue;
		json_begin_object(w);
		json_kuint(w, "id", f->clients[k]);
		json_kstr(w, "comm", cn[k].comm);
		if (cn[k].has_pid)
			json_kint(w, "pid", cn[k].pid);
		else
			json_knull(w, "pid");
		json_end_object(w);
	}
	json_end_array(w);
	json_kdouble(w, "recorded_ms", f->rec_ms, 6);
	json_kdouble(w, "recorded_after_ms", f->rec_after_ms, 6);
	json_kuint(w, "recorded_unknown", f->rec_unknown);
	if (r->priced) {
		json_kdouble(w, "priced_ms", f->now_ms, 6);
		json_kdouble(w, "priced_after_ms", f->after_ms, 6);
		json_kuint(w, "priced_fallback", f->priced_fallback);
	} else {
		json_knull(w, "priced_ms");
		json_knull(w, "priced_after_ms");
		json_knull(w, "priced_fallback");
	}
	json_kdouble(w, "saving_ms", advise_saving_ms(r, f), 6);
	json_kstr(w, "who", t.who);
	json_kstr(w, "change", t.change);
}

static void json_proof(struct json_w *w, const struct advise_result *r,
		       const struct advise_finding *f, const struct advise_prove_result *p,
		       const struct advise_json_opts *o)
{
	if (!p || !p->done) {
		json_knull(w, "proof");
		if (p && p->why)
			json_kstr(w, "unproved", p->why);
		return;
	}
	json_key(w, "proof");
	json_begin_object(w);
	char basis[600];
	advise_prove_basis(basis, sizeof basis, o->profile, o->target, o->measure, p);
	json_kstr(w, "figures", o->measure ? "measured" : "emulated");
	json_kstr(w, "basis", basis);
	json_kstr(w, "target", o->target ? o->target : "swtpm (spawned)");
	json_kint(w, "runs", 1);
	json_kstr(w, "before_policy", p->before);
	json_kstr(w, "after_policy", p->after);
	json_kint(w, "before_trace", p->trace_before);
	json_kint(w, "after_trace", p->trace_after);
	json_kdouble(w, "replayed_before_ms", p->before_ms, 6);
	json_kdouble(w, "replayed_after_ms", p->after_ms, 6);
	json_kdouble(w, "replayed_saving_ms", p->before_ms - p->after_ms, 6);
	json_kdouble(w, "predicted_saving_ms", advise_saving_ms(r, f), 6);
	json_kdouble(w, "difference", advise_proof_diff(r, f, p), 6);
	json_end_object(w);
}

int advise_json_write(FILE *f, sqlite3 *db, int64_t id, const struct advise_result *r,
		      const struct advise_prove_result *pf, const struct advise_json_opts *o)
{
	struct advise_client cn[ADVISE_MAX_CLIENTS];
	char fig[160];
	const char *figkind, *prof = o->profile;
	advise_trace_figures(db, id, fig, sizeof fig, &figkind);
	{
		struct json_w w;
		json_init_file(&w, f, JSON_COMPACT);
		json_begin_object(&w);
		json_kint(&w, "version", 1);
		json_kint(&w, "trace", id);
		json_kuint(&w, "commands", r->commands);
		json_kdouble(&w, "recorded_ms", r->rec_ms, 6);
		json_kstr(&w, "recorded_figures", figkind);
		json_kstr(&w, "priced_figures", r->priced ? "predicted" : NULL);
		json_kstr(&w, "profile", prof);
		if (r->priced)
			json_kdouble(&w, "priced_ms", r->now_ms, 6);
		else
			json_knull(&w, "priced_ms");
		json_key(&w, "findings");
		json_begin_array(&w);
		for (unsigned i = 0; i < r->n; i++) {
			advise_clients_load(db, id, &r->f[i], cn);
			json_begin_object(&w);
			json_finding(&w, r, &r->f[i], cn);
			if (pf)
				json_proof(&w, r, &r->f[i], &pf[i], o);
			json_end_object(&w);
		}
		json_end_array(&w);
		json_end_object(&w);
		json_newline(&w);
		return json_done(&w);
	}
}
