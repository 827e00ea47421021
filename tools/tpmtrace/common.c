/* Helpers shared by tpmtrace's subcommands (tools/tpmtrace/common.h): opening a
 * database and checking one to create (cli_open_db, cli_db_for_create), picking
 * a trace by the rule of docs/cli.md (cli_pick_trace, cli_trace_kind,
 * cli_trace_delete), output files that are never one of the inputs and appear
 * whole or not at all (cli_out_check, cli_out_open, cli_out_close: a temporary
 * file created with the signals blocked, renamed into place), text made safe
 * for a terminal (db_text_safe, db_text_print_safe), progress bars on a terminal only,
 * running a child with a TCTI (cli_spawn, cli_exit_status), and small
 * formatters (cli_ns_to_ms, tpm_cc_label, cli_print_wrapped). */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "db/db.h"
#include "db/trace_kind.h"
#include "db/text.h"
#include "model/tpm/redact.h"
#include "model/tpm/tpm_cc.h"

sqlite3 *cli_open_db(const char *sub, const char *path, int write)
{
	sqlite3 *db;
	char err[512];
	if (db_open(path, write ? DB_WRITE : DB_READ, &db, err, sizeof err)) {
		cli_error(sub, "%s", err);
		return NULL;
	}
	return db;
}

int cli_db_for_create(const char *sub, const char *path)
{
	struct stat st;
	if (!path[0])
		return cli_error(sub, "the database path is empty");
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) == 0 &&
	    S_ISREG(st.st_mode) && st.st_size == 0)
		return cli_error(sub,
				 "%s: a symbolic link to an empty file; tpmtrace does not make a "
				 "database of a file it reaches through a symbolic link",
				 path);
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return cli_error(sub, "%s: is a directory, not a database file", path);
		if (!S_ISREG(st.st_mode))
			return cli_error(sub, "%s: not a regular file", path);
		if (st.st_size == 0)
			return cli_error(
			    sub,
			    "%s: empty file, not a tpmtrace database (remove it and tpmtrace "
			    "creates one)",
			    path);
		return 0;
	}
	if (errno != ENOENT)
		return cli_error(sub, "%s: %s", path, strerror(errno));
	/* Only the file is created: a mistyped directory is an error, not a
	 * new directory tree. */
	char *copy = strdup(path);
	if (!copy)
		return cli_error(sub, "out of memory");
	const char *dir = dirname(copy);
	int rc = 0;
	if (stat(dir, &st) != 0)
		rc = cli_error(sub, "%s: directory %s: %s", path, dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		rc = cli_error(sub, "%s: %s is not a directory", path, dir);
	free(copy);
	return rc;
}

static int64_t one_id(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t id = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			id = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	return id;
}

/* A trace given by id that is not finished (db_trace_finished) is used, and
 * named: what a command prints of it may be cut short. */
static void warn_unfinished(const char *sub, sqlite3 *db, int64_t id)
{
	char why[256], w[400], lead[64];
	if (db_trace_finished(db, id, why, sizeof why))
		return;
	snprintf(w, sizeof w, "trace %lld is unfinished (%s)", (long long)id, why);
	snprintf(lead, sizeof lead, "tpmtrace %s: warning: ", sub);
	cli_print_wrapped(stderr, lead, 2, w, strlen(w), CLI_WIDTH);
}

int64_t cli_pick_trace(const char *sub, sqlite3 *db, const char *arg)
{
	int64_t id;
	if (!arg) {
		char why[256];
		id = db_trace_default(db, why, sizeof why);
		if (id <= 0)
			cli_error(sub, "%s", why);
		return id > 0 ? id : 0;
	}
	if (!strcmp(arg, "latest") || !strcmp(arg, "latest-replay")) {
		/* Unfinished traces are never picked here (db/trace_kind.h). */
		int replay = !strcmp(arg, "latest-replay");
		int64_t open;
		if ((id = db_trace_latest(db, replay, &open)) > 0)
			return id;
		if (id < 0)
			cli_error(sub, "%s", sqlite3_errmsg(db));
		else if (!one_id(db, "SELECT count(*) FROM trace"))
			cli_error(sub, "the database holds no trace");
		else if (open)
			cli_error(sub,
				  "no finished %s to take (trace %lld is unfinished: --trace %lld "
				  "takes it)",
				  replay ? "replay" : "trace", (long long)open, (long long)open);
		else
			cli_error(sub, "the database holds no replay");
		return 0;
	}
	char *end;
	long long n = strtoll(arg, &end, 10);
	if (!*arg || *end || n <= 0) {
		cli_error(
		    sub,
		    "--trace takes a trace id (see 'tpmtrace list'), latest or latest-replay, "
		    "not '%s'",
		    arg);
		return 0;
	}
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM trace WHERE id=?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, n);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	if (!found) {
		cli_error(sub, "no trace %lld in this database (see 'tpmtrace list')", n);
		return 0;
	}
	warn_unfinished(sub, db, n);
	return n;
}

