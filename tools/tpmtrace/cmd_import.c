/* tpmtrace import KIND FILE... --db DB: existing traces into the database. */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "import.h"
#include "import_logs.h"

#include "db/db.h"
#include "db/writer.h"
#include "model/tpm/decode.h"
#include "model/tpm/redact.h"
#include "recorder/import/ftrace.h"
#include "model/tpm/wire.h"
#include "recorder/import/log_reader.h"
#include "recorder/import/pcap_import.h"
#include "db/rec_fill.h"
#include "recorder/import/swtpm_log.h"

SUBCOMMAND(import);

/* ---- pcap / pcapng ---- */

static int pcap_on_client(void *ctx, uint32_t id, const char *peer, uint64_t first_ns)
{
	return import_sink_client(ctx, id, NULL, peer, first_ns);
}

static int pcap_on_command(void *ctx, const struct pcap_tpm_cmd *x)
{
	struct import_cmd c = {
	    .t_submit_ns = x->t_submit_ns,
	    .t_done_ns = x->t_done_ns,
	    .cmd = x->cmd,
	    .cmd_len = x->cmd_len,
	    .rsp = x->rsp,
	    .rsp_len = x->rsp_len,
	    .locality = x->locality,
	    .client_id = x->client_id,
	    .flags = x->flags & REC_F_SYNTHETIC_TIME,
	};
	return import_sink_command(ctx, &c);
}

static int pcap_on_event(void *ctx, const struct pcap_tpm_event *e)
{
	return import_sink_event(ctx, e->t_ns, e->kind, e->detail, e->client_id);
}

/* Files from this size on get a progress bar; TPMTRACE_PROGRESS_BYTES
 * overrides it (the tests use small files). */
static off_t progress_min_bytes(void)
{
	const char *e = getenv("TPMTRACE_PROGRESS_BYTES");
	return e && *e ? (off_t)strtoll(e, NULL, 10) : (off_t)32 << 20;
}

static void import_progress(void *arg, uint64_t done, uint64_t total)
{
	progress_update(arg, done, total);
}

static int import_pcap(struct import_sink *s, const char *file, const struct import_opts *o,
		       char *err, size_t errlen)
{
	static const struct pcap_import_ops ops = {pcap_on_client, pcap_on_command, pcap_on_event};
	struct pcap_import_cfg cfg = {.tpm_port = (uint16_t)o->port,
				      .follow = o->follow,
				      .idle_gap_ns = (uint64_t)(o->idle_gap_s * 1e9)};
	struct pcap_import_stats st;
	struct progress pg;
	/* A bar only for files that take a while (about 1 s and more). */
	struct stat sb;
	progress_init(&pg, "import", "packets",
		      !o->json && !stat(file, &sb) && sb.st_size >= progress_min_bytes());
	if (pg.enabled) {
		cfg.progress = import_progress;
		cfg.progress_arg = &pg;
	}
	int rc = pcap_import_file(file, &cfg, &ops, s, &st, err, errlen);
	progress_done(&pg);

	if (rc) {
		if (s->err[0]) /* the database failed, not the file */
			snprintf(err, errlen, "%s", s->err);
		return rc;
	}
	if (!st.commands && !st.events) {
		snprintf(err, errlen,
			 "%s: no TPM traffic on TCP port %u or %u (%" PRIu64 " packets, %" PRIu64
			 " section(s), last link type %d: %s)",
			 file, o->port, o->port + 1, st.packets, st.sections, st.last_linktype,
			 pcap_import_linktype_str(st.last_linktype));
		return -ENODATA;
	}
	import_sink_note(s,
			 "pcap: %" PRIu64 " packets in %" PRIu64 " section(s), link type %s, TPM "
			 "port %u, timestamp resolution %" PRIu32 " ns",
			 st.packets, st.sections, pcap_import_linktype_str(st.last_linktype),
			 o->port, st.ts_res_ns);
	if (st.synthetic_time)
		import_sink_note(s, "timestamps are synthetic (equal steps): latencies are "
				    "meaningless");
	if (st.unmatched)
		import_sink_note(s, "%" PRIu64 " responses without a command", st.unmatched);
	if (st.gaps)
		import_sink_note(s, "%" PRIu64 " capture gaps", st.gaps);
	if (st.unsupported_linktype)
		import_sink_note(s, "packets of unsupported link type %" PRIu32 " skipped",
				 st.unsupported_linktype);
	return 0;
}

/* ---- swtpm --log level=20 ---- */

