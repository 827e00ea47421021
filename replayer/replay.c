/* The replay engine (see replay.h and docs/replay.md): the run - the source
 * commands read in order, the policy driven, statistics and source checks. The
 * engine's other parts are listed in replay_int.h. */
#include "replayer/replay_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db/stats.h"
#include "db/trace_kind.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/pcr_bank.h"

int rp_replay_is_destructive(uint32_t cc)
{
	const struct tpm_cc_info *i = tpm_cc_lookup(cc);
	return i && i->destructive; /* the column of model/tpm/tpm_cc.def */
}

int rp_replay_auth_parse(const char *s, struct replay_auth *a, char *err, size_t errlen)
{
	const char *eq = strchr(s, '=');
	char *end;
	memset(a, 0, sizeof *a);
	if (!eq || eq == s) {
		snprintf(err, errlen, "--auth takes HANDLE=VALUE, not '%s'", s);
		return -EINVAL;
	}
	unsigned long long h = strtoull(s, &end, 0);
	if (end != eq || h > 0xffffffffull) {
		snprintf(err, errlen, "--auth '%s': '%.*s' is not a handle (e.g. 0x40000001)", s,
			 (int)(eq - s), s);
		return -EINVAL;
	}
	a->handle = (uint32_t)h;
	const char *v = eq + 1;
	if (!strncmp(v, "hex:", 4)) {
		v += 4;
		size_t n = strlen(v);
		if (n % 2 || n / 2 > sizeof a->value) {
			snprintf(err, errlen, "--auth '%s': odd or too long hex (at most 64 bytes)",
				 s);
			return -EINVAL;
		}
		for (size_t i = 0; i < n / 2; i++) {
			char b[3] = {v[2 * i], v[2 * i + 1], 0};
			unsigned long x = strtoul(b, &end, 16);
			if (*end) {
				snprintf(err, errlen, "--auth '%s': bad hex at offset %zu", s,
					 (size_t)(v - s) + 2 * i);
				return -EINVAL;
			}
			a->value[i] = (uint8_t)x;
		}
		a->len = (uint16_t)(n / 2);
	} else {
		size_t n = strlen(v);
		if (n > sizeof a->value) {
			snprintf(err, errlen, "--auth '%s': value longer than 64 bytes", s);
			return -EINVAL;
		}
		memcpy(a->value, v, n);
		a->len = (uint16_t)n;
	}
	/* the TPM drops trailing zeros of an authValue (Part 1 19.6.4.3) */
	while (a->len && !a->value[a->len - 1])
		a->len--;
	return 0;
}

/* ---- outcome bookkeeping ---------------------------------------------- */

