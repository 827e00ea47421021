/* Renders `tpmtrace report`'s HTML page and JSON from model/report_data.h and
 * model/report_headline.h. */
#ifndef TPMTRACE_MODEL_REPORT_HTML_H
#define TPMTRACE_MODEL_REPORT_HTML_H

#include <stdio.h>

#include "model/report_data.h"
#include "model/report_headline.h"
#include "model/report_advise.h"
#include "model/report_population.h"

struct report_html_opts {
	const char *title;  /* NULL: the trace's name */
	const char *dbpath; /* shown in the header */
	const int64_t *cmp; /* traces set beside it */
	unsigned ncmp;
	const char *const *profiles; /* predict on each of these profiles */
	unsigned nprofiles;
	const struct pred_host *host;	    /* host crypto for predictions; NULL: estimate */
	const struct report_advise *advise; /* "What to change" after the answer; NULL: none */
	const struct report_population *population; /* the chip population; NULL: none */
};

/* Streams d's commands (report_data_stream), computes the answer into a
 * (report_answer_compute) and writes the page to f, the answer first.
 * Returns 0, or an error with err set; a is freed by the caller. */
/* The report's stylesheet (the fleet page uses it too). */
extern const char *const report_html_css;

/* s as HTML text or an attribute value: control bytes as \\xNN (db_text_safe),
 * then < > & " ' as entities. NULL prints nothing. */
void report_html_text(FILE *f, const char *s);

/* A duration for people: ns, us, ms or s with 3 significant-ish digits. */
const char *report_html_dur(double ns, char *b, size_t l);
/* The runs' sample sd as a duration, or "none (n=1)". */
void report_html_spread(FILE *f, const struct run_stats *st);
/* The answer: section#headline with table#headline-table
 * (report_answer_html.c). */
void report_html_headline(FILE *f, const struct report_answer *a);

int report_html_write(FILE *f, struct report_data *d, const struct report_html_opts *o,
		      struct report_answer *a, char *err, size_t errlen);
/* The answer as one JSON object (`report --json`), through db/json.h.
 * Returns 0, or -1 when the writer saw a bug (db/json.h: misuse). */
int report_json_write(FILE *f, const struct report_answer *a, const struct report_advise *adv,
		      const struct report_population *pop);

#endif
