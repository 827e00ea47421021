/* Outputs that never destroy a file (db/out.h). */
#include "db/out.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h" /* db_mono_ns */
#include "db/text.h"

#define OUT_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The error: written into o->err; returns 1. */
#define out_err(o, ...) db_errf((o)->err, sizeof(o)->err, 1, __VA_ARGS__)

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
	for (size_t i = 0; i < OUT_COUNT(in_suffix); i++) {
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
	for (size_t i = 0; i < OUT_COUNT(in_suffix); i++) {
		snprintf(p, sizeof p, "%s%s", ri, in_suffix[i]);
		if (!strcmp(ro, p))
			return 1;
	}
	return stat(out, &so) == 0 && same_inode(&so, in);
}

int db_out_check(const char *path, const char *const *inputs, char *err, size_t errlen)
{
	char a[512], b[512];
	for (unsigned i = 0; inputs && inputs[i]; i++) {
		if (!same_file(path, inputs[i]))
			continue;
		snprintf(err, errlen,
			 "%s: the output would overwrite the input %s; choose another file",
			 strcmp(path, "-") ? db_text_safe(path, a, sizeof a) : "standard output",
			 db_text_safe(inputs[i], b, sizeof b));
		return DB_OUT_REFUSED;
	}
	return 0;
}

/* Temporary files a signal must not leave behind: the handler (installed
 * only where the signal's action is the default one) unlinks every
 * registered name in its directory, restores the default action and
 * re-raises the signal, so the exit status still says which signal ended
 * the process. */
