/* The report's answer (model/report_headline.h). */
#include "model/report_headline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/tpm/tpm_cc.h"

void report_headline_init(struct report_headline *h, const struct report_data *d)
{
	memset(h, 0, sizeof *h);
	h->trace_id = d->id;
	h->timed = d->timed;
	h->recorded_tpm_ms = d->tpm_ns / 1e6;
	h->non_tpm_ms = d->gap_ns / 1e6;
	h->recorded_total_ms = h->recorded_tpm_ms + h->non_tpm_ms;
	h->recorded_commands = d->fig_commands;
	h->tpmtrace_commands = d->fig_own;
	h->recorded_span_ms = d->fig_span_ns / 1e6;
	h->tpm_ms_incl_tpmtrace = d->fig_tpm_ns_all / 1e6;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

/* The password replay the bar is compared with: of its kind, and for an
 * emulated one of its profile; NULL if none. */
static const struct report_bar *password_bar(const struct report_bar *bars, unsigned n, int base,
					     const struct report_bar *b, int emulated)
{
	if (!emulated)
		return base > 0 ? &bars[base] : NULL;
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(bars[i].kind, "replay") && !strcmp(bars[i].policy, "password") &&
		    !strcmp(bars[i].emulated, b->emulated))
			return &bars[i];
	return NULL;
}

void report_headline_measured(struct report_headline *h, const struct report_bar *bars, unsigned n,
			      int base, int emulated)
{
	for (unsigned i = 0; i < n && h->n < REPORT_MAX_ROWS; i++) {
		const struct report_bar *b = &bars[i];
		if (strcmp(b->kind, "recorded") && strcmp(b->kind, "replay"))
			continue;
		const struct report_bar *pw = password_bar(bars, n, base, b, emulated);
		struct report_row *r = &h->rows[h->n++];
		memset(r, 0, sizeof *r);
		if (emulated) {
			snprintf(r->source, sizeof r->source, "emulated on %s", b->emulated);
			snprintf(r->emulated, sizeof r->emulated, "%s", b->emulated);
		} else {
			snprintf(r->source, sizeof r->source, "measured");
		}
		if (!strcmp(b->kind, "recorded"))
			snprintf(r->policy, sizeof r->policy, "as recorded");
		else
			snprintf(r->policy, sizeof r->policy, "%s", b->policy);
		snprintf(r->kind, sizeof r->kind, "%s", emulated ? "emulated" : b->kind);
		r->runs = b->runs;
		r->commands = b->commands;
		r->tpm_ms = r->lo_ms = r->hi_ms = b->total / 1e6;
		r->st = b->tpm;
		/* A replay sends the recording's commands without its pauses:
		 * the total is its TPM time plus the recording's non-TPM time. */
		r->total_ms = r->tpm_ms + h->non_tpm_ms;
		if (pw) {
			r->x_password_tpm = ratio(b->total, pw->total);
			r->x_password_total = ratio(r->total_ms, pw->total / 1e6 + h->non_tpm_ms);
			if (pw != b) {
				r->has_cmp = 1;
				model_run_stats_compare(&pw->tpm, &b->tpm, &r->cmp);
			}
		}
		r->x_recorded_total = ratio(r->total_ms, h->recorded_total_ms);
	}
}

/* The codes priced at the fallback, by name, once each. */
static void fell_back(struct report_row *row, const struct pred_result *r)
{
	size_t len = 0;
	for (unsigned m = 0; m < r->n_miss; m++) {
		const struct pred_missing *x = &r->miss[m];
		char hex[16];
		const char *nm = tpm_cc_name(x->cc);
		int dup = 0;
		if (x->how != PROF_MISSING)
			continue;
		for (unsigned k = 0; k < m; k++)
			dup |= r->miss[k].how == PROF_MISSING && r->miss[k].cc == x->cc;
		if (dup)
			continue;
		if (!nm) {
			snprintf(hex, sizeof hex, "0x%X", x->cc);
			nm = hex;
		}
		int w = snprintf(row->fell_back + len, sizeof row->fell_back - len, "%s%s",
				 len ? ", " : "", nm);
		if (w < 0 || (size_t)w >= sizeof row->fell_back - len)
			break;
		len += (size_t)w;
	}
}

