#include "recorder/import/pcap_import.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "db/writer.h"
#include "recorder/import/log_reader.h"
#include "model/tpm/wire.h"

/* Framing limits. A TPM message is at most a few KiB (the kernel allows 4096,
 * the simulator 4096 + headers); a size field beyond this is garbage, not a
 * message to wait for. */
#define MAX_FRAME  65536u
#define MAX_OOO	   32 /* out-of-order segments held per direction */
#define HASH_SIZE  4096
#define CLIENT_MAX 64

/* MS simulator command-port codes (TpmTcpProtocol.h). */
#define MSSIM_SEND_COMMAND     8
#define MSSIM_HASH_START       5
#define MSSIM_HASH_DATA	       6
#define MSSIM_HASH_END	       7
#define MSSIM_REMOTE_HANDSHAKE 15
#define MSSIM_SESSION_END      20
#define MSSIM_STOP	       21

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04

enum mode { MODE_UNKNOWN = 0, MODE_RAW, MODE_MSSIM };
enum { TO_TPM = 0, FROM_TPM = 1 };

struct seg {
	struct seg *next;
	uint32_t seq;
	uint32_t len;
	uint64_t t;
	uint64_t pkt;
	uint8_t data[];
};

struct dir {
	int seq_valid;
	uint32_t next_seq;
	uint8_t *buf; /* bytes not yet framed */
	size_t len, cap;
	uint32_t skip; /* bytes to drop first (simulator response trailer) */
	struct seg *ooo;
	unsigned n_ooo;
};

/* A command sent and not yet answered, or a simulator request whose reply
 * is a fixed number of bytes (rsp_bytes, cmd == NULL). */
struct pending {
	struct pending *next;
	uint8_t *cmd;
	size_t cmd_len;
	uint32_t rsp_bytes;
	int locality;
	uint64_t t;
	uint64_t pkt;
};

struct conn_key {
	uint8_t family; /* 4 or 6 */
	uint8_t client[16], tpm[16];
	uint16_t client_port, tpm_port;
};

struct conn {
	struct conn *hnext;
	struct conn *prev, *next;   /* open connections, in order of appearance */
	struct conn *lprev, *lnext; /* ... least recently seen first */
	uint64_t last_t;	    /* capture time of its last packet */
	uint8_t fin;		    /* bit per direction: FIN seen */
	size_t *held;		    /* the importer's count of bytes held */
	struct conn_key key;
	uint32_t id;
	int platform; /* the simulator platform port (TPM port + 1) */
	enum mode mode;
	char peer[CLIENT_MAX];
	struct dir d[2];
	struct pending *head, *tail;
};

struct pcap_import {
	struct pcap_import_cfg cfg;
	struct pcap_import_ops ops;
	void *ctx;
	struct conn *hash[HASH_SIZE];
	struct conn *first, *last; /* open connections, in order of appearance */
	struct conn *lru, *mru;	   /* ... by their last packet */
	size_t n_open;
	size_t bytes; /* held for open connections: buffers, pending commands */
	uint32_t last_id;
	struct pcap_import_stats st;
	uint64_t pkt;  /* current packet number */
	uint64_t t;    /* current packet time */
	int rc;	       /* first callback failure */
	char why[200]; /* what went wrong, for a failure that is not a callback's */
};

const char *pcap_import_linktype_str(int dlt)
{
	switch (dlt) {
	case DLT_NULL:
		return "BSD loopback";
	case DLT_LOOP:
		return "OpenBSD loopback";
	case DLT_EN10MB:
		return "Ethernet";
	case DLT_RAW:
		return "raw IP";
	case DLT_IPV4:
		return "raw IPv4";
	case DLT_IPV6:
		return "raw IPv6";
	case DLT_LINUX_SLL:
		return "Linux cooked (SLL)";
	case DLT_LINUX_SLL2:
		return "Linux cooked v2 (SLL2)";
	}
	return "unsupported";
}

/* ---- callbacks ---- */

static void emit_event(struct pcap_import *pi, struct conn *c, const char *kind, const char *detail)
{
	struct pcap_tpm_event e = {pi->t, kind, detail, c ? c->id : 0, pi->pkt};
	pi->st.events++;
	if (pi->ops.event && !pi->rc)
		pi->rc = pi->ops.event(pi->ctx, &e);
}

static void emit_command(struct pcap_import *pi, struct conn *c, struct pending *p,
			 const uint8_t *rsp, size_t rsp_len)
{
	struct pcap_tpm_cmd x;

	memset(&x, 0, sizeof(x));
	x.t_submit_ns = p->t;
	x.t_done_ns = rsp ? pi->t : 0;
	x.cmd = p->cmd;
	x.cmd_len = p->cmd_len;
	x.rsp = rsp;
	x.rsp_len = rsp ? rsp_len : 0;
	x.locality = p->locality;
	x.client_id = c->id;
	x.client = c->peer;
	x.flags = pi->cfg.flags;
	x.ts_res_ns = pi->cfg.ts_res_ns;
	x.cmd_packet = p->pkt;
	x.rsp_packet = rsp ? pi->pkt : 0;
	tpm_cmd_decode(p->cmd, p->cmd_len, &x.dc);
	if (rsp)
		tpm_rsp_decode(rsp, rsp_len, x.dc.info ? x.dc.cc : 0, &x.dr);
	else
		x.flags |= REC_F_NO_RESPONSE;
	x.malformed = x.dc.malformed ? x.dc.malformed : x.dr.malformed;
	if (x.malformed) {
		x.flags |= REC_F_MALFORMED;
		pi->st.malformed++;
	}
	if (!rsp)
		pi->st.no_response++;
	pi->st.commands++;
	if (pi->ops.command && !pi->rc)
		pi->rc = pi->ops.command(pi->ctx, &x);
}

