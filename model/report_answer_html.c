/* The report's answer in HTML (report_html.h): the headline table, one row
 * per policy with what each figure is (measured, emulated or predicted),
 * its runs, spread and verdict against password (model/run_stats.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/report_html.h"

/* The runs' sd, or why there is none (model/run_stats.h). */
void report_html_spread(FILE *f, const struct run_stats *st)
{
	char b1[32];
	if (st->n < 2)
		fputs("none (n=1)", f);
	else
		fputs(report_html_dur(model_run_stats_sd(st) * 1e6, b1, sizeof b1), f);
}

/* ---- the answer: one row per policy ---- */

static void factor_cell(FILE *f, double x)
{
	if (x > 0)
		fprintf(f, "<td>%.2f&times;</td>", x);
	else
		fputs("<td>-</td>", f);
}

/* A figure as a data attribute: empty for one the trace does not have. */
static const char *attr_ms(double ms, char *b, size_t l)
{
	return isnan(ms) ? "" : (snprintf(b, l, "%.6f", ms), b);
}

static void headline_row(FILE *f, const struct report_row *w)
{
	char b1[32], b2[32];
	fprintf(f,
		"<tr class=\"headline-row%s\" data-kind=\"%s\" data-tpm-ms=\"%s\" "
		"data-total-ms=\"%s\" data-x-password=\"%.6f\" data-fallback-share=\"%.4f\" "
		"data-mostly-fallback=\"%d\" data-policy=\"",
		w->mostly_fallback ? " mostly-fallback" : "", w->kind,
		attr_ms(w->tpm_ms, b1, sizeof b1), attr_ms(w->total_ms, b2, sizeof b2),
		w->x_password_total, w->fallback_share, w->mostly_fallback);
	report_html_text(f, w->policy);
	int pred = !strcmp(w->kind, "predicted");
	fprintf(f, "\" data-figures=\"%s\" data-runs=\"%u\" data-sd-ms=\"",
		pred ? "predicted" : model_figure_kind(w->emulated), w->runs);
	if (!pred && w->st.n > 1)
		fprintf(f, "%.6f", model_run_stats_sd(&w->st));
	fprintf(f, "\" data-verdict=\"%s\"><td class=\"l\">",
		!w->has_cmp ? "" : model_run_verdict_name(w->cmp.verdict));
	report_html_text(f, w->source);
	fputs("</td><td class=\"l\"><b>", f);
	report_html_text(f, w->policy);
	fprintf(f, "</b></td><td>%s", report_html_dur(w->tpm_ms * 1e6, b1, sizeof b1));
	/* Runs and spread under the mean (a prediction has neither, nor a
	 * trace without timing). */
	if (!pred && !isnan(w->tpm_ms)) {
		fprintf(f, "<div class=\"spread\">n=%u, sd ", w->runs);
		report_html_spread(f, &w->st);
		fputs("</div>", f);
	}
	fprintf(f, "</td><td>%s</td>", report_html_dur(w->total_ms * 1e6, b2, sizeof b2));
	if (w->has_cmp && w->x_password_tpm > 0)
		/* The ratio of repeated runs with the noise rule's verdict:
		 * a difference inside the noise is no effect. */
		fprintf(f, "<td>%.2f&times;<div class=\"verdict\">%s</div></td>", w->x_password_tpm,
			model_run_verdict_name(w->cmp.verdict));
	else
		factor_cell(f, w->x_password_tpm);
	factor_cell(f, w->x_password_total);
	factor_cell(f, w->x_recorded_total);
	if (!pred && *w->emulated) {
		fputs("<td class=\"share\">emulated: latency from profile ", f);
		report_html_text(f, w->emulated);
		fputs("</td><td>-</td>", f);
	} else if (!pred)
		fputs("<td class=\"share\">100% measured</td><td>-</td>", f);
	else {
		double measured = 1 - w->fallback_share - w->derived_share;
		fprintf(f, "<td class=\"share\">%.0f%% measured, ",
			100 * (measured > 0 ? measured : 0));
		if (w->derived_share > 0)
			fprintf(f, "%.0f%% derived, ", 100 * w->derived_share);
		fprintf(f, "%.0f%% fallback", 100 * w->fallback_share);
		if (w->mostly_fallback)
			fputs("<div class=\"flag\"><b>mostly fallback</b></div>", f);
		if (*w->fell_back) {
			fprintf(f,
				"<details class=\"fb\"><summary>%llu commands fell back</summary>",
				(unsigned long long)w->fallback_cmds);
			report_html_text(f, w->fell_back);
			fputs("</details>", f);
		}
		fputs("</td>", f);
		if (w->hi_ms > w->lo_ms)
			fprintf(f, "<td>%s..%s</td>",
				report_html_dur(w->lo_ms * 1e6, b1, sizeof b1),
				report_html_dur(w->hi_ms * 1e6, b2, sizeof b2));
		else
			fputs("<td>-</td>", f);
	}
	fputs("</tr>\n", f);
}

void report_html_headline(FILE *f, const struct report_answer *a)
{
	const struct report_headline *h = &a->h;
	char b1[32], b2[32];
	fputs("<section id=\"headline\"><h2>The answer: cost per session policy</h2>\n", f);
	fprintf(
	    f,
	    "%s<p class=\"note\">TPM time is the sum of command latencies; total adds the "
	    "host's crypto (predictions) and the recording's non-TPM time (%s; recorded "
	    "TPM time %s). &times; password compares with the password policy of the "
	    "same source, &times; as recorded the total with the recording's. A "
	    "prediction with more than %.0f%% of its TPM time priced at the profile's "
	    "fallback (commands the profile lacks) is marked <b>mostly fallback</b>: its "
	    "factors are guesses. <b>Derived</b>: priced from entries the profile made "
	    "from other commands' figures by a rule (docs/profiles.md), not measured on "
	    "that chip. Range: the TPM time with every profile entry at its "
	    "low and its high figure. Each figure says what it is: <b>measured</b> (the "
	    "recording and its replays on a real target), <b>emulated</b> (replays whose "
	    "latencies a profile gave) or <b>predicted</b>. Replays of one policy are "
	    "averaged: runs and their sample standard deviation beside the mean; against "
	    "password a difference inside its 95%% interval (Welch) is <i>within "
	    "noise</i>, no effect, and a ratio between single runs says so.</p>\n",
	    h->timed ? ""
		     : "<p class=\"note\" id=\"no-timing\">No timing in this trace (its commands "
		       "are ordered, not timed): TPM time priced from the profile, no gaps, no "
		       "boot total.</p>\n",
	    report_html_dur(h->non_tpm_ms * 1e6, b1, sizeof b1),
	    report_html_dur(h->recorded_tpm_ms * 1e6, b2, sizeof b2), 100 * REPORT_FALLBACK_WARN);
	if (!h->n || (h->n == 1 && !a->npred))
		fputs("<p class=\"warn\" id=\"no-answer\">Nothing to compare yet: replay the "
		      "trace under a policy or pass <code>--profile NAME</code>.</p>\n",
		      f);
	fputs("<table id=\"headline-table\"><tr><th class=\"l\">source</th>"
	      "<th class=\"l\">policy</th><th>TPM time</th>"
	      "<th>total time</th>"
	      "<th>&times; password<br>(TPM)</th><th>&times; password<br>(total)</th>"
	      "<th>&times; as recorded<br>(total)</th><th class=\"l\">priced from</th>"
	      "<th>TPM range</th></tr>\n",
	      f);
	for (unsigned i = 0; i < h->n; i++)
		headline_row(f, &h->rows[i]);
	fputs("</table></section>\n", f);
}
