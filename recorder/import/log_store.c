/* Storing measurement logs as TPM commands (recorder/import/log_store.h):
 * log_build_extend and log_build_success_rsp make the bytes of a
 * TPM2_PCR_Extend and of its success response; log_sink_open, import_log_sink_extend,
 * import_log_sink_startup, import_log_sink_event and log_sink_close write them (decoded with
 * decode.h, filled with rec_fill.h) and the log's own events through the
 * batched writer, with ordinal times and REC_F_SYNTHETIC_TIME; import_log_bad_pcr
 * reports an entry for a PCR past the banks. import_log_import_begin and
 * import_log_import_end wrap an importer's run (input opened through log_reader.h, an
 * empty input refused before any trace is made, the trace ended). */
#include "recorder/import/log_store.h"
#include "db/rec_fill.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "db/db.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/decode.h"
#include "model/tpm/redact.h"
#include "model/tpm/wire.h"

/* Builders: return the length written or -ENOSPC. */
static int log_build_extend(uint8_t *buf, size_t cap, uint32_t pcr, const struct pcr_digests *d)
{
	struct wire_wr w;
	wire_wr_init(&w, buf, cap);
	/* Part 1 18.2 header, Part 3 22.2 PCR_Extend: handle, then the
	 * authorization area with one password session (TPM_RS_PW, empty
	 * nonce, attributes 0 as the Linux kernel sends them, empty password),
	 * then TPML_DIGEST_VALUES. */
	wire_wr_u16(&w, TPM_ST_SESSIONS);
	wire_wr_u32(&w, 0); /* size, patched below */
	wire_wr_u32(&w, TPM_CC_PCR_Extend);
	wire_wr_u32(&w, pcr);
	wire_wr_u32(&w, 9);
	wire_wr_u32(&w, TPM_RS_PW);
	wire_wr_u16(&w, 0);
	wire_wr_u8(&w, 0);
	wire_wr_u16(&w, 0);
	wire_wr_u32(&w, d->n);
	for (unsigned i = 0; i < d->n; i++) {
		wire_wr_u16(&w, d->v[i].alg);
		wire_wr_bytes(&w, d->v[i].d, d->v[i].size);
	}
	if (w.err)
		return -ENOSPC;
	wire_put_u32(buf + 2, (uint32_t)w.off);
	return (int)w.off;
}

static int log_build_success_rsp(uint8_t *buf, size_t cap, int with_session)
{
	struct wire_wr w;
	wire_wr_init(&w, buf, cap);
	/* Part 1 18.4/18.8: a command with sessions gets parameterSize and one
	 * response session (empty nonce, attributes, empty hmac) back. */
	wire_wr_u16(&w, with_session ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, 0); /* TPM_RC_SUCCESS */
	if (with_session) {
		wire_wr_u32(&w, 0);
		wire_wr_u16(&w, 0);
		wire_wr_u8(&w, 0);
		wire_wr_u16(&w, 0);
	}
	if (w.err)
		return -ENOSPC;
	wire_put_u32(buf + 2, (uint32_t)w.off);
	return (int)w.off;
}

/* Who sent a log's commands, as a client row (comm, peer) that the origin
 * rule (model/trace_stream.h: trace_client_origin) reads: a firmware log's
 * extends are the firmware's, never priced as the kernel's; an IMA list's
 * are the kernel's (IMA). Every command of the log has this client, id 0. */
static int log_sink_client(struct log_sink *s, const char *const origin[2])
{
	size_t cl = strlen(origin[0]) + 1, pl = strlen(origin[1]) + 1;
	struct rec *r = db_writer_reserve(s->w, REC_CLIENT, (uint32_t)(cl + pl));
	if (!r)
		return -ENOBUFS;
	r->client_id = 0;
	r->cmd_len = (uint32_t)(cl + pl);
	memcpy(r->payload, origin[0], cl);
	memcpy(r->payload + cl, origin[1], pl);
	db_writer_publish(s->w);
	return 0;
}

/* Creates the database if needed and starts a blocking writer whose one
 * transaction (all or nothing) holds the trace row (kind 'import', source and
 * notes as given, payloads 'full') and every row of it, the log's client
 * (origin: comm and peer) first. Returns 0 or -errno with err set. */
static int log_sink_open(struct log_sink *s, const char *db_path, const char *name,
			 const char *source, const char *notes, const char *const origin[2],
			 char *err, size_t errlen)
{
	sqlite3 *db = NULL;
	/* foreign: a log carries no host identity; never this host's */
	struct trace_info ti = {.name = name,
				.kind = "import",
				.source = source,
				.payloads = "full",
				.notes = notes,
				.foreign = 1};

	memset(s, 0, sizeof(*s));
	int rc = db_open(db_path, DB_CREATE, &db, err, errlen);
	db_close(db);
	if (rc)
		return rc;
	struct writer_cfg cfg = {.path = db_path, .whole = 1, .trace = &ti, .block_when_full = 1};
	rc = db_writer_start(&s->w, &cfg, err, errlen);
	if (!rc)
		s->trace_id = db_writer_trace_id(s->w);
	if (!rc && origin)
		rc = log_sink_client(s, origin);
	return rc;
}

