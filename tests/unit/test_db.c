/* The trace store: schema checks on open, the writer (batches, drops under a
 * stalled writer counted exactly, payload bytes intact through its ring as it
 * grows), and the statistics view against the same statistics computed here
 * from the raw rows. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/db.h"
#include "db/queue_mem.h"
#include "db/writer.h"
#include "schema_sql.h"
#include "db/host_id.h"

#include <openssl/evp.h>
#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "testlib.h"

static char path[512];

static int64_t new_trace(const char *p)
{
	sqlite3 *db;
	char err[256];
	CHECK(db_open(p, DB_CREATE, &db, err, sizeof err) == 0, "%s", err);
	struct trace_info ti = {.kind = "record", .name = "test", .payloads = "none"};
	int64_t id = db_trace_begin(db, &ti);
	db_close(db);
	return id;
}

static void test_open_checks(void)
{
	char p[600], err[256];
	sqlite3 *db;
	struct stat st;

	snprintf(p, sizeof p, "%s/new.db", tl_tmpdir());
	CHECK(db_open(p, DB_READ, &db, err, sizeof err) < 0, "missing file opened");
	CHECK(db_open(p, DB_CREATE, &db, err, sizeof err) == 0, "create: %s", err);
	db_close(db);
	CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);

	/* A foreign SQLite file. */
	snprintf(p, sizeof p, "%s/foreign.db", tl_tmpdir());
	sqlite3_open(p, &db);
	sqlite3_exec(db, "CREATE TABLE x(a)", NULL, NULL, NULL);
	sqlite3_close(db);
	CHECK(db_open(p, DB_WRITE, &db, err, sizeof err) == -22, "foreign opened");
	CHECK(strstr(err, "not a tpmtrace database") != NULL, "message: %s", err);

	/* A newer schema. */
	snprintf(p, sizeof p, "%s/newer.db", tl_tmpdir());
	CHECK(db_open(p, DB_CREATE, &db, err, sizeof err) == 0, "%s", err);
	sqlite3_exec(db, "PRAGMA user_version=99", NULL, NULL, NULL);
	db_close(db);
	CHECK(db_open(p, DB_READ, &db, err, sizeof err) == -22, "newer opened");
	CHECK(strstr(err, "newer") != NULL, "message: %s", err);

	/* Not SQLite at all. */
	snprintf(p, sizeof p, "%s/text.db", tl_tmpdir());
	FILE *f = fopen(p, "w");
	fputs("this is not a database, just some text that is long enough to be a header\n", f);
	fclose(f);
	CHECK(db_open(p, DB_READ, &db, err, sizeof err) < 0, "text file opened");
	CHECK(strstr(err, p) != NULL, "message names the file: %s", err);
}

static unsigned mode_of(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? (unsigned)(st.st_mode & 0777) : 07777;
}

static void touch(const char *p, unsigned mode)
{
	FILE *f = fopen(p, "w");
	if (f)
		fclose(f);
	chmod(p, mode);
}

/* Finding 5 of issue 15: modes enforced where the database is written. */
static void test_open_modes(void)
{
	char p[600], q[640], err[512];
	sqlite3 *db = NULL;
	struct stat st;

	/* An empty file of mode 0666 is not adopted (before: database, -wal and
	 * -shm all 0666, no word said). */
	snprintf(p, sizeof p, "%s/pre.db", tl_tmpdir());
	touch(p, 0666);
	CHECK(db_open(p, DB_CREATE, &db, err, sizeof err) == -EPERM && !db,
	      "0666 empty file adopted");
	CHECK(strstr(err, "0666") && strstr(err, "wider"), "message: %s", err);
	CHECK(stat(p, &st) == 0 && st.st_size == 0, "the refused file was written");
	chmod(p, 0600);
	CHECK(db_open(p, DB_CREATE, &db, err, sizeof err) == 0, "0600 empty file: %s", err);
	db_close(db);
	/* ... and at the mode record --mode asks for. */
	snprintf(p, sizeof p, "%s/pre640.db", tl_tmpdir());
	touch(p, 0640);
	CHECK(db_open(p, DB_CREATE, &db, err, sizeof err) == -EPERM, "0640 adopted as 0600");
	CHECK(db_open_perm(p, DB_CREATE, 0640, &db, err, sizeof err) == 0, "--mode 0640: %s", err);
	db_close(db);
	snprintf(p, sizeof p, "%s/new640.db", tl_tmpdir());
	CHECK(db_open_perm(p, DB_CREATE, 0640, &db, err, sizeof err) == 0, "%s", err);
	db_close(db);
	CHECK(mode_of(p) == 0640, "created at --mode: %o", mode_of(p));

	/* A symbolic link to an empty file is not followed: the target stays
	 * empty. A dangling one gets a clear message, not "File exists". */
	snprintf(p, sizeof p, "%s/target", tl_tmpdir());
	touch(p, 0600);
	snprintf(q, sizeof q, "%s/link.db", tl_tmpdir());
	CHECK(symlink(p, q) == 0, "symlink");
	CHECK(db_open(q, DB_CREATE, &db, err, sizeof err) == -ELOOP, "link to an empty file");
	CHECK(stat(p, &st) == 0 && st.st_size == 0, "the link's target was filled");
	CHECK(strstr(err, "symbolic link to an empty file"), "message: %s", err);
	snprintf(q, sizeof q, "%s/dangling.db", tl_tmpdir());
	CHECK(symlink("/nonexistent/x.db", q) == 0, "symlink");
	CHECK(db_open(q, DB_CREATE, &db, err, sizeof err) == -ELOOP, "dangling link");
	CHECK(strstr(err, "does not exist") && !strstr(err, "File exists"), "message: %s", err);
	/* A link to a database is followed, for reading and writing. */
	snprintf(p, sizeof p, "%s/real.db", tl_tmpdir());
	CHECK(db_open(p, DB_CREATE, &db, err, sizeof err) == 0, "%s", err);
	db_close(db);
	snprintf(q, sizeof q, "%s/good-link.db", tl_tmpdir());
	CHECK(symlink(p, q) == 0, "symlink");
	CHECK(db_open(q, DB_WRITE, &db, err, sizeof err) == 0, "link to a database: %s", err);
	db_close(db);

	/* A database everyone may write is refused; -wal/-shm left wider than
	 * the database are narrowed to its mode. */
	chmod(p, 0606);
	CHECK(db_open(p, DB_WRITE, &db, err, sizeof err) == -EPERM, "world-writable opened");
	chmod(p, 0600);
	snprintf(q, sizeof q, "%s-shm", p);
	touch(q, 0666);
	CHECK(db_open(p, DB_WRITE, &db, err, sizeof err) == 0, "%s", err);
	CHECK(mode_of(q) == 0600, "-shm narrowed: %o", mode_of(q));
	db_close(db);

	/* Read-only: no statement writes, here or elsewhere. */
	CHECK(db_open(p, DB_READ, &db, err, sizeof err) == 0, "%s", err);
	snprintf(q, sizeof q, "%s/copy.db", tl_tmpdir());
	char sql[800];
	snprintf(sql, sizeof sql, "VACUUM INTO '%s'", q);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK, "VACUUM INTO ran");
	CHECK(access(q, F_OK) != 0, "VACUUM INTO wrote %s", q);
	snprintf(sql, sizeof sql, "ATTACH '%s' AS x", q);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK && access(q, F_OK) != 0,
	      "ATTACH ran");
	CHECK(sqlite3_exec(db, "DELETE FROM trace", NULL, NULL, NULL) != SQLITE_OK, "DELETE ran");
	CHECK(sqlite3_exec(db, "CREATE TEMP TABLE t(x)", NULL, NULL, NULL) != SQLITE_OK,
	      "CREATE TEMP ran");
	db_close(db);

	/* The end of a recording leaves no WAL mode behind (readers need no
	 * -shm). */
	CHECK(db_open(p, DB_WRITE, &db, err, sizeof err) == 0, "%s", err);
	db_close_for_readers(db);
	CHECK(db_open(p, DB_READ, &db, err, sizeof err) == 0, "%s", err);
	sqlite3_stmt *st2;
	sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st2, NULL);
	CHECK(sqlite3_step(st2) == SQLITE_ROW &&
		  !strcmp((const char *)sqlite3_column_text(st2, 0), "delete"),
	      "journal mode after the last writer: %s", sqlite3_column_text(st2, 0));
	sqlite3_finalize(st2);
	db_close(db);
}

