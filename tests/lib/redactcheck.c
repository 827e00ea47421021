/* redactcheck DB MARKERS: redaction of every command code in the command
 * table (model/tpm/tpm_cc.def), through the recorder's own path.
 *
 * For each code it builds a command and a success response whose parameters
 * follow the table's secret layout (cmd_secret, rsp_secret), every TPM2B
 * holding a 16-byte marker, secret or public as the layout says, a public
 * TPM2B after the last listed parameter, and a password session per
 * authorized handle (its password a secret marker). Where the layout lists
 * none, the first parameter is a public TPM2B (or an integer). A command that
 * its full layout does not parse so (a parameter runs past the end) is not
 * accepted and is stored as its header: its public markers are then expected
 * absent like the secret ones. Each pair goes
 * through recorder_log() with payloads redacted into DB by the batched writer,
 * as the proxy stores it. Then, with the writer still running (its WAL live)
 * and again after it stopped, the database, -wal and -shm files must hold no
 * secret marker, and must hold the public ones (the search works); every
 * stored row must have its secret fields zeroed at the same offsets with the
 * sizes kept and its public fields intact. MARKERS gets one line per marker,
 * "secret HEX" or "public HEX", and one per command with secret parameters,
 * "command NAME", for the export, report and documentation checks of
 * tests/integration/test_redaction_every_command_code.sh.
 * Exit 0 when every check passed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "db/writer.h"
#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/walk.h"
#include "model/tpm/wire.h"
#include "recorder/recorder.h"
#include "testlib.h"

#define MARK	    16
#define MAX_MARKERS 4096

struct marker {
	uint8_t b[MARK];
	size_t len;
	int secret;
	uint32_t cc;
};
static struct marker markers[MAX_MARKERS];
static unsigned n_markers;

/* A marker no other part of any message holds: a tag byte, the code, the
 * field, then bytes from a small PRNG (so that hex and base64 forms are
 * distinctive too). */
static const uint8_t *mark(uint32_t cc, int dir, int idx, int secret, size_t len)
{
	struct marker *m = &markers[n_markers++];
	uint32_t x = cc * 2654435761u ^ (uint32_t)(dir * 40503 + idx * 7919 + secret * 104729);
	m->b[0] = secret ? 0xA5 : 0x5A;
	wire_put_u16(m->b + 1, (uint16_t)cc);
	m->b[3] = (uint8_t)(dir << 4 | idx);
	for (size_t i = 4; i < MARK; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		m->b[i] = (uint8_t)(x >> 11);
	}
	m->len = len;
	m->secret = secret;
	m->cc = cc;
	return m->b;
}

/* Parameters as the layout says, then a public TPM2B. */
static void params(struct wire_wr *w, uint32_t cc, int dir, const char *layout, int first_tpm2b)
{
	int idx = 0;
	if (!*layout && !first_tpm2b)
		wire_wr_u32(w, 0x11111111); /* an integer first: kept */
	for (const char *l = layout; *l; l++) {
		int secret = *l == '!' || *l == 'S';
		if (*l == '!')
			l++;
		if (*l == 'S' || *l == 'B') {
			wire_wr_tpm2b(w, mark(cc, dir, idx++, secret, MARK), MARK);
		} else {
			size_t n = (size_t)(*l - '0');
			if (secret)
				wire_wr_bytes(w, mark(cc, dir, idx++, 1, n), n);
			else
				for (size_t i = 0; i < n; i++)
					wire_wr_u8(w, 0x11);
		}
	}
	wire_wr_tpm2b(w, mark(cc, dir, idx, 0, MARK), MARK);
}

static size_t build_cmd(const struct tpm_cc_info *i, uint8_t *b, size_t cap)
{
	struct wire_wr w;
	wire_wr_init(&w, b, cap);
	int sess = i->auth_handles > 0;
	wire_wr_u16(&w, sess ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, i->cc);
	for (unsigned k = 0; k < i->handles_in; k++)
		wire_wr_u32(&w, 0x80000010 + k);
	if (sess) {
		/* One password session per authorized handle (Part 1 18.6). */
		size_t at = w.off;
		wire_wr_u32(&w, 0);
		for (unsigned k = 0; k < i->auth_handles; k++) {
			wire_wr_u32(&w, TPM_RS_PW);
			wire_wr_u16(&w, 0);
			wire_wr_u8(&w, 0);
			wire_wr_tpm2b(&w, mark(i->cc, 3, (int)k, 1, MARK), MARK);
		}
		wire_put_u32(b + at, (uint32_t)(w.off - at - 4));
	}
	params(&w, i->cc, 1, i->cmd_secret, i->cmd_tpm2b);
	wire_put_u32(b + 2, (uint32_t)w.off);
	return w.err ? 0 : w.off;
}

