/* tpm-cuse-proxy: a CUSE character device that stands in for /dev/tpm0 or
 * /dev/tpmrm0, forwards every command to the real TPM and records it. */
#ifndef TPMTRACE_CUSE_PROXY_H
#define TPMTRACE_CUSE_PROXY_H

#include <stddef.h>
#include <sys/types.h>

/* takeover.c: moving the kernel's node aside and back. */

/* Opens /sys/class once (call before the initramfs's /sys moves away). */
void takeover_init(void);
/* The functions below work in the device directory dir (an fd opened with
 * O_PATH | O_DIRECTORY), so that they keep working after a switch of root. */

/* True if rdev is a kernel TPM character device (listed under
 * /sys/class/tpm or /sys/class/tpmrm). */
int node_is_kernel_tpm(dev_t rdev);
/* Puts DIR/NAME.real back as DIR/NAME when it is a kernel TPM node (rename(2)
 * replaces the CUSE node atomically). Returns 1 when something was restored,
 * 0 when there was nothing to do, -errno on error (err says why). */
int node_restore(int dir, const char *name, char *err, size_t errlen);
/* node_restore for every DIR/<x>.real that is a kernel TPM node. */
int node_restore_all(int dir, char *err, size_t errlen);
/* Swaps DIR/NAME (the kernel's node) with DIR/NAME.real (the fresh CUSE
 * node) in one step (renameat2 RENAME_EXCHANGE), after giving the CUSE node
 * the kernel node's mode and owner unless mode/gid are set (>= 0). */
int node_takeover(int dir, const char *name, int mode, long uid, long gid, char *err,
		  size_t errlen);
/* Starts the guardian: a child that waits for this process to end (however
 * it ends, SIGKILL included) and then restores DIR/NAME. Returns the write
 * end of the pipe it watches (keep it open, close-on-exec) or -errno. */
int guardian_start(int dir, const char *name);

/* devtools.c: diagnostics run against any TPM device node. */

/* Prints the device's answers to a fixed set of well-formed and bad writes,
 * reads and polls, one "check=result" line each, so that a CUSE node can be
 * compared with the kernel's. */
int devtools_probe(const char *path, int exclusive_check);
/* Times PCR_Extend (PCR 16, SHA-256) or, with getrandom, GetRandom (16 bytes)
 * round trips (write + read) on each of the paths, interleaved in rounds, and
 * prints per-path medians in microseconds. */
int devtools_bench(const char *const *paths, int n_paths, int count, int rounds, int json,
		   int getrandom);

#endif