/* One value of an SQL expression as text ("NULL" for NULL), or "error: ...". */
static const char *sql1(sqlite3 *db, const char *sql, char *buf, size_t len)
{
	sqlite3_stmt *st;
	snprintf(buf, len, "error: prepare");
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return buf;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(buf, len, "%s",
			 sqlite3_column_type(st, 0) == SQLITE_NULL
			     ? "NULL"
			     : (const char *)sqlite3_column_text(st, 0));
	else
		snprintf(buf, len, "error: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return buf;
}

/* Finding 11 of issue 15: the SQL functions say no instead of a quiet answer. */
static void test_sql_functions(void)
{
	char p[600], err[256], b[256];
	sqlite3 *db;
	snprintf(p, sizeof p, "%s/fn.db", tl_tmpdir());
	CHECK(db_open(p, DB_CREATE, &db, err, sizeof err) == 0, "%s", err);
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc_name(382)", b, sizeof b), "PCR_Read"), "%s", b);
	/* 4294967678 = 2^32 + 382: not truncated to PCR_Read. */
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc_name(4294967678)", b, sizeof b), "NULL"), "%s", b);
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc_name(-1)", b, sizeof b), "NULL"), "%s", b);
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc_name('abc')", b, sizeof b), "NULL"), "%s", b);
	/* The destructive column of tpm_cc.def, as a function and in the table:
	 * Clear (0x126) and EvictControl (0x120) are, Startup (0x144) is not. */
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc_destructive(294)", b, sizeof b), "1"), "%s", b);
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc_destructive(288)", b, sizeof b), "1"), "%s", b);
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc_destructive(324)", b, sizeof b), "0"), "%s", b);
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc_destructive(4294967590)", b, sizeof b), "NULL"), "%s",
	      b);
	CHECK(!strcmp(sql1(db, "SELECT count(*) FROM tpm_cc WHERE destructive", b, sizeof b), "24"),
	      "%s", b);
	CHECK(!strcmp(sql1(db,
			   "SELECT count(*) FROM tpm_cc WHERE destructive IS NOT "
			   "tpm_cc_destructive(cc)",
			   b, sizeof b),
		      "0"),
	      "%s", b);
	/* Protocol facts by name in SQL: a command by its name (CreatePrimary is
	 * 0x131), the policy commands of tpm_cc_is_policy, the families, the
	 * retry codes (RETRY 0x922, YIELDED 0x908, TESTING 0x90A), handle types. */
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc('CreatePrimary')", b, sizeof b), "305"), "%s", b);
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc('TPM2_PolicyOR')", b, sizeof b), "369"), "%s", b);
	CHECK(
	    !strncmp(sql1(db, "SELECT tpm_cc('CreatePrimery')", b, sizeof b), "error: tpm_cc", 13),
	    "%s", b);
	CHECK(!strcmp(sql1(db,
			   "SELECT sum(tpm_cc_is_policy(cc)) = sum(name LIKE 'Policy%')"
			   " AND sum(tpm_cc_is_policy(cc)) > 20 FROM tpm_cc",
			   b, sizeof b),
		      "1"),
	      "the policy commands are those named Policy...: %s", b);
	CHECK(
	    !strcmp(sql1(db, "SELECT tpm_cc_is_policy(tpm_cc('PolicyTransportSPDM'))", b, sizeof b),
		    "1"),
	    "%s", b);
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc_is_policy(tpm_cc('StartAuthSession'))", b, sizeof b),
		      "0"),
	      "%s", b);
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc_is_policy(1)", b, sizeof b), "NULL"), "%s", b);
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc_family(tpm_cc('NV_Write'))", b, sizeof b), "NV"),
	      "%s", b);
	CHECK(!strcmp(sql1(db, "SELECT tpm_cc_family(1)", b, sizeof b), "NULL"), "%s", b);
	CHECK(!strcmp(sql1(db,
			   "SELECT group_concat(tpm_rc_is_retry(x)) FROM (SELECT 2338 x UNION ALL"
			   " SELECT 2312 UNION ALL SELECT 2314 UNION ALL SELECT 0 UNION ALL"
			   " SELECT 2337)",
			   b, sizeof b),
		      "1,1,1,0,0"),
	      "%s", b);
	CHECK(!strcmp(sql1(db, "SELECT tpm_rc_is_retry(NULL)", b, sizeof b), "NULL"), "%s", b);
	CHECK(!strcmp(sql1(db, "SELECT tpm_ht_of(50331648) || ',' || tpm_ht_of(2147483649)", b,
			   sizeof b),
		      "3,128"),
	      "%s", b);
	CHECK(!strcmp(sql1(db, "SELECT tpm_ht_of(4294967296)", b, sizeof b), "NULL"), "%s", b);
	static const char vals[] = "(SELECT 10 x UNION ALL SELECT 20 UNION ALL SELECT 30)";
	char q[256];
	snprintf(q, sizeof q, "SELECT percentile(x, 50) FROM %s", vals);
	CHECK(!strcmp(sql1(db, q, b, sizeof b), "20"), "p50: %s", b);
	snprintf(q, sizeof q, "SELECT percentile(x, NULL) FROM %s", vals);
	CHECK(!strncmp(sql1(db, q, b, sizeof b), "error: percentile", 17), "p NULL: %s", b);
	snprintf(q, sizeof q, "SELECT percentile(x, 'abc') FROM %s", vals);
	CHECK(!strncmp(sql1(db, q, b, sizeof b), "error: percentile", 17), "p 'abc': %s", b);
	CHECK(!strncmp(sql1(db, "SELECT percentile(x, 50) FROM (SELECT 'abc' x UNION ALL SELECT 5)",
			    b, sizeof b),
		       "error: percentile", 17),
	      "x 'abc': %s", b);
	CHECK(!strcmp(sql1(db, "SELECT percentile(x, 50) FROM (SELECT NULL x UNION ALL SELECT 5)",
			   b, sizeof b),
		      "5"),
	      "NULL x skipped: %s", b);
	db_close(db);
}

struct row {
	uint32_t cc;
	int64_t lat;
	int64_t seq;
};

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->cc != y->cc)
		return x->cc < y->cc ? -1 : 1;
	if (x->lat != y->lat)
		return x->lat < y->lat ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Nearest rank: the smallest value whose 1-based rank r has r*100 >= p*n. */
