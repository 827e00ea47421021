/* The importers of `tpmtrace import KIND FILE...` (import_kinds.h): pcap,
 * swtpm logs and ftrace through the import sink; the measurement logs (ima,
 * tcglog) in import_logs.c. */
#include "recorder/import/import_kinds.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/json.h"
#include "db/rec_fill.h"
#include "db/writer.h"
#include "model/tpm/redact.h"
#include "model/tpm/wire.h"
#include "recorder/import/ftrace.h"
#include "recorder/import/log_reader.h"
#include "recorder/import/pcap_import.h"
#include "recorder/import/swtpm_log.h"

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
	    .dc = &x->dc,
	    .dr = x->rsp ? &x->dr : NULL,
	};
	return import_sink_command(ctx, &c);
}

static int pcap_on_event(void *ctx, const struct pcap_tpm_event *e)
{
	return import_sink_event(ctx, e->t_ns, e->kind, e->detail, e->client_id);
}

static int import_pcap(struct import_sink *s, const char *file, const struct import_opts *o,
		       char *err, size_t errlen)
{
	static const struct pcap_import_ops ops = {pcap_on_client, pcap_on_command, pcap_on_event};
	struct pcap_import_cfg cfg = {.tpm_port = (uint16_t)o->port,
				      .follow = o->follow,
				      .idle_gap_ns = (uint64_t)(o->idle_gap_s * 1e9)};
	struct pcap_import_stats st;
	cfg.progress = o->progress;
	cfg.progress_arg = o->progress_arg;
	int rc = pcap_import_file(file, &cfg, &ops, s, &st, err, errlen);

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
 * (the parser itself in its own file of this room) and calls
 * import_sink_command / import_sink_event / import_sink_client, then add a
 * line here, and in tools/tpmtrace/cmd_import.c a mode bit, a synopsis form
 * (K_*, forms[]) and the kind's options in opts[]. */
static const struct importer importers[] = {
    {"pcap", "pcap or pcapng capture of TPM TCP traffic (raw, MS simulator framing)", "redacted",
     sniff_pcap, import_pcap, NULL, 1},
    {"ima", "Linux IMA measurement list", "full", import_ima_sniff, NULL, import_ima_file, 0},
    {"tcglog", "TCG firmware event log", "full", import_tcglog_sniff, NULL, import_tcglog_file, 0},
    {"swtpm-log", "swtpm --log level=20 hex dumps", "redacted", sniff_swtpm_log, import_swtpm_log,
     NULL, 0},
    {"ftrace", "ftrace function_graph text of the kernel's TPM functions", "none", sniff_ftrace,
     import_ftrace, NULL, 0},
};

const struct importer *import_kind_find(const char *kind)
{
	for (size_t i = 0; i < sizeof(importers) / sizeof(importers[0]); i++)
		if (!strcmp(importers[i].kind, kind))
			return &importers[i];
	return NULL;
}

unsigned import_kind_index(const struct importer *imp)
{
	return (unsigned)(imp - importers);
}

int import_kind_file(const struct importer *imp, const struct import_opts *o, const char *file,
		     struct import_sink *s, struct import_log_result *lr, char *err, size_t errlen,
		     int *db_failed)
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

/* One file's object in "imports", on a line of its own. */
void import_kind_json(struct json_w *w, const struct import_sink *s, const char *kind,
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
