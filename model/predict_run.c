/* One prediction and its JSON document (model/predict_run.h). */
#include "model/predict_run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "db/json.h"
#include "db/stats.h"
#include "db/text.h"
#include "db/trace_kind.h"
#include "model/policy.h"
#include "model/tpm/tpm_cc.h"

void predict_run_describe(struct predict_run *s, const char *dbpath, int64_t id, uint64_t n)
{
	char err[256];
	sqlite3_stmt *ev;
	long long nev = 0;
	if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM event WHERE trace_id=?", -1, &ev,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(ev, 1, id);
		if (sqlite3_step(ev) == SQLITE_ROW)
			nev = sqlite3_column_int64(ev, 0);
		sqlite3_finalize(ev);
	}
	/* tpmtrace's own commands are not predicted (db/stats.h): say how many */
	struct db_trace_summary fig;
	if (!db_trace_summary_load(s->db, id, &fig, err, sizeof err)) {
		s->own = fig.own;
		db_trace_summary_free(&fig);
	}
	s->untimed = db_trace_has_timing(s->db, id) == 0;
	snprintf(s->desc, sizeof s->desc, "%s trace %lld: %llu commands, %lld events", dbpath,
		 (long long)id, (unsigned long long)n, nev);
}

int predict_run_figures(struct predict_run *s, unsigned boots, uint64_t seed)
{
	s->boots = boots;
	s->seed = seed;
	for (unsigned k = 0; k < s->npol; k++) {
		if (predict_spread(s->pr, k, boots, seed, &s->spread[k]))
			return -ENOMEM;
		s->nrisk[k] = predict_timeouts(s->pr, k, s->risk[k], 8);
	}
	s->nwarn = predict_warnings(s->pr, s->warns, 32);
	return 0;
}

/* A JSON object key for command code cc: its name, or 0xHEX. */
static void json_cc_key(struct json_w *w, uint32_t cc)
{
	char hex[16];
	json_key(w, tpm_cc_label(cc, hex, sizeof hex));
}

