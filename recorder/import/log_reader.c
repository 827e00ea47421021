/* The streaming log reader (recorder/import/log_reader.h): import_log_rd_open_file (a
 * regular file or, with follow, a FIFO or other special file, waited on until
 * its writer is done or import_log_stop_requested is set) and import_log_rd_open_mem open an
 * input; import_log_rd_peek, import_log_rd_consume and import_log_rd_line hand a parser the next
 * record or line from a window that grows only to the largest record. Also
 * import_log_map_file and import_log_unmap_file for inputs read whole (mapped when they are
 * regular files), the hex helpers import_log_hex, import_log_hexval and import_log_unhex, and
 * import_log_say for the importers' messages. */
#include "recorder/import/log_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define INITIAL_CAP (64u << 10)

volatile sig_atomic_t import_log_stop_requested;

static const char *special_kind(mode_t m)
{
	return S_ISFIFO(m)   ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISDIR(m)  ? "a directory"
			     : NULL;
}

/* Opens path for reading: a regular file, or with follow a special one
 * (opened again without O_NONBLOCK, so that a FIFO waits for its writer).
 * Returns the descriptor, or -errno with err set; *regular says which. */
static int open_input(const char *path, int follow, int *regular, char *err, size_t errlen)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	*regular = S_ISREG(sb.st_mode);
	if (*regular) {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		return fd;
	}
	const char *kind = special_kind(sb.st_mode);
	if (!follow || S_ISDIR(sb.st_mode)) {
		close(fd);
		snprintf(
		    err, errlen, "%s: %s, not a regular file%s", path, kind ? kind : "something",
		    S_ISDIR(sb.st_mode) ? ""
					: " (give --follow to read it to its end, at most 1 GiB)");
		return -EINVAL;
	}
	/* A FIFO: wait for its writer (poll reports POLLIN once one wrote,
	 * POLLHUP once one came and went), keeping this descriptor, so that a
	 * writer that was quick is never left without a reader. Then block. */
	if (S_ISFIFO(sb.st_mode)) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		while (poll(&pf, 1, -1) < 0) {
			if (errno != EINTR || import_log_stop_requested) {
				int e = errno == EINTR ? EINTR : errno;
				close(fd);
				snprintf(err, errlen, "%s: %s", path,
					 e == EINTR ? "interrupted" : strerror(e));
				return -e;
			}
		}
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int import_log_rd_open_file(struct log_rd *r, const char *path, int follow, char *err,
			    size_t errlen)
{
	int regular;
	memset(r, 0, sizeof(*r));
	int fd = open_input(path, follow, &regular, err, errlen);
	if (fd < 0)
		return fd;
	r->limit = regular ? 0 : LOG_FOLLOW_MAX;
	r->f = fdopen(fd, "rb");
	if (!r->f) {
		int e = errno;
		close(fd);
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	r->buf = malloc(INITIAL_CAP);
	if (!r->buf) {
		fclose(r->f);
		r->f = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->cap = INITIAL_CAP;
	return 0;
}

void import_log_rd_error(const struct log_rd *r, const char *label, char *err, size_t errlen)
{
	if (r->io_err == EFBIG)
		snprintf(err, errlen, "%s: more than %llu bytes read (--follow stops there)", label,
			 (unsigned long long)r->limit);
	else if (r->io_err == EINTR && import_log_stop_requested)
		snprintf(err, errlen, "%s: interrupted", label);
	else
		snprintf(err, errlen, "%s: read error: %s", label, strerror(r->io_err));
}

void import_log_rd_open_mem(struct log_rd *r, const uint8_t *p, size_t len)
{
	memset(r, 0, sizeof(*r));
	/* The memory is only read; buf is not written in memory mode. */
	r->buf = (uint8_t *)(uintptr_t)p;
	r->cap = len;
	r->end = len;
	r->eof = 1;
}

void import_log_rd_close(struct log_rd *r)
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
		size_t want = r->cap - r->end;
		if (import_log_stop_requested) {
			r->io_err = EINTR;
			r->eof = 1;
			break;
		}
		if (r->limit) {
			uint64_t read_so_far = r->base + r->end;
			if (read_so_far >= r->limit) {
				r->io_err = EFBIG;
				r->eof = 1;
				break;
			}
			if (want > r->limit - read_so_far)
				want = (size_t)(r->limit - read_so_far);
		}
		size_t got = fread(r->buf + r->end, 1, want, r->f);
		r->end += got;
		if (got == 0) {
			if (ferror(r->f))
				r->io_err = errno ? errno : EIO;
			r->eof = 1;
		}
	}
}

