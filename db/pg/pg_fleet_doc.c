/* One self-contained HTML page of the fleet stats: per TPM model x firmware
 * x kernel x policy, boot TPM time p50/p95/max as bars, the commands that
 * dominate and the slowest hosts. The report's stylesheet (report_html.c). */
#include "db/pg/pg_fleet_doc.h"

#include <errno.h>
#include <math.h>

#include "db/json.h"
#include "db/text.h"
#include "model/report_html.h"

static void esc(FILE *f, const char *s)
{
	report_html_text(f, s);
}

static void group_label(FILE *f, const struct pg_fleet_group *g)
{
	esc(f, g->model);
	fputs(" &#183; ", f);
	esc(f, g->firmware);
	fputs(" &#183; ", f);
	esc(f, g->kernel);
	fputs(" &#183; ", f);
	esc(f, g->policy);
}

/* Bars of p50 and p95 with a tick at the max, one row per group. */
static void chart(FILE *f, const struct pg_fleet *fl)
{
	const double X0 = 420, X1 = 900, RH = 30;
	double top = 1;
	for (size_t i = 0; i < fl->n; i++)
		top = fmax(top, fl->g[i].max_ns);
	int h = (int)(fl->n * RH + 30);
	fprintf(f,
		"<svg id=\"fleet-chart\" viewBox=\"0 0 1000 %d\" width=\"1000\" height=\"%d\" "
		"role=\"img\" aria-label=\"boot TPM time per group\">\n",
		h, h);
	for (size_t i = 0; i < fl->n; i++) {
		const struct pg_fleet_group *g = &fl->g[i];
		double y = (double)i * RH + 6;
		double w50 = (X1 - X0) * g->p50_ns / top, w95 = (X1 - X0) * g->p95_ns / top;
		double xm = X0 + (X1 - X0) * g->max_ns / top;
		fputs("<g class=\"bar\" data-model=\"", f);
		esc(f, g->model);
		fprintf(f, "\"><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", X0 - 8, y + 15);
		group_label(f, g);
		fprintf(f,
			"</text><rect x=\"%.0f\" y=\"%.1f\" width=\"%.2f\" height=\"20\" "
			"fill=\"#93c5fd\"><title>p95 %.3f ms</title></rect>"
			"<rect x=\"%.0f\" y=\"%.1f\" width=\"%.2f\" height=\"20\" fill=\"#1f77b4\">"
			"<title>p50 %.3f ms</title></rect>"
			"<line x1=\"%.2f\" x2=\"%.2f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" "
			"stroke-width=\"2\"><title>max %.3f ms</title></line>"
			"<text x=\"%.1f\" y=\"%.1f\">p50 %.1f ms</text></g>\n",
			X0, y, w95, g->p95_ns / 1e6, X0, y, w50, g->p50_ns / 1e6, xm, xm, y, y + 20,
			g->max_ns / 1e6, fmin(xm, X0 + w95) + 6, y + 15, g->p50_ns / 1e6);
	}
	fputs("</svg>\n<div class=\"legend\"><span><i style=\"background:#1f77b4\"></i>p50"
	      "</span><span><i style=\"background:#93c5fd\"></i>p95</span><span><i "
	      "style=\"background:#d62728\"></i>max</span></div>\n",
	      f);
}

