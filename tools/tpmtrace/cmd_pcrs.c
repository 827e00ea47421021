/* tpmtrace pcrs: the PCR values a trace leaves behind, computed in software
 * from its stored command bytes (replayer/pcr_replay.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"
#include "recorder/import/log_reader.h"
#include "replayer/pcr_check.h"
#include "replayer/pcr_replay.h"

#define MAX_TRACES 16

enum { O_TRACE = 256, O_BANKS, O_BANK, O_PCRS, O_EXPECT, O_BA, O_JSON, O_OUTPUT = 'o' };
static const struct cli_opt opts[] = {
    {"trace", O_TRACE, "ID", CLI_TRACE | CLI_MULTI,
     "trace to replay: an id, latest or latest-replay\n"
     "(default: the newest recording or import);\n"
     "repeat to replay several into the same PCRs in the\n"
     "order given (e.g. the firmware log, then the IMA list)"},
    {"banks", O_BANKS, "LIST", 0, "banks to show, e.g. sha1,sha256 (default: those\nextended)",
     PCR_BANK_NAMES},
    {"bank", O_BANK, "LIST", CLI_HIDDEN, "the same as --banks"},
    {"pcrs", O_PCRS, "LIST", 0, "PCRs to show and compare, e.g. 0-9,14 (default 0-23)"},
    {"expect", O_EXPECT, "FILE", 0,
     "compare with tpm2_pcrread output, the pcrs: section of\n"
     "tpm2_eventlog, or tsspcrread text ('N: hex'); reports\n"
     "the matching PCRs and exits 1 on any mismatch",
     "@file"},
    {"boot-aggregate-from", O_BA, "ID", CLI_TRACE,
     "check the IMA boot_aggregate of the replayed trace(s)\n"
     "against the PCRs that firmware trace ID leaves:\n"
     "H(PCR 0-9) (Linux >= 5.8, non-SHA-1 bank) or\n"
     "H(PCR 0-7); exit 1 if neither matches"},
    {"json", O_JSON, NULL, 0, "one JSON object {\"version\":1,...} instead of text"},
    {"output", O_OUTPUT, "FILE", 0,
     "write the result to FILE (created 0600, replaced only\nwhen complete) instead of standard "
     "output",
     "@file"},
};
static const struct cli_form forms[] = {{0, "DB", NULL}};

static int run_pcrs(int argc, char **argv);

const struct subcommand subcmd_pcrs = {
    "pcrs",
    run_pcrs,
    "replay PCR extends in software",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Replays in software (OpenSSL) the PCR effect of a trace, recorded or imported:\n"
    "every TPM2_PCR_Extend, TPM2_PCR_Event, TPM2_PCR_Reset and TPM2_Startup(CLEAR)\n"
    "that the TPM answered with success, from the stored command bytes, in order.\n"
    "PCRs start at their reset values (PCR 17-22 all ones; PCR 0 = 3 or 4 after a\n"
    "Startup from locality 3 or 4). Prints PCR 0-23 of every bank the trace\n"
    "extended, in the format of tpm2_pcrread. A trace that extends no PCR is an\n"
    "error (unless --banks or --expect name the banks to show).\n",
    "Exit status: 0 ok (and everything compared matched), 1 mismatch or error,\n"
    "2 usage error.\n",
    "tpmtrace import tcglog binary_bios_measurements --db boot.db\n"
    "tpmtrace import ima binary_runtime_measurements --db boot.db\n"
    "tpmtrace pcrs boot.db --trace 1 --trace 2 --expect <(tpm2_pcrread)\n"
    "tpmtrace pcrs boot.db --trace 2 --boot-aggregate-from 1\n",
};

static int parse_pcr_list(const char *s, uint32_t *mask)
{
	*mask = 0;
	while (*s) {
		char *e;
		unsigned long a = strtoul(s, &e, 10), b = a;
		if (e == s)
			return -1;
		if (*e == '-') {
			s = e + 1;
			b = strtoul(s, &e, 10);
			if (e == s)
				return -1;
		}
		if (a > b || b >= PCR_COUNT)
			return -1;
		for (unsigned long i = a; i <= b; i++)
			*mask |= 1u << i;
		s = e;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return *mask ? 0 : -1;
}

static void print_mask(FILE *f, uint32_t m)
{
	int first = 1;
	for (unsigned i = 0; i < PCR_COUNT; i++) {
		if (!(m & (1u << i)))
			continue;
		unsigned j = i;
		while (j + 1 < PCR_COUNT && (m & (1u << (j + 1))))
			j++;
		fprintf(f, "%s%u", first ? "" : ",", i);
		if (j > i)
			fprintf(f, "-%u", j);
		first = 0;
		i = j;
	}
	if (first)
		fprintf(f, "none");
}

static int replay_all(sqlite3 *db, const int64_t *ids, unsigned n, struct pcr_sim *s,
		      struct pcr_replay_stats *st)
{
	char err[512];
	for (unsigned i = 0; i < n; i++) {
		int rc = rp_pcr_replay_trace(db, ids[i], s, st, err, sizeof err);
		if (rc)
			return cli_error("pcrs", "%s", err);
	}
	return 0;
}

struct pcrs_args {
	const char *trace_args[MAX_TRACES];
	unsigned n_ids, n_show;
	uint16_t show[PCR_MAX_BANKS];
	uint32_t mask;
	const char *expect_path, *dbpath, *ba_arg, *outpath;
	int json;
};

static int parse(int argc, char **argv, struct pcrs_args *a)
{
	struct cli_parse cp;
	char err[512];
	int key;

	memset(a, 0, sizeof *a);
	a->mask = (1u << PCR_COUNT) - 1;
	cli_parse_init(&cp, &subcmd_pcrs, argc, argv);
	while ((key = cli_next(&cp)) > 0) {
		switch (key) {
		case O_TRACE:
			if (a->n_ids == MAX_TRACES)
				return cli_usage_error(&subcmd_pcrs, "at most %d --trace",
						       MAX_TRACES);
			a->trace_args[a->n_ids++] = cp.arg;
			break;
		case O_BANK:
		case O_BANKS: {
			int n = pcr_alg_parse_list(cp.arg, a->show, PCR_MAX_BANKS, err, sizeof err);
			if (n < 0)
				return cli_usage_error(&subcmd_pcrs, "--banks: %s", err);
			a->n_show = (unsigned)n;
			break;
		}
		case O_PCRS:
			if (parse_pcr_list(cp.arg, &a->mask))
				return cli_usage_error(&subcmd_pcrs,
						       "bad --pcrs '%s' (e.g. 0-9,14)", cp.arg);
			break;
		case O_EXPECT:
			a->expect_path = cp.arg;
			break;
		case O_BA:
			a->ba_arg = cp.arg;
			break;
		case O_JSON:
			a->json = 1;
			break;
		case O_OUTPUT:
			a->outpath = cp.arg;
			break;
		}
	}
	if (key < 0)
		return EXIT_USAGE;
	return (a->dbpath = cli_db_operand(&cp)) ? 0 : EXIT_USAGE;
}

/* What the replay could not apply, on stderr. */
static void warn_stats(const struct pcr_replay_stats *st, const struct pcr_sim *sim, int json)
{
	if (st->no_bytes && !json)
		fprintf(stderr,
			"tpmtrace pcrs: warning: %llu PCR commands have no stored bytes "
			"(payloads=none); the values below are wrong\n",
			(unsigned long long)st->no_bytes);
	if (st->bad)
		fprintf(stderr, "tpmtrace pcrs: warning: %llu PCR commands do not parse\n",
			(unsigned long long)st->bad);
	if (st->no_rsp)
		fprintf(stderr,
			"tpmtrace pcrs: warning: %llu PCR commands have no recorded response; "
			"not applied\n",
			(unsigned long long)st->no_rsp);
	if (sim->ignored_pcr && !json) {
		/* Not silently: a PCR index a TPM does not have (0-23). */
		fprintf(stderr,
			"tpmtrace pcrs: warning: %llu PCR commands name an index beyond 23 (",
			(unsigned long long)sim->ignored_pcr);
		for (uint64_t i = 0; i < sim->ignored_pcr && i < 4; i++)
			fprintf(stderr, "%s%u", i ? ", " : "", sim->ignored_idx[i]);
		fprintf(stderr, "%s); a TPM has PCRs 0-23: not applied\n",
			sim->ignored_pcr > 4 ? ", ..." : "");
	}
}

