/* tpmtrace report: one self-contained HTML file (inline SVG and CSS, a small
 * inline script for zooming, nothing from the network) that shows a trace:
 * the timeline, the latency distribution per command code, the slowest
 * commands, and the cost per session policy (replays stored in the file and,
 * with --profile, the prediction of model/predict.h). Every chart has the
 * table behind it.
 *
 * The trace is streamed once from SQLite in seq order. Past --max-marks
 * commands the timeline draws one mark per (family, time bin) instead of one
 * per command, and the page says so; the file stays small for any trace. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"
#include "model/trace_stream.h"
#include "model/predict.h"
#include "replayer/hostcrypto.h"
#include "model/profile.h"
#include "model/tpm/tpm_cc.h"

enum { O_TRACE = 256, O_COMPARE, O_PROFILE, O_MAXMARKS, O_TITLE, O_OUTPUT = 'o' };
static const struct cli_opt opts[] = {
    {"output", O_OUTPUT, "FILE", CLI_REQ,
     "the HTML file to write (created 0600, replaced only\nwhen complete); '-' for stdout",
     "@file"},
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP},
    {"compare", O_COMPARE, "ID", CLI_MULTI,
     "another trace (another boot, another machine) to set\n"
     "beside it in the comparison chart and table; may be\n"
     "repeated or given as ID,ID,..."},
    {"profile", O_PROFILE, "P", 0,
     "also predict the cost per policy on the TPM this\n"
     "latency profile describes (a file, a profile stored\n"
     "in DB or a shipped one: 'tpmtrace profile list')",
     "@profile"},
    {"max-marks", O_MAXMARKS, "N", CLI_NUM,
     "draw one timeline mark per command up to N commands\n"
     "(default 20000); past that, one mark per family and\n"
     "time bin (the page says so)",
     NULL, 0, 10000000},
    {"title", O_TITLE, "TEXT", 0, "page title (default: the trace's name)"},
};
static const struct cli_form forms[] = {{0, "DB", NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_report = {
    "report",
    run,
    "write an HTML report with charts",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Writes one self-contained HTML file (inline SVG and CSS, a small inline script\n"
    "for zooming; nothing is loaded from the network, it opens from disk) with:\n"
    "  - the timeline: every command a mark on the time axis, one lane per command\n"
    "    family, control events (ctrl:INIT, platform:POWER_ON, SET_LOCALITY,\n"
    "    record-start/stop, backend-lost, ...) and phases (firmware, kernel,\n"
    "    userspace, from the clients, where known);\n"
    "  - the latency distribution per command code (box and strip plot, log scale);\n"
    "  - the 20 slowest commands with their position in the trace;\n"
    "  - the policy comparison: TPM time per session policy of the replays of this\n"
    "    trace stored in DB (kind 'replay', parent = the trace), stacked by command\n"
    "    family, and with --profile the prediction per policy ('tpmtrace predict'),\n"
    "    with the factor against the password baseline on each bar;\n"
    "  - the table behind each chart.\n"
    "The file is written beside FILE and renamed into place when complete: a failed\n"
    "report leaves an earlier one as it was; FILE may not be the database.\n",
    "Exit status: 0 written, 1 error (no such trace, unreadable DB, cannot write),\n"
    "2 usage error.\n",
    "tpmtrace report boot.db -o boot.html\n"
    "tpmtrace report boot.db --trace 1 --compare 4 --profile slb9670-linux-integrity "
    "-o boot.html\n",
};

/* ---- command families: the timeline's lanes and the bars' segments ---- */

enum family {
	FAM_LIFECYCLE,
	FAM_PCR,
	FAM_SESSION,
	FAM_OBJECT,
	FAM_CONTEXT,
	FAM_CRYPTO,
	FAM_NV,
	FAM_ATTEST,
	FAM_INFO,
	FAM_OTHER,
	FAM__COUNT
};

static const char *const fam_name[FAM__COUNT] = {
    "start-up & admin", "PCR", "sessions & policy", "keys & objects",	    "contexts & flush",
    "crypto & random",	"NV",  "attestation",	    "capabilities & clock", "other"};
static const char *const fam_color[FAM__COUNT] = {"#d62728", "#2ca02c", "#9467bd", "#1f77b4",
						  "#17becf", "#ff7f0e", "#8c564b", "#e377c2",
						  "#7f7f7f", "#bcbd22"};

static int has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* By the command's name (model/tpm/tpm_cc.def), grouped as Part 3 groups them. */
static enum family family_of(uint32_t cc)
{
	static const char *const lifecycle[] = {"Startup",
						"Shutdown",
						"SelfTest",
						"IncrementalSelfTest",
						"GetTestResult",
						"Clear",
						"ClearControl",
						"HierarchyControl",
						"HierarchyChangeAuth",
						"ChangeEPS",
						"ChangePPS",
						"SetPrimaryPolicy",
						"DictionaryAttack",
						"FieldUpgrade",
						"FirmwareRead",
						"PP_Commands",
						"SetAlgorithmSet",
						"SetCommandCodeAuditStatus"};
	static const char *const object[] = {
	    "CreatePrimary",	  "Create",    "Load",	 "ReadPublic", "ObjectChangeAuth",
	    "EvictControl",	  "Duplicate", "Rewrap", "Import",     "MakeCredential",
	    "ActivateCredential", "Unseal"};
	static const char *const context[] = {"ContextSave", "ContextLoad", "FlushContext"};
	static const char *const crypto[] = {"Sign",	       "VerifySignature",
					     "RSA_",	       "ECDH_",
					     "ECC_",	       "EC_Ephemeral",
					     "ZGen",	       "Commit",
					     "EncryptDecrypt", "Hash",
					     "HMAC",	       "MAC",
					     "Sequence",       "EventSequenceComplete",
					     "GetRandom",      "StirRandom"};
	static const char *const attest[] = {
	    "Quote",	 "Certify", "GetTime", "GetSessionAuditDigest", "GetCommandAuditDigest",
	    "NV_Certify"};
	static const char *const info[] = {"GetCapability", "TestParms", "ReadClock", "ClockSet",
					   "ClockRateAdjust"};
	const char *n = tpm_cc_name(cc);
	if (!n)
		return FAM_OTHER;
	for (size_t i = 0; i < sizeof attest / sizeof *attest; i++)
		if (has_prefix(n, attest[i]))
			return FAM_ATTEST;
	if (has_prefix(n, "PCR_"))
		return FAM_PCR;
	if (has_prefix(n, "NV_"))
		return FAM_NV;
	if (has_prefix(n, "Policy") || !strcmp(n, "StartAuthSession"))
		return FAM_SESSION;
	for (size_t i = 0; i < sizeof context / sizeof *context; i++)
		if (!strcmp(n, context[i]))
			return FAM_CONTEXT;
	for (size_t i = 0; i < sizeof lifecycle / sizeof *lifecycle; i++)
		if (has_prefix(n, lifecycle[i]))
			return FAM_LIFECYCLE;
	for (size_t i = 0; i < sizeof info / sizeof *info; i++)
		if (!strcmp(n, info[i]))
			return FAM_INFO;
	for (size_t i = 0; i < sizeof object / sizeof *object; i++)
		if (has_prefix(n, object[i]))
			return FAM_OBJECT;
	for (size_t i = 0; i < sizeof crypto / sizeof *crypto; i++)
		if (has_prefix(n, crypto[i]))
			return FAM_CRYPTO;
	return FAM_OTHER;
}

