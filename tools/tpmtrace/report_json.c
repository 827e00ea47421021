/* `tpmtrace report --json`: the answer (model/report_headline.h) as one JSON
 * object, the numbers of the page's headline table. */
#include <string.h>

#include "common.h"
#include "report_html.h"

/* A factor, or null where there is nothing to compare with (0). */
static void json_factor(FILE *f, const char *key, double x)
{
	if (x > 0)
		fprintf(f, ",\"%s\":%.6f", key, x);
	else
		fprintf(f, ",\"%s\":null", key);
}

static void json_row(FILE *f, const struct report_row *w)
{
	fputs("{\"policy\":", f);
	json_str(f, w->policy);
	fprintf(f,
		",\"kind\":\"%s\",\"runs\":%u,\"commands\":%llu,\"tpm_ms\":%.6f,\"total_ms\":%.6f",
		w->kind, w->runs, (unsigned long long)w->commands, w->tpm_ms, w->total_ms);
	/* A prediction mostly priced at the fallback has no known range. */
	if (w->mostly_fallback)
		fputs(",\"tpm_low_ms\":null,\"tpm_high_ms\":null", f);
	else
		fprintf(f, ",\"tpm_low_ms\":%.6f,\"tpm_high_ms\":%.6f", w->lo_ms, w->hi_ms);
	json_factor(f, "factor_vs_password_tpm", w->x_password_tpm);
	json_factor(f, "factor_vs_password", w->x_password_total);
	json_factor(f, "factor_vs_recorded", w->x_recorded_total);
	fprintf(f,
		",\"priced_at_fallback\":%llu,"
		"\"fallback_ms\":%.6f,\"fallback_share\":%.6f,\"mostly_fallback\":%s,"
		"\"fell_back\":",
		(unsigned long long)w->fallback_cmds, w->fallback_ms, w->fallback_share,
		w->mostly_fallback ? "true" : "false");
	json_str(f, w->fell_back);
	fputs("}", f);
}

void report_json_write(FILE *f, const struct report_answer *a)
{
	const struct report_headline *h = &a->h;
	fprintf(f,
		"{\"version\":1,\"trace\":%lld,\"timed\":%s,\"recorded_tpm_ms\":%.6f,"
		"\"non_tpm_ms\":%.6f,\"recorded_total_ms\":%.6f,\"recorded_commands\":%lld,"
		"\"recorded_span_ms\":%.6f,\"tpmtrace_commands\":%lld,"
		"\"recorded_tpm_ms_incl_tpmtrace\":%.6f,\"fallback_threshold\":%.2f,"
		"\"measured\":[",
		(long long)h->trace_id, h->timed ? "true" : "false", h->recorded_tpm_ms,
		h->non_tpm_ms, h->recorded_total_ms, (long long)h->recorded_commands,
		h->recorded_span_ms, (long long)h->tpmtrace_commands, h->tpm_ms_incl_tpmtrace,
		REPORT_FALLBACK_WARN);
	int first = 1;
	for (unsigned i = 0; i < h->n; i++)
		if (strcmp(h->rows[i].kind, "predicted")) {
			fputs(first ? "" : ",", f);
			first = 0;
			json_row(f, &h->rows[i]);
		}
	fputs("],\"predicted\":[", f);
	for (unsigned p = 0; p < a->npred; p++) {
		fputs(p ? ",{\"profile\":" : "{\"profile\":", f);
		json_str(f, a->pred[p].profile);
		fputs(",\"policies\":[", f);
		first = 1;
		for (unsigned i = 0; i < h->n; i++)
			if (!strcmp(h->rows[i].kind, "predicted") &&
			    !strcmp(h->rows[i].source, a->pred[p].profile)) {
				fputs(first ? "" : ",", f);
				first = 0;
				json_row(f, &h->rows[i]);
			}
		fputs("]}", f);
	}
	fputs("]}\n", f);
}
