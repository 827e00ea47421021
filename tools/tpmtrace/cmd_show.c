/* tpmtrace show: one decoded line per command and event, filtered; or one
 * command and its response explained field by field (-V). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/decode.h"
#include "db/writer.h"
#include "model/tpm/params.h"
#include "model/trace_query.h"

enum {
	O_TRACE = 256,
	O_LIMIT,
	O_CC,
	O_RC,
	O_CLIENT,
	O_SEQ,
	O_SLOWER,
	O_JSON,
	O_WIDE,
	O_VERBOSE = 'V'
};
static const struct cli_opt opts[] = {
    {"trace", O_TRACE, "ID", CLI_TRACE, CLI_TRACE_HELP},
    {"limit", O_LIMIT, "N", CLI_NUM, "at most N lines", NULL, 1, 1000000000},
    {"cc", O_CC, "NAME[,NAME]", 0,
     "only these command codes: names as in the command\ntable (case-insensitive) or hex codes "
     "(0x182)"},
    {"rc", O_RC, "ok|error|HEX", 0,
     "only commands answered with success, with an\nerror, or with this response code (hex)"},
    {"client", O_CLIENT, "ID|NAME|pid:N", 0,
     "only this client: its number (the c column), its\nprogram name (the clients named so, else "
     "those whose\nname begins so) or its process id"},
    {"seq", O_SEQ, "A-B|N", 0, "only sequence numbers A to B, or N"},
    {"slower-than", O_SLOWER, "MS", CLI_REAL, "only commands with a latency above MS milliseconds",
     NULL, 0, 1000000000},
    {"json", O_JSON, NULL, 0, "one JSON object (\"version\": 1)"},
    {"wide", O_WIDE, NULL, 0,
     "fixed columns and the whole response code text\n(lines longer than 100 columns)"},
    {"verbose", O_VERBOSE, NULL, 0,
     "each command the filters keep and its response\nexplained field by field (as tshark -V)"},
};
static const struct cli_form forms[] = {{0, "DB", NULL}};

static int run(int argc, char **argv);
const struct subcommand subcmd_show = {
    "show",
    run,
    "one decoded line per command, or explained field by field",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "One line per command in order: sequence number, time since the first command\n"
    "(seconds), command name, handles, sessions (handle and attributes: c continue,\n"
    "d decrypt, e encrypt, a audit), PCR, client, latency and response code text\n"
    "(cut to 100 columns; --wide: fixed columns, text whole, latency last); in a\n"
    "replay, '+' before the name marks a command the policy added (-V: \"added by\n"
    "policy P\");\n"
    "control events (ctrl:INIT, platform:POWER_ON, backend-lost, ...) as '--' lines.\n"
    "The filters combine (all must hold); with any filter but --seq, events are\n"
    "left out. With -V, each command kept (--seq N: that one) and its response are\n"
    "explained field by field: header, handles, authorization areas, parameters by\n"
    "name (TPM 2.0 Part 3) or hex; redacted fields are shown as <redacted>.\n",
    "When the filters keep nothing, stderr says so and the exit status is 0; 1 for\n"
    "an error (-V --seq N of no command, a --client the trace does not have), 2 for\n"
    "a usage error.\n",
    "tpmtrace show tpmtrace-demo.db | less\n"
    "tpmtrace show demo.db --cc PCR_Extend,0x17e --rc ok --limit 5\n"
    "tpmtrace show demo.db --slower-than 1 --json\n"
    "tpmtrace show demo.db --seq 2 -V\n"
    "tpmtrace show demo.db --cc Unseal,GetRandom -V --limit 2\n",
};

struct show {
	const char *trace_arg;
	struct trace_query_args a;
	struct trace_query q; /* the filters (model/trace_query.h) */
	long limit;
	int json, verbose, wide;
	char policy[64];  /* the trace's replay policy, for the commands it added */
	struct json_w *w; /* --json: the writer on stdout */
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