static int swlog_on_command(void *ctx, const struct swlog_cmd *x)
{
	/* No timestamps in the log: the ordinal stands for both times, which
	 * the writer stores as no latency (db/writer.c). */
	struct import_cmd c = {
	    .t_submit_ns = x->ordinal,
	    .t_done_ns = x->ordinal,
	    .cmd = x->cmd,
	    .cmd_len = x->cmd_len,
	    .rsp = x->rsp,
	    .rsp_len = x->rsp_len,
	    .locality = x->locality,
	    .flags = REC_F_SYNTHETIC_TIME,
	};
	return import_sink_command(ctx, &c);
}

static int swlog_on_event(void *ctx, const struct swlog_event *e)
{
	return import_sink_event(ctx, e->ordinal, e->kind, e->detail, 0);
}

static int import_swtpm_log(struct import_sink *s, const char *file, const struct import_opts *o,
			    char *err, size_t errlen)
{
	static const struct swlog_ops ops = {swlog_on_command, swlog_on_event},
				      check = {NULL, NULL};
	struct swlog_stats st;
	const void *m;
	size_t len;
	int rc = import_log_map_file(file, o->follow, &m, &len, NULL, err, errlen);
	if (rc)
		return rc;
	/* A first pass finds bad input before any row is written, so a file that
	 * does not parse leaves no trace behind; both passes read one mapping. */
	rc = import_swlog_parse_mem(m ? m : "", len, file, &check, NULL, &st, err, errlen);
	if (!rc)
		rc = import_swlog_parse_mem(m ? m : "", len, file, &ops, s, &st, err, errlen);
	import_log_unmap_file(m, len);
	if (rc) {
		if (s->err[0])
			snprintf(err, errlen, "%s", s->err);
		return rc;
	}
	import_sink_note(s,
			 "swtpm log: %" PRIu64 " lines, %" PRIu64 " commands, %" PRIu64
			 " control messages; no timestamps: time is the message's ordinal, no "
			 "latency (flag 16)",
			 st.lines, st.commands, st.ctrl);
	if (st.unmatched)
		import_sink_note(s, "%" PRIu64 " responses without a command", st.unmatched);
	if (st.truncated)
		import_sink_note(s,
				 "the dump at line %u is cut short by the end of the file: dropped",
				 st.truncated_line);
	if (st.other_lines)
		import_sink_note(s, "%" PRIu64 " other lines ignored", st.other_lines);
	return 0;
}

/* ---- ftrace function_graph ---- */

struct ftrace_ctx {
	struct import_sink *s;
	uint64_t cursor; /* synthetic clock: commands laid end to end */
};

static int ftrace_on_op(void *ctx, const struct ftrace_op *o)
{
	struct ftrace_ctx *x = ctx;
	char detail[128];
	int rc;

	if (!o->cc)
		return 0; /* counted by the parser, noted by the caller */
	uint64_t dur = (uint64_t)llround(o->ms * 1e6);
	struct import_cmd c = {.cc = o->cc, .auth_kind = o->auth, .locality = -1};
	if (o->has_time) {
		c.t_submit_ns = o->t_start_ns;
	} else {
		/* Without funcgraph-abstime only durations are known. */
		c.t_submit_ns = x->cursor;
		c.flags = REC_F_SYNTHETIC_TIME;
		x->cursor += dur;
	}
	c.t_done_ns = c.t_submit_ns + dur;
	snprintf(detail, sizeof detail, "%s cpu %d line %u", o->fn, o->cpu, o->line);
	if ((rc = import_sink_event(x->s, c.t_submit_ns, "ftrace", detail, 0)))
		return rc;
	return import_sink_command(x->s, &c);
}

static int import_ftrace(struct import_sink *s, const char *file, const struct import_opts *o,
			 char *err, size_t errlen)
{
	struct ftrace_ctx x = {.s = s, .cursor = 0};
	struct ftrace_stats st;
	const void *m;
	size_t len;
	int rc = import_log_map_file(file, o->follow, &m, &len, NULL, err, errlen);
	if (rc)
		return rc;
	/* Checked whole first, as for the other kinds: bad input leaves no trace. */
	rc = ftrace_parse_mem(m ? m : "", len, file, NULL, NULL, &st, err, errlen);
	if (!rc && st.ops > st.unattributed)
		rc = ftrace_parse_mem(m ? m : "", len, file, ftrace_on_op, &x, &st, err, errlen);
	import_log_unmap_file(m, len);
	if (rc) {
		if (s->err[0])
			snprintf(err, errlen, "%s", s->err);
		return rc;
	}
	if (st.ops == st.unattributed) {
		snprintf(
		    err, errlen,
		    "%s: no timed TPM commands (expected tpm_transmit_cmd or tpm2_* calls with "
		    "durations inside a known tpm2_* function; %u lines)",
		    file, st.lines);
		return -ENODATA;
	}
	import_sink_note(s,
			 "ftrace function_graph: %u lines, %u timed TPM commands; no bytes "
			 "(payloads none, rc and sizes NULL)%s",
			 st.lines, st.ops - st.unattributed,
			 s->synthetic ? "; no funcgraph-abstime: commands laid end to end from 0 "
					"(flag 16), latencies are the durations"
				      : "");
	if (st.unattributed)
		import_sink_note(s,
				 "%u timed transmissions outside a known tpm2_* function skipped",
				 st.unattributed);
	return 0;
}

