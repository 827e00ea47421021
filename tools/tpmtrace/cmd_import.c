/* tpmtrace import KIND FILE... --db DB: existing traces into the database. */
#include <errno.h>
#include <getopt.h>
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
#include "model/decode.h"
#include "model/ftrace.h"
#include "recorder/log_reader.h"
#include "recorder/pcap_import.h"
#include "recorder/rec_fill.h"
#include "recorder/swtpm_log.h"

SUBCOMMAND(import);

struct import_sink {
	const struct import_opts *o;
	const char *file;
	const char *payloads;
	sqlite3 *db;
	struct writer *w;
	int64_t trace_id;
	char name[256];
	char notes[1024];
	uint64_t commands, malformed, no_response, events, clients;
	uint64_t t_first, t_last;
	int have_time;
	int synthetic;
	struct writer_stats final;
	char status[16];
	char err[512];
};

/* ---- the sink ---- */

static void sink_time(struct import_sink *s, uint64_t t)
{
	if (!s->have_time || t < s->t_first)
		s->t_first = t;
	s->have_time = 1;
	if (t > s->t_last)
		s->t_last = t;
}

/* The trace is made on the first record, so a file without TPM traffic or
 * one that does not parse leaves nothing behind. */
static int sink_begin(struct import_sink *s)
{
	struct trace_info ti = {0};
	struct writer_cfg wc = {0};

	if (s->w)
		return 0;
	if (s->err[0])
		return -EIO;
	ti.name = s->name;
	ti.kind = "import";
	ti.source = s->file;
	ti.payloads = s->payloads;
	s->trace_id = db_trace_begin(s->db, &ti);
	if (s->trace_id < 0) {
		snprintf(s->err, sizeof s->err, "%s: cannot create a trace: %s", s->o->db,
			 sqlite3_errmsg(s->db));
		return (int)s->trace_id;
	}
	wc.path = s->o->db;
	wc.trace_id = s->trace_id;
	wc.block_when_full = 1;
	int rc = writer_start(&s->w, &wc, s->err, sizeof s->err);
	if (rc) {
		db_trace_end(s->db, s->trace_id, 0, 0, 0, "incomplete");
		s->w = NULL;
	}
	return rc;
}

int import_sink_client(struct import_sink *s, uint32_t id, const char *comm, const char *peer,
		       uint64_t first_ns)
{
	int rc = sink_begin(s);
	if (rc)
		return rc;
	size_t cl = strlen(comm ? comm : "") + 1, pl = strlen(peer ? peer : "") + 1;
	struct rec *r = writer_reserve(s->w, REC_CLIENT, (uint32_t)(cl + pl));
	if (!r)
		return -ENOBUFS;
	r->client_id = id;
	r->t_submit = first_ns;
	r->cmd_len = (uint32_t)(cl + pl);
	memcpy(r->payload, comm ? comm : "", cl);
	memcpy(r->payload + cl, peer ? peer : "", pl);
	writer_publish(s->w);
	s->clients++;
	return 0;
}

/* A command known only by its code and timing (ftrace): no payload; the
 * writer stores tag, sizes and response code as NULL (rec.no_bytes). */
static int sink_command_nobytes(struct import_sink *s, const struct import_cmd *c)
{
	struct rec *r = writer_reserve(s->w, REC_COMMAND, 0);
	if (!r)
		return -ENOBUFS;
	r->t_submit = c->t_submit_ns;
	r->t_done = c->t_done_ns;
	r->has_rsp = 1;
	r->no_bytes = 1;
	r->locality = c->locality < 0 ? 0 : (uint8_t)c->locality;
	r->client_id = c->client_id;
	r->flags = c->flags;
	r->cc = c->cc;
	r->auth_kind = (uint8_t)c->auth_kind;
	r->pcr = -1;
	s->commands++;
	if (r->flags & REC_F_SYNTHETIC_TIME)
		s->synthetic = 1;
	sink_time(s, c->t_submit_ns);
	sink_time(s, c->t_done_ns);
	writer_publish(s->w);
	return 0;
}

