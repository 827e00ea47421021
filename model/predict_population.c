/* A prediction on a population of TPMs (model/predict_population.h). */
#include "model/predict_population.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db/json.h"
#include "model/policy.h"
#include "model/trace_stream.h"

int predict_population_init(struct pred_population *pp, const char *vendor,
			    const struct policy *pols, unsigned npol, const struct pred_host *host,
			    char *err, size_t errlen)
{
	memset(pp, 0, sizeof *pp);
	unsigned cap = profile_builtin_count();
	pp->prof = calloc(cap ? cap : 1, sizeof *pp->prof);
	pp->pr = calloc(cap ? cap : 1, sizeof *pp->pr);
	if (!pp->prof || !pp->pr) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < cap; i++) {
		char name[128], why[1024];
		struct profile *q = &pp->prof[pp->n];
		profile_builtin_name(i, name, sizeof name);
		if (profile_load_builtin(name, q, why, sizeof why)) {
			snprintf(err, errlen, "shipped profile %s: %s", name, why);
			return -EINVAL;
		}
		if (!profile_vendor_is(q, vendor)) {
			profile_release(q);
			continue;
		}
		pp->n++;
	}
	if (!pp->n) {
		snprintf(err, errlen, "no shipped profile of vendor '%s'", vendor ? vendor : "");
		return -ENOENT;
	}
	for (unsigned i = 0; i < pp->n; i++) {
		if (!(pp->pr[i] = malloc(sizeof *pp->pr[i])) ||
		    predict_init(pp->pr[i], &pp->prof[i], pols, npol)) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		if (host)
			predict_set_host(pp->pr[i], host);
	}
	return 0;
}

static int fan_cmd(void *ctx, const struct pol_cmd *c, uint64_t ts, uint64_t td, int64_t lat)
{
	struct pred_population *pp = ctx;
	for (unsigned i = 0; i < pp->n; i++) {
		int rc = predict_cmd(pp->pr[i], c, ts, td, lat);
		if (rc)
			return rc;
	}
	return 0;
}

static int fan_event(void *ctx, const char *kind, const char *detail)
{
	struct pred_population *pp = ctx;
	int ev = policy_event_from_kind(kind);
	(void)detail;
	for (unsigned i = 0; ev && i < pp->n; i++) {
		int rc = predict_event(pp->pr[i], (enum pol_event)ev);
		if (rc)
			return rc;
	}
	return 0;
}

int predict_population_trace(struct pred_population *pp, sqlite3 *db, int64_t trace_id,
			     uint64_t *n_cmds, char *err, size_t errlen)
{
	static const struct trace_stream_ops ops = {fan_cmd, fan_event};
	int rc = trace_stream(db, trace_id, &ops, pp, n_cmds, err, errlen);
	for (unsigned i = 0; !rc && i < pp->n; i++)
		predict_finish(pp->pr[i]);
	return rc;
}

int predict_population_synthetic(struct pred_population *pp, const char *spec, double gap_ms,
				 char *desc, size_t dlen, char *err, size_t errlen)
{
	for (unsigned i = 0; i < pp->n; i++) {
		int rc = predict_synthetic(pp->pr[i], spec, gap_ms, desc, dlen, err, errlen);
		if (rc)
			return rc;
		predict_finish(pp->pr[i]);
	}
	return 0;
}

void predict_population_free(struct pred_population *pp)
{
	for (unsigned i = 0; i < pp->n; i++) {
		free(pp->pr ? pp->pr[i] : NULL);
		profile_release(&pp->prof[i]);
	}
	free(pp->pr);
	free(pp->prof);
	memset(pp, 0, sizeof *pp);
}

static int cmp_row(const void *a, const void *b)
{
	const struct pred_pop_row *x = a, *y = b;
	if (x->sp.p50_ms != y->sp.p50_ms)
		return x->sp.p50_ms < y->sp.p50_ms ? -1 : 1;
	return strcmp(x->prof->name, y->prof->name);
}

int predict_population_rows(const struct pred_population *pp, unsigned k, unsigned boots,
			    uint64_t seed, struct pred_pop_row *rows)
{
	for (unsigned i = 0; i < pp->n; i++) {
		rows[i].prof = &pp->prof[i];
		rows[i].tpm_ms = pp->pr[i]->r[k].tpm_ms;
		rows[i].fallback = predict_fallback_share(pp->pr[i], k);
		rows[i].derived = predict_derived_share(pp->pr[i], k);
		if (predict_spread(pp->pr[i], k, boots, seed, &rows[i].sp))
			return -ENOMEM;
	}
	qsort(rows, pp->n, sizeof *rows, cmp_row);
	return 0;
}