/* The PCR values of the banks showb[0..ns-1] (JSON: the object's opening
 * members; it stays open for what follows). */
static void print_values(FILE *out, struct json_w *w, const struct pcrs_args *a, const int64_t *ids,
			 const struct pcr_replay_stats *st, const struct pcr_sim *sim,
			 const int *showb, unsigned ns)
{
	char hex[2 * PCR_MAX_DIGEST + 1];
	if (!w) {
		for (unsigned k = 0; k < ns; k++) {
			const struct pcr_sim_bank *b = &sim->bank[showb[k]];
			fprintf(out, "  %s:\n", b->a->name);
			for (unsigned p = 0; p < PCR_COUNT; p++) {
				if (!(a->mask & (1u << p)))
					continue;
				import_log_hex(hex, b->pcr[p], b->a->size);
				fprintf(out, "    %-2u: 0x%s\n", p, hex);
			}
		}
		return;
	}
	json_begin_object(w);
	json_kint(w, "version", 1);
	json_kstr(w, "db", a->dbpath);
	json_key(w, "traces");
	json_begin_array(w);
	for (unsigned i = 0; i < (a->n_ids ? a->n_ids : 1); i++)
		json_int(w, ids[i]); /* without --trace: the one picked by default */
	json_end_array(w);
	json_kuint(w, "commands", st->rows);
	json_kuint(w, "applied", st->applied);
	json_kuint(w, "failed", st->failed);
	json_kuint(w, "no_response", st->no_rsp);
	json_kuint(w, "no_bytes", st->no_bytes);
	json_kuint(w, "unparsable", st->bad);
	json_kuint(w, "beyond_pcr23", sim->ignored_pcr);
	json_key(w, "banks");
	json_begin_object(w);
	for (unsigned k = 0; k < ns; k++) {
		const struct pcr_sim_bank *b = &sim->bank[showb[k]];
		json_key(w, b->a->name);
		json_begin_object(w);
		for (unsigned p = 0; p < PCR_COUNT; p++) {
			if (!(a->mask & (1u << p)))
				continue;
			char key[12];
			snprintf(key, sizeof key, "%u", p);
			import_log_hex(hex, b->pcr[p], b->a->size);
			json_kstr(w, key, hex);
		}
		json_end_object(w);
	}
	json_end_object(w);
}

