/* import_swlog_parse_mem (recorder/import/swtpm_log.h): reads swtpm's log at level 20
 * or more, block by block - a header line (SWTPM_IO_Read, SWTPM_IO_Write, Ctrl
 * Cmd, Ctrl Rsp) with its length, then hex lines - and pairs each command with
 * the response that follows it, numbered in order (the log has no times), and
 * each control-channel request with its answer, named as the proxy names them
 * (frame_ctrl, swtpm_ctrl_name). Results go to the caller's callbacks (the
 * import sink); input through log_reader.h. */
#include "recorder/import/swtpm_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tpm/wire.h"
#include "recorder/import/log_reader.h"
#include "recorder/transport/frame.h"
#include "recorder/transport/transport.h"

#define SWLOG_MAX_DUMP (1u << 20)

enum blk_kind { BLK_NONE, BLK_READ, BLK_WRITE, BLK_CTRL_CMD, BLK_CTRL_RSP };

struct buf {
	uint8_t *b;
	size_t len, cap;
};

struct parser {
	const char *name;
	const struct swlog_ops *ops;
	void *ctx;
	struct swlog_stats *st;
	char *err;
	size_t errlen;
	uint64_t ordinal;
	int locality;
	/* The dump being read. */
	enum blk_kind kind;
	long announced; /* -1: the header gave no length */
	unsigned line;	/* of its header */
	struct buf cur;
	/* A command waiting for its response. */
	int have_cmd;
	struct buf cmd;
	unsigned cmd_line;
	/* A control request waiting for its answer. */
	int have_ctrl;
	struct buf ctrl;
	unsigned ctrl_line;
};

static int buf_put(struct buf *b, uint8_t v)
{
	if (b->len == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		uint8_t *n = realloc(b->b, cap);
		if (!n)
			return -ENOMEM;
		b->b = n;
		b->cap = cap;
	}
	b->b[b->len++] = v;
	return 0;
}

static void buf_swap(struct buf *a, struct buf *b)
{
	struct buf t = *a;
	*a = *b;
	*b = t;
}

static int emit_cmd(struct parser *p, const uint8_t *rsp, size_t rsp_len, unsigned rsp_line)
{
	struct swlog_cmd c = {
	    .ordinal = ++p->ordinal,
	    .cmd = p->cmd.b,
	    .cmd_len = p->cmd.len,
	    .rsp = rsp,
	    .rsp_len = rsp_len,
	    .locality = p->locality,
	    .cmd_line = p->cmd_line,
	    .rsp_line = rsp_line,
	};
	p->have_cmd = 0;
	p->st->commands++;
	if (!rsp)
		p->st->no_response++;
	return p->ops->command ? p->ops->command(p->ctx, &c) : 0;
}

/* A control request with its answer (rsp NULL: none logged). The request is
 * a u32 code and its arguments; the answer starts with a u32 result
 * (swtpm_ioctls(3), ptm_res). */
static int emit_ctrl(struct parser *p, const uint8_t *rsp, size_t rsp_len)
{
	char kind[48], detail[96];
	uint32_t code = 0;

	/* The request as the proxy records it from the control channel. */
	if (frame_ctrl(p->ctrl.b, p->ctrl.len, &code, detail, sizeof detail))
		snprintf(kind, sizeof kind, "ctrl:short");
	else
		snprintf(kind, sizeof kind, "ctrl:%s", swtpm_ctrl_name(code));
	size_t dl = strlen(detail);
	if (rsp) {
		struct wire_rd a;
		wire_rd_init(&a, rsp, rsp_len);
		uint32_t res = wire_u32(&a);
		if (a.err)
			snprintf(detail + dl, sizeof detail - dl, "%sshort answer", dl ? " " : "");
		else if (res)
			snprintf(detail + dl, sizeof detail - dl, "%sresult=0x%x", dl ? " " : "",
				 res);
		else if (code == SWTPM_CMD_SET_LOCALITY && p->ctrl.len >= 5)
			p->locality = p->ctrl.b[4];
	} else {
		snprintf(detail + dl, sizeof detail - dl, "%sno answer logged", dl ? " " : "");
	}
	struct swlog_event e = {
	    .ordinal = ++p->ordinal,
	    .kind = kind,
	    .detail = detail[0] ? detail : NULL,
	    .line = p->ctrl_line,
	};
	p->have_ctrl = 0;
	p->st->ctrl++;
	return p->ops->event ? p->ops->event(p->ctx, &e) : 0;
}