static void json_policy(struct json_w *w, const struct predict_run *s, unsigned k)
{
	const struct predictor *pr = s->pr;
	const struct pred_result *r = &pr->r[k];
	struct pred_factors f;
	char spec[160];
	predict_factors(pr, k, s->base, &f);
	policy_spec(&r->pol, spec, sizeof spec);
	json_begin_object(w);
	json_kstr(w, "name", r->pol.name);
	json_kstr(w, "spec", spec);
	json_kuint(w, "commands", r->commands);
	json_key(w, "by_role");
	json_begin_object(w);
	for (int ro = 0; ro < POL_ROLE__COUNT; ro++)
		json_kuint(w, policy_role_str(ro), r->by_role[ro]);
	json_end_object(w);
	json_key(w, "by_command");
	json_begin_object(w);
	for (unsigned c = 0; c < r->n_cc; c++) {
		json_cc_key(w, r->by_cc[c].cc);
		json_uint(w, r->by_cc[c].n);
	}
	json_end_object(w);
	json_key(w, "tpm_ms_by_command");
	json_begin_object(w);
	for (unsigned c = 0; c < r->n_cc; c++) {
		json_cc_key(w, r->by_cc[c].cc);
		json_double(w, r->by_cc[c].tpm_ms, 6);
	}
	json_end_object(w);
	json_kdouble(w, "tpm_ms", r->tpm_ms, 6);
	/* A prediction mostly priced at the fallback has no known range. */
	double share = predict_fallback_share(pr, k);
	if (share > PREDICT_FALLBACK_WARN) {
		json_knull(w, "tpm_low_ms");
		json_knull(w, "tpm_high_ms");
	} else {
		json_kdouble(w, "tpm_low_ms", r->tpm_lo_ms, 6);
		json_kdouble(w, "tpm_high_ms", r->tpm_hi_ms, 6);
	}
	json_kdouble(w, "tpm_ms_without_spread", r->nospread_ms, 6);
	json_kdouble(w, "host_crypto_ms", r->host_ms, 6);
	if (s->untimed)
		json_knull(w, "total_ms");
	else
		json_kdouble(w, "total_ms", predict_total_ms(pr, k), 6);
	json_kdouble(w, "factor_vs_password", f.total_vs_base, 6);
	json_kdouble(w, "factor_vs_password_tpm", f.tpm_vs_base, 6);
	if (f.total_known)
		json_kdouble(w, "factor_vs_password_total", f.total_vs_base, 6);
	else
		json_knull(w, "factor_vs_password_total");
	if (f.have_rec) {
		json_kdouble(w, "factor_vs_recorded", f.total_vs_rec, 6);
		json_kdouble(w, "factor_vs_recorded_tpm", f.tpm_vs_rec, 6);
		json_kdouble(w, "factor_vs_recorded_total", f.total_vs_rec, 6);
	}
	json_kuint(w, "approximated", r->approx);
	json_kuint(w, "priced_at_fallback", r->missing);
	json_kdouble(w, "fallback_share", share, 6);
	json_kbool(w, "mostly_fallback", share > PREDICT_FALLBACK_WARN);
	json_kuint(w, "priced_derived", predict_derived(pr, k));
	json_kdouble(w, "derived_share", predict_derived_share(pr, k), 6);
	const struct pred_spread *sp = &s->spread[k];
	json_key(w, "tpm_sampled");
	json_begin_object(w);
	json_kuint(w, "boots", sp->runs);
	json_kuint(w, "seed", sp->seed);
	json_kdouble(w, "p50_ms", sp->p50_ms, 6);
	json_kdouble(w, "p95_ms", sp->p95_ms, 6);
	json_kdouble(w, "max_ms", sp->max_ms, 6);
	json_kdouble(w, "sampled_share", sp->sampled, 6);
	json_end_object(w);
	json_key(w, "timeout_risk");
	json_begin_array(w);
	for (unsigned j = 0; j < s->nrisk[k]; j++) {
		const struct pred_timeout *t = &s->risk[k][j];
		char cc[16];
		json_begin_object(w);
		json_kstr(w, "command", tpm_cc_label(t->cc, cc, sizeof cc));
		json_kstr(w, "auth", profile_auth_str(t->auth));
		json_kstr(w, "variant", t->e ? t->e->variant : NULL);
		json_kbool(w, "derived", t->e && t->e->derived_from);
		json_kuint(w, "count", t->count);
		json_kstr(w, "kernel", predict_kernel_name(t->kernel));
		json_kdouble(w, "timeout_ms", t->timeout_ms, 3);
		json_kdouble(w, "p_command", t->p_cmd, 6);
		json_kdouble(w, "p_boot", t->p_boot, 6);
		json_end_object(w);
	}
	json_end_array(w);
	json_end_object(w);
}

int predict_run_json(FILE *f, const struct predict_run *s)
{
	const struct predictor *pr = s->pr;
	const struct pred_host *h = &s->host;
	struct json_w w;
	json_init_file(&w, f, JSON_COMPACT);
	json_begin_object(&w);
	json_kint(&w, "version", 1);
	json_kstr(&w, "profile", s->prof.name);
	json_kstr(&w, "profile_from", s->from);
	json_kstr(&w, "profile_chosen", s->why[0] ? s->why : NULL);
	json_kstr(&w, "trace", s->desc);
	json_kuint(&w, "input_commands", pr->in_commands);
	json_kuint(&w, "hwrng_reads", pr->in_hwrng);
	json_kbool(&w, "timing", !s->untimed);
	if (s->untimed)
		json_knull(&w, "non_tpm_ms");
	else
		json_kdouble(&w, "non_tpm_ms", pr->gap_ms, 6);
	json_kbool(&w, "non_tpm_known", pr->gap_known);
	if (pr->recorded_n) {
		json_kdouble(&w, "recorded_tpm_ms", pr->recorded_tpm_ms, 6);
		json_kdouble(&w, "recorded_total_ms", pr->recorded_tpm_ms + pr->gap_ms, 6);
	}
	json_kstr(&w, "host_crypto",
		  h->measured ? "measured on this host" : "constant estimate, not measured");
	json_key(&w, "host_crypto_per_op_ms");
	json_begin_object(&w);
	json_kdouble(&w, "salt_ecc", h->salt_ecc, 6);
	json_kdouble(&w, "salt", h->salt, 6);
	json_kdouble(&w, "unsalted", h->unsalted, 6);
	json_kdouble(&w, "hmac", h->hmac, 6);
	json_kdouble(&w, "enc", h->enc, 6);
	json_kdouble(&w, "name", h->name, 6);
	json_end_object(&w);
	json_key(&w, "policies");
	json_begin_array(&w);
	for (unsigned k = 0; k < s->npol; k++)
		if (s->show[k])
			json_policy(&w, s, k);
	json_end_array(&w);
	json_key(&w, "warnings");
	json_begin_array(&w);
	for (unsigned j = 0; j < s->nwarn; j++)
		json_str(&w, s->warns[j]);
	json_end_array(&w);
	json_end_object(&w);
	json_newline(&w);
	return json_done(&w);
}