int import_sink_command(struct import_sink *s, const struct import_cmd *c)
{
	struct tpm_cmd dc;
	struct tpm_rsp dr;
	int rc = sink_begin(s);

	if (rc)
		return rc;
	if (!c->cmd)
		return sink_command_nobytes(s, c);
	tpm_cmd_decode(c->cmd, c->cmd_len, &dc);
	if (c->rsp)
		tpm_rsp_decode(c->rsp, c->rsp_len, dc.info ? dc.cc : 0, &dr);
	struct rec *r = writer_reserve(s->w, REC_COMMAND, (uint32_t)(c->cmd_len + c->rsp_len));
	if (!r)
		return -ENOBUFS;
	r->t_submit = c->t_submit_ns;
	r->t_done = c->rsp ? c->t_done_ns : 0;
	r->locality = c->locality < 0 ? 0 : (uint8_t)c->locality;
	r->client_id = c->client_id;
	r->flags = c->flags;
	rec_fill_decoded(r, &dc, c->cmd_len, c->rsp ? &dr : NULL, c->rsp_len);
	r->cmd_len = (uint32_t)c->cmd_len;
	r->rsp_len = (uint32_t)c->rsp_len;
	if (c->cmd_len)
		memcpy(r->payload, c->cmd, c->cmd_len);
	if (c->rsp_len)
		memcpy(r->payload + c->cmd_len, c->rsp, c->rsp_len);
	s->commands++;
	if (r->flags & REC_F_MALFORMED)
		s->malformed++;
	if (r->flags & REC_F_NO_RESPONSE)
		s->no_response++;
	if (r->flags & REC_F_SYNTHETIC_TIME)
		s->synthetic = 1;
	sink_time(s, c->t_submit_ns);
	if (c->rsp)
		sink_time(s, c->t_done_ns);
	writer_publish(s->w);
	return 0;
}

int import_sink_event(struct import_sink *s, uint64_t t_ns, const char *kind, const char *detail,
		      uint32_t client_id)
{
	int rc = sink_begin(s);
	if (rc)
		return rc;
	rc = writer_event(s->w, t_ns, kind, detail, client_id);
	if (!rc) {
		s->events++;
		sink_time(s, t_ns);
	}
	return rc;
}

void import_sink_note(struct import_sink *s, const char *fmt, ...)
{
	size_t n = strlen(s->notes);
	va_list ap;
	if (n && n + 2 < sizeof s->notes) {
		strcpy(s->notes + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(s->notes + n, sizeof s->notes - n, fmt, ap);
	va_end(ap);
}

/* Drains the writer and closes the trace row; returns 0 or -EIO. */
static int sink_end(struct import_sink *s, int failed)
{
	int rc = 0;
	snprintf(s->status, sizeof s->status, "%s", failed ? "incomplete" : "complete");
	if (!s->w)
		return 0;
	rc = writer_stop(s->w, s->status, &s->final);
	s->w = NULL;
	if (s->final.dropped) {
		snprintf(s->status, sizeof s->status, "incomplete");
		db_trace_end(s->db, s->trace_id, s->final.commands, s->final.events,
			     s->final.dropped, s->status);
		rc = rc ? rc : -EIO;
	}
	if (s->notes[0]) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(s->db, "UPDATE trace SET notes=? WHERE id=?", -1, &st,
				       NULL) == SQLITE_OK) {
			sqlite3_bind_text(st, 1, s->notes, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 2, s->trace_id);
			if (sqlite3_step(st) != SQLITE_DONE)
				rc = rc ? rc : -EIO;
			sqlite3_finalize(st);
		}
	}
	return rc;
}

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
	int rc = log_map_file(file, o->follow, &m, &len, NULL, err, errlen);
	if (rc)
		return rc;
	/* A first pass finds bad input before any row is written, so a file that
	 * does not parse leaves no trace behind; both passes read one mapping. */
	rc = swlog_parse_mem(m ? m : "", len, file, &check, NULL, &st, err, errlen);
	if (!rc)
		rc = swlog_parse_mem(m ? m : "", len, file, &ops, s, &st, err, errlen);
	log_unmap_file(m, len);
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
	int rc = log_map_file(file, o->follow, &m, &len, NULL, err, errlen);
	if (rc)
		return rc;
	/* Checked whole first, as for the other kinds: bad input leaves no trace. */
	rc = ftrace_parse_mem(m ? m : "", len, file, NULL, NULL, &st, err, errlen);
	if (!rc && st.ops > st.unattributed)
		rc = ftrace_parse_mem(m ? m : "", len, file, ftrace_on_op, &x, &st, err, errlen);
	log_unmap_file(m, len);
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

