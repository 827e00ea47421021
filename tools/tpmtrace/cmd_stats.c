/* tpmtrace stats: per-command-code latency statistics of a trace. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "db/trace_stream.h"

static const char usage[] =
    "usage: tpmtrace stats DB [--trace ID] [--by command|origin] [--json]\n"
    "\n"
    "Per command code: count, total, min, mean, p50, p95, p99 and max latency in\n"
    "milliseconds, and the latency of the first occurrence (cold TPM, cold caches),\n"
    "sorted by total time; then a one-line summary of the trace. Percentiles are\n"
    "nearest-rank, as in the command_stats view (docs/schema.md).\n"
    "\n"
    "Options:\n"
    "  --trace ID  the trace (default: the newest)\n"
    "  --by WHAT   command (default): per command code; origin: per origin of the\n"
    "              commands (firmware, kernel, userspace, unknown), the one predict\n"
    "              and replay use (docs/policies.md); column hwrng: how many of them\n"
    "              are the kernel's TPM hwrng's (its reads and their sessions)\n"
    "  --json      {\"version\":1,\"trace\":{...},\"commands\":[...]} (--by origin:\n"
    "              \"origins\" instead of \"commands\"), times in ns\n"
    "  -h, --help  this text\n"
    "\n"
    "Examples:\n"
    "  tpmtrace stats tpmtrace-demo.db --trace 1\n"
    "  tpmtrace stats tpmtrace-demo.db --by origin\n";

static int run(int argc, char **argv);
const struct subcommand subcmd_stats = {"stats", run, "per-command latency statistics", usage};

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
	int json = 0, o, ret = 1, origin = 0;
	static const struct option opts[] = {{"trace", required_argument, 0, 't'},
					     {"json", no_argument, 0, 'j'},
					     {"by", required_argument, 0, 'b'},
					     {0, 0, 0, 0}};
	optind = 1;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 't')
			trace_arg = optarg;
		else if (o == 'j')
			json = 1;
		else if (o == 'b' && (!strcmp(optarg, "origin") || !strcmp(optarg, "command")))
			origin = !strcmp(optarg, "origin");
		else if (o == 'b')
			return usage_error(&subcmd_stats, "--by takes command or origin, not '%s'",
					   optarg);
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
	if (origin) {
		if (by_origin(db, id, json))
			goto out;
	} else if (json) {
		printf("{\"version\":1,\"commands\":[");
	} else {
		printf("%-26s %7s %11s %9s %9s %9s %9s %9s %9s %9s\n", "command", "count",
		       "total ms", "min", "mean", "p50", "p95", "p99", "max", "first");
	}
	int n = 0;
	while (!origin && sqlite3_step(st) == SQLITE_ROW) {
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
			printf("%-26s %7lld %11.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f\n",
			       name, (long long)sqlite3_column_int64(st, 2),
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
	if (sqlite3_step(sum) != SQLITE_ROW) {
		die("stats", "%s", sqlite3_errmsg(db));
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
		printf("trace %lld%s%s%s (%s, %s): %lld commands, %lld events, %lld dropped, %lld "
		       "malformed, %lld without response; TPM time %.3f ms over %.3f ms\n",
		       (long long)id, tname ? " '" : "", tname ? tname : "", tname ? "'" : "",
		       (const char *)sqlite3_column_text(sum, 1),
		       (const char *)sqlite3_column_text(sum, 2), stored, events, dropped,
		       malformed, noresp, ns_to_ms(tpm), ns_to_ms(span));
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(sum);
	sqlite3_close(db);
	return ret;
}