static int parse(struct show *s, int argc, char **argv, const char **dbpath)
{
	int k;
	struct cli_parse p;
	cli_parse_init(&p, &subcmd_show, argc, argv);
	while ((k = cli_next(&p)) > 0) {
		switch (k) {
		case O_TRACE:
			s->trace_arg = p.arg;
			break;
		case O_LIMIT:
			s->limit = (long)p.num;
			break;
		case O_CC:
			s->a.cc = p.arg;
			break;
		case O_RC:
			s->a.rc = p.arg;
			break;
		case O_CLIENT:
			s->a.client = p.arg;
			break;
		case O_SEQ:
			s->a.seq = p.arg;
			break;
		case O_SLOWER:
			s->a.slower_ms = p.real, s->a.has_slower = 1;
			break;
		case O_JSON:
			s->json = 1;
			break;
		case O_WIDE:
			s->wide = 1;
			break;
		case O_VERBOSE:
			s->verbose = 1;
			break;
		}
	}
	if (k < 0)
		return EXIT_USAGE;
	if (!(*dbpath = cli_db_operand(&p)))
		return EXIT_USAGE;
	char err[256];
	if (trace_query_build(&s->q, &s->a, err, sizeof err))
		return cli_usage_error(&subcmd_show, "%s", err);
	return 0;
}

/* ---- -V ---- */

/* One line of -V: a field longer than 100 columns (a blob in hex) goes on
 * in chunks on the lines after it, indented 4 more. */
static void print_field_line(int indent, const char *line)
{
	int room = DB_TEXT_WIDTH - indent;
	size_t len = strlen(line);
	if (room < 32)
		room = 32;
	printf("%*s%.*s\n", indent, "", (int)(len < (size_t)room ? len : (size_t)room), line);
	for (size_t o = (size_t)room; o < len; o += (size_t)(room - 4))
		printf("%*s%.*s\n", indent + 4, "", room - 4, line + o);
}

struct explain_out {
	struct json_w *w; /* --json, or NULL */
};

static void field_out(void *ctx, const struct tpm_field *f)
{
	struct explain_out *o = ctx;
	char small[512], *line = small;
	int n = tpm_field_format(f, small, sizeof small);
	if (n >= (int)sizeof small && (line = malloc((size_t)n + 1)))
		tpm_field_format(f, line, (size_t)n + 1);
	if (!line)
		line = small;
	if (o->w) {
		json_begin_object(o->w);
		json_kuint(o->w, "depth", f->depth);
		json_kstr(o->w, "name", f->name ? f->name : "");
		json_kbool(o->w, "redacted", f->kind == TPM_F_REDACTED);
		json_kstr(o->w, "text", line);
		json_end_object(o->w);
	} else {
		print_field_line(4 * (int)(f->depth + 1), line);
	}
	if (line != small)
		free(line);
}