const uint8_t *import_log_rd_peek(struct log_rd *r, size_t n, size_t *avail)
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

void import_log_rd_consume(struct log_rd *r, size_t n)
{
	if (n > r->end - r->pos)
		n = r->end - r->pos;
	r->pos += n;
}

const char *import_log_rd_line(struct log_rd *r, size_t *len)
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

void import_log_hex(char *out, const uint8_t *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hx[p[i] >> 4];
		out[2 * i + 1] = hx[p[i] & 15];
	}
	out[2 * n] = 0;
}

int import_log_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int import_log_unhex(const char *s, size_t slen, uint8_t *out, size_t n)
{
	if (slen != 2 * n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int h = import_log_hexval(s[2 * i]), l = import_log_hexval(s[2 * i + 1]);
		if (h < 0 || l < 0)
			return -EINVAL;
		out[i] = (uint8_t)(h << 4 | l);
	}
	return 0;
}

int import_log_map_file(const char *path, int follow, const void **buf, size_t *len, int *is_file,
			char *err, size_t errlen)
{
	struct stat sb;
	int regular, rc = 0;
	*buf = NULL;
	*len = 0;
	if (is_file)
		*is_file = 0;
	int fd = open_input(path, follow, &regular, err, errlen);
	if (fd < 0)
		return fd;
	if (!regular) {
		/* --follow: to the end of the stream, into memory that
		 * import_log_unmap_file releases like a mapping. */
		size_t cap = 1 << 20, n = 0;
		uint8_t *m =
		    mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		for (;;) {
			if (m == MAP_FAILED) {
				rc = -ENOMEM;
				snprintf(err, errlen, "%s: out of memory", path);
				break;
			}
			if (n == cap) {
				if (cap >= LOG_FOLLOW_MAX) {
					rc = -EFBIG;
					snprintf(
					    err, errlen,
					    "%s: more than %llu bytes read (--follow stops there)",
					    path, (unsigned long long)LOG_FOLLOW_MAX);
					break;
				}
				uint8_t *g = mremap(m, cap, cap * 2, MREMAP_MAYMOVE);
				if (g == MAP_FAILED) {
					munmap(m, cap);
					m = MAP_FAILED;
					continue;
				}
				m = g;
				cap *= 2;
			}
			if (import_log_stop_requested) {
				rc = -EINTR;
				snprintf(err, errlen, "%s: interrupted", path);
				break;
			}
			ssize_t got = read(fd, m + n, cap - n);
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0) {
				rc = -errno;
				snprintf(err, errlen, "%s: %s", path, strerror(errno));
				break;
			}
			if (got == 0)
				break;
			n += (size_t)got;
		}
		close(fd);
		if (rc || !n) {
			if (m != MAP_FAILED)
				munmap(m, cap);
			return rc;
		}
		/* Trimmed to what was read, so that import_log_unmap_file(buf, len)
		 * releases all of it. */
		size_t page = (size_t)sysconf(_SC_PAGESIZE), keep = (n + page - 1) & ~(page - 1);
		if (keep < cap)
			munmap(m + keep, cap - keep);
		*buf = m;
		*len = n;
		return 0;
	}
	if (fstat(fd, &sb) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	} else if (sb.st_size > 0) {
		void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m == MAP_FAILED) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		} else {
			*buf = m;
			*len = (size_t)sb.st_size;
			if (is_file)
				*is_file = 1;
		}
	}
	close(fd);
	return rc;
}

void import_log_unmap_file(const void *buf, size_t len)
{
	if (buf)
		munmap((void *)buf, len);
}

void import_log_say(void (*msg)(void *ctx, int severity, const char *m), void *ctx, int severity,
		    const char *fmt, ...)
{
	char m[512];
	va_list ap;
	if (!msg)
		return;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	msg(ctx, severity, m);
}