static int64_t nearest_rank(const struct row *r, size_t n, int p)
{
	size_t k = ((size_t)p * n + 99) / 100;
	if (k < 1)
		k = 1;
	return r[k - 1].lat;
}

static void test_writer_and_stats(void)
{
	char err[256];
	snprintf(path, sizeof path, "%s/stats.db", tl_tmpdir());
	int64_t id = new_trace(path);
	CHECK(id > 0, "trace id %lld", (long long)id);
	struct writer *w;
	struct writer_cfg cfg = {.path = path, .trace_id = id, .block_when_full = 1};
	CHECK(db_writer_start(&w, &cfg, err, sizeof err) == 0, "%s", err);
	static const uint32_t ccs[] = {TPM_CC_PCR_Extend, TPM_CC_GetRandom, TPM_CC_CreatePrimary,
				       TPM_CC_FlushContext};
	srand(7);
	const int N = 20000;
	uint64_t t = 1000000;
	for (int i = 0; i < N; i++) {
		struct rec *r = db_writer_reserve(w, REC_COMMAND, 0);
		CHECK(r != NULL, "reserve failed in blocking mode");
		if (!r)
			break;
		r->cc = ccs[rand() % 4];
		r->has_rsp = 1;
		r->t_submit = t;
		r->t_done = t + 1000 + (uint64_t)(rand() % 5000000);
		t = r->t_done + 10;
		db_writer_publish(w);
	}
	struct writer_stats st;
	CHECK(db_writer_stop(w, NULL, &st) == 0, "stop");
	CHECK(st.commands == (uint64_t)N && st.dropped == 0, "stored %llu dropped %llu",
	      (unsigned long long)st.commands, (unsigned long long)st.dropped);

	/* Independent statistics from the raw rows. */
	sqlite3 *db;
	CHECK(db_open(path, DB_READ, &db, err, sizeof err) == 0, "%s", err);
	sqlite3_stmt *q;
	struct row *rows = calloc((size_t)N, sizeof *rows);
	size_t n = 0;
	sqlite3_prepare_v2(db,
			   "SELECT cc, t_done_ns - t_submit_ns, seq FROM command WHERE trace_id=?",
			   -1, &q, NULL);
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW && n < (size_t)N) {
		rows[n].cc = (uint32_t)sqlite3_column_int64(q, 0);
		rows[n].lat = sqlite3_column_int64(q, 1);
		rows[n].seq = sqlite3_column_int64(q, 2);
		n++;
	}
	sqlite3_finalize(q);
	CHECK(n == (size_t)N, "rows %zu", n);
	qsort(rows, n, sizeof *rows, cmp_row);

	sqlite3_prepare_v2(
	    db,
	    "SELECT cc, name, count, total_ns, min_ns, mean_ns, p50_ns, p95_ns, p99_ns,"
	    " max_ns, first_ns,"
	    " (SELECT percentile(latency_ns, 95) FROM command c WHERE c.trace_id=s.trace_id"
	    "  AND c.cc=s.cc) FROM command_stats s WHERE trace_id=? ORDER BY cc",
	    -1, &q, NULL);
	sqlite3_bind_int64(q, 1, id);
	int groups = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int64_t total = 0, first_seq = rows[i].seq, first_lat = rows[i].lat;
		while (j < n && rows[j].cc == rows[i].cc) {
			total += rows[j].lat;
			if (rows[j].seq < first_seq) {
				first_seq = rows[j].seq;
				first_lat = rows[j].lat;
			}
			j++;
		}
		size_t cnt = j - i;
		CHECK(sqlite3_step(q) == SQLITE_ROW, "missing group");
		CHECK((uint32_t)sqlite3_column_int64(q, 0) == rows[i].cc, "cc");
		CHECK(strcmp((const char *)sqlite3_column_text(q, 1), tpm_cc_name(rows[i].cc)) == 0,
		      "name");
		CHECK(sqlite3_column_int64(q, 2) == (int64_t)cnt, "count");
		CHECK(sqlite3_column_int64(q, 3) == total, "total");
		CHECK(sqlite3_column_int64(q, 4) == rows[i].lat, "min");
		double mean = (double)total / (double)cnt;
		CHECK(sqlite3_column_double(q, 5) > mean - 0.5 &&
			  sqlite3_column_double(q, 5) < mean + 0.5,
		      "mean");
		CHECK(sqlite3_column_int64(q, 6) == nearest_rank(rows + i, cnt, 50),
		      "p50 %lld vs %lld", (long long)sqlite3_column_int64(q, 6),
		      (long long)nearest_rank(rows + i, cnt, 50));
		CHECK(sqlite3_column_int64(q, 7) == nearest_rank(rows + i, cnt, 95), "p95");
		CHECK(sqlite3_column_int64(q, 8) == nearest_rank(rows + i, cnt, 99), "p99");
		CHECK(sqlite3_column_int64(q, 9) == rows[j - 1].lat, "max");
		CHECK(sqlite3_column_int64(q, 10) == first_lat, "first");
		CHECK(sqlite3_column_int64(q, 11) == nearest_rank(rows + i, cnt, 95),
		      "percentile() agrees with the view");
		groups++;
		i = j;
	}
	CHECK(sqlite3_step(q) == SQLITE_DONE, "extra groups");
	CHECK(groups == 4, "groups %d", groups);
	sqlite3_finalize(q);
	free(rows);
	db_close(db);
}

/* Stopping stores every record published before the stop, whatever the
 * writer was doing then: asleep after a flush (producers do not wake it for a
 * few records), waking from its idle timeout, or between its read of an
 * empty queue and its look at stop (where a stop once lost 85 records: the
 * fault switch holds it there 2 ms, so that the records and the stop come
 * then). Short runs, each stopped at a different moment. */
static void test_stop_stores_everything(void)
{
	char p[600], err[256];
	snprintf(p, sizeof p, "%s/stop.db", tl_tmpdir());
	int lost = 0, runs = 0;
	setenv("TPMTRACE_FAULT_WRITER_STOP_GAP_US", "2000", 1);
	for (int i = 0; i < 60; i++) {
		if (i == 30)
			unsetenv("TPMTRACE_FAULT_WRITER_STOP_GAP_US");
		int64_t id = new_trace(p);
		struct writer *w;
		struct writer_cfg cfg = {.path = p, .trace_id = id, .block_when_full = 1};
		CHECK(db_writer_start(&w, &cfg, err, sizeof err) == 0, "%s", err);
		db_writer_event(w, 1, "before", NULL, 0);
		db_writer_flush(w);
		usleep((useconds_t)(i % 7) * 150);
		int n = 1 + i % 40;
		for (int k = 0; k < n; k++)
			db_writer_event(w, 2 + (uint64_t)k, "after", NULL, 0);
		struct writer_stats st;
		CHECK(db_writer_stop(w, NULL, &st) == 0, "stop %d", i);
		lost += st.events != (uint64_t)n + 1;
		runs++;
	}
	CHECK(lost == 0, "%d of %d runs stored fewer events than were published before the stop",
	      lost, runs);
}

/* Every column of every row lands where it belongs, in order, whether the
 * writer stored it in a multi-row INSERT or one by one (a batch's last rows):
 * commands and events interleaved in runs of uneven length, batches ended at
 * uneven points by flushes, each row's values unique to it; and a response
 * handle and a malformed reason that repeat, with NULLs between (the writer
 * binds a parameter again only when its value changed). */
