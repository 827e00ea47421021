/* The fleet store on PostgreSQL (libpq): the server's schema, `tpmtrace
 * push` (each trace in one transaction, small ones in batches, COPY,
 * idempotent by trace UUID) and the
 * queries of `tpmtrace fleet` (docs/fleet.md). Errors: 0 ok, -errno; err
 * gets a message with the server's own text, never the connection string. */
#ifndef TPMTRACE_DB_PG_H
#define TPMTRACE_DB_PG_H

#include <stddef.h>
#include <stdint.h>

#include "db/pg/pq.h"
#include <sqlite3.h>

#define PG_SCHEMA_VERSION 2

/* Where a connection string leads, for messages: "host H, port P, database
 * D, user U" as libpq parses url (NULL or "": the PG* environment), a part
 * it does not give being libpq's default; never the string nor a password.
 * -EINVAL, buf saying so, when libpq cannot parse it. */
int pg_conninfo_describe(const char *url, char *buf, size_t len);
/* The same for a connection made or tried: the host, port, database and
 * user libpq used. */
void pg_conn_describe(PGconn *c, char *buf, size_t len);
/* Connects to url (a postgresql:// URL, key=value conninfo, or NULL/"" for
 * the PG* environment variables and service file, as libpq reads them).
 * A password (or sslpassword) inside url is refused (-EPERM) before
 * anything is sent: it would be on the command line, readable in /proc by
 * every user. A string libpq cannot parse, or whose database name is itself
 * a connection string, is refused with -EINVAL. err never holds url. */
int pg_connect(const char *url, PGconn **out, char *err, size_t errlen);
/* Checks the server's tpmtrace schema; create: creates it in an empty
 * database (one transaction, serialised by an advisory lock). A database
 * with tables of another application, or with another schema version, is
 * refused with -EPROTO. */
int pg_schema_ensure(PGconn *c, int create, char *err, size_t errlen);

struct pg_push_result {
	unsigned pushed;    /* traces sent now */
	unsigned present;   /* traces the server had already */
	unsigned recording; /* unfinished traces left for a later push */
	unsigned skipped;   /* traces of a kind push does not send (db/trace_kind.def) */
	unsigned failed;    /* traces that could not be sent (on_fail told each) */
	uint64_t commands, events, clients;
};
/* Told of each trace that could not be sent: msg is "trace N (UUID): why;
 * none of its rows are stored". */
typedef void pg_push_fail_fn(void *ctx, const char *msg);
/* Pushes trace trace_id (0: every finished trace of a kind that is pushed:
 * db/trace_kind.def) of db, each trace new to
 * the server in one transaction (small traces several to one); db is read only and must have UUIDs
 * (db_uuid_fill). A trace the server refuses is rolled back, counted in
 * r->failed and passed to on_fail, and the push goes on with the next: it
 * returns 0 then. An error that ends the push (the connection lost, the file
 * unreadable, the schema) returns -errno with err set (naming the trace it
 * happened in). */
int pg_push(sqlite3 *db, PGconn *c, int64_t trace_id, struct pg_push_result *r,
	    pg_push_fail_fn *on_fail, void *ctx, char *err, size_t errlen);

/* One group of fleet stats: TPM model x firmware x kernel x policy. */
#define PG_FLEET_TOP 3
struct pg_fleet_group {
	char *model, *firmware, *kernel, *policy;
	char *profile; /* the shipped profile(s) of its traces' chip, ", "-joined; "" none */
	long long hosts, boots, traces;
	double p50_ns, p95_ns, max_ns; /* boot TPM time over the group's traces */
	struct {
		char *name;
		double total_ns, share; /* share of the group's TPM time, 0-1 */
	} top[PG_FLEET_TOP];
	struct {
		char *host;
		double tpm_ns; /* the host's slowest trace */
	} slow[PG_FLEET_TOP];
};
struct pg_fleet {
	struct pg_fleet_group *g;
	size_t n;
	long long hosts, traces; /* the whole server */
};
int pg_fleet_stats(PGconn *c, struct pg_fleet *f, char *err, size_t errlen);
void pg_fleet_free(struct pg_fleet *f);

/* One host of `fleet list`. */
struct pg_fleet_host {
	char *hostname, *host_key, *models, *kernels, *last_pushed;
	long long traces, boots;
};
int pg_fleet_hosts(PGconn *c, struct pg_fleet_host **h, size_t *n, char *err, size_t errlen);
void pg_fleet_hosts_free(struct pg_fleet_host *h, size_t n);

#endif
