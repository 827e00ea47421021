/* A private swtpm (recorder/transport/swtpm_spawn.h): swtpm_spawn makes a fresh
 * 0700 state directory with a lock file held by flock for tpmtrace's lifetime,
 * starts swtpm (found in PATH) on unix sockets in it with PR_SET_PDEATHSIG,
 * waits until its control channel answers (its TPM initialized, its state
 * written: swtpm_ready), and when it exits at start puts
 * the tail of its log in the error; swtpm_stop ends it and removes the
 * directory. swtpm_sweep_stale removes the directories of earlier, killed runs,
 * those whose lock nobody holds (docs/security.md, "swtpm state"). Sockets
 * through netutil.h. */
#include "recorder/transport/swtpm_spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/tpm/wire.h"
#include "recorder/transport/netutil.h"
#include "recorder/transport/transport.h"

#define READY_TIMEOUT_MS 60000 /* swtpm's first start makes its seeds and state */

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[600];
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

#define LOCK_NAME "tpmtrace.lock"

/* 1 if a swtpm accepts connections on a socket in dir. */
static int swtpm_answers(const char *dir)
{
	static const char *const names[] = {"swtpm.sock", "swtpm-ctrl.sock"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct endpoint ep = {.is_unix = 1};
		int fd;
		snprintf(ep.path, sizeof ep.path, "%.90s/%s", dir, names[i]);
		if (net_endpoint_connect(&ep, &fd) == 0) {
			close(fd);
			return 1;
		}
	}
	return 0;
}

/* The last line of swtpm's log in dir (why it stopped), or "". */
static void log_tail(const char *dir, char *out, size_t len)
{
	char p[300], line[512];
	snprintf(p, sizeof p, "%s/swtpm.log", dir);
	FILE *f = fopen(p, "re");
	out[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			snprintf(out, len, "%.160s", line);
	}
	fclose(f);
}

int swtpm_sweep_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[600], lock[640];
	int removed = 0;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct stat st;
		if (strncmp(e->d_name, "tpmtrace-swtpm-", 15) != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		snprintf(lock, sizeof lock, "%s/" LOCK_NAME, path);
		int fd = open(lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			/* Held by a live tpmtrace: not ours to touch. */
			if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
				close(fd);
				continue;
			}
		} else if (errno != ENOENT || time(NULL) - st.st_mtime < 60 ||
			   swtpm_answers(path)) {
			/* No lock file: a directory being made right now (the
			 * lock follows mkdtemp), or an older tpmtrace's whose
			 * swtpm still runs. */
			continue;
		}
		remove_tree(path);
		if (fd >= 0)
			close(fd);
		removed += access(path, F_OK) != 0;
	}
	closedir(d);
	return removed;
}

/* 1 if name is an executable file in PATH (what execvp will find). */
static int in_path(const char *name)
{
	const char *p = getenv("PATH");
	char f[4200];
	if (!p)
		p = "/usr/local/bin:/usr/bin:/bin";
	while (*p) {
		size_t n = strcspn(p, ":");
		snprintf(f, sizeof f, "%.*s/%s", n ? (int)n : 1, n ? p : ".", name);
		if (access(f, X_OK) == 0)
			return 1;
		p += n + (p[n] == ':');
	}
	return 0;
}

/* Undoes a spawn that failed: nothing is left behind. */
static void spawn_undo(struct swtpm_child *s)
{
	swtpm_stop(s);
	s->dir[0] = 0;
}

/* A fresh private state directory in $TMPDIR (after the stale ones of
 * killed tpmtrace processes are gone), locked for this process's lifetime. */
