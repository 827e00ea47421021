/* libFuzzer target: a tpmtrace database crafted by an attacker, opened by the
 * subcommands that read one. The input is not a file image (SQLite's own file
 * format is SQLite's business) but a recipe: a valid database is created, then
 * the input drives what goes wrong in it: a wrong schema version or
 * application id, a table dropped or replaced by one with other columns, and
 * rows whose every column may be NULL, a negative or huge integer, text, a
 * blob of any bytes or a huge blob. Each opener below then runs on the file
 * exactly as the tpmtrace command would (stdout and stderr closed by
 * -close_fd_mask). To cover another subcommand (report, once it exists), add
 * a line to openers[] and its subcmd_ declaration.
 * FUZZ_DB_ONLY=NAME fuzzes one subcommand alone.
 * `replay` talks to an instant fake target served by a thread of this process
 * (every command answered TPM_RC_SUCCESS, every control message accepted). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "db/db.h"
#include "model/tpm/decode.h"
#include "recorder/transport/netutil.h"
#include "tools/tpmtrace/cli.h"

SUBCOMMAND(stats);
SUBCOMMAND(show);
SUBCOMMAND(verify);
SUBCOMMAND(predict);
SUBCOMMAND(replay);

static char dir[64], path[128], target[160];
static uint8_t *tmpl; /* a fresh database, made once: copied for each input */
static size_t tmpl_len;

/* Each opener: a subcommand and its arguments; DB stands for the file. */
static const struct {
	const struct subcommand *sc;
	const char *argv[8];
} openers[] = {
    {&subcmd_stats, {"stats", "DB", NULL}},
    {&subcmd_stats, {"stats", "DB", "--json", "--trace", "1", NULL}},
    {&subcmd_show, {"show", "DB", "--limit", "200", NULL}},
    {&subcmd_verify, {"verify", "DB", NULL}},
    {&subcmd_predict, {"predict", "DB", "--profile", "ifx-slb9670-tpmscan", "--json", NULL}},
    {&subcmd_replay,
     {"replay", "DB", "--policy", "linux-6.12", "--json", "--target", "TARGET", NULL}},
};

/* ---- the instant target ---- */
static void *serve_data(void *arg)
{
	int lfd = (int)(intptr_t)arg, fd;
	static const uint8_t ok[10] = {0x80, 0x01, 0, 0, 0, 10, 0, 0, 0, 0};
	static uint8_t buf[TPM_MAX_MESSAGE + 64];
	size_t len;
	while ((fd = accept(lfd, NULL, NULL)) >= 0) {
		while (net_read_tpm_message(fd, buf, sizeof buf, &len, 10000) == 0)
			if (net_write_full(fd, ok, sizeof ok, 10000))
				break;
		close(fd);
	}
	return NULL;
}

static void *serve_ctrl(void *arg)
{
	int lfd = (int)(intptr_t)arg, fd;
	static const uint8_t zero[4];
	static uint8_t buf[4200];
	while ((fd = accept(lfd, NULL, NULL)) >= 0) {
		while (net_read_some(fd, buf, sizeof buf, 10000) > 0)
			if (net_write_full(fd, zero, 4, 10000))
				break;
		close(fd);
	}
	return NULL;
}

static int start_target(void)
{
	struct endpoint ep = {.is_unix = 1}, cep;
	char err[256];
	int fd, cfd;
	pthread_t t;
	snprintf(ep.path, sizeof ep.path, "%s/t.sock", dir);
	net_endpoint_ctrl_of(&ep, &cep);
	if (net_endpoint_listen(&ep, &fd, err, sizeof err) ||
	    net_endpoint_listen(&cep, &cfd, err, sizeof err))
		return -1;
	/* blocking accept in the threads */
	for (int i = 0; i < 2; i++) {
		int f = i ? cfd : fd;
		int fl = fcntl(f, F_GETFL);
		fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
	}
	pthread_create(&t, NULL, serve_data, (void *)(intptr_t)fd);
	pthread_detach(t);
	pthread_create(&t, NULL, serve_ctrl, (void *)(intptr_t)cfd);
	pthread_detach(t);
	snprintf(target, sizeof target, "swtpm:path=%s", ep.path);
	return 0;
}

