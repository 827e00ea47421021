/* `tpmtrace import KIND FILE...`: one importer per KIND (table in
 * cmd_import.c). An importer reads one file and hands what it finds to the
 * sink, which creates the trace (kind 'import', source = the file) on the first
 * record, writes rows through db/writer.h and keeps the counts for the summary. */
#ifndef TPMTRACE_IMPORT_H
#define TPMTRACE_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/import/ima_import.h"
#include "db/json.h"
#include "recorder/import/import_sink.h"

struct import_opts {
	const char *db;
	const char *name; /* trace name; default: the file's base name */
	unsigned port;	  /* pcap: TPM TCP port */
	int json;
	int strict;	  /* ima, tcglog: a truncated last record is an error */
	int quiet;	  /* no summary line */
	int keep_partial; /* a file that fails part-way keeps its trace */
	int payloads;	  /* pcap, swtpm-log: enum payload_mode (default redacted) */
	struct ima_opts ima;
	int follow;	   /* read FIFOs and character devices to their end */
	double idle_gap_s; /* pcap: a connection silent this long is over; 0: default */
};

/* What a measurement-log import (ima, tcglog: import_logs.c) left: its
 * trace, the summary line and the kind's own JSON members ("entries": 3,
 * ...: a json_init_members buffer, freed with json_free). */
struct import_log_result {
	int64_t trace_id;
	char status[16];
	uint64_t commands, events; /* what the trace holds: the figures of list and stats */
	char text[640];
	struct json_w json;
};

struct importer {
	const char *kind;
	const char *summary;
	/* trace.payloads of what it stores: "full" (the measurement logs: the
	 * commands are made from a public log), "redacted" for a source of
	 * recorded bytes (stored as --payloads says, redacted by default), or
	 * "none" for one that shows which commands ran but not their bytes
	 * (ftrace). */
	const char *payloads;
	/* Whether file is of this kind at all, from its first bytes (or a
	 * check pass), before anything is written: 0, or non-zero with
	 * "FILE: not a ..." in err. */
	int (*sniff)(const char *file, const struct import_opts *o, char *err, size_t errlen);
	/* Imports one file through the sink. Returns 0, or non-zero with a
	 * message naming the file (and offset or entry) in err. */
	int (*run)(struct import_sink *s, const char *file, const struct import_opts *o, char *err,
		   size_t errlen);
	/* Or, for the measurement logs, on its own (recorder/import/log_store.h). */
	int (*run_log)(const char *file, const struct import_opts *o, struct import_log_result *r,
		       char *err, size_t errlen);
};

#endif