/* One command of the row st and its response, field by field. */
static void explain_one(sqlite3_stmt *st, int64_t id, const struct show *s, int first)
{
	uint32_t cc = (uint32_t)sqlite3_column_int64(st, TQX_CC);
	long long seq = sqlite3_column_int64(st, TQX_SEQ);
	const char *name = tpm_cc_name(cc);
	int redacted = sqlite3_column_int(st, TQX_FLAGS) & 1;
	const uint8_t *cmd = sqlite3_column_blob(st, TQX_CMD);
	size_t cmd_len = (size_t)sqlite3_column_bytes(st, TQX_CMD);
	const uint8_t *rsp = sqlite3_column_blob(st, TQX_RSP);
	size_t rsp_len = (size_t)sqlite3_column_bytes(st, TQX_RSP);
	char comm[128];
	db_text_safe((const char *)sqlite3_column_text(st, TQX_COMM), comm, sizeof comm);
	struct explain_out o = {s->w};
	if (s->w) {
		json_begin_object(s->w);
		json_kint(s->w, "seq", seq);
		json_kuint(s->w, "cc", cc);
		json_kstr(s->w, "name", name ? name : "");
		json_kbool(s->w, "redacted", redacted);
		json_key(s->w, "command");
		json_begin_array(s->w);
	} else {
		char added[96] = "";
		if (sqlite3_column_int(st, TQX_FLAGS) & REC_F_POLICY)
			snprintf(added, sizeof added, ", added by policy %s", s->policy);
		printf("%sCommand: seq %lld, trace %lld, client %d (%s)%s, %s (0x%08X)%s\n",
		       first ? "" : "\n", seq, (long long)id, sqlite3_column_int(st, TQX_CLIENT),
		       sqlite3_column_type(st, TQX_COMM) == SQLITE_NULL ? "none" : comm, added,
		       name ? name : "unknown", cc, redacted ? ", redacted" : "");
	}
	if (cmd)
		tpm_explain_cmd(cmd, cmd_len, redacted, field_out, &o);
	else if (!s->json)
		printf("    (bytes not stored: the trace's payloads are none)\n");
	if (s->w) {
		json_end_array(s->w);
		json_key(s->w, "response");
		json_begin_array(s->w);
	} else if (sqlite3_column_type(st, TQX_RC) == SQLITE_NULL)
		printf("Response: none\n");
	else if (sqlite3_column_type(st, TQX_LATENCY_NS) != SQLITE_NULL)
		printf("Response: latency %.3f ms\n",
		       cli_ns_to_ms(sqlite3_column_double(st, TQX_LATENCY_NS)));
	else
		printf("Response:\n");
	if (rsp)
		tpm_explain_rsp(rsp, rsp_len, cmd, cmd_len, redacted, field_out, &o);
	else if (!s->json && sqlite3_column_type(st, TQX_RC) != SQLITE_NULL)
		printf("    (bytes not stored: the trace's payloads are none)\n");
	if (s->w) {
		json_end_array(s->w);
		json_end_object(s->w);
	}
}

/* A read that stopped at an error (SQLITE_BUSY, IOERR, CORRUPT): the output
 * so far is short, so the command fails with sqlite's message. */