static void table(FILE *f, const struct pg_fleet *fl)
{
	fputs("<table id=\"fleet-groups\"><tr><th class=\"l\">TPM model</th><th class=\"l\">"
	      "firmware</th><th class=\"l\">kernel</th><th class=\"l\">policy</th><th>hosts</th>"
	      "<th>boots</th><th>p50 ms</th><th>p95 ms</th><th>max ms</th><th class=\"l\">"
	      "dominant commands</th><th class=\"l\">slowest hosts</th></tr>\n",
	      f);
	for (size_t i = 0; i < fl->n; i++) {
		const struct pg_fleet_group *g = &fl->g[i];
		fputs("<tr class=\"group\" data-model=\"", f);
		esc(f, g->model);
		fputs("\"><td class=\"l model\">", f);
		esc(f, g->model);
		fputs("</td><td class=\"l\">", f);
		esc(f, g->firmware);
		fputs("</td><td class=\"l\">", f);
		esc(f, g->kernel);
		fputs("</td><td class=\"l\">", f);
		esc(f, g->policy);
		fprintf(f, "</td><td>%lld</td><td>%lld</td><td>%.3f</td><td>%.3f</td><td>%.3f</td>",
			g->hosts, g->boots, g->p50_ns / 1e6, g->p95_ns / 1e6, g->max_ns / 1e6);
		fputs("<td class=\"l\">", f);
		for (int k = 0; k < PG_FLEET_TOP && g->top[k].name; k++) {
			fputs(k ? ", " : "", f);
			esc(f, g->top[k].name);
			fprintf(f, " %.0f%%", 100 * g->top[k].share);
		}
		fputs("</td><td class=\"l\">", f);
		for (int k = 0; k < PG_FLEET_TOP && g->slow[k].host; k++) {
			fputs(k ? ", " : "", f);
			esc(f, g->slow[k].host);
			fprintf(f, " (%.1f ms)", g->slow[k].tpm_ns / 1e6);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

int pg_fleet_html_write(FILE *f, const struct pg_fleet *fl, const char *server)
{
	fprintf(f,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"generator\" content=\"tpmtrace " TPMTRACE_VERSION "\">"
		"<title>tpmtrace fleet</title>\n<style>\n%s</style>\n</head>\n"
		"<body data-groups=\"%zu\" data-hosts=\"%lld\" data-traces=\"%lld\">\n"
		"<header><h1>tpmtrace fleet</h1><div class=\"sub\">server ",
		report_html_css, fl->n, fl->hosts, fl->traces);
	esc(f, server);
	fprintf(f,
		"</div></header>\n<main>\n<div class=\"cards\"><div class=\"card\"><b>%lld</b>"
		"<span>hosts</span></div><div class=\"card\"><b>%lld</b><span>traces</span></div>"
		"<div class=\"card\"><b>%zu</b><span>model &#215; firmware &#215; kernel &#215; "
		"policy</span></div></div>\n<section><h2>Boot TPM time per group</h2>"
		"<p class=\"note\">TPM time of a trace: the sum of the latencies of its clients' "
		"commands (as tpmtrace stats); p50 and p95 are nearest-rank percentiles over the "
		"group's traces.</p>\n",
		fl->hosts, fl->traces, fl->n);
	chart(f, fl);
	fputs("</section>\n<section><h2>Groups</h2>\n", f);
	table(f, fl);
	fputs("</section>\n</main>\n<footer>Written by tpmtrace " TPMTRACE_VERSION
	      " fleet report. Self-contained: no network access.</footer>\n<script>\n"
	      "document.body.setAttribute('data-script-ok','1');\n</script>\n</body></html>\n",
	      f);
	return ferror(f) ? -EIO : 0;
}

int pg_fleet_json(FILE *f, const struct pg_fleet *fl)
{
	struct json_w w;
	json_init_file(&w, f, JSON_COMPACT);
	json_begin_object(&w);
	json_kint(&w, "version", 1);
	json_kint(&w, "hosts", fl->hosts);
	json_kint(&w, "traces", fl->traces);
	json_kstr(&w, "tpm_time", "sum of the latencies of a trace's client commands");
	json_key(&w, "groups");
	json_begin_array(&w);
	for (size_t i = 0; i < fl->n; i++) {
		const struct pg_fleet_group *g = &fl->g[i];
		json_begin_object(&w);
		json_kstr(&w, "model", g->model);
		json_kstr(&w, "firmware", g->firmware);
		json_kstr(&w, "kernel", g->kernel);
		json_kstr(&w, "policy", g->policy);
		if (g->profile[0])
			json_kstr(&w, "profile", g->profile);
		else
			json_knull(&w, "profile");
		json_kint(&w, "hosts", g->hosts);
		json_kint(&w, "boots", g->boots);
		json_kint(&w, "traces", g->traces);
		json_kdouble(&w, "p50_ns", g->p50_ns, 0);
		json_kdouble(&w, "p95_ns", g->p95_ns, 0);
		json_kdouble(&w, "max_ns", g->max_ns, 0);
		json_key(&w, "top");
		json_begin_array(&w);
		for (int j = 0; j < PG_FLEET_TOP && g->top[j].name; j++) {
			json_begin_object(&w);
			json_kstr(&w, "name", g->top[j].name);
			json_kdouble(&w, "total_ns", g->top[j].total_ns, 0);
			json_kdouble(&w, "share", g->top[j].share, 4);
			json_end_object(&w);
		}
		json_end_array(&w);
		json_key(&w, "slowest");
		json_begin_array(&w);
		for (int j = 0; j < PG_FLEET_TOP && g->slow[j].host; j++) {
			json_begin_object(&w);
			json_kstr(&w, "host", g->slow[j].host);
			json_kdouble(&w, "tpm_ns", g->slow[j].tpm_ns, 0);
			json_end_object(&w);
		}
		json_end_array(&w);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
	json_newline(&w);
	return json_done(&w);
}

int pg_fleet_hosts_json(FILE *f, const struct pg_fleet_host *h, size_t n)
{
	struct json_w w;
	json_init_file(&w, f, JSON_COMPACT);
	json_begin_object(&w);
	json_kint(&w, "version", 1);
	json_key(&w, "hosts");
	json_begin_array(&w);
	for (size_t i = 0; i < n; i++) {
		json_begin_object(&w);
		json_kstr(&w, "hostname", h[i].hostname);
		json_kstr(&w, "host_key", h[i].host_key);
		json_kint(&w, "traces", h[i].traces);
		json_kint(&w, "boots", h[i].boots);
		json_kstr(&w, "models", h[i].models);
		json_kstr(&w, "kernels", h[i].kernels);
		json_kstr(&w, "last_push", h[i].last_pushed);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
	json_newline(&w);
	return json_done(&w);
}

int pg_push_json(FILE *f, const struct pg_push_result *r)
{
	struct json_w w;
	json_init_file(&w, f, JSON_COMPACT);
	json_begin_object(&w);
	json_kint(&w, "version", 1);
	json_kuint(&w, "pushed", r->pushed);
	json_kuint(&w, "present", r->present);
	json_kuint(&w, "recording", r->recording);
	json_kuint(&w, "not_pushed", r->skipped);
	json_kuint(&w, "failed", r->failed);
	json_kuint(&w, "commands", r->commands);
	json_kuint(&w, "events", r->events);
	json_kuint(&w, "clients", r->clients);
	json_end_object(&w);
	json_newline(&w);
	return json_done(&w);
}
