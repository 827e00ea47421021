/* A private swtpm started by tpmtrace: state in a fresh 0700 directory, data
 * and control on unix sockets in it, gone when tpmtrace goes (PDEATHSIG). */
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
};

enum swtpm_spawn_mode {
	/* Data and control on unix sockets (sock, sock.ctrl), powered on and
	 * ready for TPM2_Startup without a control INIT, as a TPM after power-on. */
	SWTPM_SOCKETS = 0,
	/* Control socket only (sock): QEMU's emulator backend hands over the data
	 * channel with SET_DATAFD and powers it on with INIT. */
	SWTPM_CTRL_ONLY = 1,
};

/* Starts swtpm. state_dir NULL: a new temporary directory. Returns 0 or -errno. */
int swtpm_spawn(struct swtpm_child *s, const char *state_dir, enum swtpm_spawn_mode mode, char *err,
		size_t errlen);
/* Stops swtpm (SIGTERM, then SIGKILL) and removes a temporary state directory. */
void swtpm_stop(struct swtpm_child *s);

#endif
