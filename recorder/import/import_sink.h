/* The sink every importer that yields commands (pcap, swtpm log, ftrace)
 * hands what it finds to: it creates the trace (kind 'import', source = the
 * file) on the first record, in the one transaction the import is (all or
 * nothing), so that a file without TPM traffic or one that
 * does not parse leaves nothing behind; writes rows through db/writer.h,
 * decoded as a live recording's are; and keeps the counts for a summary. */
#ifndef TPMTRACE_IMPORT_SINK_H
#define TPMTRACE_IMPORT_SINK_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "db/writer.h"

struct tpm_cmd;
struct tpm_rsp;

struct import_sink {
	/* set by import_sink_open */
	const char *db_path;
	const char *file;
	int payloads;	  /* enum payload_mode (model/tpm/redact.h) */
	int keep_partial; /* a failed import keeps its rows as 'incomplete' */
	sqlite3 *db;
	struct writer *w;
	int64_t trace_id;
	char name[256];
	char notes[1024];
	uint64_t commands, malformed, no_response, events, clients;
	uint64_t t_first, t_last;
	int have_time;
	int synthetic;
	struct writer_stats final;
	char status[16];
	char err[512]; /* what failed in the database, not in the file */
};

/* Opens db_path (which exists) for writing, for importing file; the trace
 * will be named name, or the file's base name when name is NULL. payloads
 * (enum payload_mode): what is stored of the bytes, redacted as a live
 * recording's are (db_rec_fill_payload), and trace.payloads.
 * Returns 0 or -errno with err set. */
int import_sink_open(struct import_sink *s, const char *db_path, const char *file, const char *name,
		     int payloads, char *err, size_t errlen);

/* Drains the writer and ends the import's one transaction: the trace row
 * closed 'complete' and committed with its rows and notes; when failed,
 * rolled back (trace_id 0: nothing stored), or committed 'incomplete' under
 * keep_partial; a failed write stores nothing (-EIO). Closes the database.
 * Returns 0 or -EIO. */
int import_sink_close(struct import_sink *s, int failed);

/* A command as an importer found it. The sink decodes it (model/tpm/decode.h) and
 * stores the decoded columns the way a live recording does. */
struct import_cmd {
	uint64_t t_submit_ns, t_done_ns;
	const uint8_t *cmd;
	size_t cmd_len;
	const uint8_t *rsp; /* NULL: no response */
	size_t rsp_len;
	int locality; /* -1 unknown (stored as 0) */
	uint32_t client_id;
	uint32_t flags; /* extra REC_F_* bits, e.g. REC_F_SYNTHETIC_TIME */
	/* Sources without bytes (ftrace): cmd NULL, cmd_len 0; the command code
	 * and authorization kind are given here and stored as they are; the
	 * response code and sizes are stored as NULL (unknown), the latency as
	 * t_done_ns - t_submit_ns. */
	uint32_t cc;
	int auth_kind;
	/* The decoder's reading of cmd and rsp (tpm_cmd_decode, and tpm_rsp_decode with the
	 * command's code) when the source has it already (pcap), or NULL: the sink decodes. */
	const struct tpm_cmd *dc;
	const struct tpm_rsp *dr;
};

/* Each returns 0 or -errno (the writer failed or the trace could not be made). */
int import_sink_client(struct import_sink *s, uint32_t id, const char *comm, const char *peer,
		       uint64_t first_ns);
int import_sink_command(struct import_sink *s, const struct import_cmd *c);
int import_sink_event(struct import_sink *s, uint64_t t_ns, const char *kind, const char *detail,
		      uint32_t client_id);
/* Appends a sentence to the trace's notes column. */
void import_sink_note(struct import_sink *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
