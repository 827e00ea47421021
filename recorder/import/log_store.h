/* Stores measurements taken from logs (IMA lists, TCG event logs) as the
 * TPM commands that made them: one synthesized TPM2_PCR_Extend per
 * measurement with a success response, decoded and written through the
 * batched writer exactly like a live recording, so that every reader of the
 * database (stats, show, pcrs, replay) treats both alike.
 *
 * Time: the logs carry none. Commands get t_submit_ns = t_done_ns = their
 * ordinal (1, 2, ...), so latency_ns is 0, and flag REC_F_SYNTHETIC_TIME;
 * queries of latency exclude them with `flags & 16 = 0`. */
#ifndef TPMTRACE_LOG_STORE_H
#define TPMTRACE_LOG_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "db/writer.h"
#include "model/tpm/pcr_bank.h"
#include "recorder/import/log_reader.h"

/* Room for a PCR_Extend with PCR_MAX_BANKS digests of PCR_MAX_DIGEST bytes. */
#define LOG_CMD_MAX (27 + 4 + PCR_MAX_BANKS * (2 + PCR_MAX_DIGEST))
#define LOG_RSP_LEN 19

struct log_sink {
	struct writer *w;
	int64_t trace_id; /* 0 once nothing of it is stored */
	int keep_partial; /* a failed import keeps its rows as 'incomplete' */
	uint64_t ordinal;
	uint64_t commands; /* rows stored: the trace's commands and events (list, stats) */
	uint64_t events;
};

/* Builds TPM2_PCR_Extend(pcr, digests) with an empty password session
 * (TPM 2.0 Part 3 section 22.2, Part 1 section 18.6) and its success response
 * and stores them. Returns 0 or -errno. */
int import_log_sink_extend(struct log_sink *s, uint32_t pcr, uint8_t locality,
			   const struct pcr_digests *d);
/* A log's measurement for a PCR index beyond 23 (a TPM has PCRs 0-23): no
 * extend is made up for it, its record stays as its event row. Counts it in
 * *bad and says the first five through msg: "WHERE: PCR index PCR is not a
 * PCR (0-23): kept as an event, not extended", WHERE formatted from fmt. */
void import_log_bad_pcr(uint64_t *bad, uint32_t pcr,
			void (*msg)(void *ctx, int severity, const char *m), void *ctx,
			const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Stores TPM2_Startup(TPM_SU_CLEAR) sent at locality (Part 3 section 9.3). */
int import_log_sink_startup(struct log_sink *s, uint8_t locality);
/* Stores an event row (kind, detail) right before the next command. */
int import_log_sink_event(struct log_sink *s, const char *kind, const char *detail);

/* One log file imported as a trace: opens path (rd; follow as
 * import_log_rd_open_file takes it) and a sink for it, the trace named name or else
 * path's base name, with source "KIND:PATH". An empty input is refused before
 * any trace is made. Returns 0 or -errno with err set; on error nothing is
 * left open. */
int import_log_import_begin(struct log_sink *s, struct log_rd *rd, const char *db_path,
			    const char *name, const char *kind, const char *path, int follow,
			    const char *notes, char *err, size_t errlen);
/* Ends it, rc being its result so far. Under strict, a truncated tail (a
 * partial UNIT, e.g. "record") is an error that says where. Commits the
 * trace, closed 'complete', with its rows (the import is one transaction);
 * on error rolls it all back (s->trace_id 0), or under s->keep_partial
 * commits it 'incomplete'. Closes rd. Returns the final result. */
int import_log_import_end(struct log_sink *s, struct log_rd *rd, int rc, const char *db_path,
			  const char *path, int strict, const char *unit,
			  const struct log_tail *tail, char *err, size_t errlen);

#endif