static int make_private_dir(struct swtpm_child *s, char *err, size_t errlen)
{
	int rc;
	const char *tmp = getenv("TMPDIR");
	char parent[256];
	snprintf(parent, sizeof parent, "%s", tmp && *tmp ? tmp : "/tmp");
	/* Unix socket paths are short (108 bytes with the file name). */
	if (strlen(parent) > 64)
		snprintf(parent, sizeof parent, "/tmp");
	/* The state of a killed tpmtrace's swtpm (NV contents and
	 * hierarchy authValues in clear) goes first (not with the
	 * test-only TPMTRACE_FAULT_SWTPM_KEEP_STALE: its fault proof). */
	const char *keep = getenv("TPMTRACE_FAULT_SWTPM_KEEP_STALE");
	if (!keep || !*keep || !strcmp(keep, "0"))
		swtpm_sweep_stale(parent);
	snprintf(s->dir, sizeof s->dir, "%s/tpmtrace-swtpm-XXXXXX", parent);
	if (!mkdtemp(s->dir)) {
		rc = -errno;
		snprintf(err, errlen, "cannot create a state directory in %s: %s", parent,
			 strerror(errno));
		return rc;
	}
	s->own_dir = 1;
	/* The lock file appears locked: made under another name, locked,
	 * then renamed. A sweep that found it unlocked in between would
	 * take this live directory for a dead one's. */
	char lock[300], fresh[310];
	snprintf(lock, sizeof lock, "%s/" LOCK_NAME, s->dir);
	snprintf(fresh, sizeof fresh, "%s.new", lock);
	s->lock_fd = open(fresh, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0 ||
	    rename(fresh, lock) != 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot lock %s: %s", lock, strerror(errno));
		if (s->lock_fd >= 0)
			close(s->lock_fd);
		s->lock_fd = -1;
		spawn_undo(s);
		return rc;
	}
	s->locked = 1;
	return 0;
}

/* swtpm listens before its TPM is initialized and its state written; its
 * control channel is served from its main loop, after that. So it is ready
 * when a control command (GET_CAPABILITY) is answered. Returns 0 or -errno. */
static int swtpm_ready(const struct swtpm_child *s, int ctrl_only)
{
	struct endpoint ep = {.is_unix = 1};
	uint8_t req[4], rsp[8];
	int fd, rc;
	if (ctrl_only)
		snprintf(ep.path, sizeof ep.path, "%.100s", s->sock);
	else
		snprintf(ep.path, sizeof ep.path, "%.100s.ctrl", s->sock);
	rc = net_endpoint_connect(&ep, &fd);
	if (rc)
		return rc;
	wire_put_u32(req, SWTPM_CMD_GET_CAPABILITY);
	rc = net_write_full(fd, req, sizeof req, READY_TIMEOUT_MS);
	if (!rc)
		rc = net_read_full(fd, rsp, sizeof rsp, READY_TIMEOUT_MS);
	close(fd);
	return rc;
}

/* The next sleep of a wait for swtpm: 1 ms first (it is usually there
 * within a few), doubling to 10 ms; *waited_us adds it up. */
static void backoff(unsigned *step_us, unsigned *waited_us)
{
	struct timespec ts = {0, (long)*step_us * 1000};
	nanosleep(&ts, NULL);
	*waited_us += *step_us;
	if (*step_us < 10000)
		*step_us = *step_us * 2 > 10000 ? 10000 : *step_us * 2;
}

