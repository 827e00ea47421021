/* Starts a private swtpm for one C test or benchmark (header only).
 *
 * swtpm socket --tpm2 with a fresh state directory, unix sockets in that
 * directory, not-need-init and startup-clear, as the test brief says. The
 * caller stops it with swtpm_stop() (kill of the pid we started). */
#ifndef TPMTRACE_TEST_SWTPM_H
#define TPMTRACE_TEST_SWTPM_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct swtpm_proc {
	pid_t pid;
	char dir[256];
	char tcti[300];
};

/* 1 if an swtpm binary is on PATH. */
static inline int swtpm_available(void)
{
	return system("command -v swtpm >/dev/null 2>&1") == 0;
}

/* dir must exist. Returns 0 once the server socket is there, -errno else. */
static inline int swtpm_start(struct swtpm_proc *p, const char *dir)
{
	char state[300], srv[300], ctrl[300], pidf[300];
	memset(p, 0, sizeof(*p));
	snprintf(p->dir, sizeof(p->dir), "%s", dir);
	snprintf(state, sizeof(state), "dir=%s", dir);
	snprintf(srv, sizeof(srv), "type=unixio,path=%s/s.sock", dir);
	snprintf(ctrl, sizeof(ctrl), "type=unixio,path=%s/s.sock.ctrl", dir);
	snprintf(pidf, sizeof(pidf), "file=%s/pid", dir);
	snprintf(p->tcti, sizeof(p->tcti), "swtpm:path=%s/s.sock", dir);
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* swtpm logs every client disconnect on stderr (the swtpm TCTI
		 * connects once per command): keep that out of the test log. */
		char log[300];
		snprintf(log, sizeof(log), "%s/swtpm.log", dir);
		if (!freopen(log, "w", stderr))
			_exit(126);
		execlp("swtpm", "swtpm", "socket", "--tpm2", "--tpmstate", state, "--server", srv,
		       "--ctrl", ctrl, "--flags", "not-need-init,startup-clear", "--pid", pidf,
		       (char *)NULL);
		_exit(127);
	}
	p->pid = pid;
	char sock[300];
	snprintf(sock, sizeof(sock), "%s/s.sock", dir);
	for (int i = 0; i < 500; i++) {
		struct stat st;
		int status;
		if (stat(sock, &st) == 0)
			return 0;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			p->pid = 0;
			return -ECHILD;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return -ETIMEDOUT;
}

static inline void swtpm_stop(struct swtpm_proc *p)
{
	if (p->pid > 0) {
		kill(p->pid, SIGTERM);
		waitpid(p->pid, NULL, 0);
		p->pid = 0;
	}
}

#endif
