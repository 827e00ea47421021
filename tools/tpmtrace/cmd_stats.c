/* tpmtrace stats: per-command-code latency statistics of a trace. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "model/trace_stream.h"

enum { O_TRACE = 256, O_JSON, O_BY };
static const struct cli_opt opts[] = {
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP},
    {"by", O_BY, "WHAT", CLI_CHOICE,
     "command (default): per command code; origin: per\n"
     "origin of the commands (firmware, kernel, userspace,\n"
     "unknown), the one predict and replay use\n"
     "(docs/policies.md); column hwrng: how many of them are\n"
     "the kernel's TPM hwrng's (its reads and their sessions)",
     "command origin"},
    {"json", O_JSON, NULL, 0,
     "{\"version\":1,\"trace\":{...},\"commands\":[...]} (--by\n"
     "origin: \"origins\" instead of \"commands\"), times in ns"},
};
static const struct cli_form forms[] = {{0, "DB", NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_stats = {
    "stats",
    run,
    "per-command latency statistics",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Per command code: count, total, min, mean, p50, p95, p99 and max latency in\n"
    "milliseconds, and the latency of the first occurrence (cold TPM, cold caches),\n"
    "sorted by total time; then a one-line summary of the trace. Percentiles are\n"
    "nearest-rank, as in the command_stats view (docs/schema.md). Commands tpmtrace\n"
    "sent itself (the Startup of a spawned swtpm, the resource manager's flushes;\n"
    "flag 32) are counted apart from the clients'.\n",
    NULL,
    "tpmtrace stats tpmtrace-demo.db --trace 1\n"
    "tpmtrace stats tpmtrace-demo.db --by origin\n",
};

/* Rows of (name, cc, count, total, min, mean, p50, p95, p99, max, first). */
/* Prints the rows of st; returns the last sqlite3_step status (SQLITE_DONE
 * when all went well). */
static int print_rows(sqlite3_stmt *st, int json)
{
	int n = 0, src;
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		if (json) {
			printf("%s{\"name\":", n ? "," : "");
			json_str(stdout, name);
			printf(",\"cc\":%lld,\"count\":%lld,\"total_ns\":%lld,\"min_ns\":%lld,"
			       "\"mean_ns\":%.0f,\"p50_ns\":%lld,\"p95_ns\":%lld,\"p99_ns\":%lld,"
			       "\"max_ns\":%lld,\"first_ns\":%lld}",
			       (long long)sqlite3_column_int64(st, 1),
			       (long long)sqlite3_column_int64(st, 2),
			       (long long)sqlite3_column_int64(st, 3),
			       (long long)sqlite3_column_int64(st, 4), sqlite3_column_double(st, 5),
			       (long long)sqlite3_column_int64(st, 6),
			       (long long)sqlite3_column_int64(st, 7),
			       (long long)sqlite3_column_int64(st, 8),
			       (long long)sqlite3_column_int64(st, 9),
			       (long long)sqlite3_column_int64(st, 10));
		} else {
			char nb[256];
			printf("%-26s %7lld %11.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n",
			       safe_text(name, nb, sizeof nb),
			       (long long)sqlite3_column_int64(st, 2),
			       ns_to_ms(sqlite3_column_double(st, 3)),
			       ns_to_ms(sqlite3_column_double(st, 4)),
			       ns_to_ms(sqlite3_column_double(st, 5)),
			       ns_to_ms(sqlite3_column_double(st, 6)),
			       ns_to_ms(sqlite3_column_double(st, 7)),
			       ns_to_ms(sqlite3_column_double(st, 8)),
			       ns_to_ms(sqlite3_column_double(st, 9)),
			       ns_to_ms(sqlite3_column_double(st, 10)));
		}
		n++;
	}
	return src;
}