void cli_trace_kind(sqlite3 *db, int64_t id, char *kind, size_t klen, char *policy, size_t plen)
{
	sqlite3_stmt *st;
	kind[0] = policy[0] = 0;
	if (sqlite3_prepare_v2(db, "SELECT kind, policy FROM trace WHERE id=?", -1, &st, NULL))
		return;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *p = (const char *)sqlite3_column_text(st, 1);
		snprintf(kind, klen, "%s", k ? k : "");
		snprintf(policy, plen, "%s", p ? p : "");
	}
	sqlite3_finalize(st);
}

void cli_payloads_warn(const char *sub, int payloads, const char *db_path)
{
	if (payloads == PAYLOADS_FULL)
		fprintf(stderr,
			"tpmtrace %s: --payloads full: secrets (unsealed data, random bytes, "
			"passwords, sensitive areas) will be stored in %s\n",
			sub, cli_name(db_path));
}

int cli_trace_delete(const char *sub, const char *db_path, int64_t id)
{
	sqlite3 *db = cli_open_db(sub, db_path, 1);
	char err[256], sql[512];
	if (!db)
		return 1;
	sqlite3_busy_timeout(db, 10000);
	snprintf(sql, sizeof sql,
		 "BEGIN IMMEDIATE; DELETE FROM command WHERE trace_id=%lld;"
		 " DELETE FROM event WHERE trace_id=%lld; DELETE FROM client WHERE trace_id=%lld;"
		 " DELETE FROM trace_host WHERE trace_id=%lld; DELETE FROM trace WHERE id=%lld;"
		 " COMMIT",
		 (long long)id, (long long)id, (long long)id, (long long)id, (long long)id);
	int rc = db_exec(db, sql, err, sizeof err);
	if (rc) {
		db_exec(db, "ROLLBACK", NULL, 0);
		cli_error(sub, "%s: could not remove trace %lld: %s", db_path, (long long)id, err);
	}
	db_close(db);
	return rc ? 1 : 0;
}

/* ---- outputs ---- */

/* path with every symlink followed (also a dangling last one) and its
 * directory made absolute: two names of one file give the same text. */
static void resolve(const char *path, char *out, size_t n)
{
	char cur[PATH_MAX], t[PATH_MAX], d[PATH_MAX], rd[PATH_MAX];
	snprintf(cur, sizeof cur, "%s", path);
	for (int hops = 0; hops < 40; hops++) {
		struct stat st;
		if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
			break;
		ssize_t k = readlink(cur, t, sizeof t - 1);
		if (k < 0)
			break;
		t[k] = 0;
		if (t[0] == '/') {
			snprintf(cur, sizeof cur, "%s", t);
		} else {
			snprintf(d, sizeof d, "%s", cur);
			snprintf(rd, sizeof rd, "%s", dirname(d));
			snprintf(cur, sizeof cur, "%.2000s/%.2000s", rd, t);
		}
	}
	if (realpath(cur, rd)) {
		snprintf(out, n, "%s", rd);
		return;
	}
	snprintf(d, sizeof d, "%s", cur);
	snprintf(t, sizeof t, "%s", cur);
	if (!realpath(dirname(d), rd)) {
		snprintf(out, n, "%s", cur);
		return;
	}
	snprintf(out, n, "%.2000s/%.2000s", strcmp(rd, "/") ? rd : "", basename(t));
}