/* ---- commands waiting for responses ---- */

static int pending_push(struct conn *c, const uint8_t *cmd, size_t len, uint32_t rsp_bytes,
			int locality, uint64_t t, uint64_t pkt)
{
	struct pending *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (cmd) {
		p->cmd = malloc(len ? len : 1);
		if (!p->cmd) {
			free(p);
			return -ENOMEM;
		}
		memcpy(p->cmd, cmd, len);
	}
	p->cmd_len = len;
	*c->held += sizeof(*p) + len;
	p->rsp_bytes = rsp_bytes;
	p->locality = locality;
	p->t = t;
	p->pkt = pkt;
	if (c->tail)
		c->tail->next = p;
	else
		c->head = p;
	c->tail = p;
	return 0;
}

static struct pending *pending_pop(struct conn *c)
{
	struct pending *p = c->head;
	if (p) {
		c->head = p->next;
		if (!c->head)
			c->tail = NULL;
	}
	return p;
}

static void pending_free(struct conn *c, struct pending *p)
{
	if (p) {
		*c->held -= sizeof(*p) + p->cmd_len;
		free(p->cmd);
		free(p);
	}
}

/* A response (framing stripped): the oldest unanswered command gets it; the
 * TPM answers one command at a time, in order (Part 1 section 18). */
static void on_response(struct pcap_import *pi, struct conn *c, const uint8_t *rsp, size_t len)
{
	struct pending *p = c->head;
	char detail[96];

	if (!p || !p->cmd) {
		pi->st.unmatched++;
		snprintf(detail, sizeof detail,
			 "%zu-byte response without a command, code 0x%08" PRIx32, len,
			 len >= 10 ? wire_get_u32(rsp + 6) : 0);
		emit_event(pi, c, "unmatched_response", detail);
		return;
	}
	pending_pop(c);
	emit_command(pi, c, p, rsp, len);
	pending_free(c, p);
}

/* ---- framing ---- */

static int is_tpm_tag(uint16_t tag)
{
	return tag == TPM_ST_NO_SESSIONS || tag == TPM_ST_SESSIONS ||
	       (tag >= 0x00C1 && tag <= 0x00C6);
}

static const char *platform_name(uint32_t code)
{
	static const char *const names[] = {
	    [1] = "POWER_ON",
	    [2] = "POWER_OFF",
	    [3] = "PHYS_PRES_ON",
	    [4] = "PHYS_PRES_OFF",
	    [5] = "HASH_START",
	    [6] = "HASH_DATA",
	    [7] = "HASH_END",
	    [8] = "SEND_COMMAND",
	    [9] = "CANCEL_ON",
	    [10] = "CANCEL_OFF",
	    [11] = "NV_ON",
	    [12] = "NV_OFF",
	    [13] = "KEY_CACHE_ON",
	    [14] = "KEY_CACHE_OFF",
	    [15] = "REMOTE_HANDSHAKE",
	    [16] = "SET_ALTERNATIVE_RESULT",
	    [17] = "RESET",
	    [18] = "RESTART",
	    [20] = "SESSION_END",
	    [21] = "STOP",
	    [25] = "GET_COMMAND_RESPONSE_SIZES",
	    [30] = "TEST_FAILURE_MODE",
	};
	if (code < sizeof(names) / sizeof(names[0]) && names[code])
		return names[code];
	return NULL;
}

/* The connection's framing, from its first bytes: raw TPM messages start with
 * a TPM tag; the simulator's start with a big-endian u32 (8 for a command, a
 * response size below 64 KiB), so with two zero bytes. */
static enum mode detect_mode(const uint8_t *b, size_t len)
{
	if (len < 2)
		return MODE_UNKNOWN;
	uint16_t v = wire_get_u16(b);
	if (is_tpm_tag(v))
		return MODE_RAW;
	if (v == 0)
		return MODE_MSSIM;
	return MODE_RAW; /* garbage: framed by the size field, reported malformed */
}

static void dir_consume(struct dir *d, size_t n)
{
	memmove(d->buf, d->buf + n, d->len - n);
	d->len -= n;
}

/* A message whose size field cannot be right: everything buffered becomes one
 * message, so the bytes stay visible (the decoder says what is wrong) and
 * framing restarts with the next segment. */
static void frame_garbage(struct pcap_import *pi, struct conn *c, int di)
{
	struct dir *d = &c->d[di];
	if (di == TO_TPM) {
		if (pending_push(c, d->buf, d->len, 0, -1, pi->t, pi->pkt) < 0 && !pi->rc)
			pi->rc = -ENOMEM;
	} else {
		on_response(pi, c, d->buf, d->len);
	}
	d->len = 0;
}

/* Frames as many whole messages as the buffer holds. final: the capture
 * ended, a partial message is passed on as it is (the decoder reports it
 * truncated). */