void report_headline_predicted(struct report_headline *h, const struct report_prediction *p)
{
	const struct predictor *pr = p->pr;
	double base_total = p->base >= 0 ? predict_total_ms(pr, (unsigned)p->base) : 0;
	double base_tpm = p->base >= 0 ? pr->r[p->base].tpm_ms : 0;
	double rec_total = pr->recorded_tpm_ms + pr->gap_ms;
	for (unsigned k = 0; k < p->n && h->n < REPORT_MAX_ROWS; k++) {
		const struct pred_result *r = &pr->r[k];
		struct report_row *row = &h->rows[h->n++];
		memset(row, 0, sizeof *row);
		snprintf(row->source, sizeof row->source, "%s", p->profile);
		snprintf(row->policy, sizeof row->policy, "%s", r->pol.name);
		snprintf(row->kind, sizeof row->kind, "predicted");
		row->runs = 1;
		row->commands = r->commands;
		row->tpm_ms = r->tpm_ms;
		row->total_ms = predict_total_ms(pr, k);
		row->lo_ms = r->tpm_lo_ms;
		row->hi_ms = r->tpm_hi_ms;
		row->x_password_tpm = ratio(r->tpm_ms, base_tpm);
		row->x_password_total = ratio(row->total_ms, base_total);
		if (pr->recorded_n)
			row->x_recorded_total = ratio(row->total_ms, rec_total);
		/* Every command the profile lacks is priced at exactly the fallback. */
		row->fallback_cmds = r->missing;
		row->fallback_ms = (double)r->missing * pr->fallback_ms;
		row->fallback_share = ratio(row->fallback_ms, r->tpm_ms);
		row->mostly_fallback = row->fallback_share > REPORT_FALLBACK_WARN;
		row->derived_share = predict_derived_share(pr, k);
		fell_back(row, r);
	}
}

/* A trace without timing (an IMA list, a TCG log: db/stats.h, DB_TIMED_SQL)
 * has no recorded TPM time, non-TPM time, span or total, and a prediction
 * of it no total: each is NAN, which the JSON writer writes as null and the
 * HTML as "no timing", never 0 (docs/schema.md, "Figures"); no factor on a
 * total. A recorded row keeps its command count. */
static void headline_untimed(struct report_headline *h)
{
	h->recorded_tpm_ms = h->non_tpm_ms = h->recorded_total_ms = NAN;
	h->recorded_span_ms = h->tpm_ms_incl_tpmtrace = NAN;
	for (unsigned i = 0; i < h->n; i++) {
		struct report_row *r = &h->rows[i];
		r->total_ms = NAN;
		r->x_password_total = r->x_recorded_total = 0;
		if (!strcmp(r->kind, "recorded"))
			r->tpm_ms = r->lo_ms = r->hi_ms = NAN;
	}
}

int report_answer_compute(struct report_answer *a, const struct report_data *d, const int64_t *cmp,
			  unsigned ncmp, const char *const *profiles, unsigned nprof,
			  const struct pred_host *host, char *err, size_t errlen)
{
	int rc;
	memset(a, 0, sizeof *a);
	report_headline_init(&a->h, d);
	if ((rc = report_measured_bars(d, cmp, ncmp, a->bars, &a->nbars, &a->base))) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(d->db));
		return rc;
	}
	report_headline_measured(&a->h, a->bars, a->nbars, a->base, 0);
	if ((rc = report_emulated_bars(d, cmp, ncmp, a->ebars, &a->nebars, &a->ebase))) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(d->db));
		return rc;
	}
	report_headline_measured(&a->h, a->ebars, a->nebars, a->ebase, 1);
	for (unsigned i = 0; i < nprof && i < REPORT_MAX_PROFILES; i++) {
		rc = report_predict(d, profiles[i], host, &a->pred[a->npred++], err, errlen);
		if (rc)
			return rc;
		report_headline_predicted(&a->h, &a->pred[a->npred - 1]);
	}
	if (!d->timed)
		headline_untimed(&a->h);
	return 0;
}

void report_answer_free(struct report_answer *a)
{
	for (unsigned i = 0; i < a->npred; i++)
		report_prediction_free(&a->pred[i]);
	a->npred = 0;
}
