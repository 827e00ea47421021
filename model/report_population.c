/* report --population (report_population.h): the trace on every shipped
 * profile, one strip per policy. */
#include "model/report_population.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/predict.h"
#include "db/json.h"
#include "model/report_html.h"

int report_population_compute(struct report_population *rp, sqlite3 *db, int64_t trace_id,
			      const char *which, const struct pred_host *host, char *err,
			      size_t errlen)
{
	struct policy pols[PREDICT_MAX_POLICIES];
	int show[PREDICT_MAX_POLICIES];
	unsigned npol, base;
	uint64_t n = 0;
	int rc;
	memset(rp, 0, sizeof *rp);
	rp->vendor = which && strcmp(which, "all") ? which : NULL;
	if ((rc = predict_policies(NULL, 0, pols, show, &npol, &base, err, errlen)))
		return rc;
	if ((rc = predict_population_init(&rp->pp, rp->vendor, pols, npol, host, err, errlen)))
		return rc;
	if ((rc = predict_population_trace(&rp->pp, db, trace_id, &n, err, errlen)))
		return rc;
	for (unsigned k = 0; k < npol; k++)
		if (show[k]) {
			rp->pols[rp->npol] = pols[k];
			rp->idx[rp->npol++] = k;
		}
	if (!(rp->rows = calloc((size_t)rp->npol * rp->pp.n, sizeof *rp->rows))) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned k = 0; k < rp->npol; k++)
		if (predict_population_rows(&rp->pp, rp->idx[k], PREDICT_BOOTS_DEFAULT,
					    PREDICT_SEED_DEFAULT,
					    rp->rows + (size_t)k * rp->pp.n)) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	return 0;
}

void report_population_free(struct report_population *rp)
{
	free(rp->rows);
	predict_population_free(&rp->pp);
	memset(rp, 0, sizeof *rp);
}

/* The row of profile prof under shown policy k. */
static const struct pred_pop_row *row_of(const struct report_population *rp, unsigned k,
					 const struct profile *prof)
{
	const struct pred_pop_row *r = rp->rows + (size_t)k * rp->pp.n;
	for (unsigned i = 0; i < rp->pp.n; i++)
		if (r[i].prof == prof)
			return &r[i];
	return NULL;
}

#define POP_X0 230.0
#define POP_X1 960.0
#define POP_RH 36.0

void report_population_html(FILE *f, const struct report_population *rp)
{
	char b1[32], b2[32];
	unsigned n = rp->pp.n;
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < (size_t)rp->npol * n; i++) {
		if (rp->rows[i].sp.p50_ms > 0 && rp->rows[i].sp.p50_ms < lo)
			lo = rp->rows[i].sp.p50_ms;
		if (rp->rows[i].sp.p95_ms > hi)
			hi = rp->rows[i].sp.p95_ms;
	}
	fputs("<section id=\"population-section\"><h2>On the chip population</h2>\n", f);
	fprintf(f,
		"<p class=\"note\">Predicted, not measured: the trace on %u shipped profiles%s%s "
		"(the TPMScan chips and the published ones; docs/profiles.md), as "
		"'tpmtrace predict --profile all' gives it. Each dot is a profile's TPM time "
		"at p50 over %d sampled boots (seed %d), its line reaching p95; a hollow dot "
		"prices more than %.0f%% of it at the profile's fallback (a guess). Many "
		"entries of the TPMScan profiles are derived from other commands' figures "
		"(the table's 'derived'); docs/fidelity.md gives their errors where a "
		"published figure checks them.</p>\n",
		n, rp->vendor ? " of vendor " : "", rp->vendor ? rp->vendor : "",
		PREDICT_BOOTS_DEFAULT, PREDICT_SEED_DEFAULT, 100 * PREDICT_FALLBACK_WARN);
	if (!n || !(hi > 0) || !isfinite(lo)) {
		fputs("<p class=\"note\">Nothing to draw.</p></section>\n", f);
		return;
	}
	double l0 = floor(log10(lo)), l1 = ceil(log10(hi));
	if (l1 <= l0)
		l1 = l0 + 1;