static void dir_frame(struct pcap_import *pi, struct conn *c, int di, int final)
{
	struct dir *d = &c->d[di];
	char detail[96];

	while (!pi->rc) {
		if (d->skip) {
			uint32_t n = d->skip < d->len ? d->skip : (uint32_t)d->len;
			dir_consume(d, n);
			d->skip -= n;
			if (d->skip)
				break;
		}
		if (!d->len)
			break;
		if (c->platform) {
			/* Platform port (TPM port + 1): the client sends u32 codes, the
			 * simulator answers each with a u32; only requests matter. */
			if (di == FROM_TPM) {
				d->len = 0;
				break;
			}
			if (d->len < 4) {
				if (final)
					d->len = 0;
				break;
			}
			uint32_t code = wire_get_u32(d->buf);
			const char *name = platform_name(code);
			char kind[32];
			if (!name) {
				snprintf(kind, sizeof kind, "PLATFORM_%" PRIu32, code);
				name = kind;
			}
			snprintf(detail, sizeof detail, "simulator platform port %u",
				 (unsigned)c->key.tpm_port);
			emit_event(pi, c, name, detail);
			dir_consume(d, 4);
			continue;
		}
		if (c->mode == MODE_UNKNOWN) {
			c->mode = detect_mode(d->buf, d->len);
			if (c->mode == MODE_UNKNOWN) {
				if (final)
					frame_garbage(pi, c, di);
				break;
			}
		}
		if (c->mode == MODE_RAW) {
			/* Part 1 section 18.2: tag u16, size u32 (whole message), code u32. */
			if (d->len < 6) {
				if (final)
					frame_garbage(pi, c, di);
				break;
			}
			uint32_t size = wire_get_u32(d->buf + 2);
			if (size < TPM_HEADER_SIZE || size > MAX_FRAME) {
				frame_garbage(pi, c, di);
				break;
			}
			if (d->len < size) {
				if (final)
					frame_garbage(pi, c, di);
				break;
			}
			if (di == TO_TPM) {
				if (pending_push(c, d->buf, size, 0, -1, pi->t, pi->pkt) < 0)
					pi->rc = -ENOMEM;
			} else {
				on_response(pi, c, d->buf, size);
			}
			dir_consume(d, size);
			continue;
		}
		/* Simulator framing (TpmTcpProtocol.h). */
		if (di == FROM_TPM) {
			if (c->head && !c->head->cmd) {
				/* A fixed-size reply to a non-command request. */
				if (d->len < c->head->rsp_bytes) {
					if (final)
						d->len = 0;
					break;
				}
				dir_consume(d, c->head->rsp_bytes);
				pending_free(c, pending_pop(c));
				continue;
			}
			/* u32 size | response | u32 0 (sent as three writes). */
			if (d->len < 4) {
				if (final)
					frame_garbage(pi, c, di);
				break;
			}
			uint32_t size = wire_get_u32(d->buf);
			if (size > MAX_FRAME) {
				frame_garbage(pi, c, di);
				break;
			}
			if (d->len < 4 + (size_t)size) {
				if (final) {
					dir_consume(d, 4);
					frame_garbage(pi, c, di);
				}
				break;
			}
			on_response(pi, c, d->buf + 4, size);
			dir_consume(d, 4 + size);
			d->skip = 4;
			continue;
		}
		if (d->len < 4) {
			if (final)
				frame_garbage(pi, c, di);
			break;
		}
		uint32_t code = wire_get_u32(d->buf);
		size_t need = 4;
		uint32_t reply = 0;
		uint32_t arg = 0;
		switch (code) {
		case MSSIM_SEND_COMMAND: {
			/* u32 8 | u8 locality | u32 size | command */
			if (d->len < 9) {
				if (final)
					frame_garbage(pi, c, di);
				goto wait;
			}
			uint32_t size = wire_get_u32(d->buf + 5);
			if (size > MAX_FRAME) {
				frame_garbage(pi, c, di);
				goto wait;
			}
			if (d->len < 9 + (size_t)size) {
				if (final) {
					/* Keep what arrived of the command. */
					int loc = d->buf[4];
					dir_consume(d, 9);
					if (pending_push(c, d->buf, d->len, 0, loc, pi->t,
							 pi->pkt) < 0)
						pi->rc = -ENOMEM;
					d->len = 0;
				}
				goto wait;
			}
			if (pending_push(c, d->buf + 9, size, 0, d->buf[4], pi->t, pi->pkt) < 0)
				pi->rc = -ENOMEM;
			dir_consume(d, 9 + size);
			continue;
		}
		case MSSIM_REMOTE_HANDSHAKE: /* u32 client version -> version, flags, 0 */
			need = 8;
			reply = 12;
			break;
		case MSSIM_HASH_START:
		case MSSIM_HASH_END:
			reply = 4;
			break;
		case MSSIM_HASH_DATA: /* u32 size | data -> 0 */
			if (d->len < 8) {
				if (final)
					d->len = 0;
				goto wait;
			}
			arg = wire_get_u32(d->buf + 4);
			if (arg > MAX_FRAME) {
				snprintf(detail, sizeof detail, "HASH_DATA of %" PRIu32 " bytes",
					 arg);
				emit_event(pi, c, "framing_error", detail);
				d->len = 0;
				goto wait;
			}
			need = 8 + (size_t)arg;
			reply = 4;
			break;
		case MSSIM_SESSION_END:
		case MSSIM_STOP:
			break;
		default:
			snprintf(detail, sizeof detail,
				 "unknown simulator code %" PRIu32 "; %zu bytes dropped", code,
				 d->len);
			emit_event(pi, c, "framing_error", detail);
			d->len = 0;
			goto wait;
		}
		if (d->len < need) {
			if (final)
				d->len = 0;
			goto wait;
		}
		if (code == MSSIM_HASH_DATA)
			snprintf(detail, sizeof detail, "%" PRIu32 " bytes", arg);
		else if (code == MSSIM_REMOTE_HANDSHAKE)
			snprintf(detail, sizeof detail, "client version %" PRIu32,
				 wire_get_u32(d->buf + 4));
		else
			snprintf(detail, sizeof detail, "simulator command port");
		emit_event(pi, c, platform_name(code), detail);
		if (reply && pending_push(c, NULL, 0, reply, -1, pi->t, pi->pkt) < 0)
			pi->rc = -ENOMEM;
		dir_consume(d, need);
		continue;
	wait:
		break;
	}
}