/* The TPM range, or "-" when most of the time is priced at the fallback:
 * the profile's spread says nothing about a guess. */
static void range_str(char *b, size_t n, const struct predict_run *s, unsigned k)
{
	const struct pred_result *r = &s->pr->r[k];
	char d[32], e[32];
	if (predict_fallback_share(s->pr, k) > PREDICT_FALLBACK_WARN) {
		snprintf(b, n, "-");
		return;
	}
	predict_fmt_time(d, sizeof d, r->tpm_lo_ms);
	predict_fmt_time(e, sizeof e, r->tpm_hi_ms);
	/* a range only where the entries have spread; else the one figure */
	if (!strcmp(d, e))
		snprintf(b, n, "%s", d);
	else
		snprintf(b, n, "%s..%s", d, e);
}

/* What the range and the figures rest on: the share without spread data,
 * the share priced at the fallback. */
static void notes_str(char *b, size_t n, const struct predict_run *s, unsigned k)
{
	const struct pred_result *r = &s->pr->r[k];
	size_t len = 0;
	b[0] = 0;
	if (r->tpm_ms > 0 && r->nospread_ms / r->tpm_ms > 0.005)
		len += (size_t)snprintf(b, n, " no spread data for %.0f%%",
					100 * r->nospread_ms / r->tpm_ms);
	double share = predict_fallback_share(s->pr, k);
	if (share > PREDICT_FALLBACK_WARN && len < n)
		snprintf(b + len, n - len, "%s MOSTLY FALLBACK (%.0f%%)", len ? ";" : "",
			 100 * share);
}

/* A factor in 5 columns: 2 decimals below 100, fewer above. */
static void factor5(char *b, size_t n, double x)
{
	snprintf(b, n, x < 99.995 ? "%.2f" : x < 999.95 ? "%.1f" : "%.0f", x);
}