/* ---- the report's state ---- */

#define NBINS	  1200 /* time bins per lane when marks are aggregated */
#define TOP_N	  20
#define MAX_RUNS  400  /* phase runs drawn */
#define MAX_EVMK  2000 /* event marks drawn */
#define LAT_ROWS  40   /* command codes drawn in the latency chart */
#define MAX_CLNTS TRACE_MAX_CLIENTS

enum origin { ORG_UNKNOWN, ORG_FIRMWARE, ORG_KERNEL, ORG_USER };
static const char *const org_name[] = {"unknown", "firmware", "kernel", "userspace"};
static const char *const org_color[] = {"#dddddd", "#f4a261", "#8ab17d", "#5e9bd6"};

struct cc_lat {
	uint32_t cc;
	uint64_t *v;
	size_t n, cap;
	double total;
	uint64_t count; /* commands, with or without latency */
};

struct top {
	uint64_t seq, t, lat;
	uint32_t cc, rc;
	int has_rc;
	int64_t client;
};

struct run_ {
	uint64_t t0, t1;
	uint8_t org;
	uint64_t n;
};

struct rep {
	FILE *f;
	sqlite3 *db;
	int64_t id;
	const char *dbpath;
	uint64_t t0, t1; /* the time axis */
	uint64_t n_cmd, n_ev, n_lat;
	unsigned max_marks;
	int aggregate;
	struct cc_lat *ccs;
	size_t n_ccs, cap_ccs;
	struct top top[TOP_N];
	unsigned n_top;
	uint64_t fam_n[FAM__COUNT];
	double fam_ns[FAM__COUNT];
	uint32_t *bins;	     /* [FAM__COUNT][NBINS] counts */
	uint64_t *bin_max;   /* the slowest latency in the bin */
	uint8_t *client_org; /* by client id */
	struct run_ runs[MAX_RUNS];
	unsigned n_runs;
	int runs_cut, any_known_org;
	uint64_t marks;
	double tpm_ns;
};

static double xpos(const struct rep *r, uint64_t t)
{
	if (r->t1 <= r->t0)
		return 0;
	if (t < r->t0)
		t = r->t0;
	return 1000.0 * (double)(t - r->t0) / (double)(r->t1 - r->t0);
}

static void html(FILE *f, const char *s)
{
	char buf[8192];
	/* Control characters and the like shown as \xNN (common.c), then
	 * HTML's own. */
	s = s ? safe_text(s, buf, sizeof buf) : NULL;
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
		default:
			fputc(*s, f);
		}
	}
}

static const char *cc_label(uint32_t cc, char *buf, size_t len)
{
	const char *n = tpm_cc_name(cc);
	if (n)
		return n;
	snprintf(buf, len, "0x%08X", cc);
	return buf;
}