static int dir_append(struct dir *d, size_t *held, const uint8_t *data, size_t len)
{
	if (d->len + len > d->cap) {
		size_t cap = d->cap ? d->cap : 4096;
		while (cap < d->len + len)
			cap *= 2;
		uint8_t *b = realloc(d->buf, cap);
		if (!b)
			return -ENOMEM;
		*held += cap - d->cap;
		d->buf = b;
		d->cap = cap;
	}
	memcpy(d->buf + d->len, data, len);
	d->len += len;
	return 0;
}

/* Bytes are missing from the capture: what was buffered cannot be completed. */
static void dir_gap(struct pcap_import *pi, struct conn *c, int di, uint32_t missing)
{
	struct dir *d = &c->d[di];
	char detail[128];
	pi->st.gaps++;
	snprintf(detail, sizeof detail, "%" PRIu32 " bytes missing %s; %zu buffered bytes dropped",
		 missing, di == TO_TPM ? "to the TPM" : "from the TPM", d->len);
	emit_event(pi, c, "capture_gap", detail);
	d->len = 0;
	d->skip = 0;
	d->next_seq += missing;
}

static void dir_data(struct pcap_import *pi, struct conn *c, int di, const uint8_t *data,
		     size_t len)
{
	if (dir_append(&c->d[di], c->held, data, len) < 0) {
		pi->rc = -ENOMEM;
		return;
	}
	c->d[di].next_seq += (uint32_t)len;
	dir_frame(pi, c, di, 0);
}

/* Processes held segments that now follow on. */
static void dir_drain(struct pcap_import *pi, struct conn *c, int di)
{
	struct dir *d = &c->d[di];
	while (d->ooo && !pi->rc) {
		struct seg *s = d->ooo;
		int32_t diff = (int32_t)(s->seq - d->next_seq);
		if (diff > 0)
			break;
		d->ooo = s->next;
		d->n_ooo--;
		uint32_t old = d->next_seq - s->seq; /* already seen */
		if (old < s->len)
			dir_data(pi, c, di, s->data + old, s->len - old);
		*c->held -= sizeof(*s) + s->len;
		free(s);
	}
}

static void dir_hold(struct pcap_import *pi, struct conn *c, int di, uint32_t seq,
		     const uint8_t *data, size_t len)
{
	struct dir *d = &c->d[di];
	struct seg *s = malloc(sizeof(*s) + len), **pp;
	if (!s) {
		pi->rc = -ENOMEM;
		return;
	}
	s->seq = seq;
	s->len = (uint32_t)len;
	*c->held += sizeof(*s) + len;
	s->t = pi->t;
	s->pkt = pi->pkt;
	memcpy(s->data, data, len);
	for (pp = &d->ooo; *pp && (int32_t)((*pp)->seq - seq) <= 0; pp = &(*pp)->next)
		;
	s->next = *pp;
	*pp = s;
	d->n_ooo++;
	if (d->n_ooo > MAX_OOO) {
		/* The hole will not be filled: give up on the missing bytes. */
		dir_gap(pi, c, di, d->ooo->seq - d->next_seq);
		dir_drain(pi, c, di);
	}
}

/* One TCP segment of a direction (RFC 9293 sequence space). */
static void dir_segment(struct pcap_import *pi, struct conn *c, int di, uint32_t seq, uint8_t flags,
			const uint8_t *data, size_t len, size_t missing)
{
	struct dir *d = &c->d[di];

	if (flags & TCP_SYN) {
		if (d->seq_valid && (d->len || d->ooo))
			dir_gap(pi, c, di, 0);
		d->seq_valid = 1;
		d->next_seq = ++seq;
	}
	if (!len && !missing)
		return;
	if (!d->seq_valid) {
		d->seq_valid = 1;
		d->next_seq = seq;
	}
	int32_t diff = (int32_t)(seq - d->next_seq);
	if (diff > 0) {
		if (len)
			dir_hold(pi, c, di, seq, data, len);
		return;
	}
	if (diff < 0) { /* retransmission or overlap */
		uint32_t old = d->next_seq - seq;
		if (old >= len + missing)
			return;
		if (old >= len) {
			missing -= old - len;
			len = 0;
		} else {
			data += old;
			len -= old;
		}
	}
	if (len)
		dir_data(pi, c, di, data, len);
	if (missing && !pi->rc) /* cut by the snapshot length */
		dir_gap(pi, c, di, (uint32_t)missing);
	dir_drain(pi, c, di);
}

/* ---- connections ---- */

static uint32_t key_hash(const struct conn_key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h % HASH_SIZE;
}

static void format_peer(const struct conn_key *k, char *out, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	if (k->family == 4) {
		inet_ntop(AF_INET, k->client, a, sizeof a);
		snprintf(out, len, "%s:%u", a, (unsigned)k->client_port);
	} else {
		inet_ntop(AF_INET6, k->client, a, sizeof a);
		snprintf(out, len, "[%s]:%u", a, (unsigned)k->client_port);
	}
}

static void lru_unlink(struct pcap_import *pi, struct conn *c)
{
	*(c->lprev ? &c->lprev->lnext : &pi->lru) = c->lnext;
	*(c->lnext ? &c->lnext->lprev : &pi->mru) = c->lprev;
	c->lprev = c->lnext = NULL;
}