/* ---- what a file is ---- */

static int sniff_pcap(const char *file, const struct import_opts *o, char *err, size_t errlen)
{
	uint8_t b[4];
	int regular;
	(void)o;
	long n = import_head(file, b, sizeof b, &regular, err, errlen);
	if (n < 0)
		return -EIO;
	if (!regular)
		return 0;
	if (n == 0) {
		snprintf(err, errlen, "%s: empty file, not a pcap or pcapng capture", file);
		return -EINVAL;
	}
	/* pcap (microsecond or nanosecond, either byte order), pcapng SHB. */
	static const uint32_t magic[] = {0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1,
					 0x0a0d0d0a};
	uint32_t m = n == 4 ? wire_get_u32(b) : 0;
	for (size_t i = 0; i < sizeof magic / sizeof magic[0]; i++)
		if (m == magic[i])
			return 0;
	snprintf(err, errlen, "%s: not a pcap or pcapng capture (no capture file magic number)",
		 file);
	return -EINVAL;
}

/* The check pass of a text importer over the whole file (mapped). */
static int sniff_mapped(const char *file,
			int (*check)(const void *m, size_t len, const char *f, char *err,
				     size_t errlen),
			char *err, size_t errlen)
{
	char head[1];
	int regular;
	if (import_head(file, head, 0, &regular, err, errlen) < 0)
		return -EIO;
	if (!regular)
		return 0;
	const void *m;
	size_t len;
	int rc = import_log_map_file(file, 0, &m, &len, NULL, err, errlen);
	if (rc)
		return rc;
	rc = check(m ? m : "", len, file, err, errlen);
	import_log_unmap_file(m, len);
	return rc;
}

static int swlog_check(const void *m, size_t len, const char *file, char *err, size_t errlen)
{
	static const struct swlog_ops none = {NULL, NULL};
	struct swlog_stats st;
	char why[400];
	memset(&st, 0, sizeof st);
	if (import_swlog_parse_mem(m, len, file, &none, NULL, &st, why, sizeof why)) {
		snprintf(err, errlen, "%s: not a swtpm log at level 20 or more (%s)", file, why);
		return -EINVAL;
	}
	if (!st.commands && !st.ctrl) {
		snprintf(err, errlen,
			 "%s: not a swtpm log at level 20 or more (no SWTPM_IO_Read dump and no "
			 "control message in %llu lines)",
			 file, (unsigned long long)st.lines);
		return -EINVAL;
	}
	return 0;
}

static int sniff_swtpm_log(const char *file, const struct import_opts *o, char *err, size_t errlen)
{
	(void)o;
	return sniff_mapped(file, swlog_check, err, errlen);
}

static int ftrace_check(const void *m, size_t len, const char *file, char *err, size_t errlen)
{
	struct ftrace_stats st;
	char why[400];
	memset(&st, 0, sizeof st);
	if (ftrace_parse_mem(m, len, file, NULL, NULL, &st, why, sizeof why)) {
		snprintf(err, errlen, "%s: not ftrace function_graph output (%s)", file, why);
		return -EINVAL;
	}
	if (st.ops == st.unattributed) {
		snprintf(err, errlen,
			 "%s: not ftrace function_graph output of the kernel's TPM functions (no "
			 "timed tpm_transmit_cmd or tpm2_* call inside a known tpm2_* function; "
			 "%u lines)",
			 file, st.lines);
		return -EINVAL;
	}
	return 0;
}

static int sniff_ftrace(const char *file, const struct import_opts *o, char *err, size_t errlen)
{
	(void)o;
	return sniff_mapped(file, ftrace_check, err, errlen);
}

/* ---- the importer table ----
 * One entry per KIND. To add one: write a sniff function that recognises
 * the format from the file's first bytes (or a check pass) and
 * `static int import_KIND(struct import_sink *, const char *file,
 * const struct import_opts *, char *err, size_t errlen)` that parses the file
 * (the parser itself belongs in recorder/) and calls import_sink_command /
 * import_sink_event / import_sink_client, then add a line here, a mode bit
 * and a synopsis form (K_*, forms[]) and the kind's options in opts[]. */
