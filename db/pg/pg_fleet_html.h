/* The HTML page of `tpmtrace fleet URL report` (the report's style). */
#ifndef TPMTRACE_PG_FLEET_HTML_H
#define TPMTRACE_PG_FLEET_HTML_H

#include <stdio.h>

#include "db/pg/pg.h"

/* Writes the page; returns 0 or -EIO (a failed write). */
int pg_fleet_html_write(FILE *f, const struct pg_fleet *fl, const char *server);

#endif
