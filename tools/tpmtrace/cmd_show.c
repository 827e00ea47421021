/* tpmtrace show: one decoded line per command and event. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "model/tpm/decode.h"

enum { O_TRACE = 256, O_LIMIT };
static const struct cli_opt opts[] = {
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP},
    {"limit", O_LIMIT, "N", CLI_NUM, "at most N lines", NULL, 1, 1000000000},
};
static const struct cli_form forms[] = {{0, "DB", NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_show = {
    "show",
    run,
    "one decoded line per command",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "One line per command in order: sequence number, time since the first command\n"
    "(seconds), command name, handles, sessions (handle and attributes: c continue,\n"
    "d decrypt, e encrypt, a audit), PCR, client, response code text and latency;\n"
    "control events (ctrl:INIT, platform:POWER_ON, backend-lost, ...) as '--' lines.\n",
    NULL,
    "tpmtrace show tpmtrace-demo.db | less\n",
};

static void attrs_str(uint32_t a, char *out)
{
	int n = 0;
	if (a & TPMA_SESSION_CONTINUESESSION)
		out[n++] = 'c';
	if (a & TPMA_SESSION_DECRYPT)
		out[n++] = 'd';
	if (a & TPMA_SESSION_ENCRYPT)
		out[n++] = 'e';
	if (a & TPMA_SESSION_AUDIT)
		out[n++] = 'a';
	if (!n)
		out[n++] = '-';
	out[n] = 0;
}

static int run(int argc, char **argv)
{
	const char *trace_arg = NULL;
	long limit = -1;
	int k, ret = 1;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_show, argc, argv);
	while ((k = cli_next(&p)) > 0) {
		if (k == O_TRACE)
			trace_arg = p.arg;
		else if (k == O_LIMIT)
			limit = (long)p.num;
	}
	if (k < 0)
		return EXIT_USAGE;
	if (p.ind != argc - 1)
		return usage_error(&subcmd_show, p.ind >= argc ? "which database? (DB)"
							       : "expected one database file");
	sqlite3 *db = cli_open_db("show", argv[p.ind], 0);
	if (!db)
		return 1;
	sqlite3_stmt *st = NULL;
	int64_t id = cli_pick_trace("show", db, trace_arg);
	if (!id)
		goto out;
	if (sqlite3_prepare_v2(
		db,
		"SELECT 0, seq, t_submit_ns, cc, handle1, handle2, handle3, n_sessions,"
		" sess_handle, sess_attrs, pcr, client_id, rc, latency_ns, malformed, rsp_handle,"
		" NULL, NULL FROM command WHERE trace_id=?1"
		" UNION ALL SELECT 1, seq, t_ns, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
		" client_id, NULL, NULL, NULL, NULL, kind, detail FROM event WHERE trace_id=?1"
		" ORDER BY 2",
		-1, &st, NULL)) {
		die("show", "%s", sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_int64(st, 1, id);
	int64_t t0 = -1;
	long n = 0;
	while ((limit < 0 || n < limit) && sqlite3_step(st) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(st, 1), t = sqlite3_column_int64(st, 2);
		if (t0 < 0 && sqlite3_column_type(st, 2) != SQLITE_NULL)
			t0 = t;
		double rel = t0 < 0 ? 0 : (double)(t - t0) / 1e9;
		n++;
		if (sqlite3_column_int(st, 0) == 1) {
			/* Event kinds and details come from files (IMA file
			 * names, TCG event text): escaped. */
			const char *detail = (const char *)sqlite3_column_text(st, 17);
			char kb[256], db_[4096];
			printf("%6lld %11.6f  -- %s%s%s\n", (long long)seq, rel,
			       safe_text((const char *)sqlite3_column_text(st, 16), kb, sizeof kb),
			       detail ? " " : "", safe_text(detail, db_, sizeof db_));
			continue;
		}
		uint32_t cc = (uint32_t)sqlite3_column_int64(st, 3);
		const char *name = tpm_cc_name(cc);
		char namebuf[16], hbuf[64] = "", sbuf[48] = "", extra[48] = "";
		if (!name) {
			snprintf(namebuf, sizeof namebuf, "0x%08X", cc);
			name = namebuf;
		}
		for (int h = 0; h < 3; h++) {
			if (sqlite3_column_type(st, 4 + h) == SQLITE_NULL)
				break;
			size_t l = strlen(hbuf);
			snprintf(hbuf + l, sizeof hbuf - l, "%s0x%08llX", h ? "," : "",
				 (unsigned long long)sqlite3_column_int64(st, 4 + h));
		}
		int ns = sqlite3_column_int(st, 7);
		if (ns) {
			char a[8];
			attrs_str((uint32_t)sqlite3_column_int64(st, 9) & 0xff, a);
			snprintf(sbuf, sizeof sbuf, "s=0x%08llX/%s%s",
				 (unsigned long long)sqlite3_column_int64(st, 8), a,
				 ns > 1 ? "+" : "");
		}
		if (sqlite3_column_type(st, 10) != SQLITE_NULL)
			snprintf(extra, sizeof extra, "pcr=%d", sqlite3_column_int(st, 10));
		else if (sqlite3_column_type(st, 15) != SQLITE_NULL)
			snprintf(extra, sizeof extra, "-> 0x%08llX",
				 (unsigned long long)sqlite3_column_int64(st, 15));
		char malbuf[256];
		const char *mal = sqlite3_column_text(st, 14)
				      ? safe_text((const char *)sqlite3_column_text(st, 14), malbuf,
						  sizeof malbuf)
				      : NULL;
		const char *rctext = sqlite3_column_type(st, 12) == SQLITE_NULL
					 ? "(no response)"
					 : tpm_rc_str((uint32_t)sqlite3_column_int64(st, 12));
		printf("%6lld %11.6f  %-22s %-23s %-20s %-13s c%-3d %-30s", (long long)seq, rel,
		       name, hbuf, sbuf, extra, sqlite3_column_int(st, 11), mal ? mal : rctext);
		if (sqlite3_column_type(st, 13) != SQLITE_NULL)
			printf(" %9.3f ms\n", ns_to_ms(sqlite3_column_double(st, 13)));
		else
			printf("\n");
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ret;
}
