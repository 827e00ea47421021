/* A trace written out in one of export's formats: pcapng (pcapng_write.h),
 * the commands as CSV or JSON lines, or the trace's events as CSV or JSON
 * lines. The writers write to a caller's stream and never print. */
#ifndef TPMTRACE_TRACE_EXPORT_H
#define TPMTRACE_TRACE_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

enum trace_export_fmt {
	TRACE_EXPORT_PCAPNG,
	TRACE_EXPORT_CSV,	  /* one row per command, header line */
	TRACE_EXPORT_JSONL,	  /* the same columns, one JSON object per line */
	TRACE_EXPORT_EVENTS_CSV,  /* one row per event, header line */
	TRACE_EXPORT_EVENTS_JSONL /* the same, one JSON object per line */
};

struct trace_export_opts {
	int link;      /* pcapng: LINKTYPE_IPV4 or LINKTYPE_ETHERNET */
	uint16_t port; /* pcapng: the TPM's TCP port */
};

/* What fmt counts: "packets", "rows" or "events". */
const char *import_trace_export_unit(enum trace_export_fmt fmt);

/* Writes trace in fmt to f. *count gets the packets, rows or events written;
 * *left_out (pcapng only, else 0) the messages left out of the pcapng (see
 * import_pcapng_export). Returns 0, or -errno with err set. */
int import_trace_export(sqlite3 *db, int64_t trace, enum trace_export_fmt fmt, FILE *f,
			const struct trace_export_opts *o, uint64_t *count, uint64_t *left_out,
			char *err, size_t errlen);

#endif