static void test_rows_in_order(void)
{
	char p[600], err[256];
	snprintf(p, sizeof p, "%s/order.db", tl_tmpdir());
	int64_t id = new_trace(p);
	struct writer *w;
	struct writer_cfg cfg = {.path = p, .trace_id = id, .block_when_full = 1};
	CHECK(db_writer_start(&w, &cfg, err, sizeof err) == 0, "%s", err);
	const int N = 1000;
	int ncmd = 0, nev = 0;
	for (int i = 0; i < N; i++) {
		char kind[16], detail[32];
		if (i % 7 == 3 || i % 11 == 5) { /* an event */
			snprintf(kind, sizeof kind, "k%d", i);
			if (i % 2)
				snprintf(detail, sizeof detail, "detail %d", i);
			else
				detail[0] = 0;
			CHECK(db_writer_event(w, 5000 + (uint64_t)i, kind, detail, (uint32_t)i) ==
				  0,
			      "event %d", i);
			nev++;
		} else {
			uint32_t len = 10 + (uint32_t)(i % 23);
			struct rec *r = db_writer_reserve(w, REC_COMMAND, len + 10);
			CHECK(r != NULL, "reserve %d", i);
			if (!r)
				break;
			r->cc = 0x100 + (uint32_t)i;
			r->has_rsp = 1;
			r->t_submit = 1000000 + (uint64_t)i * 100;
			r->t_done = r->t_submit + 7 + (uint64_t)i;
			r->tag = 0x8001;
			r->cmd_size = len;
			r->rsp_size = 10;
			r->rc = (uint32_t)i;
			r->n_handles = (uint8_t)(i % 4);
			for (int h = 0; h < r->n_handles; h++)
				r->handles[h] = 0x80000000u + (uint32_t)(i * 3 + h);
			r->pcr = i % 5 ? -1 : i % 24;
			r->has_rsp_handle = i % 3 != 1;
			r->rsp_handle = 0x80000001u + (uint32_t)(i / 6 % 2);
			r->malformed = (uint8_t)(i % 4 == 2 ? 0 : 1 + i / 8 % 2);
			r->client_id = (uint32_t)(i % 9);
			r->flags = (uint32_t)(i % 3);
			r->cmd_len = len;
			r->rsp_len = 10;
			for (uint32_t b = 0; b < len + 10; b++)
				r->payload[b] = (uint8_t)(i + (int)b);
			db_writer_publish(w);
			ncmd++;
		}
		if (i % 97 == 41)
			db_writer_flush(w);
	}
	struct writer_stats st;
	CHECK(db_writer_stop(w, NULL, &st) == 0, "stop");
	CHECK(st.commands == (uint64_t)ncmd && st.events == (uint64_t)nev && !st.dropped,
	      "stored %llu + %llu", (unsigned long long)st.commands, (unsigned long long)st.events);

	sqlite3 *db;
	sqlite3_stmt *q;
	CHECK(db_open(p, DB_READ, &db, err, sizeof err) == 0, "%s", err);
	sqlite3_prepare_v2(
	    db,
	    "SELECT seq, cc, t_submit_ns, t_done_ns, latency_ns, rc, handle1, handle2,"
	    " handle3, pcr, client_id, flags, cmd, rsp, tag, cmd_size, rsp_size,"
	    " rsp_handle, malformed FROM command WHERE trace_id = ? ORDER BY id",
	    -1, &q, NULL);
	sqlite3_bind_int64(q, 1, id);
	int seen = 0, bad = 0;
	int64_t prev_seq = 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		int i = (int)sqlite3_column_int64(q, 1) - 0x100;
		int64_t seq = sqlite3_column_int64(q, 0);
		uint64_t ts = 1000000 + (uint64_t)i * 100;
		uint32_t len = 10 + (uint32_t)(i % 23);
		bad += seq <= prev_seq || seq != i + 1;
		prev_seq = seq;
		bad += sqlite3_column_int64(q, 2) != (int64_t)ts;
		bad += sqlite3_column_int64(q, 3) != (int64_t)(ts + 7 + (uint64_t)i);
		bad += sqlite3_column_int64(q, 4) != 7 + i;
		bad += sqlite3_column_int64(q, 5) != i;
		for (int h = 0; h < 3; h++)
			bad += h < i % 4 ? sqlite3_column_int64(q, 6 + h) !=
					       (int64_t)(0x80000000u + (uint32_t)(i * 3 + h))
					 : sqlite3_column_type(q, 6 + h) != SQLITE_NULL;
		bad += i % 5 ? sqlite3_column_type(q, 9) != SQLITE_NULL
			     : sqlite3_column_int64(q, 9) != i % 24;
		bad += sqlite3_column_int64(q, 10) != i % 9 || sqlite3_column_int64(q, 11) != i % 3;
		const uint8_t *c = sqlite3_column_blob(q, 12), *r = sqlite3_column_blob(q, 13);
		bad += sqlite3_column_bytes(q, 12) != (int)len || sqlite3_column_bytes(q, 13) != 10;
		for (uint32_t b = 0; c && r && b < len + 10; b++)
			bad += (b < len ? c[b] : r[b - len]) != (uint8_t)(i + (int)b);
		bad += sqlite3_column_int64(q, 14) != 0x8001 ||
		       sqlite3_column_int64(q, 15) != (int64_t)len ||
		       sqlite3_column_int64(q, 16) != 10;
		bad += i % 3 != 1 ? sqlite3_column_int64(q, 17) != 0x80000001 + i / 6 % 2
				  : sqlite3_column_type(q, 17) != SQLITE_NULL;
		const char *mal = (const char *)sqlite3_column_text(q, 18);
		bad += i % 4 == 2 ? mal != NULL
				  : !mal || strcmp(mal, tpm_malformed_str(1 + i / 8 % 2));
		seen++;
	}
	sqlite3_finalize(q);
	CHECK(seen == ncmd && bad == 0, "commands: %d of %d read back, %d wrong values", seen, ncmd,
	      bad);
	sqlite3_prepare_v2(db,
			   "SELECT seq, t_ns, kind, detail, client_id FROM event WHERE trace_id = ?"
			   " ORDER BY id",
			   -1, &q, NULL);
	sqlite3_bind_int64(q, 1, id);
	seen = bad = 0;
	prev_seq = 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		int i = (int)sqlite3_column_int64(q, 4);
		char kind[16], detail[32];
		snprintf(kind, sizeof kind, "k%d", i);
		snprintf(detail, sizeof detail, "detail %d", i);
		bad +=
		    sqlite3_column_int64(q, 0) <= prev_seq || sqlite3_column_int64(q, 0) != i + 1;
		prev_seq = sqlite3_column_int64(q, 0);
		bad += sqlite3_column_int64(q, 1) != 5000 + i;
		bad += strcmp((const char *)sqlite3_column_text(q, 2), kind) != 0;
		bad += i % 2 ? !sqlite3_column_text(q, 3) ||
				   strcmp((const char *)sqlite3_column_text(q, 3), detail)
			     : sqlite3_column_type(q, 3) != SQLITE_NULL;
		seen++;
	}
	sqlite3_finalize(q);
	CHECK(seen == nev && bad == 0, "events: %d of %d read back, %d wrong values", seen, nev,
	      bad);
	db_close(db);
}

/* Row i of test_rows_narrow: its shape (which columns are NULL) changes in runs of 37 rows,
 * not aligned with the writer's INSERTs of 16, and every 50th row has every column. */
