/* tpmtrace report: options, then the numbers (model/report_data.h) rendered
 * as one self-contained HTML page (report_html.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"
#include "replayer/hostcrypto.h"
#include "model/report_html.h"

SUBCOMMAND(fleet);

enum {
	O_TRACE = 256,
	O_COMPARE,
	O_PROFILE,
	O_MAXMARKS,
	O_TITLE,
	O_JSON,
	O_HOST,
	O_FLEET,
	O_POPULATION,
	O_OUTPUT = 'o'
};
enum { M_DB = 1, M_FLEET = 2 };
static const struct cli_opt opts[] = {
    {"output", O_OUTPUT, "FILE", 0,
     "the HTML file to write (created 0600, replaced only\nwhen complete); '-' for stdout;\n"
     "required unless --json",
     "@file"},
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP, NULL, 0, 0, M_DB},
    {"compare", O_COMPARE, "ID", CLI_MULTI,
     "another trace (another boot, another machine) to set\n"
     "beside it in the comparison chart and table; may be\n"
     "repeated or given as ID,ID,...",
     NULL, 0, 0, M_DB},
    {"profile", O_PROFILE, "P", CLI_MULTI,
     "also predict the cost per policy on the TPM this\n"
     "latency profile describes (a file, a profile stored\n"
     "in DB or a shipped one: 'tpmtrace profile list');\n"
     "may be given up to 4 times",
     "@profile", 0, 0, M_DB},
    {"population", O_POPULATION, "V", 0,
     "also predict the trace on the population of shipped\n"
     "profiles (V: all, or a vendor: IFX, NTC, STM, INTC,\n"
     "AMD, MSFT), as 'tpmtrace predict --profile all': one\n"
     "strip per policy, each profile's p50 to p95 (and\n"
     "\"population\" in --json)",
     NULL, 0, 0, M_DB},
    {"max-marks", O_MAXMARKS, "N", CLI_NUM,
     "draw one timeline mark per command up to N commands\n"
     "(default 20000); past that, one mark per family and\n"
     "time bin (the page says so)",
     NULL, 0, 10000000, M_DB},
    {"title", O_TITLE, "TEXT", 0, "page title (default: the trace's name)", NULL, 0, 0, M_DB},
    {"host-crypto", O_HOST, "H", CLI_CHOICE,
     "how predictions price host crypto, as in 'tpmtrace\n"
     "predict': measure (default) on this host, or estimate\n"
     "(the constants of model/predict.h: reproducible)",
     "measure estimate", 0, 0, M_DB},
    {"json", O_JSON, NULL, 0,
     "print the answer (the headline table: per policy TPM\n"
     "and total time, factors, fallback share) as one JSON\n"
     "object {\"version\":1,...} on stdout, or into -o FILE",
     NULL, 0, 0, M_DB},
    {"fleet", O_FLEET, NULL, 0,
     "the fleet's page instead of one trace's: the operand is\n"
     "a PostgreSQL URL (or none: the PG* environment), as\n"
     "'tpmtrace fleet [URL] report -o FILE' (docs/fleet.md)",
     NULL, 0, 0, M_FLEET},
};
static const struct cli_form forms[] = {{M_DB, "DB", NULL}, {M_FLEET, NULL, "[URL]"}};

static int run(int argc, char **argv);
const struct subcommand subcmd_report = {
    "report",
    run,
    "write an HTML report with charts",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Writes one self-contained HTML file (inline SVG and CSS, a small inline script\n"
    "for zooming; nothing is loaded from the network, it opens from disk) with:\n"
    "  - first, the answer: one row per session policy with TPM time, total time,\n"
    "    x password (on TPM time and on totals), x as recorded, the share priced\n"
    "    from the profile's measurements against its fallback (and the commands\n"
    "    that fell back; over 25% the row is marked 'mostly fallback') and the\n"
    "    TPM time's range where the profile has spread; for the replays measured\n"
    "    on the trace's own TPM and for each --profile (--json prints this table);\n"
    "  - what to change: 'tpmtrace advise' on the trace (on each --profile, or on\n"
    "    the record), each finding's cost now and after the change as bars on one\n"
    "    axis, and beside the predicted saving the replayed one where 'advise\n"
    "    --prove' stored a proof (--json has it too, as \"advise\");\n"
    "  - the timeline: every command a mark on the time axis (at least 1 px wide,\n"
    "    its title naming seq, command and latency), one lane per command\n"
    "    family, control events (ctrl:INIT, platform:POWER_ON, SET_LOCALITY,\n"
    "    record-start/stop, backend-lost, ...) and phases (firmware, kernel,\n"
    "    userspace, from the clients, where known); a trace without latencies\n"
    "    (an imported log) is drawn on its record order, not on time, and says so;\n"
    "  - the latency distribution per command code (box and strip plot, log scale);\n"
    "  - the 20 slowest commands with their position in the trace;\n"
    "  - the policy comparison: TPM time per session policy of the replays of this\n"
    "    trace stored in DB (kind 'replay', parent = the trace), stacked by command\n"
    "    family, and with --profile the prediction per policy ('tpmtrace predict'),\n"
    "    with the factor against the password baseline on each bar and a value\n"
    "    axis naming its measure (TPM time, total time);\n"
    "  - with --population, the trace on every shipped profile (or a vendor's):\n"
    "    per policy a strip of each profile's TPM time, p50 to p95 (predicted);\n"
    "  - the table behind each chart.\n"
    "The file is written beside FILE and renamed into place when complete: a failed\n"
    "report leaves an earlier one as it was; a device, FIFO or /dev/stdout is\n"
    "written through, never replaced; FILE may not be the database.\n",
    "Exit status: 0 written, 1 error (no such trace, unreadable DB, cannot write),\n"
    "2 usage error.\n",
    "tpmtrace report boot.db -o boot.html\n"
    "tpmtrace report boot.db --trace 1 --compare 4 --profile slb9670-linux-integrity "
    "-o boot.html\n"
    "tpmtrace report boot.db --profile slb9670-linux-integrity --json\n"
    "tpmtrace report boot.db --population all -o boot.html\n",
};

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

struct report_args {
	const char *dbpath, *out, *trace, *title, *population;
	const char *profiles[REPORT_MAX_PROFILES];
	int64_t cmp[32];
	unsigned ncmp, max_marks, nprof;
	int json, estimate_host, fleet;
};

/* Returns 0, or the exit status of a usage error. */
static int parse(int argc, char **argv, struct report_args *a)
{
	struct cli_parse cp;
	int key;
	a->max_marks = 20000;
	cli_parse_init(&cp, &subcmd_report, argc, argv);
	while ((key = cli_next(&cp)) > 0) {
		switch (key) {
		case O_OUTPUT:
			a->out = cp.arg;
			break;
		case O_TRACE:
			a->trace = cp.arg;
			break;
		case O_PROFILE:
			if (a->nprof == REPORT_MAX_PROFILES)
				return cli_usage_error(&subcmd_report, "--profile: at most %d",
						       REPORT_MAX_PROFILES);
			a->profiles[a->nprof++] = cp.arg;
			break;
		case O_JSON:
			a->json = 1;
			break;
		case O_HOST:
			a->estimate_host = !strcmp(cp.arg, "estimate");
			break;
		case O_TITLE:
			a->title = cp.arg;
			break;
		case O_COMPARE:
			if (parse_ids(cp.arg, a->cmp, &a->ncmp, 32))
				return cli_usage_error(
				    &subcmd_report,
				    "--compare: '%s' is not ID[,ID...] (at most 32)", cp.arg);
			break;
		case O_MAXMARKS:
			a->max_marks = (unsigned)cp.num;
			break;
		case O_FLEET:
			a->fleet = 1;
			break;
		case O_POPULATION:
			a->population = cp.arg;
			break;
		}
	}
	if (key < 0)
		return EXIT_USAGE;
	if (a->fleet) {
		if (argc - cp.ind > 1)
			return cli_usage_error(&subcmd_report, "--fleet: expected at most one URL");
		if (!a->out || a->json || a->trace || a->nprof || a->ncmp || a->title ||
		    a->population)
			return cli_usage_error(&subcmd_report,
					       "--fleet takes -o FILE and no other option");
		a->dbpath = argc > cp.ind ? argv[cp.ind] : NULL;
		return 0;
	}
	if (!(a->dbpath = cli_db_operand(&cp)))
		return EXIT_USAGE;
	if (!a->out && a->json)
		a->out = "-";
	if (!a->out)
		return cli_usage_error(&subcmd_report, "-o FILE is required");
	return 0;
}