static int fail(struct parser *p, unsigned line, const char *what)
{
	snprintf(p->err, p->errlen, "%s:%u: %s", p->name, line, what);
	return -EINVAL;
}

/* Ends the dump being read. at_eof: nothing follows it in the file. */
static int block_end(struct parser *p, int at_eof)
{
	int rc = 0;
	enum blk_kind k = p->kind;

	if (k == BLK_NONE)
		return 0;
	p->kind = BLK_NONE;
	if (p->announced >= 0 && (size_t)p->announced != p->cur.len) {
		if (at_eof && p->cur.len < (size_t)p->announced) {
			/* The log was copied while swtpm was writing it. */
			p->st->truncated++;
			p->st->truncated_line = p->line;
			return 0;
		}
		char msg[160];
		snprintf(msg, sizeof msg, "the header announces %ld bytes, the dump holds %zu",
			 p->announced, p->cur.len);
		return fail(p, p->line, msg);
	}
	/* A control request whose answer was not logged is finished by the next
	 * TPM message. A TPM command stays open across control messages: a
	 * CANCEL_TPM_CMD can arrive while it runs. */
	if ((k == BLK_READ || k == BLK_WRITE) && p->have_ctrl && (rc = emit_ctrl(p, NULL, 0)))
		return rc;
	switch (k) {
	case BLK_READ:
		if (p->have_cmd && (rc = emit_cmd(p, NULL, 0, 0)))
			return rc;
		buf_swap(&p->cmd, &p->cur);
		p->have_cmd = 1;
		p->cmd_line = p->line;
		break;
	case BLK_WRITE:
		if (!p->have_cmd) {
			p->st->unmatched++;
			break;
		}
		rc = emit_cmd(p, p->cur.b, p->cur.len, p->line);
		break;
	case BLK_CTRL_CMD:
		if (p->have_ctrl && (rc = emit_ctrl(p, NULL, 0)))
			return rc;
		buf_swap(&p->ctrl, &p->cur);
		p->have_ctrl = 1;
		p->ctrl_line = p->line;
		break;
	case BLK_CTRL_RSP:
		if (!p->have_ctrl) {
			p->st->unmatched++;
			break;
		}
		rc = emit_ctrl(p, p->cur.b, p->cur.len);
		break;
	case BLK_NONE:
		break;
	}
	p->cur.len = 0;
	return rc;
}

/* A dump line: pairs of hex digits separated by blanks (SWTPM_PrintAll
 * prints 16 per line with a leading and a trailing blank). */
static int is_hex_line(const char *s, size_t n)
{
	size_t i = 0, pairs = 0;
	while (i < n) {
		if (s[i] == ' ' || s[i] == '\t') {
			i++;
			continue;
		}
		if (i + 1 >= n || import_log_hexval(s[i]) < 0 || import_log_hexval(s[i + 1]) < 0)
			return 0;
		if (i + 2 < n && s[i + 2] != ' ' && s[i + 2] != '\t')
			return 0;
		i += 2;
		pairs++;
	}
	return pairs > 0;
}

/* "length N" after a header, if present: returns N, -1 when absent, -2 when
 * malformed. */
static long header_length(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && s[i] == ' ')
		i++;
	if (i == n)
		return -1;
	if (n - i < 7 || memcmp(s + i, "length ", 7))
		return -2;
	i += 7;
	long v = 0;
	size_t d = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9' && d < 9) {
		v = v * 10 + (s[i++] - '0');
		d++;
	}
	while (i < n && (s[i] == ' ' || s[i] == '\r'))
		i++;
	return d && i == n ? v : -2;
}

