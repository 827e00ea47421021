/* Trace UUIDs and the machine identity stored with each trace. */
#include "db/host_id.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/db.h"
#include "model/tpm/crypto_lib.h"

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

/* SHA-256 through OpenSSL's low-level functions (deprecated in 3.0, not
 * removed) rather than EVP: EVP's first digest initialises OpenSSL's default
 * provider, ~2.2 MB of libcrypto's pages made resident (docs/benchmarks.md,
 * the recorder's memory). test_db checks it against EVP_Digest. */
static void sha256_hex(const char *s, char out[65])
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	SHA256_CTX c;
	out[0] = 0;
	if (tpm_crypto_load(NULL, 0) || !SHA256_Init(&c) || !SHA256_Update(&c, s, strlen(s)) ||
	    !SHA256_Final(md, &c))
		return;
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
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

/* db_host_id_prefetch's digest and the id it is of; pre_none: no libcrypto
 * (its digest stays unknown, the child said why). */
static char pre_id[256], pre_hex[65];
static int pre_none;

static void machine_id(char mid[256])
{
	if (!override("MACHINE_ID", mid, 256))
		read_line("/etc/machine-id", mid, 256);
}

/* Whether this process has one thread (/proc/self/task: ".", ".." and it). */
static int single_threaded(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	if (!d)
		return 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n == 3;
}

void db_host_id_prefetch(void)
{
	char mid[256], hex[65] = "";
	int p[2];
	machine_id(mid);
	if (!mid[0] || tpm_crypto_loaded() || !single_threaded() || pipe2(p, O_CLOEXEC))
		return;
	pid_t pid = fork();
	if (pid == 0) { /* one thread: loading a library after fork is safe */
		close(p[0]);
		if (tpm_crypto_load(NULL, 0)) /* it said why; 2: not to be tried again */
			_exit(2);
		sha256_hex(mid, hex);
		_exit(write(p[1], hex, 64) == 64 ? 0 : 1);
	}
	close(p[1]);
	size_t got = 0;
	while (pid > 0 && got < 64) {
		ssize_t n = read(p[0], hex + got, 64 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(p[0]);
	int st = 0;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
	}
	pre_none = pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 2;
	if (got == 64 || pre_none) {
		hex[got == 64 ? 64 : 0] = 0;
		snprintf(pre_id, sizeof pre_id, "%s", mid);
		memcpy(pre_hex, hex, sizeof pre_hex);
	}
}

void db_host_id_read(struct db_host_id *h)
{
	struct utsname u;
	char mid[256];
	memset(h, 0, sizeof *h);
	if (!override("HOSTNAME", h->hostname, sizeof h->hostname))
		gethostname(h->hostname, sizeof h->hostname - 1);
	machine_id(mid);
	if (mid[0] && (pre_hex[0] || pre_none) && !strcmp(mid, pre_id))
		memcpy(h->machine_id_sha256, pre_hex, sizeof pre_hex);
	else if (mid[0])
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

int db_uuid_ensure(const char *path, char *err, size_t errlen)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int need = 1, rc;
	char e[512];
	if ((rc = db_open(path, DB_READ, &db, err, errlen)))
		return rc;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM trace WHERE uuid IS NULL", -1, &st,
			       NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			need = sqlite3_column_int64(st, 0) > 0;
		sqlite3_finalize(st);
	}
	db_close(db);
	if (!need)
		return 0;
	if ((rc = db_open(path, DB_WRITE, &db, err, errlen)))
		return rc;
	int n = db_uuid_fill(db, e, sizeof e);
	db_close_for_readers(db);
	if (n < 0) {
		snprintf(err, errlen, "%s: cannot give its traces UUIDs: %s", path, e);
		return n;
	}
	return 0;
}