static void json_pcr_list(struct json_w *w, const char *key, uint32_t m)
{
	json_key(w, key);
	json_begin_array(w);
	for (unsigned p = 0; p < PCR_COUNT; p++)
		if (m & (1u << p))
			json_uint(w, p);
	json_end_array(w);
}

/* The comparison with --expect. */
static void print_expect(FILE *out, struct json_w *w, const struct pcrs_args *a,
			 const struct pcr_expect *ex, const struct pcr_sim *sim,
			 const struct pcr_expect_result *r)
{
	char hex[2 * PCR_MAX_DIGEST + 1];
	if (w) {
		json_key(w, "expect");
		json_begin_object(w);
		json_kstr(w, "file", a->expect_path);
		json_key(w, "banks");
		json_begin_object(w);
	}
	for (unsigned k = 0; k < ex->n_banks; k++) {
		const struct pcr_sim_bank *b = &sim->bank[r->bank[k]];
		uint32_t ok = r->ok[k], bad = r->bad[k];
		if (w) {
			json_key(w, b->a->name);
			json_begin_object(w);
			json_pcr_list(w, "match", ok);
			json_pcr_list(w, "mismatch", bad);
			json_end_object(w);
			continue;
		}
		fprintf(out, "expect %s: PCR ", b->a->name);
		print_mask(out, ok);
		fprintf(out, " match");
		if (bad) {
			fprintf(out, "; PCR ");
			print_mask(out, bad);
			fprintf(out, " differ");
		}
		fprintf(out, "\n");
		for (unsigned p = 0; p < PCR_COUNT; p++) {
			if (!(bad & (1u << p)))
				continue;
			import_log_hex(hex, ex->v[k][p], b->a->size);
			fprintf(out, "  %s PCR %u: expected 0x%s\n", b->a->name, p, hex);
			import_log_hex(hex, b->pcr[p], b->a->size);
			fprintf(out, "  %s PCR %u: replayed 0x%s\n", b->a->name, p, hex);
		}
	}
	if (w) {
		json_end_object(w);
		json_kuint(w, "compared", r->compared);
		json_kbool(w, "ok", !r->mismatch);
		json_end_object(w);
	} else
		fprintf(out, "expect: %u values compared, %s\n", r->compared,
			r->mismatch ? "MISMATCH" : "all match");
}

