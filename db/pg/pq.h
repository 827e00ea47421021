/* libpq, loaded by the commands that talk to the server (push, fleet) when
 * they first need it, rather than by every tpmtrace process: with its ~20
 * libraries (gnutls, krb5, ldap, ...) it was a quarter of a recorder's
 * resident memory and of its start-up. The fleet room's files include this
 * (through pg.h) and call libpq as usual: each PQ* name used is a macro for
 * the function looked up in libpq.so.5 (model/tpm/dl.h). pg_pq_load (db/pg/pq.c)
 * must succeed first; pg_connect and pg_conninfo_describe call it, and every
 * other call takes a connection they made. */
#ifndef TPMTRACE_DB_PG_PQ_H
#define TPMTRACE_DB_PG_PQ_H

#include <stddef.h>

#include <libpq-fe.h>

/* The soname loaded: libpq's ABI since PostgreSQL 8.3. */
#define PQ_SONAME "libpq.so.5"

/* Every libpq function the room calls (a new one is added here and below). */
/* clang-format off */
#define PQ_FUNCS(X) \
	X(PQclear) \
	X(PQconndefaults) \
	X(PQconnectdb) \
	X(PQconninfoFree) \
	X(PQconninfoParse) \
	X(PQdb) \
	X(PQenterPipelineMode) \
	X(PQerrorMessage) \
	X(PQescapeLiteral) \
	X(PQexec) \
	X(PQexitPipelineMode) \
	X(PQfinish) \
	X(PQflush) \
	X(PQfreemem) \
	X(PQgetResult) \
	X(PQgetisnull) \
	X(PQgetvalue) \
	X(PQhost) \
	X(PQntuples) \
	X(PQpipelineStatus) \
	X(PQpipelineSync) \
	X(PQport) \
	X(PQprepare) \
	X(PQputCopyData) \
	X(PQputCopyEnd) \
	X(PQresultErrorMessage) \
	X(PQresultStatus) \
	X(PQsendQueryParams) \
	X(PQsendQueryPrepared) \
	X(PQsetClientEncoding) \
	X(PQstatus) \
	X(PQtransactionStatus) \
	X(PQuser)
/* clang-format on */

struct pg_pq {
#define PQ_MEMBER(f) __typeof__(f) *f_##f;
	PQ_FUNCS(PQ_MEMBER)
#undef PQ_MEMBER
};
extern struct pg_pq pg_pq;

/* Loads libpq (once): 0, or -ENOENT with err saying what is missing and
 * which package has it. */
int pg_pq_load(char *err, size_t errlen);

#define PQclear		     pg_pq.f_PQclear
#define PQconndefaults	     pg_pq.f_PQconndefaults
#define PQconnectdb	     pg_pq.f_PQconnectdb
#define PQconninfoFree	     pg_pq.f_PQconninfoFree
#define PQconninfoParse	     pg_pq.f_PQconninfoParse
#define PQdb		     pg_pq.f_PQdb
#define PQenterPipelineMode  pg_pq.f_PQenterPipelineMode
#define PQerrorMessage	     pg_pq.f_PQerrorMessage
#define PQescapeLiteral	     pg_pq.f_PQescapeLiteral
#define PQexec		     pg_pq.f_PQexec
#define PQexitPipelineMode   pg_pq.f_PQexitPipelineMode
#define PQfinish	     pg_pq.f_PQfinish
#define PQflush		     pg_pq.f_PQflush
#define PQfreemem	     pg_pq.f_PQfreemem
#define PQgetResult	     pg_pq.f_PQgetResult
#define PQgetisnull	     pg_pq.f_PQgetisnull
#define PQgetvalue	     pg_pq.f_PQgetvalue
#define PQhost		     pg_pq.f_PQhost
#define PQntuples	     pg_pq.f_PQntuples
#define PQpipelineStatus     pg_pq.f_PQpipelineStatus
#define PQpipelineSync	     pg_pq.f_PQpipelineSync
#define PQport		     pg_pq.f_PQport
#define PQprepare	     pg_pq.f_PQprepare
#define PQputCopyData	     pg_pq.f_PQputCopyData
#define PQputCopyEnd	     pg_pq.f_PQputCopyEnd
#define PQresultErrorMessage pg_pq.f_PQresultErrorMessage
#define PQresultStatus	     pg_pq.f_PQresultStatus
#define PQsendQueryParams    pg_pq.f_PQsendQueryParams
#define PQsendQueryPrepared  pg_pq.f_PQsendQueryPrepared
#define PQsetClientEncoding  pg_pq.f_PQsetClientEncoding
#define PQstatus	     pg_pq.f_PQstatus
#define PQtransactionStatus  pg_pq.f_PQtransactionStatus
#define PQuser		     pg_pq.f_PQuser

#endif