/* A duration for people: ns, us, ms or s with 3 significant-ish digits. */
static const char *fmt_dur(double ns, char *b, size_t l)
{
	if (ns < 1e3)
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

static struct cc_lat *cc_get(struct rep *r, uint32_t cc)
{
	static size_t last;
	if (last < r->n_ccs && r->ccs[last].cc == cc)
		return &r->ccs[last];
	for (size_t i = 0; i < r->n_ccs; i++)
		if (r->ccs[i].cc == cc) {
			last = i;
			return &r->ccs[i];
		}
	if (r->n_ccs == r->cap_ccs) {
		size_t nc = r->cap_ccs ? 2 * r->cap_ccs : 32;
		struct cc_lat *p = realloc(r->ccs, nc * sizeof *p);
		if (!p)
			return NULL;
		r->ccs = p;
		r->cap_ccs = nc;
	}
	memset(&r->ccs[r->n_ccs], 0, sizeof r->ccs[0]);
	r->ccs[r->n_ccs].cc = cc;
	last = r->n_ccs;
	return &r->ccs[r->n_ccs++];
}

static int lat_push(struct cc_lat *c, uint64_t v)
{
	if (c->n == c->cap) {
		size_t nc = c->cap ? 2 * c->cap : 64;
		uint64_t *p = realloc(c->v, nc * sizeof *p);
		if (!p)
			return -ENOMEM;
		c->v = p;
		c->cap = nc;
	}
	c->v[c->n++] = v;
	c->total += (double)v;
	return 0;
}

static void top_add(struct rep *r, const struct top *t)
{
	unsigned i;
	if (r->n_top == TOP_N && t->lat <= r->top[TOP_N - 1].lat)
		return;
	i = r->n_top < TOP_N ? r->n_top++ : TOP_N - 1;
	while (i > 0 && r->top[i - 1].lat < t->lat) {
		r->top[i] = r->top[i - 1];
		i--;
	}
	r->top[i] = *t;
}

static int load_clients(struct rep *r)
{
	/* The origin rule predict and replay use (trace_client_origin). */
	static const uint8_t org_of[POL_ORIGIN__COUNT] = {
	    [POL_ORIGIN_UNKNOWN] = ORG_UNKNOWN,
	    [POL_ORIGIN_KERNEL] = ORG_KERNEL,
	    [POL_ORIGIN_USER] = ORG_USER,
	    [POL_ORIGIN_FIRMWARE] = ORG_FIRMWARE,
	};
	int rc = trace_origins_load(r->db, r->id, &r->client_org);
	if (rc)
		return rc;
	for (size_t i = 0; i < MAX_CLNTS; i++)
		r->client_org[i] =
		    org_of[(r->client_org[i] & ~TRACE_ORIGIN_HWRNG) % POL_ORIGIN__COUNT];
	return 0;
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
    "footer{color:#777;font-size:12px;padding:0 28px 24px}\n";

static void fam_classes(FILE *f)
{
	fputs("<style>", f);
	for (int i = 0; i < FAM__COUNT; i++)
		fprintf(f, ".f%d{fill:%s}", i, fam_color[i]);
	fputs("</style>\n", f);
}

static void legend_fams(FILE *f, const struct rep *r)
{
	fputs("<div class=\"legend\">", f);
	for (int i = 0; i < FAM__COUNT; i++)
		if (!r || r->fam_n[i])
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

static void timeline_open(struct rep *r)
{
	FILE *f = r->f;
	char b1[32], b2[32];
	double span = r->t1 > r->t0 ? (double)(r->t1 - r->t0) : 0;
	int h = Y_FAM + FAM__COUNT * LANE_H;

	fprintf(f, "<section id=\"timeline-section\"><h2>Timeline</h2>\n");
	fprintf(f,
		"<p class=\"note\">Every command is a mark at the time it was sent, as wide as "
		"its latency (at least a hair), in the lane of its command family. Control "
		"events are the lines in the top lane; phases (firmware, kernel, userspace) "
		"come from the clients that sent the commands. Hover a mark for its details. "
		"Span %s, %llu commands, %llu events.</p>\n",
		fmt_dur(span, b1, sizeof b1), (unsigned long long)r->n_cmd,
		(unsigned long long)r->n_ev);
	if (r->aggregate)
		fprintf(f,
			"<p class=\"warn\" id=\"aggregated\">%llu commands is more than %u: the "
			"timeline shows one mark per command family and time bin (%d bins, "
			"each %s), shaded by how many commands it holds, instead of one mark "
			"per command. The other charts and tables use every command.</p>\n",
			(unsigned long long)r->n_cmd, r->max_marks, NBINS,
			fmt_dur(span / NBINS, b2, sizeof b2));
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
	for (int i = 0; i < FAM__COUNT; i++)
		fprintf(f, "<div style=\"color:%s\">%s</div>", fam_color[i], fam_name[i]);
	fputs("<div></div></div>\n<div class=\"scroll\"><div class=\"inner\" id=\"tl-inner\">\n",
	      f);
	fprintf(f,
		"<svg id=\"timeline\" viewBox=\"0 0 1000 %d\" height=\"%d\" "
		"preserveAspectRatio=\"none\" data-commands=\"%llu\" data-events=\"%llu\" "
		"data-aggregated=\"%d\" role=\"img\" aria-label=\"timeline\">\n",
		h, h, (unsigned long long)r->n_cmd, (unsigned long long)r->n_ev, r->aggregate);
	for (int i = 0; i <= FAM__COUNT + 2; i++)
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

static void mark_write(struct rep *r, uint64_t seq, uint64_t t, int64_t lat, uint32_t cc,
		       int has_rc, uint32_t rc, enum family fam)
{
	char nb[16], lb[32];
	double x = xpos(r, t), w = 0.12;
	if (lat > 0 && r->t1 > r->t0) {
		double lw = 1000.0 * (double)lat / (double)(r->t1 - r->t0);
		if (lw > w)
			w = lw;
	}
	fprintf(r->f,
		"<rect class=\"m f%d\" x=\"%.3f\" y=\"%d\" width=\"%.3f\" height=\"%d\">"
		"<title>#%llu %s %s",
		fam, x, Y_FAM + fam * LANE_H + 2, w, LANE_H - 4, (unsigned long long)seq,
		cc_label(cc, nb, sizeof nb), lat >= 0 ? fmt_dur((double)lat, lb, sizeof lb) : "");
	if (has_rc && rc)
		fprintf(r->f, " rc 0x%X", rc);
	fputs("</title></rect>\n", r->f);
	r->marks++;
}

static void timeline_close(struct rep *r, sqlite3_stmt *ev)
{
	FILE *f = r->f;
	char b1[32];
	if (r->aggregate) {
		uint32_t maxc = 1;
		for (size_t i = 0; i < (size_t)FAM__COUNT * NBINS; i++)
			if (r->bins[i] > maxc)
				maxc = r->bins[i];
		for (int fam = 0; fam < FAM__COUNT; fam++)
			for (int b = 0; b < NBINS; b++) {
				uint32_t n = r->bins[fam * NBINS + b];
				if (!n)
					continue;
				double op = 0.25 + 0.75 * log1p(n) / log1p(maxc);
				fprintf(
				    f,
				    "<rect class=\"m f%d\" x=\"%.3f\" y=\"%d\" width=\"%.3f\" "
				    "height=\"%d\" fill-opacity=\"%.2f\" data-n=\"%u\"><title>%u "
				    "%s commands, slowest %s</title></rect>\n",
				    fam, 1000.0 * b / NBINS, Y_FAM + fam * LANE_H + 2,
				    1000.0 / NBINS, LANE_H - 4, op, n, n, fam_name[fam],
				    fmt_dur((double)r->bin_max[fam * NBINS + b], b1, sizeof b1));
				r->marks++;
			}
	}
	fputs("</g>\n<g id=\"phases\">\n", f);
	if (r->any_known_org)
		for (unsigned i = 0; i < r->n_runs; i++) {
			double x0 = xpos(r, r->runs[i].t0), x1 = xpos(r, r->runs[i].t1);
			fprintf(f,
				"<rect x=\"%.3f\" y=\"%d\" width=\"%.3f\" height=\"%d\" "
				"fill=\"%s\" data-phase=\"%s\"><title>%s: %llu commands</title>"
				"</rect>\n",
				x0, Y_PH + 2, x1 - x0 > 0.12 ? x1 - x0 : 0.12, LANE_H - 4,
				org_color[r->runs[i].org], org_name[r->runs[i].org],
				org_name[r->runs[i].org], (unsigned long long)r->runs[i].n);
		}
	fputs("</g>\n<g id=\"events\">\n", f);
	unsigned nev = 0;
	int h = Y_FAM + FAM__COUNT * LANE_H;
	while (ev && sqlite3_step(ev) == SQLITE_ROW && nev < MAX_EVMK) {
		uint64_t t = (uint64_t)sqlite3_column_int64(ev, 1);
		const char *kind = (const char *)sqlite3_column_text(ev, 2);
		const char *detail = (const char *)sqlite3_column_text(ev, 3);
		double x = xpos(r, t);
		const char *col = ev_class(kind ? kind : "");
		fprintf(f, "<g class=\"ev\" data-kind=\"");
		html(f, kind);
		fprintf(f,
			"\"><line x1=\"%.3f\" x2=\"%.3f\" y1=\"0\" y2=\"%d\" stroke=\"%s\" "
			"stroke-opacity=\"0.35\" vector-effect=\"non-scaling-stroke\"/>"
			"<rect x=\"%.3f\" y=\"2\" width=\"0.6\" height=\"%d\" fill=\"%s\"/>"
			"<title>#%lld %s",
			x, x, h, col, x - 0.3, LANE_H - 4, col,
			(long long)sqlite3_column_int64(ev, 0), "");
		html(f, kind);
		if (detail && *detail) {
			fputs(": ", f);
			html(f, detail);
		}
		fputs("</title></g>\n", f);
		nev++;
	}
	fputs("</g>\n</svg>\n<div class=\"ticks\">", f);
	double span = r->t1 > r->t0 ? (double)(r->t1 - r->t0) : 0;
	if (span > 0) {
		double step = nice_step(span, 10);
		for (double t = 0; t < span * 0.96; t += step)
			fprintf(f, "<span style=\"left:%.3f%%\">%s</span>", 100 * t / span,
				fmt_axis(t, b1, sizeof b1));
	}
	fputs("</div></div></div></div>\n", f);
	fputs("<div class=\"legend\"><span><i style=\"background:#d62728\"></i>power, "
	      "init, shutdown</span><span><i style=\"background:#1f77b4\"></i>locality"
	      "</span><span><i style=\"background:#ff7f0e\"></i>backend lost, errors, gaps"
	      "</span><span><i style=\"background:#6b7280\"></i>recording start/stop, other"
	      "</span>",
	      f);
	if (r->any_known_org)
		for (int o = 1; o < 4; o++)
			fprintf(f, "<span><i style=\"background:%s\"></i>phase: %s</span>",
				org_color[o], org_name[o]);
	fputs("</div>\n", f);
	if (nev == MAX_EVMK)
		fprintf(f, "<p class=\"note\">Only the first %d events are drawn.</p>\n", MAX_EVMK);
	if (r->runs_cut)
		fprintf(f, "<p class=\"note\">Only the first %d phase changes are drawn.</p>\n",
			MAX_RUNS);
	/* Tables: per family, and the events. */
	fputs("<details><summary>Table: commands per family</summary><table id=\"family-table\">"
	      "<tr><th class=\"l\">family</th><th>commands</th><th>TPM time</th></tr>\n",
	      f);
	for (int i = 0; i < FAM__COUNT; i++)
		if (r->fam_n[i])
			fprintf(f, "<tr><td class=\"l\">%s</td><td>%llu</td><td>%s</td></tr>\n",
				fam_name[i], (unsigned long long)r->fam_n[i],
				fmt_dur(r->fam_ns[i], b1, sizeof b1));
	fputs("</table></details>\n", f);
	if (ev) {
		sqlite3_reset(ev);
		fputs("<details><summary>Table: events</summary><table id=\"event-table\">"
		      "<tr><th>seq</th><th>time</th><th class=\"l\">kind</th><th class=\"l\">"
		      "detail</th></tr>\n",
		      f);
		unsigned k = 0;
		while (sqlite3_step(ev) == SQLITE_ROW && k++ < MAX_EVMK) {
			uint64_t t = (uint64_t)sqlite3_column_int64(ev, 1);
			fprintf(f, "<tr><td>%lld</td><td>%s</td><td class=\"l\">",
				(long long)sqlite3_column_int64(ev, 0),
				fmt_dur(t > r->t0 ? (double)(t - r->t0) : 0, b1, sizeof b1));
			html(f, (const char *)sqlite3_column_text(ev, 2));
			fputs("</td><td class=\"l\">", f);
			html(f, (const char *)sqlite3_column_text(ev, 3));
			fputs("</td></tr>\n", f);
		}
		fputs("</table></details>\n", f);
	}
	fputs("</section>\n", f);
}

/* ---- the one pass over the trace ---- */

static int stream_commands(struct rep *r, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc = 0, s;
	uint8_t cur_org = 255;
	if (sqlite3_prepare_v2(
		r->db,
		"SELECT seq, t_submit_ns, latency_ns, cc, rc, client_id FROM command "
		"WHERE trace_id=? ORDER BY seq",
		-1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(r->db));
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, r->id);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t seq = (uint64_t)sqlite3_column_int64(st, 0);
		uint64_t t = sqlite3_column_type(st, 1) == SQLITE_NULL
				 ? r->t0
				 : (uint64_t)sqlite3_column_int64(st, 1);
		int64_t lat =
		    sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
		uint32_t cc = (uint32_t)sqlite3_column_int64(st, 3);
		int has_rc = sqlite3_column_type(st, 4) != SQLITE_NULL;
		uint32_t trc = (uint32_t)sqlite3_column_int64(st, 4);
		int64_t client = sqlite3_column_int64(st, 5);
		enum family fam = family_of(cc);
		struct cc_lat *c = cc_get(r, cc);
		if (!c) {
			rc = -ENOMEM;
			break;
		}
		c->count++;
		r->fam_n[fam]++;
		if (lat >= 0) {
			if (lat_push(c, (uint64_t)lat)) {
				rc = -ENOMEM;
				break;
			}
			r->fam_ns[fam] += (double)lat;
			r->n_lat++;
			struct top tp = {seq, t, (uint64_t)lat, cc, trc, has_rc, client};
			top_add(r, &tp);
		}
		if (r->aggregate) {
			int b = (int)(xpos(r, t) * NBINS / 1000.0);
			if (b >= NBINS)
				b = NBINS - 1;
			if (b < 0)
				b = 0;
			r->bins[fam * NBINS + b]++;
			if (lat > 0 && (uint64_t)lat > r->bin_max[fam * NBINS + b])
				r->bin_max[fam * NBINS + b] = (uint64_t)lat;
		} else {
			mark_write(r, seq, t, lat, cc, has_rc, trc, fam);
		}
		/* Phases: runs of commands from the same kind of client. */
		uint8_t org = client >= 0 && client < MAX_CLNTS ? r->client_org[client] : 0;
		if (org)
			r->any_known_org = 1;
		uint64_t tend = lat > 0 ? t + (uint64_t)lat : t;
		if (org == cur_org && r->n_runs) {
			r->runs[r->n_runs - 1].t1 = tend;
			r->runs[r->n_runs - 1].n++;
		} else if (r->n_runs < MAX_RUNS) {
			r->runs[r->n_runs++] = (struct run_){t, tend, org, 1};
			cur_org = org;
		} else {
			r->runs_cut = 1;
		}
	}
	if (!rc && s != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(r->db));
		rc = -EIO;
	}
	sqlite3_finalize(st);
	return rc;
}

/* ---- latency distribution ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_cc_total(const void *a, const void *b)
{
	const struct cc_lat *x = a, *y = b;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return x->cc < y->cc ? -1 : x->cc > y->cc;
}

/* Nearest rank, as the command_stats view: the smallest v with rank >= p% of n. */
static uint64_t pctl(const struct cc_lat *c, double p)
{
	size_t k = (size_t)ceil(p / 100.0 * (double)c->n);
	if (k < 1)
		k = 1;
	if (k > c->n)
		k = c->n;
	return c->v[k - 1];
}

static void latency_section(struct rep *r)
{
	FILE *f = r->f;
	char b[8][32], nb[16];
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t rows = 0;

	for (size_t i = 0; i < r->n_ccs; i++)
		if (r->ccs[i].n > 1)
			qsort(r->ccs[i].v, r->ccs[i].n, sizeof(uint64_t), cmp_u64);
	if (r->n_ccs > 1) /* ccs is NULL for a trace without commands */
		qsort(r->ccs, r->n_ccs, sizeof *r->ccs, cmp_cc_total);
	for (size_t i = 0; i < r->n_ccs; i++) {
		struct cc_lat *c = &r->ccs[i];
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
		r->n_ccs > LAT_ROWS ? " Only the 40 costliest codes are drawn; the table has all."
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
	for (size_t i = 0; i < r->n_ccs && row < rows; i++) {
		const struct cc_lat *c = &r->ccs[i];
		if (!c->n)
			continue;
		enum family fam = family_of(c->cc);
		double y = row * RH + RH / 2;
		fprintf(f, "<g class=\"lat-row\" data-cc=\"%u\" data-count=\"%zu\">", c->cc, c->n);
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s (%zu)</text>",
			X0 - 8, y + 4, cc_label(c->cc, nb, sizeof nb), c->n);
		fprintf(f,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>",
			LX(c->v[0]), LX(c->v[c->n - 1]), y, y);
		double q1 = LX(pctl(c, 25)), q3 = LX(pctl(c, 75)), md = LX(pctl(c, 50));
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
			md, md, y - 8, y + 8, cc_label(c->cc, nb, sizeof nb), c->n,
			fmt_dur((double)pctl(c, 50), b[0], sizeof b[0]),
			fmt_dur((double)pctl(c, 95), b[1], sizeof b[1]),
			fmt_dur((double)c->v[c->n - 1], b[2], sizeof b[2]));
		row++;
	}
#undef LX
	fputs("</svg>\n", f);
	fputs("<details><summary>Table: latency per command code</summary>"
	      "<table id=\"latency-table\"><tr><th class=\"l\">command</th><th>cc</th>"
	      "<th>count</th><th>total</th><th>min</th><th>p25</th><th>p50</th><th>p75</th>"
	      "<th>p95</th><th>p99</th><th>max</th></tr>\n",
	      f);
	for (size_t i = 0; i < r->n_ccs; i++) {
		const struct cc_lat *c = &r->ccs[i];
		if (!c->n)
			continue;
		fprintf(
		    f,
		    "<tr data-cc=\"%u\"><td class=\"l\">%s</td><td>0x%X</td><td>%zu</td>"
		    "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
		    "<td>%s</td><td>%s</td></tr>\n",
		    c->cc, cc_label(c->cc, nb, sizeof nb), c->cc, c->n, fmt_dur(c->total, b[0], 32),
		    fmt_dur((double)c->v[0], b[1], 32), fmt_dur((double)pctl(c, 25), b[2], 32),
		    fmt_dur((double)pctl(c, 50), b[3], 32), fmt_dur((double)pctl(c, 75), b[4], 32),
		    fmt_dur((double)pctl(c, 95), b[5], 32), fmt_dur((double)pctl(c, 99), b[6], 32),
		    fmt_dur((double)c->v[c->n - 1], b[7], 32));
	}
	fputs("</table></details></section>\n", f);
}

static void top_section(struct rep *r)
{
	FILE *f = r->f;
	char b1[32], b2[32], nb[16];
	double span = r->t1 > r->t0 ? (double)(r->t1 - r->t0) : 0;
	fprintf(f, "<section id=\"top-section\"><h2>The %d slowest commands</h2>\n", TOP_N);
	if (!r->n_top) {
		fputs("<p class=\"note\">No recorded latencies.</p></section>\n", f);
		return;
	}
	fputs("<p class=\"note\">Position: where in the trace the command was sent (time from "
	      "the first record, and the bar below).</p>\n"
	      "<table id=\"top-table\"><tr><th>#</th><th>seq</th><th class=\"l\">command</th>"
	      "<th>latency</th><th>at</th><th class=\"l\">position</th><th>rc</th>"
	      "<th>client</th></tr>\n",
	      f);
	for (unsigned i = 0; i < r->n_top; i++) {
		const struct top *t = &r->top[i];
		double at = t->t > r->t0 ? (double)(t->t - r->t0) : 0;
		double pos = span > 0 ? 160 * at / span : 0;
		fprintf(f,
			"<tr class=\"top\" data-seq=\"%llu\" data-latency-ns=\"%llu\"><td>%u</td>"
			"<td>%llu</td><td class=\"l\">%s</td><td>%s</td><td>%s</td>"
			"<td class=\"l\"><svg width=\"164\" height=\"10\"><rect x=\"0\" y=\"3\" "
			"width=\"164\" height=\"4\" fill=\"#e5e7eb\"/><rect x=\"%.1f\" y=\"0\" "
			"width=\"4\" height=\"10\" class=\"f%d\"/></svg></td>",
			(unsigned long long)t->seq, (unsigned long long)t->lat, i + 1,
			(unsigned long long)t->seq, cc_label(t->cc, nb, sizeof nb),
			fmt_dur((double)t->lat, b1, sizeof b1), fmt_dur(at, b2, sizeof b2), pos,
			family_of(t->cc));
		if (t->has_rc)
			fprintf(f, "<td>0x%X</td>", t->rc);
		else
			fputs("<td>-</td>", f);
		fprintf(f, "<td>%lld</td></tr>\n", (long long)t->client);
	}
	fputs("</table></section>\n", f);
}

/* ---- policy comparison ---- */

struct bar {
	char label[160];
	char kind[16]; /* recorded | replay | compare | predicted */
	double seg[FAM__COUNT + 3];
	int nseg;
	double total;
	unsigned runs;
	uint64_t commands;
	int64_t trace_id;
};

/* Sums a trace's TPM time per family into b (added, for averaging runs). */
static int bar_add_trace(sqlite3 *db, int64_t id, struct bar *b)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db,
			       "SELECT cc, coalesce(sum(latency_ns),0), count(*) FROM command "
			       "WHERE trace_id=? GROUP BY cc",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		enum family fam = family_of((uint32_t)sqlite3_column_int64(st, 0));
		b->seg[fam] += sqlite3_column_double(st, 1);
		b->commands += (uint64_t)sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	b->nseg = FAM__COUNT;
	b->runs++;
	return 0;
}