/* ---- the importer table ----
 * One entry per KIND. To add one (ima, tcglog, swtpm-log, ftrace): write
 * `static int import_KIND(struct import_sink *, const char *file,
 * const struct import_opts *, char *err, size_t errlen)` that parses the file
 * (the parser itself belongs in recorder/) and calls import_sink_command /
 * import_sink_event / import_sink_client, then add a line here and a line to
 * the usage text's KIND list. Kind-specific options go into struct import_opts. */
static const struct importer importers[] = {
    {"pcap", "pcap or pcapng capture of TPM TCP traffic (raw, MS simulator framing)", "full",
     import_pcap},
    {"swtpm-log", "swtpm --log level=20 hex dumps", "full", import_swtpm_log},
    {"ftrace", "ftrace function_graph text of the kernel's TPM functions", "none", import_ftrace},
    /* ima and tcglog: import_logs.c, dispatched in run_import() */
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
	printf("%s: trace %" PRId64 " (%s): %" PRIu64 " commands (%" PRIu64 " malformed, %" PRIu64
	       " without response), %" PRIu64 " events, %" PRIu64 " clients, span %.3f ms%s\n",
	       s->file, s->trace_id, s->status, s->commands, s->malformed, s->no_response,
	       s->events, s->clients, span_ms, s->synthetic ? ", synthetic timestamps" : "");
}

static void print_json(const struct import_sink *s, const char *kind, const char *error, int first)
{
	printf("%s\n    {\"file\": ", first ? "" : ",");
	json_str(stdout, s->file);
	printf(", \"kind\": ");
	json_str(stdout, kind);
	if (error) {
		printf(", \"error\": ");
		json_str(stdout, error);
	}
	if (s->trace_id > 0)
		printf(", \"trace_id\": %" PRId64 ", \"status\": \"%s\"", s->trace_id, s->status);
	printf(", \"commands\": %" PRIu64 ", \"malformed\": %" PRIu64 ", \"no_response\": %" PRIu64
	       ", \"events\": %" PRIu64 ", \"clients\": %" PRIu64 ", \"first_ns\": %" PRIu64
	       ", \"last_ns\": %" PRIu64 ", \"span_ns\": %" PRIu64 ", \"synthetic_time\": %s",
	       s->commands, s->malformed, s->no_response, s->events, s->clients, s->t_first,
	       s->t_last, s->t_last - s->t_first, s->synthetic ? "true" : "false");
	if (s->notes[0]) {
		printf(", \"notes\": ");
		json_str(stdout, s->notes);
	}
	printf("}");
}

/* ---- the subcommand ---- */

/* The IMA and TCG log importers parse their own options (import_logs.c);
 * the first word that is not an option or its value names the KIND. */
static const char *first_word(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--db") || !strcmp(argv[i], "--name") ||
		    !strcmp(argv[i], "--port") || !strcmp(argv[i], "--kernel-rule") ||
		    !strcmp(argv[i], "--banks") || !strcmp(argv[i], "--format") ||
		    !strcmp(argv[i], "--list-alg") || !strcmp(argv[i], "--idle-gap")) {
			i++;
			continue;
		}
		if (argv[i][0] != '-')
			return argv[i];
	}
	return "";
}

/* Ctrl-C, SIGTERM, SIGHUP: the importer stops at its next step and its
 * trace is closed 'incomplete' like any failed import, never left
 * 'recording'. (No SA_RESTART: a read waiting on a FIFO returns.) */
static void on_stop(int sig)
{
	(void)sig;
	log_stop_requested = 1;
}

