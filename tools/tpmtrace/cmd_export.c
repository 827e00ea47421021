/* tpmtrace export DB: a trace as pcapng (for Wireshark's TPM 2.0 dissector;
 * the writer is recorder/import/pcapng_write.c), CSV or JSON lines. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"

#include "db/db.h"
#include "db/writer.h"
#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/wire.h"
#include "recorder/import/pcapng_write.h"

SUBCOMMAND(export);

/* ---- CSV and JSON lines ---- */

static const char rows_sql[] =
    "SELECT c.trace_id, c.seq, c.t_submit_ns, c.t_done_ns, c.latency_ns, c.cc,"
    " tpm_cc_name(c.cc) AS cc_name, c.locality, c.tag, c.cmd_size, c.rsp_size, c.rc,"
    " tpm_rc_text(c.rc) AS rc_text, c.handle1, c.handle2, c.handle3, c.rsp_handle,"
    " c.n_sessions, c.sess_handle, c.sess_attrs, c.auth_kind,"
    " tpm_auth_name(c.auth_kind) AS auth,"
    " c.pcr, c.client_id, coalesce(cl.peer, cl.comm) AS client, c.flags, c.malformed"
    " FROM command c LEFT JOIN client cl ON cl.trace_id = c.trace_id AND cl.id = c.client_id"
    " WHERE c.trace_id = ? ORDER BY c.seq";

/* Events (record start/stop, backend lost/back, IMA and TCG log lines, replay
 * notes...) share the commands' seq numbering, so the two exports merge in
 * order on seq. */
static const char events_sql[] =
    "SELECT e.trace_id, e.seq, e.t_ns, e.kind, e.detail, e.client_id,"
    " coalesce(cl.peer, cl.comm) AS client"
    " FROM event e LEFT JOIN client cl ON cl.trace_id = e.trace_id AND cl.id = e.client_id"
    " WHERE e.trace_id = ? ORDER BY e.seq";

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* The rows of sql (one trace, bound as its parameter) as CSV with a header
 * line, or as JSON lines. */
static int export_rows(sqlite3 *db, const char *sql, int64_t trace, FILE *f, int json,
		       uint64_t *count, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, trace);
	int n = sqlite3_column_count(st);
	if (!json) {
		for (int i = 0; i < n; i++)
			fprintf(f, "%s%s", i ? "," : "", sqlite3_column_name(st, i));
		fputc('\n', f);
	}
	*count = 0;
	int src;
	while ((src = sqlite3_step(st)) == SQLITE_ROW) {
		if (json)
			fputc('{', f);
		for (int i = 0; i < n; i++) {
			int t = sqlite3_column_type(st, i);
			if (json)
				fprintf(f, "%s\"%s\": ", i ? ", " : "", sqlite3_column_name(st, i));
			else if (i)
				fputc(',', f);
			if (t == SQLITE_INTEGER)
				fprintf(f, "%lld", (long long)sqlite3_column_int64(st, i));
			else if (t == SQLITE_NULL)
				fputs(json ? "null" : "", f);
			else if (json)
				json_str(f, (const char *)sqlite3_column_text(st, i));
			else
				csv_field(f, (const char *)sqlite3_column_text(st, i));
		}
		fputs(json ? "}\n" : "\n", f);
		(*count)++;
	}
	if (src != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		rc = -EIO;
	}
	sqlite3_finalize(st);
	if (!rc && ferror(f)) {
		snprintf(err, errlen, "write failed");
		rc = -EIO;
	}
	return rc;
}

enum { O_TRACE = 256, O_PCAPNG, O_CSV, O_JSONL, O_EV_CSV, O_EV_JSONL, O_LINK, O_PORT };
static const struct cli_opt opts[] = {
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP},
    {"pcapng", O_PCAPNG, "OUT", 0,
     "pcapng for Wireshark/tshark: every command and response\n"
     "is one TCP segment (IPv4, checksums set) between the\n"
     "client (its recorded IPv4 address and port when it has\n"
     "one above the TPM port, else 10.1.x.y) and the TPM at\n"
     "10.0.0.1 port N, so the TPM 2.0 dissector decodes it\n"
     "with no preferences changed. Nanosecond timestamps\n"
     "(if_tsresol 9): imports keep the capture's times,\n"
     "recordings are placed after the trace's wall-clock\n"
     "start. Each packet has a comment with sequence number,\n"
     "locality and latency. A message whose payload was not\n"
     "stored is written as its 10-byte header",
     "@file"},
    {"link", O_LINK, "TYPE", CLI_CHOICE,
     "pcapng link type: raw (default; raw IPv4, link type\n228) or ether (an Ethernet header)",
     "raw ipv4 ether ethernet"},
    {"port", O_PORT, "N", CLI_NUM, "the TPM's TCP port in the pcapng (default 2321)", NULL, 1,
     65534},
    {"csv", O_CSV, "OUT", 0, "one row per command with the decoded columns and a\nheader line",
     "@file"},
    {"jsonl", O_JSONL, "OUT", 0, "the same columns, one JSON object per line", "@file"},
    {"events-csv", O_EV_CSV, "OUT", 0,
     "the trace's events (record start and stop, backend\n"
     "lost and back, IMA and TCG log lines, ...), which\n"
     "pcapng cannot carry; they share the commands' seq\n"
     "numbering, so both merge in order on seq",
     "@file"},
    {"events-jsonl", O_EV_JSONL, "OUT", 0, "the same, one JSON object per line", "@file"},
};
static const struct cli_form forms[] = {{0, "DB", NULL}};