/* SQLite takes a -journal beside a database for a hot journal and deletes
 * it: an input covers these files too. */
static const char *const in_suffix[] = {"", "-wal", "-shm", "-journal"};

/* Whether the file so is in or one of in's companions (same device and
 * inode). */
static int same_inode(const struct stat *so, const char *in)
{
	char p[PATH_MAX + 16];
	struct stat si;
	for (size_t i = 0; i < CLI_COUNT(in_suffix); i++) {
		snprintf(p, sizeof p, "%s%s", in, in_suffix[i]);
		if (stat(p, &si) == 0 && si.st_dev == so->st_dev && si.st_ino == so->st_ino)
			return 1;
	}
	return 0;
}

/* Whether out names in or a companion of it: "-" when standard output is
 * that file (a shell's 1<>db), else by path or device and inode. */
static int same_file(const char *out, const char *in)
{
	char ro[PATH_MAX], ri[PATH_MAX], p[PATH_MAX + 16];
	struct stat so;
	if (!strcmp(out, "-"))
		return fstat(STDOUT_FILENO, &so) == 0 && same_inode(&so, in);
	resolve(out, ro, sizeof ro);
	resolve(in, ri, sizeof ri);
	for (size_t i = 0; i < CLI_COUNT(in_suffix); i++) {
		snprintf(p, sizeof p, "%s%s", ri, in_suffix[i]);
		if (!strcmp(ro, p))
			return 1;
	}
	return stat(out, &so) == 0 && same_inode(&so, in);
}

int cli_out_check(const char *sub, const char *path, const char *const *inputs)
{
	char a[512], b[512];
	for (unsigned i = 0; inputs && inputs[i]; i++) {
		if (!same_file(path, inputs[i]))
			continue;
		fprintf(stderr,
			"tpmtrace %s: %s: the output would overwrite the input %s; choose another "
			"file\nTry 'tpmtrace %s --help'.\n",
			sub,
			strcmp(path, "-") ? db_text_safe(path, a, sizeof a) : "standard output",
			db_text_safe(inputs[i], b, sizeof b), sub);
		return EXIT_USAGE;
	}
	return 0;
}

/* Temporary files a signal must not leave behind: the handler (installed
 * only where the signal's action is the default one) unlinks every
 * registered name in its directory, restores the default action and
 * re-raises the signal, so the exit status still says which signal ended
 * the process. */
#define OUT_SLOTS 8
static char out_tmp[OUT_SLOTS][sizeof((struct cli_out *)0)->tmp];
static int out_dir[OUT_SLOTS];
static volatile sig_atomic_t out_used[OUT_SLOTS];
static const int out_sigs[] = {SIGINT, SIGTERM, SIGHUP};
static struct sigaction out_oldsa[3];
static int out_installed[3], out_nused;

static void out_on_signal(int sig)
{
	int e = errno;
	for (int i = 0; i < OUT_SLOTS; i++)
		if (out_used[i])
			unlinkat(out_dir[i], out_tmp[i], 0);
	signal(sig, SIG_DFL);
	raise(sig); /* delivered when the handler returns */
	errno = e;
}