/* c had a packet now: the most recently seen. */
static void lru_touch(struct pcap_import *pi, struct conn *c)
{
	c->last_t = pi->t;
	if (pi->mru == c)
		return;
	if (c->lprev || c->lnext || pi->lru == c)
		lru_unlink(pi, c);
	c->lprev = pi->mru;
	*(pi->mru ? &pi->mru->lnext : &pi->lru) = c;
	pi->mru = c;
}

static struct conn *conn_get(struct pcap_import *pi, const struct conn_key *k, int platform)
{
	uint32_t h = key_hash(k);
	struct conn *c;

	for (c = pi->hash[h]; c; c = c->hnext)
		if (!memcmp(&c->key, k, sizeof(*k)))
			return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->key = *k;
	c->platform = platform;
	c->id = ++pi->last_id;
	c->held = &pi->bytes;
	pi->bytes += sizeof(*c);
	format_peer(k, c->peer, sizeof c->peer);
	c->hnext = pi->hash[h];
	pi->hash[h] = c;
	c->prev = pi->last;
	*(pi->last ? &pi->last->next : &pi->first) = c;
	pi->last = c;
	pi->n_open++;
	pi->st.clients++;
	if (pi->ops.client && !pi->rc)
		pi->rc = pi->ops.client(pi->ctx, c->id, c->peer, pi->t);
	return c;
}

/* Takes c out of the importer (hash, lists) and frees it. */
static void conn_free(struct pcap_import *pi, struct conn *c)
{
	struct conn **pp = &pi->hash[key_hash(&c->key)];
	while (*pp && *pp != c)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = c->hnext;
	*(c->prev ? &c->prev->next : &pi->first) = c->next;
	*(c->next ? &c->next->prev : &pi->last) = c->prev;
	if (c->lprev || c->lnext || pi->lru == c)
		lru_unlink(pi, c);
	for (int di = 0; di < 2; di++) {
		pi->bytes -= c->d[di].cap;
		free(c->d[di].buf);
		while (c->d[di].ooo) {
			struct seg *s = c->d[di].ooo;
			c->d[di].ooo = s->next;
			pi->bytes -= sizeof(*s) + s->len;
			free(s);
		}
	}
	while (c->head)
		pending_free(c, pending_pop(c));
	pi->bytes -= sizeof(*c);
	pi->n_open--;
	free(c);
}

/* The connection is over (FIN both ways, RST, an idle gap, the end of the
 * capture or section): what it still holds is framed as it is, commands
 * without a response are emitted as such, and its memory is given back. */
static void conn_finish(struct pcap_import *pi, struct conn *c)
{
	for (int di = 0; di < 2 && !pi->rc; di++) {
		struct dir *d = &c->d[di];
		if (d->ooo) {
			dir_gap(pi, c, di, d->ooo->seq - d->next_seq);
			dir_drain(pi, c, di);
		}
		dir_frame(pi, c, di, 1);
	}
	struct pending *p;
	while (!pi->rc && (p = pending_pop(c))) {
		if (p->cmd)
			emit_command(pi, c, p, NULL, 0);
		pending_free(c, p);
	}
	conn_free(pi, c);
}

/* ---- packets ---- */

/* Strips the link-layer header; returns the IP version (4 or 6) or 0. */
static int link_strip(int dlt, struct wire_rd *r)
{
	uint16_t proto = 0;
	uint32_t fam;

	switch (dlt) {
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		if (!wire_left(r))
			return 0;
		return r->p[r->off] >> 4;
	case DLT_EN10MB:
		wire_skip(r, 12);
		proto = wire_u16(r);
		/* 802.1Q / 802.1ad tags: TPID then TCI, then the inner type. */
		while (!r->err && (proto == 0x8100 || proto == 0x88A8 || proto == 0x9100)) {
			wire_u16(r);
			proto = wire_u16(r);
		}
		break;
	case DLT_LINUX_SLL: /* packet type, ARPHRD, address length, address[8], protocol */
		wire_skip(r, 14);
		proto = wire_u16(r);
		break;
	case DLT_LINUX_SLL2: /* protocol, reserved, ifindex, ARPHRD, type, len, address[8] */
		proto = wire_u16(r);
		wire_skip(r, 18);
		break;
	case DLT_NULL:
	case DLT_LOOP:
		/* The address family, in the capturing host's byte order for
		 * DLT_NULL and big-endian for DLT_LOOP; AF_INET6 differs by OS. */
		fam = wire_u32(r);
		if (r->err)
			return 0;
		if (dlt == DLT_NULL && (fam & 0xFFFF) == 0)
			fam = __builtin_bswap32(fam);
		if (fam == 2)
			return 4;
		if (fam == 10 || fam == 24 || fam == 28 || fam == 30)
			return 6;
		return 0;
	default:
		return 0;
	}
	if (r->err)
		return 0;
	if (proto == 0x0800)
		return 4;
	if (proto == 0x86DD)
		return 6;
	return 0;
}