void import_catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_stop};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int run_import(int argc, char **argv)
{
	const char *kind = first_word(argc, argv);
	import_catch_signals();
	if (!strcmp(kind, "ima") || !strcmp(kind, "tcglog")) {
		/* Hand over with KIND as argv[0], removed from the rest. */
		char **av = calloc((size_t)argc, sizeof(char *));
		int ac = 0, ret;
		if (!av)
			return die("import", "out of memory");
		av[ac++] = (char *)kind;
		for (int i = 1; i < argc; i++)
			if (argv[i] != kind)
				av[ac++] = argv[i];
		ret = !strcmp(kind, "ima") ? import_ima_main(ac, av) : import_tcglog_main(ac, av);
		free(av);
		return ret;
	}
	static const struct option lo[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"name", required_argument, NULL, 'n'},
	    {"port", required_argument, NULL, 'p'},
	    {"json", no_argument, NULL, 'j'},
	    {"follow", no_argument, NULL, 'f'},
	    {"idle-gap", required_argument, NULL, 'g'},
	    {NULL, 0, NULL, 0},
	};
	struct import_opts o = {.port = PCAP_IMPORT_DEFAULT_PORT};
	char err[512];
	sqlite3 *db = NULL;
	int c, failed = 0;
	uint64_t tot_cmd = 0, tot_mal = 0, tot_ev = 0, t0 = mono_ns();

	/* GNU getopt permutes: options may follow the operands. */
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:n:p:jfg:", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.db = optarg;
			break;
		case 'n':
			o.name = optarg;
			break;
		case 'p': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !v || v > 65534)
				return usage_error(&subcmd_import,
						   "--port %s: not a TCP port below 65535", optarg);
			o.port = (unsigned)v;
			break;
		}
		case 'j':
			o.json = 1;
			break;
		case 'f':
			o.follow = 1;
			break;
		case 'g': {
			char *end;
			o.idle_gap_s = strtod(optarg, &end);
			if (*end || end == optarg || !(o.idle_gap_s > 0) || o.idle_gap_s > 1e9)
				return usage_error(&subcmd_import,
						   "--idle-gap takes seconds above 0, not '%s'",
						   optarg);
			break;
		}
		default:
			return usage_error(&subcmd_import, "unknown option");
		}
	}
	char **ops = argv + optind;
	int nops = argc - optind;
	int ret = 0;
	if (nops < 1) {
		ret = usage_error(&subcmd_import,
				  "which KIND of file? (pcap, ima, tcglog, swtpm-log, ftrace)");
		goto out;
	}
	const struct importer *imp = importer_find(ops[0]);
	if (!imp) {
		ret = usage_error(&subcmd_import, "unknown KIND '%s'", ops[0]);
		goto out;
	}
	if (nops < 2) {
		ret = usage_error(&subcmd_import, "no FILE to import");
		goto out;
	}
	if (!o.db) {
		ret = usage_error(&subcmd_import, "--db DB is required");
		goto out;
	}
	if (db_open(o.db, DB_CREATE, &db, err, sizeof err)) {
		ret = die("import", "%s", err);
		goto out;
	}
	sqlite3_busy_timeout(db, 10000);
	if (o.json)
		printf("{\"version\": 1, \"imports\": [");
	for (int i = 1; i < nops; i++) {
		struct import_sink s;
		memset(&s, 0, sizeof(s));
		s.o = &o;
		s.file = ops[i];
		s.payloads = imp->payloads;
		s.db = db;
		if (o.name) {
			snprintf(s.name, sizeof s.name, "%s", o.name);
		} else {
			char *tmp = strdup(ops[i]);
			snprintf(s.name, sizeof s.name, "%s", tmp ? basename(tmp) : ops[i]);
			free(tmp);
		}
		err[0] = 0;
		int rc = imp->run(&s, ops[i], &o, err, sizeof err);
		int erc = sink_end(&s, rc != 0);
		if (!rc && erc) {
			rc = erc;
			snprintf(err, sizeof err, "%s: %s: records were lost writing to %s", ops[i],
				 strerror(-erc), o.db);
		}
		if (rc) {
			failed++;
			fprintf(stderr, "tpmtrace import: %s\n", err[0] ? err : "import failed");
		}
		if (o.json)
			print_json(&s, imp->kind, rc ? err : NULL, i == 1);
		else if (s.trace_id > 0)
			print_text(&s);
		tot_cmd += s.commands;
		tot_mal += s.malformed;
		tot_ev += s.events;
	}
	uint64_t dt = mono_ns() - t0;
	if (o.json)
		printf("\n  ], \"files\": %d, \"failed\": %d, \"commands\": %" PRIu64
		       ", \"malformed\": %" PRIu64 ", \"events\": %" PRIu64
		       ", \"elapsed_ns\": %" PRIu64 "}\n",
		       nops - 1, failed, tot_cmd, tot_mal, tot_ev, dt);
	else if (nops > 2)
		printf("%d files (%d failed): %" PRIu64 " commands, %" PRIu64 " malformed, %" PRIu64
		       " events in %.3f s\n",
		       nops - 1, failed, tot_cmd, tot_mal, tot_ev, (double)dt / 1e9);
	ret = failed ? 1 : 0;