static void text_policy(FILE *f, const struct predict_run *s, unsigned k, int wide)
{
	const struct pred_result *r = &s->pr->r[k];
	struct pred_factors fa;
	char a[32], b[32], c[32], ft[16], fr[48], rg[80], nt[160];
	double tot = predict_total_ms(s->pr, k);
	predict_factors(s->pr, k, s->base, &fa);
	predict_fmt_time(a, sizeof a, r->tpm_ms);
	predict_fmt_time(b, sizeof b, r->host_ms);
	if (s->untimed)
		snprintf(c, sizeof c, "-");
	else
		predict_fmt_time(c, sizeof c, tot);
	range_str(rg, sizeof rg, s, k);
	notes_str(nt, sizeof nt, s, k);
	if (fa.total_known)
		snprintf(ft, sizeof ft, "%.2f", fa.total_vs_base);
	else
		snprintf(ft, sizeof ft, "-");
	uint64_t setup = r->by_role[POL_ROLE_NULLKEY_INIT] + r->by_role[POL_ROLE_SESSION_SETUP] +
			 r->by_role[POL_ROLE_SESSION_END] + r->by_role[POL_ROLE_NAME_LOOKUP];
	if (wide) {
		if (fa.have_rec)
			snprintf(fr, sizeof fr, " %8.2f %8.2f", fa.tpm_vs_rec, fa.total_vs_rec);
		else
			fr[0] = 0;
		fprintf(f, "%-30.30s %10llu %9llu %12s %11s %12s %8.2f %8s%s  %s%s%s%s\n",
			r->pol.name, (unsigned long long)r->commands, (unsigned long long)setup, a,
			b, c, fa.tpm_vs_base, ft, fr, rg, nt[0] ? " (" : "", nt[0] ? nt + 1 : "",
			nt[0] ? ")" : "");
		return;
	}
	char f1[16], f3[16], f4[16];
	factor5(f1, sizeof f1, fa.tpm_vs_base);
	if (fa.total_known)
		factor5(ft, sizeof ft, fa.total_vs_base);
	if (fa.have_rec) {
		factor5(f3, sizeof f3, fa.tpm_vs_rec);
		factor5(f4, sizeof f4, fa.total_vs_rec);
		snprintf(fr, sizeof fr, " %5s %5s", f3, f4);
	} else {
		fr[0] = 0;
	}
	fprintf(f, "%-27.27s %8llu %5llu %9s %9s %9s %5s %5s%s\n", r->pol.name,
		(unsigned long long)r->commands, (unsigned long long)setup, a, b, c, f1, ft, fr);
}

/* The TPM range and its notes, one line per policy (fits 100 columns). */
static void text_ranges(FILE *f, const struct predict_run *s)
{
	fprintf(f, "\n%-27s %-20s %s\n", "TPM range", "(low..high)", "notes");
	for (unsigned k = 0; k < s->npol; k++) {
		char rg[80], nt[160];
		if (!s->show[k])
			continue;
		range_str(rg, sizeof rg, s, k);
		notes_str(nt, sizeof nt, s, k);
		fprintf(f, "%-27.27s %-20s%s\n", s->pr->r[k].pol.name, rg, nt);
	}
}

/* The TPM time's spread over sampled boots, one line per policy, and the
 * commands whose tail outlasts the kernel's timeout for them. */
static void text_spread(FILE *f, const struct predict_run *s)
{
	char a[32], b[32], c[32], t[512];
	fprintf(f, "\nTPM time over %u sampled boots (seed %llu)   %9s %9s %9s  %s\n", s->boots,
		(unsigned long long)s->seed, "p50", "p95", "max", "sampled");
	for (unsigned k = 0; k < s->npol; k++) {
		const struct pred_spread *sp = &s->spread[k];
		if (!s->show[k])
			continue;
		predict_fmt_time(a, sizeof a, sp->p50_ms);
		predict_fmt_time(b, sizeof b, sp->p95_ms);
		predict_fmt_time(c, sizeof c, sp->max_ms);
		fprintf(f, "  %-42.42s %9s %9s %9s  %5.0f%%\n", s->pr->r[k].pol.name, a, b, c,
			100 * sp->sampled);
	}
	for (unsigned k = 0; k < s->npol; k++) {
		if (!s->show[k])
			continue;
		for (unsigned j = 0; j < s->nrisk[k]; j++) {
			const struct pred_timeout *r = &s->risk[k][j];
			char cc[16];
			predict_fmt_time(a, sizeof a, r->timeout_ms);
			snprintf(
			    t, sizeof t,
			    "%s: %s %s x%llu%s: %.2g%% of them take over %s, the timeout of %s; "
			    "%.2g%% of boots",
			    s->pr->r[k].pol.name, tpm_cc_label(r->cc, cc, sizeof cc),
			    r->e ? r->e->variant : "(fallback)", (unsigned long long)r->count,
			    r->e && r->e->derived_from ? " (derived)" : "", 100 * r->p_cmd, a,
			    predict_kernel_name(r->kernel), 100 * r->p_boot);
			db_text_wrap(f, "timeout risk: ", 2, t, strlen(t), DB_TEXT_WIDTH);
		}
	}
}