static void bar_finish(struct bar *b)
{
	b->total = 0;
	for (int i = 0; i < b->nseg; i++) {
		if (b->runs > 1)
			b->seg[i] /= b->runs;
		b->total += b->seg[i];
	}
	if (b->runs > 1)
		b->commands /= b->runs;
}

static void bars_chart(FILE *f, const char *id, struct bar *bars, unsigned n, int base,
		       const char *const *seg_names, const char *const *seg_colors, int nseg,
		       const char *unit_note)
{
	char b1[32];
	double max = 0;
	const double X0 = 260, X1 = 840, RH = 30;
	for (unsigned i = 0; i < n; i++)
		if (bars[i].total > max)
			max = bars[i].total;
	if (max <= 0)
		max = 1;
	int h = (int)(n * RH + 10);
	fprintf(f,
		"<svg id=\"%s\" class=\"policy-chart\" viewBox=\"0 0 1000 %d\" width=\"1000\" "
		"height=\"%d\" data-bars=\"%u\" role=\"img\" aria-label=\"policy comparison\">\n",
		id, h, h, n);
	for (unsigned i = 0; i < n; i++) {
		const struct bar *b = &bars[i];
		double y = i * RH + 6, x = X0;
		double factor = base >= 0 && bars[base].total > 0 ? b->total / bars[base].total : 0;
		fprintf(f,
			"<g class=\"bar\" data-kind=\"%s\" data-total-ns=\"%.0f\" "
			"data-factor=\"%.4f\" data-label=\"",
			b->kind, b->total, factor);
		html(f, b->label);
		fprintf(f, "\"><text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", X0 - 8, y + 15);
		html(f, b->label);
		fputs("</text>", f);
		for (int s = 0; s < nseg; s++) {
			if (b->seg[s] <= 0)
				continue;
			double w = (X1 - X0) * b->seg[s] / max;
			fprintf(f,
				"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"20\" "
				"fill=\"%s\"><title>%s: %s</title></rect>",
				x, y, w, seg_colors[s], seg_names[s],
				fmt_dur(b->seg[s], b1, sizeof b1));
			x += w;
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s", x + 6, y + 15,
			fmt_dur(b->total, b1, sizeof b1));
		if (base >= 0)
			fprintf(f,
				" &#183; <tspan class=\"factor\" font-weight=\"bold\">%.2f&times;"
				"</tspan>",
				factor);
		fputs("</text></g>\n", f);
	}
	fputs("</svg>\n<div class=\"legend\">", f);
	for (int s = 0; s < nseg; s++) {
		int used = 0;
		for (unsigned i = 0; i < n; i++)
			used |= bars[i].seg[s] > 0;
		if (used)
			fprintf(f, "<span><i style=\"background:%s\"></i>%s</span>", seg_colors[s],
				seg_names[s]);
	}
	fprintf(f, "</div><p class=\"note\">%s</p>\n", unit_note);
}