static void cleanup(void)
{
	static const char *const suffix[] = {"f.db",	     "f.db-wal", "f.db-shm",
					     "f.db-journal", "t.sock",	 "t.sock.ctrl"};
	char p[160];
	for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, suffix[i]);
		unlink(p);
	}
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* Memory-backed when possible: each input writes a database and syncs. */
	const char *tmp = getenv("TMPDIR");
	if (!tmp)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof dir, "%s/fuzzdb-XXXXXX", tmp);
	if (strlen(dir) > 40 || !mkdtemp(dir))
		abort();
	snprintf(path, sizeof path, "%s/f.db", dir);
	atexit(cleanup);
	if (start_target())
		abort();
	sqlite3 *db;
	char err[512];
	if (db_open(path, DB_CREATE, &db, err, sizeof err))
		abort(); /* a fresh database must always be creatable */
	sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	db_close(db);
	FILE *f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (tmpl_len = (size_t)ftell(f)) == 0)
		abort();
	rewind(f);
	tmpl = malloc(tmpl_len);
	if (!tmpl || fread(tmpl, 1, tmpl_len, f) != tmpl_len)
		abort();
	fclose(f);
	return 0;
}

/* ---- the recipe ---- */
struct in {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct in *in, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++) {
		v <<= 8;
		if (in->n) {
			v |= *in->p++;
			in->n--;
		}
	}
	return v;
}

static int huge_used;

/* Binds one attacker-chosen value. */
static void bind_value(sqlite3_stmt *st, int i, struct in *in)
{
	static const char *const words[] = {"recording", "complete", "incomplete", "record",
					    "replay",	 "import",   "redacted",   "full",
					    "none",	 "",	     "linux-6.10", "\xff\xfe"};
	static const uint32_t ccs[] = {0x144, 0x182, 0x17B, 0x176, 0x131, 0x153, 0x15E,
				       0x165, 0x173, 0x17A, 0x17E, 0x157, 0x14E, 0x16D};
	unsigned kind = (unsigned)take(in, 1);
	switch (kind % 10) {
	case 0:
		sqlite3_bind_null(st, i);
		break;
	case 1:
		sqlite3_bind_int64(st, i, (int64_t)take(in, 1));
		break;
	case 2:
		sqlite3_bind_int64(st, i, (int64_t)take(in, 4));
		break;
	case 3:
		sqlite3_bind_int64(st, i, (int64_t)take(in, 8));
		break;
	case 4:
		sqlite3_bind_int64(st, i, ccs[take(in, 1) % (sizeof ccs / sizeof ccs[0])]);
		break;
	case 5:
		sqlite3_bind_text(st, i, words[take(in, 1) % (sizeof words / sizeof words[0])], -1,
				  SQLITE_STATIC);
		break;
	case 6: {
		size_t n = take(in, 1);
		n = n < in->n ? n : in->n;
		sqlite3_bind_text(st, i, (const char *)in->p, (int)n, SQLITE_TRANSIENT);
		in->p += n;
		in->n -= n;
		break;
	}
	case 7:
	case 8: {
		size_t n = take(in, 2);
		n = n < in->n ? n : in->n;
		sqlite3_bind_blob(st, i, in->p, (int)n, SQLITE_TRANSIENT);
		in->p += n;
		in->n -= n;
		break;
	}
	case 9:
		/* a huge blob (up to 8 MiB), once per database */
		if (!huge_used++)
			sqlite3_bind_zeroblob(st, i, (int)(take(in, 1) << 15));
		else
			sqlite3_bind_double(st, i, -1.5e300);
		break;
	}
}