static size_t build_rsp(const struct tpm_cc_info *i, uint8_t *b, size_t cap)
{
	struct wire_wr w;
	wire_wr_init(&w, b, cap);
	int sess = i->auth_handles > 0;
	wire_wr_u16(&w, sess ? TPM_ST_SESSIONS : TPM_ST_NO_SESSIONS);
	wire_wr_u32(&w, 0);
	wire_wr_u32(&w, 0);
	if (i->handles_out)
		wire_wr_u32(&w, 0x80000002);
	size_t at = w.off;
	if (sess)
		wire_wr_u32(&w, 0);
	params(&w, i->cc, 2, i->rsp_secret, i->rsp_tpm2b);
	if (sess) {
		wire_put_u32(b + at, (uint32_t)(w.off - at - 4));
		for (unsigned k = 0; k < i->auth_handles; k++) {
			wire_wr_u16(&w, 0);
			wire_wr_u8(&w, 0);
			wire_wr_u16(&w, 0);
		}
	}
	wire_put_u32(b + 2, (uint32_t)w.off);
	return w.err ? 0 : w.off;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	uint8_t *b = tl_read_file(path, len);
	if (!b)
		*len = 0;
	return b;
}

static int has(const uint8_t *hay, size_t n, const uint8_t *needle, size_t m)
{
	for (size_t i = 0; hay && i + m <= n; i++)
		if (hay[i] == needle[0] && !memcmp(hay + i, needle, m))
			return 1;
	return 0;
}

/* Secret markers in the database files (none allowed) and public ones
 * (all expected somewhere: the search can find what is there). */
static void search_files(const char *db, const char *when)
{
	static const char *const sfx[] = {"", "-wal", "-shm"};
	uint8_t *f[3];
	size_t n[3];
	char p[4200];
	for (int k = 0; k < 3; k++) {
		snprintf(p, sizeof p, "%s%s", db, sfx[k]);
		f[k] = slurp(p, &n[k]);
	}
	unsigned secret_found = 0, public_missing = 0;
	for (unsigned m = 0; m < n_markers; m++) {
		int found = 0;
		for (int k = 0; k < 3 && !found; k++)
			found = has(f[k], n[k], markers[m].b, markers[m].len);
		if (markers[m].secret && found) {
			secret_found++;
			fprintf(stderr, "secret of %s (0x%x) found %s\n",
				tpm_cc_name(markers[m].cc), markers[m].cc, when);
		}
		if (!markers[m].secret && !found)
			public_missing++;
	}
	CHECK(secret_found == 0, "%u secret markers in the database files %s", secret_found, when);
	CHECK(public_missing == 0, "%u public markers missing %s", public_missing, when);
	printf("%s: %zu+%zu+%zu bytes searched, %u secret markers found, %u public missing\n", when,
	       n[0], n[1], n[2], secret_found, public_missing);
	for (int k = 0; k < 3; k++)
		free(f[k]);
}

/* Every stored row against the message it came from: secret bytes zero, the
 * rest unchanged, sizes kept. */
static void check_rows(const char *path, uint8_t (*cmds)[512], size_t *clen, uint8_t (*rsps)[512],
		       size_t *rlen, unsigned n)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char err[256];
	CHECK(db_open(path, DB_READ, &db, err, sizeof err) == 0, "%s", err);
	if (!db)
		return;
	sqlite3_prepare_v2(db, "SELECT cc, cmd, rsp, flags FROM command ORDER BY seq", -1, &st,
			   NULL);
	unsigned k = 0, bad = 0, unredacted = 0;
	while (sqlite3_step(st) == SQLITE_ROW && k < n) {
		const uint8_t *c = sqlite3_column_blob(st, 1), *r = sqlite3_column_blob(st, 2);
		size_t cl = (size_t)sqlite3_column_bytes(st, 1),
		       rl = (size_t)sqlite3_column_bytes(st, 2);
		if (cl != clen[k] || rl != rlen[k]) {
			bad++;
			fprintf(stderr, "0x%x: sizes %zu/%zu, sent %zu/%zu\n",
				(unsigned)sqlite3_column_int64(st, 0), cl, rl, clen[k], rlen[k]);
		} else {
			/* Where stored and sent differ, the stored byte is 0 and the
			 * sent one belongs to a secret marker. */
			for (int d = 0; d < 2; d++) {
				const uint8_t *s = d ? r : c, *o = d ? rsps[k] : cmds[k];
				size_t len = d ? rl : cl;
				for (size_t i = 0; i < len; i++)
					if (s[i] != o[i] && s[i] != 0)
						bad++;
			}
		}
		int any = 0;
		for (unsigned m = 0; m < n_markers; m++)
			any |= markers[m].secret &&
			       markers[m].cc == (uint32_t)sqlite3_column_int64(st, 0);
		if (any && !(sqlite3_column_int64(st, 3) & 1))
			unredacted++;
		k++;
	}
	sqlite3_finalize(st);
	db_close(db);
	CHECK(k == n, "%u rows stored of %u", k, n);
	CHECK(bad == 0, "%u rows with changed sizes or bytes changed to non-zero", bad);
	CHECK(unredacted == 0, "%u rows with secrets not flagged redacted", unredacted);
}

