/* The SQL functions every connection of db_open gets (db/db.h:
 * db_register_functions): tpm_cc_name, tpm_rc_text, tpm_auth_name,
 * tpm_cc_destructive and the protocol facts by name, tpm_cc, tpm_cc_is_policy,
 * tpm_cc_family, tpm_rc_is_retry, tpm_ht_of (from the tables of model/tpm,
 * docs/schema.md "SQL functions"), and the aggregate percentile (nearest rank,
 * db_nearest_rank). */
#include <errno.h>
#include <stdlib.h>

#include "db/db.h"
#include "model/tpm/cc_family.h"
#include "model/tpm/constants.h"
#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/tpm_ht.h"

/* The command table's row of an SQL argument: a code is a u32, anything else
 * names nothing (4294967678 is not PCR_Read's 0x17E). */
static const struct tpm_cc_info *arg_cc(sqlite3_value *a)
{
	if (sqlite3_value_type(a) == SQLITE_NULL)
		return NULL;
	sqlite3_int64 v = sqlite3_value_int64(a);
	if (sqlite3_value_numeric_type(a) != SQLITE_INTEGER || v < 0 || v > 0xFFFFFFFFll)
		return NULL;
	return tpm_cc_lookup((uint32_t)v);
}

/* tpm_cc_name(cc): the command's name, or NULL. */
static void fn_cc_name(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct tpm_cc_info *i = arg_cc(argv[0]);
	if (i)
		sqlite3_result_text(ctx, i->name, -1, SQLITE_STATIC);
}

/* tpm_cc_destructive(cc): 1 or 0 (the column of tpm_cc.def), NULL for a code
 * not in the table; in any file, whatever columns its tpm_cc table has. */
static void fn_cc_destructive(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct tpm_cc_info *i = arg_cc(argv[0]);
	if (i)
		sqlite3_result_int(ctx, i->destructive);
}

/* tpm_cc(name): the code of the command tpm_cc.def names so (as
 * tpm_cc_from_name: "PCR_Extend", "TPM2_PCR_Extend"), so that SQL in C says
 * the command by name; an unknown name is an error, not a code that matches
 * nothing. */
static void fn_cc(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *n = sqlite3_value_text(argv[0]);
	uint32_t cc = n ? tpm_cc_from_name((const char *)n) : 0;
	if (cc)
		sqlite3_result_int64(ctx, cc);
	else
		sqlite3_result_error(ctx, "tpm_cc(name): no command of that name in tpm_cc.def",
				     -1);
}

/* tpm_cc_is_policy(cc): 1 for a policy command (tpm_cc_is_policy), 0 for
 * another code in the table, NULL for one not in it. */
static void fn_cc_is_policy(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct tpm_cc_info *i = arg_cc(argv[0]);
	if (i)
		sqlite3_result_int(ctx, tpm_cc_is_policy(i->cc));
}

/* tpm_cc_family(cc): the command's family (model/tpm/cc_family.h: nv, pcr,
 * session, ...), NULL for a code not in the table. */
static void fn_cc_family(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct tpm_cc_info *i = arg_cc(argv[0]);
	if (i)
		sqlite3_result_text(ctx, tpm_family_name(tpm_cc_family(i->cc)), -1, SQLITE_STATIC);
}

/* A u32 argument (a response code, a handle) or -1 (NULL, text, out of
 * range). */
static int64_t arg_u32(sqlite3_value *a)
{
	sqlite3_int64 v = sqlite3_value_int64(a);
	if (sqlite3_value_numeric_type(a) != SQLITE_INTEGER || v < 0 || v > 0xFFFFFFFFll)
		return -1;
	return v;
}

/* tpm_rc_is_retry(rc): 1 for TPM_RC_RETRY, YIELDED and TESTING (the TPM did
 * not start the command, model/tpm/constants.h), 0 for another code, NULL
 * for none. */
static void fn_rc_is_retry(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int64_t rc = arg_u32(argv[0]);
	if (rc >= 0)
		sqlite3_result_int(ctx, tpm_rc_is_retry((unsigned)rc));
}

/* tpm_ht_of(h): a handle's type, its most significant octet (TPM_HT,
 * model/tpm/tpm_ht.def: 3 a policy session, 128 a transient object), NULL
 * for no handle. */
static void fn_ht_of(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int64_t h = arg_u32(argv[0]);
	if (h >= 0)
		sqlite3_result_int(ctx, tpm_ht_of((uint32_t)h));
}

