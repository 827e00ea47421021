/* Renders `tpmtrace report`'s HTML page from model/report_data.h. */
#ifndef TPMTRACE_REPORT_HTML_H
#define TPMTRACE_REPORT_HTML_H

#include <stdio.h>

#include "model/report_data.h"

struct report_html_opts {
	const char *title;  /* NULL: the trace's name */
	const char *dbpath; /* shown in the header */
	const int64_t *cmp; /* traces set beside it */
	unsigned ncmp;
	const char *profile;	      /* NULL: no prediction */
	const struct pred_host *host; /* host crypto for the prediction; NULL: estimate */
};

/* Streams d's commands (report_data_stream) while writing the page to f.
 * Returns 0, or an error with err set. */
int report_html_write(FILE *f, struct report_data *d, const struct report_html_opts *o, char *err,
		      size_t errlen);

#endif