static void narrow_row(struct rec *r, int i)
{
	int shape = i % 50 == 49 ? 1 : i / 37 % 5;
	uint32_t len = 10 + (uint32_t)(i % 5), rlen = 12;
	r->cc = 0x17B + (uint32_t)(i % 3);
	r->locality = (uint8_t)(i % 2);
	r->t_submit = 1000 + (uint64_t)i * 10;
	r->t_done = shape == 4 ? r->t_submit : r->t_submit + 3;
	r->flags = shape == 4 ? REC_F_SYNTHETIC_TIME : 0;
	r->has_rsp = shape != 2;
	r->no_bytes = shape == 3;
	r->tag = 0x8001;
	r->cmd_size = len;
	r->rsp_size = rlen;
	r->rc = (uint32_t)(i % 2);
	r->n_handles = (uint8_t)(shape == 1 ? 3 : shape == 2);
	for (int h = 0; h < r->n_handles; h++)
		r->handles[h] = 0x81000000u + (uint32_t)h;
	r->has_rsp_handle = shape == 1;
	r->rsp_handle = 0x80000000u + (uint32_t)(i % 2);
	r->n_sessions = (uint8_t)(shape == 1 || shape == 4);
	r->sess_handle = 0x02000000u;
	r->sess_attrs = 1;
	r->auth_kind = r->n_sessions;
	r->pcr = shape == 1 ? i % 24 : -1;
	r->malformed = (uint8_t)(shape == 1);
	r->client_id = 1;
	r->cmd_len = shape == 3 ? 0 : len;
	r->rsp_len = shape == 3 || shape == 2 ? 0 : rlen;
	for (uint32_t b = 0; b < r->cmd_len + r->rsp_len; b++)
		r->payload[b] = (uint8_t)(i * 7 + (int)b);
}

/* Every column of rows whose NULLs come in runs (the writer's INSERTs of 16 such rows bind only
 * the columns not NULL in all of them, through a few statements of their own and the full one
 * once those are spent): each stored exactly as the row says, NULL where it has no value. */
static void test_rows_narrow(void)
{
	char p[600], err[256];
	snprintf(p, sizeof p, "%s/narrow.db", tl_tmpdir());
	int64_t id = new_trace(p);
	struct writer *w;
	struct writer_cfg cfg = {.path = p, .trace_id = id, .block_when_full = 1};
	CHECK(db_writer_start(&w, &cfg, err, sizeof err) == 0, "%s", err);
	const int N = 4000;
	for (int i = 0; i < N; i++) {
		struct rec *r = db_writer_reserve(w, REC_COMMAND, 40);
		CHECK(r != NULL, "reserve %d", i);
		if (!r)
			break;
		narrow_row(r, i);
		db_writer_publish(w);
	}
	struct writer_stats st;
	CHECK(db_writer_stop(w, NULL, &st) == 0 && st.commands == (uint64_t)N, "stop");
	sqlite3 *db;
	sqlite3_stmt *q;
	CHECK(db_open(p, DB_READ, &db, err, sizeof err) == 0, "%s", err);
	sqlite3_prepare_v2(db,
			   "SELECT seq, t_submit_ns, t_done_ns, latency_ns, cc, locality, tag,"
			   " cmd_size, rsp_size, rc, handle1, handle2, handle3, rsp_handle,"
			   " n_sessions, sess_handle, sess_attrs, auth_kind, pcr, client_id, flags,"
			   " malformed, cmd, rsp FROM command WHERE trace_id = ? ORDER BY id",
			   -1, &q, NULL);
	sqlite3_bind_int64(q, 1, id);
	int seen = 0, bad = 0;
	uint8_t buf[64];
	while (sqlite3_step(q) == SQLITE_ROW) {
		int i = seen++;
		struct rec *r = (struct rec *)calloc(1, sizeof(*r));
		r->payload = buf;
		narrow_row(r, i);
		int rsp = r->has_rsp, bytes = !r->no_bytes, lat = rsp && r->t_done != r->t_submit;
		struct {
			int have;
			int64_t v;
		} want[] = {
		    {1, i + 1},
		    {1, (int64_t)r->t_submit},
		    {rsp, (int64_t)r->t_done},
		    {lat, (int64_t)(r->t_done - r->t_submit)},
		    {1, r->cc},
		    {1, r->locality},
		    {bytes, r->tag},
		    {bytes, r->cmd_size},
		    {bytes && rsp, r->rsp_size},
		    {bytes && rsp, r->rc},
		    {r->n_handles > 0, r->handles[0]},
		    {r->n_handles > 1, r->handles[1]},
		    {r->n_handles > 2, r->handles[2]},
		    {r->has_rsp_handle, r->rsp_handle},
		    {1, r->n_sessions},
		    {r->n_sessions, r->sess_handle},
		    {r->n_sessions, r->sess_attrs},
		    {1, r->auth_kind},
		    {r->pcr >= 0, r->pcr},
		    {1, r->client_id},
		    {1, r->flags},
		};
		for (int c = 0; c < (int)(sizeof want / sizeof *want); c++)
			bad += want[c].have ? sqlite3_column_type(q, c) != SQLITE_INTEGER ||
						  sqlite3_column_int64(q, c) != want[c].v
					    : sqlite3_column_type(q, c) != SQLITE_NULL;
		const char *mal = (const char *)sqlite3_column_text(q, 21);
		bad += r->malformed ? !mal || strcmp(mal, tpm_malformed_str(r->malformed)) : !!mal;
		for (int k = 0; k < 2; k++) {
			uint32_t n = k ? r->rsp_len : r->cmd_len;
			const uint8_t *b = sqlite3_column_blob(q, 22 + k);
			bad += n ? sqlite3_column_bytes(q, 22 + k) != (int)n ||
				       memcmp(b, buf + (k ? r->cmd_len : 0), n)
				 : sqlite3_column_type(q, 22 + k) != SQLITE_NULL;
		}
		free(r);
	}
	sqlite3_finalize(q);
	CHECK(seen == N && bad == 0, "narrow rows: %d of %d read back, %d wrong values", seen, N,
	      bad);
	db_close(db);
}

/* An importer's writer (cfg.whole, one transaction, the producer waiting for room in a queue of
 * 512 slots): the records a batch has stored go back to the producer before the batch ends,
 * never one still waiting in an INSERT; commands and events interleaved, each payload read back
 * as it was written (a slot or payload handed back early would be overwritten first). */