static void bars_table(FILE *f, const char *id, const struct bar *bars, unsigned n, int base,
		       const char *const *seg_names, int nseg)
{
	char b1[32];
	fprintf(f,
		"<details><summary>Table</summary><table id=\"%s\"><tr><th class=\"l\">bar</th>"
		"<th class=\"l\">kind</th><th>runs</th><th>commands</th>",
		id);
	for (int s = 0; s < nseg; s++)
		fprintf(f, "<th>%s</th>", seg_names[s]);
	fputs("<th>total</th><th>factor</th></tr>\n", f);
	for (unsigned i = 0; i < n; i++) {
		const struct bar *b = &bars[i];
		fputs("<tr><td class=\"l\">", f);
		html(f, b->label);
		fprintf(f, "</td><td class=\"l\">%s</td><td>%u</td><td>%llu</td>", b->kind, b->runs,
			(unsigned long long)b->commands);
		for (int s = 0; s < nseg; s++)
			fprintf(f, "<td>%s</td>", fmt_dur(b->seg[s], b1, sizeof b1));
		fprintf(f, "<td>%s</td><td>%.3f</td></tr>\n", fmt_dur(b->total, b1, sizeof b1),
			base >= 0 && bars[base].total > 0 ? b->total / bars[base].total : 0);
	}
	fputs("</table></details>\n", f);
}