/* The boot_aggregate check against firmware trace from. */
static void print_boot_aggregate(FILE *out, struct json_w *w, int64_t from,
				 const struct pcr_ba_result *r)
{
	char hex[2 * PCR_MAX_DIGEST + 1];
	const struct pcr_alg *a = pcr_alg_by_id(r->alg);
	int which = r->which;
	import_log_hex(hex, r->want, a->size);
	if (w) {
		json_key(w, "boot_aggregate");
		json_begin_object(w);
		json_kint(w, "from", from);
		json_kstr(w, "bank", a->name);
		json_kstr(w, "value", hex);
		json_kbool(w, "match", which >= 0);
		json_kstr(w, "pcrs", which == 9 ? "0-9" : which == 7 ? "0-7" : "");
		json_end_object(w);
	} else if (which >= 0)
		fprintf(out, "boot_aggregate %s:%s = %s(PCR 0-%d of trace %lld): match%s\n",
			a->name, hex, a->name, which, (long long)from,
			which == 9 ? " (Linux >= 5.8 rule)" : "");
	else
		fprintf(out,
			"boot_aggregate %s:%s matches neither %s(PCR 0-9) nor %s(PCR 0-7) of "
			"trace %lld: MISMATCH\n",
			a->name, hex, a->name, a->name, (long long)from);
}

/* The traces to replay (default: db_trace_default's) and the
 * --boot-aggregate-from one. Returns 0, or 1 once the reason was printed. */
static int pick_traces(sqlite3 *db, const struct pcrs_args *a, int64_t *ids, unsigned *n_ids,
		       int64_t *ba_from)
{
	*n_ids = a->n_ids;
	if (!a->n_ids) {
		if (!(ids[0] = cli_pick_trace("pcrs", db, NULL)))
			return 1;
		*n_ids = 1;
	}
	for (unsigned i = 0; i < a->n_ids; i++)
		if (!(ids[i] = cli_pick_trace("pcrs", db, a->trace_args[i])))
			return 1;
	if (a->ba_arg && !(*ba_from = cli_pick_trace("pcrs", db, a->ba_arg)))
		return 1;
	return 0;
}

/* The banks to compute besides those extended: --banks, and the expected
 * ones (a TPM has them even if the trace never extends them: they hold reset
 * values then). Returns 0, or 1 once the reason was printed. */
static int add_banks(struct pcr_sim *sim, const struct pcrs_args *a, struct pcr_expect **ex)
{
	char err[512];
	for (unsigned i = 0; i < a->n_show; i++)
		if (pcr_sim_bank(sim, a->show[i]) < 0)
			return cli_error("pcrs", "bank %s cannot be computed here",
					 pcr_alg_by_id(a->show[i])->name);
	if (!a->expect_path)
		return 0;
	*ex = calloc(1, sizeof(**ex));
	if (!*ex || rp_pcr_expect_parse_file(a->expect_path, *ex, err, sizeof err) < 0)
		return cli_error("pcrs", "%s", *ex ? err : "out of memory");
	for (unsigned i = 0; i < (*ex)->n_banks; i++)
		pcr_sim_bank(sim, (*ex)->alg[i]);
	return 0;
}

