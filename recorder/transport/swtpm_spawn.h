/* A private swtpm started by tpmtrace: state in a fresh 0700 directory, data
 * and control on unix sockets in it, gone when tpmtrace goes (PDEATHSIG).
 * The directory holds a lock file that tpmtrace keeps locked (flock) for its
 * lifetime: a directory whose lock nobody holds is a killed tpmtrace's, and
 * the next spawn removes it (docs/security.md, "swtpm state"). */
#ifndef TPMTRACE_SWTPM_SPAWN_H
#define TPMTRACE_SWTPM_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

struct swtpm_child {
	pid_t pid;
	char dir[256];	/* state directory */
	char sock[300]; /* data socket; control is sock + ".ctrl" */
	char tcti[320]; /* "swtpm:path=..." */
	int own_dir;	/* the directory is removed on stop */
	int locked;	/* lock_fd holds the directory's lock */
	int lock_fd;
};

enum swtpm_spawn_mode {
	/* Data and control on unix sockets (sock, sock.ctrl), powered on and
	 * ready for TPM2_Startup without a control INIT, as a TPM after power-on. */
	SWTPM_SOCKETS = 0,
	/* Control socket only (sock): QEMU's emulator backend hands over the data
	 * channel with SET_DATAFD and powers it on with INIT. */
	SWTPM_CTRL_ONLY = 1,
};

/* Starts swtpm. state_dir NULL: a new temporary directory (after removing
 * those of tpmtrace processes that are gone). Returns 0 or -errno; on an
 * error nothing is left behind (no directory, no process). */
int swtpm_spawn(struct swtpm_child *s, const char *state_dir, enum swtpm_spawn_mode mode, char *err,
		size_t errlen);
/* Stops swtpm (SIGTERM, then SIGKILL) and removes a temporary state directory. */
void swtpm_stop(struct swtpm_child *s);

/* Removes the tpmtrace-swtpm-* directories in dir that belong to this user
 * and to no live tpmtrace (their lock is free; one without a lock file, as an
 * older tpmtrace made them, when it is older than a minute and no swtpm
 * answers on its socket). Returns how many were removed. */
int swtpm_sweep_stale(const char *dir);

#endif