enum { K_PCAP = 1, K_IMA = 2, K_TCG = 4, K_SWLOG = 8, K_FTRACE = 16 };
static const struct importer importers[] = {
    {"pcap", "pcap or pcapng capture of TPM TCP traffic (raw, MS simulator framing)", "redacted",
     sniff_pcap, import_pcap, NULL},
    {"ima", "Linux IMA measurement list", "full", import_ima_sniff, NULL, import_ima_file},
    {"tcglog", "TCG firmware event log", "full", import_tcglog_sniff, NULL, import_tcglog_file},
    {"swtpm-log", "swtpm --log level=20 hex dumps", "redacted", sniff_swtpm_log, import_swtpm_log,
     NULL},
    {"ftrace", "ftrace function_graph text of the kernel's TPM functions", "none", sniff_ftrace,
     import_ftrace, NULL},
};

static const struct importer *importer_find(const char *kind)
{
	for (size_t i = 0; i < sizeof(importers) / sizeof(importers[0]); i++)
		if (!strcmp(importers[i].kind, kind))
			return &importers[i];
	return NULL;
}

/* ---- output ---- */

static void print_text(const struct import_sink *s)
{
	double span_ms = s->t_last > s->t_first ? (double)(s->t_last - s->t_first) / 1e6 : 0;
	/* the file on a line of its own: the figures fit 100 columns below it */
	printf("%s: trace %" PRId64 " (%s):\n  %" PRIu64 " commands (%" PRIu64
	       " malformed, %" PRIu64 " without response), %" PRIu64 " events, %" PRIu64
	       " clients, span %.3f ms%s\n",
	       cli_name(s->file), s->trace_id, s->status, s->commands, s->malformed, s->no_response,
	       s->events, s->clients, span_ms, s->synthetic ? ", synthetic timestamps" : "");
}

/* One file's object in "imports", on a line of its own. */
static void print_json(struct json_w *w, const struct import_sink *s, const char *kind,
		       const char *error, const struct json_w *extra)
{
	json_ws(w, "\n    ");
	json_begin_object(w);
	json_kstr(w, "file", s->file);
	json_kstr(w, "kind", kind);
	if (error)
		json_kstr(w, "error", error);
	if (s->trace_id > 0) {
		json_kint(w, "trace_id", s->trace_id);
		json_kstr(w, "status", s->status);
	}
	if (extra) { /* a measurement log: its own members */
		json_members(w, extra);
		json_end_object(w);
		return;
	}
	json_kuint(w, "commands", s->commands);
	json_kuint(w, "malformed", s->malformed);
	json_kuint(w, "no_response", s->no_response);
	json_kuint(w, "events", s->events);
	json_kuint(w, "clients", s->clients);
	json_kuint(w, "first_ns", s->t_first);
	json_kuint(w, "last_ns", s->t_last);
	json_kuint(w, "span_ns", s->t_last - s->t_first);
	json_kbool(w, "synthetic_time", s->synthetic);
	if (s->notes[0])
		json_kstr(w, "notes", s->notes);
	json_end_object(w);
}

/* ---- the subcommand ---- */