static int run_pcrs(int argc, char **argv)
{
	struct pcrs_args a;
	int64_t ids[MAX_TRACES], ba_from = 0;
	unsigned n_ids = 0;
	int rc, mismatch = 0, showb[PCR_MAX_BANKS];
	char err[512];
	sqlite3 *db = NULL;
	struct pcr_sim sim, fw;
	struct pcr_replay_stats st = {0};
	struct pcr_expect *ex = NULL;
	struct db_out o = {0};
	FILE *out = stdout;

	if ((rc = parse(argc, argv, &a)))
		return rc;
	const char *const inputs[] = {a.dbpath, a.expect_path, NULL};
	if (a.outpath && (rc = cli_out_check("pcrs", a.outpath, inputs)))
		return rc;
	rc = 1;
	memset(&sim, 0, sizeof sim);
	memset(&fw, 0, sizeof fw);
	if (db_open(a.dbpath, DB_READ, &db, err, sizeof err))
		return cli_error("pcrs", "%s", err);
	if (pick_traces(db, &a, ids, &n_ids, &ba_from))
		goto out;
	int e = pcr_sim_init(&sim);
	if (e || (e = pcr_sim_init(&fw))) {
		cli_error("pcrs", "%s", pcr_sim_init_error(e));
		goto out;
	}
	if (add_banks(&sim, &a, &ex) || replay_all(db, ids, n_ids, &sim, &st))
		goto out;
	warn_stats(&st, &sim, a.json);
	/* Banks to show: as asked, else every bank extended (or expected). */
	unsigned ns = rp_pcr_banks_to_show(&sim, a.show, a.n_show, ex, showb);
	if (!ns) {
		if (sim.ignored_pcr)
			cli_error(
			    "pcrs",
			    "trace %lld extends no PCR 0-23 (its %llu PCR commands name indices "
			    "beyond 23)",
			    (long long)ids[n_ids - 1], (unsigned long long)sim.ignored_pcr);
		else
			cli_error(
			    "pcrs",
			    "trace %lld extends no PCR (no PCR_Extend or PCR_Event answered with "
			    "success)",
			    (long long)ids[n_ids - 1]);
		fputs("  nothing to show (--banks shows the reset values)\n", stderr);
		goto out;
	}
	if (a.outpath) {
		if ((rc = cli_out_open("pcrs", &o, a.outpath, inputs)))
			goto out;
		rc = 1;
		out = o.f;
	}
	struct json_w jw, *w = a.json ? &jw : NULL;
	json_init_file(&jw, out, JSON_COMPACT);
	print_values(out, w, &a, ids, &st, &sim, showb, ns);
	if (ex) {
		struct pcr_expect_result er;
		rp_pcr_expect_compare(&sim, ex, a.mask, &er);
		mismatch = er.mismatch;
		print_expect(out, w, &a, ex, &sim, &er);
	}
	if (ba_from) {
		struct pcr_ba_result bar;
		if (rp_pcr_boot_aggregate_check(db, ids, n_ids, ba_from, &fw, &bar, err,
						sizeof err)) {
			if (w) {
				json_end_object(w);
				json_newline(w);
			}
			cli_error("pcrs", "%s", err);
			goto out;
		}
		print_boot_aggregate(out, w, ba_from, &bar);
		if (bar.which < 0)
			mismatch = 1;
	}
	if (w) {
		json_end_object(w);
		json_newline(w);
	}
	rc = mismatch ? 1 : 0;
	if (w && json_done(w))
		rc = cli_error("pcrs", "the JSON output went wrong");
	if (a.outpath && cli_out_close("pcrs", &o, 1))
		rc = 1;
out:
	if (o.f)
		cli_out_close("pcrs", &o, 0);
	free(ex);
	pcr_sim_release(&sim);
	pcr_sim_release(&fw);
	db_close(db);
	return rc;
}
