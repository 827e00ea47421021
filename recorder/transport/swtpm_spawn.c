#include "recorder/transport/swtpm_spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recorder/transport/netutil.h"

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

int swtpm_spawn(struct swtpm_child *s, const char *state_dir, enum swtpm_spawn_mode mode, char *err,
		size_t errlen)
{
	char statearg[300], serverarg[340], ctrlarg[360], logarg[340];
	int ctrl_only = mode == SWTPM_CTRL_ONLY;
	int rc;

	memset(s, 0, sizeof(*s));
	if (state_dir) {
		snprintf(s->dir, sizeof s->dir, "%s", state_dir);
		if (mkdir(s->dir, 0700) != 0 && errno != EEXIST) {
			rc = -errno;
			snprintf(err, errlen, "cannot create %s: %s", s->dir, strerror(errno));
			return rc;
		}
	} else {
		const char *tmp = getenv("TMPDIR");
		snprintf(s->dir, sizeof s->dir, "%s/tpmtrace-swtpm-XXXXXX", tmp ? tmp : "/tmp");
		/* Unix socket paths are short (108 bytes with the file name). */
		if (strlen(s->dir) > 80)
			snprintf(s->dir, sizeof s->dir, "/tmp/tpmtrace-swtpm-XXXXXX");
		if (!mkdtemp(s->dir)) {
			rc = -errno;
			snprintf(err, errlen, "cannot create a state directory: %s",
				 strerror(errno));
			return rc;
		}
		s->own_dir = 1;
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

	pid_t parent = getpid();
	s->pid = fork();
	if (s->pid < 0) {
		rc = -errno;
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return rc;
	}
	if (s->pid == 0) {
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
		fprintf(stderr, "tpmtrace: cannot run swtpm: %s (install the swtpm package)\n",
			strerror(errno));
		_exit(127);
	}
	/* Ready when its socket accepts a connection. */
	struct endpoint ep = {.is_unix = 1};
	snprintf(ep.path, sizeof ep.path, "%.100s", s->sock);
	for (int i = 0; i < 500; i++) {
		int fd, status;
		if (endpoint_connect(&ep, &fd) == 0) {
			close(fd);
			return 0;
		}
		if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
			snprintf(err, errlen, "swtpm exited at start (status %d); see %s/swtpm.log",
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1, s->dir);
			s->pid = 0;
			return -ECHILD;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	snprintf(err, errlen, "swtpm did not open %s within 5 s", s->sock);
	swtpm_stop(s);
	return -ETIMEDOUT;
}

void swtpm_stop(struct swtpm_child *s)
{
	if (s->pid > 0) {
		int status;
		kill(s->pid, SIGTERM);
		for (int i = 0; i < 200; i++) {
			if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
				s->pid = 0;
				break;
			}
			struct timespec ts = {0, 10 * 1000 * 1000};
			nanosleep(&ts, NULL);
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
}