/* Commands, latency total and maximum per origin (trace_client_origin). */
static int by_origin(sqlite3 *db, int64_t id, int json)
{
	struct {
		long long n, n_lat, hwrng;
		double total, max;
	} org[POL_ORIGIN__COUNT];
	uint8_t *o = NULL;
	sqlite3_stmt *st = NULL;
	int rc = trace_origins_load(db, id, &o);
	memset(org, 0, sizeof org);
	if (rc || sqlite3_prepare_v2(db,
				     "SELECT client_id, count(*), coalesce(sum(latency_ns),0),"
				     " coalesce(max(latency_ns),0), count(latency_ns) FROM command"
				     " WHERE trace_id=? GROUP BY client_id",
				     -1, &st, NULL)) {
		free(o);
		return die("stats", "%s", rc == -ENOMEM ? "out of memory" : sqlite3_errmsg(db));
	}
	sqlite3_bind_int64(st, 1, id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t cl = sqlite3_column_int64(st, 0);
		int k = POL_ORIGIN_UNKNOWN, hw = 0;
		if (sqlite3_column_type(st, 0) != SQLITE_NULL && cl >= 0 &&
		    cl < TRACE_MAX_CLIENTS) {
			k = o[cl] & ~TRACE_ORIGIN_HWRNG;
			hw = !!(o[cl] & TRACE_ORIGIN_HWRNG);
		}
		org[k].n += sqlite3_column_int64(st, 1);
		org[k].total += sqlite3_column_double(st, 2);
		if (sqlite3_column_double(st, 3) > org[k].max)
			org[k].max = sqlite3_column_double(st, 3);
		org[k].n_lat += sqlite3_column_int64(st, 4);
		if (hw)
			org[k].hwrng += sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	free(o);
	/* In boot order: firmware, kernel, user space, then what is not known. */
	static const int order[] = {POL_ORIGIN_FIRMWARE, POL_ORIGIN_KERNEL, POL_ORIGIN_USER,
				    POL_ORIGIN_UNKNOWN};
	if (json)
		printf("{\"version\":1,\"origins\":[");
	else
		printf("%-12s %7s %11s %9s %9s %7s\n", "origin", "count", "total ms", "mean", "max",
		       "hwrng");
	int n = 0;
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		int k = order[i];
		if (!org[k].n)
			continue;
		double mean = org[k].n_lat ? org[k].total / (double)org[k].n_lat : 0;
		if (json)
			printf("%s{\"origin\":\"%s\",\"count\":%lld,\"total_ns\":%.0f,"
			       "\"mean_ns\":%.0f,\"max_ns\":%.0f,\"hwrng\":%lld}",
			       n ? "," : "", pol_origin_str(k), org[k].n, org[k].total, mean,
			       org[k].max, org[k].hwrng);
		else
			printf("%-12s %7lld %11.3f %9.3f %9.3f %7lld\n", pol_origin_str(k),
			       org[k].n, ns_to_ms(org[k].total), ns_to_ms(mean),
			       ns_to_ms(org[k].max), org[k].hwrng);
		n++;
	}
	return 0;
}