static void test_whole_hands_back_early(void)
{
	char p[600], err[256];
	snprintf(p, sizeof p, "%s/whole.db", tl_tmpdir());
	sqlite3 *db;
	CHECK(db_open(p, DB_CREATE, &db, err, sizeof err) == 0, "%s", err);
	db_close(db);
	struct trace_info ti = {
	    .kind = "import", .name = "whole", .payloads = "full", .foreign = 1};
	struct writer *w;
	struct writer_cfg cfg = {
	    .path = p, .queue_slots = 512, .block_when_full = 1, .whole = 1, .trace = &ti};
	CHECK(db_writer_start(&w, &cfg, err, sizeof err) == 0, "%s", err);
	const int N = 20000;
	int nev = 0;
	for (int i = 0; i < N; i++) {
		if (i % 29 == 7) {
			char kind[16];
			snprintf(kind, sizeof kind, "e%d", i);
			CHECK(db_writer_event(w, (uint64_t)i, kind, NULL, 0) == 0, "event %d", i);
			nev++;
			continue;
		}
		uint32_t len = 12 + (uint32_t)(i % 40);
		struct rec *r = db_writer_reserve(w, REC_COMMAND, len);
		CHECK(r != NULL, "reserve %d", i);
		if (!r)
			break;
		r->cc = (uint32_t)i;
		r->t_submit = (uint64_t)i;
		r->cmd_len = len;
		for (uint32_t b = 0; b < len; b++)
			r->payload[b] = (uint8_t)(i * 13 + (int)b);
		db_writer_publish(w);
	}
	int64_t id = db_writer_trace_id(w);
	struct writer_stats st;
	CHECK(db_writer_stop(w, NULL, &st) == 0, "stop");
	CHECK(st.commands == (uint64_t)(N - nev) && st.events == (uint64_t)nev && !st.dropped,
	      "stored %llu + %llu", (unsigned long long)st.commands, (unsigned long long)st.events);
	sqlite3_stmt *q;
	CHECK(db_open(p, DB_READ, &db, err, sizeof err) == 0, "%s", err);
	sqlite3_prepare_v2(db, "SELECT cc, cmd FROM command WHERE trace_id = ? ORDER BY id", -1, &q,
			   NULL);
	sqlite3_bind_int64(q, 1, id);
	int seen = 0, bad = 0, prev = -1;
	while (sqlite3_step(q) == SQLITE_ROW) {
		int i = (int)sqlite3_column_int64(q, 0);
		uint32_t len = 12 + (uint32_t)(i % 40);
		const uint8_t *c = sqlite3_column_blob(q, 1);
		bad += i <= prev || i % 29 == 7 || sqlite3_column_bytes(q, 1) != (int)len;
		for (uint32_t b = 0; c && b < len; b++)
			bad += c[b] != (uint8_t)(i * 13 + (int)b);
		prev = i;
		seen++;
	}
	sqlite3_finalize(q);
	CHECK(seen == N - nev && bad == 0, "whole: %d of %d read back, %d wrong", seen, N - nev,
	      bad);
	db_close(db);
}

/* A writer on a new trace in tl_tmpdir()/NAME.db (its path left in p), each
 * of its batches held stall_ms (fault injection) unless that is NULL. */
static struct writer *writer_on(const char *name, struct writer_cfg cfg, const char *stall_ms,
				char p[600])
{
	char err[256];
	snprintf(p, 600, "%s/%s.db", tl_tmpdir(), name);
	cfg.path = p;
	cfg.trace_id = new_trace(p);
	if (stall_ms)
		setenv("TPMTRACE_FAULT_WRITER_STALL_MS", stall_ms, 1);
	struct writer *w = NULL;
	CHECK(db_writer_start(&w, &cfg, err, sizeof err) == 0, "%s", err);
	unsetenv("TPMTRACE_FAULT_WRITER_STALL_MS");
	return w;
}

/* A stalled writer and a tiny queue: the producer never waits, and stored +
 * dropped equals what was offered, exactly. */
static void test_drops_exact(void)
{
	char p[600], err[256];
	struct writer *w = writer_on("drops", (struct writer_cfg){.queue_slots = 64}, "20", p);
	const int N = 50000;
	int refused = 0;
	uint64_t t0 = db_mono_ns();
	for (int i = 0; i < N; i++) {
		struct rec *r = db_writer_reserve(w, REC_COMMAND, 16);
		if (!r) {
			refused++;
			continue;
		}
		r->cc = TPM_CC_GetRandom;
		r->t_submit = r->t_done = (uint64_t)i;
		r->has_rsp = 1;
		db_writer_publish(w);
	}
	uint64_t spent = db_mono_ns() - t0;
	struct writer_stats st;
	db_writer_stop(w, NULL, &st);
	CHECK(refused > 0, "the queue never filled");
	CHECK(st.dropped == (uint64_t)refused, "dropped %llu, refused %d",
	      (unsigned long long)st.dropped, refused);
	CHECK(st.commands + st.dropped == (uint64_t)N, "stored %llu + dropped %llu != %d",
	      (unsigned long long)st.commands, (unsigned long long)st.dropped, N);
	/* The producer never slept on the stalled writer (20 ms per batch). */
	CHECK(spent < 2000000000ull, "producer took %llu ns", (unsigned long long)spent);
	sqlite3 *db;
	db_open(p, DB_READ, &db, err, sizeof err);
	sqlite3_stmt *q;
	sqlite3_prepare_v2(db,
			   "SELECT dropped, commands, (SELECT count(*) FROM command) FROM trace",
			   -1, &q, NULL);
	CHECK(sqlite3_step(q) == SQLITE_ROW, "trace row");
	CHECK(sqlite3_column_int64(q, 0) == refused, "trace.dropped %lld",
	      (long long)sqlite3_column_int64(q, 0));
	CHECK(sqlite3_column_int64(q, 1) == sqlite3_column_int64(q, 2), "trace.commands");
	sqlite3_finalize(q);
	db_close(db);
}

static uint8_t pattern(uint64_t seq, uint32_t i)
{
	return (uint8_t)(seq * 131u + i * 7u + 1u);
}

/* One command record of cl + rl pattern bytes; 1 if the writer took it. */
static int put(struct writer *w, uint32_t cl, uint32_t rl)
{
	struct rec *r = db_writer_reserve(w, REC_COMMAND, cl + rl);
	if (!r)
		return 0;
	r->cc = TPM_CC_Hash;
	r->has_rsp = 1;
	r->cmd_len = cl;
	r->rsp_len = rl;
	for (uint32_t i = 0; i < cl + rl; i++)
		r->payload[i] = pattern(r->seq, i);
	db_writer_publish(w);
	return 1;
}

/* Stops the writer and checks what it stored: stored + dropped = offered,
 * the ring it ended with, and every stored row holding exactly the bytes
 * written for it. */
static void stop_and_check(struct writer *w, const char *name, const char *p, int offered,
			   uint64_t want_ring, struct writer_stats *st)
{
	char err[256];
	CHECK(db_writer_stop(w, NULL, st) == 0, "%s: stop", name);
	CHECK(st->commands + st->dropped == (uint64_t)offered,
	      "%s: stored %llu + dropped %llu != %d", name, (unsigned long long)st->commands,
	      (unsigned long long)st->dropped, offered);
	CHECK(st->ring_bytes == want_ring, "%s: ring in use %llu, want %llu", name,
	      (unsigned long long)st->ring_bytes, (unsigned long long)want_ring);
	sqlite3 *db;
	CHECK(db_open(p, DB_READ, &db, err, sizeof err) == 0, "%s", err);
	sqlite3_stmt *q;
	sqlite3_prepare_v2(db, "SELECT seq, cmd, rsp FROM command", -1, &q, NULL);
	uint64_t rows = 0, bad = 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		uint64_t seq = (uint64_t)sqlite3_column_int64(q, 0);
		const uint8_t *c = sqlite3_column_blob(q, 1);
		uint32_t cl = (uint32_t)sqlite3_column_bytes(q, 1);
		const uint8_t *r = sqlite3_column_blob(q, 2);
		uint32_t rl = (uint32_t)sqlite3_column_bytes(q, 2);
		int ok = cl > 0;
		for (uint32_t i = 0; ok && i < cl; i++)
			ok = c[i] == pattern(seq, i);
		for (uint32_t i = 0; ok && i < rl; i++)
			ok = r[i] == pattern(seq, cl + i);
		bad += !ok;
		rows++;
	}
	sqlite3_finalize(q);
	db_close(db);
	CHECK(rows == st->commands, "%s: %llu rows, %llu committed", name, (unsigned long long)rows,
	      (unsigned long long)st->commands);
	CHECK(bad == 0, "%s: %llu of %llu rows hold other bytes than written", name,
	      (unsigned long long)bad, (unsigned long long)rows);
}