#define MAX_BARS 48

static int measured_bars(struct rep *r, const int64_t *cmp, unsigned ncmp, struct bar *bars,
			 unsigned *nb, int *base)
{
	sqlite3_stmt *st;
	unsigned n = 0;
	*base = 0;
	struct bar *b = &bars[n++];
	memset(b, 0, sizeof *b);
	snprintf(b->label, sizeof b->label, "trace %lld as recorded", (long long)r->id);
	strcpy(b->kind, "recorded");
	b->trace_id = r->id;
	/* This trace's sums come from the pass over it, not another scan. */
	for (int i = 0; i < FAM__COUNT; i++)
		b->seg[i] = r->fam_ns[i];
	b->nseg = FAM__COUNT;
	b->runs = 1;
	b->commands = r->n_cmd;
	if (sqlite3_prepare_v2(r->db,
			       "SELECT id, coalesce(policy,'as-recorded'), coalesce(emulated,'') "
			       "FROM trace WHERE parent_id=? AND kind='replay' "
			       "ORDER BY policy, emulated, id",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, r->id);
	while (sqlite3_step(st) == SQLITE_ROW && n < MAX_BARS) {
		char label[160];
		const char *pol = (const char *)sqlite3_column_text(st, 1);
		const char *emu = (const char *)sqlite3_column_text(st, 2);
		snprintf(label, sizeof label, "replay: %s%s%s", pol, *emu ? " on " : "", emu);
		unsigned j;
		for (j = 1; j < n; j++)
			if (!strcmp(bars[j].kind, "replay") && !strcmp(bars[j].label, label))
				break;
		if (j == n) {
			memset(&bars[n], 0, sizeof bars[n]);
			snprintf(bars[n].label, sizeof bars[n].label, "%s", label);
			strcpy(bars[n].kind, "replay");
			bars[n].trace_id = sqlite3_column_int64(st, 0);
			n++;
		}
		bar_add_trace(r->db, sqlite3_column_int64(st, 0), &bars[j]);
		if (!strcmp(pol, "password") && !*emu && *base == 0)
			*base = (int)j;
	}
	sqlite3_finalize(st);
	for (unsigned k = 0; k < ncmp && n < MAX_BARS; k++) {
		struct bar *c = &bars[n++];
		memset(c, 0, sizeof *c);
		char *name = NULL;
		if (sqlite3_prepare_v2(r->db,
				       "SELECT coalesce(name,''), kind FROM trace WHERE id=?", -1,
				       &st, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, cmp[k]);
			if (sqlite3_step(st) == SQLITE_ROW)
				name = strdup((const char *)sqlite3_column_text(st, 0));
			sqlite3_finalize(st);
		}
		snprintf(c->label, sizeof c->label, "compare: trace %lld %.100s", (long long)cmp[k],
			 name ? name : "");
		free(name);
		strcpy(c->kind, "compare");
		c->trace_id = cmp[k];
		if (bar_add_trace(r->db, cmp[k], c))
			return -EIO;
	}
	for (unsigned i = 0; i < n; i++)
		bar_finish(&bars[i]);
	*nb = n;
	return 0;
}

static int predicted_section(struct rep *r, const char *profname, char *err, size_t errlen)
{
	struct policy pols[PREDICT_MAX_POLICIES];
	struct profile prof;
	struct predictor *pr = NULL;
	const char *from = "", *n;
	unsigned npol = 0;
	int base = -1, rc = 0;
	uint64_t ncmd = 0;
	struct bar *bars = NULL;
	static const char *const seg_names[] = {"TPM time (profile)", "host crypto",
						"non-TPM time (gaps)"};
	static const char *const seg_colors[] = {"#1f77b4", "#ff7f0e", "#c7c7c7"};

	profile_init(&prof);
	for (unsigned j = 0; (n = policy_preset_name(j)) && npol < PREDICT_MAX_POLICIES; j++)
		if (!policy_parse(n, &pols[npol], err, errlen))
			npol++;
	for (unsigned k = 0; k < npol; k++)
		if (pols[k].mode == POL_MODE_PASSWORD && base < 0)
			base = (int)k;
	if ((rc = profile_resolve(r->db, profname, &prof, &from, err, errlen)))
		goto out;
	pr = malloc(sizeof *pr);
	bars = calloc(npol, sizeof *bars);
	if (!pr || !bars || predict_init(pr, &prof, pols, npol)) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	/* Host crypto as 'tpmtrace predict' prices it: measured here with the
	 * replayer's session code, the constant estimate if that fails. */
	struct pred_host host;
	if (!host_crypto_measure(&host))
		predict_set_host(pr, &host);
	if ((rc = trace_stream_predict(r->db, r->id, pr, &ncmd, err, errlen)))
		goto out;
	predict_finish(pr);
	for (unsigned k = 0; k < npol; k++) {
		struct bar *b = &bars[k];
		snprintf(b->label, sizeof b->label, "%s", pr->r[k].pol.name);
		strcpy(b->kind, "predicted");
		b->seg[0] = pr->r[k].tpm_ms * 1e6;
		b->seg[1] = pr->r[k].host_ms * 1e6;
		b->seg[2] = pr->gap_ms * 1e6;
		b->nseg = 3;
		b->runs = 1;
		b->commands = pr->r[k].commands;
		b->total = predict_total_ms(pr, k) * 1e6;
	}
	FILE *f = r->f;
	fputs("<h3>Predicted on ", f);
	html(f, prof.name);
	fputs(prof.chip ? " (" : "", f);
	html(f, prof.chip);
	fputs(prof.chip ? ")" : "", f);
	fputs("</h3>\n", f);
	bars_chart(f, "policy-predicted", bars, npol, base, seg_names, seg_colors, 3,
		   "The trace expanded under each policy by the replayer's own expansion code and "
		   "priced from the latency profile (as 'tpmtrace predict' does); host crypto "
		   "as measured on the host that made this report with tpmtrace's own session "
		   "code (a constant estimate where it could not be measured). The factor on "
		   "each bar is against the password policy.");
	bars_table(f, "policy-predicted-table", bars, npol, base, seg_names, 3);
out:
	free(bars);
	free(pr);
	profile_release(&prof);
	return rc;
}

static int policy_section(struct rep *r, const int64_t *cmp, unsigned ncmp, const char *profname,
			  char *err, size_t errlen)
{
	FILE *f = r->f;
	struct bar *bars = calloc(MAX_BARS, sizeof *bars);
	unsigned n = 0;
	int base = 0, rc = 0;
	if (!bars)
		return -ENOMEM;
	fputs("<section id=\"policy-section\"><h2>Cost per session policy</h2>\n", f);
	if ((rc = measured_bars(r, cmp, ncmp, bars, &n, &base))) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(r->db));
		goto out;
	}
	if (n > 1) {
		fputs("<h3>Measured: this trace, its replays and the traces compared</h3>\n", f);
		bars_chart(f, "policy-measured", bars, n, base, fam_name, fam_color, FAM__COUNT,
			   base > 0 ? "Sum of command latencies (TPM time) per trace, stacked by "
				      "command family; replays of the same policy are averaged. "
				      "The factor on each bar is against the password replay."
				    : "Sum of command latencies (TPM time) per trace, stacked by "
				      "command family; replays of the same policy are averaged. "
				      "The factor on each bar is against the recorded trace.");
		bars_table(f, "policy-measured-table", bars, n, base, fam_name, FAM__COUNT);
	} else {
		fprintf(
		    f,
		    "<p class=\"note\" id=\"no-replays\">No replays of trace %lld in this file. "
		    "Run <code>tpmtrace replay DB --trace %lld --policy linux-6.10</code> (and "
		    "password, linux-6.12, ...) to measure, or pass <code>--profile NAME</code> "
		    "to predict.</p>\n",
		    (long long)r->id, (long long)r->id);
	}
	if (profname && (rc = predicted_section(r, profname, err, errlen)))
		goto out;
	fputs("</section>\n", f);
