/* advise's words for a finding: what it is, who makes the change (the
 * kernel or an application, by the finding's clients and origins) and the
 * change; advise prints them and the report's "What to change" shows them. */
#ifndef TPMTRACE_MODEL_ADVISE_WORDS_H
#define TPMTRACE_MODEL_ADVISE_WORDS_H

#include <stdint.h>

#include <sqlite3.h>

#include "model/advise.h"

/* A client of a finding: its comm, peer and pid (has_pid 0: none recorded). */
struct advise_client {
	char comm[64], peer[64];
	long long pid;
	int has_pid;
};

struct advise_words {
	const char *what, *who, *change; /* static text */
};

/* The clients of f (f->clients) in trace id, or of its source for a replay,
 * into out[0..ADVISE_MAX_CLIENTS); one not found is left empty. */
void advise_clients_load(sqlite3 *db, int64_t id, const struct advise_finding *f,
			 struct advise_client *out);
/* The words of f with its clients cn. */
void advise_words_of(const struct advise_finding *f, const struct advise_client *cn,
		     struct advise_words *out);
/* The same, the clients loaded from trace id of db. */
void advise_words(sqlite3 *db, int64_t id, const struct advise_finding *f,
		  struct advise_words *out);

#endif