enum {
	O_DB = 256,
	O_NAME,
	O_PORT,
	O_JSON,
	O_KEEP,
	O_RULE,
	O_BANKS,
	O_FORMAT,
	O_LISTALG,
	O_STRICT,
	O_QUIET,
	O_FOLLOW,
	O_IDLEGAP,
	O_PAYLOADS
};
static const struct cli_opt opts[] = {
    {"db", O_DB, "DB", CLI_REQ,
     "database file (created 0600 if missing, once every\nFILE was recognised; its directory "
     "must exist)",
     "@file"},
    {"name", O_NAME, "NAME", 0, "trace name (default: the file's base name)"},
    {"json", O_JSON, NULL, 0, "print the summary as one JSON object {\"version\": 1, ...}"},
    {"keep-partial", O_KEEP, NULL, 0,
     "a file that fails part-way keeps what was imported as\na trace with status 'incomplete' "
     "(default: nothing)"},
    {"quiet", O_QUIET, NULL, 0, "no summary line"},
    {"follow", O_FOLLOW, NULL, 0,
     "read a FIFO or character device to its end (at most\n1 GiB); without it they are refused"},
    {"port", O_PORT, "N", CLI_NUM,
     "pcap: the TPM's TCP port (default 2321; N+1 is the\nplatform port)", NULL, 1, 65534, K_PCAP},
    {"idle-gap", O_IDLEGAP, "SECONDS", CLI_REAL,
     "pcap: a TCP connection without packets this long\n"
     "(capture time) is over, as one that ended with FIN or\n"
     "RST (default 300). At most 65,536 connections (64 MiB\n"
     "of their bytes) are held open at once; a capture that\n"
     "needs more is refused",
     NULL, 0, 1000000000, K_PCAP},
    {"payloads", O_PAYLOADS, "MODE", CLI_CHOICE, CLI_PAYLOADS_HELP, CLI_PAYLOADS_CHOICES, 0, 0,
     K_PCAP | K_SWLOG},
    {"kernel-rule", O_RULE, "RULE", CLI_CHOICE,
     "ima: what the kernel extended into each bank:\n"
     "per-bank (Linux >= 5.8: H_bank(template data),\n"
     "default), padded-sha1 (4.10-5.7: SHA-1 template hash\n"
     "zero-padded), sha1-only (older: only the SHA-1 bank);\n"
     "violations extend 0xff",
     "per-bank padded-sha1 sha1-only", 0, 0, K_IMA},
    {"banks", O_BANKS, "LIST", 0, "ima: PCR banks of the TPM (default sha1,sha256)", NULL, 0, 0,
     K_IMA},
    {"format", O_FORMAT, "F", CLI_CHOICE, "ima: auto (default), binary or ascii",
     "auto binary ascii", 0, 0, K_IMA},
    {"list-alg", O_LISTALG, "ALG", 0,
     "ima: digest of the list (default: from a _sha256 style\nfile name suffix, else detected)",
     PCR_COMMON_NAMES, 0, 0, K_IMA},
    {"strict", O_STRICT, NULL, 0,
     "ima, tcglog: a truncated last record (ima: also a\n"
     "template hash mismatch) is an error: exit 1",
     NULL, 0, 0, K_IMA | K_TCG},
};
static const struct cli_form forms[] = {
    {K_PCAP, "pcap FILE...", NULL},	{K_IMA, "ima FILE...", NULL},
    {K_TCG, "tcglog FILE...", NULL},	{K_SWLOG, "swtpm-log FILE...", NULL},
    {K_FTRACE, "ftrace FILE...", NULL},
};

static unsigned kind_mode(const struct importer *imp)
{
	return 1u << (imp - importers);
}

/* Ctrl-C, SIGTERM, SIGHUP: the importer stops at its next step and its
 * trace is closed 'incomplete' like any failed import, never left
 * 'recording'. (No SA_RESTART: a read waiting on a FIFO returns.) */
static void on_stop(int sig)
{
	(void)sig;
	import_log_stop_requested = 1;
}

void import_catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_stop};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* One option k (its argument in p) into o. Returns 0 or the usage exit status. */
static int parse_option(int k, const struct cli_parse *p, struct import_opts *o)
{
	char err[512];

	switch (k) {
	case O_DB:
		o->db = p->arg;
		break;
	case O_NAME:
		o->name = p->arg;
		break;
	case O_PAYLOADS:
		o->payloads = tpm_payload_mode_parse(p->arg);
		break;
	case O_PORT:
		o->port = (unsigned)p->num;
		break;
	case O_JSON:
		o->json = 1;
		break;
	case O_KEEP:
		o->keep_partial = 1;
		break;
	case O_FOLLOW:
		o->follow = 1;
		break;
	case O_IDLEGAP:
		if (!(p->real > 0))
			return cli_usage_error(
			    &subcmd_import, "--idle-gap takes seconds above 0, not '%s'", p->arg);
		o->idle_gap_s = p->real;
		break;
	case O_QUIET:
		o->quiet = 1;
		break;
	case O_STRICT:
		o->strict = 1;
		break;
	case O_RULE:
		ima_rule_parse(p->arg, &o->ima.rule);
		break;
	case O_FORMAT:
		o->ima.format = !strcmp(p->arg, "binary")  ? IMA_FMT_BINARY
				: !strcmp(p->arg, "ascii") ? IMA_FMT_ASCII
							   : IMA_FMT_AUTO;
		break;
	case O_BANKS: {
		int n = pcr_alg_parse_list(p->arg, o->ima.banks, PCR_MAX_BANKS, err, sizeof err);
		if (n < 0)
			return cli_usage_error(&subcmd_import, "--banks: %s", err);
		o->ima.n_banks = (unsigned)n;
		break;
	}
	case O_LISTALG: {
		const struct pcr_alg *a = pcr_alg_by_name(p->arg);
		if (!a)
			return cli_usage_error(&subcmd_import, "--list-alg: unknown digest '%s'",
					       p->arg);
		o->ima.list_alg = a->alg;
		break;
	}
	}
	return 0;
}