#define POP_X(v) (POP_X0 + (POP_X1 - POP_X0) * (log10(v) - l0) / (l1 - l0))
	int yb = (int)(rp->npol * POP_RH + 8), h = yb + 40;
	fprintf(f,
		"<svg id=\"population-chart\" class=\"policy-chart\" viewBox=\"0 0 1000 %d\" "
		"width=\"1000\" height=\"%d\" data-profiles=\"%u\" data-policies=\"%u\" "
		"role=\"img\" aria-label=\"TPM time on the chip population\">\n",
		h, h, n, rp->npol);
	fputs("<g class=\"value-axis\" data-measure=\"TPM time\" data-scale=\"log\">", f);
	for (double e = l0; e <= l1 + 1e-9; e++) {
		double x = POP_X(pow(10, e));
		fprintf(f,
			"<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"2\" y2=\"%d\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
			x, x, yb, x, yb + 14, report_html_dur(pow(10, e) * 1e6, b1, sizeof b1));
	}
	fprintf(f,
		"<text class=\"axis-title\" x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">TPM time "
		"(log scale), p50 to p95 per profile</text></g>\n",
		(POP_X0 + POP_X1) / 2, yb + 32);
	for (unsigned k = 0; k < rp->npol; k++) {
		const struct pred_pop_row *r = rp->rows + (size_t)k * n;
		double y = k * POP_RH + 8 + POP_RH / 2;
		fprintf(f, "<g class=\"pop-policy\" data-policy=\"");
		report_html_text(f, rp->pols[k].name);
		fprintf(f,
			"\" data-median-ms=\"%.3f\"><text x=\"%.0f\" y=\"%.1f\" "
			"text-anchor=\"end\">",
			r[n / 2].sp.p50_ms, POP_X0 - 10, y + 4);
		report_html_text(f, rp->pols[k].name);
		fprintf(f,
			"</text><line class=\"grid\" x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" "
			"y2=\"%.1f\"/>",
			POP_X0, POP_X1, y, y);
		for (unsigned i = 0; i < n; i++) {
			double x50 = POP_X(r[i].sp.p50_ms), x95 = POP_X(r[i].sp.p95_ms);
			int guess = r[i].fallback > PREDICT_FALLBACK_WARN;
			fprintf(f, "<g class=\"pop-dot\" data-profile=\"");
			report_html_text(f, r[i].prof->name);
			fprintf(f,
				"\" data-p50-ms=\"%.3f\" data-p95-ms=\"%.3f\"><line x1=\"%.1f\" "
				"x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#1f77b4\" "
				"stroke-opacity=\"0.5\"/><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
				"fill=\"%s\" stroke=\"#1f77b4\" fill-opacity=\"0.6\"><title>",
				r[i].sp.p50_ms, r[i].sp.p95_ms, x50, x95 > x50 + 1 ? x95 : x50 + 1,
				y, y, x50, y, guess ? "none" : "#1f77b4");
			report_html_text(f, r[i].prof->name);
			fprintf(f,
				": p50 %s, p95 %s; derived %.0f%%, fallback %.0f%%</title>"
				"</circle></g>",
				report_html_dur(r[i].sp.p50_ms * 1e6, b1, sizeof b1),
				report_html_dur(r[i].sp.p95_ms * 1e6, b2, sizeof b2),
				100 * r[i].derived, 100 * r[i].fallback);
		}
		fprintf(f,
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">median "
			"%s</text></g>\n",
			POP_X(r[n / 2].sp.p50_ms), y - 8,
			report_html_dur(r[n / 2].sp.p50_ms * 1e6, b1, sizeof b1));
	}
#undef POP_X
	fputs("</svg>\n", f);
	/* The table behind it: one row per profile, by name. */
	fputs("<details><summary>Table</summary><div class=\"wide\">"
	      "<table id=\"population-table\"><tr><th class=\"l\">profile</th>"
	      "<th class=\"l\">vendor</th>",
	      f);
	for (unsigned k = 0; k < rp->npol; k++) {
		fputs("<th>", f);
		report_html_text(f, rp->pols[k].name);
		fputs(" p50 / p95</th>", f);
	}
	fputs("<th>derived</th><th>fallback</th></tr>\n", f);
	for (unsigned i = 0; i < n; i++) {
		const struct profile *p = &rp->pp.prof[i];
		double der = 0, fb = 0;
		fputs("<tr><td class=\"l\">", f);
		report_html_text(f, p->name);
		fputs("</td><td class=\"l\">", f);
		report_html_text(f, p->vendor ? p->vendor : "-");
		fputs("</td>", f);
		for (unsigned k = 0; k < rp->npol; k++) {
			const struct pred_pop_row *r = row_of(rp, k, p);
			if (!r) {
				fputs("<td>-</td>", f);
				continue;
			}
			der = r->derived > der ? r->derived : der;
			fb = r->fallback > fb ? r->fallback : fb;
			fprintf(f, "<td>%s / %s</td>",
				report_html_dur(r->sp.p50_ms * 1e6, b1, sizeof b1),
				report_html_dur(r->sp.p95_ms * 1e6, b2, sizeof b2));
		}
		fprintf(f, "<td>%.0f%%</td><td>%.0f%%</td></tr>\n", 100 * der, 100 * fb);
	}
	fputs("</table></div><p class=\"note\">derived and fallback: the largest share of "
	      "the TPM time over the policies priced from derived entries and at the "
	      "profile's fallback.</p></details></section>\n",
	      f);
}

void report_population_json(struct json_w *w, const struct report_population *rp)
{
	json_key(w, "population");
	json_begin_object(w);
	json_kstr(w, "vendor", rp->vendor);
	json_kuint(w, "profiles", rp->pp.n);
	json_kuint(w, "boots", PREDICT_BOOTS_DEFAULT);
	json_kuint(w, "seed", PREDICT_SEED_DEFAULT);
	json_key(w, "policies");
	json_begin_array(w);
	for (unsigned k = 0; k < rp->npol; k++)
		predict_population_json(w, &rp->pp, rp->pols[k].name,
					rp->rows + (size_t)k * rp->pp.n, -1);
	json_end_array(w);
	json_end_object(w);
}