void rp_note(struct rp *x, int outcome, uint32_t cc, const char *fmt, ...)
{
	char text[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (outcome < REPLAY__OUTCOMES &&
	    (outcome > x->now.cur_outcome ||
	     (outcome == x->now.cur_outcome && !x->now.cur_reason[0]))) {
		x->now.cur_outcome = outcome;
		snprintf(x->now.cur_reason, sizeof x->now.cur_reason, "%s", text);
	}
	struct replay_result *r = x->res;
	for (unsigned i = 0; i < r->n_reasons; i++)
		if (r->reasons[i].outcome == outcome && r->reasons[i].cc == cc &&
		    !strcmp(r->reasons[i].text, text)) {
			r->reasons[i].count++;
			return;
		}
	if (r->n_reasons < REPLAY_MAX_REASONS) {
		struct replay_reason *n = &r->reasons[r->n_reasons++];
		n->outcome = (uint8_t)outcome;
		n->cc = cc;
		n->first_seq = x->now.cur.set ? x->now.cur.seq : 0;
		n->count = 1;
		snprintf(n->text, sizeof n->text, "%s", text);
	}
}

struct replay_cc_stat *rp_cc_stat(struct replay_result *r, uint32_t cc)
{
	for (unsigned i = 0; i < r->n_cc; i++)
		if (r->cc[i].cc == cc)
			return &r->cc[i];
	if (r->n_cc == REPLAY_MAX_CC)
		return NULL;
	struct replay_cc_stat *s = &r->cc[r->n_cc++];
	memset(s, 0, sizeof *s);
	s->cc = cc;
	return s;
}

int rp_fail(struct rp *x, int rc, const char *fmt, ...)
{
	va_list ap;
	if (!x->now.fatal) {
		va_start(ap, fmt);
		vsnprintf(x->res->err, sizeof x->res->err, fmt, ap);
		va_end(ap);
		x->now.fatal = rc ? rc : -EIO;
	}
	return x->now.fatal;
}

/* Whether the command being sent is tpmtrace's own (flag 32, left out of
 * every figure, db/stats.h): the Startup, clean-up and resource-manager
 * flushes the replay adds, and the copies of the source's own commands (a
 * spawned swtpm's Startup, the recorder's resource-manager flushes), so that
 * the run compares with its source command for command. */
static int rp_cur_own(const struct rp *x)
{
	return x->now.cur_role == REPLAY_ROLE_CLEANUP || x->now.cur_role == REPLAY_ROLE_STARTUP ||
	       x->now.cur_role == REPLAY_ROLE_CLIENT_END ||
	       (x->now.cur_role == POL_ROLE_ORIGINAL && x->now.cur.set &&
		x->now.cur.flags & REC_F_OWN);
}

/* tpmconn.emu_apart: an own command's lateness (a fresh swtpm's first
 * Startup writing its state, on a loaded host) is not made up by the
 * client commands' holds, which would shorten their figures. */
static int rp_emu_apart(void *arg)
{
	return rp_cur_own(arg);
}

/* Every exchange with the target, the helpers' included: stored and timed. */
void rp_on_xfer(void *arg, const uint8_t *cmd, size_t len, const uint8_t *rsp, size_t rsp_len,
		uint64_t t0, uint64_t t1, int rc)
{
	struct rp *x = arg;
	int own = rp_cur_own(x);
	/* What the policy adds for a source command (the kernel's session
	 * around it, a Name read) is marked so, with that command's client. */
	int added = x->now.cur_role > POL_ROLE_ORIGINAL && x->now.cur_role < POL_ROLE__COUNT;
	struct rec_timing tm = {.t_submit = t0,
				.t_done = t1,
				.rc = rc < 0 ? rc : 0,
				.flags = (x->tg.t.emu && rc >= 0 ? REC_F_EMULATED : 0) |
					 (own ? REC_F_OWN : 0) | (added ? REC_F_POLICY : 0)};
	/* The source command's client; the replay's own (its Startup, the
	 * clean-up, a client's space flushed) tpmtrace's client. */
	uint32_t client = own && !(x->now.cur_role == POL_ROLE_ORIGINAL && x->now.cur.set)
			      ? recorder_own_client(&x->st.rec)
			  : x->now.cur.set ? x->now.cur.client
					   : 0;
	x->res->sent++;
	if (own) {
		x->res->sent_own++;
	} else {
		x->res->tpm_ns += t1 - t0;
		if (!x->res->first_ns || t0 < x->res->first_ns)
			x->res->first_ns = t0;
		if (t1 > x->res->last_ns)
			x->res->last_ns = t1;
	}
	if (x->now.cur_role >= 0 && x->now.cur_role < REPLAY_N_ROLES)
		x->res->by_role[x->now.cur_role]++;
	if (len >= TPM_HEADER_SIZE && !own) {
		struct replay_cc_stat *s = rp_cc_stat(x->res, wire_get_u32(cmd + 6));
		if (s) {
			s->n_rep++;
			s->rep_ns += t1 - t0;
		}
	}
	recorder_log(&x->st.rec, client, 0, cmd, len, rsp, rsp_len, &tm);
	rp_client_sent(x, client, t0);
}

/* Sends x->tg.buf[0..len) (or cmd), fatal on a transport failure. Returns 0 or
 * the TPM response code (positive), or the fatal -errno. */
int rp_xfer(struct rp *x, const uint8_t *cmd, size_t len)
{
	/* tpmconn resends a command the TPM did not start, as a TSS does;
	 * not the one the recording shows with that very answer: the
	 * recording's own resubmission follows, and its response is the one
	 * later commands refer to (a Create's outPrivate). */
	int mirror = x->now.cur_role == POL_ROLE_ORIGINAL && x->now.cur.set && x->now.cur.has_rc &&
		     tpm_rc_is_retry(x->now.cur.rc);
	x->tg.t.max_retries = mirror ? 0 : REPLAY_MAX_RETRIES;
	int rc = tpmconn_xfer(&x->tg.t, cmd, len);
	x->tg.t.max_retries = REPLAY_MAX_RETRIES;
	if (rc == -EIO)
		return rp_fail(
		    x, rc, "the target stopped answering (TCTI error 0x%x) at source seq %llu",
		    x->tg.t.tss_rc, x->now.cur.set ? (unsigned long long)x->now.cur.seq : 0ull);
	if (rc)
		return rp_fail(x, rc, "malformed response from the target at source seq %llu",
			       x->now.cur.set ? (unsigned long long)x->now.cur.seq : 0ull);
	return tpmconn_rc(&x->tg.t);
}

/* ---- the run ------------------------------------------------------------ */

/* PCR_Read (Part 3 22.4) of all 24 PCRs of one bank, eight at a time; not
 * stored: the run's rows are the policy's sequence only. */
static int read_bank(struct rp *x, uint16_t alg, struct replay_bank *b)
{
	uint32_t want = 0xffffff;
	memset(b, 0, sizeof *b);
	b->alg = alg;
	for (int round = 0; round < 4 && want; round++) {
		uint8_t cmd[20];
		wire_put_u16(cmd, TPM_ST_NO_SESSIONS);
		wire_put_u32(cmd + 2, 20);
		wire_put_u32(cmd + 6, TPM_CC_PCR_Read);
		wire_put_u32(cmd + 10, 1);
		wire_put_u16(cmd + 14, alg);
		cmd[16] = 3;
		cmd[17] = (uint8_t)want;
		cmd[18] = (uint8_t)(want >> 8);
		cmd[19] = (uint8_t)(want >> 16);
		int rc = tpmconn_xfer(&x->tg.t, cmd, sizeof cmd);
		if (rc || tpmconn_rc(&x->tg.t))
			return rc ? rc : -EPROTO;
		struct wire_rd r;
		wire_rd_init(&r, x->tg.t.rsp, x->tg.t.rsp_len);
		wire_skip(&r, TPM_HEADER_SIZE + 4);
		uint32_t ns = wire_u32(&r), got = 0;
		for (uint32_t i = 0; i < ns && !r.err; i++) {
			uint16_t a = wire_u16(&r);
			uint8_t n = wire_u8(&r);
			const uint8_t *m = wire_skip(&r, n);
			if (a == alg && m)
				for (unsigned j = 0; j < n && j < 3; j++)
					got |= (uint32_t)m[j] << (8 * j);
		}
		uint32_t nd = wire_u32(&r);
		unsigned idx = 0;
		for (uint32_t i = 0; i < nd && !r.err; i++) {
			uint16_t dl;
			const uint8_t *d = wire_tpm2b(&r, &dl);
			while (idx < 24 && !(got & (1u << idx)))
				idx++;
			if (!d || idx == 24 || dl > 64)
				return -EPROTO;
			memcpy(b->v[idx], d, dl);
			b->size = (uint8_t)dl;
			b->mask |= 1u << idx;
			idx++;
		}
		if (r.err)
			return -EPROTO;
		if (!got)
			break; /* bank not allocated */
		want &= ~got;
	}
	return 0;
}

static int read_pcrs(struct rp *x)
{
	x->tg.t.on_xfer = NULL;
	x->tg.t.emu = NULL; /* the summary's reads are not part of the run */
	for (unsigned i = 0; i < PCR_COMMON_ALGS; i++) {
		struct replay_bank *b = &x->res->banks[x->res->n_banks];
		int rc = read_bank(x, pcr_alg_common(i)->alg, b);
		if (rc == -EIO)
			return rc;
		if (!rc && b->mask)
			x->res->n_banks++;
	}
	return 0;
}

static int startup(struct rp *x)
{
	uint8_t su[TPM_STARTUP_SIZE];
	tpm_startup_cmd(su, TPM_SU_CLEAR);
	x->now.cur_role = REPLAY_ROLE_STARTUP;
	int rc = rp_xfer(x, su, sizeof su);
	x->now.cur_role = POL_ROLE_ORIGINAL;
	if (rc < 0)
		return rc;
	if (rc && (uint32_t)rc != TPM_RC_INITIALIZE)
		return rp_fail(x, -EPROTO, "TPM2_Startup answered 0x%x (%s)", rc,
			       tpm_rc_str((uint32_t)rc));
	x->policy.started = 1;
	if (x->tg.before_due)
		rp_snapshot(x);
	return 0;
}

/* Reads the source trace's facts; 0 or -errno with res->err set. */
static int source_check(struct rp *x, sqlite3 *db)
{
	struct replay_result *res = x->res;
	sqlite3_stmt *st = NULL;
	int rc = -ENOENT;
	if (!res->source_id) {
		char why[256];
		int64_t id = db_trace_default(db, why, sizeof why);
		if (id <= 0) {
			snprintf(res->err, sizeof res->err, "%s: %s", x->o->db_path, why);
			return id < 0 ? -EIO : -ENOENT;
		}
		res->source_id = id;
	}
	/* The three counts in one pass over the trace's rows (each count of
	 * its own read them all again); FILTER rather than sum() of a test,
	 * which adds a 0 for every row: half the pass's time. */
	if (sqlite3_prepare_v2(
		db,
		"SELECT payloads, n, missing, own FROM trace,"
		" (SELECT count(*) AS n,"
		"   count(*) FILTER (WHERE cmd IS NULL AND NOT flags & 2) AS missing,"
		"   count(*) FILTER (WHERE " DB_OWN_CMDS ") AS own"
		"  FROM command WHERE trace_id=?1)"
		" WHERE id=?1",
		-1, &st, NULL) != SQLITE_OK) {
		snprintf(res->err, sizeof res->err, "%s: %s", x->o->db_path, sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, res->source_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		snprintf(res->err, sizeof res->err, "%s: no trace %lld", x->o->db_path,
			 (long long)res->source_id);
		goto out;
	}
	const char *pl = (const char *)sqlite3_column_text(st, 0);
	/* The figures' command count: the clients' (docs/schema.md, "Figures");
	 * the source's own are replayed too, and counted apart. */
	res->source_own = (uint64_t)sqlite3_column_int64(st, 3);
	res->source_commands = (uint64_t)sqlite3_column_int64(st, 1) - res->source_own;
	if ((pl && !strcmp(pl, "none")) || sqlite3_column_int64(st, 2) > 0) {
		snprintf(res->err, sizeof res->err,
			 "%s: trace %lld was recorded without payloads (--payloads none): there "
			 "are no command bytes to replay",
			 x->o->db_path, (long long)res->source_id);
		rc = -ENODATA;
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/* The source side of the per-command-code comparison. A run that read the
 * whole trace summed it while streaming (src_stat_row); one that stopped
 * early asks SQLite for the whole trace's figures instead. Either way the
 * source codes come first, by code, then codes only the replay sent. */
static void src_stat_row(struct rp *x, const struct rp_src_row *r)
{
	if (!r->has_cc || r->flags & REC_F_OWN)
		return;
	struct replay_cc_stat *s = rp_cc_stat(x->res, r->cc);
	if (s) {
		s->n_src++;
		s->src_ns += r->latency_ns;
	}
}

static int cc_stat_order(const void *a, const void *b)
{
	const struct replay_cc_stat *p = a, *q = b;
	if (!p->n_src != !q->n_src)
		return p->n_src ? -1 : 1;
	if (p->n_src)
		return p->cc < q->cc ? -1 : p->cc > q->cc;
	return 0;
}

static void src_stats_finish(struct rp *x, sqlite3 *db, int streamed_all)
{
	struct replay_result *res = x->res;
	sqlite3_stmt *st = NULL;
	if (!streamed_all) {
		for (unsigned i = 0; i < res->n_cc; i++)
			res->cc[i].n_src = res->cc[i].src_ns = 0;
		if (sqlite3_prepare_v2(
			db,
			"SELECT cc, count(*), coalesce(sum(latency_ns),0) FROM command"
			" WHERE trace_id=? AND cc IS NOT NULL AND " DB_CLIENT_CMDS " GROUP BY cc",
			-1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, res->source_id);
			int src;
			while ((src = sqlite3_step(st)) == SQLITE_ROW) {
				struct replay_cc_stat *s =
				    rp_cc_stat(res, (uint32_t)sqlite3_column_int64(st, 0));
				if (s) {
					s->n_src = (uint64_t)sqlite3_column_int64(st, 1);
					s->src_ns = (uint64_t)sqlite3_column_int64(st, 2);
				}
			}
			if (src != SQLITE_DONE)
				rp_fail(x, -EIO, "reading trace %lld: %s",
					(long long)res->source_id, sqlite3_errmsg(db));
		}
		sqlite3_finalize(st);
	}
	res->src_tpm_ns = 0;
	for (unsigned i = 0; i < res->n_cc; i++)
		res->src_tpm_ns += res->cc[i].src_ns;
	/* Insertion sort: stable, and the array is short. */
	for (unsigned i = 1; i < res->n_cc; i++) {
		struct replay_cc_stat v = res->cc[i];
		unsigned j = i;
		for (; j > 0 && cc_stat_order(&res->cc[j - 1], &v) > 0; j--)
			res->cc[j] = res->cc[j - 1];
		res->cc[j] = v;
	}
}

/* One source row: checks, then hands it to the policy expansion. */
static int one_command(struct rp *x, const struct rp_src_row *r)
{
	struct src_cmd sc;
	memset(&sc, 0, sizeof sc);
	sc.load_priv = -1;
	sc.seq = r->seq;
	sc.cmd = r->cmd;
	sc.len = r->len;
	sc.rsp = r->rsp;
	sc.rsp_len = r->rsp_len;
	sc.flags = r->flags;
	sc.has_rc = r->has_rc;
	sc.rc = r->rc;
	sc.rsp_handle = r->rsp_handle;
	sc.client = (uint32_t)r->client;
	x->now.cur = (struct rp_cur){1, sc.seq, sc.flags, sc.has_rc, sc.rc, sc.client};
	x->now.cur_outcome = REPLAY_FAITHFUL;
	x->now.cur_reason[0] = 0;
	int rc = 0;
	if (sc.flags & REC_F_MALFORMED && sc.flags & REC_F_NO_RESPONSE) {
		/* The recorder never forwarded these bytes (recorder_malformed). */
		rp_note(x, REPLAY_SKIPPED, 0, "malformed when recorded and never sent to the TPM");
		goto done;
	}
	/* A stored command that cannot be sent is refused with its reason and
	 * the replay goes on, as for any other refusal (what depended on it is
	 * refused in turn). */
	if (!sc.cmd || sc.len < TPM_HEADER_SIZE) {
		rp_note(x, REPLAY_REFUSED, 0,
			"%s: trace %lld, seq %llu: command bytes missing or shorter than a TPM "
			"header (%zu bytes): not sent",
			x->o->db_path, (long long)x->res->source_id, (unsigned long long)sc.seq,
			sc.len);
		goto done;
	}
	tpm_cmd_decode(sc.cmd, sc.len, &sc.c);
	if (sc.c.malformed && !(sc.flags & REC_F_MALFORMED)) {
		rp_note(
		    x, REPLAY_REFUSED, sc.c.cc,
		    "%s: trace %lld, seq %llu: stored command does not parse (%s at %zu bytes): "
		    "not sent",
		    x->o->db_path, (long long)x->res->source_id, (unsigned long long)sc.seq,
		    tpm_malformed_str(sc.c.malformed), sc.len);
		goto done;
	}
	if (sc.rsp && !sc.rsp_handle && sc.c.info && sc.c.info->handles_out &&
	    sc.rsp_len >= TPM_HEADER_SIZE + 4)
		sc.rsp_handle = wire_get_u32(sc.rsp + TPM_HEADER_SIZE);
	sc.pc.cc = sc.c.cc;
	sc.pc.n_handles = sc.c.n_handles;
	memcpy(sc.pc.handles, sc.c.handles, sizeof sc.pc.handles);
	sc.pc.auth_kind = sc.c.auth_kind;
	/* The origin rule predict uses (model/trace_stream.h). */
	sc.pc.origin = POL_ORIGIN_UNKNOWN;
	if (x->cl.origin && r->has_client) {
		int64_t cl = r->client;
		if (cl >= 0 && cl < TRACE_MAX_CLIENTS) {
			sc.pc.origin = x->cl.origin[cl] & ~TRACE_ORIGIN_HWRNG;
			sc.pc.hwrng = !!(x->cl.origin[cl] & TRACE_ORIGIN_HWRNG);
		}
	}
	sc.pc.kstartup = (uint8_t)policy_startup_cmd(sc.c.cc, sc.cmd, sc.len);
	sc.pc.variant = (uint8_t)tpm_cmd_variant_of(&sc.c, sc.cmd, sc.len);
	sc.pc.has_rc = (uint8_t)sc.has_rc;
	sc.pc.rc = sc.rc;
	sc.pc.sess_attrs = tpm_pack_attrs(sc.c.sess_attrs, sc.c.n_sessions);
	sc.pc.seq = sc.seq;
	if (x->now.resub.armed) {
		x->now.resub.armed = 0;
		if (sc.len == x->now.resub.len && !memcmp(sc.cmd, x->now.resub.cmd, sc.len)) {
			/* The command was replayed once and answered as the
			 * recording's resubmission was: faithful, not sent again. */
			if (x->now.resub.ok) {
				memcpy(x->tg.t.rsp, x->now.resub.rsp, x->now.resub.rsp_len);
				x->tg.t.rsp_len = x->now.resub.rsp_len;
				sc.load_priv = x->now.resub.load_priv;
				const struct rp_sent sent = {.hs = x->now.resub.hs,
							     .pp = x->now.resub.pl ? x->now.resub.pp
										   : NULL,
							     .pl = x->now.resub.pl,
							     .sent = x->now.resub.sent,
							     .sent_len = x->now.resub.sent_len};
				rp_capture(x, &sc, &sent);
			}
			if (x->now.resub.outcome != REPLAY_FAITHFUL && x->now.resub.reason[0])
				rp_note(x, x->now.resub.outcome, sc.c.cc, "%s",
					x->now.resub.reason);
			else
				rp_note(x, REPLAY_FAITHFUL, sc.c.cc,
					"%s: the recording's resubmission after TPM_RC_RETRY (seq "
					"%llu), which the target answered at once: not sent again",
					tpm_cc_name(sc.c.cc), (unsigned long long)x->now.resub.seq);
			goto done;
		}
	}
	uint64_t sent = x->policy.ps.emitted[POL_ROLE_ORIGINAL];
	x->now.src = &sc;
	rc = policy_expand_cmd(&x->policy.ps, &sc.pc);
	x->now.src = NULL;
	if (!rc && !x->now.fatal && x->policy.ps.emitted[POL_ROLE_ORIGINAL] == sent)
		rp_note(x, REPLAY_SKIPPED, sc.c.cc,
			"%s: the policy does not send it (a read of the kernel's TPM hwrng, "
			"hwrng=off)",
			tpm_cc_name(sc.c.cc));
done:
	if (!x->now.fatal)
		x->res->outcome[x->now.cur_outcome]++;
	x->res->processed++;
	if (!x->now.fatal && x->cl.rm_spaces && sc.client < x->cl.n_cl &&
	    x->cl.cl_last[sc.client] == sc.seq)
		rp_client_end(x, sc.client);
	memset(&x->now.cur, 0, sizeof x->now.cur);
	return x->now.fatal ? x->now.fatal : rc;
}

/* Whether the trace's first command to succeed is TPM2_Startup: then the
 * trace starts the TPM itself (whatever it sent before was refused). Without
 * response codes: whether its first command is Startup. */
static int trace_starts_itself(sqlite3 *db, int64_t id)
{
	sqlite3_stmt *st;
	int r = 0;
	if (sqlite3_prepare_v2(db,
			       "SELECT cc FROM command WHERE trace_id=? AND (rc=0 OR rc IS NULL)"
			       " ORDER BY seq LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		r = (uint32_t)sqlite3_column_int64(st, 0) == TPM_CC_Startup;
	sqlite3_finalize(st);
	return r;
}

/* The run's set-up before a target is touched: the policy, the source
 * checked, its clients, the profile emulated (a bad one leaves the database
 * as it was). Returns 0, or an error with res->err set. */
static int run_prepare(struct rp *x, sqlite3 **db)
{
	const struct replay_opts *o = x->o;
	struct replay_result *res = x->res;
	char err[512];
	int rc;
	if ((rc = policy_parse(o->policy ? o->policy : "as-recorded", &x->policy.pol, err,
			       sizeof err))) {
		snprintf(res->err, sizeof res->err, "--policy: %.480s", err);
		return rc;
	}
	snprintf(res->policy, sizeof res->policy, "%s", x->policy.pol.name);
	if ((rc = db_open(o->db_path, DB_WRITE, db, err, sizeof err))) {
		snprintf(res->err, sizeof res->err, "%s", err);
		return rc;
	}
	if ((rc = source_check(x, *db)))
		return rc;
	if ((rc = trace_origins_load(*db, res->source_id, &x->cl.origin))) {
		snprintf(res->err, sizeof res->err, "%s: reading the clients of trace %lld: %s",
			 o->db_path, (long long)res->source_id, sqlite3_errmsg(*db));
		return rc;
	}
	if ((rc = rp_rm_spaces_init(x, *db))) {
		snprintf(res->err, sizeof res->err, "%s: %s", o->db_path, sqlite3_errmsg(*db));
		return rc;
	}
	if (o->emulate) {
		/* Before anything is started or stored: a bad profile leaves the
		 * database as it was. */
		if ((rc = emulate_init(&x->tg.em, *db, o->emulate, o->emulate_seed, err,
				       sizeof err))) {
			snprintf(res->err, sizeof res->err, "--emulate: %.490s", err);
			return rc;
		}
		x->tg.have_em = 1;
		snprintf(res->emulated, sizeof res->emulated, "%s", x->tg.em.prof.name);
		res->emulate_seed = o->emulate_seed;
	}
	return 0;
}

/* The target: a private swtpm spawned, or the one named, opened (and what it
 * holds listed, for the cleanup). Returns 0, or an error with res->err set. */
static int run_connect(struct rp *x)
{
	const struct replay_opts *o = x->o;
	struct replay_result *res = x->res;
	char err[512];
	int rc;
	if (!o->target) {
		if ((rc = swtpm_spawn(&x->tg.sw, NULL, SWTPM_SOCKETS, err, sizeof err))) {
			snprintf(res->err, sizeof res->err, "%s", err);
			return rc;
		}
		x->tg.spawned = 1;
		snprintf(res->target, sizeof res->target, "swtpm (spawned)");
	} else {
		snprintf(res->target, sizeof res->target, "%s", o->target);
	}
	if ((rc = tpmconn_open(&x->tg.t, x->tg.spawned ? x->tg.sw.tcti : o->target))) {
		snprintf(res->err, sizeof res->err, "cannot open the target '%s' (TCTI error 0x%x)",
			 x->tg.spawned ? x->tg.sw.tcti : o->target, x->tg.t.tss_rc);
		return rc;
	}
	x->tg.t.max_retries = REPLAY_MAX_RETRIES;
	if (!x->tg.spawned)
		rp_snapshot(x);
	if ((rc = sess_crypto_init(&x->sessions.cr))) {
		snprintf(res->err, sizeof res->err, "OpenSSL set-up failed");
		return rc;
	}
	return 0;
}

/* The run's own trace begun (*id), its writer started, every exchange with
 * the target stored from here on, the policy's expansion set up. Returns 0,
 * or an error with res->err set. */
static int run_begin(struct rp *x, sqlite3 *db, int64_t *id)
{
	const struct replay_opts *o = x->o;
	struct replay_result *res = x->res;
	char err[512];
	int rc;
	char name[64];
	snprintf(name, sizeof name, "replay of %lld", (long long)res->source_id);
	struct trace_info ti = {.name = name,
				.kind = "replay",
				.source = res->target,
				.payloads = "redacted",
				.policy = x->policy.pol.name,
				.parent_id = res->source_id,
				.emulated = x->tg.have_em ? x->tg.em.prof.name : NULL};
	/* The trace row and its clients (before the writer's connection
	 * writes) in one transaction: one commit and sync instead of three.
	 * What succeeded is committed either way, as it was one by one. */
	uint32_t last_client = 0, own_client = 0;
	int tx = !db_exec(db, "BEGIN IMMEDIATE", NULL, 0), bad = 0;
	*id = db_trace_begin(db, &ti);
	if (*id < 0) {
		snprintf(res->err, sizeof res->err, "%s: cannot add a trace: %s", o->db_path,
			 sqlite3_errmsg(db));
		bad = 1;
	} else {
		res->trace_id = *id;
		if (rp_clients_copy(x, db, *id, &last_client, &own_client)) {
			snprintf(res->err, sizeof res->err,
				 "%s: copying the clients of trace %lld: %s", o->db_path,
				 (long long)res->source_id, sqlite3_errmsg(db));
			bad = 2;
		}
	}
	if (tx && db_exec(db, "COMMIT", NULL, 0)) {
		if (!bad)
			snprintf(res->err, sizeof res->err, "%s: cannot add a trace: %s",
				 o->db_path, sqlite3_errmsg(db));
		if (!sqlite3_get_autocommit(db))
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		res->trace_id = 0;
		return -EIO;
	}
	if (bad == 2)
		db_trace_end(db, *id, 0, 0, 0, "incomplete");
	if (bad)
		return -EIO;
	/* The writer blocks instead of dropping, and yields the CPUs to
	 * this thread and a local swtpm; the WAL is folded in by run_release
	 * (writer.h). */
	struct writer_cfg wc = {.path = o->db_path,
				.trace_id = *id,
				.block_when_full = 1,
				.nice = 10,
				.fold_at_close = 1};
	if ((rc = db_writer_start(&x->st.w, &wc, err, sizeof err))) {
		snprintf(res->err, sizeof res->err, "%s", err);
		db_trace_end(db, *id, 0, 0, 0, "incomplete");
		return rc;
	}
	recorder_init(&x->st.rec, x->st.w, NULL, PAYLOADS_REDACTED);
	x->st.rec.next_client = last_client;
	x->st.rec.own_client = own_client;
	x->tg.t.on_xfer = rp_on_xfer;
	x->tg.t.on_xfer_arg = x;
	if (x->tg.have_em) {
		x->tg.t.emu = &x->tg.em;
		x->tg.t.emu_apart = rp_emu_apart;
		snprintf(err, sizeof err, "profile=%s from=%s seed=%llu", x->tg.em.prof.name,
			 x->tg.em.from, (unsigned long long)x->tg.em.seed);
		db_writer_event(x->st.w, db_mono_ns(), "emulate", err, 0);
	}
	snprintf(err, sizeof err, "source=%lld policy=%s target=%s", (long long)res->source_id,
		 x->policy.pol.name, res->target);
	db_writer_event(x->st.w, db_mono_ns(), "replay-start", err, 0);
	policy_expand_init(&x->policy.ps, &x->policy.pol, rp_emit, x);
	return 0;
}

/* The source's commands and events in seq order, through the policy. */
static void run_stream(struct rp *x, sqlite3 *db)
{
	const struct replay_opts *o = x->o;
	struct replay_result *res = x->res;
	struct rp_src *src = NULL;
	const struct rp_src_row *r;
	char err[256];
	int first = 1, streamed_all = 0, starts_itself = trace_starts_itself(db, res->source_id);
	/* The rows are read ahead on a thread of their own (replay_src.c). */
	if (rp_src_start(&src, db, res->source_id, err, sizeof err)) {
		rp_fail(x, -EIO, "%s: %s", o->db_path, err);
	} else {
		while (!x->now.fatal && (r = rp_src_next(src)) != NULL) {
			if (r->event) {
				int evk = r->kind ? policy_event_from_kind(r->kind) : 0;
				/* a fresh target registers its null key all the same */
				if (evk && evk != POL_EV_ATTACHED)
					policy_expand_event(&x->policy.ps, (enum pol_event)evk);
				continue;
			}
			if (first) {
				/* The target starts the way the trace did: a trace
				 * whose first command to succeed is Startup (a
				 * recording from power-on: SeaBIOS probes with
				 * ReadClock before it starts the TPM) starts the TPM
				 * itself; any other gets a Startup here. */
				first = 0;
				if (!starts_itself && startup(x))
					break;
			}
			src_stat_row(x, r);
			one_command(x, r);
			if (o->progress)
				o->progress(o->progress_arg, res->processed,
					    res->source_commands + res->source_own);
		}
		if (!x->now.fatal && rp_src_end(src, err, sizeof err))
			rp_fail(x, -EIO, "%s: reading trace %lld: %s", o->db_path,
				(long long)res->source_id, err);
		streamed_all = !x->now.fatal;
	}
	/* The reader is stopped before the connection is used again. */
	rp_src_stop(src);
	src_stats_finish(x, db, streamed_all);
}

/* The run's fidelity in its trace row (trace.fidelity): a later run of the
 * same trace, policy and target compares itself with it. */
static int store_fidelity(sqlite3 *db, int64_t id, double fidelity)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "UPDATE trace SET fidelity=? WHERE id=?", -1, &st, NULL))
		return -EIO;
	sqlite3_bind_double(st, 1, fidelity);
	sqlite3_bind_int64(st, 2, id);
	int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	return rc;
}

/* The end of the run: the PCRs read, the target cleaned, the fidelity
 * stored with the run's trace and the writer stopped. Returns 0 or the
 * run's fatal error. */
static int run_finish(struct rp *x, sqlite3 *db, int64_t id)
{
	const struct replay_opts *o = x->o;
	struct replay_result *res = x->res;
	int rc;
	if (!x->now.fatal && read_pcrs(x))
		rp_fail(x, -EIO, "the target stopped answering while reading the PCRs");
	rp_cleanup_target(x);
	/* The replay-stop event says the figures too (docs/schema.md); an
	 * emulated run its lateness: how many responses, by how much, and
	 * what the run's holds did not make up (owed_ns, the time the run
	 * took beyond the profile's pace, which a proof takes off). */
	char stop[256];
	int n = snprintf(stop, sizeof stop,
			 "fidelity=%.4f faithful=%llu processed=%llu cleaned=%u left=%u",
			 replay_fidelity(res), (unsigned long long)replay_faithful(res),
			 (unsigned long long)res->processed, res->cleaned, res->cleanup_left);
	if (x->tg.have_em && n > 0 && (size_t)n < sizeof stop)
		snprintf(stop + n, sizeof stop - (size_t)n, " late=%llu late_ns=%llu owed_ns=%llu",
			 (unsigned long long)x->tg.em.late, (unsigned long long)x->tg.em.late_ns,
			 (unsigned long long)x->tg.em.debt_ns);
	db_writer_event(x->st.w, db_mono_ns(), x->now.fatal ? "replay-error" : "replay-stop",
			x->now.fatal ? res->err : stop, 0);
	struct writer_stats ws;
	rc = db_writer_stop(x->st.w, x->now.fatal ? "incomplete" : "complete", &ws);
	x->st.w = NULL;
	if (rc && !x->now.fatal)
		rp_fail(x, rc, "%s: could not finalize trace %lld", o->db_path, (long long)id);
	/* The clients' times and the fidelity in one transaction: one commit
	 * (and sync) instead of one each. */
	int tx = !x->now.fatal && !db_exec(db, "BEGIN IMMEDIATE", NULL, 0);
	if (!x->now.fatal && rp_clients_finish(x, db, id, !ws.dropped))
		rp_fail(x, -EIO, "%s: trace %lld: the clients' times: %s", o->db_path,
			(long long)id, sqlite3_errmsg(db));
	if (!x->now.fatal && ws.dropped)
		rp_fail(x, -EIO, "%s: %llu rows could not be stored", o->db_path,
			(unsigned long long)ws.dropped);
	if (!x->now.fatal && store_fidelity(db, id, replay_fidelity(res)))
		rp_fail(x, -EIO, "%s: trace %lld: its fidelity: %s", o->db_path, (long long)id,
			sqlite3_errmsg(db));
	if (tx && db_exec(db, "COMMIT", NULL, 0)) {
		rp_fail(x, -EIO, "%s: trace %lld: its clients' times and fidelity: %s", o->db_path,
			(long long)id, sqlite3_errmsg(db));
		if (!sqlite3_get_autocommit(db))
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	}
	rc = x->now.fatal;
	if (!rc)
		res->status = "complete";
	return rc;
}

/* Whatever the run holds released (the emulator's figures kept in res), x
 * freed. */
static void run_release(struct rp *x, sqlite3 *db, uint64_t t_start)
{
	struct replay_result *res = x->res;
	res->wall_ns = db_mono_ns() - t_start;
	res->retries = x->tg.t.retries;
	if (x->tg.have_em) {
		res->emu_commands = x->tg.em.commands;
		res->emu_approx = x->tg.em.approx;
		res->emu_missing = x->tg.em.missing;
		res->emu_late = x->tg.em.late;
		res->emu_late_ns = x->tg.em.late_ns;
		res->emu_debt_ns = x->tg.em.debt_ns;
		emulate_release(&x->tg.em);
	}
	if (x->st.w)
		db_writer_stop(x->st.w, "incomplete", NULL);
	/* The run's rows are committed, and synced by its last commit: the WAL
	 * is folded into the file after the run's time is taken (15-25 ms at
	 * the end of a 10,000-command run: its sync, the copy, the file's sync,
	 * the truncation), leaving a self-contained file as before. */
	if (db)
		sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	db_close(db);
	tpmconn_close(&x->tg.t);
	sess_crypto_release(&x->sessions.cr);
	if (x->tg.spawned)
		swtpm_stop(&x->tg.sw);
	for (size_t i = 0; i < x->ent.n_ctx; i++)
		free(x->ent.ctx[i].blob);
	free(x->ent.ctx);
	for (size_t i = 0; i < x->ent.n_priv; i++)
		free(x->ent.priv[i].priv);
	free(x->ent.priv);
	free(x->cl.origin);
	free(x->cl.cl_last);
	free(x->cl.first_ns);
	free(x);
}

int rp_replay_run(const struct replay_opts *o, struct replay_result *res)
{
	struct rp *x = calloc(1, sizeof *x);
	sqlite3 *db = NULL;
	int64_t id = 0;
	int rc;
	uint64_t t_start = db_mono_ns();

	memset(res, 0, sizeof *res);
	res->status = "incomplete";
	if (!x) {
		snprintf(res->err, sizeof res->err, "out of memory");
		return -ENOMEM;
	}
	x->o = o;
	x->res = res;
	res->source_id = o->trace_id;
	if (!(rc = run_prepare(x, &db)) && !(rc = run_connect(x)) &&
	    !(rc = run_begin(x, db, &id))) {
		run_stream(x, db);
		rc = run_finish(x, db, id);
	}
	run_release(x, db, t_start);
	return rc;
}