/* tpm_rc_text(rc): what a response code means (tpm2-tss's decoding). */
static void fn_rc_text(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	sqlite3_result_text(ctx, tpm_rc_str((uint32_t)sqlite3_value_int64(argv[0])), -1,
			    SQLITE_TRANSIENT);
}

/* tpm_auth_name(auth_kind): none, password, hmac, hmac+enc, policy,
 * policy+enc (the spelling of profiles and --json), or NULL. */
static void fn_auth_name(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	if (sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER)
		return;
	sqlite3_int64 v = sqlite3_value_int64(argv[0]);
	const char *n = v >= 0 && v <= TPM_AUTH_POLICY_ENC ? tpm_auth_kind_str((int)v) : NULL;
	if (n)
		sqlite3_result_text(ctx, n, -1, SQLITE_STATIC);
}

/* percentile(x, p): nearest-rank percentile, the smallest value whose rank r
 * (1-based, ascending) satisfies r * 100 >= p * n; the same definition as the
 * command_stats view. */
struct pct_state {
	double *v;
	size_t n, cap;
	double p;
	int bad;
};

static void pct_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct pct_state *s = sqlite3_aggregate_context(ctx, sizeof(*s));
	if (!s)
		return;
	/* p is a number from 0 to 100 (NULL or 'abc' is not 0); x a number or
	 * NULL (skipped, as other aggregates do), never text taken as 0. */
	int pt = sqlite3_value_numeric_type(argv[1]);
	double p = sqlite3_value_double(argv[1]);
	if ((pt != SQLITE_INTEGER && pt != SQLITE_FLOAT) || !(p >= 0 && p <= 100)) {
		s->bad = 1;
		return;
	}
	int xt = sqlite3_value_numeric_type(argv[0]);
	if (xt == SQLITE_NULL)
		return;
	if (xt != SQLITE_INTEGER && xt != SQLITE_FLOAT) {
		s->bad = 2;
		return;
	}
	s->p = p;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		double *nv = sqlite3_realloc64(s->v, cap * sizeof(double));
		if (!nv) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = sqlite3_value_double(argv[0]);
}

size_t db_nearest_rank(size_t n, double p)
{
	size_t r = 1;
	while (r < n && (double)r * 100 < p * (double)n)
		r++;
	return r;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void pct_final(sqlite3_context *ctx)
{
	struct pct_state *s = sqlite3_aggregate_context(ctx, 0);
	if (!s)
		return;
	if (s->bad == 2) {
		sqlite3_result_error(ctx, "percentile(x, p): x must be a number (or NULL, skipped)",
				     -1);
	} else if (s->bad) {
		sqlite3_result_error(ctx, "percentile(x, p): p must be a number from 0 to 100", -1);
	} else if (s->n) {
		qsort(s->v, s->n, sizeof(double), cmp_double);
		double v = s->v[db_nearest_rank(s->n, s->p) - 1];
		if (v == (double)(int64_t)v)
			sqlite3_result_int64(ctx, (int64_t)v);
		else
			sqlite3_result_double(ctx, v);
	}
	sqlite3_free(s->v);
}

int db_register_functions(sqlite3 *db)
{
	static const struct {
		const char *name;
		void (*fn)(sqlite3_context *, int, sqlite3_value **);
	} fns[] = {
	    {"tpm_cc_name", fn_cc_name},
	    {"tpm_rc_text", fn_rc_text},
	    {"tpm_auth_name", fn_auth_name},
	    {"tpm_cc_destructive", fn_cc_destructive},
	    {"tpm_cc", fn_cc},
	    {"tpm_cc_is_policy", fn_cc_is_policy},
	    {"tpm_cc_family", fn_cc_family},
	    {"tpm_rc_is_retry", fn_rc_is_retry},
	    {"tpm_ht_of", fn_ht_of},
	};
	int rc = SQLITE_OK;
	for (size_t k = 0; k < sizeof fns / sizeof *fns && rc == SQLITE_OK; k++)
		rc = sqlite3_create_function(db, fns[k].name, 1,
					     SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
					     NULL, fns[k].fn, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "percentile", 2, SQLITE_UTF8 | SQLITE_INNOCUOUS,
					     NULL, NULL, pct_step, pct_final);
	return rc == SQLITE_OK ? 0 : -EIO;
}