int swtpm_spawn(struct swtpm_child *s, const char *state_dir, enum swtpm_spawn_mode mode, char *err,
		size_t errlen)
{
	char statearg[300], serverarg[340], ctrlarg[360], logarg[340];
	int ctrl_only = mode == SWTPM_CTRL_ONLY;
	int rc;

	memset(s, 0, sizeof(*s));
	s->lock_fd = -1;
	if (!in_path("swtpm")) {
		snprintf(err, errlen,
			 "swtpm not found in PATH; install swtpm (Debian: the swtpm "
			 "package)");
		return -ENOENT;
	}
	if (state_dir) {
		snprintf(s->dir, sizeof s->dir, "%s", state_dir);
		if (mkdir(s->dir, 0700) != 0 && errno != EEXIST) {
			rc = -errno;
			snprintf(err, errlen, "cannot create %s: %s", s->dir, strerror(errno));
			return rc;
		}
	} else if ((rc = make_private_dir(s, err, errlen))) {
		return rc;
	}
	if (ctrl_only) {
		snprintf(s->sock, sizeof s->sock, "%s/swtpm-ctrl.sock", s->dir);
		snprintf(ctrlarg, sizeof ctrlarg, "type=unixio,path=%s", s->sock);
		unlink(s->sock);
	} else {
		snprintf(s->sock, sizeof s->sock, "%s/swtpm.sock", s->dir);
		snprintf(s->tcti, sizeof s->tcti, "swtpm:path=%s", s->sock);
		snprintf(ctrlarg, sizeof ctrlarg, "type=unixio,path=%s.ctrl", s->sock);
	}
	snprintf(statearg, sizeof statearg, "dir=%s", s->dir);
	snprintf(serverarg, sizeof serverarg, "type=unixio,path=%s", s->sock);
	snprintf(logarg, sizeof logarg, "file=%s/swtpm.log", s->dir);

	/* The child reports a failed exec through a close-on-exec pipe: EOF
	 * means swtpm runs. */
	int xp[2];
	if (pipe2(xp, O_CLOEXEC) != 0) {
		rc = -errno;
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		spawn_undo(s);
		return rc;
	}
	pid_t parent = getpid();
	s->pid = fork();
	if (s->pid < 0) {
		rc = -errno;
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(xp[0]);
		close(xp[1]);
		s->pid = 0;
		spawn_undo(s);
		return rc;
	}
	if (s->pid == 0) {
		close(xp[0]);
		/* swtpm must not outlive tpmtrace, even after SIGKILL. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		int devnull = open("/dev/null", O_RDWR);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
		}
		setpgid(0, 0); /* a terminal's ^C goes to tpmtrace, which stops swtpm */
		/* The parent may block signals for its signalfd: swtpm must
		 * get SIGTERM. */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		char *argv[] = {"swtpm",   "socket",  "--tpm2",	       "--tpmstate", statearg,
				"--ctrl",  ctrlarg,   "--log",	       logarg,	     "--server",
				serverarg, "--flags", "not-need-init", NULL};
		/* QEMU's emulator backend hands swtpm its data channel later
		 * (SET_DATAFD) and powers it on with INIT, as firmware would. */
		if (ctrl_only)
			argv[9] = NULL;
		execvp("swtpm", argv);
		int e = errno;
		if (write(xp[1], &e, sizeof e) != (ssize_t)sizeof e)
			_exit(126);
		_exit(127);
	}
	close(xp[1]);
	int exec_errno = 0;
	ssize_t got = read(xp[0], &exec_errno, sizeof exec_errno);
	close(xp[0]);
	if (got == (ssize_t)sizeof exec_errno) {
		snprintf(err, errlen, "cannot run swtpm: %s", strerror(exec_errno));
		spawn_undo(s);
		return -exec_errno;
	}
	/* Ready when its socket accepts a connection. */
	struct endpoint ep = {.is_unix = 1};
	snprintf(ep.path, sizeof ep.path, "%.100s", s->sock);
	for (unsigned step = 1000, waited = 0; waited < 5000000; backoff(&step, &waited)) {
		int fd, status;
		if (net_endpoint_connect(&ep, &fd) == 0) {
			close(fd);
			rc = swtpm_ready(s, ctrl_only);
			if (!rc)
				return 0;
			snprintf(err, errlen, "swtpm did not answer on its control channel: %s",
				 rc == -ETIMEDOUT ? "no answer within 60 s" : strerror(-rc));
			spawn_undo(s);
			return rc;
		}
		if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
			s->pid = 0;
			char last[200] = "";
			log_tail(s->dir, last, sizeof last);
			if (s->own_dir || !last[0])
				snprintf(err, errlen, "swtpm exited at start (status %d)%s%s",
					 WIFEXITED(status) ? WEXITSTATUS(status) : -1,
					 last[0] ? ": " : "", last);
			else
				snprintf(err, errlen,
					 "swtpm exited at start (status %d): %s (see %s/swtpm.log)",
					 WIFEXITED(status) ? WEXITSTATUS(status) : -1, last,
					 s->dir);
			if (s->own_dir)
				spawn_undo(s);
			return -ECHILD;
		}
	}
	snprintf(err, errlen, "swtpm did not open %s within 5 s", s->sock);
	spawn_undo(s);
	return -ETIMEDOUT;
}

void swtpm_stop(struct swtpm_child *s)
{
	if (s->pid > 0) {
		int status;
		kill(s->pid, SIGTERM);
		for (unsigned step = 1000, waited = 0; waited < 2000000; backoff(&step, &waited)) {
			if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
				s->pid = 0;
				break;
			}
		}
		if (s->pid > 0) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, &status, 0);
		}
		s->pid = 0;
	}
	if (s->own_dir && s->dir[0]) {
		remove_tree(s->dir);
		s->own_dir = 0;
	}
	/* The lock goes last: the directory is gone by then. */
	if (s->locked) {
		close(s->lock_fd);
		s->locked = 0;
		s->lock_fd = -1;
	}
}
