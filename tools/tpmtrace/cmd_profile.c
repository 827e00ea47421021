/* tpmtrace profile: import, export, list, show and learn latency profiles. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "db/db.h"
#include "model/profile.h"
#include "model/tpm_cc.h"

static const char usage[] =
    "usage: tpmtrace profile import FORMAT FILE [DB] [--name NAME] [--output OUT] [--replace]\n"
    "       tpmtrace profile export NAME|FILE [DB] [--output OUT]\n"
    "       tpmtrace profile show NAME|FILE [DB]\n"
    "       tpmtrace profile list [DB]\n"
    "       tpmtrace profile learn DB [--trace ID] [--name NAME] [--output OUT] [--replace]\n"
    "\n"
    "Latency profiles: what each TPM command costs on one TPM, per authorization kind\n"
    "(none, password, hmac, hmac+enc, policy, policy+enc) and key or session variant,\n"
    "with provenance and what the profile covers and lacks (docs/profiles.md).\n"
    "\n"
    "  import FORMAT FILE  read FILE; FORMAT is one of\n"
    "                        profile  the readable text format (as written by export)\n"
    "                        ftrace   function_graph output of the kernel's tpm functions\n"
    "                                 (tpm_transmit_cmd durations inside tpm2_* calls)\n"
    "                        tpmscan  tpm2-algtest / TPMScan performance.yaml\n"
    "                      then store it in DB (created if missing) and/or write it to\n"
    "                      --output; with neither, print it. Nothing is written on error.\n"
    "  export NAME|FILE    print a profile in the text format (or write --output).\n"
    "  show NAME|FILE      provenance and a table of entries with the low/high figures\n"
    "                      predict uses for its uncertainty range.\n"
    "  list [DB]           the shipped profiles and those stored in DB.\n"
    "  learn DB            build a profile from a recorded trace's latencies (per command\n"
    "                      code and authorization kind: n, mean, p50, p95, stdev, min, max)\n"
    "                      and store it in DB (or write --output).\n"
    "\n"
    "NAME is looked up as a file (contains '/' or ends in .profile), then in DB, then\n"
    "among the shipped profiles.\n"
    "\n"
    "Options:\n"
    "  --name NAME     name to store the profile under (default: from the source)\n"
    "  --output OUT    write the text format to OUT (0600, replaced atomically)\n"
    "  --replace       replace a stored profile of the same name\n"
    "  --trace ID      learn from trace ID (default: the newest trace)\n"
    "  -h, --help      this text\n"
    "\n"
    "Examples:\n"
    "  tpmtrace profile list\n"
    "  tpmtrace profile show slb9670-linux-integrity\n"
    "  tpmtrace profile import tpmscan IFX_7.85.17.51968_08836af27dda9f32.performance.yaml "
    "boot.db\n"
    "  tpmtrace profile import ftrace pcr_extend.trace --output slb9670.profile\n"
    "  tpmtrace profile learn boot.db --trace 3 --name my-laptop\n";

static int run(int argc, char **argv);
const struct subcommand subcmd_profile = {"profile", run,
					  "latency profiles: import, export, "
					  "list, show, learn",
					  usage};

struct opts {
	const char *pos[4];
	int npos;
	const char *name, *output, *trace;
	int replace;
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof *o);
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char **dst = !strcmp(a, "--name")	    ? &o->name
				   : !strcmp(a, "--output") ? &o->output
				   : !strcmp(a, "-o")	    ? &o->output
				   : !strcmp(a, "--trace")  ? &o->trace
							    : NULL;
		if (dst) {
			if (i + 1 >= argc)
				return usage_error(&subcmd_profile, "%s needs a value", a);
			*dst = argv[++i];
		} else if (!strcmp(a, "--replace")) {
			o->replace = 1;
		} else if (a[0] == '-' && a[1]) {
			return usage_error(&subcmd_profile, "unknown option '%s'", a);
		} else if (o->npos < 4) {
			o->pos[o->npos++] = a;
		} else {
			return usage_error(&subcmd_profile, "too many arguments");
		}
	}
	return 0;
}

/* Stores and/or writes p; prints it when neither is asked for. */
static int deliver(struct profile *p, const char *dbpath, const struct opts *o)
{
	char err[512];
	sqlite3 *db = NULL;
	int rc;
	if (o->name && profile_set(p, "name", o->name))
		return die("profile", "out of memory");
	if (!dbpath && !o->output)
		return profile_write(stdout, p) ? die("profile", "write error") : 0;
	if (dbpath) {
		if ((rc = db_open(dbpath, DB_CREATE, &db, err, sizeof err)))
			return die("profile", "%s", err);
		rc = profile_db_store(db, p, o->replace, err, sizeof err);
		db_close(db);
		if (rc)
			return die("profile", "%s: %s", dbpath, err);
		fprintf(stderr, "stored profile '%s' (%zu entries) in %s\n", p->name, p->n, dbpath);
	}
	if (o->output) {
		if (profile_save_file(o->output, p, err, sizeof err))
			return die("profile", "%s", err);
		fprintf(stderr, "wrote profile '%s' (%zu entries) to %s\n", p->name, p->n,
			o->output);
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
		return die("profile", "%s", err);
	return 0;
}

static void fmt_ms(char *b, size_t l, double v)
{
	if (isnan(v))
		snprintf(b, l, "-");
	else
		snprintf(b, l, "%.3f", v);
}

static int show(const struct profile *p, const char *from)
{
	printf("profile %s (%s)\n", p->name, from);
	const char *k[] = {"vendor",	  "chip", "firmware", "bus",
			   "measured-by", "date", "covers",   "lacks"};
	const char *v[] = {p->vendor,	   p->chip, p->firmware, p->bus,
			   p->measured_by, p->date, p->covers,	 p->lacks};
	for (int i = 0; i < 8; i++)
		if (v[i])
			printf("  %-12s %s\n", k[i], v[i]);
	for (const char *s = p->source; s && *s;) {
		size_t l = strcspn(s, "\n");
		printf("  %-12s %.*s\n", "source", (int)l, s);
		s += l + (s[l] != 0);
	}
	for (const char *s = p->note; s && *s;) {
		size_t l = strcspn(s, "\n");
		printf("  %-12s %.*s\n", "note", (int)l, s);
		s += l + (s[l] != 0);
	}
	printf("  %-12s %g ms per command\n", "transport", p->transport_ms);
	printf("  %-12s %g ms (%s)\n", "fallback", profile_fallback(p),
	       isnan(p->fallback_ms) ? "median of the entries" : "fallback-ms");
	printf("\n%-20s %-10s %-22s %7s %10s %10s %10s %10s %10s\n", "command", "auth", "variant",
	       "n", "mean ms", "p50", "p95", "low", "high");
	for (size_t i = 0; i < p->n; i++) {
		const struct prof_entry *e = &p->e[i];
		char m[32], a[32], b[32], lo_s[32], hi_s[32], n[24], cc[16];
		double lo, hi;
		int spread = prof_entry_range(e, &lo, &hi);
		fmt_ms(m, sizeof m, e->mean_ms);
		fmt_ms(a, sizeof a, e->p50_ms);
		fmt_ms(b, sizeof b, e->p95_ms);
		fmt_ms(lo_s, sizeof lo_s, spread ? lo : NAN);
		fmt_ms(hi_s, sizeof hi_s, spread ? hi : NAN);
		snprintf(n, sizeof n, e->n ? "%llu" : "-", (unsigned long long)e->n);
		snprintf(cc, sizeof cc, "0x%08X", e->cc);
		printf("%-20s %-10s %-22s %7s %10s %10s %10s %10s %10s\n",
		       tpm_cc_name(e->cc) ? tpm_cc_name(e->cc) : cc, prof_auth_str(e->auth),
		       e->variant, n, m, a, b, lo_s, hi_s);
	}
	return 0;
}

static void list_cb(void *ctx, const char *name, const char *chip, const char *source,
		    int64_t entries)
{
	size_t l = source ? strcspn(source, "\n") : 0;
	printf("%-34s %-10s %4lld  %-16s %.*s\n", name, (const char *)ctx, (long long)entries,
	       chip ? chip : "-", (int)(l > 60 ? 60 : l), source ? source : "");
}

static int run(int argc, char **argv)
{
	struct opts o;
	struct profile p;
	char err[1024];
	const char *from = "";
	sqlite3 *db = NULL;
	int rc;

	if (argc < 2)
		return usage_error(&subcmd_profile, "missing action (import, export, show, list, "
						    "learn)");
	if ((rc = parse_opts(argc, argv, &o)))
		return rc;
	profile_init(&p);
	const char *act = argv[1];
	if (!strcmp(act, "import")) {
		if (o.npos < 2 || o.npos > 3)
			return usage_error(&subcmd_profile, "import needs FORMAT FILE [DB]");
		const char *fmt = o.pos[0], *file = o.pos[1];
		if (!strcmp(fmt, "profile"))
			rc = profile_load_file(file, &p, err, sizeof err);
		else if (!strcmp(fmt, "ftrace"))
			rc = profile_import_ftrace(file, &p, err, sizeof err);
		else if (!strcmp(fmt, "tpmscan"))
			rc = profile_import_tpmscan(file, &p, err, sizeof err);
		else
			return usage_error(&subcmd_profile,
					   "unknown format '%s' (profile, ftrace, tpmscan)", fmt);
		if (rc)
			return die("profile", "%s", err);
		rc = deliver(&p, o.npos == 3 ? o.pos[2] : NULL, &o);
	} else if (!strcmp(act, "export") || !strcmp(act, "show")) {
		if (o.npos < 1 || o.npos > 2)
			return usage_error(&subcmd_profile, "%s needs NAME|FILE [DB]", act);
		if ((rc = open_optional(o.npos == 2 ? o.pos[1] : NULL, &db)))
			return rc;
		rc = profile_resolve(db, o.pos[0], &p, &from, err, sizeof err);
		db_close(db);
		if (rc)
			return die("profile", "%s", err);
		if (act[0] == 's') {
			rc = show(&p, from);
		} else if (o.output) {
			rc = profile_save_file(o.output, &p, err, sizeof err)
				 ? die("profile", "%s", err)
				 : 0;
		} else {
			rc = profile_write(stdout, &p) ? die("profile", "write error") : 0;
		}
	} else if (!strcmp(act, "list")) {
		char buf[128];
		if (o.npos > 1)
			return usage_error(&subcmd_profile, "list takes at most a DB");
		printf("%-34s %-10s %4s  %-16s %s\n", "name", "where", "cmds", "chip", "source");
		for (unsigned i = 0; i < profile_builtin_count(); i++) {
			struct profile b;
			profile_builtin_name(i, buf, sizeof buf);
			if (profile_load_builtin(buf, &b, err, sizeof err)) {
				rc = die("profile", "%s", err);
				continue;
			}
			list_cb("shipped", b.name, b.chip, b.source, (int64_t)b.n);
			profile_release(&b);
		}
		if (o.npos == 1) {
			if ((rc = open_optional(o.pos[0], &db)))
				return rc;
			if (profile_db_list(db, list_cb, "database", err, sizeof err))
				rc = die("profile", "%s: %s", o.pos[0], err);
			db_close(db);
		}
	} else if (!strcmp(act, "learn")) {
		if (o.npos != 1)
			return usage_error(&subcmd_profile, "learn needs DB");
		if (db_open(o.pos[0], DB_READ, &db, err, sizeof err))
			return die("profile", "%s", err);
		int64_t id = o.trace ? strtoll(o.trace, NULL, 10) : db_last_trace(db);
		if (id <= 0) {
			db_close(db);
			return die("profile", "%s: no trace to learn from%s", o.pos[0],
				   o.trace ? " (bad --trace)" : "");
		}
		rc = profile_learn(db, id, &p, err, sizeof err);
		db_close(db);
		if (rc)
			return die("profile", "%s: %s", o.pos[0], err);
		/* learn stores into the DB it read unless only --output was asked. */
		struct opts o2 = o;
		rc = deliver(&p, o.output ? NULL : o.pos[0], &o2);
	} else {
		return usage_error(&subcmd_profile, "unknown action '%s'", act);
	}
	profile_release(&p);
	return rc;
}
