/* libpq loaded at first use (db/pg/pq.h). */
#include "db/pg/pq.h"

#include "db/dl.h"

struct pg_pq pg_pq;

int pg_pq_load(char *err, size_t errlen)
{
	static const struct db_dl_lib lib = {
	    PQ_SONAME, "push and fleet need PostgreSQL's client library", "libpq5",
	    "libpq of PostgreSQL 14 or later for push and fleet"};
	static const char *const names[] = {PQ_FUNCS(DB_DL_NAME)};
	static int loaded;
	_Static_assert(sizeof pg_pq == sizeof names / sizeof *names * sizeof(void (*)(void)),
		       "one function pointer per name, in order");
	return db_dl_need(&lib, names, sizeof names / sizeof *names, &pg_pq, &loaded, err, errlen);
}