static int run(int argc, char **argv)
{
	const char *trace_arg = NULL;
	int json = 0, k, ret = 1, origin = 0;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_stats, argc, argv);
	while ((k = cli_next(&p)) > 0) {
		if (k == O_TRACE)
			trace_arg = p.arg;
		else if (k == O_JSON)
			json = 1;
		else if (k == O_BY)
			origin = !strcmp(p.arg, "origin");
	}
	if (k < 0)
		return EXIT_USAGE;
	if (p.ind != argc - 1)
		return usage_error(&subcmd_stats, p.ind >= argc ? "which database? (DB)"
								: "expected one database file");
	sqlite3 *db = cli_open_db("stats", argv[p.ind], 0);
	if (!db)
		return 1;
	sqlite3_stmt *st = NULL, *own = NULL, *sum = NULL;
	int64_t id = cli_pick_trace("stats", db, trace_arg);
	if (!id)
		goto out;
	/* The clients' commands from the command_stats view; tpmtrace's own
	 * (flag 32) by the same definitions, apart. Counts are of the rows
	 * stored, so that a recording that was killed before it closed its
	 * trace row agrees with 'tpmtrace verify'. */
	if (sqlite3_prepare_v2(db,
			       "SELECT name, cc, count, total_ns, min_ns, mean_ns, p50_ns, p95_ns,"
			       " p99_ns, max_ns, first_ns FROM command_stats WHERE trace_id=?"
			       " ORDER BY total_ns DESC, cc",
			       -1, &st, NULL) ||
	    sqlite3_prepare_v2(
		db,
		"SELECT coalesce(tpm_cc_name(cc), printf('0x%08X', cc)), cc, count(*),"
		" sum(latency_ns), min(latency_ns), avg(latency_ns), percentile(latency_ns, 50),"
		" percentile(latency_ns, 95), percentile(latency_ns, 99), max(latency_ns),"
		" (SELECT c2.latency_ns FROM command c2 WHERE c2.trace_id=c.trace_id AND"
		"  c2.cc=c.cc AND c2.flags & 32 ORDER BY c2.seq LIMIT 1)"
		" FROM command c WHERE trace_id=? AND flags & 32 AND latency_ns IS NOT NULL"
		" GROUP BY cc ORDER BY sum(latency_ns) DESC, cc",
		-1, &own, NULL) ||
	    sqlite3_prepare_v2(
		db,
		"SELECT t.name, t.kind, t.status,"
		" (SELECT count(*) FROM command c WHERE c.trace_id=t.id),"
		" (SELECT count(*) FROM event e WHERE e.trace_id=t.id), t.dropped,"
		" coalesce((SELECT sum(latency_ns) FROM command c WHERE"
		"  c.trace_id=t.id AND NOT c.flags & 32),0),"
		" coalesce((SELECT max(t_done_ns) - min(t_submit_ns) FROM command c"
		"  WHERE c.trace_id=t.id),0),"
		" (SELECT count(*) FROM command c WHERE c.trace_id=t.id AND c.flags & 2),"
		" (SELECT count(*) FROM command c WHERE c.trace_id=t.id AND c.flags & 8),"
		" (SELECT count(*) FROM command c WHERE c.trace_id=t.id AND c.flags & 32)"
		" FROM trace t WHERE t.id=?",
		-1, &sum, NULL)) {
		die("stats", "%s", sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(own, 1, id);
	sqlite3_bind_int64(sum, 1, id);
	int src = SQLITE_DONE;
	if (origin) {
		/* Per origin instead of per command code; the summary follows. */
		if (by_origin(db, id, json))
			goto out;
	} else if (json) {
		printf("{\"version\":1,\"commands\":[");
		src = print_rows(st, json);
	} else {
		printf("%-26s %7s %11s %9s %9s %9s %9s %9s %9s %9s\n", "command", "count",
		       "total ms", "min", "mean", "p50", "p95", "p99", "max", "first");
		src = print_rows(st, json);
	}
	if (!origin && src == SQLITE_DONE && json) {
		printf("],\"tpmtrace_commands\":[");
		src = print_rows(own, json);
	} else if (!origin && src == SQLITE_DONE) {
		sqlite3_reset(own);
		if ((src = sqlite3_step(own)) == SQLITE_ROW) {
			printf("sent by tpmtrace itself (flag 32: Startup of the spawned swtpm, "
			       "resource-manager flushes):\n");
			sqlite3_reset(own);
			src = print_rows(own, 0);
		}
	}
	if (src == SQLITE_DONE)
		src = sqlite3_step(sum);
	if (src != SQLITE_ROW) {
		printf(json ? "]}\n" : "\n");
		fflush(stdout);
		/* Say what it means, not SQLite's "no more rows available" or a
		 * bare "integer overflow". */
		if (src == SQLITE_DONE)
			die("stats", "%s: trace %lld has no row in the trace table", argv[p.ind],
			    (long long)id);
		else if (strstr(sqlite3_errmsg(db), "integer overflow"))
			die("stats",
			    "%s: trace %lld: the sum of its latencies or the span of its "
			    "timestamps overflows 64 bits; its times are not ones a recording "
			    "makes (a damaged or hand-made file)",
			    argv[p.ind], (long long)id);
		else
			die("stats", "%s: trace %lld: %s", argv[p.ind], (long long)id,
			    sqlite3_errmsg(db));
		goto out;
	}
	const char *tname = (const char *)sqlite3_column_text(sum, 0);
	long long stored = sqlite3_column_int64(sum, 3), events = sqlite3_column_int64(sum, 4),
		  dropped = sqlite3_column_int64(sum, 5), malformed = sqlite3_column_int64(sum, 8),
		  noresp = sqlite3_column_int64(sum, 9), nown = sqlite3_column_int64(sum, 10);
	double tpm = sqlite3_column_double(sum, 6), span = sqlite3_column_double(sum, 7);
	if (json) {
		printf("],\"trace\":{\"id\":%lld,\"name\":", (long long)id);
		json_str(stdout, tname);
		printf(",\"kind\":");
		json_str(stdout, (const char *)sqlite3_column_text(sum, 1));
		printf(",\"status\":");
		json_str(stdout, (const char *)sqlite3_column_text(sum, 2));
		printf(",\"commands\":%lld,\"tpmtrace_commands\":%lld,\"events\":%lld,"
		       "\"dropped\":%lld,\"malformed\":%lld,"
		       "\"no_response\":%lld,\"tpm_ns\":%.0f,\"span_ns\":%.0f}}\n",
		       stored, nown, events, dropped, malformed, noresp, tpm, span);
	} else {
		char ownt[64] = "";
		if (nown)
			snprintf(ownt, sizeof ownt, " (%lld sent by tpmtrace)", nown);
		char nb[1024], kb[64], sb[64];
		printf("trace %lld%s%s%s (%s, %s): %lld commands%s, %lld events, %lld dropped, "
		       "%lld malformed, %lld without response; TPM time %.3f ms over %.3f ms\n",
		       (long long)id, tname ? " '" : "",
		       tname ? safe_text(tname, nb, sizeof nb) : "", tname ? "'" : "",
		       safe_text((const char *)sqlite3_column_text(sum, 1), kb, sizeof kb),
		       safe_text((const char *)sqlite3_column_text(sum, 2), sb, sizeof sb), stored,
		       ownt, events, dropped, malformed, noresp, ns_to_ms(tpm), ns_to_ms(span));
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(own);
	sqlite3_finalize(sum);
	sqlite3_close(db);
	return ret;
}