/* Commands priced from derived entries: said, they are not measured. */
static void derived_note(FILE *f, const struct predict_run *s)
{
	uint64_t most = 0;
	double share = 0;
	for (unsigned k = 0; k < s->npol; k++) {
		if (!s->show[k])
			continue;
		uint64_t n = predict_derived(s->pr, k);
		double sh = predict_derived_share(s->pr, k);
		most = n > most ? n : most;
		share = sh > share ? sh : share;
	}
	if (!most)
		return;
	char t[300];
	snprintf(t, sizeof t,
		 "up to %llu command%s per policy priced from derived entries, up to %.0f%% of the "
		 "TPM time (another command's figures, not measured: 'profile show' marks them *; "
		 "docs/profiles.md)",
		 (unsigned long long)most, most == 1 ? "" : "s", 100 * share);
	db_text_wrap(f, "derived: ", 2, t, strlen(t), DB_TEXT_WIDTH);
}

/* The kernel's TPM hwrng reads on its own clock, not the workload's: a
 * policy that lengthens the boot gets more of its reads (and their sessions)
 * than the trace holds. Said where a shown policy wraps them in sessions. */
static void hwrng_note(FILE *f, const struct predict_run *s)
{
	int wraps = 0;
	for (unsigned k = 0; k < s->npol; k++)
		if (s->show[k] && s->pols[k].mode == POL_MODE_SESSIONS && !s->pols[k].hwrng_off)
			wraps = 1;
	if (!s->pr->in_hwrng || !wraps)
		return;
	char t[400];
	snprintf(t, sizeof t,
		 "%llu read%s of the kernel's TPM hwrng, priced where the trace has them; the "
		 "kernel reads on its own clock (every max(1 s, uptime/2) in its first 30 s), so "
		 "a boot a policy lengthens reads more, each with its session: not counted here "
		 "(hwrng=off leaves them out)",
		 (unsigned long long)s->pr->in_hwrng, s->pr->in_hwrng == 1 ? "" : "s");
	db_text_wrap(f, "hwrng: ", 2, t, strlen(t), DB_TEXT_WIDTH);
}