static int walk_nothing(void *ctx, const struct tpm_walk_field *f)
{
	(void)ctx;
	(void)f;
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t cmds[200][512], rsps[200][512];
	static size_t clen[200], rlen[200];
	struct transport none = {.desc = "redactcheck"};
	struct writer *w = NULL;
	struct recorder rec;
	char err[512];
	sqlite3 *db;
	if (argc != 3) {
		fprintf(stderr, "usage: redactcheck DB MARKERS\n");
		return 2;
	}
	if (db_open(argv[1], DB_CREATE, &db, err, sizeof err)) {
		fprintf(stderr, "redactcheck: %s\n", err);
		return 1;
	}
	struct trace_info ti = {.name = "redactcheck", .kind = "record", .payloads = "redacted"};
	int64_t id = db_trace_begin(db, &ti);
	db_close(db);
	struct writer_cfg wc = {.path = argv[1], .trace_id = id, .block_when_full = 1};
	if (id < 0 || db_writer_start(&w, &wc, err, sizeof err)) {
		fprintf(stderr, "redactcheck: %s\n", err);
		return 1;
	}
	recorder_init(&rec, w, &none, PAYLOADS_REDACTED);
	const struct tpm_cc_info *i;
	unsigned n = 0, with_secret = 0, rejected = 0;
	for (unsigned k = 0; (i = tpm_cc_at(k)) && n < 200; k++, n++) {
		clen[n] = build_cmd(i, cmds[n], sizeof cmds[n]);
		rlen[n] = build_rsp(i, rsps[n], sizeof rsps[n]);
		struct tpm_cmd c;
		struct tpm_rsp r;
		CHECK(clen[n] && tpm_cmd_decode(cmds[n], clen[n], &c) == 0,
		      "%s: command does not parse", i->name);
		CHECK(rlen[n] && tpm_rsp_decode(rsps[n], rlen[n], i->cc, &r) == 0,
		      "%s: response does not parse", i->name);
		with_secret += i->cmd_secret[0] || i->rsp_secret[0];
		/* Built from the secret columns, not the full layout: where
		 * the layout's walk does not parse it, the command is not
		 * accepted and is stored as its header (model/tpm/redact.c),
		 * so its public parameters are expected gone as well. */
		if (c.info && tpm_walk_cmd(cmds[n], clen[n], &c, 0, walk_nothing, NULL) == -1) {
			rejected++;
			for (unsigned m = 0; m < n_markers; m++)
				if (markers[m].cc == i->cc && markers[m].b[3] >> 4 == 1)
					markers[m].secret = 1;
		}
		struct rec_timing tm = {.t_submit = 1000 + 2 * n, .t_done = 1001 + 2 * n};
		recorder_log(&rec, 0, 0, cmds[n], clen[n], rsps[n], rlen[n], &tm);
	}
	db_writer_flush(w);
	search_files(argv[1], "while recording");
	struct writer_stats st;
	db_writer_stop(w, "complete", &st);
	search_files(argv[1], "after recording");
	check_rows(argv[1], cmds, clen, rsps, rlen, n);
	printf("%u command codes, %u with secret parameters, %u markers; %u commands not "
	       "parsed by their layouts (stored as their header)\n",
	       n, with_secret, n_markers, rejected);
	FILE *f = fopen(argv[2], "w");
	CHECK(f != NULL, "%s", argv[2]);
	for (unsigned m = 0; f && m < n_markers; m++) {
		fprintf(f, "%s ", markers[m].secret ? "secret" : "public");
		for (size_t b = 0; b < markers[m].len; b++)
			fprintf(f, "%02x", markers[m].b[b]);
		fputc('\n', f);
	}
	for (unsigned k = 0; f && (i = tpm_cc_at(k)); k++)
		if (i->cmd_secret[0] || i->rsp_secret[0])
			fprintf(f, "command %s\n", i->name);
	if (f)
		fclose(f);
	return tl_finish("redactcheck");
}
