/* libpq loaded at first use (db/pg/pq.h). */
#include "db/pg/pq.h"

#include <errno.h>
#include <stdio.h>

#include "db/dl.h"

struct pg_pq pg_pq;

int pg_pq_load(char *err, size_t errlen)
{
	static int loaded;
	static const char *const names[] = {
#define PQ_NAME(f) #f,
	    PQ_FUNCS(PQ_NAME)
#undef PQ_NAME
	};
	if (loaded)
		return 0;
	struct pg_pq a;
	void *const slot[] = {
#define PQ_SLOT(f) &a.f_##f,
	    PQ_FUNCS(PQ_SLOT)
#undef PQ_SLOT
	};
	char why[256];
	int rc = db_dl_load(PQ_SONAME, names, slot, sizeof names / sizeof *names, why, sizeof why);
	if (rc == -ENOENT)
		snprintf(err, errlen,
			 "push and fleet need PostgreSQL's client library %s, which is not "
			 "installed (Debian: apt-get install libpq5): %s",
			 PQ_SONAME, why);
	else if (rc)
		snprintf(err, errlen,
			 "%s has no %s: push and fleet need libpq of PostgreSQL 14 or later",
			 PQ_SONAME, why);
	if (rc)
		return -ENOENT;
	pg_pq = a;
	loaded = 1;
	return 0;
}
