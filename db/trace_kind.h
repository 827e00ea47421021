/* Trace kinds as data (db/trace_kind.def, docs/schema.md "Trace kinds"): which
 * kind a trace is, and the one rule every command picks its default trace by. */
#ifndef TPMTRACE_DB_TRACE_KIND_H
#define TPMTRACE_DB_TRACE_KIND_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

enum db_trace_kind {
#define DB_TRACE_KIND(id, name, what, def, push, boot, timed) DB_TRACE_KIND_##id,
#include "db/trace_kind.def"
#undef DB_TRACE_KIND
	DB_TRACE_KIND_N
};

struct db_trace_kind_rule {
	const char *name; /* as the trace_kind view and every output write it */
	const char *what;
	int default_rank; /* 1 first choice, 2 when no rank 1 exists, 0 never */
	int push;	  /* sent by push to the fleet server */
	int boot;	  /* counted as a boot by fleet */
	int timed;	  /* latencies, TPM time, span and gaps exist */
};

/* The rules of kind k (a valid enum value). */
const struct db_trace_kind_rule *db_trace_kind_rule(enum db_trace_kind k);
/* The kind named name, or -1. */
int db_trace_kind_by_name(const char *name);

/* A statement's WITH clause defining trace_kind(trace_id, kind) as the view of
 * db/schema.sql does, so that a file made before the view existed reads the
 * same: "WITH trace_kind AS (SELECT ...) ". Never NULL (empty only if the
 * embedded schema lost the view, which test_trace_kind catches). */
const char *db_trace_kind_with(void);

/* The kind of trace id into *k; 0, -ENOENT (no such trace) or -EIO. */
int db_trace_kind_of(sqlite3 *db, int64_t id, enum db_trace_kind *k);

/* Whether trace id is finished, by its kind (not DB_TRACE_KIND_UNFINISHED:
 * status 'recording', still written or its writer killed, or 'incomplete', a
 * run or import that failed part-way). One that is not is never taken by
 * default nor by --trace latest, and is named when given by id (docs/cli.md,
 * "Which trace"). Returns 1 finished, 0 not (why: what it holds), -1 no
 * such trace or a read error. */
int db_trace_finished(sqlite3 *db, int64_t id, char *why, size_t n);

/* The newest finished trace (of the replay kinds when replay), and in
 * *unfinished the newest one that is not finished (0 for none). Returns its
 * id, 0 when there is none, -EIO on a read error. */
int64_t db_trace_latest(sqlite3 *db, int replay, int64_t *unfinished);

/* The trace a command reads when not told which (docs/cli.md, "Which
 * trace"): the newest of default rank 1, else the newest of rank 2. Returns
 * its id; 0 when no trace qualifies, with why telling what the file holds
 * (no trace at all, or only kinds that are never the default); -EIO on a
 * read error (why holds SQLite's message). */
int64_t db_trace_default(sqlite3 *db, char *why, size_t whylen);

/* Trace id's kind and policy (a replay's), "" when unknown. */
void db_trace_kind_policy(sqlite3 *db, int64_t id, char *kind, size_t klen, char *policy,
			  size_t plen);

#endif