static int run_export(int argc, char **argv)
{
	const char *pcapng = NULL, *csv = NULL, *jsonl = NULL, *ev_csv = NULL, *ev_jsonl = NULL;
	const char *trace_arg = NULL;
	int64_t trace = 0;
	int link = LINKTYPE_IPV4, k, ret = 1, rc;
	unsigned long port = 2321;
	sqlite3 *db = NULL;
	char err[512];
	uint64_t n = 0, left_out = 0;
	struct cli_parse p;

	cli_parse_init(&p, &subcmd_export, argc, argv);
	while ((k = cli_next(&p)) > 0) {
		switch (k) {
		case O_TRACE:
			trace_arg = p.arg;
			break;
		case O_PCAPNG:
			pcapng = p.arg;
			break;
		case O_CSV:
			csv = p.arg;
			break;
		case O_JSONL:
			jsonl = p.arg;
			break;
		case O_EV_CSV:
			ev_csv = p.arg;
			break;
		case O_EV_JSONL:
			ev_jsonl = p.arg;
			break;
		case O_LINK:
			link = p.arg[0] == 'e' ? LINKTYPE_ETHERNET : LINKTYPE_IPV4;
			break;
		case O_PORT:
			port = (unsigned long)p.num;
			break;
		}
	}
	if (k < 0)
		return EXIT_USAGE;
	if (p.ind != argc - 1)
		return usage_error(&subcmd_export,
				   p.ind >= argc ? "which database? (DB)" : "give exactly one DB");
	if (!pcapng && !csv && !jsonl && !ev_csv && !ev_jsonl)
		return usage_error(&subcmd_export, "nothing to do: give --pcapng, --csv, --jsonl, "
						   "--events-csv or --events-jsonl");
	const char *dbpath = argv[p.ind];
	const char *const inputs[] = {dbpath, NULL};
	const struct {
		const char *path, *sql, *what;
		int json;
	} outs[] = {{pcapng, NULL, "packets", 0},
		    {csv, rows_sql, "rows", 0},
		    {jsonl, rows_sql, "rows", 1},
		    {ev_csv, events_sql, "events", 0},
		    {ev_jsonl, events_sql, "events", 1}};
	/* Every output is checked before anything is read or written. */
	for (size_t i = 0; i < CLI_COUNT(outs); i++) {
		if (!outs[i].path)
			continue;
		if ((rc = cli_out_check("export", outs[i].path, inputs)))
			return rc;
		for (size_t j = 0; j < i; j++)
			if (outs[j].path && strcmp(outs[i].path, "-") &&
			    !strcmp(outs[i].path, outs[j].path))
				return usage_error(&subcmd_export, "%s is given as two outputs",
						   outs[i].path);
	}
	if (pcapng && !strcmp(pcapng, "-") && isatty(1))
		return usage_error(&subcmd_export, "--pcapng -: standard output is a terminal");
	db = cli_open_db("export", dbpath, 0);
	if (!db)
		return 1;
	if (!(trace = cli_pick_trace("export", db, trace_arg)))
		goto out;
	for (size_t i = 0; i < CLI_COUNT(outs); i++) {
		struct cli_out o;
		if (!outs[i].path)
			continue;
		if (cli_out_open("export", &o, outs[i].path, inputs))
			goto out;
		err[0] = 0;
		if (outs[i].sql)
			rc = export_rows(db, outs[i].sql, trace, o.f, outs[i].json, &n, err,
					 sizeof err);
		else
			rc = pcapng_export(db, trace, o.f, link, (uint16_t)port, &n, &left_out, err,
					   sizeof err);
		if (left_out)
			fprintf(stderr,
				"tpmtrace export: %" PRIu64
				" messages left out of the pcapng: over %d "
				"bytes, or the response to a command that was\n",
				left_out, PCAPNG_MAX_SEGMENT);
		if (rc) {
			cli_out_close("export", &o, 0);
			die("export", "%s: %s", outs[i].path, err);
			goto out;
		}
		if (cli_out_close("export", &o, 1))
			goto out;
		fprintf(stderr, "trace %" PRId64 ": %" PRIu64 " %s to %s\n", trace, n, outs[i].what,
			outs[i].path);
	}
	ret = 0;
out:
	db_close(db);
	return ret;
}

const struct subcommand subcmd_export = {
    "export",
    run_export,
    "write a trace as pcapng, CSV or JSON lines",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Writes one trace in one or more formats. Each output is written to a temporary\n"
    "file beside it and renamed into place when complete (created 0600); an output\n"
    "that is the database itself is refused. OUT may be '-' for standard output.\n",
    "Columns: trace_id seq t_submit_ns t_done_ns latency_ns cc cc_name locality tag\n"
    "cmd_size rsp_size rc rc_text handle1 handle2 handle3 rsp_handle n_sessions\n"
    "sess_handle sess_attrs auth_kind auth pcr client_id client flags malformed;\n"
    "for events: trace_id seq t_ns kind detail client_id client.\n",
    "tpmtrace export traces.db --trace 3 --pcapng boot.pcapng --csv boot.csv\n"
    "tshark -r boot.pcapng -T fields -e tpm.req.cc -e tpm.resp.rc\n",
};
