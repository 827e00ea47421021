/* tpmtrace profile: import, export, list, show and learn latency profiles. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"
#include "model/profile.h"
#include "recorder/import/profile_import.h"
#include "model/tpm/tpm_cc.h"

enum { O_NAME = 256, O_REPLACE, O_TRACE, O_VENDOR, O_OUTPUT = 'o' };
enum { M_IMPORT = 1, M_EXPORT = 2, M_SHOW = 4, M_LIST = 8, M_LEARN = 16 };
static const struct cli_opt opts[] = {
    {"name", O_NAME, "NAME", 0, "name to store the profile under (default: from the\nsource)", NULL,
     0, 0, M_IMPORT | M_LEARN},
    {"output", O_OUTPUT, "OUT", 0,
     "write the text format to OUT (created 0600, replaced\nonly when complete)", "@file", 0, 0,
     M_IMPORT | M_EXPORT | M_LEARN},
    {"replace", O_REPLACE, NULL, 0, "replace a stored profile of the same name", NULL, 0, 0,
     M_IMPORT | M_LEARN},
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP, NULL, 0, 0, M_LEARN},
    {"vendor", O_VENDOR, "V", 0,
     "only the profiles of this vendor (TPM_PT_MANUFACTURER:\nIFX, NTC, STM, INTC, AMD, MSFT; "
     "a prefix, any case)",
     NULL, 0, 0, M_LIST},
};
static const struct cli_form forms[] = {
    {M_IMPORT, "import FORMAT FILE [DB]", NULL},
    {M_EXPORT, "export NAME|FILE [DB]", NULL},
    {M_SHOW, "show NAME|FILE [DB]", NULL},
    {M_LIST, "list [DB]", NULL},
    {M_LEARN, "learn DB", NULL},
};

static int run(int argc, char **argv);
const struct subcommand subcmd_profile = {
    "profile",
    run,
    "latency profiles: import, export, list, show, learn",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Latency profiles: what each TPM command costs on one TPM, per authorization kind\n"
    "(none, password, hmac, hmac+enc, policy, policy+enc) and key or session variant,\n"
    "with provenance and what the profile covers and lacks (docs/profiles.md).\n"
    "\n"
    "  import FORMAT FILE  read FILE; FORMAT is one of\n"
    "                        profile  the readable text format (as written by export)\n"
    "                        ftrace   function_graph output of the kernel's tpm functions\n"
    "                                 (tpm_transmit_cmd durations inside tpm2_* calls)\n"
    "                        tpmscan  tpm2-algtest / TPMScan: a performance.yaml, a run's\n"
    "                                 directory (its detail/Perf_*.csv samples give\n"
    "                                 p50/p90/p95/p99) or a directory of runs of one\n"
    "                                 chip and firmware (merged, samples pooled)\n"
    "                      then store it in DB (created if missing) and/or write it to\n"
    "                      --output; with neither, print it. Nothing is written on error.\n"
    "  export NAME|FILE    print a profile in the text format (or write --output).\n"
    "  show NAME|FILE      provenance and a table of entries with the low/high figures\n"
    "                      predict uses for its uncertainty range.\n"
    "  list [DB]           the shipped profiles and those stored in DB: vendor, distinct\n"
    "                      commands (cmds), entries (ents) and derived entries (drv: from\n"
    "                      other commands' figures), how many of the 7 commands a Linux\n"
    "                      boot with HMAC sessions sends it has (boot: measured+derived/7;\n"
    "                      the rest priced by fallback), the share of entries with a spread.\n"
    "  learn DB            build a profile from a recorded trace's latencies (per command\n"
    "                      code and authorization kind: n, mean, p50, p95, stdev, min, max)\n"
    "                      and store it in DB (or write --output): the clients' commands\n"
    "                      that succeeded, not tpmtrace's own nor those that failed.\n"
    "\n"
    "NAME is looked up as a file (contains '/' or ends in .profile), then in DB, then\n"
    "among the shipped profiles.\n",
    NULL,
    "tpmtrace profile list\n"
    "tpmtrace profile list --vendor ifx\n"
    "tpmtrace profile show slb9670-linux-integrity\n"
    "tpmtrace profile import tpmscan IFX_7.85.17.51968_08836af27dda9f32.performance.yaml "
    "boot.db\n"
    "tpmtrace profile import ftrace pcr_extend.trace --output slb9670.profile\n"
    "tpmtrace profile learn boot.db --trace 3 --name my-laptop\n",
    "import export show list learn",
};

struct opts {
	const char *pos[4];
	int npos;
	const char *name, *output, *trace, *vendor;
	int replace;
	unsigned mode;
};

/* Options anywhere after the action (GNU getopt permutes); the operands
 * after the action in pos[]. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct {
		const char *act;
		unsigned mode;
	} acts[] = {{"import", M_IMPORT},
		    {"export", M_EXPORT},
		    {"show", M_SHOW},
		    {"list", M_LIST},
		    {"learn", M_LEARN}};
	struct cli_parse p;
	int k;
	memset(o, 0, sizeof *o);
	cli_parse_init(&p, &subcmd_profile, argc, argv);
	while ((k = cli_next(&p)) > 0) {
		if (k == O_NAME)
			o->name = p.arg;
		else if (k == O_OUTPUT)
			o->output = p.arg;
		else if (k == O_TRACE)
			o->trace = p.arg;
		else if (k == O_VENDOR)
			o->vendor = p.arg;
		else if (k == O_REPLACE)
			o->replace = 1;
	}
	if (k < 0)
		return EXIT_USAGE;
	if (p.ind >= argc)
		return cli_usage_error(&subcmd_profile,
				       "missing action (import, export, show, list, "
				       "learn)");
	for (size_t i = 0; i < CLI_COUNT(acts); i++)
		if (!strcmp(argv[p.ind], acts[i].act))
			o->mode = acts[i].mode;
	if (!o->mode)
		return cli_usage_error(&subcmd_profile, "unknown action '%s'", argv[p.ind]);
	for (int i = p.ind + 1; i < argc; i++) {
		if (o->npos == 4)
			return cli_usage_error(&subcmd_profile, "too many arguments");
		o->pos[o->npos++] = argv[i];
	}
	char why[32];
	snprintf(why, sizeof why, "with profile %s", argv[p.ind]);
	return cli_only_mode(&p, o->mode, why);
}

/* Writes p to path atomically (db/out.h), refusing any of inputs. */
static int write_out(const struct profile *p, const char *path, const char *const *inputs)
{
	struct db_out out;
	int rc = cli_out_open("profile", &out, path, inputs);
	if (rc)
		return rc;
	if (profile_write(out.f, p))
		return cli_out_fail("profile", &out, path, "write error");
	return cli_out_close("profile", &out, 1);
}

