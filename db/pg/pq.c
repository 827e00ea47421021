/* libpq loaded at first use (db/pg/pq.h). */
#include "db/pg/pq.h"

#include "model/tpm/dl.h"

struct pg_pq pg_pq;

int pg_pq_load(char *err, size_t errlen)
{
	static const struct tpm_dl_lib lib = {
	    PQ_SONAME, "push and fleet need PostgreSQL's client library", "libpq5",
	    "libpq of PostgreSQL 14 or later for push and fleet"};
	static const char *const names[] = {PQ_FUNCS(TPM_DL_NAME)};
	static int loaded;
	_Static_assert(sizeof pg_pq == sizeof names / sizeof *names * sizeof(void (*)(void)),
		       "one function pointer per name, in order");
	return tpm_dl_need(&lib, names, sizeof names / sizeof *names, &pg_pq, &loaded, err, errlen);
}
