/* The documents of `tpmtrace fleet`: the HTML page of `fleet URL report`
 * (the report's style) and the JSON of `stats` and `list`. */
#ifndef TPMTRACE_PG_FLEET_DOC_H
#define TPMTRACE_PG_FLEET_DOC_H

#include <stdio.h>

#include "db/pg/pg.h"

/* fleet stats --json and fleet list --json into f: 0, or -1 when the JSON
 * writer saw a bug (db/json.h). */
int pg_fleet_json(FILE *f, const struct pg_fleet *fl);
int pg_fleet_hosts_json(FILE *f, const struct pg_fleet_host *h, size_t n);
/* Writes the page; returns 0 or -EIO (a failed write). */
int pg_fleet_html_write(FILE *f, const struct pg_fleet *fl, const char *server);

/* push --json of r into f: 0, or -1 when the JSON writer saw a bug. */
int pg_push_json(FILE *f, const struct pg_push_result *r);

#endif
