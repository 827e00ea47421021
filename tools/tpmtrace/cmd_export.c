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
#include "recorder/import/pcapng_write.h"
#include "recorder/import/trace_export.h"

SUBCOMMAND(export);

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

struct export_out {
	const char *path;
	enum trace_export_fmt fmt;
};

/* Every output is checked before anything is read or written. */
static int check_outputs(const struct export_out *outs, size_t n, const char *const *inputs)
{
	int rc;
	for (size_t i = 0; i < n; i++) {
		if (!outs[i].path)
			continue;
		if ((rc = cli_out_check("export", outs[i].path, inputs)))
			return rc;
		for (size_t j = 0; j < i; j++)
			if (outs[j].path && strcmp(outs[i].path, "-") &&
			    !strcmp(outs[i].path, outs[j].path))
				return cli_usage_error(&subcmd_export, "%s is given as two outputs",
						       outs[i].path);
	}
	return 0;
}

/* Writes each given output (atomically, through db/out.h) and reports it. */
static int write_outputs(sqlite3 *db, int64_t trace, const struct export_out *outs, size_t nout,
			 const struct trace_export_opts *xo, const char *const *inputs)
{
	char err[512];
	uint64_t n, lo, left_out = 0;
	for (size_t i = 0; i < nout; i++) {
		struct db_out o;
		if (!outs[i].path)
			continue;
		if (cli_out_open("export", &o, outs[i].path, inputs))
			return 1;
		err[0] = 0;
		int rc =
		    import_trace_export(db, trace, outs[i].fmt, o.f, xo, &n, &lo, err, sizeof err);
		if (outs[i].fmt == TRACE_EXPORT_PCAPNG)
			left_out = lo;
		if (left_out)
			fprintf(stderr,
				"tpmtrace export: %" PRIu64
				" messages left out of the pcapng: over %d "
				"bytes, or the response to a command that was\n",
				left_out, PCAPNG_MAX_SEGMENT);
		if (rc)
			return cli_out_fail("export", &o, outs[i].path, err);
		if (cli_out_close("export", &o, 1))
			return 1;
		fprintf(stderr, "trace %" PRId64 ": %" PRIu64 " %s to %s\n", trace, n,
			import_trace_export_unit(outs[i].fmt), cli_name(outs[i].path));
	}
	return 0;
}

static int run_export(int argc, char **argv)
{
	const char *pcapng = NULL, *csv = NULL, *jsonl = NULL, *ev_csv = NULL, *ev_jsonl = NULL;
	const char *trace_arg = NULL;
	int64_t trace = 0;
	int k, ret = 1, rc;
	struct trace_export_opts xo = {.link = LINKTYPE_IPV4, .port = 2321};
	sqlite3 *db = NULL;
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
			xo.link = p.arg[0] == 'e' ? LINKTYPE_ETHERNET : LINKTYPE_IPV4;
			break;
		case O_PORT:
			xo.port = (uint16_t)p.num;
			break;
		}
	}
	if (k < 0)
		return EXIT_USAGE;
	const char *dbpath = cli_db_operand(&p);
	if (!dbpath)
		return EXIT_USAGE;
	if (!pcapng && !csv && !jsonl && !ev_csv && !ev_jsonl)
		return cli_usage_error(&subcmd_export,
				       "nothing to do: give --pcapng, --csv, --jsonl, "
				       "--events-csv or --events-jsonl");
	const char *const inputs[] = {dbpath, NULL};
	const struct export_out outs[] = {{pcapng, TRACE_EXPORT_PCAPNG},
					  {csv, TRACE_EXPORT_CSV},
					  {jsonl, TRACE_EXPORT_JSONL},
					  {ev_csv, TRACE_EXPORT_EVENTS_CSV},
					  {ev_jsonl, TRACE_EXPORT_EVENTS_JSONL}};
	if ((rc = check_outputs(outs, CLI_COUNT(outs), inputs)))
		return rc;
	if (pcapng && !strcmp(pcapng, "-") && isatty(1))
		return cli_usage_error(&subcmd_export, "--pcapng -: standard output is a terminal");
	db = cli_open_db("export", dbpath, 0);
	if (!db)
		return 1;
	if ((trace = cli_pick_trace("export", db, trace_arg)))
		ret = write_outputs(db, trace, outs, CLI_COUNT(outs), &xo, inputs);
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
    "file beside it and renamed into place when complete (created 0600; through a\n"
    "symlink, its target); a device, FIFO or /dev/stdout is written through, never\n"
    "replaced. An output that is the database (or its -wal, -shm, -journal) is\n"
    "refused. OUT may be '-' for standard output.\n",
    "Columns: trace_id seq t_submit_ns t_done_ns latency_ns cc cc_name locality tag\n"
    "cmd_size rsp_size rc rc_text handle1 handle2 handle3 rsp_handle n_sessions\n"
    "sess_handle sess_attrs auth_kind auth pcr client_id client flags malformed;\n"
    "for events: trace_id seq t_ns kind detail client_id client.\n",
    "tpmtrace export traces.db --trace 3 --pcapng boot.pcapng --csv boot.csv\n"
    "tshark -r boot.pcapng -T fields -e tpm.req.cc -e tpm.resp.rc\n",
};
