/* `tpmtrace import ima|tcglog`: the measurement-log importers behind the
 * importer table of cmd_import.c. */
#ifndef TPMTRACE_IMPORT_LOGS_H
#define TPMTRACE_IMPORT_LOGS_H

#include <stddef.h>

#include "import.h"

int import_ima_sniff(const char *file, const struct import_opts *o, char *err, size_t errlen);
int import_ima_file(const char *file, const struct import_opts *o, struct import_log_result *r,
		    char *err, size_t errlen);
int import_tcglog_sniff(const char *file, const struct import_opts *o, char *err, size_t errlen);
int import_tcglog_file(const char *file, const struct import_opts *o, struct import_log_result *r,
		       char *err, size_t errlen);
/* The first up to cap bytes of a regular file: the count, 0 for an empty
 * file, -1 with err set when it cannot be read. *regular tells whether it
 * is a regular file (only those are sniffed: a FIFO's bytes cannot be read
 * twice). */
long import_head(const char *file, void *buf, size_t cap, int *regular, char *err, size_t errlen);

/* Stops the importers on SIGINT/SIGTERM/SIGHUP (cmd_import.c). */
void import_catch_signals(void);

#endif
