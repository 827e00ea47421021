/* Diagnostics against any TPM device node: --probe prints how the node
 * answers good and bad input (so that a CUSE node can be compared line by
 * line with the kernel's), --bench times PCR_Extend round trips. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuse_proxy.h"
#include "db/json.h"
#include "model/tpm/decode.h"
#include "model/tpm/wire.h"

static const char *errname(int e)
{
	switch (e) {
	case EINVAL:
		return "EINVAL";
	case E2BIG:
		return "E2BIG";
	case EBUSY:
		return "EBUSY";
	case EAGAIN:
		return "EAGAIN";
	case EIO:
		return "EIO";
	case ENODATA:
		return "ENODATA";
	case EPIPE:
		return "EPIPE";
	case ENODEV:
		return "ENODEV";
	case EFAULT:
		return "EFAULT";
	case ETIME:
		return "ETIME";
	case ENOTTY:
		return "ENOTTY";
	case ENXIO:
		return "ENXIO";
	case ENOENT:
		return "ENOENT";
	case EACCES:
		return "EACCES";
	}
	return strerror(e);
}

/* TPM2_GetRandom(8) (TPM 2.0 Part 3, 16.1): header and a UINT16. */
static size_t cmd_getrandom(uint8_t *b, uint16_t n)
{
	wire_put_u16(b, TPM_ST_NO_SESSIONS);
	wire_put_u32(b + 2, 12);
	wire_put_u32(b + 6, 0x17B);
	wire_put_u16(b + 10, n);
	return 12;
}

/* TPM2_PCR_Extend (Part 3, 22.2) of PCR 16 with one SHA-256 digest and an
 * empty password session (Part 1, 19.8.4: TPM_RS_PW). */
static size_t cmd_pcr_extend(uint8_t *b, uint32_t seq)
{
	size_t o = 0;
	wire_put_u16(b, TPM_ST_SESSIONS);
	wire_put_u32(b + 6, 0x182);
	o = 10;
	wire_put_u32(b + o, 16); /* PCR handle */
	o += 4;
	wire_put_u32(b + o, 9); /* authorizationSize */
	o += 4;
	wire_put_u32(b + o, TPM_RS_PW);
	o += 4;
	wire_put_u16(b + o, 0); /* nonce */
	o += 2;
	b[o++] = 0;		/* session attributes */
	wire_put_u16(b + o, 0); /* hmac (password) */
	o += 2;
	wire_put_u32(b + o, 1); /* TPML_DIGEST_VALUES.count */
	o += 4;
	wire_put_u16(b + o, 0x000B); /* TPM_ALG_SHA256 */
	o += 2;
	memset(b + o, 0, 32);
	wire_put_u32(b + o, seq);
	o += 32;
	wire_put_u32(b + 2, (uint32_t)o);
	return o;
}

static void show_rw(const char *key, ssize_t n)
{
	if (n < 0)
		printf("%s=%s\n", key, errname(errno));
	else
		printf("%s=%zd\n", key, n);
}

static const char *pollstr(short ev)
{
	static char s[32];
	s[0] = 0;
	if (ev & POLLIN)
		strcat(s, "IN");
	if (ev & POLLOUT)
		strcat(s, s[0] ? "|OUT" : "OUT");
	if (ev & POLLERR)
		strcat(s, s[0] ? "|ERR" : "ERR");
	if (ev & POLLHUP)
		strcat(s, s[0] ? "|HUP" : "HUP");
	return s[0] ? s : "none";
}

static short poll_now(int fd, short events, int timeout)
{
	struct pollfd p = {.fd = fd, .events = events};
	int n = poll(&p, 1, timeout);
	return n > 0 ? p.revents : 0;
}

/* Reads a whole response and prints its size and response code. */
static void show_response(const char *key, int fd)
{
	uint8_t rsp[TPM_MAX_MESSAGE];
	ssize_t n = read(fd, rsp, sizeof rsp);
	if (n < 0)
		printf("%s=%s\n", key, errname(errno));
	else if (n < TPM_HEADER_SIZE)
		printf("%s=short:%zd\n", key, n);
	else
		printf("%s=size:%zd,rc:0x%x,sizefield_ok:%d\n", key, n, wire_get_u32(rsp + 6),
		       wire_get_u32(rsp + 2) == (uint32_t)n);
}