static const struct {
	const char *tag;
	enum blk_kind kind;
} headers[] = {
    {"SWTPM_IO_Read:", BLK_READ},
    {"SWTPM_IO_Write:", BLK_WRITE},
    {"Ctrl Cmd:", BLK_CTRL_CMD},
    {"Ctrl Rsp:", BLK_CTRL_RSP},
};

int import_swlog_parse_mem(const char *buf, size_t len, const char *name,
			   const struct swlog_ops *ops, void *ctx, struct swlog_stats *st,
			   char *err, size_t errlen)
{
	struct swlog_stats dummy;
	struct parser p;
	unsigned lineno = 0;
	uint64_t headers_seen = 0;
	int rc = 0;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof *st);
	memset(&p, 0, sizeof p);
	p.name = name;
	p.ops = ops;
	p.ctx = ctx;
	p.st = st;
	p.err = err;
	p.errlen = errlen;
	p.locality = -1;
	if (errlen)
		err[0] = 0;
	if (len && memchr(buf, 0, len)) {
		snprintf(err, errlen, "%s: binary data, not a swtpm log", name);
		return -EINVAL;
	}
	for (size_t off = 0; off < len;) {
		const char *s = buf + off;
		const char *nl = memchr(s, '\n', len - off);
		size_t n = nl ? (size_t)(nl - s) : len - off;
		off += n + (nl ? 1 : 0);
		lineno++;
		if (n && s[n - 1] == '\r')
			n--;
		int hdr = -1;
		const char *at = NULL;
		for (size_t i = 0; i < sizeof headers / sizeof headers[0] && hdr < 0; i++)
			if ((at = memmem(s, n, headers[i].tag, strlen(headers[i].tag))))
				hdr = (int)i;
		if (hdr >= 0) {
			if ((rc = block_end(&p, 0)))
				goto out;
			size_t tl = strlen(headers[hdr].tag);
			long l = header_length(at + tl, n - (size_t)(at - s) - tl);
			if (l == -2) {
				rc = fail(&p, lineno, "header without a valid 'length N'");
				goto out;
			}
			if (l > (long)SWLOG_MAX_DUMP) {
				rc = fail(&p, lineno, "dump longer than 1 MiB");
				goto out;
			}
			p.kind = headers[hdr].kind;
			p.announced = l;
			p.line = lineno;
			p.cur.len = 0;
			headers_seen++;
			continue;
		}
		if (is_hex_line(s, n)) {
			if (p.kind == BLK_NONE) {
				rc = fail(&p, lineno,
					  "hex dump without a SWTPM_IO_Read/"
					  "SWTPM_IO_Write/Ctrl header");
				goto out;
			}
			for (size_t i = 0; i < n; i++) {
				if (s[i] == ' ' || s[i] == '\t')
					continue;
				if (p.cur.len >= SWLOG_MAX_DUMP) {
					rc = fail(&p, p.line, "dump longer than 1 MiB");
					goto out;
				}
				if ((rc =
					 buf_put(&p.cur, (uint8_t)(import_log_hexval(s[i]) << 4 |
								   import_log_hexval(s[i + 1]))))) {
					snprintf(err, errlen, "%s: out of memory", name);
					goto out;
				}
				i++;
			}
			continue;
		}
		/* Anything else ("Data client disconnected", libtpms messages)
		 * ends the dump being read. */
		if ((rc = block_end(&p, 0)))
			goto out;
		size_t k = 0;
		while (k < n && (s[k] == ' ' || s[k] == '\t'))
			k++;
		if (k < n)
			st->other_lines++;
	}
	if ((rc = block_end(&p, 1)))
		goto out;
	if (p.have_ctrl && (rc = emit_ctrl(&p, NULL, 0)))
		goto out;
	if (p.have_cmd && (rc = emit_cmd(&p, NULL, 0, 0)))
		goto out;
	if (!headers_seen) {
		snprintf(err, errlen,
			 "%s: no SWTPM_IO_Read/SWTPM_IO_Write/Ctrl dumps (was swtpm run with "
			 "--log level=20 or higher?)",
			 name);
		rc = -ENODATA;
	}
out:
	st->lines = lineno;
	free(p.cur.b);
	free(p.cmd.b);
	free(p.ctrl.b);
	return rc;
}