/* The options into o, KIND into *imp, the files into files[1..nfiles-1]
 * (files[0] is KIND). Returns 0 or the usage exit status. */
static int parse(int argc, char **argv, struct import_opts *o, const struct importer **imp,
		 char ***files, int *nfiles)
{
	struct cli_parse p;
	int k;

	/* GNU getopt permutes: options may follow the operands. */
	cli_parse_init(&p, &subcmd_import, argc, argv);
	while ((k = cli_next(&p)) > 0)
		if ((k = parse_option(k, &p, o)))
			return k;
	if (k < 0)
		return EXIT_USAGE;
	char **ops = argv + p.ind;
	int nops = argc - p.ind;
	if (nops < 1)
		return cli_usage_error(
		    &subcmd_import, "which KIND of file? (pcap, ima, tcglog, swtpm-log, ftrace)");
	*imp = importer_find(ops[0]);
	if (!*imp)
		return cli_usage_error(&subcmd_import,
				       "unknown KIND '%s' (pcap, ima, tcglog, swtpm-log, ftrace)",
				       ops[0]);
	char why[48];
	snprintf(why, sizeof why, "with import %s", (*imp)->kind);
	if ((k = cli_only_mode(&p, kind_mode(*imp), why)))
		return k;
	if (nops < 2)
		return cli_usage_error(&subcmd_import, "no FILE to import");
	if (!o->db)
		return cli_usage_error(&subcmd_import, "--db DB is required");
	if (o->name && nops > 2)
		return cli_usage_error(&subcmd_import,
				       "--name names one trace: give one FILE with it");
	*files = ops;
	*nfiles = nops;
	return 0;
}

/* Imports one file (already known to be of the importer's kind). Returns 0,
 * or non-zero with err set (*db_failed set when the database would not even
 * open); s and lr get what the import left. */
static int import_file(const struct importer *imp, const struct import_opts *o, const char *file,
		       struct import_sink *s, struct import_log_result *lr, char *err,
		       size_t errlen, int *db_failed)
{
	int rc;

	memset(s, 0, sizeof(*s));
	memset(lr, 0, sizeof(*lr));
	json_init_members(&lr->json, JSON_SPACED);
	s->file = file;
	err[0] = 0;
	if (!imp->run) {
		rc = imp->run_log(file, o, lr, err, errlen);
		s->trace_id = lr->trace_id;
		s->commands = lr->commands; /* the summary adds them up as it does a pcap's */
		s->events = lr->events;
		snprintf(s->status, sizeof s->status, "%s", lr->status);
		return rc;
	}
	int payloads = tpm_payload_mode_parse(imp->payloads);
	if (payloads == PAYLOADS_REDACTED)
		payloads = o->payloads;
	if ((rc = import_sink_open(s, o->db, file, o->name, payloads, err, errlen))) {
		*db_failed = 1;
		return rc;
	}
	s->keep_partial = o->keep_partial;
	rc = imp->run(s, file, o, err, errlen);
	int erc = import_sink_close(s, rc != 0);
	if (!rc && erc) {
		rc = erc;
		snprintf(err, errlen, "%s: writing to %s failed: nothing of it is stored", file,
			 o->db);
	}
	return rc;
}

/* A failed file: its message; its trace goes unless --keep-partial. */
static void import_failed(const struct import_opts *o, const char *file, struct import_sink *s,
			  const char *err)
{
	cli_error("import", "%s", err[0] ? err : "import failed");
	/* All or nothing: a file that failed part-way leaves no trace unless
	 * asked to. */
	if (s->trace_id > 0 && o->keep_partial)
		fprintf(stderr,
			"tpmtrace import: %s: trace %lld kept as 'incomplete' (--keep-partial)\n",
			cli_name(file), (long long)s->trace_id);
	else if (s->trace_id > 0 && !cli_trace_delete("import", o->db, s->trace_id))
		s->trace_id = 0;
}

/* Before anything is written: the database is none of the inputs, and every
 * FILE is there and of the named KIND. Files not of KIND (or not there) are
 * reported first and skipped (okf[i] 0, why_not[i] the reason). Returns the
 * number of files left, or -1 for an exit status in *ret. */
