/* CLI entry points of the IMA and TCG log importers, for `tpmtrace import
 * ima|tcglog` (argv[0] is "ima" or "tcglog"). */
#ifndef TPMTRACE_IMPORT_LOGS_H
#define TPMTRACE_IMPORT_LOGS_H

int import_ima_main(int argc, char **argv);
int import_tcglog_main(int argc, char **argv);

extern const char import_ima_usage[];
extern const char import_tcglog_usage[];

/* Stops the importers on SIGINT/SIGTERM/SIGHUP (cmd_import.c). */
void import_catch_signals(void);

#endif
