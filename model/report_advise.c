/* tpmtrace report's "What to change" (report_advise.h): advise's findings of
 * the report's trace with their cost now and after the change as bars on one
 * axis, and the replayed saving of a stored proof beside the predicted one;
 * the same numbers in report --json. */
#include "model/report_advise.h"
#include "model/report_html.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db/text.h"
#include "model/advise_words.h"
#include "model/profile.h"

/* A finding's figures: priced where the run has a profile (advise prices
 * outliers on the record either way), else recorded. */
static void figures(struct report_advise_finding *x, const struct advise_result *r)
{
	const struct advise_finding *f = &x->f;
	x->before_ms = r->priced ? f->now_ms : f->rec_ms;
	x->after_ms = r->priced ? f->after_ms : f->rec_after_ms;
	x->saving_ms = advise_saving_ms(r, f);
}

/* The axis: a nice step (1, 2, 5 x 10^k) for about 5 ticks, its top the
 * largest bar rounded up to a step. */
static double step_for(double span)
{
	double raw = span / 5, p = pow(10, floor(log10(raw))), m = raw / p;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static double axis_top(double max)
{
	double top = max > 0 ? max : 1, step = step_for(top);
	return ceil(top / step) * step;
}

static void fill_run(struct report_advise_run *run, sqlite3 *db, int64_t id,
		     const struct advise_result *r)
{
	run->priced = r->priced;
	run->commands = r->commands;
	run->rec_ms = r->rec_ms;
	run->now_ms = r->now_ms;
	for (unsigned i = 0; i < r->n; i++) {
		struct report_advise_finding *x = &run->f[run->n++];
		x->f = r->f[i];
		figures(x, r);
		{
			struct advise_words w;
			advise_words(db, id, &x->f, &w);
			x->what = w.what;
			x->who = w.who;
			x->change = w.change;
		}
		if (run->priced && advise_proof_latest(db, id, advise_kind_name(x->f.kind),
						       run->profile, &x->proof) == 1) {
			double p = x->proof.predicted_saving_ms;
			x->proved = 1;
			x->proof_stale =
			    fabs(p - x->saving_ms) > 1e-6 * fmax(1, fabs(x->saving_ms));
		}
		double top = fmax(x->before_ms, x->after_ms);
		if (x->proved)
			top = fmax(top, x->before_ms - x->proof.replayed_saving_ms);
		run->axis_ms = fmax(run->axis_ms, top);
	}
	run->axis_ms = axis_top(run->axis_ms);
}

int report_advise_compute(struct report_advise *ra, sqlite3 *db, int64_t id,
			  const char *const *profiles, unsigned nprof, char *err, size_t errlen)
{
	struct advise_cmd *cmds = NULL;
	struct advise_result *r = malloc(sizeof *r);
	size_t n = 0;
	int rc = 0;
	memset(ra, 0, sizeof *ra);
	ra->trace_id = id;
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((rc = advise_load(db, id, &cmds, &n))) {
		snprintf(err, errlen, "trace %lld: advise: %s", (long long)id,
			 rc == -ENOMEM ? "out of memory" : sqlite3_errmsg(db));
		goto out;
	}
	for (unsigned k = 0; k < (nprof ? nprof : 1) && k < REPORT_MAX_PROFILES; k++) {
		struct report_advise_run *run = &ra->runs[ra->nruns++];
		struct profile prof;
		const char *from;
		profile_init(&prof);
		if (nprof && profile_resolve(db, profiles[k], &prof, &from, err, errlen)) {
			profile_release(&prof);
			rc = -EINVAL;
			goto out;
		}
		if (nprof)
			snprintf(run->profile, sizeof run->profile, "%s", prof.name);
		advise_run(cmds, n, nprof ? &prof : NULL, r);
		profile_release(&prof);
		fill_run(run, db, id, r);
	}
out:
	free(cmds);
	free(r);
	return rc;
}

/* ---- the page ---- */

static void esc(FILE *f, const char *s)
{
	report_html_text(f, s);
}

static const char *fmt_tick(double ms, char *b, size_t l)
{
	if (ms == 0)
		snprintf(b, l, "0");
	else if (ms >= 1000)
		snprintf(b, l, "%g s", ms / 1000);
	else
		snprintf(b, l, "%g ms", ms);
	return b;
}

static double proof_diff(const struct advise_proof *p)
{
	double pred = p->predicted_saving_ms;
	return pred ? (p->replayed_saving_ms - pred) / pred : 0;
}

/* The chart's geometry: the bars from X0 to X1 (the axis), their names
 * left of X0, their figures right of their ends. */
#define AX0   170.0
#define AX1   690.0
#define BAR_H 16
#define ROW_H 21
#define HEAD  22

static int finding_rows(const struct report_advise_finding *x)
{
	return x->proved ? 3 : 2;
}

static void bar(FILE *f, int y, double ms, double top, const char *cls, const char *color,
		const char *name, const char *text)
{
	char b[32];
	double w = top > 0 ? (AX1 - AX0) * fmax(ms, 0) / top : 0;
	fprintf(f,
		"<g class=\"advise-bar %s\" data-ms=\"%.6f\"><text x=\"%.0f\" y=\"%d\" "
		"text-anchor=\"end\">%s</text><rect x=\"%.0f\" y=\"%d\" width=\"%.2f\" "
		"height=\"%d\" fill=\"%s\"><title>%s: %s</title></rect><text x=\"%.1f\" "
		"y=\"%d\">",
		cls, ms, AX0 - 8, y + 12, name, AX0, y, w, BAR_H, color, name,
		predict_fmt_time(b, sizeof b, ms), AX0 + w + 6, y + 12);
	esc(f, text);
	fputs("</text></g>", f);
}

static void finding_bars(FILE *f, const struct report_advise_run *run, unsigned i, int y)
{
	const struct report_advise_finding *x = &run->f[i];
	char b1[32], b2[32], t[160];
	fprintf(f,
		"<g class=\"advise-finding\" data-kind=\"%s\" data-before-ms=\"%.6f\" "
		"data-after-ms=\"%.6f\" data-saving-ms=\"%.6f\" data-proved=\"%d\"",
		advise_kind_name(x->f.kind), x->before_ms, x->after_ms, x->saving_ms, x->proved);
	if (x->proved)
		fprintf(f,
			" data-replayed-saving-ms=\"%.6f\" data-proof-predicted-saving-ms=\"%.6f\" "
			"data-proof-difference=\"%.6f\"",
			x->proof.replayed_saving_ms, x->proof.predicted_saving_ms,
			proof_diff(&x->proof));
	fprintf(f,
		"><text class=\"advise-title\" x=\"8\" y=\"%d\" font-weight=\"bold\">%u. %s: "
		"saves %s</text>",
		y + 14, i + 1, advise_kind_name(x->f.kind),
		predict_fmt_time(b1, sizeof b1, x->saving_ms));
	y += HEAD;
	bar(f, y, x->before_ms, run->axis_ms, "now", "#9ca3af", "now",
	    predict_fmt_time(b1, sizeof b1, x->before_ms));
	snprintf(t, sizeof t, "%s (saves %s)", predict_fmt_time(b1, sizeof b1, x->after_ms),
		 predict_fmt_time(b2, sizeof b2, x->saving_ms));
	bar(f, y + ROW_H, x->after_ms, run->axis_ms, "after", "#2ca02c", "after, predicted", t);
	if (x->proved) {
		double rest = x->before_ms - x->proof.replayed_saving_ms;
		snprintf(t, sizeof t, "%s (saves %s replayed, %+.1f%%)",
			 predict_fmt_time(b1, sizeof b1, rest),
			 predict_fmt_time(b2, sizeof b2, x->proof.replayed_saving_ms),
			 100 * proof_diff(&x->proof));
		bar(f, y + 2 * ROW_H, rest, run->axis_ms, "replayed", "#ff7f0e", "after, replayed",
		    t);
	}
	fputs("</g>\n", f);
}

static void chart(FILE *f, const struct report_advise_run *run)
{
	char b[32];
	int h = 4;
	for (unsigned i = 0; i < run->n; i++)
		h += HEAD + finding_rows(&run->f[i]) * ROW_H + 8;
	double top = run->axis_ms, step = step_for(top);
	fprintf(f,
		"<svg class=\"advise-chart\" viewBox=\"0 0 1000 %d\" width=\"1000\" height=\"%d\" "
		"data-axis-ms=\"%.6f\" role=\"img\" aria-label=\"what to change\">\n",
		h + 36, h + 36, top);
	fprintf(f, "<g class=\"value-axis\" data-measure=\"TPM time of the finding's commands\">");
	for (double v = 0; v <= top * 1.0001; v += step) {
		double x = AX0 + (AX1 - AX0) * v / top;
		fprintf(f,
			"<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"2\" y2=\"%d\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
			x, x, h, x, h + 14, fmt_tick(v, b, sizeof b));
	}
	fprintf(f,
		"<text class=\"axis-title\" x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">TPM time "
		"of the finding's commands</text></g>\n",
		(AX0 + AX1) / 2, h + 30);
	int y = 4;
	for (unsigned i = 0; i < run->n; i++) {
		finding_bars(f, run, i, y);
		y += HEAD + finding_rows(&run->f[i]) * ROW_H + 8;
	}
	fputs("</svg>\n", f);
}

static void finding_item(FILE *f, const struct report_advise_run *run,
			 const struct report_advise_finding *x)
{
	char b1[32], b2[32], b3[32];
	const struct advise_finding *g = &x->f;
	fprintf(f,
		"<li class=\"advise-item\" data-kind=\"%s\"><b>%s</b>: ", advise_kind_name(g->kind),
		advise_kind_name(g->kind));
	esc(f, x->what);
	fprintf(f,
		".<br>where: seq %llu-%llu; %llu occurrence%s, %llu commands, %llu of them go."
		"<br>change (",
		(unsigned long long)g->first_seq, (unsigned long long)g->last_seq,
		(unsigned long long)g->count, g->count == 1 ? "" : "s",
		(unsigned long long)g->involved, (unsigned long long)g->removed);
	esc(f, x->who);
	fputs("): ", f);
	esc(f, x->change);
	fprintf(f, ".<br>now %s, after %s: saves <b>%s</b> ",
		predict_fmt_time(b1, sizeof b1, x->before_ms),
		predict_fmt_time(b2, sizeof b2, x->after_ms),
		predict_fmt_time(b3, sizeof b3, x->saving_ms));
	if (run->priced && g->kind != ADVISE_OUTLIERS) {
		fputs("predicted on ", f);
		esc(f, run->profile);
	} else {
		fputs("from the record", f);
	}
	if (x->proved) {
		const struct advise_proof *p = &x->proof;
		char basis[600];
		advise_proof_basis(basis, sizeof basis, p->emulated, p->target,
				   !strcmp(p->before_policy, "as-recorded"));
		fputs(".<br><span class=\"advise-proof\">proved (advise --prove, ", f);
		esc(f, p->created_at);
		/* Emulated runs show the change runs; their time is the profile's. */
		fputs("; ", f);
		esc(f, basis);
		fprintf(f,
			"; one run each): saves <b>%s %s</b>, %s predicted (%+.1f%%); trace "
			"%lld under ",
			predict_fmt_time(b1, sizeof b1, p->replayed_saving_ms),
			p->emulated[0] ? "replayed" : "measured",
			predict_fmt_time(b2, sizeof b2, p->predicted_saving_ms),
			100 * proof_diff(p), (long long)p->before_trace);
		esc(f, p->before_policy);
		fprintf(f, " (%s), trace %lld under ",
			predict_fmt_time(b1, sizeof b1, p->replayed_before_ms),
			(long long)p->after_trace);
		esc(f, p->after_policy);
		fprintf(f, " (%s)", predict_fmt_time(b1, sizeof b1, p->replayed_after_ms));
		if (x->proof_stale)
			fputs("; proved on another prediction than this one's: run advise --prove "
			      "again",
			      f);
		fputs("</span>", f);
	}
	fputs(".</li>\n", f);
}

static void run_html(FILE *f, const struct report_advise *ra, const struct report_advise_run *run)
{
	char b1[32], b2[32];
	fprintf(f, "<div class=\"advise-run\" data-profile=\"");
	esc(f, run->profile);
	fprintf(f, "\" data-findings=\"%u\">", run->n);
	if (run->priced) {
		fputs("<h3>Priced on ", f);
		esc(f, run->profile);
		fprintf(f,
			"</h3>\n<p class=\"note\">trace %lld: %llu commands, %s recorded, %s "
			"priced on ",
			(long long)ra->trace_id, (unsigned long long)run->commands,
			predict_fmt_time(b1, sizeof b1, run->rec_ms),
			predict_fmt_time(b2, sizeof b2, run->now_ms));
		esc(f, run->profile);
		fputs(".", f);
	} else {
		fprintf(f,
			"<p class=\"note\">trace %lld: %llu commands, %s recorded; priced on the "
			"record (pass <code>--profile NAME</code> to price on a TPM).",
			(long long)ra->trace_id, (unsigned long long)run->commands,
			predict_fmt_time(b1, sizeof b1, run->rec_ms));
	}
	if (!run->n) {
		fputs(
		    "</p>\n<p class=\"advise-nothing\">Nothing to change: none of the patterns of "
		    "docs/advise.md is in this trace.</p></div>\n",
		    f);
		return;
	}
	fputs(" Each finding's commands now and after the change, on one axis for all; "
	      "the replayed bar is the cost now less the saving <code>tpmtrace advise "
	      "--prove</code> measured where it ran (docs/advise.md).</p>\n",
	      f);
	chart(f, run);
	fputs("<ol class=\"advise-list\">\n", f);
	for (unsigned i = 0; i < run->n; i++)
		finding_item(f, run, &run->f[i]);
	fputs("</ol></div>\n", f);
}

void report_advise_html(FILE *f, const struct report_advise *ra)
{
	fputs("<section id=\"advise-section\"><h2>What to change</h2>\n", f);
	for (unsigned k = 0; k < ra->nruns; k++)
		run_html(f, ra, &ra->runs[k]);
	fputs("</section>\n", f);
}

/* ---- report --json ---- */

static void json_finding(struct json_w *w, const struct report_advise_run *run,
			 const struct report_advise_finding *x)
{
	const struct advise_finding *g = &x->f;
	json_begin_object(w);
	json_kstr(w, "kind", advise_kind_name(g->kind));
	json_kstr(w, "what", x->what);
	json_kstr(w, "who", x->who);
	json_kstr(w, "change", x->change);
	json_kuint(w, "count", g->count);
	json_kuint(w, "groups", g->groups);
	json_kuint(w, "commands", g->involved);
	json_kuint(w, "removed", g->removed);
	json_kuint(w, "first_seq", g->first_seq);
	json_kuint(w, "last_seq", g->last_seq);
	json_kdouble(w, "recorded_ms", g->rec_ms, 6);
	json_kdouble(w, "recorded_after_ms", g->rec_after_ms, 6);
	if (run->priced) {
		json_kdouble(w, "priced_ms", g->now_ms, 6);
		json_kdouble(w, "priced_after_ms", g->after_ms, 6);
	} else {
		json_knull(w, "priced_ms");
		json_knull(w, "priced_after_ms");
	}
	json_kdouble(w, "before_ms", x->before_ms, 6);
	json_kdouble(w, "after_ms", x->after_ms, 6);
	json_kdouble(w, "saving_ms", x->saving_ms, 6);
	if (!x->proved) {
		json_knull(w, "proof");
	} else {
		const struct advise_proof *p = &x->proof;
		json_key(w, "proof");
		json_begin_object(w);
		char basis[600];
		advise_proof_basis(basis, sizeof basis, p->emulated, p->target,
				   !strcmp(p->before_policy, "as-recorded"));
		json_kstr(w, "figures", p->emulated[0] ? "emulated" : "measured");
		json_kstr(w, "basis", basis);
		json_kstr(w, "target", p->target);
		json_kint(w, "runs", 1);
		json_kstr(w, "before_policy", p->before_policy);
		json_kstr(w, "after_policy", p->after_policy);
		json_kint(w, "before_trace", p->before_trace);
		json_kint(w, "after_trace", p->after_trace);
		json_kdouble(w, "replayed_before_ms", p->replayed_before_ms, 6);
		json_kdouble(w, "replayed_after_ms", p->replayed_after_ms, 6);
		json_kdouble(w, "replayed_saving_ms", p->replayed_saving_ms, 6);
		json_kdouble(w, "predicted_saving_ms", p->predicted_saving_ms, 6);
		json_kdouble(w, "difference", proof_diff(p), 6);
		json_kdouble(w, "replayed_after_bar_ms", x->before_ms - p->replayed_saving_ms, 6);
		json_kbool(w, "stale", x->proof_stale);
		json_kstr(w, "created_at", p->created_at);
		json_end_object(w);
	}
	json_end_object(w);
}

void report_advise_json(struct json_w *w, const struct report_advise *ra)
{
	json_key(w, "advise");
	json_begin_array(w);
	for (unsigned k = 0; k < ra->nruns; k++) {
		const struct report_advise_run *run = &ra->runs[k];
		json_begin_object(w);
		if (run->priced) {
			json_kstr(w, "profile", run->profile);
			json_kdouble(w, "priced_ms", run->now_ms, 6);
		} else {
			json_knull(w, "profile");
			json_knull(w, "priced_ms");
		}
		json_kuint(w, "commands", run->commands);
		json_kdouble(w, "recorded_ms", run->rec_ms, 6);
		json_kdouble(w, "axis_ms", run->axis_ms, 6);
		json_key(w, "findings");
		json_begin_array(w);
		for (unsigned i = 0; i < run->n; i++)
			json_finding(w, run, &run->f[i]);
		json_end_array(w);
		json_end_object(w);
	}
	json_end_array(w);
}