/* Stores and/or writes p; prints it when neither is asked for. */
static int deliver(struct profile *p, const char *dbpath, const struct opts *o,
		   const char *const *inputs)
{
	char err[1024];
	int rc;
	if (o->name && profile_set(p, "name", o->name))
		return cli_error("profile", "out of memory");
	if (!dbpath && !o->output)
		return profile_write(stdout, p) ? cli_error("profile", "write error") : 0;
	if (o->output && (rc = cli_out_check("profile", o->output, inputs)))
		return rc;
	if (dbpath) {
		if (cli_db_for_create("profile", dbpath))
			return 1;
		if (profile_db_store_path(dbpath, p, o->replace, err, sizeof err))
			return cli_error("profile", "%s", err);
		fprintf(stderr, "stored profile '%s' (%zu entries) in %s\n", p->name, p->n,
			cli_name(dbpath));
	}
	if (o->output) {
		if ((rc = write_out(p, o->output, inputs)))
			return rc;
		fprintf(stderr, "wrote profile '%s' (%zu entries) to %s\n", p->name, p->n,
			cli_name(o->output));
	}
	return 0;
}

static int open_optional(const char *path, sqlite3 **db)
{
	char err[512];
	*db = NULL;
	if (!path)
		return 0;
	if (db_open(path, DB_READ, db, err, sizeof err))
		return cli_error("profile", "%s", err);
	return 0;
}

/* At most 7 characters up to the 600 s a profile allows: 3 decimals below
 * 100 ms, then 2, then 1, then none. */
static void fmt_ms(char *b, size_t l, double v)
{
	if (isnan(v))
		snprintf(b, l, "-");
	else
		snprintf(b, l, "%.*f", v < 100 ? 3 : v < 10000 ? 2 : v < 100000 ? 1 : 0, v);
}

/* An entry's command, '*' after it when derived from another's figures. */
static const char *entry_label(const struct prof_entry *e, char *b, size_t n)
{
	char cc[16];
	snprintf(b, n, "%s%s", tpm_cc_label(e->cc, cc, sizeof cc), e->derived_from ? "*" : "");
	return b;
}

