#include "recorder/log_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define INITIAL_CAP (64u << 10)

int log_rd_open_file(struct log_rd *r, const char *path)
{
	memset(r, 0, sizeof(*r));
	r->f = fopen(path, "rbe");
	if (!r->f)
		return -errno;
	r->buf = malloc(INITIAL_CAP);
	if (!r->buf) {
		fclose(r->f);
		r->f = NULL;
		return -ENOMEM;
	}
	r->cap = INITIAL_CAP;
	return 0;
}

void log_rd_open_mem(struct log_rd *r, const uint8_t *p, size_t len)
{
	memset(r, 0, sizeof(*r));
	/* The memory is only read; buf is not written in memory mode. */
	r->buf = (uint8_t *)(uintptr_t)p;
	r->cap = len;
	r->end = len;
	r->eof = 1;
}

void log_rd_close(struct log_rd *r)
{
	if (r->f) {
		fclose(r->f);
		free(r->buf);
	}
	memset(r, 0, sizeof(*r));
}

/* Reads more input so that at least n bytes are buffered (file mode). */
static void fill(struct log_rd *r, size_t n)
{
	if (r->pos) {
		memmove(r->buf, r->buf + r->pos, r->end - r->pos);
		r->base += r->pos;
		r->end -= r->pos;
		r->pos = 0;
	}
	if (n > r->cap) {
		size_t cap = r->cap;
		while (cap < n)
			cap *= 2;
		uint8_t *nb = realloc(r->buf, cap);
		if (!nb) {
			r->io_err = ENOMEM;
			return;
		}
		r->buf = nb;
		r->cap = cap;
	}
	while (r->end < n && !r->eof) {
		size_t got = fread(r->buf + r->end, 1, r->cap - r->end, r->f);
		r->end += got;
		if (got == 0) {
			if (ferror(r->f))
				r->io_err = errno ? errno : EIO;
			r->eof = 1;
		}
	}
}

const uint8_t *log_rd_peek(struct log_rd *r, size_t n, size_t *avail)
{
	if (r->end - r->pos < n && r->f && !r->eof && !r->io_err) {
		if (n > LOG_RD_MAX_RECORD)
			r->too_big = 1;
		else
			fill(r, n);
	}
	if (r->end - r->pos < n) {
		if (avail)
			*avail = r->end - r->pos;
		return NULL;
	}
	if (avail)
		*avail = r->end - r->pos;
	return r->buf + r->pos;
}

void log_rd_consume(struct log_rd *r, size_t n)
{
	if (n > r->end - r->pos)
		n = r->end - r->pos;
	r->pos += n;
}

const char *log_rd_line(struct log_rd *r, size_t *len)
{
	size_t scanned = 0;
	for (;;) {
		size_t have = r->end - r->pos;
		const uint8_t *nl =
		    have > scanned ? memchr(r->buf + r->pos + scanned, '\n', have - scanned) : NULL;
		if (nl) {
			const char *line = (const char *)r->buf + r->pos;
			*len = (size_t)(nl - (r->buf + r->pos));
			r->pos += *len + 1;
			return line;
		}
		scanned = have;
		if (!r->f || r->eof || r->io_err || have >= LOG_RD_MAX_RECORD) {
			if (!have)
				return NULL;
			if (have >= LOG_RD_MAX_RECORD)
				r->too_big = 1;
			const char *line = (const char *)r->buf + r->pos;
			*len = have;
			r->pos += have;
			return line;
		}
		fill(r, have + (have < 4096 ? 4096 : have));
	}
}

void log_hex(char *out, const uint8_t *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hx[p[i] >> 4];
		out[2 * i + 1] = hx[p[i] & 15];
	}
	out[2 * n] = 0;
}

int log_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int log_unhex(const char *s, size_t slen, uint8_t *out, size_t n)
{
	if (slen != 2 * n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int h = log_hexval(s[2 * i]), l = log_hexval(s[2 * i + 1]);
		if (h < 0 || l < 0)
			return -EINVAL;
		out[i] = (uint8_t)(h << 4 | l);
	}
	return 0;
}

int log_map_file(const char *path, const void **buf, size_t *len, char *err, size_t errlen)
{
	struct stat sb;
	int rc = 0, fd = open(path, O_RDONLY | O_CLOEXEC);
	*buf = NULL;
	*len = 0;
	if (fd < 0 || fstat(fd, &sb) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	} else if (!S_ISREG(sb.st_mode)) {
		rc = -EINVAL;
		snprintf(err, errlen, "%s: not a regular file", path);
	} else if (sb.st_size > 0) {
		void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		} else {
			*buf = m;
			*len = (size_t)sb.st_size;
		}
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

void log_unmap_file(const void *buf, size_t len)
{
	if (buf)
		munmap((void *)buf, len);
}