#define OUT_SLOTS 8
static char out_tmp[OUT_SLOTS][sizeof((struct db_out *)0)->tmp];
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
	for (size_t i = 0; i < OUT_COUNT(out_sigs); i++)
		sigaddset(&set, out_sigs[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

/* Creates o->tmp in o->dir (O_EXCL) with the signals blocked, so that no
 * signal comes between the file and its registration. Returns the fd or -1
 * (errno). */
static int out_create_tmp(struct db_out *o)
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
			for (size_t i = 0; i < OUT_COUNT(out_sigs); i++) {
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
static void out_release_tmp(struct db_out *o)
{
	sigset_t old;
	if (o->slot < 0)
		return;
	out_block(&old);
	out_used[o->slot] = 0;
	o->slot = -1;
	if (--out_nused == 0)
		for (size_t i = 0; i < OUT_COUNT(out_sigs); i++)
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
static int out_walk(struct db_out *o, int follow, struct stat *st)
{
	char rest[2 * PATH_MAX], buf[2 * PATH_MAX], t[PATH_MAX], c[512];
	int links = 0, fd;
	struct stat ds;
	snprintf(rest, sizeof rest, "%s", o->path);
	o->dir = open(rest[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o->dir < 0)
		return out_err(o, "%s: %s", o->shown, strerror(errno));
	for (const char *p = rest;;) {
		p += strspn(p, "/");
		size_t n = strcspn(p, "/");
		const char *after = p + n;
		if (!n)
			return out_err(o, "%s: is a directory", o->shown);
		if (n >= sizeof o->name)
			return out_err(o, "%s: %s", o->shown, strerror(ENAMETOOLONG));
		memcpy(o->name, p, n);
		o->name[n] = 0;
		db_text_safe(o->name, c, sizeof c);
		memset(st, 0, sizeof *st);
		fd = openat(o->dir, o->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT && !*after)
			return 0; /* a new name */
		if (fd < 0)
			return out_err(o, "%s: %s: %s", o->shown, c, strerror(errno));
		if (fstat(fd, st) || fstat(o->dir, &ds)) {
			int e = errno;
			close(fd);
			return out_err(o, "%s: %s: %s", o->shown, c, strerror(e));
		}
		if (S_ISLNK(st->st_mode) && (*after || follow)) {
			ssize_t k = -1;
			if (planted(&ds, st)) {
				close(fd);
				return out_err(
				    o,
				    "%s: the symbolic link %s is in a shared sticky directory "
				    "and owned by someone else; not followed",
				    o->shown, c);
			}
			if (++links <= 40)
				k = readlinkat(fd, "", t, sizeof t - 1);
			close(fd);
			if (k <= 0)
				return out_err(o, "%s: %s: %s", o->shown, c,
					       strerror(links > 40 ? ELOOP
							: k	   ? errno
								   : ENOENT));
			t[k] = 0;
			if (strlen(t) + strlen(after) >= sizeof buf)
				return out_err(o, "%s: %s", o->shown, strerror(ENAMETOOLONG));
			size_t tl = strlen(t), al = strlen(after);
			memcpy(buf, t, tl);
			memcpy(buf + tl, after, al + 1);
			memcpy(rest, buf, tl + al + 1);
			p = rest;
			if (t[0] == '/') {
				close(o->dir);
				o->dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (o->dir < 0)
					return out_err(o, "%s: /: %s", o->shown, strerror(errno));
			}
			continue;
		}
		if (!*after) {
			close(fd);
			return 0;
		}
		if (!S_ISDIR(st->st_mode)) {
			close(fd);
			return out_err(o, "%s: %s: %s", o->shown, c, strerror(ENOTDIR));
		}
		close(o->dir);
		o->dir = fd;
		p = after;
	}
}

/* Opens o->name, a character device or FIFO st, for writing through:
 * without blocking (a FIFO waits at most 10 s for a reader), then blocking
 * again. The file opened must be st. Returns the fd, or -1 printed. */
static int open_through(struct db_out *o, const struct stat *st)
{
	struct stat fs;
	uint64_t t0 = db_mono_ns();
	int fd;
	while ((fd = openat(o->dir, o->name,
			    O_WRONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno != ENXIO || !S_ISFIFO(st->st_mode))
			return out_err(o, "%s: %s", o->shown, strerror(errno)), -1;
		if (db_mono_ns() - t0 > 10000000000ull)
			return out_err(o, "%s: a FIFO that no process reads (waited 10 s)",
				       o->shown),
			       -1;
		struct timespec ts = {0, 20000000};
		nanosleep(&ts, NULL);
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) || fstat(fd, &fs) ||
	    fs.st_dev != st->st_dev || fs.st_ino != st->st_ino) {
		close(fd);
		return out_err(o, "%s: changed while it was opened", o->shown), -1;
	}
	return fd;
}

static void out_drop_dir(struct db_out *o)
{
	if (o->dir >= 0)
		close(o->dir);
	o->dir = -1;
}

/* The stream over an output's descriptor: it keeps the errno of the first
 * write that failed, which stdio does not (a later call may reset errno
 * before the output is closed, and a failed write reported as EIO hides a
 * full disk). */
struct out_sink {
	int fd;
	int err; /* the first failed write's errno, or 0 */
};

static ssize_t sink_write(void *c, const char *buf, size_t n)
{
	struct out_sink *k = c;
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(k->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!k->err)
				k->err = w < 0 ? errno : EIO;
			/* glibc takes a short count as the error: what was
			 * written is not written again. */
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

static int sink_close(void *c)
{
	struct out_sink *k = c;
	int rc = close(k->fd);
	free(k);
	return rc;
}

static int out_fdopen(struct db_out *o, int fd)
{
	int e = ENOMEM;
	struct out_sink *k = calloc(1, sizeof *k);
	if (k) {
		k->fd = fd;
		o->f = fopencookie(
		    k, "w", (cookie_io_functions_t){.write = sink_write, .close = sink_close});
		if (o->f) {
			o->sink = k;
			return 0;
		}
		e = errno;
		free(k);
	}
	close(fd);
	if (o->slot >= 0) {
		unlinkat(o->dir, o->tmp, 0);
		out_release_tmp(o);
	}
	out_drop_dir(o);
	return out_err(o, "%s: %s", o->shown, strerror(e));
}

/* What db_out_open does once the output is not stdout nor a descriptor of
 * ours: 0 with o->f open, or 1 printed (o->dir left to the caller). */
static int out_open_path(struct db_out *o)
{
	struct stat st, ds;
	/* Test-only (tests/README.md): every output renamed over, as before. */
	int renamed = !!getenv("TPMTRACE_FAULT_OUT_RENAME_OVER");
	if (out_walk(o, !renamed, &st))
		return 1;
	if (!renamed && st.st_mode) {
		if (fstat(o->dir, &ds))
			return out_err(o, "%s: %s", o->shown, strerror(errno));
		if (S_ISDIR(st.st_mode))
			return out_err(o, "%s: is a directory", o->shown);
		if (S_ISBLK(st.st_mode))
			return out_err(o,
				       "%s: is a block device; tpmtrace writes no output onto one",
				       o->shown);
		if (S_ISSOCK(st.st_mode))
			return out_err(o, "%s: is a socket; tpmtrace writes no output into one",
				       o->shown);
		if ((S_ISFIFO(st.st_mode) || S_ISREG(st.st_mode)) && planted(&ds, &st))
			return out_err(
			    o,
			    "%s: a %s in a shared sticky directory owned by someone else; "
			    "not written",
			    o->shown, S_ISFIFO(st.st_mode) ? "FIFO" : "file");
		if (!S_ISREG(st.st_mode)) {
			int fd = open_through(o, &st);
			if (fd < 0)
				return 1;
			o->through = 1;
			out_drop_dir(o);
			return out_fdopen(o, fd);
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
			return out_err(o, "%s: cannot create a file beside it: %s", o->shown,
				       strerror(errno));
	}
	if (fd < 0)
		return out_err(o, "%s: cannot create a temporary file", o->shown);
	return out_fdopen(o, fd);
}

int db_out_open(struct db_out *o, const char *path, const char *const *inputs)
{
	memset(o, 0, sizeof *o);
	o->slot = -1;
	o->dir = -1;
	int rc = db_out_check(path, inputs, o->err, sizeof o->err);
	if (rc)
		return rc;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		o->to_stdout = 1;
		return 0;
	}
	if (!path[0])
		return out_err(o, "the output path is empty");
	db_text_safe(path, o->shown, sizeof o->shown);
	if (strlen(path) >= sizeof o->path)
		return out_err(o, "%s: path too long", o->shown);
	snprintf(o->path, sizeof o->path, "%s", path);
	int fd = getenv("TPMTRACE_FAULT_OUT_RENAME_OVER") ? -1 : own_fd(path);
	if (fd >= 0) {
		/* What this process wrote there before comes first. */
		fflush(stdout);
		int dup = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (dup < 0)
			return out_err(o, "%s: %s", o->shown, strerror(errno));
		o->through = 1;
		return out_fdopen(o, dup);
	}
	if (out_open_path(o)) {
		out_drop_dir(o);
		return 1;
	}
	return 0;
}

int db_out_write_error(const struct db_out *o)
{
	return o->sink ? o->sink->err : 0;
}

/* Flushes f: 0, or the error (errno of the failed write, EIO if unknown).
 * k: the output's sink, which knows its first failed write's errno. */
static int out_flush(FILE *f, const struct out_sink *k)
{
	errno = 0;
	if (fflush(f) == 0 && !ferror(f))
		return 0;
	if (k && k->err)
		return k->err;
	return errno ? errno : EIO;
}

int db_out_close(struct db_out *o, int ok)
{
	int bad = !ok, e;
	o->err[0] = 0;
	if (!o->f)
		return bad;
	if (o->to_stdout) {
		if ((e = out_flush(stdout, NULL)) && !bad)
			bad = out_err(o, "standard output: %s", strerror(e));
		o->f = NULL;
		return bad;
	}
	if (!bad && (e = out_flush(o->f, o->sink)))
		bad = out_err(o, "%s: %s", o->shown, strerror(e));
	if (!bad && !o->through && fsync(o->sink->fd))
		bad = out_err(o, "%s: %s", o->shown, strerror(errno));
	if (fclose(o->f) && !bad)
		bad = out_err(o, "%s: %s", o->shown, strerror(errno));
	o->f = NULL;
	o->sink = NULL;
	if (o->through)
		return bad;
	struct stat st;
	/* What is there now is replaced only if it is still a regular file. */
	if (!bad && !getenv("TPMTRACE_FAULT_OUT_RENAME_OVER") &&
	    fstatat(o->dir, o->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
		bad = out_err(o, "%s: is no longer a regular file; not replaced", o->shown);
	if (!bad && renameat(o->dir, o->tmp, o->dir, o->name))
		bad = out_err(o, "%s: %s", o->shown, strerror(errno));
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