static int show(const struct profile *p, const char *from)
{
	printf("profile %s (%s)\n", p->name, from);
	const char *k[] = {"vendor",	  "chip", "firmware", "bus",
			   "measured-by", "date", "covers",   "lacks"};
	const char *v[] = {p->vendor,	   p->chip, p->firmware, p->bus,
			   p->measured_by, p->date, p->covers,	 p->lacks};
	char lead[32];
	for (int i = 0; i < 8; i++)
		if (v[i]) {
			snprintf(lead, sizeof lead, "  %-12s ", k[i]);
			db_text_wrap(stdout, lead, 15, v[i], strlen(v[i]), DB_TEXT_WIDTH);
		}
	const char *multi[2][2] = {{"source", p->source}, {"note", p->note}};
	for (int j = 0; j < 2; j++)
		for (const char *s = multi[j][1]; s && *s;) {
			size_t l = strcspn(s, "\n");
			snprintf(lead, sizeof lead, "  %-12s ", multi[j][0]);
			db_text_wrap(stdout, lead, 15, s, l, DB_TEXT_WIDTH);
			s += l + (s[l] != 0);
		}
	printf("  %-12s %g ms per command\n", "transport", p->transport_ms);
	printf("  %-12s %g ms (%s)\n", "fallback", profile_fallback(p),
	       isnan(p->fallback_ms) ? "median of the entries" : "fallback-ms");
	/* 97 columns: the longest variant (aes-128.ctr.decrypt.256b) fits. */
	printf("\n%-16s %-8s %-24s %6s %7s %7s %7s %7s %7s\n", "command", "auth", "variant", "n",
	       "mean ms", "p50", "p95", "low", "high");
	for (size_t i = 0; i < p->n; i++) {
		const struct prof_entry *e = &p->e[i];
		char m[32], a[32], b[32], lo_s[32], hi_s[32], n[24], cc[24];
		double lo, hi;
		int spread = profile_entry_range(e, &lo, &hi);
		fmt_ms(m, sizeof m, e->mean_ms);
		fmt_ms(a, sizeof a, e->p50_ms);
		fmt_ms(b, sizeof b, e->p95_ms);
		fmt_ms(lo_s, sizeof lo_s, spread ? lo : NAN);
		fmt_ms(hi_s, sizeof hi_s, spread ? hi : NAN);
		snprintf(n, sizeof n, e->n ? "%llu" : "-", (unsigned long long)e->n);
		printf("%-16s %-8s %-24s %6s %7s %7s %7s %7s %7s\n", entry_label(e, cc, sizeof cc),
		       profile_auth_str(e->auth), e->variant, n, m, a, b, lo_s, hi_s);
	}
	unsigned derived = 0;
	for (size_t i = 0; i < p->n; i++)
		derived += p->e[i].derived_from != 0;
	if (derived)
		printf("* derived: the figures of another command (its comment says which and "
		       "why;\n  docs/profiles.md, \"Derived entries\"), not measured\n");
	/* The distribution, where the profile has it (from samples). */
	int any = 0;
	for (size_t i = 0; i < p->n; i++)
		any |= !isnan(p->e[i].p90_ms) || !isnan(p->e[i].p99_ms);
	if (!any)
		return 0;
	printf("\nquantiles (nearest rank over the n samples), ms\n");
	printf("%-16s %-8s %-24s %6s %7s %7s %7s %7s %7s\n", "command", "auth", "variant", "n",
	       "p50", "p90", "p95", "p99", "max");
	for (size_t i = 0; i < p->n; i++) {
		const struct prof_entry *e = &p->e[i];
		char q[5][32], n[24], cc[24];
		double qv[5] = {e->p50_ms, e->p90_ms, e->p95_ms, e->p99_ms, e->max_ms};
		if (isnan(e->p90_ms) && isnan(e->p99_ms))
			continue;
		for (int j = 0; j < 5; j++)
			fmt_ms(q[j], sizeof q[j], qv[j]);
		snprintf(n, sizeof n, e->n ? "%llu" : "-", (unsigned long long)e->n);
		printf("%-16s %-8s %-24s %6s %7s %7s %7s %7s %7s\n", entry_label(e, cc, sizeof cc),
		       profile_auth_str(e->auth), e->variant, n, q[0], q[1], q[2], q[3], q[4]);
	}
	return 0;
}

struct list_ctx {
	const char *where, *vendor; /* vendor: --vendor, or NULL */
	unsigned shown;
};

/* One profile's row: what it covers, how much of a boot, with what spread. */
static void list_cb(void *ctx, const struct profile *p)
{
	struct list_ctx *c = ctx;
	unsigned total, derived, boot = profile_boot_covered(p, &derived, &total);
	char b[24];
	if (!profile_vendor_is(p, c->vendor))
		return;
	c->shown++;
	if (derived)
		snprintf(b, sizeof b, "%u+%u/%u", boot - derived, derived, total);
	else
		snprintf(b, sizeof b, "%u/%u", boot, total);
	printf("%-30s %-8s %-6.6s %4u %4zu %4u  %-6s %5.0f%%  %.20s\n", p->name, c->where,
	       p->vendor ? p->vendor : "-", profile_commands(p), p->n, profile_derived(p), b,
	       100 * profile_spread_share(p), p->chip ? p->chip : "-");
}

