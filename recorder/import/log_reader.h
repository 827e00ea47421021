/* Streaming reader for measurement logs (IMA lists, TCG event logs) from a
 * file or from memory. It keeps a window of the input in one buffer that grows
 * only to fit the largest record, so memory does not depend on the length of
 * the log. Parsers take records out of the window through wire.h readers. */
#ifndef TPMTRACE_LOG_READER_H
#define TPMTRACE_LOG_READER_H

#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#include "model/tpm/wire.h"

#define LOG_RD_MAX_RECORD (16u << 20) /* one record or line: 16 MiB at most */
/* A FIFO or character device read with --follow: at most this much (regular
 * files are as long as they are). */
#define LOG_FOLLOW_MAX ((uint64_t)1 << 30)

/* Where a log ends inside a record: its offset and the bytes there. */
struct log_tail {
	int truncated;
	uint64_t offset;
	uint64_t bytes;
};

struct log_rd {
	FILE *f; /* NULL when reading from memory */
	uint8_t *buf;
	size_t cap;
	size_t pos, end; /* unread bytes are buf[pos..end) */
	uint64_t base;	 /* input offset of buf[0] */
	int eof;
	int io_err;	/* errno of a failed read; EFBIG: past limit */
	int too_big;	/* a record larger than LOG_RD_MAX_RECORD was asked for */
	uint64_t limit; /* bytes to read at most (0: no limit) */
};

/* Set (from a signal handler) to stop every importer's reading at its next
 * step: readers end with EINTR, so that the import ends as any failed one
 * does (its trace 'incomplete', never left 'recording'). */
extern volatile sig_atomic_t import_log_stop_requested;

/* Opens path for reading. A FIFO, socket or character or block device is
 * refused (-EINVAL, err says what it is) unless follow is set: then it is
 * read until its end, at most LOG_FOLLOW_MAX bytes (without follow, opening
 * never waits for a FIFO's writer). Returns 0 or -errno with err set. */
int import_log_rd_open_file(struct log_rd *r, const char *path, int follow, char *err,
			    size_t errlen);
/* A read error of r as a message naming label: "LABEL: read error: ...", or
 * for the --follow limit what it is. */
void import_log_rd_error(const struct log_rd *r, const char *label, char *err, size_t errlen);
void import_log_rd_open_mem(struct log_rd *r, const uint8_t *p, size_t len);
/* A parser's message to its caller, formatted (at most 511 bytes); nothing
 * when msg is NULL. */
void import_log_say(void (*msg)(void *ctx, int severity, const char *m), void *ctx, int severity,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void import_log_rd_close(struct log_rd *r);

/* Makes n bytes at the current position available. Returns them, or NULL when
 * the input ends (or fails) first; *avail then holds what is left. */
const uint8_t *import_log_rd_peek(struct log_rd *r, size_t n, size_t *avail);
void import_log_rd_consume(struct log_rd *r, size_t n);
/* Input offset of the current position. */
static inline uint64_t log_rd_offset(const struct log_rd *r)
{
	return r->base + r->pos;
}
/* The next line without its '\n' (a last line without one is returned too).
 * NULL at the end of the input. The line is consumed. */
const char *import_log_rd_line(struct log_rd *r, size_t *len);

/* Little- or big-endian integers through the bounds-checked wire reader:
 * measurement logs are written in the byte order of the machine that made
 * them (TCG logs: always little-endian). */
static inline uint32_t wire_u32_bo(struct wire_rd *r, int big_endian)
{
	const uint8_t *b = wire_skip(r, 4);
	if (!b)
		return 0;
	if (big_endian)
		return wire_get_u32(b);
	return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static inline uint16_t wire_u16_bo(struct wire_rd *r, int big_endian)
{
	const uint8_t *b = wire_skip(r, 2);
	if (!b)
		return 0;
	if (big_endian)
		return wire_get_u16(b);
	return (uint16_t)(b[1] << 8 | b[0]);
}

static inline uint64_t wire_u64_le(struct wire_rd *r)
{
	uint64_t lo = wire_u32_bo(r, 0);
	return (uint64_t)wire_u32_bo(r, 0) << 32 | lo;
}

static inline uint32_t get_u32_bo(const uint8_t *b, int big_endian)
{
	if (big_endian)
		return wire_get_u32(b);
	return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static inline void put_u32_bo(uint8_t *b, uint32_t v, int big_endian)
{
	if (big_endian) {
		wire_put_u32(b, v);
		return;
	}
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}

/* Lower-case hex of n bytes into out (2n+1 bytes). */
void import_log_hex(char *out, const uint8_t *p, size_t n);
/* The value of one hex digit, or -1. */
int import_log_hexval(char c);
/* Parses exactly n bytes of hex; returns 0 or -EINVAL. */
int import_log_unhex(const char *s, size_t slen, uint8_t *out, size_t n);

/* Maps a whole regular file read-only: *buf is NULL for an empty file.
 * Special files as import_log_rd_open_file says: refused, or with follow read into
 * memory to their end (at most LOG_FOLLOW_MAX bytes). *is_file (may be
 * NULL): the bytes are a mapping of a regular file. Returns 0, or -errno with
 * a message naming path. import_log_unmap_file undoes it (a NULL buf is fine). */
int import_log_map_file(const char *path, int follow, const void **buf, size_t *len, int *is_file,
			char *err, size_t errlen);
void import_log_unmap_file(const void *buf, size_t len);

#endif
