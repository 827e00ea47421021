/* The importers of `tpmtrace import KIND FILE...`, one per KIND in one table
 * (import_kinds.c). An importer reads one file and hands what it finds to the
 * sink, which creates the trace (kind 'import', source = the file) on the
 * first record, writes rows through db/writer.h and keeps the counts for the
 * summary; the measurement logs (ima, tcglog: import_logs.c) store their
 * trace themselves (log_store.h). */
#ifndef TPMTRACE_IMPORT_KINDS_H
#define TPMTRACE_IMPORT_KINDS_H

#include <stdio.h>
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
	/* Warnings and errors of the measurement logs as they are read (NULL:
	 * none shown); the caller escapes them for a terminal. */
	void (*msg)(void *ctx, int sev, const char *m);
	/* A kind with progress: called as the file is read (NULL: none). */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
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
	int progress; /* reports progress (import_opts.progress) */
};

/* The importer of kind ("pcap", "ima", ...), or NULL. */
const struct importer *import_kind_find(const char *kind);
/* Its index in the table (0 for the first). */
unsigned import_kind_index(const struct importer *imp);
/* Imports one file (already known to be of the importer's kind). Returns 0,
 * or non-zero with err set (*db_failed set when the database would not even
 * open); s and lr get what the import left. */
int import_kind_file(const struct importer *imp, const struct import_opts *o, const char *file,
		     struct import_sink *s, struct import_log_result *lr, char *err, size_t errlen,
		     int *db_failed);

/* The measurement-log importers (import_logs.c). */
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

/* One file's object in import --json's "imports", on a line of its own: what
 * sink s stored of it (kind, the error if it failed, the trace), or a
 * measurement log's own members extra. */
void import_kind_json(struct json_w *w, const struct import_sink *s, const char *kind,
		      const char *error, const struct json_w *extra);

#endif
