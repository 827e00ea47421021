/* tpmtrace report's page: one self-contained HTML file (inline SVG and CSS, a
 * small inline script for zooming, nothing from the network) rendered from the
 * numbers of model/report_data.h: the timeline, the latency distribution per
 * command code, the slowest commands, and the cost per session policy. Every
 * chart has the table behind it. */
#include "model/report_html.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/text.h"
#include "model/tpm/tpm_cc.h"

#define LAT_ROWS 40 /* command codes drawn in the latency chart */

struct rep {
	FILE *f;
	struct report_data *d;
	uint64_t marks;
};

static const char *fam_name[TPM_FAM__COUNT];
static const char *const fam_color[TPM_FAM__COUNT] = {"#d62728", "#2ca02c", "#9467bd", "#1f77b4",
						      "#17becf", "#ff7f0e", "#8c564b", "#e377c2",
						      "#7f7f7f", "#bcbd22"};
static const char *const org_color[RD_ORG__COUNT] = {"#dddddd", "#f4a261", "#8ab17d", "#5e9bd6"};

void report_html_text(FILE *f, const char *s)
{
	char buf[8192];
	/* Control characters and the like shown as \xNN (common.c), then
	 * HTML's own. */
	s = s ? db_text_safe(s, buf, sizeof buf) : NULL;
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

static void html(FILE *f, const char *s)
{
	report_html_text(f, s);
}

/* A duration for people: ns, us, ms or s with 3 significant-ish digits;
 * "no timing" for a figure the trace does not have (NaN: docs/schema.md,
 * "Figures"). */
const char *report_html_dur(double ns, char *b, size_t l)
{
	if (isnan(ns))
		snprintf(b, l, "no timing");
	else if (ns < 1e3)
		snprintf(b, l, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(b, l, "%.1f µs", ns / 1e3);
	else if (ns < 1e9)
		snprintf(b, l, "%.3f ms", ns / 1e6);
	else
		snprintf(b, l, "%.3f s", ns / 1e9);
	return b;
}

/* Axis labels: as short as the value allows ("50 ms", "2.5 s"). */
static const char *fmt_axis(double ns, char *b, size_t l)
{
	if (ns == 0)
		snprintf(b, l, "0");
	else if (ns < 1e3)
		snprintf(b, l, "%g ns", ns);
	else if (ns < 1e6)
		snprintf(b, l, "%g µs", ns / 1e3);
	else if (ns < 1e9)
		snprintf(b, l, "%g ms", ns / 1e6);
	else
		snprintf(b, l, "%g s", ns / 1e9);
	return b;
}

/* ---- page parts ---- */

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0;"
    "background:#f6f7f9;color:#222}\n"
    "header{background:#1f2937;color:#fff;padding:18px 28px}\n"
    "header h1{margin:0 0 4px;font-size:22px;font-weight:600}\n"
    "header .sub{color:#cbd5e1;font-size:13px}\n"
    "main{padding:8px 28px 40px;max-width:1320px}\n"
    "section{background:#fff;border:1px solid #e3e6ea;border-radius:8px;margin:18px 0;"
    "padding:14px 18px}\n"
    "h2{font-size:17px;margin:0 0 6px}\n"
    ".note{color:#555;font-size:12.5px;margin:4px 0 8px}\n"
    ".warn{background:#fff4d6;border:1px solid #f0d68a;border-radius:4px;padding:4px 8px;"
    "font-size:12.5px;display:inline-block}\n"
    ".cards{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0 0}\n"
    ".card{background:#fff;border:1px solid #e3e6ea;border-radius:8px;padding:8px 14px;"
    "min-width:120px}\n"
    ".card b{display:block;font-size:19px}.card span{color:#666;font-size:12px}\n"
    ".legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12.5px;margin:6px 0}\n"
    ".legend i{display:inline-block;width:11px;height:11px;border-radius:2px;"
    "margin-right:5px;vertical-align:-1px}\n"
    ".tl{display:flex;border:1px solid #e3e6ea;border-radius:4px}\n"
    ".tl .lanes{flex:0 0 150px;font-size:12px;border-right:1px solid #e3e6ea;"
    "background:#fafbfc}\n"
    ".tl .lanes div{height:18px;line-height:18px;padding:0 6px;white-space:nowrap;"
    "overflow:hidden}\n"
    ".tl .scroll{flex:1;overflow-x:auto;position:relative}\n"
    ".tl .inner{position:relative;width:100%}\n"
    ".tl svg{display:block;width:100%}\n"
    ".ticks{position:relative;height:18px;font-size:11px;color:#555}\n"
    ".ticks span{position:absolute;transform:translateX(-50%);white-space:nowrap}\n"
    ".ticks span:first-child{transform:none}\n"
    ".zoom{margin:6px 0;font-size:12.5px}.zoom button{margin-right:4px}\n"
    "table{border-collapse:collapse;font-size:12.5px;margin:6px 0}\n"
    "th,td{border-bottom:1px solid #eceff2;padding:3px 9px;text-align:right;"
    "white-space:nowrap}\n"
    "th{background:#f3f5f7;font-weight:600}td.l,th.l{text-align:left}\n"
    "details summary{cursor:pointer;color:#2563eb;font-size:13px;margin-top:6px}\n"
    "svg text{font:11px system-ui,sans-serif;fill:#333}\n"
    ".grid{stroke:#e5e7eb;stroke-width:1}\n"
    ".m{shape-rendering:crispEdges}\n"
    ".mk{stroke-width:1px;vector-effect:non-scaling-stroke}\n"
    ".axis-title{font-weight:600}\n"
    "tr.mostly-fallback td{background:#fff4d6}.flag{color:#b45309}\n"
    ".fb{color:#666;font-size:11.5px;white-space:normal;max-width:300px}"
    ".fb summary{margin:0;font-size:11.5px}td.share{text-align:left}\n"
    "footer{color:#777;font-size:12px;padding:0 28px 24px}\n"
    /* a table wider than the page scrolls in its box, not the page */
    ".wide{overflow-x:auto;max-width:100%}\n"
    ".advise-list li{margin:6px 0;max-width:1100px}.advise-nothing{font-weight:600}\n";
const char *const report_html_css = css;

static void fam_classes(FILE *f)
{
	fputs("<style>", f);
	for (int i = 0; i < TPM_FAM__COUNT; i++)
		fprintf(f, ".f%d{fill:%s}.mk.f%d{stroke:%s}", i, fam_color[i], i, fam_color[i]);
	fputs("</style>\n", f);
}

static void legend_fams(FILE *f, const struct rep *r)
{
	fputs("<div class=\"legend\">", f);
	for (int i = 0; i < TPM_FAM__COUNT; i++)
		if (!r || r->d->fam_n[i])
			fprintf(f, "<span><i style=\"background:%s\"></i>%s</span>", fam_color[i],
				fam_name[i]);
	fputs("</div>\n", f);
}

/* Nice step (1, 2, 5 x 10^k) for about n ticks over span. */
static double nice_step(double span, int n)
{
	double raw = span / n, p = pow(10, floor(log10(raw))), m = raw / p;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static const char *ev_class(const char *kind)
{
	if (strstr(kind, "POWER") || strstr(kind, "INIT") || strstr(kind, "RESET") ||
	    strstr(kind, "SHUTDOWN") || strstr(kind, "STOP") || strstr(kind, "SUSPEND"))
		return "#d62728"; /* power and TPM life cycle */
	if (strstr(kind, "LOCALITY"))
		return "#1f77b4";
	if (strstr(kind, "lost") || strstr(kind, "error") || strstr(kind, "gap") ||
	    strstr(kind, "drop"))
		return "#ff7f0e";
	return "#6b7280"; /* recording start/stop, others */
}

/* The timeline's SVG geometry: events lane, phases lane, one lane per family. */
#define LANE_H 18
#define Y_EV   0
#define Y_PH   LANE_H
#define Y_FAM  (2 * LANE_H)

/* A timeline tick: time from the first record, or a seq number. */
static const char *axis_label(const struct report_data *d, double t, char *b, size_t l)
{
	if (d->timed)
		return fmt_axis(t, b, l);
	snprintf(b, l, "#%.0f", (double)d->t0 + t);
	return b;
}

static void timeline_open(struct rep *r)
{
	FILE *f = r->f;
	char b1[32], b2[32];
	double span = r->d->t1 > r->d->t0 ? (double)(r->d->t1 - r->d->t0) : 0;
	int h = Y_FAM + TPM_FAM__COUNT * LANE_H;

	fprintf(f, "<section id=\"timeline-section\"><h2>Timeline</h2>\n");
	if (r->d->timed)
		fprintf(
		    f,
		    "<p class=\"note\" id=\"axis-note\" data-axis=\"time\">Every command is "
		    "a mark at the time it was sent, as wide as its latency and at least 1 px, "
		    "in the lane of its command family. Control events are the lines in the top "
		    "lane; phases (firmware, kernel, userspace) come from the clients that sent "
		    "the commands. Hover a mark for its seq, command and latency. The axis is "
		    "time from the first record to the last (commands and events): %s, %llu "
		    "commands, %llu events.</p>\n",
		    report_html_dur(span, b1, sizeof b1), (unsigned long long)r->d->n_cmd,
		    (unsigned long long)r->d->n_ev);
	else
		fprintf(f,
			"<p class=\"warn\" id=\"axis-note\" data-axis=\"order\">This trace has no "
			"latencies (an imported log without timing): the axis is the order of its "
			"records (seq %llu to %llu), not time; marks are 1 px wide. %llu commands, "
			"%llu events.</p>\n",
			(unsigned long long)r->d->t0, (unsigned long long)r->d->t1,
			(unsigned long long)r->d->n_cmd, (unsigned long long)r->d->n_ev);
	if (r->d->aggregate)
		fprintf(f,
			"<p class=\"warn\" id=\"aggregated\">%llu commands is more than %u: the "
			"timeline shows one mark per command family and time bin (%d bins, "
			"each %s), shaded by how many commands it holds, instead of one mark "
			"per command. The other charts and tables use every command.</p>\n",
			(unsigned long long)r->d->n_cmd, r->d->max_marks, RD_NBINS,
			report_html_dur(span / RD_NBINS, b2, sizeof b2));
	legend_fams(f, NULL);
	fputs("<div class=\"zoom\">Zoom: <button type=\"button\" data-z=\"1\">1&times;</button>"
	      "<button type=\"button\" data-z=\"4\">4&times;</button>"
	      "<button type=\"button\" data-z=\"16\">16&times;</button>"
	      "<button type=\"button\" data-z=\"64\">64&times;</button>"
	      "<span class=\"note\"> then scroll sideways</span></div>\n",
	      f);
	fputs("<div class=\"tl\"><div class=\"lanes\"><div><b>events</b></div>"
	      "<div><b>phases</b></div>",
	      f);
	for (int i = 0; i < TPM_FAM__COUNT; i++)
		fprintf(f, "<div style=\"color:%s\">%s</div>", fam_color[i], fam_name[i]);
	fputs("<div></div></div>\n<div class=\"scroll\"><div class=\"inner\" id=\"tl-inner\">\n",
	      f);
	fprintf(f,
		"<svg id=\"timeline\" viewBox=\"0 0 1000 %d\" height=\"%d\" "
		"preserveAspectRatio=\"none\" data-commands=\"%llu\" data-events=\"%llu\" "
		"data-aggregated=\"%d\" role=\"img\" aria-label=\"timeline\">\n",
		h, h, (unsigned long long)r->d->n_cmd, (unsigned long long)r->d->n_ev,
		r->d->aggregate);
	for (int i = 0; i <= TPM_FAM__COUNT + 2; i++)
		fprintf(f,
			"<line class=\"grid\" x1=\"0\" x2=\"1000\" y1=\"%d\" y2=\"%d\" "
			"vector-effect=\"non-scaling-stroke\"/>\n",
			i * LANE_H, i * LANE_H);
	if (span > 0) {
		double step = nice_step(span, 10);
		for (double t = step; t < span; t += step)
			fprintf(f,
				"<line class=\"grid\" x1=\"%.3f\" x2=\"%.3f\" y1=\"0\" y2=\"%d\" "
				"vector-effect=\"non-scaling-stroke\"/>\n",
				1000 * t / span, 1000 * t / span, h);
	}
	fputs("<g id=\"marks\">\n", f);
}

static void mark_write(void *ctx, const struct report_data *d, const struct rd_cmd *c)
{
	struct rep *r = ctx;
	char nb[16], lb[32];
	double x = report_xpos(d, c->t), w = 0.12;
	if (c->lat > 0 && d->t1 > d->t0) {
		double lw = 1000.0 * (double)c->lat / (double)(d->t1 - d->t0);
		if (lw > w)
			w = lw;
	}
	fprintf(r->f,
		"<rect class=\"m mk f%d\" x=\"%.3f\" y=\"%d\" width=\"%.3f\" height=\"%d\">"
		"<title>seq %llu: %s, latency %s",
		c->fam, x, Y_FAM + c->fam * LANE_H + 2, w, LANE_H - 4, (unsigned long long)c->seq,
		tpm_cc_label(c->cc, nb, sizeof nb),
		c->lat >= 0 ? report_html_dur((double)c->lat, lb, sizeof lb) : "not recorded");
	if (c->has_rc && c->rc)
		fprintf(r->f, " rc 0x%X", c->rc);
	fputs("</title></rect>\n", r->f);
	r->marks++;
}

static void timeline_close(struct rep *r)
{
	FILE *f = r->f;
	char b1[32];
	if (r->d->aggregate) {
		uint32_t maxc = 1;
		for (size_t i = 0; i < (size_t)TPM_FAM__COUNT * RD_NBINS; i++)
			if (r->d->bins[i] > maxc)
				maxc = r->d->bins[i];
		for (int fam = 0; fam < TPM_FAM__COUNT; fam++)
			for (int b = 0; b < RD_NBINS; b++) {
				uint32_t n = r->d->bins[fam * RD_NBINS + b];
				if (!n)
					continue;
				double op = 0.25 + 0.75 * log1p(n) / log1p(maxc);
				fprintf(
				    f,
				    "<rect class=\"m f%d\" x=\"%.3f\" y=\"%d\" width=\"%.3f\" "
				    "height=\"%d\" fill-opacity=\"%.2f\" data-n=\"%u\"><title>%u "
				    "%s commands, slowest %s</title></rect>\n",
				    fam, 1000.0 * b / RD_NBINS, Y_FAM + fam * LANE_H + 2,
				    1000.0 / RD_NBINS, LANE_H - 4, op, n, n, fam_name[fam],
				    report_html_dur((double)r->d->bin_max[fam * RD_NBINS + b], b1,
						    sizeof b1));
				r->marks++;
			}
	}
	fputs("</g>\n<g id=\"phases\">\n", f);
	if (r->d->any_known_org)
		for (unsigned i = 0; i < r->d->n_runs; i++) {
			double x0 = report_xpos(r->d, r->d->runs[i].t0),
			       x1 = report_xpos(r->d, r->d->runs[i].t1);
			fprintf(f,
				"<rect x=\"%.3f\" y=\"%d\" width=\"%.3f\" height=\"%d\" "
				"fill=\"%s\" data-phase=\"%s\"><title>%s: %llu commands</title>"
				"</rect>\n",
				x0, Y_PH + 2, x1 - x0 > 0.12 ? x1 - x0 : 0.12, LANE_H - 4,
				org_color[r->d->runs[i].org], report_origin_name(r->d->runs[i].org),
				report_origin_name(r->d->runs[i].org),
				(unsigned long long)r->d->runs[i].n);
		}
	fputs("</g>\n<g id=\"events\">\n", f);
	int h = Y_FAM + TPM_FAM__COUNT * LANE_H;
	for (unsigned i = 0; i < r->d->n_evk; i++) {
		const struct rd_event *e = &r->d->ev[i];
		double x = report_xpos(r->d, e->t);
		const char *col = ev_class(e->kind ? e->kind : "");
		fprintf(f, "<g class=\"ev\" data-kind=\"");
		html(f, e->kind);
		fprintf(f,
			"\"><line x1=\"%.3f\" x2=\"%.3f\" y1=\"0\" y2=\"%d\" stroke=\"%s\" "
			"stroke-opacity=\"0.35\" vector-effect=\"non-scaling-stroke\"/>"
			"<rect x=\"%.3f\" y=\"2\" width=\"0.6\" height=\"%d\" fill=\"%s\"/>"
			"<title>#%lld ",
			x, x, h, col, x - 0.3, LANE_H - 4, col, (long long)e->seq);
		html(f, e->kind);
		if (e->detail && *e->detail) {
			fputs(": ", f);
			html(f, e->detail);
		}
		fputs("</title></g>\n", f);
	}
	fputs("</g>\n</svg>\n<div class=\"ticks\">", f);
	double span = r->d->t1 > r->d->t0 ? (double)(r->d->t1 - r->d->t0) : 0;
	if (span > 0) {
		double step = nice_step(span, 10);
		for (double t = 0; t < span * 0.96; t += step)
			fprintf(f, "<span style=\"left:%.3f%%\">%s</span>", 100 * t / span,
				axis_label(r->d, t, b1, sizeof b1));
	}
	fputs("</div></div></div></div>\n", f);
	fputs("<div class=\"legend\"><span><i style=\"background:#d62728\"></i>power, "
	      "init, shutdown</span><span><i style=\"background:#1f77b4\"></i>locality"
	      "</span><span><i style=\"background:#ff7f0e\"></i>backend lost, errors, gaps"
	      "</span><span><i style=\"background:#6b7280\"></i>recording start/stop, other"
	      "</span>",
	      f);
	if (r->d->any_known_org)
		for (int o = 1; o < 4; o++)
			fprintf(f, "<span><i style=\"background:%s\"></i>phase: %s</span>",
				org_color[o], report_origin_name(o));
	fputs("</div>\n", f);
	if (r->d->n_ev > RD_MAX_EV)
		fprintf(f, "<p class=\"note\">Only the first %d events are drawn.</p>\n",
			RD_MAX_EV);
	if (r->d->runs_cut)
		fprintf(f, "<p class=\"note\">Only the first %d phase changes are drawn.</p>\n",
			RD_MAX_RUNS);
	/* Tables: per family, and the events. */
	fputs("<details><summary>Table: commands per family</summary><table id=\"family-table\">"
	      "<tr><th class=\"l\">family</th><th>commands</th><th>TPM time</th></tr>\n",
	      f);
	for (int i = 0; i < TPM_FAM__COUNT; i++)
		if (r->d->fam_n[i])
			fprintf(
			    f, "<tr><td class=\"l\">%s</td><td>%llu</td><td>%s</td></tr>\n",
			    fam_name[i], (unsigned long long)r->d->fam_n[i],
			    report_html_dur(r->d->timed ? r->d->fam_ns[i] : NAN, b1, sizeof b1));
	fputs("</table></details>\n", f);
	if (r->d->n_evk) {
		fputs("<details><summary>Table: events</summary><table id=\"event-table\">"
		      "<tr><th>seq</th><th>time</th><th class=\"l\">kind</th><th class=\"l\">"
		      "detail</th></tr>\n",
		      f);
		for (unsigned i = 0; i < r->d->n_evk; i++) {
			const struct rd_event *e = &r->d->ev[i];
			fprintf(f, "<tr><td>%lld</td><td>%s</td><td class=\"l\">",
				(long long)e->seq,
				report_html_dur(!r->d->timed	  ? NAN
						: e->t > r->d->t0 ? (double)(e->t - r->d->t0)
								  : 0,
						b1, sizeof b1));
			html(f, e->kind);
			fputs("</td><td class=\"l\">", f);
			html(f, e->detail);
			fputs("</td></tr>\n", f);
		}
		fputs("</table></details>\n", f);
	}
	fputs("</section>\n", f);
}

static void latency_section(struct rep *r)
{
	FILE *f = r->f;
	char b[8][32], nb[16];
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t rows = 0;

	for (size_t i = 0; i < r->d->n_ccs; i++) {
		struct rd_cc *c = &r->d->ccs[i];
		if (!c->n)
			continue;
		if (c->v[0] < lo)
			lo = c->v[0];
		if (c->v[c->n - 1] > hi)
			hi = c->v[c->n - 1];
		rows++;
	}
	fprintf(f, "<section id=\"latency-section\"><h2>Latency per command code</h2>\n");
	if (!rows) {
		fputs("<p class=\"note\" id=\"no-latency\">This trace has no recorded latencies "
		      "(an imported log without timing, or no responses).</p></section>\n",
		      f);
		return;
	}
	if (rows > LAT_ROWS)
		rows = LAT_ROWS;
	if (lo < 1)
		lo = 1;
	double d0 = floor(log10((double)lo)), d1 = ceil(log10((double)hi));
	if (d1 <= d0)
		d1 = d0 + 1;
	const double X0 = 200, X1 = 950, RH = 22;
	int h = (int)(rows * RH + 30);
#define LX(v) (X0 + (X1 - X0) * (log10((double)((v) < 1 ? 1 : (v))) - d0) / (d1 - d0))
	fprintf(f,
		"<p class=\"note\">One row per command code, the costliest (total time) first; "
		"log scale. The box spans p25 to p75, the thick line is the median, the whisker "
		"min to max; the dots are up to 120 commands taken at even ranks. Codes are "
		"numbered as in the command_stats view (nearest-rank percentiles).%s</p>\n",
		r->d->n_ccs > LAT_ROWS
		    ? " Only the 40 costliest codes are drawn; the table has all."
		    : "");
	fprintf(f,
		"<svg id=\"latency\" viewBox=\"0 0 1000 %d\" width=\"1000\" height=\"%d\" "
		"data-rows=\"%zu\" role=\"img\" aria-label=\"latency distribution\">\n",
		h, h, rows);
	for (double d = d0; d <= d1 + 1e-9; d++) {
		double x = X0 + (X1 - X0) * (d - d0) / (d1 - d0);
		fprintf(f,
			"<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%.0f\"/>"
			"<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
			x, x, rows * RH, x, rows * RH + 16,
			fmt_axis(pow(10, d), b[0], sizeof b[0]));
		for (int m = 2; m < 10 && d < d1; m++) {
			double xm = X0 + (X1 - X0) * (d + log10(m) - d0) / (d1 - d0);
			fprintf(f,
				"<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%.0f\" "
				"stroke-opacity=\"0.4\"/>\n",
				xm, xm, rows * RH);
		}
	}
	size_t row = 0;
	for (size_t i = 0; i < r->d->n_ccs && row < rows; i++) {
		const struct rd_cc *c = &r->d->ccs[i];
		if (!c->n)
			continue;
		enum tpm_family fam = tpm_cc_family(c->cc);
		double y = row * RH + RH / 2;
		fprintf(f, "<g class=\"lat-row\" data-cc=\"%u\" data-count=\"%zu\">", c->cc, c->n);
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s (%zu)</text>",
			X0 - 8, y + 4, tpm_cc_label(c->cc, nb, sizeof nb), c->n);
		fprintf(f,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>",
			LX(c->v[0]), LX(c->v[c->n - 1]), y, y);
		double q1 = LX(report_pctl(c, 25)), q3 = LX(report_pctl(c, 75)),
		       md = LX(report_pctl(c, 50));
		fprintf(f,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
			"fill-opacity=\"0.25\" stroke=\"%s\"/>",
			q1, y - 7, q3 - q1 > 1 ? q3 - q1 : 1, 14.0, fam_color[fam], fam_color[fam]);
		size_t ns = c->n < 120 ? c->n : 120;
		for (size_t k = 0; k < ns; k++) {
			size_t idx = ns > 1 ? k * (c->n - 1) / (ns - 1) : 0;
			double jit = (double)((idx * 2654435761u) % 13) - 6;
			fprintf(f,
				"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"1.8\" fill=\"%s\" "
				"fill-opacity=\"0.55\"/>",
				LX(c->v[idx]), y + jit, fam_color[fam]);
		}
		fprintf(f,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#111\" "
			"stroke-width=\"2.5\"/><title>%s: %zu commands, median %s, p95 %s, max "
			"%s</title></g>\n",
			md, md, y - 8, y + 8, tpm_cc_label(c->cc, nb, sizeof nb), c->n,
			report_html_dur((double)report_pctl(c, 50), b[0], sizeof b[0]),
			report_html_dur((double)report_pctl(c, 95), b[1], sizeof b[1]),
			report_html_dur((double)c->v[c->n - 1], b[2], sizeof b[2]));
		row++;
	}
#undef LX
	fputs("</svg>\n", f);
	fputs("<details><summary>Table: latency per command code</summary>"
	      "<table id=\"latency-table\"><tr><th class=\"l\">command</th><th>cc</th>"
	      "<th>count</th><th>total</th><th>min</th><th>p25</th><th>p50</th><th>p75</th>"
	      "<th>p95</th><th>p99</th><th>max</th></tr>\n",
	      f);
	for (size_t i = 0; i < r->d->n_ccs; i++) {
		const struct rd_cc *c = &r->d->ccs[i];
		if (!c->n)
			continue;
		fprintf(f,
			"<tr data-cc=\"%u\"><td class=\"l\">%s</td><td>0x%X</td><td>%zu</td>"
			"<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
			"<td>%s</td><td>%s</td></tr>\n",
			c->cc, tpm_cc_label(c->cc, nb, sizeof nb), c->cc, c->n,
			report_html_dur(c->total, b[0], 32),
			report_html_dur((double)c->v[0], b[1], 32),
			report_html_dur((double)report_pctl(c, 25), b[2], 32),
			report_html_dur((double)report_pctl(c, 50), b[3], 32),
			report_html_dur((double)report_pctl(c, 75), b[4], 32),
			report_html_dur((double)report_pctl(c, 95), b[5], 32),
			report_html_dur((double)report_pctl(c, 99), b[6], 32),
			report_html_dur((double)c->v[c->n - 1], b[7], 32));
	}
	fputs("</table></details></section>\n", f);
}

static void top_section(struct rep *r)
{
	FILE *f = r->f;
	char b1[32], b2[32], nb[16];
	double span = r->d->t1 > r->d->t0 ? (double)(r->d->t1 - r->d->t0) : 0;
	fprintf(f, "<section id=\"top-section\"><h2>The %d slowest commands</h2>\n", RD_TOP_N);
	if (!r->d->n_top) {
		fputs("<p class=\"note\">No recorded latencies.</p></section>\n", f);
		return;
	}
	fputs("<p class=\"note\">Position: where in the trace the command was sent (time from "
	      "the first record, and the bar below).</p>\n"
	      "<table id=\"top-table\"><tr><th>#</th><th>seq</th><th class=\"l\">command</th>"
	      "<th>latency</th><th>at</th><th class=\"l\">position</th><th>rc</th>"
	      "<th>client</th></tr>\n",
	      f);
	for (unsigned i = 0; i < r->d->n_top; i++) {
		const struct rd_top *t = &r->d->top[i];
		double at = t->t > r->d->t0 ? (double)(t->t - r->d->t0) : 0;
		double pos = span > 0 ? 160 * at / span : 0;
		fprintf(f,
			"<tr class=\"top\" data-seq=\"%llu\" data-latency-ns=\"%llu\"><td>%u</td>"
			"<td>%llu</td><td class=\"l\">%s</td><td>%s</td><td>%s</td>"
			"<td class=\"l\"><svg width=\"164\" height=\"10\"><rect x=\"0\" y=\"3\" "
			"width=\"164\" height=\"4\" fill=\"#e5e7eb\"/><rect x=\"%.1f\" y=\"0\" "
			"width=\"4\" height=\"10\" class=\"f%d\"/></svg></td>",
			(unsigned long long)t->seq, (unsigned long long)t->lat, i + 1,
			(unsigned long long)t->seq, tpm_cc_label(t->cc, nb, sizeof nb),
			report_html_dur((double)t->lat, b1, sizeof b1),
			report_html_dur(at, b2, sizeof b2), pos, tpm_cc_family(t->cc));
		if (t->has_rc)
			fprintf(f, "<td>0x%X</td>", t->rc);
		else
			fputs("<td>-</td>", f);
		fprintf(f, "<td>%lld</td></tr>\n", (long long)t->client);
	}
	fputs("</table></section>\n", f);
}

/* Bar labels longer than this are shortened in the chart (whole in the
 * table and the bar's data-label). */
#define LABEL_MAX 36

/* s, HTML-escaped, cut to max bytes with "..." (never inside a UTF-8
 * sequence; escaped after the cut). */
static void label(FILE *f, const char *s, size_t max)
{
	char b[LABEL_MAX * 2 + 4];
	if (strlen(s) <= max || max + 4 > sizeof b) {
		html(f, s);
		return;
	}
	size_t k = max - 3;
	while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
		k--;
	snprintf(b, sizeof b, "%.*s...", (int)k, s);
	html(f, b);
}

/* measure: what the bars measure, the axis title ("TPM time", "total time"). */
static void bars_chart(FILE *f, const char *id, const struct report_bar *bars, unsigned n, int base,
		       const char *const *seg_names, const char *const *seg_colors, int nseg,
		       const char *measure, const char *unit_note)
{
	char b1[32];
	double max = 0;
	const double RH = 30, CW = 6.6; /* px per character of the 11 px font, at most */
	/* The bar area leaves room for the longest label on either side, so
	 * that no label is cut by the 1000 px box (a label longer than
	 * LABEL_MAX characters is shortened; its title has it whole). */
	size_t left = 0, right = 0;
	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(bars[i].label),
		       r = strlen(measure) + 1 +
			   strlen(report_html_dur(bars[i].total, b1, sizeof b1));
		if (base >= 0)
			r += 14 + strlen(bars[base].label);
		left = l > left ? l : left;
		right = r > right ? r : right;
	}
	left = left > LABEL_MAX ? LABEL_MAX : left;
	right = right > 2 * LABEL_MAX ? 2 * LABEL_MAX : right;
	const double X0 = left * CW + 16 > 260 ? left * CW + 16 : 260;
	const double X1 = 1000 - 8 - right * CW < 840 ? 1000 - 8 - right * CW : 840;
	for (unsigned i = 0; i < n; i++)
		if (bars[i].total > max)
			max = bars[i].total;
	if (max <= 0)
		max = 1;
	double step = nice_step(max, 5), top = ceil(max / step) * step;
	int yb = (int)(n * RH + 6), h = yb + 40;
	fprintf(f,
		"<svg id=\"%s\" class=\"policy-chart\" viewBox=\"0 0 1000 %d\" width=\"1000\" "
		"height=\"%d\" data-bars=\"%u\" role=\"img\" aria-label=\"policy comparison\">\n",
		id, h, h, n);
	/* The value axis: ticks with units, and what is measured. */
	fprintf(f, "<g class=\"value-axis\" data-measure=\"%s\">", measure);
	for (double v = 0; v <= top * 1.0001; v += step) {
		double x = X0 + (X1 - X0) * v / top;
		fprintf(f,
			"<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"2\" y2=\"%d\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
			x, x, yb, x, yb + 14, fmt_axis(v, b1, sizeof b1));
	}
	fprintf(f,
		"<text class=\"axis-title\" x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">%s</text>"
		"</g>\n",
		(X0 + X1) / 2, yb + 32, measure);
	for (unsigned i = 0; i < n; i++) {
		const struct report_bar *b = &bars[i];
		double y = i * RH + 6, x = X0;
		double factor = base >= 0 && bars[base].total > 0 ? b->total / bars[base].total : 0;
		fprintf(f,
			"<g class=\"bar\" data-kind=\"%s\" data-total-ns=\"%.0f\" "
			"data-factor=\"%.4f\" data-label=\"",
			b->kind, b->total, factor);
		html(f, b->label);
		fprintf(f, "\"><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", X0 - 8, y + 15);
		label(f, b->label, LABEL_MAX);
		fputs("</text>", f);
		for (int k = 0; k < nseg; k++) {
			if (b->seg[k] <= 0)
				continue;
			double w = (X1 - X0) * b->seg[k] / top;
			fprintf(f,
				"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"20\" "
				"fill=\"%s\"><title>%s: %s</title></rect>",
				x, y, w, seg_colors[k], seg_names[k],
				report_html_dur(b->seg[k], b1, sizeof b1));
			x += w;
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s %s", x + 6, y + 15, measure,
			report_html_dur(b->total, b1, sizeof b1));
		if (base >= 0) {
			fprintf(f,
				" &#183; <tspan class=\"factor\" font-weight=\"bold\">%.2f&times;"
				"</tspan> vs ",
				factor);
			label(f, bars[base].label, LABEL_MAX);
		}
		fputs("</text></g>\n", f);
	}
	fputs("</svg>\n<div class=\"legend\">", f);
	for (int k = 0; k < nseg; k++) {
		int used = 0;
		for (unsigned i = 0; i < n; i++)
			used |= bars[i].seg[k] > 0;
		if (used)
			fprintf(f, "<span><i style=\"background:%s\"></i>%s</span>", seg_colors[k],
				seg_names[k]);
	}
	fprintf(f, "</div><p class=\"note\">%s</p>\n", unit_note);
}

/* untimed: the bars of a trace without timing: its non-TPM time (the
 * predicted table's third segment) and its totals are "no timing". */
static void bars_table(FILE *f, const char *id, const struct report_bar *bars, unsigned n, int base,
		       const char *const *seg_names, int nseg, int untimed)
{
	char b1[32];
	fprintf(f,
		"<details><summary>Table</summary><div class=\"wide\"><table id=\"%s\"><tr>"
		"<th class=\"l\">bar</th>"
		"<th class=\"l\">kind</th><th>runs</th><th>TPM time sd</th><th>commands</th>",
		id);
	for (int s = 0; s < nseg; s++)
		fprintf(f, "<th>%s</th>", seg_names[s]);
	fputs("<th>total</th><th>factor</th></tr>\n", f);
	for (unsigned i = 0; i < n; i++) {
		const struct report_bar *b = &bars[i];
		fputs("<tr><td class=\"l\">", f);
		html(f, b->label);
		fprintf(f, "</td><td class=\"l\">%s</td><td>%u</td><td>", b->kind, b->runs);
		report_html_spread(f, &b->tpm);
		fprintf(f, "</td><td>%llu</td>", (unsigned long long)b->commands);
		for (int s = 0; s < nseg; s++)
			fprintf(
			    f, "<td>%s</td>",
			    report_html_dur(untimed && s == 2 ? NAN : b->seg[s], b1, sizeof b1));
		fprintf(f, "<td>%s</td><td>%.3f</td></tr>\n",
			report_html_dur(untimed ? NAN : b->total, b1, sizeof b1),
			base >= 0 && bars[base].total > 0 ? b->total / bars[base].total : 0);
	}
	fputs("</table></div></details>\n", f);
}

static void predicted_section(struct rep *r, const struct report_prediction *p)
{
	static const char *const seg_names[] = {"TPM time (profile)", "host crypto",
						"non-TPM time (gaps)"};
	static const char *const seg_colors[] = {"#1f77b4", "#ff7f0e", "#c7c7c7"};
	FILE *f = r->f;
	fputs("<h3>Predicted on ", f);
	html(f, p->profile);
	if (*p->chip) {
		fputs(" (", f);
		html(f, p->chip);
		fputs(")", f);
	}
	fputs("</h3>\n", f);
	bars_chart(f, "policy-predicted", p->bars, p->n, p->base, seg_names, seg_colors, 3,
		   "total time",
		   "The trace expanded under each policy by the replayer's own expansion code and "
		   "priced from the latency profile (as 'tpmtrace predict' does); host crypto "
		   "as measured on the host that made this report with tpmtrace's own session "
		   "code (a constant estimate where it could not be measured). Bars are the "
		   "total time (TPM + host crypto + non-TPM time); the headline table above "
		   "gives the TPM time and its factor beside it.");
	bars_table(f, "policy-predicted-table", p->bars, p->n, p->base, seg_names, 3, !r->d->timed);
}

static void policy_section(struct rep *r, const struct report_answer *a)
{
	FILE *f = r->f;
	fputs("<section id=\"policy-section\"><h2>Cost per session policy</h2>\n", f);
	if (a->nbars > 1) {
		fputs("<h3>Measured: this trace, its replays and the traces compared</h3>\n", f);
		bars_chart(f, "policy-measured", a->bars, a->nbars, a->base, fam_name, fam_color,
			   TPM_FAM__COUNT, "TPM time",
			   "Sum of command latencies (TPM time) per trace, stacked by command "
			   "family; replays of the same policy are averaged. The headline table "
			   "above gives the total (TPM time + the recording's non-TPM time) "
			   "beside it.");
		bars_table(f, "policy-measured-table", a->bars, a->nbars, a->base, fam_name,
			   TPM_FAM__COUNT, 0);
	} else if (a->nebars) {
		fprintf(f,
			"<p class=\"note\" id=\"no-replays\">No replays of trace %lld on a real "
			"target in this file (the emulated ones are below).</p>\n",
			(long long)r->d->id);
	} else {
		fprintf(
		    f,
		    "<p class=\"note\" id=\"no-replays\">No replays of trace %lld in this file. "
		    "Run <code>tpmtrace replay DB --trace %lld --policy linux-6.10</code> (and "
		    "password, linux-6.12, ...) to measure, or pass <code>--profile NAME</code> "
		    "to predict.</p>\n",
		    (long long)r->d->id, (long long)r->d->id);
	}
	if (a->nebars) {
		fputs("<h3 id=\"emulated-heading\">Emulated: replays on a target that gave each "
		      "response the latency of a profile</h3>\n",
		      f);
		bars_chart(f, "policy-emulated", a->ebars, a->nebars, a->ebase, fam_name, fam_color,
			   TPM_FAM__COUNT, "TPM time",
			   "Sum of command latencies per replay, stacked by command family; the "
			   "latencies are the emulated profile's (replay --emulate, advise "
			   "--prove), not measured: they check that a change runs and what the "
			   "profile makes of it. Replays of the same policy and profile are "
			   "averaged.");
		bars_table(f, "policy-emulated-table", a->ebars, a->nebars, a->ebase, fam_name,
			   TPM_FAM__COUNT, 0);
	}
	for (unsigned i = 0; i < a->npred; i++)
		predicted_section(r, &a->pred[i]);
	fputs("</section>\n", f);
}

/* ---- the page ---- */

static void page_head(struct rep *r, const struct report_html_opts *o)
{
	FILE *f = r->f;
	const struct report_data *d = r->d;
	const char *title = o->title ? o->title : d->name ? d->name : "tpmtrace report";
	char b1[32], b2[32];
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		   "<meta name=\"viewport\" content=\"width=device-width\">"
		   "<meta name=\"generator\" content=\"tpmtrace " TPMTRACE_VERSION "\"><title>");
	html(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n", css);
	fam_classes(f);
	fprintf(f,
		"</head>\n<body data-trace-id=\"%lld\" data-commands=\"%llu\" "
		"data-events=\"%llu\" data-aggregated=\"%d\">\n<header><h1>",
		(long long)d->id, (unsigned long long)d->n_cmd, (unsigned long long)d->n_ev,
		d->aggregate);
	html(f, title);
	fprintf(f, "</h1><div class=\"sub\">trace %lld (", (long long)d->id);
	html(f, d->kind ? d->kind : "");
	fputs(", ", f);
	html(f, d->status ? d->status : "");
	fputs(")", f);
	if (d->source) {
		fputs(" &#183; source ", f);
		html(f, d->source);
	}
	if (d->started) {
		fputs(" &#183; started ", f);
		html(f, d->started);
	}
	if (d->host) {
		fputs(" &#183; host ", f);
		html(f, d->host);
	}
	fputs(" &#183; file ", f);
	html(f, o->dbpath);
	fputs("</div></header>\n<main>\n<div class=\"cards\">", f);
	fprintf(f,
		"<div class=\"card\"><b id=\"n-commands\">%llu</b><span>commands</span></div>"
		"<div class=\"card\"><b id=\"n-events\">%llu</b><span>events</span></div>"
		"<div class=\"card\"><b>%s</b><span>TPM time (sum of latencies)</span></div>"
		"<div class=\"card\"><b>%s</b><span>%s</span></div>",
		(unsigned long long)d->n_cmd, (unsigned long long)d->n_ev,
		d->timed ? report_html_dur(d->tpm_ns, b1, sizeof b1) : "none recorded",
		d->timed ? report_html_dur(d->fig_span_ns, b2, sizeof b2) : "order only",
		d->timed ? "span (first command to last response)" : "no timing: axis by seq");
	if (d->fig_own)
		fprintf(f,
			"<div class=\"card\" id=\"tpmtrace-own\"><b>%lld</b><span>sent by tpmtrace "
			"itself, left out; TPM time incl. them %s</span></div>",
			(long long)d->fig_own, report_html_dur(d->fig_tpm_ns_all, b1, sizeof b1));
	if (d->dropped)
		fprintf(f, "<div class=\"card\"><b>%lld</b><span>dropped</span></div>",
			(long long)d->dropped);
	fputs("</div>\n", f);
}

static void page_foot(struct rep *r)
{
	FILE *f = r->f;
	fprintf(f,
		"</main>\n<footer>Written by tpmtrace " TPMTRACE_VERSION
		" report from %s, trace %lld; %llu timeline marks%s. Self-contained: no "
		"network access.</footer>\n",
		"the database", (long long)r->d->id, (unsigned long long)r->marks,
		r->d->aggregate ? " (aggregated)" : "");
	/* The only script: zoom buttons; it marks the page when it ran (the browser
	 * test checks that marker). */
	fputs("<script>\n(function(){\n"
	      "var inner=document.getElementById('tl-inner');\n"
	      "document.querySelectorAll('.zoom button').forEach(function(b){\n"
	      " b.addEventListener('click',function(){inner.style.width=(100*b.dataset.z)+'%';});\n"
	      "});\n"
	      "document.body.setAttribute('data-script-ok','1');\n"
	      "})();\n</script>\n</body></html>\n",
	      f);
}

int report_html_write(FILE *f, struct report_data *d, const struct report_html_opts *o,
		      struct report_answer *a, char *err, size_t errlen)
{
	char *body = NULL;
	size_t blen = 0;
	int rc;
	FILE *mf = open_memstream(&body, &blen);
	struct rep r = {mf, d, 0};
	if (!mf) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < TPM_FAM__COUNT; i++)
		fam_name[i] = tpm_family_name((enum tpm_family)i);
	/* The sections that stream the trace are written aside: the answer,
	 * which needs the whole trace, comes first on the page. */
	timeline_open(&r);
	rc = report_data_stream(d, mark_write, &r, err, errlen);
	if (!rc) {
		timeline_close(&r);
		latency_section(&r);
		top_section(&r);
	}
	if (fclose(mf) && !rc) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	if (!rc)
		rc = report_answer_compute(a, d, o->cmp, o->ncmp, o->profiles, o->nprofiles,
					   o->host, err, errlen);
	if (!rc) {
		r.f = f;
		page_head(&r, o);
		report_html_headline(f, a);
		if (o->advise)
			report_advise_html(f, o->advise);
		fwrite(body, 1, blen, f);
		policy_section(&r, a);
		if (o->population)
			report_population_html(f, o->population);
		page_foot(&r);
	}
	free(body);
	return rc;
}
