/* Trace UUIDs and the machine identity stored with each trace (the machine
 * id hashed by a SHA-256 of its own: see sha256_hex). */
#include "db/host_id.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "db/db.h"

int db_uuid_new(char out[37])
{
	uint8_t b[16];
	size_t got = 0;
	while (got < sizeof b) {
		ssize_t n = getrandom(b + got, sizeof b - got, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* variant 10 */
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
		 b[13], b[14], b[15]);
	return 0;
}

/* The first line of a small file (at most len-1 bytes), trailing newline
 * and spaces cut; "" if unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
	buf[0] = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		n = 0;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
}

/* SHA-256 (FIPS 180-4) of one short string. Written here rather than asked of
 * libcrypto: this is the only digest a recorder makes, and OpenSSL 3's first
 * one loads its providers, ~2.2 MB of resident memory for the life of the
 * process (docs/benchmarks.md, the recorder's memory). */
static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror32(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_block(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64], v[8];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, h, sizeof v);
	for (int i = 0; i < 64; i++) {
		uint32_t s1 = ror32(v[4], 6) ^ ror32(v[4], 11) ^ ror32(v[4], 25);
		uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint32_t t1 = v[7] + s1 + ch + sha256_k[i] + w[i];
		uint32_t s0 = ror32(v[0], 2) ^ ror32(v[0], 13) ^ ror32(v[0], 22);
		uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
		memmove(v + 1, v, 7 * sizeof v[0]);
		v[4] += t1;
		v[0] = t1 + s0 + maj;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

static void sha256_hex(const char *s, char out[65])
{
	uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	size_t len = strlen(s), off = 0;
	uint8_t tail[128] = {0};
	for (; len - off >= 64; off += 64)
		sha256_block(h, (const uint8_t *)s + off);
	size_t rest = len - off, n = rest < 56 ? 64 : 128;
	memcpy(tail, s + off, rest);
	tail[rest] = 0x80;
	uint64_t bits = (uint64_t)len * 8;
	for (int i = 0; i < 8; i++)
		tail[n - 1 - i] = (uint8_t)(bits >> (8 * i));
	for (size_t b = 0; b < n; b += 64)
		sha256_block(h, tail + b);
	for (unsigned i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", h[i]);
}

/* Test hook: TPMTRACE_HOST_ID_<name> replaces the field when set. */
static int override(const char *name, char *buf, size_t len)
{
	char var[64];
	snprintf(var, sizeof var, "TPMTRACE_HOST_ID_%s", name);
	const char *v = getenv(var);
	if (!v)
		return 0;
	snprintf(buf, len, "%s", v);
	return 1;
}

void db_host_id_read(struct db_host_id *h)
{
	struct utsname u;
	char mid[256];
	memset(h, 0, sizeof *h);
	if (!override("HOSTNAME", h->hostname, sizeof h->hostname))
		gethostname(h->hostname, sizeof h->hostname - 1);
	if (!override("MACHINE_ID", mid, sizeof mid))
		read_line("/etc/machine-id", mid, sizeof mid);
	if (mid[0])
		sha256_hex(mid, h->machine_id_sha256);
	if (!override("KERNEL_RELEASE", h->kernel_release, sizeof h->kernel_release) &&
	    uname(&u) == 0)
		snprintf(h->kernel_release, sizeof h->kernel_release, "%s", u.release);
	if (!override("KERNEL_CMDLINE", h->kernel_cmdline, sizeof h->kernel_cmdline))
		read_line("/proc/cmdline", h->kernel_cmdline, sizeof h->kernel_cmdline);
	if (!override("BOOT_ID", h->boot_id, sizeof h->boot_id))
		read_line("/proc/sys/kernel/random/boot_id", h->boot_id, sizeof h->boot_id);
}

static void bind_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s[0])
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

int db_host_id_store(sqlite3 *db, int64_t trace_id, const struct db_host_id *h)
{
	sqlite3_stmt *st;
	int rc = -EIO;
	/* OR REPLACE: a row left behind by a trace deleted by hand (its id
	 * now given to this trace) is stale. */
	if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO trace_host VALUES (?,?,?,?,?,?)", -1,
			       &st, NULL))
		return -EIO;
	sqlite3_bind_int64(st, 1, trace_id);
	bind_opt(st, 2, h->hostname);
	bind_opt(st, 3, h->machine_id_sha256);
	bind_opt(st, 4, h->kernel_release);
	bind_opt(st, 5, h->kernel_cmdline);
	bind_opt(st, 6, h->boot_id);
	if (sqlite3_step(st) == SQLITE_DONE)
		rc = 0;
	sqlite3_finalize(st);
	return rc;
}

int db_uuid_fill(sqlite3 *db, char *err, size_t errlen)
{
	sqlite3_stmt *sel = NULL, *upd = NULL;
	int n = 0, rc = -EIO;
	char u[37];
	if (db_exec(db, "BEGIN IMMEDIATE", err, errlen))
		return -EIO;
	if (sqlite3_prepare_v2(db, "SELECT id FROM trace WHERE uuid IS NULL", -1, &sel, NULL) ||
	    sqlite3_prepare_v2(db, "UPDATE trace SET uuid=? WHERE id=?", -1, &upd, NULL)) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		goto out;
	}
	while (sqlite3_step(sel) == SQLITE_ROW) {
		if (db_uuid_new(u)) {
			snprintf(err, errlen, "no randomness for a UUID");
			goto out;
		}
		sqlite3_bind_text(upd, 1, u, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(upd, 2, sqlite3_column_int64(sel, 0));
		if (sqlite3_step(upd) != SQLITE_DONE) {
			snprintf(err, errlen, "%s", sqlite3_errmsg(db));
			goto out;
		}
		sqlite3_reset(upd);
		n++;
	}
	rc = 0;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	if (rc || db_exec(db, "COMMIT", err, errlen)) {
		db_exec(db, "ROLLBACK", NULL, 0);
		return -EIO;
	}
	return n;
}
