/* import_pcapng_export (recorder/import/pcapng_write.h): writes a trace of the
 * database as pcapng for Wireshark's TPM 2.0 dissector - a section header, an
 * interface, and one enhanced packet block per command and per response, sorted
 * by time (stored order when equal), each wrapped in IPv4 and TCP
 * (optionally Ethernet) with checksums and sequence numbers, one flow per
 * recorded client (its recorded IPv4 peer when it has one above the TPM's port,
 * else an address made up from its id), and a comment naming the command
 * (tpm_cc.h), its seq and its latency. Imported traces keep their capture's
 * wall-clock times; recorded ones are placed after the trace's wall-clock
 * start. */
#include "recorder/import/pcapng_write.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/wire.h"

#define TPM_IP 0x0A000001u /* 10.0.0.1 */

struct out_pkt {
	uint64_t ts;
	uint64_t order; /* ties keep the command before its response */
	uint32_t client;
	int to_tpm;
	uint8_t *data;
	size_t len;
	char *comment;
};

struct flow {
	uint32_t client_id;
	uint32_t ip;
	uint16_t port;
	uint32_t seq_c, seq_t; /* next sequence number from client / from TPM */
};

struct pcap_out {
	FILE *f;
	int link;
	uint16_t tpm_port;
	uint16_t ip_id;
	struct flow *flows;
	size_t n_flows, cap_flows;
	struct out_pkt *pkts;
	size_t n_pkts, cap_pkts;
};

/* ---- pcapng blocks (little-endian) ---- */

static void put32(FILE *f, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	fwrite(b, 1, 4, f);
}

