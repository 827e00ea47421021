/* tpmtrace fleet: what the fleet server says per TPM model, firmware,
 * kernel and policy. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/pg/pg.h"
#include "db/pg/pg_fleet_doc.h"

enum { O_JSON = 256, O_OUTPUT = 'o' };
static const struct cli_opt opts[] = {
    {"json", O_JSON, NULL, 0, "stats, list: one JSON object {\"version\":1,...}"},
    {"output", O_OUTPUT, "FILE", 0,
     "report: the HTML file to write (created 0600, replaced\nonly when complete); '-' for "
     "stdout",
     "@file"},
};
static const struct cli_form forms[] = {{0, "[URL] (stats | list | report)", NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_fleet = {
    "fleet",
    run,
    "ask the fleet server: boot TPM time per TPM model, firmware, kernel",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Reads what `tpmtrace push` stored on a PostgreSQL server (URL as for push;\n"
    "without it the PG* environment). stats: per TPM model x firmware x kernel x\n"
    "policy the hosts, boots and traces, the boot TPM time p50, p95 and max over\n"
    "the traces (a trace's TPM time is the sum of its clients' command\n"
    "latencies, as in tpmtrace stats; nearest-rank percentiles), the commands\n"
    "that dominate and the slowest hosts. list: the hosts. report -o FILE: the\n"
    "stats as one HTML page. The TPM model is the latency profile a trace\n"
    "emulated, else the TPM's manufacturer and vendor strings from the trace's\n"
    "own GetCapability answers; with its firmware, the shipped profile of that\n"
    "chip where there is one (as predict chooses it).\n",
    "Exit status: 0 ok, 1 an error (the server's message), 2 usage.\n",
    "tpmtrace fleet postgresql://fleet.example.org/tpmtrace stats\n"
    "tpmtrace fleet postgresql://fleet.example.org/tpmtrace report -o fleet.html\n",
    "stats list report",
};

/* Prints s cut to width columns (the terminal rule: 100). */
static void line(const char *s)
{
	printf("%.100s\n", s);
}

static void print_stats(const struct pg_fleet *fl)
{
	char b[1024], t[512];
	printf("%lld hosts, %lld traces; boot TPM time = sum of a trace's client command "
	       "latencies\n",
	       fl->hosts, fl->traces);
	for (size_t i = 0; i < fl->n; i++) {
		const struct pg_fleet_group *g = &fl->g[i];
		char m[128], fw[64], k[128], po[64];
		snprintf(
		    b, sizeof b, "%s  firmware %s  kernel %s  policy %s",
		    db_text_safe(g->model, m, sizeof m), db_text_safe(g->firmware, fw, sizeof fw),
		    db_text_safe(g->kernel, k, sizeof k), db_text_safe(g->policy, po, sizeof po));
		line(b);
		snprintf(
		    b, sizeof b,
		    "  %lld hosts  %lld boots  %lld traces  p50 %.3f ms  p95 %.3f ms  max %.3f "
		    "ms",
		    g->hosts, g->boots, g->traces, g->p50_ns / 1e6, g->p95_ns / 1e6,
		    g->max_ns / 1e6);
		line(b);
		if (g->profile[0]) {
			snprintf(b, sizeof b, "  profile: %s (predict --profile)",
				 db_text_safe(g->profile, t, 80));
			line(b);
		}
		size_t n = (size_t)snprintf(b, sizeof b, "  dominant:");
		for (int j = 0; j < PG_FLEET_TOP && g->top[j].name && n < sizeof b; j++)
			n += (size_t)snprintf(b + n, sizeof b - n, "%s %s %.0f%%", j ? "," : "",
					      db_text_safe(g->top[j].name, t, 64),
					      100 * g->top[j].share);
		line(b);
		n = (size_t)snprintf(b, sizeof b, "  slowest:");
		for (int j = 0; j < PG_FLEET_TOP && g->slow[j].host && n < sizeof b; j++)
			n += (size_t)snprintf(b + n, sizeof b - n, "%s %s %.3f ms", j ? "," : "",
					      db_text_safe(g->slow[j].host, t, 40),
					      g->slow[j].tpm_ns / 1e6);
		line(b);
	}
}