int pcap_import_packet(struct pcap_import *pi, int dlt, uint64_t t_ns, const uint8_t *pkt,
		       size_t caplen, size_t wirelen)
{
	struct wire_rd r;
	struct conn_key k;
	const uint8_t *src, *dst;
	size_t ip_end, missing = 0;
	int ver, platform, di;
	uint16_t tpm_port = pi->cfg.tpm_port;

	if (pi->rc)
		return pi->rc;
	if (log_stop_requested) {
		snprintf(pi->why, sizeof pi->why, "interrupted");
		return pi->rc = -EINTR;
	}
	pi->pkt++;
	pi->st.packets++;
	pi->t = t_ns;
	if (!pi->st.first_ns || t_ns < pi->st.first_ns)
		pi->st.first_ns = t_ns;
	if (t_ns > pi->st.last_ns)
		pi->st.last_ns = t_ns;
	wire_rd_init(&r, pkt, caplen);
	ver = link_strip(dlt, &r);
	if (!strcmp(pcap_import_linktype_str(dlt), "unsupported"))
		pi->st.unsupported_linktype = (uint32_t)dlt;
	if (ver != 4 && ver != 6)
		goto skip;
	memset(&k, 0, sizeof(k));
	k.family = (uint8_t)ver;
	size_t ip_start = r.off;
	if (ver == 4) {
		/* RFC 791: version/IHL, TOS, total length, id, flags/fragment
		 * offset, TTL, protocol, checksum, source, destination. */
		uint8_t vihl = wire_u8(&r);
		wire_u8(&r);
		uint16_t total = wire_u16(&r);
		wire_u16(&r);
		uint16_t frag = wire_u16(&r);
		wire_u8(&r);
		uint8_t proto = wire_u8(&r);
		wire_u16(&r);
		src = wire_skip(&r, 4);
		dst = wire_skip(&r, 4);
		size_t ihl = (size_t)(vihl & 15) * 4;
		/* A total length of 0 comes from segmentation offload (the NIC
		 * splits it): the captured bytes are the packet. */
		if (r.err || ihl < 20 || (total && total < ihl) || proto != 6 || (frag & 0x3FFF))
			goto skip;
		if (!wire_skip(&r, ihl - 20))
			goto skip;
		ip_end = total ? ip_start + total : (size_t)-1;
		memcpy(k.client, src, 4); /* sorted out below */
		memcpy(k.tpm, dst, 4);
	} else {
		/* RFC 8200: fixed 40-byte header, then extension headers. */
		wire_u32(&r);
		uint16_t plen = wire_u16(&r);
		uint8_t nh = wire_u8(&r);
		wire_u8(&r);
		src = wire_skip(&r, 16);
		dst = wire_skip(&r, 16);
		if (r.err)
			goto skip;
		ip_end = plen ? r.off + plen : (size_t)-1;
		while (nh == 0 || nh == 43 || nh == 60 || nh == 51) {
			uint8_t next = wire_u8(&r);
			uint8_t hl = wire_u8(&r);
			size_t n = nh == 51 ? ((size_t)hl + 2) * 4 : ((size_t)hl + 1) * 8;
			if (!wire_skip(&r, n - 2))
				goto skip;
			nh = next;
		}
		if (nh != 6) /* fragments (44) and everything that is not TCP */
			goto skip;
		memcpy(k.client, src, 16);
		memcpy(k.tpm, dst, 16);
	}
	/* RFC 9293 TCP header. */
	uint16_t sport = wire_u16(&r);
	uint16_t dport = wire_u16(&r);
	uint32_t seq = wire_u32(&r);
	wire_u32(&r);
	uint8_t doff = wire_u8(&r);
	uint8_t flags = wire_u8(&r);
	size_t thl = (size_t)(doff >> 4) * 4;
	if (r.err || thl < 20 || !wire_skip(&r, thl - 14)) /* window, checksum, urgent, options */
		goto skip;
	if (dport == tpm_port || dport == tpm_port + 1) {
		di = TO_TPM;
		platform = dport != tpm_port;
		k.client_port = sport;
		k.tpm_port = dport;
	} else if (sport == tpm_port || sport == tpm_port + 1) {
		di = FROM_TPM;
		platform = sport != tpm_port;
		uint8_t tmp[16];
		memcpy(tmp, k.client, 16);
		memcpy(k.client, k.tpm, 16);
		memcpy(k.tpm, tmp, 16);
		k.client_port = dport;
		k.tpm_port = sport;
	} else {
		goto skip;
	}
	/* The segment's payload ends where IP says; Ethernet may pad beyond it,
	 * and a snapshot length may cut it short. */
	size_t end = caplen;
	if (ip_end != (size_t)-1) {
		if (ip_end < r.off)
			goto skip;
		if (ip_end <= caplen) {
			end = ip_end;
		} else {
			missing = ip_end - caplen;
		}
	} else if (wirelen > caplen) {
		missing = wirelen - caplen;
	}
	pi->st.tpm_packets++;
	struct conn *c = conn_get(pi, &k, platform);
	if (!c)
		return pi->rc ? pi->rc : -ENOMEM;
	dir_segment(pi, c, di, seq, flags, pkt + r.off, end - r.off, missing);
	lru_touch(pi, c);
	struct dir *d = &c->d[di];
	if (!d->len && d->cap && !pi->rc) {
		/* Nothing waits to be framed: an idle connection holds no buffer. */
		pi->bytes -= d->cap;
		free(d->buf);
		d->buf = NULL;
		d->cap = 0;
	}
	if (flags & TCP_FIN)
		c->fin |= (uint8_t)(1u << di);
	if (!pi->rc && (c->fin == 3 || (flags & TCP_RST)))
		conn_finish(pi, c); /* over: both sides said so, or one reset it */
	/* Connections silent for the idle gap (capture time) are over too. */
	while (!pi->rc && pi->lru && pi->t > pi->lru->last_t &&
	       pi->t - pi->lru->last_t > pi->cfg.idle_gap_ns)
		conn_finish(pi, pi->lru);
	if (!pi->rc && (pi->n_open > pi->cfg.max_open || pi->bytes > pi->cfg.max_bytes)) {
		snprintf(pi->why, sizeof pi->why,
			 "%zu TCP connections to the TPM open at once holding %zu bytes, more than "
			 "the importer keeps (%u connections, %zu MiB; a connection ends with "
			 "FIN or RST, or after %llu s without packets)",
			 pi->n_open, pi->bytes, pi->cfg.max_open, pi->cfg.max_bytes >> 20,
			 (unsigned long long)(pi->cfg.idle_gap_ns / 1000000000u));
		pi->rc = -E2BIG;
	}
	return pi->rc;
skip:
	pi->st.skipped++;
	return 0;
}

