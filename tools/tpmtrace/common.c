#include "common.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "db/db.h"

sqlite3 *cli_open_db(const char *sub, const char *path, int write)
{
	sqlite3 *db;
	char err[512];
	if (db_open(path, write ? DB_WRITE : DB_READ, &db, err, sizeof err)) {
		die(sub, "%s", err);
		return NULL;
	}
	return db;
}

int64_t cli_pick_trace(const char *sub, sqlite3 *db, const char *arg)
{
	if (!arg) {
		int64_t id = db_last_trace(db);
		if (!id)
			die(sub, "the database holds no trace");
		return id;
	}
	char *end;
	long long id = strtoll(arg, &end, 10);
	if (!*arg || *end || id <= 0) {
		die(sub, "--trace takes a trace id (see 'tpmtrace list'), not '%s'", arg);
		return 0;
	}
	sqlite3_stmt *st;
	int found = 0;
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM trace WHERE id=?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	if (!found) {
		die(sub, "no trace %lld in this database (see 'tpmtrace list')", id);
		return 0;
	}
	return id;
}

void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

double ns_to_ms(double ns)
{
	return ns / 1e6;
}
