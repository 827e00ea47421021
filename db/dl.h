/* A shared library loaded when a command first needs it (dlopen), its
 * functions looked up by name: libpq for push and fleet (db/pg/pq.h),
 * libpcap for captures (recorder/import/pcap_lib.h). */
#ifndef TPMTRACE_DB_DL_H
#define TPMTRACE_DB_DL_H

#include <stddef.h>

/* Loads soname and stores the address of names[i] into the function
 * pointer slot[i] points to, for i < n. 0; -ENOENT when the library cannot
 * be loaded (why: the loader's message); -ENOSYS when it lacks a function
 * (why: its name; the library is closed again). */
int db_dl_load(const char *soname, const char *const *names, void *const *slot, size_t n, char *why,
	       size_t whylen);

#endif