static int list(PGconn *c, int json)
{
	struct pg_fleet_host *h;
	size_t n;
	char err[1024], b[1024], x[5][256];
	if (pg_fleet_hosts(c, &h, &n, err, sizeof err))
		return cli_error("fleet", "%s", err);
	if (json) {
		pg_fleet_hosts_json(stdout, h, n);
		pg_fleet_hosts_free(h, n);
		return 0;
	}
	printf("%-24s %6s %6s  %-20s  %s\n", "host", "traces", "boots", "last push",
	       "TPM models / kernels");
	for (size_t i = 0; i < n; i++) {
		snprintf(b, sizeof b, "%-24s %6lld %6lld  %-20s  %s / %s",
			 db_text_safe(h[i].hostname, x[0], 25), h[i].traces, h[i].boots,
			 db_text_safe(h[i].last_pushed, x[1], 21),
			 db_text_safe(h[i].models, x[2], 128),
			 db_text_safe(h[i].kernels, x[3], 128));
		line(b);
	}
	pg_fleet_hosts_free(h, n);
	return 0;
}

static int report(const struct pg_fleet *fl, const char *out, const char *where)
{
	struct db_out o = {0};
	const char *const inputs[] = {NULL};
	int rc = cli_out_open("fleet", &o, out, inputs);
	if (rc)
		return rc;
	int bad = pg_fleet_html_write(o.f, fl, where);
	return cli_out_close("fleet", &o, !bad);
}

static int run(int argc, char **argv)
{
	int json = 0, k;
	const char *out = NULL;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_fleet, argc, argv);
	while ((k = cli_next(&p)) > 0)
		if (k == O_JSON)
			json = 1;
		else if (k == O_OUTPUT)
			out = p.arg;
	if (k < 0)
		return EXIT_USAGE;
	int nop = argc - p.ind;
	if (nop < 1 || nop > 2)
		return cli_usage_error(&subcmd_fleet, "expected [URL] and stats, list or report");
	const char *url = nop == 2 ? argv[p.ind] : NULL, *what = argv[argc - 1];
	/* An operand that is not one of the words may be the URL, in the
	 * wrong place: it is not shown (it may hold a password). */
	if (strcmp(what, "stats") && strcmp(what, "list") && strcmp(what, "report"))
		return cli_usage_error(&subcmd_fleet,
				       "expected stats, list or report last, after the "
				       "URL (the operand found there is not shown)");
	if (!strcmp(what, "report") && !out)
		return cli_usage_error(&subcmd_fleet, "report: -o FILE is required");
	if (strcmp(what, "report") && out)
		return cli_usage_error(&subcmd_fleet, "-o goes with report");
	char err[1024], where[512];
	PGconn *c = NULL;
	int rc = pg_connect(url, &c, err, sizeof err);
	if (rc)
		return cli_error("fleet", "%s", err);
	/* The server as libpq reached it: the URL is never shown. */
	pg_conn_describe(c, where, sizeof where);
	if (pg_schema_ensure(c, 0, err, sizeof err)) {
		PQfinish(c);
		return cli_error("fleet", "server (%s): %s", where, err);
	}
	if (!strcmp(what, "list")) {
		rc = list(c, json);
	} else {
		struct pg_fleet fl;
		if (pg_fleet_stats(c, &fl, err, sizeof err)) {
			PQfinish(c);
			return cli_error("fleet", "server (%s): %s", where, err);
		}
		if (out)
			rc = report(&fl, out, where);
		else if (json && pg_fleet_json(stdout, &fl))
			rc = cli_error("fleet", "the JSON output went wrong");
		else if (!json)
			print_stats(&fl);
		pg_fleet_free(&fl);
	}
	PQfinish(c);
	if (!rc && (ferror(stdout) || fflush(stdout)))
		return cli_error("fleet", "cannot write the output: %s", strerror(errno));
	return rc;
}