int pcap_import_new(struct pcap_import **out, const struct pcap_import_cfg *cfg,
		    const struct pcap_import_ops *ops, void *ctx)
{
	struct pcap_import *pi = calloc(1, sizeof(*pi));
	*out = NULL;
	if (!pi)
		return -ENOMEM;
	if (cfg)
		pi->cfg = *cfg;
	if (!pi->cfg.tpm_port)
		pi->cfg.tpm_port = PCAP_IMPORT_DEFAULT_PORT;
	if (!pi->cfg.idle_gap_ns)
		pi->cfg.idle_gap_ns = (uint64_t)PCAP_IMPORT_IDLE_GAP_S * 1000000000u;
	if (!pi->cfg.max_open)
		pi->cfg.max_open = PCAP_IMPORT_MAX_OPEN;
	if (!pi->cfg.max_bytes)
		pi->cfg.max_bytes = PCAP_IMPORT_MAX_BYTES;
	if (ops)
		pi->ops = *ops;
	pi->ctx = ctx;
	pi->st.ts_res_ns = pi->cfg.ts_res_ns;
	pi->st.synthetic_time = !!(pi->cfg.flags & REC_F_SYNTHETIC_TIME);
	*out = pi;
	return 0;
}

int pcap_import_finish(struct pcap_import *pi)
{
	/* Connections in order of appearance, so the output does not depend on
	 * hashing. */
	while (pi->first && !pi->rc)
		conn_finish(pi, pi->first);
	return pi->rc;
}

int pcap_import_new_section(struct pcap_import *pi)
{
	/* A section is a capture of its own (the pcap TCTI starts one per
	 * initialisation, with sequence numbers starting over): what was open is
	 * finished, the same addresses and ports make a new connection. */
	int rc = pcap_import_finish(pi);
	while (pi->first)
		conn_free(pi, pi->first);
	return rc;
}

void pcap_import_get_stats(const struct pcap_import *pi, struct pcap_import_stats *st)
{
	*st = pi->st;
}

const char *pcap_import_error(const struct pcap_import *pi)
{
	return pi->why;
}

void pcap_import_free(struct pcap_import *pi)
{
	if (!pi)
		return;
	while (pi->first)
		conn_free(pi, pi->first);
	free(pi);
}

/* ---- files ---- */

/* pcapng sections start with a Section Header Block (type 0x0A0D0D0A, the
 * same in both byte orders); its byte-order magic 0x1A2B3C4D sets the order
 * of the section's block lengths. Returns the number of section start
 * offsets found (a corrupt block ends the walk: libpcap reports it). */
static size_t sections_find(const uint8_t *buf, size_t len, size_t **out)
{
	size_t n = 0, cap = 0, o = 0;
	size_t *v = NULL;
	int be = 0;

	*out = NULL;
	while (len - o >= 12) {
		uint32_t type = wire_get_u32(buf + o);
		if (type == 0x0A0D0D0A) {
			uint32_t magic = wire_get_u32(buf + o + 8);
			if (magic == 0x1A2B3C4D)
				be = 1;
			else if (magic == 0x4D3C2B1A)
				be = 0;
			else
				break;
			if (n == cap) {
				cap = cap ? cap * 2 : 8;
				size_t *nv = realloc(v, cap * sizeof(*v));
				if (!nv)
					break;
				v = nv;
			}
			v[n++] = o;
		} else if (!n) {
			break;
		}
		uint32_t blen = wire_get_u32(buf + o + 4);
		if (!be)
			blen = __builtin_bswap32(blen);
		if (blen < 12 || blen % 4 || blen > len - o)
			break;
		o += blen;
	}
	*out = v;
	return n;
}

static pcap_t *section_open(const uint8_t *buf, size_t len, char *perr)
{
	FILE *f = fmemopen((void *)buf, len, "r");
	if (!f) {
		snprintf(perr, PCAP_ERRBUF_SIZE, "%s", strerror(errno));
		return NULL;
	}
	pcap_t *p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, perr);
	if (!p)
		fclose(f);
	return p;
}

struct tstats {
	uint64_t n, first, prev, delta;
	int const_delta;
	uint64_t gran;
};

static void tstats_add(struct tstats *s, uint64_t t)
{
	if (s->n == 0) {
		s->first = t;
		s->const_delta = 1;
		s->gran = 1000000000ull;
	} else if (s->n == 1) {
		s->delta = t - s->prev;
	} else if (t - s->prev != s->delta) {
		s->const_delta = 0;
	}
	while (s->gran > 1 && t % s->gran)
		s->gran /= 10;
	s->prev = t;
	s->n++;
}

/* A capture mapped from its file is read front to back, twice: pages already
 * read are handed back (they would otherwise all count as resident, a 1 GB
 * capture as 1 GB of memory). Only for a private file mapping: elsewhere
 * MADV_DONTNEED would zero the bytes. */
static void give_back(const uint8_t *buf, size_t upto, int mapped)
{
	if (!mapped)
		return;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = upto & ~(page - 1);
	if (n)
		madvise((void *)(uintptr_t)buf, n, MADV_DONTNEED);
}

