/* The identity of a trace and of the machine it was made on (schema v2:
 * trace.uuid, trace_host), the keys of `tpmtrace push` and `fleet`. */
#ifndef TPMTRACE_DB_HOST_ID_H
#define TPMTRACE_DB_HOST_ID_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct db_host_id {
	char hostname[256];
	char machine_id_sha256[65]; /* hex; "" when /etc/machine-id is unreadable */
	char kernel_release[128];
	char kernel_cmdline[4096];
	char boot_id[64];
};

/* A random (version 4, RFC 4122 section 4.4) UUID in its 36-character text
 * form. Returns 0 or -errno (no randomness). */
int db_uuid_new(char out[37]);

/* This machine's identity. Each field may be overridden for tests by
 * TPMTRACE_HOST_ID_HOSTNAME, _MACHINE_ID (the id's text, hashed like the
 * file's), _KERNEL_RELEASE, _KERNEL_CMDLINE and _BOOT_ID (docs/fleet.md). */
void db_host_id_read(struct db_host_id *h);

/* Computes the machine id's digest now, for db_host_id_read, in a short-lived
 * child process: a process that stores traces but needs no cryptography
 * otherwise (a recorder) then never maps libcrypto, ~1.4 MB of its resident
 * memory (model/tpm/crypto_lib.h). Called while the process has one thread
 * (a recorder's start); does nothing otherwise, or once libcrypto is loaded,
 * and db_host_id_read computes it itself. */
void db_host_id_prefetch(void);

/* Writes trace id's trace_host row from h. Returns 0 or -EIO. */
int db_host_id_store(sqlite3 *db, int64_t trace_id, const struct db_host_id *h);

/* Gives every trace without a UUID one, in one write transaction. Returns
 * the number filled or -EIO with err set. */
int db_uuid_fill(sqlite3 *db, char *err, size_t errlen);
/* Gives the traces of the database at path UUIDs if some have none (a file
 * of schema version 1, migrated by opening it for writing): looked at
 * read-only first, written only when needed. 0, or -errno with err set. */
int db_uuid_ensure(const char *path, char *err, size_t errlen);

#endif