static void build(const uint8_t *data, size_t size)
{
	static const char *const ins[] = {
	    "INSERT OR REPLACE INTO trace (id, name, kind, source, start_ns, end_ns, payloads,"
	    " parent_id, policy, status, commands, events, dropped) VALUES"
	    " (?,?,?,?,?,?,?,?,?,?,?,?,?)",
	    "INSERT INTO command (trace_id, seq, t_submit_ns, t_done_ns, latency_ns, cc,"
	    " locality, tag, cmd_size, rsp_size, rc, handle1, handle2, handle3, rsp_handle,"
	    " n_sessions, sess_handle, sess_attrs, auth_kind, pcr, client_id, flags, malformed,"
	    " cmd, rsp) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	    "INSERT INTO event (trace_id, seq, t_ns, kind, detail, client_id) VALUES"
	    " (?,?,?,?,?,?)",
	    "INSERT OR REPLACE INTO client (trace_id, id, pid, uid, comm, peer, first_ns)"
	    " VALUES (?,?,?,?,?,?,?)",
	};
	static const char *const damage[] = {
	    "PRAGMA user_version = %lld",
	    "PRAGMA application_id = %lld",
	    "UPDATE meta SET value = '%lld' WHERE key = 'schema_version'",
	    "DROP TABLE command; CREATE TABLE command (x, y) -- %lld",
	    "DROP TABLE event -- %lld",
	    "DROP VIEW IF EXISTS command_stats; CREATE TABLE command_stats (z) -- %lld",
	    "DELETE FROM tpm_cc WHERE cc %% 3 = %lld %% 3",
	    "DROP TABLE client -- %lld",
	};
	struct in in = {data, size};
	sqlite3 *db = NULL;
	char sql[256];
	huge_used = 0;
	snprintf(sql, sizeof sql, "%s-wal", path);
	unlink(sql);
	snprintf(sql, sizeof sql, "%s-shm", path);
	unlink(sql);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(tmpl, 1, tmpl_len, f) != tmpl_len)
		abort();
	fclose(f);
	if (sqlite3_open(path, &db) != SQLITE_OK)
		abort();
	sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	/* A sane trace 1 to start from, so that rows can belong to something. */
	sqlite3_exec(db,
		     "INSERT INTO trace (id, kind, payloads, status) VALUES (1, 'record', "
		     "'full', 'complete')",
		     NULL, NULL, NULL);
	unsigned flags = (unsigned)take(&in, 1);
	for (unsigned k = 0; k < 8; k++)
		if (flags & (1u << k)) {
			snprintf(sql, sizeof sql, damage[k], (long long)(int32_t)take(&in, 4));
			sqlite3_exec(db, sql, NULL, NULL, NULL);
		}
	for (int ops = 0; in.n && ops < 64; ops++) {
		unsigned op = (unsigned)take(&in, 1) % 4;
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(db, ins[op], -1, &st, NULL) != SQLITE_OK)
			continue; /* the table was damaged */
		int n = sqlite3_bind_parameter_count(st);
		for (int i = 1; i <= n; i++)
			bind_value(st, i, &in);
		sqlite3_step(st);
		sqlite3_finalize(st);
	}
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	build(data, size);
	const char *only = getenv("FUZZ_DB_ONLY"); /* e.g. "replay": one subcommand */
	for (size_t k = 0; k < sizeof openers / sizeof openers[0]; k++) {
		char *argv[8];
		if (only && strcmp(only, openers[k].argv[0]))
			continue;
		int argc = 0;
		for (; openers[k].argv[argc]; argc++) {
			const char *a = openers[k].argv[argc];
			argv[argc] = (char *)(!strcmp(a, "DB")	     ? path
					      : !strcmp(a, "TARGET") ? target
								     : a);
		}
		argv[argc] = NULL;
		optind = 0;
		int rc = openers[k].sc->run(argc, argv);
		if (rc < 0 || rc > 2)
			abort(); /* exit status: 0 ok, 1 error, 2 usage */
	}
	return 0;
}