int devtools_probe(const char *path, int exclusive_check)
{
	uint8_t cmd[TPM_MAX_MESSAGE + 64], rsp[TPM_MAX_MESSAGE];
	size_t len;
	ssize_t n;

	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("open=%s\n", errname(errno));
		return 1;
	}
	printf("open=ok\n");
	show_rw("read_before_write", read(fd, rsp, sizeof rsp));
	printf("poll_idle=%s\n", pollstr(poll_now(fd, POLLIN | POLLOUT, 0)));

	/* Bad writes: fewer than 6 bytes, a size field beyond what was
	 * written, more than TPM_BUFSIZE. */
	len = cmd_getrandom(cmd, 8);
	show_rw("write_5_bytes", write(fd, cmd, 5));
	wire_put_u32(cmd + 2, 20);
	show_rw("write_size_field_over", write(fd, cmd, 12));
	memset(cmd, 0, sizeof cmd);
	len = cmd_getrandom(cmd, 8);
	wire_put_u32(cmd + 2, TPM_MAX_MESSAGE + 1);
	show_rw("write_4097_bytes", write(fd, cmd, TPM_MAX_MESSAGE + 1));
	static uint8_t big[65536];
	show_rw("write_65536_bytes", write(fd, big, sizeof big));
	show_rw("read_after_bad_writes", read(fd, rsp, sizeof rsp));

	/* A good command, then a second write before reading. */
	len = cmd_getrandom(cmd, 8);
	show_rw("write_getrandom", write(fd, cmd, len));
	show_rw("second_write_before_read", write(fd, cmd, len));
	printf("poll_with_response=%s\n", pollstr(poll_now(fd, POLLIN | POLLOUT, 0)));
	/* Partial reads: 4 bytes, then the rest. */
	uint8_t part[64];
	ssize_t a = read(fd, part, 4);
	ssize_t b = a == 4 ? read(fd, part + 4, sizeof part - 4) : -1;
	printf("partial_read=%zd+%zd,sizefield_ok:%d\n", a, b,
	       a == 4 && b > 0 && wire_get_u32(part + 2) == (uint32_t)(a + b));
	show_rw("read_after_response", read(fd, rsp, sizeof rsp));
	printf("poll_after_read=%s\n", pollstr(poll_now(fd, POLLIN | POLLOUT, 0)));

	/* A write larger than the size field: the TPM gets the size field's
	 * worth. */
	len = cmd_getrandom(cmd, 8);
	memset(cmd + len, 0xEE, 8);
	show_rw("write_extra_bytes", write(fd, cmd, len + 8));
	show_response("response_extra_bytes", fd);

	/* A size field of 0 and one below the header size. */
	len = cmd_getrandom(cmd, 8);
	wire_put_u32(cmd + 2, 0);
	n = write(fd, cmd, len);
	show_rw("write_size_field_0", n);
	if (n > 0)
		show_response("response_size_field_0", fd);
	/* An unknown command code. */
	len = cmd_getrandom(cmd, 8);
	wire_put_u32(cmd + 6, 0x2FFF);
	n = write(fd, cmd, len);
	show_rw("write_unknown_cc", n);
	if (n > 0)
		show_response("response_unknown_cc", fd);

	/* O_NONBLOCK: the write returns at once, poll says when to read. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	len = cmd_getrandom(cmd, 16);
	show_rw("nonblock_write", write(fd, cmd, len));
	show_rw("nonblock_second_write", write(fd, cmd, len));
	printf("nonblock_poll_in=%s\n", pollstr(poll_now(fd, POLLIN, 10000)));
	show_response("nonblock_response", fd);
	show_rw("nonblock_read_again", read(fd, rsp, sizeof rsp));
	/* A read at once after an O_NONBLOCK write, the command still in
	 * flight: the kernel's read waits for its worker (buffer_mutex) and
	 * returns the response, or, if the worker has not started yet, returns
	 * 0 and the response comes with a later read. Which of the two is a
	 * race, so both print as "response"; an error prints as itself. */
	len = cmd_getrandom(cmd, 16);
	show_rw("nonblock_write_then_read", write(fd, cmd, len));
	n = read(fd, rsp, sizeof rsp);
	if (n == 0 && (poll_now(fd, POLLIN, 10000) & POLLIN))
		n = read(fd, rsp, sizeof rsp);
	if (n < 0)
		printf("nonblock_read_in_flight=%s\n", errname(errno));
	else
		printf("nonblock_read_in_flight=%s\n",
		       n >= TPM_HEADER_SIZE && wire_get_u32(rsp + 2) == (uint32_t)n ? "response"
										    : "short");
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);

	/* The response stays until read, even across a new open elsewhere. */
	len = cmd_getrandom(cmd, 8);
	show_rw("write_then_reopen", write(fd, cmd, len));
	int fd2 = open(path, O_RDWR | O_CLOEXEC);
	printf("second_open=%s\n", fd2 >= 0 ? "ok" : errname(errno));
	if (fd2 >= 0) {
		show_rw("second_fd_read_before_write", read(fd2, rsp, sizeof rsp));
		close(fd2);
	}
	show_response("first_fd_response", fd);
	close(fd);
	(void)exclusive_check;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int devtools_bench(const char *const *paths, int n_paths, int count, int rounds, int json,
		   int getrandom)
{
	int fds[8];
	uint64_t *t[8] = {0};
	uint8_t cmd[128], rsp[TPM_MAX_MESSAGE];
	int ret = 1;
	size_t total = (size_t)count * (size_t)rounds;

	for (int i = 0; i < n_paths; i++)
		fds[i] = -1;
	for (int i = 0; i < n_paths; i++) {
		fds[i] = open(paths[i], O_RDWR | O_CLOEXEC);
		t[i] = calloc(total, sizeof(uint64_t));
		if (fds[i] < 0 || !t[i]) {
			fprintf(stderr, "tpm-cuse-proxy --bench: %s: %s\n", paths[i],
				strerror(errno));
			goto out;
		}
	}
	/* Rounds interleave the devices so that drift in the host (other
	 * load, frequency) hits all of them alike. */
	uint32_t seq = 0;
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < n_paths; i++) {
			for (int k = 0; k < count; k++) {
				size_t len =
				    getrandom ? cmd_getrandom(cmd, 16) : cmd_pcr_extend(cmd, ++seq);
				uint64_t t0 = now_ns();
				ssize_t w = write(fds[i], cmd, len);
				ssize_t n = w == (ssize_t)len ? read(fds[i], rsp, sizeof rsp) : -1;
				uint64_t t1 = now_ns();
				if (n < TPM_HEADER_SIZE || wire_get_u32(rsp + 6) != 0) {
					fprintf(stderr,
						"tpm-cuse-proxy --bench: %s: %s failed (%s, "
						"rc 0x%x)\n",
						paths[i], getrandom ? "GetRandom" : "PCR_Extend",
						n < 0 ? strerror(errno) : "response",
						n >= TPM_HEADER_SIZE ? wire_get_u32(rsp + 6) : 0);
					goto out;
				}
				t[i][(size_t)r * (size_t)count + (size_t)k] = t1 - t0;
			}
		}
	}
	struct json_w w;
	json_init_file(&w, stdout, JSON_COMPACT);
	if (json)
		json_begin_array(&w);
	for (int i = 0; i < n_paths; i++) {
		double sum = 0;
		for (size_t k = 0; k < total; k++)
			sum += (double)t[i][k];
		qsort(t[i], total, sizeof(uint64_t), cmp_u64);
		double med = (double)t[i][total / 2] / 1000.0;
		double p10 = (double)t[i][total / 10] / 1000.0;
		double p90 = (double)t[i][total * 9 / 10] / 1000.0;
		if (json) {
			json_begin_object(&w);
			json_kstr(&w, "device", paths[i]);
			json_kuint(&w, "n", total);
			json_kdouble(&w, "median_us", med, 1);
			json_kdouble(&w, "p10_us", p10, 1);
			json_kdouble(&w, "p90_us", p90, 1);
			json_kdouble(&w, "mean_us", sum / total / 1000.0, 1);
			json_end_object(&w);
		} else
			printf("%s n=%zu median_us=%.1f p10_us=%.1f p90_us=%.1f mean_us=%.1f\n",
			       paths[i], total, med, p10, p90, sum / total / 1000.0);
	}
	if (json) {
		json_end_array(&w);
		json_newline(&w);
	}
	ret = json_done(&w) ? 1 : 0;
out:
	for (int i = 0; i < n_paths; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		free(t[i]);
	}
	return ret;
}