/* Payload bytes through the byte ring, as stored, whether the ring stayed at
 * its first 256 KiB (small records), grew (large ones queued behind a
 * stalled writer), or dropped records while full. */
static void ring_case(const char *name, uint32_t ring, int block, const char *stall_ms,
		      uint32_t max_len, int n, uint64_t want_ring)
{
	char p[600];
	struct writer *w =
	    writer_on(name, (struct writer_cfg){.payload_bytes = ring, .block_when_full = block},
		      stall_ms, p);
	srand(11);
	int refused = 0;
	for (int k = 0; k < n; k++) {
		uint32_t cl = 1 + (uint32_t)rand() % max_len, rl = (uint32_t)rand() % 16;
		refused += !put(w, cl, rl);
	}
	CHECK(block ? refused == 0 : refused > 0, "%s: %d refused", name, refused);
	struct writer_stats st;
	stop_and_check(w, name, p, n, want_ring, &st);
	/* Waits are counted where they happen: never when the writer drops,
	 * and when it blocks behind a stalled writer. */
	CHECK(block ? (stall_ms ? st.waits > 0 : 1) : st.waits == 0, "%s: %llu waits", name,
	      (unsigned long long)st.waits);
}

/* The ring grows at a lap boundary while the old region still holds bytes
 * queued a lap earlier, and the record that made it grow does not fit. The
 * next, smaller record must not land in the old lap's tail. Positions are
 * those of a 256 KiB first ring (262,144) in a 300 KiB allocation (307,200);
 * the writer commits only on db_writer_flush, each batch held 500 ms, so the
 * released position is known at every step. */
static void test_ring_grows_while_full(void)
{
	char p[600];
	struct writer *w =
	    writer_on("ring-edge", (struct writer_cfg){.payload_bytes = 300u << 10}, "500", p);
	CHECK(put(w, 100000, 0), "[0, 100000)");
	db_writer_flush(w);
	CHECK(put(w, 50000, 0), "[100000, 150000)");
	db_writer_flush(w); /* released up to 150,000 */
	CHECK(put(w, 112144, 0), "[150000, 262144): the first lap's tail, queued");
	CHECK(put(w, 18000, 0), "second lap from its start, not yet half full");
	CHECK(put(w, 60000, 0), "more than half queued: the ring grows at the next lap");
	CHECK(put(w, 60000, 0), "second lap up to 138,000");
	CHECK(!put(w, 125000, 0), "the ring grows, and 125,000 bytes do not fit in it");
	CHECK(!put(w, 20000, 0), "20,000 bytes at 138,000 would overwrite the first lap's tail");
	struct writer_stats st;
	stop_and_check(w, "ring-edge", p, 8, 300u << 10, &st);
	CHECK(st.dropped == 2, "dropped %llu", (unsigned long long)st.dropped);
}

static void test_payload_ring(void)
{
	/* Small records never fill half of the first 256 KiB (4096 slots x at
	 * most 24 bytes): the rest of the 2 MiB is never used. */
	ring_case("ring-small", 0, 1, NULL, 8, 50000, 256u << 10);
	/* 4 KiB records behind a stalled writer: the ring grows to all 2 MiB. */
	ring_case("ring-grow", 0, 1, "5", 8192, 3000, 2u << 20);
	/* Dropping while full, before and after growing; and an allocation
	 * barely larger than the first 256 KiB, where a record may not fit
	 * right after the ring grows. */
	ring_case("ring-drop", 0, 0, "20", 8192, 20000, 2u << 20);
	ring_case("ring-tight", 300u << 10, 0, "20", 8192, 20000, 300u << 10);
}

/* ASan decides the resident figures itself (shadow memory, quarantine):
 * the memory checks are made in the plain build (tests/README.md). */
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

/* Resident memory of this process in KiB (/proc/self/statm). */
static long rss_kib(void)
{
	long pages = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &res) != 2)
			res = 0;
		fclose(f);
	}
	return res * (sysconf(_SC_PAGESIZE) / 1024);
}

/* A queue sized for a burst (the recorder's default, 32768 records and a 16
 * MiB payload ring) takes a burst of 20,000 records queued behind a stalled
 * writer without a drop, and hands the pages back once they are committed:
 * resident while queued, not afterwards (issue 22, item 14). The figures
 * are memory, not time: 20,000 x (128-byte slot + 200-byte payload), ~6 MiB. */
static void test_queue_pages_given_back(void)
{
	char p[600];
	struct writer *w = writer_on("burst", (struct writer_cfg){.queue_slots = 32768}, "300", p);
	long before = rss_kib();
	int refused = 0;
	for (int k = 0; k < 20000; k++)
		refused += !put(w, 150, 50);
	long peak = rss_kib();
	uint64_t held = db_writer_queue_resident(w);
	db_writer_flush(w);
	long after = rss_kib();
	uint64_t left = db_writer_queue_resident(w);
	CHECK(refused == 0, "burst: %d of 20000 refused", refused);
	CHECK(held > (4u << 20), "burst: the queue holds %llu KiB while queued, want > 4 MiB",
	      (unsigned long long)held >> 10);
	CHECK(left < (64u << 10), "burst: the queue holds %llu KiB after the commit, want < 64 KiB",
	      (unsigned long long)left >> 10);
	CHECK(UNDER_ASAN || peak - before > 4096,
	      "burst: %ld KiB resident while queued, want > 4 MiB", peak - before);
	CHECK(UNDER_ASAN || after - before < 1024,
	      "burst: %ld KiB still resident after the commit, want < 1 MiB", after - before);
	struct writer_stats st;
	stop_and_check(w, "burst", p, 20000, 16u << 20, &st);
	CHECK(st.dropped == 0, "burst: dropped %llu", (unsigned long long)st.dropped);
}

/* A trickle: records committed in small batches (the writer's 20 ms batch
 * timer, ~50 records each), as a recorder of a slow TPM sees them. Every
 * batch shares a page of slots and of payloads with the one before; those
 * pages go back too (the producer keeps a page behind the tail), so what
 * stays resident is a page or two, not every page the queue has passed
 * (10,000 x 128-byte slots alone are 1.25 MiB). */
static void test_trickle_pages_given_back(void)
{
	char p[600];
	struct writer *w = writer_on("trickle", (struct writer_cfg){.queue_slots = 32768}, NULL, p);
	put(w, 150, 50);
	db_writer_flush(w);
	long before = rss_kib();
	int refused = 0;
	for (int k = 0; k < 200; k++) {
		for (int i = 0; i < 50; i++)
			refused += !put(w, 150, 50);
		db_writer_flush(w);
	}
	long after = rss_kib();
	CHECK(refused == 0, "trickle: %d of 10000 refused", refused);
	CHECK(UNDER_ASAN || after - before < 512,
	      "trickle: %ld KiB more resident after 200 small batches, want < 512 KiB",
	      after - before);
	struct writer_stats st;
	stop_and_check(w, "trickle", p, 10001, 256u << 10, &st);
	CHECK(st.batches >= 100, "trickle: %llu batches, want small ones",
	      (unsigned long long)st.batches);
}

