/* show's question about one trace: the filters of --cc, --rc, --client,
 * --seq and --slower as a WHERE clause with named parameters (:trace, :comm,
 * :v0, :v1, ...), and the statements that read what they keep: the list
 * (commands and events in seq order) and -V's commands with their bytes,
 * each column by name. */
#ifndef TPMTRACE_MODEL_TRACE_QUERY_H
#define TPMTRACE_MODEL_TRACE_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct trace_query_args {
	const char *cc;	    /* names or 0x codes, comma-separated; NULL: any */
	const char *rc;	    /* ok, error or a hex code */
	const char *client; /* an id, pid:N or a name (or its beginning) */
	const char *seq;    /* N or A-B */
	double slower_ms;
	int has_slower;
};

#define TRACE_QUERY_MAX_VALUES 36

struct trace_query {
	char where[1024];		     /* " AND ..." of the commands kept */
	char ev_where[128];		     /* " AND ..." of the events kept */
	int64_t val[TRACE_QUERY_MAX_VALUES]; /* :v0, :v1, ... */
	unsigned n_val;
	const char *comm; /* :comm, --client NAME */
	int client_val;	  /* --client ID or pid:N: its value's index, else -1 */
	int client_pid;	  /* ... pid:N */
	int has_seq;
	int64_t seq_a, seq_b;
};

/* Builds q from a. 0, or -EINVAL with err naming the option and what is
 * wrong with it ("--cc: 'x' is neither a command name nor a hex code"). */
int trace_query_build(struct trace_query *q, const struct trace_query_args *a, char *err,
		      size_t errlen);

/* The list's columns (trace_query_list), commands and events in one
 * statement: an event has NULL in the command columns and the reverse. */
enum trace_query_list_col {
	TQ_IS_EVENT, /* 0: a command, 1: an event */
	TQ_SEQ,
	TQ_T_NS, /* t_submit_ns or the event's t_ns */
	TQ_CC,
	TQ_HANDLE1, /* TQ_HANDLE1 + 0..2 */
	TQ_HANDLE2,
	TQ_HANDLE3,
	TQ_N_SESSIONS,
	TQ_SESS_HANDLE,
	TQ_SESS_ATTRS,
	TQ_PCR,
	TQ_CLIENT,
	TQ_RC,
	TQ_LATENCY_NS,
	TQ_MALFORMED,
	TQ_RSP_HANDLE,
	TQ_EV_KIND,
	TQ_EV_DETAIL,
	TQ_FLAGS,
};
/* -V's columns (trace_query_explain): the commands kept, with their bytes. */
enum trace_query_explain_col {
	TQX_CC,
	TQX_CMD,
	TQX_RSP,
	TQX_FLAGS,
	TQX_CLIENT,
	TQX_COMM,
	TQX_LATENCY_NS,
	TQX_RC,
	TQX_SEQ,
};
/* The statement of the list or of -V on trace id of db, bound; NULL with
 * sqlite's message in err. */
sqlite3_stmt *trace_query_list(sqlite3 *db, int64_t id, const struct trace_query *q, char *err,
			       size_t errlen);
sqlite3_stmt *trace_query_explain(sqlite3 *db, int64_t id, const struct trace_query *q, char *err,
				  size_t errlen);

/* The time of the trace's first row with a time (the origin of the list's
 * second column, whatever the filters keep), or -1. */
int64_t trace_query_first_time(sqlite3 *db, int64_t id);
/* 1 when --client names a client of the trace (or a read failed: the list
 * will say), 0 when it names none. */
int trace_query_client_known(sqlite3 *db, int64_t id, const struct trace_query *q);
/* The trace's clients' names (comm, else peer, else id), joined with ", "
 * into out, cut with ", ..." past 60 bytes, each escaped for a terminal. */
void trace_query_client_names(sqlite3 *db, int64_t id, char *out, size_t len);
/* The policy a replay ran under, escaped for a terminal, or "?". */
void trace_query_policy(sqlite3 *db, int64_t id, char *out, size_t len);

#endif