static int check_files(const struct importer *imp, const struct import_opts *o, char **files,
		       int nfiles, char *okf, char (*why_not)[512], int *failed, int *ret)
{
	char err[512];
	int n_ok = 0;

	/* The database, and the summaries on standard output (1<>file), are
	 * never written onto a file read. */
	for (int i = 1; i < nfiles; i++)
		if ((*ret =
			 cli_out_check("import", o->db, (const char *const[]){files[i], NULL})) ||
		    (*ret = cli_out_check("import", "-", (const char *const[]){files[i], NULL})))
			return -1;
	for (int i = 1; i < nfiles; i++) {
		err[0] = 0;
		if (imp->sniff(files[i], o, err, sizeof err)) {
			snprintf(why_not[i], sizeof why_not[i], "%s", err[0] ? err : files[i]);
			cli_error("import", "%s", why_not[i]);
			(*failed)++;
		} else {
			okf[i] = 1;
			n_ok++;
		}
	}
	if (n_ok && cli_db_for_create("import", o->db))
		n_ok = 0, *failed = nfiles - 1;
	if (n_ok && imp->run) {
		/* Made here once; each file's sink opens it for writing. */
		sqlite3 *probe = NULL;
		if (db_open(o->db, DB_CREATE, &probe, err, sizeof err)) {
			cli_error("import", "%s", err);
			n_ok = 0;
			*failed = nfiles - 1;
		}
		db_close(probe);
	}
	return n_ok;
}

static int run_import(int argc, char **argv)
{
	struct import_opts o = {.port = PCAP_IMPORT_DEFAULT_PORT, .payloads = PAYLOADS_REDACTED};
	const struct importer *imp = NULL;
	char err[512], **files = NULL;
	int nfiles = 0, failed = 0, imported = 0, ret = 0;
	uint64_t tot_cmd = 0, tot_mal = 0, tot_ev = 0, t0 = db_mono_ns();

	import_catch_signals();
	if ((ret = parse(argc, argv, &o, &imp, &files, &nfiles)))
		return ret;
	cli_payloads_warn("import", o.payloads, o.db);
	char *okf = calloc((size_t)nfiles, 1);
	char(*why_not)[512] = calloc((size_t)nfiles, sizeof *why_not);
	if (!okf || !why_not) {
		free(okf);
		free(why_not);
		return cli_error("import", "out of memory");
	}
	struct stat dbst;
	int db_existed = stat(o.db, &dbst) == 0;
	int n_ok = check_files(imp, &o, files, nfiles, okf, why_not, &failed, &ret);
	if (n_ok < 0 || (!n_ok && !o.json)) {
		free(okf);
		free(why_not);
		return n_ok < 0 ? ret : 1;
	}
	struct json_w w;
	json_init_file(&w, stdout, JSON_SPACED);
	if (o.json) {
		json_begin_object(&w);
		json_kint(&w, "version", 1);
		json_key(&w, "imports");
		json_begin_array(&w);
	}
	for (int i = 1; i < nfiles; i++) {
		struct import_sink s;
		struct import_log_result lr;
		if (!okf[i]) {
			if (o.json) {
				memset(&s, 0, sizeof s);
				s.file = files[i];
				print_json(&w, &s, imp->kind, why_not[i], NULL);
			}
			continue;
		}
		int db_failed = 0;
		int rc = import_file(imp, &o, files[i], &s, &lr, err, sizeof err, &db_failed);
		if (db_failed) {
			json_free(&lr.json);
			failed++;
			cli_error("import", "%s", err);
			break;
		}
		if (rc) {
			failed++;
			import_failed(&o, files[i], &s, err);
		}
		if (s.trace_id > 0)
			imported++;
		if (o.json)
			print_json(&w, &s, imp->kind, rc ? err : NULL,
				   imp->run_log ? &lr.json : NULL);
		else if (!o.quiet && !rc && imp->run)
			print_text(&s);
		else if (!o.quiet && !rc)
			printf("%s\n", lr.text);
		json_free(&lr.json);
		if (s.trace_id <= 0) /* deleted (all or nothing): not in the database */
			continue;
		tot_cmd += s.commands;
		tot_mal += s.malformed;
		tot_ev += s.events;
	}
	free(okf);
	free(why_not);
	/* A database this run created and left without a trace goes again. */
	if (!imported && !db_existed) {
		static const char *const suffix[] = {"", "-wal", "-shm"};
		char pth[4200];
		for (size_t j = 0; j < 3; j++) {
			snprintf(pth, sizeof pth, "%s%s", o.db, suffix[j]);
			unlink(pth);
		}
	}
	uint64_t dt = db_mono_ns() - t0;
	if (o.json) {
		json_ws(&w, "\n  ");
		json_end_array(&w);
		json_kint(&w, "files", nfiles - 1);
		json_kint(&w, "failed", failed);
		json_kuint(&w, "commands", tot_cmd);
		json_kuint(&w, "malformed", tot_mal);
		json_kuint(&w, "events", tot_ev);
		json_kuint(&w, "elapsed_ns", dt);
		json_end_object(&w);
		json_newline(&w);
		if (json_done(&w))
			failed = cli_error("import", "the JSON output went wrong");
	} else if (nfiles > 2 && !o.quiet)
		printf("%d files (%d failed): %" PRIu64 " commands, %" PRIu64 " malformed, %" PRIu64
		       " events in %.3f s\n",
		       nfiles - 1, failed, tot_cmd, tot_mal, tot_ev, (double)dt / 1e9);
	return failed ? 1 : 0;
}

