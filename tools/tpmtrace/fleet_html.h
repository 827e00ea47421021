/* The HTML page of `tpmtrace fleet URL report` (the report's style). */
#ifndef TPMTRACE_FLEET_HTML_H
#define TPMTRACE_FLEET_HTML_H

#include <stdio.h>

#include "db/pg/pg.h"

/* Writes the page; returns 0 or -EIO (a failed write). */
int fleet_html_write(FILE *f, const struct pg_fleet *fl, const char *server);

#endif