static int import_mem(const uint8_t *buf, size_t len, const char *name,
		      const struct pcap_import_cfg *cfg, const struct pcap_import_ops *ops,
		      void *ctx, struct pcap_import_stats *st, char *err, size_t errlen, int mapped)
{
	char perr[PCAP_ERRBUF_SIZE];
	size_t *starts = NULL, nsec, one = 0;
	struct pcap_import_cfg c2;
	struct pcap_import *pi = NULL;
	struct tstats ts;
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t pktno = 0;
	int rc = 0;

	memset(&ts, 0, sizeof(ts));
	if (errlen)
		err[0] = 0;
	if (st)
		memset(st, 0, sizeof(*st));
	if (len == 0) {
		snprintf(err, errlen, "%s: empty file (0 bytes), not a pcap or pcapng capture",
			 name);
		return -EINVAL;
	}
	nsec = sections_find(buf, len, &starts);
	if (!nsec) {
		free(starts);
		starts = &one; /* classic pcap, or something libpcap will name */
		nsec = 1;
	}
	/* Pass 1: the whole file must read cleanly; the timestamps tell whether
	 * they were made up (equal steps) and how fine they are. */
	for (size_t s = 0; s < nsec; s++) {
		size_t base = starts[s], slen = (s + 1 < nsec ? starts[s + 1] : len) - base;
		pcap_t *p = section_open(buf + base, slen, perr);
		if (!p) {
			if (base == 0)
				snprintf(err, errlen, "%s: not a pcap or pcapng capture: %s", name,
					 perr);
			else
				snprintf(err, errlen, "%s: section %zu at byte offset %zu: %s",
					 name, s + 1, base, perr);
			rc = -EINVAL;
			goto out;
		}
		for (;;) {
			long off = ftell(pcap_file(p));
			if (log_stop_requested) {
				snprintf(err, errlen, "%s: interrupted", name);
				rc = -EINTR;
				break;
			}
			int r = pcap_next_ex(p, &h, &data);
			if (r == 1) {
				pktno++;
				if (!(pktno & 4095))
					give_back(buf, base + (size_t)(off < 0 ? 0 : off), mapped);
				tstats_add(&ts, (uint64_t)h->ts.tv_sec * 1000000000ull +
						    (uint64_t)h->ts.tv_usec);
				continue;
			}
			if (r == -1) {
				snprintf(err, errlen,
					 "%s: packet %" PRIu64 " (block at byte offset %zu): %s",
					 name, pktno + 1, base + (size_t)(off < 0 ? 0 : off),
					 pcap_geterr(p));
				rc = -EINVAL;
			}
			break;
		}
		pcap_close(p);
		if (rc)
			goto out;
	}
	c2 = cfg ? *cfg : (struct pcap_import_cfg){0};
	if ((ts.n >= 4 && ts.const_delta) || (ts.n >= 2 && ts.first == 0 && ts.const_delta))
		c2.flags |= REC_F_SYNTHETIC_TIME;
	c2.ts_res_ns = ts.n ? (uint32_t)ts.gran : 0;
	rc = pcap_import_new(&pi, &c2, ops, ctx);
	if (rc)
		goto out;
	/* Pass 2: the packets. */
	for (size_t s = 0; s < nsec && !rc; s++) {
		size_t base = starts[s], slen = (s + 1 < nsec ? starts[s + 1] : len) - base;
		pcap_t *p = section_open(buf + base, slen, perr);
		if (!p) {
			snprintf(err, errlen, "%s: section %zu: %s", name, s + 1, perr);
			rc = -EINVAL;
			break;
		}
		int dlt = pcap_datalink(p);
		if (s > 0)
			rc = pcap_import_new_section(pi);
		pi->st.sections++;
		pi->st.last_linktype = dlt;
		while (!rc && pcap_next_ex(p, &h, &data) == 1) {
			rc = pcap_import_packet(pi, dlt,
						(uint64_t)h->ts.tv_sec * 1000000000ull +
						    (uint64_t)h->ts.tv_usec,
						data, h->caplen, h->len);
			if (!(pi->pkt & 4095)) {
				long off = ftell(pcap_file(p));
				give_back(buf, base + (size_t)(off < 0 ? 0 : off), mapped);
				if (c2.progress)
					c2.progress(c2.progress_arg, pi->pkt, pktno);
			}
		}
		pcap_close(p);
	}
	if (c2.progress)
		c2.progress(c2.progress_arg, pi->pkt, pktno);
	if (!rc)
		rc = pcap_import_finish(pi);
	if (rc && !err[0] && errlen)
		snprintf(err, errlen, "%s: import stopped at packet %" PRIu64 ": %s", name, pi->pkt,
			 pi->why[0] ? pi->why
			 : rc < 0   ? strerror(-rc)
				    : "callback failed");
	if (st)
		pcap_import_get_stats(pi, st);
out:
	pcap_import_free(pi);
	if (starts != &one)
		free(starts);
	return rc;
}

int pcap_import_file(const char *path, const struct pcap_import_cfg *cfg,
		     const struct pcap_import_ops *ops, void *ctx, struct pcap_import_stats *st,
		     char *err, size_t errlen)
{
	const void *m;
	size_t len;
	if (errlen)
		err[0] = 0;
	int is_file;
	int rc = log_map_file(path, cfg && cfg->follow, &m, &len, &is_file, err, errlen);
	if (rc)
		return rc;
	rc = import_mem(m ? m : (const void *)"", len, path, cfg, ops, ctx, st, err, errlen,
			is_file);
	log_unmap_file(m, len);
	return rc;
}

int pcap_import_mem(const uint8_t *buf, size_t len, const char *name,
		    const struct pcap_import_cfg *cfg, const struct pcap_import_ops *ops, void *ctx,
		    struct pcap_import_stats *st, char *err, size_t errlen)
{
	return import_mem(buf, len, name, cfg, ops, ctx, st, err, errlen, 0);
}