static void put16(FILE *f, uint16_t v)
{
	uint8_t b[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	fwrite(b, 1, 2, f);
}

static void pad4(FILE *f, size_t n)
{
	static const uint8_t z[4];
	fwrite(z, 1, (4 - n % 4) % 4, f);
}

static size_t opt_len(size_t n)
{
	return 4 + (n + 3) / 4 * 4;
}

static void put_opt(FILE *f, uint16_t code, const void *v, size_t n)
{
	put16(f, code);
	put16(f, (uint16_t)n);
	fwrite(v, 1, n, f);
	pad4(f, n);
}

static void write_headers(FILE *f, int link)
{
	char app[64];
	snprintf(app, sizeof app, "tpmtrace %s", TPMTRACE_VERSION);
	/* Section Header Block: byte-order magic, version 1.0, length unknown. */
	uint32_t len = 28 + (uint32_t)opt_len(strlen(app)) + 4;
	put32(f, 0x0A0D0D0A);
	put32(f, len);
	put32(f, 0x1A2B3C4D);
	put16(f, 1);
	put16(f, 0);
	put32(f, 0xFFFFFFFF);
	put32(f, 0xFFFFFFFF);
	put_opt(f, 4, app, strlen(app)); /* shb_userappl */
	put32(f, 0);			 /* opt_endofopt */
	put32(f, len);
	/* Interface Description Block; if_tsresol 9: timestamps count ns. */
	static const char ifname[] = "tpm";
	uint8_t res = 9;
	len = 20 + (uint32_t)opt_len(strlen(ifname)) + (uint32_t)opt_len(1) + 4;
	put32(f, 1);
	put32(f, len);
	put16(f, (uint16_t)link);
	put16(f, 0);
	put32(f, 0);			       /* no snapshot length limit */
	put_opt(f, 2, ifname, strlen(ifname)); /* if_name */
	put_opt(f, 9, &res, 1);		       /* if_tsresol */
	put32(f, 0);
	put32(f, len);
}

static void write_epb(FILE *f, uint64_t ts, const uint8_t *p, size_t n, const char *comment)
{
	size_t clen = comment ? strlen(comment) : 0;
	if (clen > 65000)
		clen = 65000;
	uint32_t len =
	    28 + (uint32_t)((n + 3) / 4 * 4) + (clen ? (uint32_t)opt_len(clen) + 4 : 0) + 4;
	put32(f, 6);
	put32(f, len);
	put32(f, 0); /* interface 0 */
	put32(f, (uint32_t)(ts >> 32));
	put32(f, (uint32_t)ts);
	put32(f, (uint32_t)n);
	put32(f, (uint32_t)n);
	fwrite(p, 1, n, f);
	pad4(f, n);
	if (clen) {
		put_opt(f, 1, comment, clen); /* opt_comment */
		put32(f, 0);
	}
	put32(f, len);
}

/* ---- IPv4 + TCP around each message ---- */

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

static struct flow *flow_get(struct pcap_out *po, uint32_t client_id, const char *peer)
{
	for (size_t i = 0; i < po->n_flows; i++)
		if (po->flows[i].client_id == client_id)
			return &po->flows[i];
	if (po->n_flows == po->cap_flows) {
		size_t cap = po->cap_flows ? po->cap_flows * 2 : 16;
		struct flow *nf = realloc(po->flows, cap * sizeof(*nf));
		if (!nf)
			return NULL;
		po->flows = nf;
		po->cap_flows = cap;
	}
	struct flow *fl = &po->flows[po->n_flows++];
	memset(fl, 0, sizeof(*fl));
	fl->client_id = client_id;
	/* The recorded peer when it is an IPv4 address with a port above the
	 * TPM's (the dissector takes the higher port for the client), else made
	 * up from the client id. */
	unsigned a, b, c, d, port;
	char tail;
	if (peer && sscanf(peer, "%u.%u.%u.%u:%u%c", &a, &b, &c, &d, &port, &tail) == 5 &&
	    a < 256 && b < 256 && c < 256 && d < 256 && port > po->tpm_port && port < 65536 &&
	    ((a << 24 | b << 16 | c << 8 | d) != TPM_IP)) {
		fl->ip = a << 24 | b << 16 | c << 8 | d;
		fl->port = (uint16_t)port;
	} else {
		fl->ip = 0x0A010000u + (client_id & 0xFFFF);
		fl->port = (uint16_t)(49152 + client_id % 16384);
	}
	fl->seq_c = 1000 + client_id * 100000u;
	fl->seq_t = 5000 + client_id * 100000u;
	return fl;
}

/* Builds link header + IPv4 + TCP + payload into out (caller frees). */
static uint8_t *frame_msg(struct pcap_out *po, struct flow *fl, int to_tpm, const uint8_t *msg,
			  size_t n, size_t *outlen)
{
	size_t l2 = po->link == LINKTYPE_ETHERNET ? 14 : 0;
	size_t total = l2 + 40 + n;
	uint8_t *p = calloc(1, total);
	if (!p)
		return NULL;
	uint8_t *ip = p + l2, *tcp = ip + 20;
	uint32_t src = to_tpm ? fl->ip : TPM_IP, dst = to_tpm ? TPM_IP : fl->ip;
	uint16_t sport = to_tpm ? fl->port : po->tpm_port, dport = to_tpm ? po->tpm_port : fl->port;
	uint32_t seq = to_tpm ? fl->seq_c : fl->seq_t, ack = to_tpm ? fl->seq_t : fl->seq_c;

	if (l2) {
		static const uint8_t tpm_mac[6] = {2, 0, 0, 0, 0, 1};
		uint8_t cli_mac[6] = {2, 0, 0, 0, 0, 2};
		memcpy(p, to_tpm ? tpm_mac : cli_mac, 6);
		memcpy(p + 6, to_tpm ? cli_mac : tpm_mac, 6);
		wire_put_u16(p + 12, 0x0800);
	}
	/* RFC 791 */
	ip[0] = 0x45;
	wire_put_u16(ip + 2, (uint16_t)(40 + n));
	wire_put_u16(ip + 4, po->ip_id++);
	wire_put_u16(ip + 6, 0x4000); /* don't fragment */
	ip[8] = 64;
	ip[9] = 6;
	wire_put_u32(ip + 12, src);
	wire_put_u32(ip + 16, dst);
	wire_put_u16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	/* RFC 9293: PSH|ACK, one segment per message. */
	wire_put_u16(tcp, sport);
	wire_put_u16(tcp + 2, dport);
	wire_put_u32(tcp + 4, seq);
	wire_put_u32(tcp + 8, ack);
	tcp[12] = 5 << 4;
	tcp[13] = 0x18;
	wire_put_u16(tcp + 14, 65535);
	memcpy(tcp + 20, msg, n);
	uint8_t pseudo[12];
	wire_put_u32(pseudo, src);
	wire_put_u32(pseudo + 4, dst);
	pseudo[8] = 0;
	pseudo[9] = 6;
	wire_put_u16(pseudo + 10, (uint16_t)(20 + n));
	wire_put_u16(tcp + 16, csum_fold(csum_add(csum_add(0, pseudo, 12), tcp, 20 + n)));
	if (to_tpm)
		fl->seq_c += (uint32_t)n;
	else
		fl->seq_t += (uint32_t)n;
	*outlen = total;
	return p;
}

static int add_pkt(struct pcap_out *po, uint64_t ts, uint32_t client, int to_tpm,
		   const uint8_t *msg, size_t n, char *comment)
{
	if (po->n_pkts == po->cap_pkts) {
		size_t cap = po->cap_pkts ? po->cap_pkts * 2 : 256;
		struct out_pkt *np = realloc(po->pkts, cap * sizeof(*np));
		if (!np) {
			free(comment);
			return -ENOMEM;
		}
		po->pkts = np;
		po->cap_pkts = cap;
	}
	struct out_pkt *k = &po->pkts[po->n_pkts];
	k->data = malloc(n ? n : 1);
	if (!k->data) {
		free(comment);
		return -ENOMEM;
	}
	memcpy(k->data, msg, n);
	k->len = n;
	k->ts = ts;
	k->order = po->n_pkts;
	k->client = client;
	k->to_tpm = to_tpm;
	k->comment = comment;
	po->n_pkts++;
	return 0;
}

static int pkt_cmp(const void *a, const void *b)
{
	const struct out_pkt *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : (x->order > y->order);
}

/* ---- the trace ---- */

struct trace_meta {
	char kind[16];
	int64_t start_ns;
	int64_t wall_start; /* seconds since the epoch */
};

static int trace_meta_get(sqlite3 *db, int64_t id, struct trace_meta *m)
{
	sqlite3_stmt *st;
	int rc = -ENOENT;
	memset(m, 0, sizeof(*m));
	if (sqlite3_prepare_v2(db,
			       "SELECT kind, coalesce(start_ns, 0),"
			       " coalesce(CAST(strftime('%s', started_at) AS INTEGER), 0)"
			       " FROM trace WHERE id=?",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(m->kind, sizeof m->kind, "%s", (const char *)sqlite3_column_text(st, 0));
		m->start_ns = sqlite3_column_int64(st, 1);
		m->wall_start = sqlite3_column_int64(st, 2);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/* Imported traces keep the capture's wall-clock times; recorded ones count
 * CLOCK_MONOTONIC, placed after the trace's wall-clock start. Any stored
 * value is taken (a crafted database may hold INT64_MIN): nothing overflows,
 * times before the start or the epoch count as 0, sums saturate. */
static uint64_t wall_ns(const struct trace_meta *m, int64_t t)
{
	if (t < 0)
		t = 0;
	if (!strcmp(m->kind, "import"))
		return (uint64_t)t;
	uint64_t rel = m->start_ns > 0 && t > m->start_ns ? (uint64_t)t - (uint64_t)m->start_ns
		       : m->start_ns <= 0		  ? (uint64_t)t
							  : 0;
	uint64_t base = m->wall_start > 0 && (uint64_t)m->wall_start < UINT64_MAX / 1000000000u
			    ? (uint64_t)m->wall_start * 1000000000u
			    : 0;
	return base > UINT64_MAX - rel ? UINT64_MAX : base + rel;
}

int import_pcapng_export(sqlite3 *db, int64_t trace, FILE *out, int link, uint16_t port,
			 uint64_t *count, uint64_t *left_out, char *err, size_t errlen)
{
	struct trace_meta m;
	struct pcap_out po = {.link = link, .tpm_port = port};
	sqlite3_stmt *st = NULL;
	int rc = trace_meta_get(db, trace, &m);
	uint64_t skipped = 0;

	*left_out = 0;

	if (rc) {
		snprintf(err, errlen, "no trace %" PRId64, trace);
		return rc;
	}
	if (sqlite3_prepare_v2(db,
			       "SELECT c.seq, c.t_submit_ns, c.t_done_ns, c.cc, c.locality, c.tag,"
			       " c.cmd_size, c.rsp_size, c.rc, c.client_id, c.cmd, c.rsp,"
			       " cl.peer, c.latency_ns"
			       " FROM command c LEFT JOIN client cl"
			       " ON cl.trace_id = c.trace_id AND cl.id = c.client_id"
			       " WHERE c.trace_id = ? ORDER BY c.seq",
			       -1, &st, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(st, 1, trace);
	int src = SQLITE_DONE;
	while (!rc && (src = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(st, 0);
		uint32_t cc = (uint32_t)sqlite3_column_int64(st, 3);
		uint32_t client = (uint32_t)sqlite3_column_int64(st, 9);
		const char *peer = (const char *)sqlite3_column_text(st, 12);
		int has_rsp = sqlite3_column_type(st, 8) != SQLITE_NULL;
		uint8_t hdr[TPM_HEADER_SIZE];
		const uint8_t *cmd = sqlite3_column_blob(st, 10);
		size_t cmd_len = (size_t)sqlite3_column_bytes(st, 10);
		const char *note = "";
		char *comment = NULL;
		const char *name = tpm_cc_name(cc);

		if (!cmd) {
			/* Payload not stored: the header alone, with the recorded size. */
			wire_put_u16(hdr, (uint16_t)sqlite3_column_int64(st, 5));
			wire_put_u32(hdr + 2, (uint32_t)sqlite3_column_int64(st, 6));
			wire_put_u32(hdr + 6, cc);
			cmd = hdr;
			cmd_len = sizeof hdr;
			note = ", payload not stored";
		}
		if (cmd_len > PCAPNG_MAX_SEGMENT) {
			/* Left out with its response: both counted. */
			skipped += has_rsp ? 2 : 1;
			continue;
		}
		if (!flow_get(&po, client, peer)) {
			rc = -ENOMEM;
			break;
		}
		char lat[48] = "no response";
		if (has_rsp)
			snprintf(lat, sizeof lat, "latency %.6f ms",
				 (double)sqlite3_column_int64(st, 13) / 1e6);
		if (asprintf(&comment,
			     "tpmtrace seq %" PRId64 " %s%s (0x%08" PRIx32 ") locality %d %s%s",
			     seq, name ? "TPM2_" : "", name ? name : "unknown", cc,
			     sqlite3_column_int(st, 4), lat, note) < 0)
			comment = NULL;
		rc = add_pkt(&po, wall_ns(&m, sqlite3_column_int64(st, 1)), client, 1, cmd, cmd_len,
			     comment);
		if (rc || !has_rsp)
			continue;
		const uint8_t *rsp = sqlite3_column_blob(st, 11);
		size_t rsp_len = (size_t)sqlite3_column_bytes(st, 11);
		uint32_t code = (uint32_t)sqlite3_column_int64(st, 8);
		note = "";
		if (!rsp) {
			wire_put_u16(hdr, TPM_ST_NO_SESSIONS);
			wire_put_u32(hdr + 2, (uint32_t)sqlite3_column_int64(st, 7));
			wire_put_u32(hdr + 6, code);
			rsp = hdr;
			rsp_len = sizeof hdr;
			note = ", payload not stored";
		}
		if (rsp_len > PCAPNG_MAX_SEGMENT) {
			skipped++;
			continue;
		}
		if (asprintf(&comment, "tpmtrace seq %" PRId64 " response rc 0x%08" PRIx32 " %s%s",
			     seq, code, lat, note) < 0)
			comment = NULL;
		rc = add_pkt(&po, wall_ns(&m, sqlite3_column_int64(st, 2)), client, 0, rsp, rsp_len,
			     comment);
	}
	if (!rc && src != SQLITE_DONE) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		rc = -EIO;
		goto out;
	}
	sqlite3_finalize(st);
	if (rc) {
		snprintf(err, errlen, "%s", strerror(-rc));
		goto out;
	}
	if (po.n_pkts > 1) /* pkts is NULL for a trace without commands */
		qsort(po.pkts, po.n_pkts, sizeof(*po.pkts), pkt_cmp);
	po.f = out;
	write_headers(po.f, link);
	for (size_t i = 0; i < po.n_pkts; i++) {
		struct out_pkt *k = &po.pkts[i];
		struct flow *fl = flow_get(&po, k->client, NULL);
		size_t n;
		uint8_t *frame = fl ? frame_msg(&po, fl, k->to_tpm, k->data, k->len, &n) : NULL;
		if (!frame) {
			rc = -ENOMEM;
			break;
		}
		write_epb(po.f, k->ts, frame, n, k->comment);
		free(frame);
	}
	if (ferror(po.f) && !rc) {
		rc = -EIO;
		errno = 0; /* the failed write's error, kept in the buffer */
		fflush(po.f);
		snprintf(err, errlen, "%s", strerror(errno ? errno : EIO));
	}
	*count = po.n_pkts;
	*left_out = skipped;
out:
	for (size_t i = 0; i < po.n_pkts; i++) {
		free(po.pkts[i].data);
		free(po.pkts[i].comment);
	}
	free(po.pkts);
	free(po.flows);
	return rc;
}
