/* libpq loaded at first use (db/pg/pq.h). */
#include "db/pg/pq.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

struct pg_pq pg_pq;

int pg_pq_load(char *err, size_t errlen)
{
	static int loaded;
	if (loaded)
		return 0;
	void *h = dlopen(PQ_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen,
			 "push and fleet need PostgreSQL's client library %s, which is not "
			 "installed (Debian: apt-get install libpq5): %s",
			 PQ_SONAME, dlerror());
		return -ENOENT;
	}
	struct pg_pq a;
	const char *missing = NULL;
#define PQ_LOOKUP(f)                                                                               \
	if (!(a.f_##f = (__typeof__(a.f_##f))dlsym(h, #f)) && !missing)                            \
		missing = #f;
	PQ_FUNCS(PQ_LOOKUP)
#undef PQ_LOOKUP
	if (missing) {
		snprintf(err, errlen,
			 "%s has no %s: push and fleet need libpq of PostgreSQL 14 or later",
			 PQ_SONAME, missing);
		dlclose(h);
		return -ENOENT;
	}
	pg_pq = a;
	loaded = 1;
	return 0;
}
