/* Importer for swtpm's own log at level 20 and above (`swtpm ... --log
 * file=F,level=20`), which dumps every message it exchanges in hex:
 *
 *    SWTPM_IO_Read: length 12          <- a TPM command as received
 *    80 01 00 00 00 0C 00 00 01 7B 00 08
 *    SWTPM_IO_Write: length 20         <- the TPM's response
 *    ...
 *    Ctrl Cmd: length 5                <- control channel (swtpm_ioctls(3))
 *    00 00 00 05 00
 *    Ctrl Rsp: length 4
 *    00 00 00 00
 *
 * The log has no timestamps. Commands are paired with the response that
 * follows them (swtpm handles one message at a time). Results go to
 * callbacks; nothing is printed. */
#ifndef TPMTRACE_SWTPM_LOG_H
#define TPMTRACE_SWTPM_LOG_H

#include <stddef.h>
#include <stdint.h>

/* One TPM command and the response logged after it. */
struct swlog_cmd {
	uint64_t ordinal;   /* 1, 2, ... over commands and control messages */
	const uint8_t *cmd; /* raw command */
	size_t cmd_len;
	const uint8_t *rsp; /* NULL when none was logged */
	size_t rsp_len;
	int locality;	   /* from the last successful SET_LOCALITY, -1 before any */
	unsigned cmd_line; /* 1-based line of the SWTPM_IO_Read header */
	unsigned rsp_line;
};

/* A control-channel message: kind "ctrl:NAME" (names as the proxies store
 * them), detail the argument that matters (locality, INIT flags) and the
 * result code. */
struct swlog_event {
	uint64_t ordinal;
	const char *kind;
	const char *detail;
	unsigned line;
};

struct swlog_ops {
	/* A non-zero return stops the parse and is returned. */
	int (*command)(void *ctx, const struct swlog_cmd *c);
	int (*event)(void *ctx, const struct swlog_event *e);
};

struct swlog_stats {
	uint64_t lines;
	uint64_t commands;
	uint64_t no_response;	 /* commands followed by another command, or by the end */
	uint64_t unmatched;	 /* responses without a command */
	uint64_t ctrl;		 /* control messages */
	uint64_t other_lines;	 /* lines that are neither headers nor hex dumps */
	uint64_t truncated;	 /* a dump at the end of the file shorter than announced */
	unsigned truncated_line; /* its header's line */
};

/* Parses a whole log held in memory (need not be NUL-terminated). name is
 * used in messages. A dump whose byte count differs from its header, a hex
 * line outside a dump or a dump longer than 1 MiB fails with -EINVAL and a
 * message naming name:line; a dump cut short by the end of the file is
 * counted in st->truncated and dropped. A file with no header at all is
 * -ENODATA. Returns 0, a negative errno, or a callback's return. */
int import_swlog_parse_mem(const char *buf, size_t len, const char *name,
			   const struct swlog_ops *ops, void *ctx, struct swlog_stats *st,
			   char *err, size_t errlen);

#endif
