/* Outputs that never destroy a file (README: no command destroys a file;
 * docs/cli.md "Outputs"), after git's tempfile and lockfile: what every
 * output path of tpmtrace is opened and closed with. */
#ifndef TPMTRACE_DB_OUT_H
#define TPMTRACE_DB_OUT_H

#include <stddef.h>
#include <stdio.h>

/* An output:
 * - the path is walked one name at a time (O_PATH|O_NOFOLLOW in the
 *   directory before), every symbolic link on the way read and followed
 *   here (at most 40, a relative one from its directory), the last one too;
 * - a regular file, or a name that does not exist yet: written to a temporary
 *   file beside it (created 0600 with O_EXCL|O_NOFOLLOW in the directory the
 *   walk ended in), synced and renamed over it (renameat) only when
 *   everything was written, removed otherwise -- also when SIGINT, SIGTERM or
 *   SIGHUP ends the process (the handler unlinks it and re-raises the
 *   signal); a link stays a link, its target replaced;
 * - a character device or FIFO: opened without blocking (a FIFO waits 10 s
 *   at most for a reader) and written through, never renamed over; a
 *   descriptor of this process (/dev/stdout, /dev/fd/N, /proc/self/fd/N):
 *   written to a duplicate; a socket or a block device is refused;
 * - in a shared sticky directory (sticky, writable by everyone: /tmp) a
 *   link on the way, a FIFO or a file owned by neither us nor the directory's
 *   owner is refused (the kernel's fs.protected_* rules, whatever the
 *   sysctls say);
 * - "-": standard output, refused when it is one of the inputs.
 * A failed write, flush or close is an error naming the file. */
struct out_sink;
struct db_out {
	FILE *f;
	struct out_sink *sink; /* f's descriptor, unless f is stdout */
	int to_stdout;
	int through;	 /* written through: no temporary file */
	int slot;	 /* the temporary file's signal slot, or -1 */
	int dir;	 /* the directory that holds name (O_PATH), or -1 */
	char path[4096]; /* the name given */
	char shown[512]; /* path for messages (db_text_safe) */
	char name[256];	 /* the last name after every link: renamed onto */
	char tmp[232];	 /* the temporary file's name in dir */
	char err[1024];	 /* the error when a call returned non-zero */
};
/* db_out_open's and db_out_check's return for an output that is one of the
 * inputs (the command line's misuse). */
#define DB_OUT_REFUSED 2

/* Opens the output. inputs: the files the command reads, NULL-terminated; a
 * database input also covers its -wal, -shm and -journal files. An output
 * that is one of them (the same path, or through symlinks the same device and
 * inode) is refused: DB_OUT_REFUSED. Other failures: 1. The error, naming
 * the file, in o->err. */
int db_out_open(struct db_out *o, const char *path, const char *const *inputs);
/* Refuses (DB_OUT_REFUSED, the error in err) an output path that is one of
 * the inputs, without creating anything: for outputs that are opened later.
 * 0 if not. */
int db_out_check(const char *path, const char *const *inputs, char *err, size_t errlen);
/* The errno of the first write to o that failed (ENOSPC for a full disk), or
 * 0: for a writer that saw its stream's error flag and reports it before
 * closing (errno is no guide by then). Always 0 for standard output. */
int db_out_write_error(const struct db_out *o);
/* ok: flush (and for a temporary file fsync and rename into place); 1 with
 * the error in o->err if that fails. !ok: remove the temporary file (returns
 * 1, o->err empty). */
int db_out_close(struct db_out *o, int ok);

#endif