static int act_import(const struct opts *o, struct profile *p)
{
	char err[1024];
	int rc;
	if (o->npos < 2 || o->npos > 3)
		return cli_usage_error(&subcmd_profile, "import needs FORMAT FILE [DB]");
	const char *fmt = o->pos[0], *file = o->pos[1], *dbpath = o->npos == 3 ? o->pos[2] : NULL;
	const char *const inputs[] = {file, dbpath, NULL};
	if (dbpath && (rc = cli_out_check("profile", dbpath, (const char *const[]){file, NULL})))
		return rc;
	if ((rc = cli_out_check("profile", "-", inputs))) /* 1<>FILE: no print onto it */
		return rc;
	rc = import_profile_file(fmt, file, p, err, sizeof err);
	if (rc == -ENOTSUP)
		return cli_usage_error(&subcmd_profile, "%s", err);
	if (rc)
		return cli_error("profile", "%s", err);
	return deliver(p, dbpath, o, inputs);
}

/* show and export: a profile by name or file. */
static int act_show_export(const struct opts *o, struct profile *p)
{
	const char *act = o->mode == M_SHOW ? "show" : "export", *from = "";
	char err[1024];
	sqlite3 *db;
	int rc;
	if (o->npos < 1 || o->npos > 2)
		return cli_usage_error(&subcmd_profile, "%s needs NAME|FILE [DB]", act);
	const char *const inputs[] = {o->pos[0], o->npos == 2 ? o->pos[1] : NULL, NULL};
	if (o->output && (rc = cli_out_check("profile", o->output, inputs)))
		return rc;
	if ((rc = open_optional(o->npos == 2 ? o->pos[1] : NULL, &db)))
		return rc;
	rc = profile_resolve(db, o->pos[0], p, &from, err, sizeof err);
	db_close(db);
	if (rc)
		return cli_error("profile", "%s", err);
	if (o->mode == M_SHOW)
		return show(p, from);
	if (o->output)
		return write_out(p, o->output, inputs);
	return profile_write(stdout, p) ? cli_error("profile", "write error") : 0;
}

static int act_list(const struct opts *o)
{
	char err[1024];
	sqlite3 *db = NULL;
	int rc;
	if (o->npos > 1)
		return cli_usage_error(&subcmd_profile, "list takes at most a DB");
	if (o->npos == 1 && (rc = open_optional(o->pos[0], &db)))
		return rc;
	struct list_ctx c = {"shipped", o->vendor, 0};
	printf("%-30s %-8s %-6s %4s %4s %4s  %-6s %6s  %s\n", "name", "where", "vendor", "cmds",
	       "ents", "drv", "boot", "spread", "chip");
	rc = 0;
	if (profile_builtin_list(list_cb, &c, err, sizeof err))
		rc = cli_error("profile", "%s", err);
	if (db) {
		c.where = "database";
		if (profile_db_list(db, list_cb, &c, err, sizeof err))
			rc = cli_error("profile", "%s: %s", o->pos[0], err);
		db_close(db);
	}
	if (!rc && o->vendor && !c.shown)
		rc = cli_error("profile", "no profile of vendor '%s' (the vendor column)",
			       o->vendor);
	return rc;
}

static int act_learn(const struct opts *o, struct profile *p)
{
	char err[1024];
	sqlite3 *db = NULL;
	int rc;
	if (o->npos != 1)
		return cli_usage_error(&subcmd_profile, "learn needs DB");
	const char *const inputs[] = {o->pos[0], NULL};
	if (o->output && (rc = cli_out_check("profile", o->output, inputs)))
		return rc;
	if (db_open(o->pos[0], DB_READ, &db, err, sizeof err))
		return cli_error("profile", "%s", err);
	int64_t id = cli_pick_trace("profile", db, o->trace);
	if (!id) {
		db_close(db);
		return 1;
	}
	rc = profile_learn(db, id, p, err, sizeof err);
	db_close(db);
	if (rc)
		return cli_error("profile", "%s: trace %lld: %s", o->pos[0], (long long)id, err);
	/* learn stores into the DB it read unless only --output was asked. */
	return deliver(p, o->output ? NULL : o->pos[0], o, inputs);
}

static int run(int argc, char **argv)
{
	struct opts o;
	struct profile p;
	int rc;

	if ((rc = parse_opts(argc, argv, &o)))
		return rc;
	profile_init(&p);
	if (o.mode == M_IMPORT)
		rc = act_import(&o, &p);
	else if (o.mode == M_EXPORT || o.mode == M_SHOW)
		rc = act_show_export(&o, &p);
	else if (o.mode == M_LIST)
		rc = act_list(&o);
	else
		rc = act_learn(&o, &p);
	profile_release(&p);
	return rc;
}
