/* record --kernel's early-boot way (kernel_rec.h): kprobe events defined on
 * the kernel command line trace every tpm_transmit from before user space
 * exists; their text output is read back and merged into the trace ahead of
 * the eBPF part, each command marked partial (only its leading bytes). */
#include "recorder/kernel/kernel_rec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/writer.h"

#define EARLY_BYTES 64 /* the longest array a kprobe event fetches (MAX_ARRAY_LEN) */

const char *kernel_early_cmdline(void)
{
	/* Spaces of the kprobe_events syntax are commas on the command line;
	 * trace_clock=mono stamps the events with CLOCK_MONOTONIC. */
	return "trace_clock=mono kprobe_event=p:tpmtrace/tx,tpm_transmit,cmd=+0($arg2):x8[64];"
	       "r:tpmtrace/txr,tpm_transmit,ret=$retval";
}

/* "comm-pid [cpu] flags  123.456789: tx: ..." -> pid, time (ns), the text
 * after "NAME: ". Returns 1 for a tx line, 2 for txr, 0 for anything else. */
static int parse_line(const char *line, long *pid, uint64_t *t_ns, const char **rest)
{
	const char *tag = strstr(line, ": tx: ");
	int kind = 1;
	if (!tag) {
		tag = strstr(line, ": txr: ");
		kind = 2;
	}
	if (!tag)
		return 0;
	/* the timestamp: the token that ends at tag */
	const char *e = tag, *b = tag;
	while (b > line && b[-1] != ' ')
		b--;
	char ts[32];
	size_t n = (size_t)(e - b);
	if (n == 0 || n >= sizeof ts)
		return 0;
	memcpy(ts, b, n);
	ts[n] = 0;
	char *dot = strchr(ts, '.');
	if (!dot)
		return 0;
	*dot = 0;
	char frac[10] = "000000000";
	size_t fl = strlen(dot + 1);
	memcpy(frac, dot + 1, fl > 9 ? 9 : fl);
	*t_ns = strtoull(ts, NULL, 10) * 1000000000ull + strtoull(frac, NULL, 10);
	/* the pid: the digits before the first '[' after a '-' */
	const char *br = strchr(line, '[');
	if (!br || br > b)
		return 0;
	const char *d = br;
	while (d > line && d[-1] == ' ')
		d--;
	const char *ds = d;
	while (ds > line && ds[-1] >= '0' && ds[-1] <= '9')
		ds--;
	if (ds == d || ds == line || ds[-1] != '-')
		return 0;
	*pid = strtol(ds, NULL, 10);
	*rest = tag + (kind == 1 ? 6 : 7);
	return kind;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

struct pending {
	long pid;
	uint64_t t;
	uint8_t b[EARLY_BYTES];
	unsigned n;
	int used;
};

static void emit(struct kernel_trace *t, const struct pending *p, uint64_t t_end, long ret)
{
	struct recorder *r = t->rec;
	if (!r->w || p->n < 10)
		return;
	if (!t->early_client)
		t->early_client = recorder_client_proc(r, 0, "kernel", "early-boot", p->t);
	/* the array is 64 bytes whatever the command's size: what is beyond
	 * its size field is the buffer's old contents */
	uint32_t n = p->n, size = be32(p->b + 2);
	if (size >= 10 && size < n)
		n = size;
	uint32_t keep = r->payloads == PAYLOADS_FULL ? n : 0;
	struct rec *x = db_writer_reserve(r->w, REC_COMMAND, keep);
	if (!x)
		return;
	/* Known: the code, the leading bytes, the times, the response's
	 * length (tpm_transmit's return). Not known: the response code. So
	 * the row is as an ftrace row (no_bytes: tag, sizes and rc NULL),
	 * with the bytes kept where --payloads full asks (a prefix cannot be
	 * redacted with certainty: none is kept otherwise). */
	x->no_bytes = 1;
	x->has_rsp = ret > 0;
	x->cc = be32(p->b + 6);
	x->pcr = -1;
	if (x->cc == 0x182 && n >= 14) {
		x->n_handles = 1;
		x->handles[0] = be32(p->b + 10);
		if (x->handles[0] < 32)
			x->pcr = (int32_t)x->handles[0];
	}
	x->client_id = t->early_client;
	x->t_submit = p->t;
	x->t_done = t_end;
	x->flags = REC_F_PARTIAL | (ret > 0 ? 0 : REC_F_NO_RESPONSE);
	if (keep) {
		memcpy(x->payload, p->b, keep);
		x->cmd_len = keep;
	}
	db_writer_publish(r->w);
	t->early++;
}

int kernel_early_import(struct kernel_trace *t, const char *path, uint64_t before_ns, char *err,
			size_t errlen)
{
	FILE *f = fopen(path, "re");
	char line[2048];
	struct pending pend[16];
	memset(pend, 0, sizeof pend);
	if (!f) {
		snprintf(err, errlen, "--early %s: %s", path, strerror(errno));
		return -errno;
	}
	while (fgets(line, sizeof line, f)) {
		long pid;
		uint64_t ts;
		const char *rest;
		int k = parse_line(line, &pid, &ts, &rest);
		if (k == 1) {
			const char *a = strstr(rest, "cmd={");
			if (!a)
				continue;
			struct pending *p = &pend[(unsigned long)pid % 16];
			memset(p, 0, sizeof *p);
			p->pid = pid;
			p->t = ts;
			p->used = 1;
			for (const char *q = a + 5; *q && *q != '}' && p->n < EARLY_BYTES;) {
				char *end;
				unsigned long v = strtoul(q, &end, 16);
				if (end == q)
					break;
				p->b[p->n++] = (uint8_t)v;
				q = *end == ',' ? end + 1 : end;
			}
		} else if (k == 2) {
			struct pending *p = &pend[(unsigned long)pid % 16];
			if (!p->used || p->pid != pid)
				continue;
			const char *a = strstr(rest, "ret=");
			long ret = a ? strtol(a + 4, NULL, 0) : -1;
			if (p->t < before_ns)
				emit(t, p, ts, ret);
			p->used = 0;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		snprintf(err, errlen, "--early %s: read error", path);
		return -EIO;
	}
	return 0;
}