void predict_population_json(struct json_w *w, const struct pred_population *pp, const char *policy,
			     const struct pred_pop_row *rows, double over_ms)
{
	unsigned above50 = 0, above95 = 0;
	json_begin_object(w);
	json_kstr(w, "policy", policy);
	json_key(w, "profiles");
	json_begin_array(w);
	for (unsigned i = 0; i < pp->n; i++) {
		const struct pred_pop_row *r = &rows[i];
		json_begin_object(w);
		json_kstr(w, "profile", r->prof->name);
		json_kstr(w, "vendor", r->prof->vendor);
		json_kstr(w, "chip", r->prof->chip);
		json_kstr(w, "firmware", r->prof->firmware);
		json_kdouble(w, "tpm_ms", r->tpm_ms, 6);
		json_kdouble(w, "p50_ms", r->sp.p50_ms, 6);
		json_kdouble(w, "p95_ms", r->sp.p95_ms, 6);
		json_kdouble(w, "max_ms", r->sp.max_ms, 6);
		json_kdouble(w, "sampled_share", r->sp.sampled, 6);
		json_kdouble(w, "derived_share", r->derived, 6);
		json_kdouble(w, "fallback_share", r->fallback, 6);
		json_kbool(w, "mostly_fallback", r->fallback > PREDICT_FALLBACK_WARN);
		json_end_object(w);
		above50 += over_ms >= 0 && r->sp.p50_ms > over_ms;
		above95 += over_ms >= 0 && r->sp.p95_ms > over_ms;
	}
	json_end_array(w);
	if (over_ms >= 0) {
		json_kuint(w, "above_p50", above50);
		json_kuint(w, "above_p95", above95);
	} else {
		json_knull(w, "above_p50");
		json_knull(w, "above_p95");
	}
	json_end_object(w);
}

void predict_population_text(FILE *f, const struct pred_population *pp, const struct policy *pol,
			     const struct pred_pop_row *rows, unsigned boots, uint64_t seed,
			     double over_ms)
{
	char a[32], b[32], o[32];
	unsigned above50 = 0, above95 = 0, mostly = 0;
	fprintf(f, "\npolicy %s: TPM time over %u sampled boots (seed %llu), by p50\n", pol->name,
		boots, (unsigned long long)seed);
	fprintf(f, "  %-34s %-6s %10s %10s %8s  %s\n", "profile", "vendor", "p50", "p95", "derived",
		"fallback");
	for (unsigned i = 0; i < pp->n; i++) {
		const struct pred_pop_row *r = &rows[i];
		predict_fmt_time(a, sizeof a, r->sp.p50_ms);
		predict_fmt_time(b, sizeof b, r->sp.p95_ms);
		fprintf(f, "  %-34.34s %-6.6s %10s %10s %7.0f%%  %3.0f%%%s\n", r->prof->name,
			r->prof->vendor ? r->prof->vendor : "-", a, b, 100 * r->derived,
			100 * r->fallback,
			r->fallback > PREDICT_FALLBACK_WARN ? " MOSTLY FALLBACK" : "");
		above50 += over_ms >= 0 && r->sp.p50_ms > over_ms;
		above95 += over_ms >= 0 && r->sp.p95_ms > over_ms;
		mostly += r->fallback > PREDICT_FALLBACK_WARN;
	}
	if (over_ms >= 0) {
		predict_fmt_time(o, sizeof o, over_ms);
		fprintf(f, "  above %s: %u of %u profiles at p50 (%.0f%%), %u at p95 (%.0f%%)\n", o,
			above50, pp->n, 100.0 * above50 / pp->n, above95, 100.0 * above95 / pp->n);
	}
	fprintf(
	    f,
	    "  derived: the share of the TPM time priced from derived entries (figures of other\n"
	    "  commands by a rule, docs/profiles.md: not measured on that chip)\n");
	if (mostly)
		fprintf(f,
			"  %u of %u profiles price more than %.0f%% of it at their fallback (the "
			"commands\n  they lack): a guess there, not a measurement\n",
			mostly, pp->n, 100 * PREDICT_FALLBACK_WARN);
}