/* The embedded schema is the current version: a new database needs no
 * migration (it ran version 4 to 5 on every new file, a transaction with
 * its journal and syncs, while the schema already had version 5's column). */
static void test_schema_current(void)
{
	sqlite3 *m = NULL;
	sqlite3_stmt *st = NULL;
	int64_t v = -1;
	if (sqlite3_open(":memory:", &m) == SQLITE_OK &&
	    sqlite3_exec(m, schema_sql, NULL, NULL, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(m, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(m);
	CHECK(v == TPMTRACE_SCHEMA_VERSION, "schema.sql says user_version %lld, the code %d",
	      (long long)v, TPMTRACE_SCHEMA_VERSION);
}

/* db_schema_check's list of tpmtrace's objects, read from the text of the
 * embedded schema, against what SQLite made of it in a new database: every
 * table, index and view by name and type, every view's text known. */
static void test_schema_objects(void)
{
	char p[600], err[256];
	sqlite3 *db = NULL;
	snprintf(p, sizeof p, "%s/objects.db", tl_tmpdir());
	CHECK(db_open(p, DB_CREATE, &db, err, sizeof err) == 0, "schema objects: %s", err);
	if (!db)
		return;
	sqlite3_stmt *st;
	int n = 0;
	CHECK(sqlite3_prepare_v2(db,
				 "SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE "
				 "'sqlite\\_%' ESCAPE '\\'",
				 -1, &st, NULL) == SQLITE_OK,
	      "schema objects: %s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *sql = (const char *)sqlite3_column_text(st, 2);
		const char *want = db_schema_type(name);
		n++;
		CHECK(want && !strcmp(want, type), "schema objects: %s is a %s, the list says %s",
		      name, type, want ? want : "not tpmtrace's");
		if (!strcmp(type, "view"))
			CHECK(db_schema_view_known(name, sql),
			      "schema objects: view %s's text unknown", name);
	}
	sqlite3_finalize(st);
	db_close(db);
	CHECK(n > 10, "schema objects: only %d in a new database", n);
	CHECK(db_schema_type("command_stats_x") == NULL, "schema objects: a name not tpmtrace's");
}

/* The queue's memory is never backed by transparent huge pages (its mapping
 * carries VM_NOHUGEPAGE, "nh" in /proc/self/smaps): under THP "always", as
 * Debian's kernels have it, the pages the writer hands back were collapsed
 * into huge pages again and stayed resident (db/queue_mem.h). */
static void test_queue_no_huge_pages(void)
{
	size_t len = 8u << 20;
	uint8_t *q = db_queue_map(len);
	CHECK(q != NULL, "no huge pages: mapping %zu bytes", len);
	if (!q)
		return;
	memset(q, 1, len);
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	int in = 0, found = 0, nh = 0;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long a, b;
		if (sscanf(line, "%lx-%lx ", &a, &b) == 2) {
			in = (uintptr_t)q >= a && (uintptr_t)q < b;
			found |= in;
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			nh = strstr(line, " nh") != NULL;
		}
	}
	if (f)
		fclose(f);
	CHECK(found, "no huge pages: the queue's mapping is in /proc/self/smaps");
	CHECK(nh, "no huge pages: the queue's mapping has VmFlags nh (MADV_NOHUGEPAGE)");
	CHECK(db_queue_resident(q, len) == len,
	      "no huge pages: all %zu bytes resident once written", len);
	munmap(q, len);
}

/* The queue the recorder starts (65536 slots, a 16 MiB payload ring) fed
 * batches of 1 to 97 records with payloads of 30 to 330 bytes, each committed
 * before the next (a slow TPM's trickle, record --kernel's small batches).
 * Whatever the batches' edges, what the queue holds afterwards is the page or
 * two at the tail of the slots and of the ring, however many batches went
 * through: db_writer_queue_resident (mincore), exact under the sanitizers
 * too. Before the producer kept a page behind the tail, every page a batch
 * shared with the next stayed resident (1,092 KiB after these 300 batches). */
static void test_queue_resident_bounded(void)
{
	char p[600];
	struct writer *w = writer_on(
	    "resident", (struct writer_cfg){.queue_slots = 65536, .payload_bytes = 16u << 20}, NULL,
	    p);
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), worst = 0;
	int refused = 0, offered = 0;
	for (int k = 0; k < 300; k++) {
		int m = 1 + (k * 37) % 97;
		for (int i = 0; i < m; i++, offered++)
			refused += !put(w, 20 + (uint32_t)((k * 13 + i) % 300), 10);
		db_writer_flush(w);
		uint64_t held = db_writer_queue_resident(w);
		if (held > worst)
			worst = held;
	}
	CHECK(refused == 0, "resident: %d of %d refused", refused, offered);
	CHECK(worst <= 4 * page,
	      "resident: the queue holds up to %llu KiB between %d committed batches, want at "
	      "most 4 pages",
	      (unsigned long long)worst >> 10, 300);
	struct writer_stats st;
	stop_and_check(w, "resident", p, offered, 256u << 10, &st);
	CHECK(st.batches >= 300, "resident: %llu batches, want one a round",
	      (unsigned long long)st.batches);
}

/* The machine id's digest (trace_host.machine_id_sha256, a key of push and
 * fleet) is host_id.c's own SHA-256: the same as OpenSSL's for every length
 * the id can have (1 to 255 bytes: one block, the 55/56 and 64-byte padding
 * edges, several blocks) and the FIPS 180-4 example. */
static void test_host_id_digest(void)
{
	char id[256], want[65];
	for (int len = 1; len < 256; len++) {
		for (int i = 0; i < len; i++)
			id[i] = (char)('!' + (i * 7 + len) % 90);
		id[len] = 0;
		setenv("TPMTRACE_HOST_ID_MACHINE_ID", id, 1);
		struct db_host_id h;
		db_host_id_read(&h);
		unsigned char md[32];
		unsigned mdlen = 0;
		EVP_Digest(id, (size_t)len, md, &mdlen, EVP_sha256(), NULL);
		for (unsigned i = 0; i < 32; i++)
			snprintf(want + 2 * i, 3, "%02x", md[i]);
		CHECK(mdlen == 32 && !strcmp(h.machine_id_sha256, want),
		      "host id: SHA-256 of %d bytes %s, OpenSSL %s", len, h.machine_id_sha256,
		      want);
	}
	setenv("TPMTRACE_HOST_ID_MACHINE_ID", "abc", 1);
	struct db_host_id h;
	db_host_id_read(&h);
	CHECK(!strcmp(h.machine_id_sha256,
		      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
	      "host id: SHA-256 of abc %s", h.machine_id_sha256);
	unsetenv("TPMTRACE_HOST_ID_MACHINE_ID");
}

int main(void)
{
	test_open_checks();
	test_open_modes();
	test_sql_functions();
	test_writer_and_stats();
	test_rows_in_order();
	test_rows_narrow();
	test_whole_hands_back_early();
	test_stop_stores_everything();
	test_drops_exact();
	test_payload_ring();
	test_ring_grows_while_full();
	test_queue_pages_given_back();
	test_trickle_pages_given_back();
	test_queue_resident_bounded();
	test_queue_no_huge_pages();
	test_schema_objects();
	test_schema_current();
	test_host_id_digest();
	return tl_finish("test_db");
}
