/* A shared library loaded when a command first needs it (dlopen), its
 * functions looked up by name: libpq for push and fleet (db/pg/pq.h),
 * libpcap for captures (recorder/import/pcap_lib.h). */
#ifndef TPMTRACE_MODEL_TPM_DL_H
#define TPMTRACE_MODEL_TPM_DL_H

#include <stddef.h>

/* A library and what to tell a user who lacks it. */
struct tpm_dl_lib {
	const char *soname;
	const char *needs;   /* "reading a capture needs libpcap" */
	const char *package; /* Debian's package: "libpcap0.8" */
	const char *version; /* "libpcap 1.5 or later" */
};

/* Loads lib->soname once and stores the address of names[i], i < n, into
 * the i-th function pointer of table: a struct of exactly n function
 * pointers, in the order of names (each room checks its size). *loaded is
 * set on success; nothing is done when it is already set. On failure err
 * says what a user should do: the library missing (the package to install),
 * or too old (a function missing; the library is closed again, and the
 * table may be partly set: every caller loads first and calls nothing after
 * a failure). 0 or -ENOENT. */
/* For a room's list of function names X(f): its names[] entry. */
#define TPM_DL_NAME(f) #f,

int tpm_dl_need(const struct tpm_dl_lib *lib, const char *const *names, size_t n, void *table,
		int *loaded, char *err, size_t errlen);

#endif
