/* bench_rawloop: the baseline of tools/bench-replay. Sends the stored bytes
 * of a trace's commands, unchanged and in order, through a tss2-tctildr
 * target (the transport `tpmtrace replay` uses), checks each response code,
 * and prints the wall time of the loop as JSON. Nothing is decoded, remapped
 * or stored: what is left of a replay when only the transport remains. Each
 * exchange is timed as the replay times it (around the TCTI's transmit and
 * receive), and the 10th, 50th and 90th percentiles are printed with the wall
 * time: on a 2-CPU guest the exchange is bimodal (the loop and swtpm on one
 * CPU or on two), and these say which the round mostly was.
 *
 * Two times: wall_ns, the whole program's work as the replay's run time
 * counts its own (opening and reading the trace, connecting, every exchange,
 * closing), and loop_ns, the exchanges' loop alone.
 *
 *   bench_rawloop DB TRACE_ID TCTI [--skip-startup]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "db/json.h"
#include "model/tpm/wire.h"
#include "recorder/transport/tpmconn.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: bench_rawloop DB TRACE_ID TCTI [--skip-startup]\n");
		return 2;
	}
	int skip_startup = argc > 4 && !strcmp(argv[4], "--skip-startup");
	sqlite3 *db;
	char err[512];
	uint64_t start = db_mono_ns();
	if (db_open(argv[1], DB_READ, &db, err, sizeof err)) {
		fprintf(stderr, "bench_rawloop: %s\n", err);
		return 1;
	}
	sqlite3_stmt *st;
	size_t n = 0, cap = 0, total = 0;
	uint8_t **cmds = NULL;
	size_t *lens = NULL;
	sqlite3_prepare_v2(db, "SELECT cmd FROM command WHERE trace_id=? ORDER BY seq", -1, &st,
			   NULL);
	sqlite3_bind_int64(st, 1, atoll(argv[2]));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const uint8_t *b = sqlite3_column_blob(st, 0);
		size_t l = (size_t)sqlite3_column_bytes(st, 0);
		if (!b || l < 10)
			continue;
		if (skip_startup && wire_get_u32(b + 6) == 0x144)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			cmds = realloc(cmds, cap * sizeof *cmds);
			lens = realloc(lens, cap * sizeof *lens);
		}
		cmds[n] = malloc(l);
		memcpy(cmds[n], b, l);
		lens[n++] = l;
		total += l;
	}
	sqlite3_finalize(st);
	db_close(db);
	static struct tpmconn t;
	if (tpmconn_open(&t, argv[3])) {
		fprintf(stderr, "bench_rawloop: cannot open %s\n", argv[3]);
		return 1;
	}
	size_t bad = 0;
	uint64_t *xfer_ns = calloc(n ? n : 1, sizeof *xfer_ns);
	if (!xfer_ns) {
		fprintf(stderr, "bench_rawloop: out of memory\n");
		return 1;
	}
	uint64_t t0 = db_mono_ns();
	for (size_t i = 0; i < n; i++) {
		uint64_t a = db_mono_ns();
		if (tpmconn_xfer(&t, cmds[i], lens[i])) {
			fprintf(stderr, "bench_rawloop: transport failed at %zu\n", i);
			return 1;
		}
		bad += tpmconn_rc(&t) != 0;
		xfer_ns[i] = db_mono_ns() - a;
	}
	uint64_t loop = db_mono_ns() - t0;
	tpmconn_close(&t);
	uint64_t wall = db_mono_ns() - start;
	qsort(xfer_ns, n, sizeof *xfer_ns, cmp_u64);
	struct json_w w;
	json_init_file(&w, stdout, JSON_COMPACT);
	json_begin_object(&w);
	json_kuint(&w, "commands", n);
	json_kuint(&w, "bytes", total);
	json_kuint(&w, "errors", bad);
	json_kuint(&w, "wall_ns", wall);
	json_kuint(&w, "loop_ns", loop);
	json_kuint(&w, "xfer_p10_ns", n ? xfer_ns[n / 10] : 0);
	json_kuint(&w, "xfer_p50_ns", n ? xfer_ns[n / 2] : 0);
	json_kuint(&w, "xfer_p90_ns", n ? xfer_ns[n * 9 / 10] : 0);
	json_end_object(&w);
	json_newline(&w);
	for (size_t i = 0; i < n; i++)
		free(cmds[i]);
	free(cmds);
	free(lens);
	free(xfer_ns);
	return 0;
}
