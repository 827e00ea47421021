/* The import sink (recorder/import/import_sink.h): import_sink_open prepares a
 * database and import_sink_command, import_sink_event and import_sink_client
 * take what an importer of TPM traffic (pcap, swtpm log, ftrace) finds; the
 * first of them creates the trace (kind import, source the file), so that an
 * input without TPM traffic leaves no trace behind. Commands are decoded and
 * filled like a live recording's (decode.h, rec_fill.h) and queued with their
 * bytes, redacted unless the user asked otherwise, on the batched writer
 * (db/writer.h); a command known only by its code
 * (ftrace) gets no payload. import_sink_note collects warnings and
 * import_sink_close ends the trace with its counts. */
#include "recorder/import/import_sink.h"

#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "db/rec_fill.h"
#include "model/tpm/decode.h"
#include "model/tpm/redact.h"

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
	ti.payloads = tpm_payload_mode_str(s->payloads);
	/* A file made elsewhere (a 2022 pcap, another machine's log): not
	 * this host's identity; none of the formats carries a host's. */
	ti.foreign = 1;
	/* All or nothing: the trace row and every row of it in one
	 * transaction of the writer's, committed by import_sink_close. */
	wc.path = s->db_path;
	wc.whole = 1;
	wc.trace = &ti;
	wc.block_when_full = 1;
	int rc = db_writer_start(&s->w, &wc, s->err, sizeof s->err);
	if (rc)
		s->w = NULL;
	else
		s->trace_id = db_writer_trace_id(s->w);
	return rc;
}

int import_sink_client(struct import_sink *s, uint32_t id, const char *comm, const char *peer,
		       uint64_t first_ns)
{
	int rc = sink_begin(s);
	if (rc)
		return rc;
	size_t cl = strlen(comm ? comm : "") + 1, pl = strlen(peer ? peer : "") + 1;
	struct rec *r = db_writer_reserve(s->w, REC_CLIENT, (uint32_t)(cl + pl));
	if (!r)
		return -ENOBUFS;
	r->client_id = id;
	r->t_submit = first_ns;
	r->cmd_len = (uint32_t)(cl + pl);
	memcpy(r->payload, comm ? comm : "", cl);
	memcpy(r->payload + cl, peer ? peer : "", pl);
	db_writer_publish(s->w);
	s->clients++;
	return 0;
}

/* A command known only by its code and timing (ftrace): no payload; the
 * writer stores tag, sizes and response code as NULL (rec.no_bytes). */
static int sink_command_nobytes(struct import_sink *s, const struct import_cmd *c)
{
	struct rec *r = db_writer_reserve(s->w, REC_COMMAND, 0);
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
	db_writer_publish(s->w);
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
	if (c->dc)
		dc = *c->dc;
	else
		tpm_cmd_decode(c->cmd, c->cmd_len, &dc);
	if (c->rsp && c->dr)
		dr = *c->dr;
	else if (c->rsp)
		tpm_rsp_decode(c->rsp, c->rsp_len, dc.info ? dc.cc : 0, &dr);
	struct rec *r =
	    db_writer_reserve(s->w, REC_COMMAND,
			      db_rec_payload_len(s->payloads, c->cmd_len, c->rsp ? c->rsp_len : 0));
	if (!r)
		return -ENOBUFS;
	r->t_submit = c->t_submit_ns;
	r->t_done = c->rsp ? c->t_done_ns : 0;
	r->locality = c->locality < 0 ? 0 : (uint8_t)c->locality;
	r->client_id = c->client_id;
	r->flags = c->flags;
	db_rec_fill_decoded(r, &dc, c->cmd_len, c->rsp ? &dr : NULL, c->rsp_len);
	db_rec_fill_payload(r, s->payloads, c->cmd, c->cmd_len, &dc, c->rsp, c->rsp_len, &dr);
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
	db_writer_publish(s->w);
	return 0;
}

int import_sink_event(struct import_sink *s, uint64_t t_ns, const char *kind, const char *detail,
		      uint32_t client_id)
{
	int rc = sink_begin(s);
	if (rc)
		return rc;
	rc = db_writer_event(s->w, t_ns, kind, detail, client_id);
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

static int sink_end(struct import_sink *s, int failed)
{
	int rc = 0;
	snprintf(s->status, sizeof s->status, "%s", failed ? "incomplete" : "complete");
	if (!s->w)
		return 0;
	if (failed && !s->keep_partial)
		db_writer_discard(s->w, &s->final);
	else
		rc = db_writer_stop(s->w, s->status, &s->final);
	s->w = NULL;
	if (s->final.rolled_back) {
		/* Nothing of the file was stored, not even its trace row. */
		s->trace_id = 0;
		return failed ? 0 : -EIO;
	}
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

int import_sink_open(struct import_sink *s, const char *db_path, const char *file, const char *name,
		     int payloads, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	s->db_path = db_path;
	s->file = file;
	s->payloads = payloads;
	int rc = db_open(db_path, DB_WRITE, &s->db, err, errlen);
	if (rc)
		return rc;
	sqlite3_busy_timeout(s->db, 10000);
	if (name) {
		snprintf(s->name, sizeof s->name, "%s", name);
	} else {
		char *tmp = strdup(file);
		snprintf(s->name, sizeof s->name, "%s", tmp ? basename(tmp) : file);
		free(tmp);
	}
	return 0;
}

int import_sink_close(struct import_sink *s, int failed)
{
	int rc = sink_end(s, failed);
	db_close(s->db);
	s->db = NULL;
	return rc;
}
