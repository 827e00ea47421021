/* tpm-cuse-proxy's state, shared by its option handling and set-up
 * (main.c) and the CUSE device (cuse_dev.c). */
#ifndef TPMTRACE_CUSE_STATE_H
#define TPMTRACE_CUSE_STATE_H

#define FUSE_USE_VERSION 31
#include <cuse_lowlevel.h>
#include <fuse_lowlevel.h>

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "recorder/recorder.h"
#include "recorder/transport/transport.h"

enum backend_kind { BACKEND_DEVICE, BACKEND_SWTPM, BACKEND_TCTI };

struct cfile;

struct cuse_state {
	pthread_mutex_t lock;	  /* files, queue */
	pthread_mutex_t rec_lock; /* recorder (single producer) */
	pthread_cond_t cond;
	struct cfile *qhead, *qtail;
	int stop;
	int n_open;
	int exclusive;
	enum backend_kind kind;
	int per_open;	      /* one backend open per client open */
	char reopen_name[16]; /* "N": an O_PATH fd on the backend node... */
	int proc_fd_dir;      /* ...reopened in /proc/<our pid>/fd */
	char backend_desc[256];
	struct transport *shared;
	struct recorder rec;
	struct transport none; /* placeholder backend when per-open */
	const char *dev_dir_name, *name;
	int dev_fd; /* O_PATH on dev_dir_name */
	int takeover, taken_over;
	int mode;
	long uid, gid;
	int ready_fd; /* daemon mode: tells the parent we are serving */
	int guard_fd;
	struct fuse_session *se;
	char err[600];
	int setup_failed;
	/* Test-only fault switch (tests/vm/test_vm_boot_luks_*.sh), from
	 * TPMTRACE_FAULT_CUSE_CRASH=CC or CC:after: the proxy dies of SIGABRT
	 * when the first command with code CC arrives (before it is sent
	 * on), or once its response is with the client (":after"), as a
	 * crash in the middle of a client's sequence would. */
	uint32_t crash_cc;
	int crash_after;
};

/* The one proxy of this process (cuse_dev.c); named after its type, not
 * a bare g, so that no other archive's global can bind in its place. */
extern struct cuse_state cuse_state;

/* cuse_dev.c */

/* A message on stderr, "tpm-cuse-proxy: " first. */
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Reads the test-only fault switch TPMTRACE_FAULT_CUSE_CRASH. */
void fault_crash_init(void);
/* Opens the backend spec (device node, swtpm socket or TCTI) into cuse_state. */
int open_backend(const char *spec, char *err, size_t errlen);
/* Daemon mode: tells the waiting parent whether the device is served. */
void signal_ready(int ok);
/* Starts the thread that forwards queued commands to the backend. */
int cuse_worker_start(void);
/* Stops it: queued requests fail with ENODEV, the thread is joined. */
void cuse_worker_stop(void);
/* Creates the CUSE device (NAME, or NAME.real with --takeover) into
 * cuse_state.se. */
int cuse_device_setup(char *argv0, int debug);

#endif