static int read_failed(sqlite3 *db, sqlite3_stmt *st, int64_t id)
{
	fflush(stdout);
	cli_error("show", "reading trace %lld: %s", (long long)id, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return 1;
}

/* Nothing kept: said on stderr, so that an empty answer is not taken for
 * an empty trace or a typo; the exit status stays 0 (the question was
 * answered; the examples and scripts that filter rely on it), as for
 * sqlite3 and jq. */
static int nothing_matched(int64_t id, const struct show *s)
{
	if (!s->q.where[0] && !s->q.has_seq)
		fprintf(stderr, "tpmtrace show: trace %lld has no commands or events\n",
			(long long)id);
	else
		fprintf(stderr, "tpmtrace show: trace %lld: nothing matches the filters\n",
			(long long)id);
	return 0;
}

/* -V: every command the filters keep, explained. */
static int explain(sqlite3 *db, int64_t id, const struct show *s)
{
	char err[512];
	sqlite3_stmt *st = trace_query_explain(db, id, &s->q, err, sizeof err);
	if (!st)
		return cli_error("show", "%s", err);
	long n = 0;
	int src = SQLITE_DONE;
	if (s->w) {
		json_begin_object(s->w);
		json_kint(s->w, "version", 1);
		json_kint(s->w, "trace", id);
		json_key(s->w, "commands");
		json_begin_array(s->w);
	}
	while ((s->limit < 0 || n < s->limit) && (src = sqlite3_step(st)) == SQLITE_ROW)
		explain_one(st, id, s, n++ == 0);
	if (src != SQLITE_ROW && src != SQLITE_DONE)
		return read_failed(db, st, id);
	if (s->w) {
		json_end_array(s->w);
		json_end_object(s->w);
		json_newline(s->w);
	}
	sqlite3_finalize(st);
	if (!n && s->q.has_seq && s->q.seq_a == s->q.seq_b)
		return cli_error("show", "trace %lld has no command with seq %lld", (long long)id,
				 (long long)s->q.seq_a);
	return n ? 0 : nothing_matched(id, s);
}

/* ---- the list ---- */

/* A command's line, cut to 100 columns (characters: a UTF-8 sequence counts
 * as one and is never split) with "..." (--wide has fixed columns instead). */
static void print_cut(const char *line)
{
	size_t cols = 0, cut = 0;
	for (size_t i = 0; line[i]; i++)
		if (((unsigned char)line[i] & 0xc0) != 0x80 && ++cols == 98)
			cut = i;
	if (cols <= DB_TEXT_WIDTH)
		printf("%s\n", line);
	else
		printf("%.*s...\n", (int)cut, line);
}

static void print_event(sqlite3_stmt *st, int64_t seq, double rel, const struct show *s)
{
	const char *kind = (const char *)sqlite3_column_text(st, TQ_EV_KIND);
	const char *detail = (const char *)sqlite3_column_text(st, TQ_EV_DETAIL);
	if (s->w) {
		json_begin_object(s->w);
		json_kstr(s->w, "type", "event");
		json_kint(s->w, "seq", seq);
		json_kdouble(s->w, "t", rel, 9);
		json_kstr(s->w, "kind", kind ? kind : "");
		json_kstr(s->w, "detail", detail);
		json_end_object(s->w);
		return;
	}
	/* Event kinds and details come from files (IMA file names, TCG event
	 * text): escaped. */
	char kb[256], db_[4096], lead[48], text[4400];
	snprintf(lead, sizeof lead, "%6lld %10.6f  -- ", (long long)seq, rel);
	int n = snprintf(text, sizeof text, "%s%s%s", db_text_safe(kind, kb, sizeof kb),
			 detail ? " " : "", db_text_safe(detail, db_, sizeof db_));
	size_t len = n < (int)sizeof text ? (size_t)n : sizeof text - 1;
	/* 100 columns: an event's text (an IMA entry's file name last) is
	 * wrapped, not cut; --wide keeps it on one line. */
	if (s->wide)
		printf("%s%s\n", lead, text);
	else
		db_text_wrap(stdout, lead, 21, text, len, DB_TEXT_WIDTH);
}

static void json_int_or_null(struct json_w *w, const char *key, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		json_knull(w, key);
	else
		json_kint(w, key, sqlite3_column_int64(st, col));
}

static void print_command_json(struct json_w *w, sqlite3_stmt *st, int64_t seq, double rel)
{
	uint32_t cc = (uint32_t)sqlite3_column_int64(st, TQ_CC);
	const char *name = tpm_cc_name(cc);
	json_begin_object(w);
	json_kstr(w, "type", "command");
	json_kint(w, "seq", seq);
	json_kdouble(w, "t", rel, 9);
	json_kuint(w, "cc", cc);
	json_kstr(w, "name", name ? name : "");
	json_key(w, "handles");
	json_begin_array(w);
	for (int h = 0; h < 3 && sqlite3_column_type(st, TQ_HANDLE1 + h) != SQLITE_NULL; h++)
		json_int(w, sqlite3_column_int64(st, TQ_HANDLE1 + h));
	json_end_array(w);
	json_int_or_null(w, "n_sessions", st, TQ_N_SESSIONS);
	json_int_or_null(w, "sess_handle", st, TQ_SESS_HANDLE);
	json_int_or_null(w, "sess_attrs", st, TQ_SESS_ATTRS);
	json_int_or_null(w, "pcr", st, TQ_PCR);
	json_int_or_null(w, "client", st, TQ_CLIENT);
	json_int_or_null(w, "rc", st, TQ_RC);
	json_int_or_null(w, "latency_ns", st, TQ_LATENCY_NS);
	json_int_or_null(w, "rsp_handle", st, TQ_RSP_HANDLE);
	json_int_or_null(w, "flags", st, TQ_FLAGS);
	json_kstr(w, "malformed", (const char *)sqlite3_column_text(st, TQ_MALFORMED));
	json_end_object(w);
}

/* tpm2-tss's "tpm:error(2.0): TEXT" as "error: TEXT", "tpm:success" as
 * "success": the layer and the spec version say nothing in a trace of TPM
 * responses (-V and --wide have them). */
static const char *short_rc(const char *t, char *b, size_t n)
{
	const char *v = strstr(t, "(2.0)");
	if (strncmp(t, "tpm:", 4))
		return t;
	if (!v || strchr(t + 4, ':') < v)
		return t + 4;
	snprintf(b, n, "%.*s%s", (int)(v - t - 4), t + 4, v + 5);
	return b;
}

static void print_command(sqlite3_stmt *st, int64_t seq, double rel, int wide)
{
	uint32_t cc = (uint32_t)sqlite3_column_int64(st, TQ_CC);
	/* '+' before the name: a command the replay's policy added */
	char mark = sqlite3_column_int64(st, TQ_FLAGS) & REC_F_POLICY ? '+' : ' ';
	char namebuf[16], hbuf[64] = "", sbuf[48] = "", extra[48] = "";
	const char *name = tpm_cc_label(cc, namebuf, sizeof namebuf);
	for (int h = 0; h < 3; h++) {
		if (sqlite3_column_type(st, TQ_HANDLE1 + h) == SQLITE_NULL)
			break;
		size_t l = strlen(hbuf);
		snprintf(hbuf + l, sizeof hbuf - l, "%s0x%08llX", h ? "," : "",
			 (unsigned long long)sqlite3_column_int64(st, TQ_HANDLE1 + h));
	}
	int ns = sqlite3_column_int(st, TQ_N_SESSIONS);
	if (ns) {
		char a[8];
		attrs_str((uint32_t)sqlite3_column_int64(st, TQ_SESS_ATTRS) & 0xff, a);
		snprintf(sbuf, sizeof sbuf, "s=0x%08llX/%s%s",
			 (unsigned long long)sqlite3_column_int64(st, TQ_SESS_HANDLE), a,
			 ns > 1 ? "+" : "");
	}
	if (sqlite3_column_type(st, TQ_PCR) != SQLITE_NULL)
		snprintf(extra, sizeof extra, "pcr=%d", sqlite3_column_int(st, TQ_PCR));
	else if (sqlite3_column_type(st, TQ_RSP_HANDLE) != SQLITE_NULL)
		snprintf(extra, sizeof extra, "-> 0x%08llX",
			 (unsigned long long)sqlite3_column_int64(st, TQ_RSP_HANDLE));
	char malbuf[256];
	const char *mal = sqlite3_column_text(st, TQ_MALFORMED)
			      ? db_text_safe((const char *)sqlite3_column_text(st, TQ_MALFORMED),
					     malbuf, sizeof malbuf)
			      : NULL;
	const char *rctext = sqlite3_column_type(st, TQ_RC) == SQLITE_NULL
				 ? "(no response)"
				 : tpm_rc_str((uint32_t)sqlite3_column_int64(st, TQ_RC));
	if (wide) {
		printf("%6lld %11.6f %c%-22s %-23s %-20s %-13s c%-3d %-30s", (long long)seq, rel,
		       mark, name, hbuf, sbuf, extra, sqlite3_column_int(st, TQ_CLIENT),
		       mal ? mal : rctext);
		if (sqlite3_column_type(st, TQ_LATENCY_NS) != SQLITE_NULL)
			printf(" %9.3f ms\n",
			       cli_ns_to_ms(sqlite3_column_double(st, TQ_LATENCY_NS)));
		else
			printf("\n");
		return;
	}
	/* 100 columns: handles, session and extra joined; the latency before
	 * the response code text, which is cut to what is left (-V and --wide
	 * give it whole). */
	char detail[168], lat[24] = "-";
	snprintf(detail, sizeof detail, "%s%s%s%s%s", hbuf, *hbuf && *sbuf ? " " : "", sbuf,
		 (*hbuf || *sbuf) && *extra ? " " : "", extra);
	if (sqlite3_column_type(st, TQ_LATENCY_NS) != SQLITE_NULL)
		snprintf(lat, sizeof lat, "%.3f ms",
			 cli_ns_to_ms(sqlite3_column_double(st, TQ_LATENCY_NS)));
	if (*detail)
		strcat(detail, " ");
	char rb[256], line[600];
	const char *t = mal ? mal : short_rc(rctext, rb, sizeof rb);
	snprintf(line, sizeof line, "%6lld %10.6f%c%-16s c%-3d %10s  %-*s%s", (long long)seq, rel,
		 mark, name, sqlite3_column_int(st, TQ_CLIENT), lat, *detail ? 27 : 0, detail, t);
	print_cut(line);
}

static int list(sqlite3 *db, int64_t id, const struct show *s)
{
	char err[512];
	sqlite3_stmt *st = trace_query_list(db, id, &s->q, err, sizeof err);
	if (!st)
		return cli_error("show", "%s", err);
	int64_t t0 = trace_query_first_time(db, id);
	long n = 0;
	int src = SQLITE_DONE;
	if (s->w) {
		json_begin_object(s->w);
		json_kint(s->w, "version", 1);
		json_kint(s->w, "trace", id);
		json_key(s->w, "rows");
		json_begin_array(s->w);
	}
	while ((s->limit < 0 || n < s->limit) && (src = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(st, TQ_SEQ),
			t = sqlite3_column_int64(st, TQ_T_NS);
		double rel = t0 < 0 || sqlite3_column_type(st, TQ_T_NS) == SQLITE_NULL
				 ? 0
				 : (double)(t - t0) / 1e9;
		if (sqlite3_column_int(st, TQ_IS_EVENT) == 1)
			print_event(st, seq, rel, s);
		else if (s->w)
			print_command_json(s->w, st, seq, rel);
		else
			print_command(st, seq, rel, s->wide);
		n++;
	}
	if (src != SQLITE_ROW && src != SQLITE_DONE)
		return read_failed(db, st, id);
	if (s->w) {
		json_end_array(s->w);
		json_end_object(s->w);
		json_newline(s->w);
	}
	sqlite3_finalize(st);
	return n ? 0 : nothing_matched(id, s);
}

/* --client names no client of the trace: an error naming its clients (as
 * many names as fit one line), as an unknown --trace is. 1 if known. */
static int client_known(sqlite3 *db, int64_t id, const struct show *s)
{
	char names[256], safe[96];
	if (trace_query_client_known(db, id, &s->q))
		return 1;
	trace_query_client_names(db, id, names, sizeof names);
	cli_error("show", "trace %lld has no client '%s' (%s%s)", (long long)id,
		  db_text_safe(s->a.client, safe, sizeof safe),
		  names[0] ? "its clients: " : "it has none", names);
	return 0;
}

static int run(int argc, char **argv)
{
	struct show s = {.limit = -1};
	const char *dbpath = NULL;
	int ret = parse(&s, argc, argv, &dbpath);
	if (ret)
		return ret;
	sqlite3 *db = cli_open_db("show", dbpath, 0);
	if (!db)
		return 1;
	struct json_w jw;
	json_init_file(&jw, stdout, JSON_COMPACT);
	s.w = s.json ? &jw : NULL;
	int64_t id = cli_pick_trace("show", db, s.trace_arg);
	trace_query_policy(db, id, s.policy, sizeof s.policy);
	ret = !id || (s.a.client && !client_known(db, id, &s)) ? 1
	      : s.verbose				       ? explain(db, id, &s)
							       : list(db, id, &s);
	if (!ret && s.w && json_done(s.w))
		ret = cli_error("show", "the JSON output went wrong");
	sqlite3_close(db);
	return ret;
}