out:
	db_close(db);
	return ret;
}

const struct subcommand subcmd_import = {
    "import",
    run_import,
    "import existing traces (pcap/pcapng, IMA lists, TCG event logs, swtpm logs, ftrace)",
    "usage: tpmtrace import pcap FILE... --db DB [--name NAME] [--port N] [--json]\n"
    "                           [--idle-gap SECONDS] [--follow]\n"
    "       tpmtrace import ima FILE... --db DB [--name NAME] [--kernel-rule RULE]\n"
    "                           [--banks LIST] [--format F] [--list-alg ALG] [--strict]\n"
    "                           [--quiet] [--follow]\n"
    "       tpmtrace import tcglog FILE... --db DB [--name NAME] [--strict] [--quiet]\n"
    "                           [--follow]\n"
    "       tpmtrace import swtpm-log FILE... --db DB [--name NAME] [--json] [--follow]\n"
    "       tpmtrace import ftrace FILE... --db DB [--name NAME] [--json] [--follow]\n"
    "\n"
    "Imports TPM traffic that was recorded by something else. Each FILE becomes one\n"
    "trace (kind 'import', source FILE) with one row per command, decoded like a live\n"
    "recording: command and response codes, sizes, handles, sessions, authorization\n"
    "kind, PCR index, flags and the reason a message did not parse. Payloads are\n"
    "stored in full. A file that cannot be read, is truncated or holds no TPM traffic\n"
    "is reported (naming the packet and byte offset) and leaves no trace behind.\n"
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
    "              (flag 16). An 'ftrace' event names the function and line.\n"
    "\n"
    "Options:\n"
    "  --db DB       database file (created if missing)\n"
    "  --name NAME   trace name (default: the file's base name)\n"
    "  --port N      pcap: the TPM's TCP port (default 2321; N+1 is the platform port)\n"
    "  --idle-gap SECONDS  pcap: a TCP connection without packets this long (capture\n"
    "                time) is over, as one that ended with FIN or RST (default 300).\n"
    "                The importer holds at most 65,536 connections open at once\n"
    "                (64 MiB of their bytes); a capture that needs more is refused\n"
    "  --follow      read a FIFO or character device to its end (at most 1 GiB);\n"
    "                without it they are refused\n"
    "  --json        pcap, swtpm-log, ftrace: print the summary as JSON\n"
    "  --kernel-rule RULE  ima: per-bank (Linux >= 5.8, default), padded-sha1\n"
    "                (4.10-5.7), sha1-only (older)\n"
    "  --banks LIST  ima: PCR banks of the TPM (default sha1,sha256)\n"
    "  --format F    ima: auto (default), binary, ascii\n"
    "  --list-alg ALG  ima: digest of the list (default: file name suffix, else detected)\n"
    "  --strict      ima, tcglog: a truncated last record (ima: also a template hash\n"
    "                mismatch) is an error: exit 1, trace status 'incomplete'\n"
    "  --quiet       ima, tcglog: no summary line\n"
    "  -h, --help    this text\n"
    "\n"
    "Prints per file: trace id, commands, malformed, events, clients, time span.\n"
    "Exit status: 0 all files imported, 1 a file failed, 2 usage error.\n"
    "\n"
    "Example:\n"
    "  tpmtrace import pcap tpm2_log.pcap capture2.pcapng --db traces.db\n"
    "  tpmtrace import pcap --port 2321 --json mssim.pcap --db traces.db\n"
    "  tpmtrace import tcglog /sys/kernel/security/tpm0/binary_bios_measurements --db boot.db\n"
    "  tpmtrace import ima /sys/kernel/security/ima/binary_runtime_measurements --db boot.db\n"
    "  tpmtrace import swtpm-log /var/log/swtpm/vm1.log --db vm1.db\n"
    "  tpmtrace import ftrace trace.txt --db boot.db\n",
};