void predict_run_text(FILE *f, const struct predict_run *s, int wide)
{
	const struct predictor *pr = s->pr;
	const struct pred_host *h = &s->host;
	char a[32], b[32];
	fprintf(f, "profile: %s (%s)%s%s\n", s->prof.name, s->from, s->prof.chip ? ", " : "",
		s->prof.chip ? s->prof.chip : "");
	if (s->why[0])
		db_text_wrap(f, "         ", 9, s->why, strlen(s->why), DB_TEXT_WIDTH);
	/* 100 columns whatever the path (escaped: a name from the command line) */
	char desc[1100];
	db_text_safe(s->desc, desc, sizeof desc);
	db_text_wrap(f, "trace:   ", 9, desc, strlen(desc), DB_TEXT_WIDTH);
	if (s->own)
		fprintf(f, "         (and %lld commands tpmtrace sent itself, left out)\n",
			(long long)s->own);
	predict_fmt_time(a, sizeof a, pr->gap_ms);
	if (s->untimed)
		fprintf(
		    f,
		    "no timing in this trace: TPM time priced from the profile, no gaps, no boot "
		    "total\n");
	else if (pr->gap_known)
		fprintf(f, "non-TPM time (gaps between commands): %s\n", a);
	else
		fprintf(f,
			"non-TPM time: unknown (--gap-ms gives it): totals are TPM time and host\n"
			"crypto only, x passwd on totals is not given\n");
	if (pr->recorded_n) {
		predict_fmt_time(a, sizeof a, pr->recorded_tpm_ms);
		predict_fmt_time(b, sizeof b, pr->recorded_tpm_ms + pr->gap_ms);
		fprintf(f, "recorded: TPM time %s, total %s\n", a, b);
	}
	hwrng_note(f, s);
	derived_note(f, s);
	fprintf(f,
		"host crypto: %s: salted session %.1f us,\n  unsalted %.1f us, HMAC per command "
		"%.1f us, parameter encryption +%.1f us, Name %.1f us\n\n",
		h->measured ? "measured on this host (tpmtrace's session code)"
			    : "constant estimate, not measured (model/predict.h)",
		h->salt_ecc * 1e3, h->unsalted * 1e3, h->hmac * 1e3, h->enc * 1e3, h->name * 1e3);
	if (wide) {
		fprintf(f, "%-30s %10s %9s %12s %11s %12s %17s%s\n", "", "", "", "", "", "",
			"x password", pr->recorded_n ? "        x recorded" : "");
		fprintf(f, "%-30s %10s %9s %12s %11s %12s %8s %8s", "policy", "commands", "setup",
			"TPM time", "host crypto", "total", "TPM", "total");
		if (pr->recorded_n)
			fprintf(f, " %8s %8s", "TPM", "total");
		fprintf(f, "  TPM range (low..high)\n");
	} else {
		fprintf(f, "%-27s %8s %5s %9s %9s %9s %11s%s\n", "", "", "", "", "", "",
			"x password", pr->recorded_n ? "  x recorded" : "");
		fprintf(f, "%-27s %8s %5s %9s %9s %9s %5s %5s", "policy", "commands", "setup",
			"TPM time", "host", "total", "TPM", "total");
		if (pr->recorded_n)
			fprintf(f, " %5s %5s", "TPM", "total");
		fprintf(f, "\n");
	}
	for (unsigned k = 0; k < s->npol; k++)
		if (s->show[k])
			text_policy(f, s, k, wide);
	if (!wide)
		text_ranges(f, s);
	text_spread(f, s);
	fprintf(f, "\ncommands sent per policy:\n");
	for (unsigned k = 0; k < s->npol; k++) {
		const struct pred_result *r = &pr->r[k];
		if (!s->show[k])
			continue;
		int col = fprintf(f, "  %-27.27s", r->pol.name);
		unsigned j = 0;
		for (; j < r->n_cc && (wide ? j < 8 : 1); j++) {
			const char *nm =
			    tpm_cc_name(r->by_cc[j].cc) ? tpm_cc_name(r->by_cc[j].cc) : "?";
			char item[64];
			int w = snprintf(item, sizeof item, " %s %llu", nm,
					 (unsigned long long)r->by_cc[j].n);
			if (!wide && col + w > 96)
				break;
			col += fprintf(f, "%s", item);
		}
		if (j < r->n_cc)
			fprintf(f, " ...");
		fprintf(f, "\n");
	}
}

/* The warnings: each with -v (or when there are at most 3), else one line
 * that counts them and names the commands priced at the fallback. */
void predict_run_warnings(FILE *f, const struct predict_run *s, int verbose)
{
	if (verbose || s->nwarn <= 3) {
		for (unsigned j = 0; j < s->nwarn; j++)
			db_text_wrap(f, "tpmtrace predict: warning: ", 2, s->warns[j],
				     strlen(s->warns[j]), DB_TEXT_WIDTH);
		return;
	}
	unsigned lacks = 0;
	int more = 0;
	char names[200] = "";
	size_t len = 0;
	for (unsigned j = 0; j < s->nwarn; j++) {
		const char *l = strstr(s->warns[j], " lacks ");
		if (!l)
			continue;
		lacks++;
		l += 7;
		size_t nl = strcspn(l, " (:");
		char nm[64];
		snprintf(nm, sizeof nm, "%.*s", (int)(nl < 63 ? nl : 63), l);
		if (strstr(names, nm))
			continue;
		if (len + nl + 6 >= sizeof names || len + nl + strlen(s->prof.name) > 52) {
			more = 1;
			continue;
		}
		len +=
		    (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", nm);
	}
	if (lacks)
		fprintf(
		    f,
		    "tpmtrace predict: warning: profile %s lacks %s%s\n"
		    "  (%u command forms, priced at its fallback); %u more priced from another\n"
		    "  variant or authorization (-v: each)\n",
		    s->prof.name, names, more ? ", ..." : "", lacks, s->nwarn - lacks);
	else
		fprintf(
		    f,
		    "tpmtrace predict: warning: profile %s: %u command forms priced from another "
		    "variant or\n  authorization (-v: each)\n",
		    s->prof.name, s->nwarn);
}
