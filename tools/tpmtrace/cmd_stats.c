/* tpmtrace stats: per-command-code latency statistics of a trace. */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "common.h"

static const char usage[] =
    "usage: tpmtrace stats DB [--trace ID] [--json]\n"
    "\n"
    "Per command code: count, total, min, mean, p50, p95, p99 and max latency in\n"
    "milliseconds, and the latency of the first occurrence (cold TPM, cold caches),\n"
    "sorted by total time; then a one-line summary of the trace. Percentiles are\n"
    "nearest-rank, as in the command_stats view (docs/schema.md).\n"
    "\n"
    "Options:\n"
    "  --trace ID  the trace (default: the newest)\n"
    "  --json      {\"version\":1,\"trace\":{...},\"commands\":[...]}, times in ns\n"
    "  -h, --help  this text\n"
    "\n"
    "Example:\n"
    "  tpmtrace stats tpmtrace-demo.db --trace 1\n";

static int run(int argc, char **argv);
const struct subcommand subcmd_stats = {"stats", run, "per-command latency statistics", usage};

static int run(int argc, char **argv)
{
	const char *trace_arg = NULL;
	int json = 0, o, ret = 1;
	static const struct option opts[] = {
	    {"trace", required_argument, 0, 't'}, {"json", no_argument, 0, 'j'}, {0, 0, 0, 0}};
	optind = 1;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 't')
			trace_arg = optarg;
		else if (o == 'j')
			json = 1;
		else
			return usage_error(&subcmd_stats, "unknown option");
	}
	if (optind != argc - 1)
		return usage_error(&subcmd_stats, "expected one database file");
	sqlite3 *db = cli_open_db("stats", argv[optind], 0);
	if (!db)
		return 1;
	sqlite3_stmt *st = NULL, *sum = NULL;
	int64_t id = cli_pick_trace("stats", db, trace_arg);
	if (!id)
		goto out;
	if (sqlite3_prepare_v2(db,
			       "SELECT name, cc, count, total_ns, min_ns, mean_ns, p50_ns, p95_ns,"
			       " p99_ns, max_ns, first_ns FROM command_stats WHERE trace_id=?"
			       " ORDER BY total_ns DESC, cc",
			       -1, &st, NULL) ||
	    sqlite3_prepare_v2(db,
			       "SELECT s.name, s.kind, s.status, s.stored, s.events, s.dropped,"
			       " coalesce(s.tpm_ns,0), coalesce(s.span_ns,0), s.malformed,"
			       " (SELECT count(*) FROM command c WHERE c.trace_id=s.trace_id"
			       "  AND c.flags & 8) FROM trace_summary s WHERE trace_id=?",
			       -1, &sum, NULL)) {
		die("stats", "%s", sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(sum, 1, id);
	if (json)
		printf("{\"version\":1,\"commands\":[");
	else
		printf("%-26s %7s %11s %9s %9s %9s %9s %9s %9s %9s\n", "command", "count",
		       "total ms", "min", "mean", "p50", "p95", "p99", "max", "first");
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
	if (src == SQLITE_DONE)
		src = sqlite3_step(sum);
	if (src != SQLITE_ROW) {
		if (json)
			printf("]}\n");
		else
			printf("\n");
		fflush(stdout);
		/* Say what it means, not SQLite's "no more rows available" or a
		 * bare "integer overflow". */
		if (src == SQLITE_DONE)
			die("stats",
			    "%s: trace %lld has no row in the trace_summary view (the view "
			    "was changed: 'tpmtrace verify' checks the file)",
			    argv[optind], (long long)id);
		else if (strstr(sqlite3_errmsg(db), "integer overflow"))
			die("stats",
			    "%s: trace %lld: the sum of its latencies or the span of its "
			    "timestamps overflows 64 bits; its times are not ones a recording "
			    "makes (a damaged or hand-made file)",
			    argv[optind], (long long)id);
		else
			die("stats", "%s: trace %lld: %s", argv[optind], (long long)id,
			    sqlite3_errmsg(db));
		goto out;
	}
	const char *tname = (const char *)sqlite3_column_text(sum, 0);
	long long stored = sqlite3_column_int64(sum, 3), events = sqlite3_column_int64(sum, 4),
		  dropped = sqlite3_column_int64(sum, 5), malformed = sqlite3_column_int64(sum, 8),
		  noresp = sqlite3_column_int64(sum, 9);
	double tpm = sqlite3_column_double(sum, 6), span = sqlite3_column_double(sum, 7);
	if (json) {
		printf("],\"trace\":{\"id\":%lld,\"name\":", (long long)id);
		json_str(stdout, tname);
		printf(",\"kind\":");
		json_str(stdout, (const char *)sqlite3_column_text(sum, 1));
		printf(",\"status\":");
		json_str(stdout, (const char *)sqlite3_column_text(sum, 2));
		printf(",\"commands\":%lld,\"events\":%lld,\"dropped\":%lld,\"malformed\":%lld,"
		       "\"no_response\":%lld,\"tpm_ns\":%.0f,\"span_ns\":%.0f}}\n",
		       stored, events, dropped, malformed, noresp, tpm, span);
	} else {
		char nb[1024], kb[64], sb[64];
		printf("trace %lld%s%s%s (%s, %s): %lld commands, %lld events, %lld dropped, %lld "
		       "malformed, %lld without response; TPM time %.3f ms over %.3f ms\n",
		       (long long)id, tname ? " '" : "",
		       tname ? safe_text(tname, nb, sizeof nb) : "", tname ? "'" : "",
		       safe_text((const char *)sqlite3_column_text(sum, 1), kb, sizeof kb),
		       safe_text((const char *)sqlite3_column_text(sum, 2), sb, sizeof sb), stored,
		       events, dropped, malformed, noresp, ns_to_ms(tpm), ns_to_ms(span));
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(sum);
	sqlite3_close(db);
	return ret;
}
