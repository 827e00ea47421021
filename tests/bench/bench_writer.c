/* Writer throughput: how many command records per second the batched writer
 * commits into SQLite when nothing else limits it (records are pushed as fast
 * as the queue takes them). Prints one line per configuration.
 *   bench_writer [N] [DIR]      N records (default 1000000), database in DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/db.h"
#include "db/writer.h"
#include "model/tpm/tpm_cc.h"

static double run(const char *dir, long n, uint32_t payload, const char *label)
{
	char path[512], err[256];
	sqlite3 *db;
	snprintf(path, sizeof path, "%s/bench-writer-%u.db", dir, payload);
	unlink(path);
	if (db_open(path, DB_CREATE, &db, err, sizeof err)) {
		fprintf(stderr, "bench_writer: %s\n", err);
		exit(1);
	}
	struct trace_info ti = {.kind = "record", .name = label, .payloads = "none"};
	int64_t id = db_trace_begin(db, &ti);
	db_close(db);
	struct writer *w;
	struct writer_cfg cfg = {.path = path, .trace_id = id, .block_when_full = 1};
	if (db_writer_start(&w, &cfg, err, sizeof err)) {
		fprintf(stderr, "bench_writer: %s\n", err);
		exit(1);
	}
	uint64_t t0 = db_mono_ns(), t = 1;
	for (long i = 0; i < n; i++) {
		struct rec *r = db_writer_reserve(w, REC_COMMAND, payload);
		r->cc = i & 1 ? TPM_CC_PCR_Extend : TPM_CC_GetRandom;
		r->tag = 0x8002;
		r->n_handles = 1;
		r->handles[0] = 10;
		r->n_sessions = 1;
		r->sess_handle = 0x40000009;
		r->auth_kind = 1;
		r->pcr = 10;
		r->has_rsp = 1;
		r->cmd_size = 65;
		r->rsp_size = 19;
		r->client_id = 1;
		r->t_submit = t;
		r->t_done = t + 20000;
		t += 25000;
		if (payload) {
			memset(r->payload, 0x5a, payload);
			r->cmd_len = payload;
		}
		db_writer_publish(w);
	}
	struct writer_stats st;
	db_writer_stop(w, NULL, &st);
	double secs = (double)(db_mono_ns() - t0) / 1e9;
	double rate = (double)st.commands / secs;
	printf("writer %-28s %8ld records in %6.2f s: %9.0f records/s (dropped %llu)\n", label, n,
	       secs, rate, (unsigned long long)st.dropped);
	unlink(path);
	snprintf(path, sizeof path, "%s/bench-writer-%u.db-wal", dir, payload);
	unlink(path);
	snprintf(path, sizeof path, "%s/bench-writer-%u.db-shm", dir, payload);
	unlink(path);
	return rate;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
	const char *dir = argc > 2 ? argv[2] : "/tmp";
	run(dir, n, 0, "(payloads none)");
	run(dir, n, 84, "(84-byte payload: redacted)");
	return 0;
}