const struct subcommand subcmd_import = {
    "import",
    run_import,
    "import existing traces (pcap/pcapng, IMA lists, TCG event logs, swtpm logs, ftrace)",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Imports TPM traffic that was recorded by something else. Each FILE becomes one\n"
    "trace (kind 'import', source FILE) with one row per command, decoded like a live\n"
    "recording: command and response codes, sizes, handles, sessions, authorization\n"
    "kind, PCR index, flags and the reason a message did not parse. Recorded bytes\n"
    "(pcap, swtpm-log) are stored as record stores them: secrets redacted unless\n"
    "--payloads says otherwise. Imports are all or nothing: every FILE is recognised\n"
    "as the KIND named before anything is written (a missing FILE or one of another\n"
    "format is reported and creates no database), and a file that fails part-way\n"
    "(naming the packet, entry or byte offset) leaves no trace behind unless\n"
    "--keep-partial.\n"
    "\n"
    "KIND:\n"
    "  pcap        pcap or pcapng (any number of sections) of TCP traffic to a TPM:\n"
    "              raw TPM 2.0 messages (swtpm, tpm2-tss pcap TCTI) or MS simulator\n"
    "              framing (locality taken from it; platform-port codes become\n"
    "              events). Link types: raw IPv4/IPv6, Ethernet (VLAN tags), Linux\n"
    "              cooked SLL and SLL2, BSD loopback. TCP segments are reassembled\n"
    "              per connection; each connection is one client (addr:port).\n"
    "              Timestamps are the capture's; equal steps between all packets\n"
    "              mark them synthetic (flag 16).\n"
    "  ima         Linux IMA measurement lists (binary or ascii, native or canonical\n"
    "              byte order, per-bank *_sha256 files; templates ima, ima-ng,\n"
    "              ima-sig, ima-buf, ima-modsig, ima-ngv2, ima-sigv2): one\n"
    "              TPM2_PCR_Extend per entry with every bank's digest; violations\n"
    "              extended as 0xFF. Logs have no timing (flag 16, no latency).\n"
    "  tcglog      TCG firmware event logs (binary_bios_measurements, SHA-1 or\n"
    "              crypto-agile): TPM2_Startup at the StartupLocality, then one\n"
    "              TPM2_PCR_Extend per event; EV_NO_ACTION skipped.\n"
    "  swtpm-log   swtpm's own log at level 20 or more (swtpm --log file=F,level=20):\n"
    "              every SWTPM_IO_Read dump is a command, the SWTPM_IO_Write dump\n"
    "              after it its response; Ctrl Cmd/Ctrl Rsp become 'ctrl:NAME'\n"
    "              events and SET_LOCALITY sets the locality of what follows. The\n"
    "              log has no timestamps: flag 16, the ordinal as time, no latency.\n"
    "  ftrace      ftrace function_graph text of the kernel's TPM functions (as\n"
    "              posted on linux-integrity; funcgraph-abstime optional): one\n"
    "              command per timed TPM command, its code from the tpm2_* function\n"
    "              (tpm2_pcr_extend = PCR_Extend, tpm2_start_auth_session =\n"
    "              StartAuthSession, ...; docs/importers.md), its latency the\n"
    "              duration of tpm_transmit_cmd. No bytes (payloads 'none'; rc and\n"
    "              sizes NULL); without timestamps commands are laid end to end\n"
    "              (flag 16). An 'ftrace' event names the function and line.\n",
    "Prints per file: trace id, commands, malformed, events, clients, time span.\n"
    "Exit status: 0 all files imported, 1 a file failed (or is not of KIND), 2 usage\n"
    "error.\n",
    "tpmtrace import pcap tpm2_log.pcap capture2.pcapng --db traces.db\n"
    "tpmtrace import pcap --port 2321 --json mssim.pcap --db traces.db\n"
    "tpmtrace import tcglog /sys/kernel/security/tpm0/binary_bios_measurements --db boot.db\n"
    "tpmtrace import ima /sys/kernel/security/ima/binary_runtime_measurements --db boot.db\n"
    "tpmtrace import swtpm-log swtpm.log --db vm1.db\n"
    "tpmtrace import ftrace trace.txt --db boot.db\n",
    "pcap ima tcglog swtpm-log ftrace",
};
