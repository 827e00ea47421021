/* The writer's INSERTs (db/writer.c's thread; not for use elsewhere): commands and events
 * WROWS_PER_INSERT rows to a statement, a batch's last ones one by one, and the client rows. A
 * parameter is bound again only when its value changed since the statement last ran (bindings
 * stay across sqlite3_reset): a command's code, sizes, handles, NULLs and client mostly repeat
 * from one row to the next, and a bind was a quarter of the writer's instructions. The commands
 * of one INSERT go through a statement of only the columns that are not NULL in all of them
 * (up to WROWS_VARIANTS such statements, the one of every column otherwise): a column left out
 * is neither bound nor copied twice by the statement for each row (a GetRandom's row has 8 NULL
 * columns of 25: handles, sessions, PCR, response handle, malformed). */
#ifndef TPMTRACE_WRITER_ROWS_H
#define TPMTRACE_WRITER_ROWS_H

#include <sqlite3.h>
#include <stdint.h>

#include "db/writer.h"

#define WROWS_PER_INSERT 16
#define WROWS_VARIANTS	 4 /* statements for rows with some columns all NULL */

/* What a parameter holds now, as far as the writer knows. */
struct wrows_bound {
	int64_t v;
	uint8_t kind; /* 0: unknown (text, a blob, never bound), 1: NULL, 2: integer v */
};

struct wrows_stmt {
	sqlite3_stmt *st;
	struct wrows_bound *b; /* one a parameter */
};

struct wrows_pending { /* rows of one table waiting for a full multi-row INSERT */
	const struct rec *r[WROWS_PER_INSERT];
	int n;
};

/* The INSERT of WROWS_PER_INSERT command rows with only the columns of mask. */
struct wrows_variant {
	struct wrows_stmt s;
	uint32_t mask; /* bit c: column c of the command table's (writer_rows.c's cmd_cols) */
	int ncols;
	uint64_t used; /* inserts when last used */
};

struct wrows {
	sqlite3 *db;
	int64_t trace_id; /* the rows' trace */
	struct wrows_stmt cmd, cmd_n, ev, ev_n, client;
	struct wrows_variant var[WROWS_VARIANTS];
	int nvar;
	uint64_t inserts;  /* of WROWS_PER_INSERT commands */
	uint64_t prepared; /* variants prepared */
	struct wrows_pending pc, pe;
};

/* Prepares the statements on db (x zeroed first). 0 or SQLite's error code (db's message). */
int db_wrows_prepare(struct wrows *x, sqlite3 *db);
/* A record of the queue: a command or an event waits until its table has WROWS_PER_INSERT rows
 * (r must stay valid until then, or until db_wrows_flush), a client row is stored now. 0 or
 * SQLite's error code. */
int db_wrows_add(struct wrows *x, const struct rec *r);
/* Stores the rows still waiting, one by one. 0 or SQLite's error code. */
int db_wrows_flush(struct wrows *x);
/* 1 when no row waits (every record added so far is stored). */
int db_wrows_idle(const struct wrows *x);
/* Forgets the rows waiting (their batch failed). */
void db_wrows_drop(struct wrows *x);
void db_wrows_finalize(struct wrows *x);

#endif
