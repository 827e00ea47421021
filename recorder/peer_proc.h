/* Who is at the other end, from /proc: a process's full program name (not
 * the 15 bytes of its comm) and the process holding the other end of a TCP
 * connection made on this host. Read once per client (at accept, at open, at
 * a new process), never per command. */
#ifndef TPMTRACE_PEER_PROC_H
#define TPMTRACE_PEER_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* The longest name a client row keeps (bytes, with the NUL). */
#define RECORDER_NAME_MAX 80

/* The program of process pid into out: its comm (comm, or /proc/PID/comm when
 * comm is NULL) when that is whole (under 15 bytes: the kernel keeps 16 with
 * the NUL, TASK_COMM_LEN); else the name comm was cut from, the basename of
 * argv[0], argv[1] (a script under its interpreter) or /proc/PID/exe that
 * begins with it; else comm with DB_NAME_CUT (db/db.h) after it (the process has
 * gone, or renamed itself). "" when nothing is known. */
void recorder_proc_name(pid_t pid, const char *comm, char *out, size_t len);

/* The process at the other end of the accepted TCP connection fd, when it
 * is on this host (its address is a loopback one or the connection's own):
 * its socket found in /proc/net/tcp or tcp6 by the connection's addresses,
 * then the process holding that socket among /proc/PID/fd of the socket's
 * uid (at most RECORDER_PEER_SCAN descriptors looked at). Returns the pid and
 * sets *uid, or 0 (remote, gone, or not ours to see: root sees every
 * process, a user their own). */
#define RECORDER_PEER_SCAN 200000
pid_t recorder_tcp_peer(int fd, uid_t *uid);

#endif