out:
	free(bars);
	return rc;
}

/* ---- the subcommand ---- */

static int parse_ids(const char *s, int64_t *ids, unsigned *n, unsigned max)
{
	while (*s) {
		char *end;
		long long v = strtoll(s, &end, 10);
		if (end == s || v <= 0 || (*end && *end != ','))
			return -EINVAL;
		if (*n >= max)
			return -E2BIG;
		ids[(*n)++] = v;
		s = *end ? end + 1 : end;
	}
	return 0;
}

static int run(int argc, char **argv)
{
	const char *dbpath = NULL, *out = NULL, *trace = NULL, *profname = NULL, *title = NULL;
	int64_t cmp[32];
	unsigned ncmp = 0, max_marks = 20000;
	char err[1024] = "";
	int ret = 1, rc;
	struct rep r;
	sqlite3_stmt *ev = NULL, *ti = NULL;
	FILE *f = NULL;
	struct cli_out o = {0};

	memset(&r, 0, sizeof r);
	struct cli_parse cp;
	int key;
	cli_parse_init(&cp, &subcmd_report, argc, argv);
	while ((key = cli_next(&cp)) > 0) {
		switch (key) {
		case O_OUTPUT:
			out = cp.arg;
			break;
		case O_TRACE:
			trace = cp.arg;
			break;
		case O_PROFILE:
			profname = cp.arg;
			break;
		case O_TITLE:
			title = cp.arg;
			break;
		case O_COMPARE:
			if (parse_ids(cp.arg, cmp, &ncmp, 32))
				return usage_error(&subcmd_report,
						   "--compare: '%s' is not ID[,ID...] (at most 32)",
						   cp.arg);
			break;
		case O_MAXMARKS:
			max_marks = (unsigned)cp.num;
			break;
		}
	}
	if (key < 0)
		return EXIT_USAGE;
	if (cp.ind < argc - 1)
		return usage_error(&subcmd_report, "more than one database given");
	if (cp.ind >= argc)
		return usage_error(&subcmd_report, "which database? (DB)");
	dbpath = argv[cp.ind];
	if (!out)
		return usage_error(&subcmd_report, "-o FILE is required");
	const char *const inputs[] = {dbpath, NULL};
	if ((rc = cli_out_check("report", out, inputs)))
		return rc;

	r.dbpath = dbpath;
	r.max_marks = max_marks;
	if (!(r.db = cli_open_db("report", dbpath, 0)))
		return 1;
	if (!(r.id = cli_pick_trace("report", r.db, trace)))
		goto out;
	for (unsigned k = 0; k < ncmp; k++) {
		char idb[32];
		snprintf(idb, sizeof idb, "%lld", (long long)cmp[k]);
		if (!cli_pick_trace("report", r.db, idb))
			goto out;
	}
	/* The time axis covers commands and events: one scan for the counts,
	 * the range and the TPM time. */
	{
		sqlite3_stmt *st;
		int64_t c0 = -1, c1 = -1, e0 = -1, e1 = -1;
		if (sqlite3_prepare_v2(
			r.db,
			"SELECT count(*), min(t_submit_ns), "
			"max(coalesce(t_done_ns,t_submit_ns)), "
			"coalesce(sum(latency_ns),0) FROM command WHERE trace_id=?1 "
			"UNION ALL SELECT count(*), min(t_ns), max(t_ns), 0 FROM event "
			"WHERE trace_id=?1",
			-1, &st, NULL) != SQLITE_OK) {
			die("report", "%s: %s", dbpath, sqlite3_errmsg(r.db));
			goto out;
		}
		sqlite3_bind_int64(st, 1, r.id);
		for (int k = 0; k < 2 && sqlite3_step(st) == SQLITE_ROW; k++) {
			int64_t n = sqlite3_column_int64(st, 0);
			int64_t lo = sqlite3_column_type(st, 1) == SQLITE_NULL
					 ? -1
					 : sqlite3_column_int64(st, 1);
			int64_t hi = sqlite3_column_type(st, 2) == SQLITE_NULL
					 ? -1
					 : sqlite3_column_int64(st, 2);
			if (k == 0) {
				r.n_cmd = (uint64_t)n;
				c0 = lo;
				c1 = hi;
				r.tpm_ns = sqlite3_column_double(st, 3);
			} else {
				r.n_ev = (uint64_t)n;
				e0 = lo;
				e1 = hi;
			}
		}
		sqlite3_finalize(st);
		int64_t lo = c0 >= 0 ? c0 : e0, hi = c1 >= 0 ? c1 : e1;
		if (e0 >= 0 && e0 < lo)
			lo = e0;
		if (e1 > hi)
			hi = e1;
		r.t0 = lo > 0 ? (uint64_t)lo : 0;
		r.t1 = hi > 0 ? (uint64_t)hi : r.t0;
	}
	r.aggregate = r.n_cmd > max_marks;
	if (r.aggregate) {
		r.bins = calloc((size_t)FAM__COUNT * NBINS, sizeof *r.bins);
		r.bin_max = calloc((size_t)FAM__COUNT * NBINS, sizeof *r.bin_max);
		if (!r.bins || !r.bin_max) {
			die("report", "out of memory");
			goto out;
		}
	}
	if ((rc = load_clients(&r))) {
		die("report", "%s: %s", dbpath, rc == -EIO ? sqlite3_errmsg(r.db) : strerror(-rc));
		goto out;
	}

	if (cli_out_open("report", &o, out, inputs))
		goto out;
	f = o.f;
	r.f = f;
	static char fbuf[1 << 16];
	setvbuf(f, fbuf, _IOFBF, sizeof fbuf);

	/* Header: what the trace is. */
	const char *tname = NULL, *kind = "", *source = NULL, *started = NULL, *status = "",
		   *host = NULL;
	if (sqlite3_prepare_v2(r.db,
			       "SELECT name, kind, source, started_at, status, host, dropped "
			       "FROM trace WHERE id=?",
			       -1, &ti, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(ti, 1, r.id);
		if (sqlite3_step(ti) == SQLITE_ROW) {
			tname = (const char *)sqlite3_column_text(ti, 0);
			kind = (const char *)sqlite3_column_text(ti, 1);
			source = (const char *)sqlite3_column_text(ti, 2);
			started = (const char *)sqlite3_column_text(ti, 3);
			status = (const char *)sqlite3_column_text(ti, 4);
			host = (const char *)sqlite3_column_text(ti, 5);
		}
	}
	double tpm_ns = r.tpm_ns;
	char b1[32], b2[32];
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		   "<meta name=\"viewport\" content=\"width=device-width\">"
		   "<meta name=\"generator\" content=\"tpmtrace " TPMTRACE_VERSION "\"><title>");
	html(f, title ? title : tname ? tname : "tpmtrace report");
	fprintf(f, "</title>\n<style>\n%s</style>\n", css);
	fam_classes(f);
	fprintf(f,
		"</head>\n<body data-trace-id=\"%lld\" data-commands=\"%llu\" "
		"data-events=\"%llu\" data-aggregated=\"%d\">\n<header><h1>",
		(long long)r.id, (unsigned long long)r.n_cmd, (unsigned long long)r.n_ev,
		r.aggregate);
	html(f, title ? title : tname ? tname : "tpmtrace report");
	fprintf(f, "</h1><div class=\"sub\">trace %lld (", (long long)r.id);
	html(f, kind);
	fputs(", ", f);
	html(f, status);
	fputs(")", f);
	if (source) {
		fputs(" &#183; source ", f);
		html(f, source);
	}
	if (started) {
		fputs(" &#183; started ", f);
		html(f, started);
	}
	if (host) {
		fputs(" &#183; host ", f);
		html(f, host);
	}
	fputs(" &#183; file ", f);
	html(f, dbpath);
	fputs("</div></header>\n<main>\n<div class=\"cards\">", f);
	fprintf(f,
		"<div class=\"card\"><b id=\"n-commands\">%llu</b><span>commands</span></div>"
		"<div class=\"card\"><b id=\"n-events\">%llu</b><span>events</span></div>"
		"<div class=\"card\"><b>%s</b><span>TPM time (sum of latencies)</span></div>"
		"<div class=\"card\"><b>%s</b><span>span</span></div>",
		(unsigned long long)r.n_cmd, (unsigned long long)r.n_ev,
		fmt_dur(tpm_ns, b1, sizeof b1),
		fmt_dur(r.t1 > r.t0 ? (double)(r.t1 - r.t0) : 0, b2, sizeof b2));
	if (sqlite3_column_int64(ti, 6))
		fprintf(f, "<div class=\"card\"><b>%lld</b><span>dropped</span></div>",
			(long long)sqlite3_column_int64(ti, 6));
	fputs("</div>\n", f);

	if (sqlite3_prepare_v2(r.db,
			       "SELECT seq, t_ns, kind, detail FROM event WHERE trace_id=? "
			       "ORDER BY seq",
			       -1, &ev, NULL) != SQLITE_OK) {
		die("report", "%s: %s", dbpath, sqlite3_errmsg(r.db));
		goto out;
	}
	sqlite3_bind_int64(ev, 1, r.id);
	timeline_open(&r);
	if ((rc = stream_commands(&r, err, sizeof err))) {
		die("report", "%s: %s", dbpath, rc == -ENOMEM ? "out of memory" : err);
		goto out;
	}
	timeline_close(&r, ev);
	latency_section(&r);
	top_section(&r);
	if ((rc = policy_section(&r, cmp, ncmp, profname, err, sizeof err))) {
		die("report", "%s", err);
		goto out;
	}
	fprintf(f,
		"</main>\n<footer>Written by tpmtrace " TPMTRACE_VERSION
		" report from %s, trace %lld; %llu timeline marks%s. Self-contained: no "
		"network access.</footer>\n",
		"the database", (long long)r.id, (unsigned long long)r.marks,
		r.aggregate ? " (aggregated)" : "");
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
	ret = cli_out_close("report", &o, 1);
out:
	if (o.f)
		cli_out_close("report", &o, 0);
	sqlite3_finalize(ev);
	sqlite3_finalize(ti);
	for (size_t i = 0; i < r.n_ccs; i++)
		free(r.ccs[i].v);
	free(r.ccs);
	free(r.bins);
	free(r.bin_max);
	free(r.client_org);
	db_close(r.db);
	return ret;
}