static int store(struct log_sink *s, const uint8_t *cmd, size_t cmd_len, const uint8_t *rsp,
		 size_t rsp_len, uint8_t locality)
{
	struct tpm_cmd c;
	struct tpm_rsp p;
	tpm_cmd_decode(cmd, cmd_len, &c);
	tpm_rsp_decode(rsp, rsp_len, c.cc, &p);
	struct rec *r = db_writer_reserve(s->w, REC_COMMAND, (uint32_t)(cmd_len + rsp_len));
	if (!r)
		return -ENOBUFS;
	s->ordinal++;
	/* Made here from a public log: nothing to redact (payloads 'full'). */
	db_rec_fill_payload(r, PAYLOADS_FULL, cmd, cmd_len, &c, rsp, rsp_len, &p);
	r->locality = locality;
	r->flags = REC_F_SYNTHETIC_TIME;
	db_rec_fill_decoded(r, &c, cmd_len, &p, rsp_len);
	r->t_submit = s->ordinal;
	r->t_done = s->ordinal;
	db_writer_publish(s->w);
	s->commands++;
	return 0;
}

int import_log_sink_extend(struct log_sink *s, uint32_t pcr, uint8_t locality,
			   const struct pcr_digests *d)
{
	uint8_t cmd[LOG_CMD_MAX], rsp[LOG_RSP_LEN];
	int n = log_build_extend(cmd, sizeof cmd, pcr, d);
	int m = log_build_success_rsp(rsp, sizeof rsp, 1);
	if (n < 0 || m < 0)
		return -ENOSPC;
	return store(s, cmd, (size_t)n, rsp, (size_t)m, locality);
}

void import_log_bad_pcr(uint64_t *bad, uint32_t pcr,
			void (*msg)(void *ctx, int severity, const char *m), void *ctx,
			const char *fmt, ...)
{
	char where[384];
	va_list ap;
	if ((*bad)++ >= 5)
		return;
	va_start(ap, fmt);
	vsnprintf(where, sizeof where, fmt, ap);
	va_end(ap);
	import_log_say(msg, ctx, 0,
		       "%s: PCR index %u is not a PCR (0-23): kept as an event, not extended",
		       where, pcr);
}

int import_log_sink_startup(struct log_sink *s, uint8_t locality)
{
	uint8_t cmd[TPM_STARTUP_SIZE], rsp[10];
	tpm_startup_cmd(cmd, TPM_SU_CLEAR);
	int m = log_build_success_rsp(rsp, sizeof rsp, 0);
	if (m < 0)
		return -ENOSPC;
	return store(s, cmd, sizeof cmd, rsp, (size_t)m, locality);
}

int import_log_sink_event(struct log_sink *s, const char *kind, const char *detail)
{
	/* Same synthetic clock as the command that follows it. */
	int rc = db_writer_event(s->w, s->ordinal + 1, kind, detail, 0);
	if (!rc)
		s->events++;
	return rc;
}

/* Drains the writer and ends its transaction: committed with the trace row
 * closed 'complete', or when failed rolled back (committed 'incomplete' under
 * keep_partial); trace_id 0 when nothing was stored. Returns 0 or -errno.
 * Safe to call on a sink that failed to open. */
static int log_sink_close(struct log_sink *s, int failed)
{
	struct writer_stats st = {0};
	int rc = 0;
	if (!s->w)
		return 0;
	if (failed && !s->keep_partial)
		db_writer_discard(s->w, &st);
	else
		rc = db_writer_stop(s->w, failed ? "incomplete" : "complete", &st);
	s->w = NULL;
	if (st.rolled_back)
		s->trace_id = 0;
	return rc;
}

int import_log_import_begin(struct log_sink *s, struct log_rd *rd, const char *db_path,
			    const char *name, const char *kind, const char *path, int follow,
			    const char *notes, char *err, size_t errlen)
{
	char source[4096];
	const char *base = strrchr(path, '/');
	memset(s, 0, sizeof(*s));
	int rc = import_log_rd_open_file(rd, path, follow, err, errlen);
	if (rc)
		return rc;
	/* An empty input is no log (before, a 0-byte TCG log stored a lone
	 * Startup): said here, before any trace is made. */
	size_t avail;
	if (!import_log_rd_peek(rd, 1, &avail)) {
		rc = rd->io_err ? -rd->io_err : -ENODATA;
		if (rd->io_err)
			import_log_rd_error(rd, path, err, errlen);
		else
			snprintf(err, errlen, "%s: empty (0 bytes), not %s", path,
				 !strcmp(kind, "ima") ? "an IMA measurement list"
						      : "a TCG event log");
		import_log_rd_close(rd);
		return rc;
	}
	snprintf(source, sizeof source, "%s:%s", kind, path);
	static const char *const firmware[2] = {"firmware", "TCG event log"};
	static const char *const ima[2] = {"kernel", "ima"};
	rc = log_sink_open(s, db_path,
			   name	  ? name
			   : base ? base + 1
				  : path,
			   source, notes, !strcmp(kind, "ima") ? ima : firmware, err, errlen);
	if (rc) {
		log_sink_close(s, 1);
		import_log_rd_close(rd);
	}
	return rc;
}

int import_log_import_end(struct log_sink *s, struct log_rd *rd, int rc, const char *db_path,
			  const char *path, int strict, const char *unit,
			  const struct log_tail *tail, char *err, size_t errlen)
{
	if (!rc && tail->truncated && strict) {
		snprintf(err, errlen,
			 "%s: truncated %s at offset %llu (%llu trailing bytes) (--strict)", path,
			 unit, (unsigned long long)tail->offset, (unsigned long long)tail->bytes);
		rc = -EBADMSG;
	}
	int src = log_sink_close(s, rc != 0);
	if (!rc && src) {
		snprintf(err, errlen, "%s: writing to %s failed: nothing of it is stored", path,
			 db_path);
		rc = src;
	}
	import_log_rd_close(rd);
	return rc;
}