static int run(int argc, char **argv)
{
	struct report_args a = {0};
	struct report_data d = {0};
	struct report_answer *ans = calloc(1, sizeof *ans);
	struct report_advise *adv = NULL;
	struct report_population *pop = NULL;
	struct pred_host host;
	char err[1024] = "";
	int ret = 1, rc;
	sqlite3 *db;
	int64_t id;
	struct db_out o = {0};
	static char fbuf[1 << 16];

	if (!ans)
		return cli_error("report", "out of memory");
	if ((rc = parse(argc, argv, &a))) {
		free(ans);
		return rc;
	}
	if (a.fleet) { /* the same page as tpmtrace fleet [URL] report -o FILE */
		char *fv[] = {"fleet", (char *)a.dbpath, "report", "-o", (char *)a.out, NULL};
		free(ans);
		if (!a.dbpath) {
			memmove(fv + 1, fv + 2, 4 * sizeof *fv);
			return subcmd_fleet.run(4, fv);
		}
		return subcmd_fleet.run(5, fv);
	}
	const char *const inputs[] = {a.dbpath, NULL};
	if ((rc = cli_out_check("report", a.out, inputs)) ||
	    !(db = cli_open_db("report", a.dbpath, 0))) {
		free(ans);
		return rc ? rc : 1;
	}
	if (!(id = cli_pick_trace("report", db, a.trace)))
		goto out;
	for (unsigned k = 0; k < a.ncmp; k++) {
		char idb[32];
		snprintf(idb, sizeof idb, "%lld", (long long)a.cmp[k]);
		if (!cli_pick_trace("report", db, idb))
			goto out;
	}
	if ((rc = report_data_open(&d, db, id, a.max_marks, err, sizeof err))) {
		cli_error("report", "%s: %s", a.dbpath, rc == -ENOMEM ? "out of memory" : err);
		goto out;
	}
	if (!(adv = calloc(1, sizeof *adv)) ||
	    (rc = report_advise_compute(adv, db, id, a.profiles, a.nprof, err, sizeof err))) {
		cli_error("report", "%s: %s", a.dbpath, !adv ? "out of memory" : err);
		goto out;
	}
	/* Host crypto as 'tpmtrace predict' prices it: measured here with the
	 * replayer's session code, the constant estimate if that fails. */
	int measured =
	    (a.nprof || a.population) && !a.estimate_host && !rp_host_crypto_measure(&host);
	if (!measured)
		predict_host_estimate(&host);
	if (a.population &&
	    (!(pop = calloc(1, sizeof *pop)) ||
	     (rc = report_population_compute(pop, db, id, a.population, &host, err, sizeof err)))) {
		if (!pop)
			cli_error("report", "out of memory");
		else if (rc == -ENOENT)
			cli_error("report", "--population %s: %s", a.population, err);
		else
			cli_error("report", "%s: %s", a.dbpath, err);
		goto out;
	}
	struct report_html_opts ho = {
	    a.title, a.dbpath, a.cmp, a.ncmp, a.profiles, a.nprof, measured ? &host : NULL,
	    adv,     pop};
	if (cli_out_open("report", &o, a.out, inputs))
		goto out;
	setvbuf(o.f, fbuf, _IOFBF, sizeof fbuf);
	if (a.json) {
		rc = report_data_stream(&d, NULL, NULL, err, sizeof err);
		if (!rc)
			rc = report_answer_compute(ans, &d, a.cmp, a.ncmp, a.profiles, a.nprof,
						   ho.host, err, sizeof err);
		if (!rc && report_json_write(o.f, ans, adv, pop)) {
			rc = -EINVAL;
			snprintf(err, sizeof err, "the JSON output went wrong");
		}
	} else {
		rc = report_html_write(o.f, &d, &ho, ans, err, sizeof err);
	}
	if (rc) {
		cli_error("report", "%s: %s", a.dbpath, rc == -ENOMEM ? "out of memory" : err);
		goto out;
	}
	ret = cli_out_close("report", &o, 1);
out:
	if (o.f)
		cli_out_close("report", &o, 0);
	report_answer_free(ans);
	free(ans);
	free(adv);
	if (pop)
		report_population_free(pop);
	free(pop);
	report_data_free(&d);
	db_close(db);
	return ret;
}