static void out_block(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < CLI_COUNT(out_sigs); i++)
		sigaddset(&set, out_sigs[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Creates o->tmp in o->dir (O_EXCL) with the signals blocked, so that no
 * signal comes between the file and its registration. Returns the fd or -1
 * (errno). */
static int out_create_tmp(struct cli_out *o)
{
	sigset_t old;
	int slot = -1, fd, e;
	out_block(&old);
	for (int i = 0; i < OUT_SLOTS && slot < 0; i++)
		if (!out_used[i])
			slot = i;
	fd = openat(o->dir, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	e = errno;
	if (fd >= 0 && slot >= 0) {
		memcpy(out_tmp[slot], o->tmp, sizeof out_tmp[slot]);
		out_dir[slot] = o->dir;
		out_used[slot] = 1;
		o->slot = slot;
		if (out_nused++ == 0 && !getenv("TPMTRACE_FAULT_OUT_NO_SIGNAL_CLEANUP"))
			for (size_t i = 0; i < CLI_COUNT(out_sigs); i++) {
				struct sigaction sa = {.sa_handler = out_on_signal};
				out_installed[i] = 0;
				if (sigaction(out_sigs[i], NULL, &out_oldsa[i]) ||
				    out_oldsa[i].sa_handler != SIG_DFL ||
				    (out_oldsa[i].sa_flags & SA_SIGINFO))
					continue;
				sigemptyset(&sa.sa_mask);
				out_installed[i] = !sigaction(out_sigs[i], &sa, NULL);
			}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return fd;
}

/* After o->tmp was renamed or unlinked. */
static void out_release_tmp(struct cli_out *o)
{
	sigset_t old;
	if (o->slot < 0)
		return;
	out_block(&old);
	out_used[o->slot] = 0;
	o->slot = -1;
	if (--out_nused == 0)
		for (size_t i = 0; i < CLI_COUNT(out_sigs); i++)
			if (out_installed[i])
				sigaction(out_sigs[i], &out_oldsa[i], NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* N when path, through any symbolic links, names a descriptor of this
 * process (/dev/stdout, /dev/fd/N, /proc/self/fd/N), else -1. */
static int own_fd(const char *path)
{
	char cur[PATH_MAX], t[PATH_MAX], d[PATH_MAX], rd[PATH_MAX], want[64];
	snprintf(cur, sizeof cur, "%s", path);
	for (int hops = 0; hops < 40; hops++) {
		struct stat st;
		snprintf(d, sizeof d, "%s", cur);
		snprintf(t, sizeof t, "%s", cur);
		const char *base = basename(t);
		if (realpath(dirname(d), rd)) {
			char *end;
			long n = strtol(base, &end, 10);
			int pid = (int)getpid();
			snprintf(want, sizeof want, "/proc/%d/fd", pid);
			int proc_fd = !strcmp(rd, want);
			snprintf(want, sizeof want, "/proc/%d/task/", pid);
			if (!strncmp(rd, want, strlen(want)) && strlen(rd) > 3 &&
			    !strcmp(rd + strlen(rd) - 3, "/fd"))
				proc_fd = 1;
			if (proc_fd && base[0] >= '0' && base[0] <= '9' && !*end && n < INT32_MAX)
				return (int)n;
		}
		if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
			return -1;
		ssize_t k = readlink(cur, t, sizeof t - 1);
		if (k < 0)
			return -1;
		t[k] = 0;
		if (t[0] == '/') {
			snprintf(cur, sizeof cur, "%s", t);
		} else {
			snprintf(d, sizeof d, "%s", cur);
			snprintf(rd, sizeof rd, "%s", dirname(d));
			snprintf(cur, sizeof cur, "%.2000s/%.2000s", rd, t);
		}
	}
	return -1;
}

/* The rule of the kernel's fs.protected_symlinks, _fifos and _regular,
 * applied whatever the sysctls say: in a shared sticky directory (sticky
 * and writable by everyone, as /tmp), a link, FIFO or file st that belongs
 * neither to us nor to the directory's owner ds was planted by someone
 * else. */
static int planted(const struct stat *ds, const struct stat *st)
{
	return (ds->st_mode & S_ISVTX) && (ds->st_mode & S_IWOTH) && st->st_uid != geteuid() &&
	       st->st_uid != ds->st_uid;
}

/* Walks o->path one component at a time, each opened O_PATH|O_NOFOLLOW in
 * the directory before it (from / or the working directory): every symbolic
 * link on the way, in the directories and (follow) the last one, is read
 * and walked by hand -- a relative one from the directory that holds it, at
 * most 40 -- and refused when planted. Leaves o->dir, the directory that
 * holds the last name, and o->name; *st is what is there (lstat), st_mode 0
 * when nothing is. Returns 0, or 1 with the error printed. */
static int out_walk(const char *sub, struct cli_out *o, int follow, struct stat *st)
{
	char rest[2 * PATH_MAX], buf[2 * PATH_MAX], t[PATH_MAX], c[512];
	int links = 0, fd;
	struct stat ds;
	snprintf(rest, sizeof rest, "%s", o->path);
	o->dir = open(rest[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->dir < 0)
		return cli_error(sub, "%s: %s", o->shown, strerror(errno));
	for (const char *p = rest;;) {
		p += strspn(p, "/");
		size_t n = strcspn(p, "/");
		const char *after = p + n;
		if (!n)
			return cli_error(sub, "%s: is a directory", o->shown);
		if (n >= sizeof o->name)
			return cli_error(sub, "%s: %s", o->shown, strerror(ENAMETOOLONG));
		memcpy(o->name, p, n);
		o->name[n] = 0;
		db_text_safe(o->name, c, sizeof c);
		memset(st, 0, sizeof *st);
		fd = openat(o->dir, o->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && !*after)
			return 0; /* a new name */
		if (fd < 0)
			return cli_error(sub, "%s: %s: %s", o->shown, c, strerror(errno));
		if (fstat(fd, st) || fstat(o->dir, &ds)) {
			int e = errno;
			close(fd);
			return cli_error(sub, "%s: %s: %s", o->shown, c, strerror(e));
		}
		if (S_ISLNK(st->st_mode) && (*after || follow)) {
			ssize_t k = -1;
			if (planted(&ds, st)) {
				close(fd);
				return cli_error(
				    sub,
				    "%s: the symbolic link %s is in a shared sticky directory "
				    "and owned by someone else; not followed",
				    o->shown, c);
			}
			if (++links <= 40)
				k = readlinkat(fd, "", t, sizeof t - 1);
			close(fd);
			if (k <= 0)
				return cli_error(sub, "%s: %s: %s", o->shown, c,
						 strerror(links > 40 ? ELOOP
							  : k	     ? errno
								     : ENOENT));
			t[k] = 0;
			if (strlen(t) + strlen(after) >= sizeof buf)
				return cli_error(sub, "%s: %s", o->shown, strerror(ENAMETOOLONG));
			size_t tl = strlen(t), al = strlen(after);
			memcpy(buf, t, tl);
			memcpy(buf + tl, after, al + 1);
			memcpy(rest, buf, tl + al + 1);
			p = rest;
			if (t[0] == '/') {
				close(o->dir);
				o->dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (o->dir < 0)
					return cli_error(sub, "%s: /: %s", o->shown,
							 strerror(errno));
			}
			continue;
		}
		if (!*after) {
			close(fd);
			return 0;
		}
		if (!S_ISDIR(st->st_mode)) {
			close(fd);
			return cli_error(sub, "%s: %s: %s", o->shown, c, strerror(ENOTDIR));
		}
		close(o->dir);
		o->dir = fd;
		p = after;
	}
}

/* Opens o->name, a character device or FIFO st, for writing through:
 * without blocking (a FIFO waits at most 10 s for a reader), then blocking
 * again. The file opened must be st. Returns the fd, or -1 printed. */
static int open_through(const char *sub, struct cli_out *o, const struct stat *st)
{
	struct stat fs;
	uint64_t t0 = db_mono_ns();
	int fd;
	while ((fd = openat(o->dir, o->name,
			    O_WRONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno != ENXIO || !S_ISFIFO(st->st_mode))
			return cli_error(sub, "%s: %s", o->shown, strerror(errno)), -1;
		if (db_mono_ns() - t0 > 10000000000ull)
			return cli_error(sub, "%s: a FIFO that no process reads (waited 10 s)",
					 o->shown),
			       -1;
		struct timespec ts = {0, 20000000};
		nanosleep(&ts, NULL);
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) || fstat(fd, &fs) ||
	    fs.st_dev != st->st_dev || fs.st_ino != st->st_ino) {
		close(fd);
		return cli_error(sub, "%s: changed while it was opened", o->shown), -1;
	}
	return fd;
}

static void out_drop_dir(struct cli_out *o)
{
	if (o->dir >= 0)
		close(o->dir);
	o->dir = -1;
}

static int out_fdopen(const char *sub, struct cli_out *o, int fd)
{
	o->f = fdopen(fd, "w");
	if (o->f)
		return 0;
	int e = errno;
	close(fd);
	if (o->slot >= 0) {
		unlinkat(o->dir, o->tmp, 0);
		out_release_tmp(o);
	}
	out_drop_dir(o);
	return cli_error(sub, "%s: %s", o->shown, strerror(e));
}

/* What cli_out_open does once the output is not stdout nor a descriptor of
 * ours: 0 with o->f open, or 1 printed (o->dir left to the caller). */
static int out_open_path(const char *sub, struct cli_out *o)
{
	struct stat st, ds;
	/* Test-only (tests/README.md): every output renamed over, as before. */
	int renamed = !!getenv("TPMTRACE_FAULT_OUT_RENAME_OVER");
	if (out_walk(sub, o, !renamed, &st))
		return 1;
	if (!renamed && st.st_mode) {
		if (fstat(o->dir, &ds))
			return cli_error(sub, "%s: %s", o->shown, strerror(errno));
		if (S_ISDIR(st.st_mode))
			return cli_error(sub, "%s: is a directory", o->shown);
		if (S_ISBLK(st.st_mode))
			return cli_error(
			    sub, "%s: is a block device; tpmtrace writes no output onto one",
			    o->shown);
		if (S_ISSOCK(st.st_mode))
			return cli_error(sub, "%s: is a socket; tpmtrace writes no output into one",
					 o->shown);
		if ((S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode)) && planted(&ds, &st))
			return cli_error(
			    sub,
			    "%s: a %s in a shared sticky directory owned by someone else; "
			    "not written",
			    o->shown, S_ISFIFO(st.st_mode) ? "FIFO" : "file");
		if (!S_ISREG(st.st_mode)) {
			int fd = open_through(sub, o, &st);
			if (fd < 0)
				return 1;
			o->through = 1;
			out_drop_dir(o);
			return out_fdopen(sub, o, fd);
		}
	}
	int fd = -1;
	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		uint32_t r = 0;
		if (getrandom(&r, sizeof r, 0) != sizeof r)
			r = (uint32_t)db_mono_ns() ^ (uint32_t)getpid() * 2654435761u;
		snprintf(o->tmp, sizeof o->tmp, ".%.200s.%08x.tmp", o->name, r);
		fd = out_create_tmp(o);
		if (fd < 0 && errno != EEXIST)
			return cli_error(sub, "%s: cannot create a file beside it: %s", o->shown,
					 strerror(errno));
	}
	if (fd < 0)
		return cli_error(sub, "%s: cannot create a temporary file", o->shown);
	return out_fdopen(sub, o, fd);
}

int cli_out_open(const char *sub, struct cli_out *o, const char *path, const char *const *inputs)
{
	memset(o, 0, sizeof *o);
	o->slot = -1;
	o->dir = -1;
	int rc = cli_out_check(sub, path, inputs);
	if (rc)
		return rc;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		o->to_stdout = 1;
		return 0;
	}
	if (!path[0])
		return cli_error(sub, "the output path is empty");
	db_text_safe(path, o->shown, sizeof o->shown);
	if (strlen(path) >= sizeof o->path)
		return cli_error(sub, "%s: path too long", o->shown);
	snprintf(o->path, sizeof o->path, "%s", path);
	int fd = getenv("TPMTRACE_FAULT_OUT_RENAME_OVER") ? -1 : own_fd(path);
	if (fd >= 0) {
		/* What this process wrote there before comes first. */
		fflush(stdout);
		int dup = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (dup < 0)
			return cli_error(sub, "%s: %s", o->shown, strerror(errno));
		o->through = 1;
		return out_fdopen(sub, o, dup);
	}
	if (out_open_path(sub, o)) {
		out_drop_dir(o);
		return 1;
	}
	return 0;
}

/* Flushes f: 0, or the error (errno of the failed write, EIO if unknown). */
static int out_flush(FILE *f)
{
	errno = 0;
	if (fflush(f) == 0 && !ferror(f))
		return 0;
	return errno ? errno : EIO;
}

int cli_out_close(const char *sub, struct cli_out *o, int ok)
{
	int bad = !ok, e;
	if (!o->f)
		return bad;
	if (o->to_stdout) {
		if ((e = out_flush(stdout)) && !bad)
			bad = cli_error(sub, "standard output: %s", strerror(e));
		o->f = NULL;
		return bad;
	}
	if (!bad && (e = out_flush(o->f)))
		bad = cli_error(sub, "%s: %s", o->shown, strerror(e));
	if (!bad && !o->through && fsync(fileno(o->f)))
		bad = cli_error(sub, "%s: %s", o->shown, strerror(errno));
	if (fclose(o->f) && !bad)
		bad = cli_error(sub, "%s: %s", o->shown, strerror(errno));
	o->f = NULL;
	if (o->through)
		return bad;
	struct stat st;
	/* What is there now is replaced only if it is still a regular file. */
	if (!bad && !getenv("TPMTRACE_FAULT_OUT_RENAME_OVER") &&
	    fstatat(o->dir, o->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
		bad = cli_error(sub, "%s: is no longer a regular file; not replaced", o->shown);
	if (!bad && renameat(o->dir, o->tmp, o->dir, o->name))
		bad = cli_error(sub, "%s: %s", o->shown, strerror(errno));
	if (bad) {
		unlinkat(o->dir, o->tmp, 0);
		out_release_tmp(o);
		out_drop_dir(o);
		return 1;
	}
	out_release_tmp(o);
	int dfd = openat(o->dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	out_drop_dir(o);
	return 0;
}

const char *cli_name(const char *s)
{
	static char buf[4][1024];
	static unsigned next;
	char *b = buf[next++ % 4];
	return db_text_safe(s, b, sizeof buf[0]);
}

double cli_ns_to_ms(double ns)
{
	return ns / 1e6;
}

void progress_init(struct progress *p, const char *what, const char *unit, int allowed)
{
	const char *ci = getenv("CI");
	memset(p, 0, sizeof *p);
	p->what = what;
	p->unit = unit;
	p->enabled = allowed && isatty(2) && !(ci && *ci && strcmp(ci, "false") && strcmp(ci, "0"));
	p->t_start = db_mono_ns();
}

void progress_update(struct progress *p, uint64_t done, uint64_t total)
{
	if (!p->enabled)
		return;
	uint64_t now = db_mono_ns();
	if (done < total && p->shown && now - p->t_last < 100000000ull)
		return;
	p->t_last = now;
	p->shown = 1;
	double secs = (double)(now - p->t_start) / 1e9;
	double rate = secs > 0 ? (double)done / secs : 0;
	int width = 30, fill = total ? (int)((double)done * width / (double)total) : 0;
	char bar[40], eta[32] = "--:--";
	for (int i = 0; i < width; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[width] = 0;
	if (rate > 0 && total >= done) {
		unsigned long left = (unsigned long)((double)(total - done) / rate + 0.5);
		snprintf(eta, sizeof eta, "%lu:%02lu", left / 60, left % 60);
	}
	fprintf(stderr, "\r%s [%s] %3d%% %llu/%llu %s, %.0f/s, ETA %s ", p->what, bar,
		total ? (int)(100.0 * (double)done / (double)total) : 0, (unsigned long long)done,
		(unsigned long long)total, p->unit, rate, eta);
	fflush(stderr);
}

void progress_done(struct progress *p)
{
	if (p->shown)
		fprintf(stderr, "\r%100s\r", "");
	p->shown = 0;
}

pid_t cli_spawn(const char *sub, char *const argv[], const sigset_t *mask, const char *tcti)
{
	pid_t pid = fork();
	if (pid < 0) {
		cli_error(sub, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, mask, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (tcti) {
			setenv("TPM2TOOLS_TCTI", tcti, 1);
			setenv("TCTI", tcti, 1);
			setenv("TPMTRACE_TCTI", tcti, 1);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "tpmtrace %s: cannot run %s: %s\n", sub, argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int cli_exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

void cli_print_wrapped(FILE *f, const char *lead, int indent, const char *text, size_t len,
		       int width)
{
	int col = fprintf(f, "%s", lead);
	size_t i = 0;
	int first = 1;
	while (i < len) {
		while (i < len && text[i] == ' ')
			i++;
		size_t w = i;
		while (w < len && text[w] != ' ')
			w++;
		if (w == i)
			break;
		int n = (int)(w - i);
		if (!first && col + 1 + n > width) {
			col = fprintf(f, "\n%*s", indent, "") - 1;
			first = 1;
		}
		col += fprintf(f, "%s%.*s", first ? "" : " ", n, text + i);
		first = 0;
		i = w;
	}
	fputc('\n', f);
}
