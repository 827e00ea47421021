/* The pcap and pcapng importer's packet side (recorder/import/pcap_import.h):
 * pcap_import_file and pcap_import_mem split a capture into its sections
 * (sections_find; libpcap 1.10 stops at a section with another link type), read
 * each with libpcap and hand every packet to pcap_import_packet, which strips
 * the link layer (link_strip) and IPv4 or IPv6 (ip_parse), keeps the TCP
 * segments to and from the TPM port and its platform port + 1 and passes them
 * to the stream reassembly of pcap_stream.c (shared state in pcap_int.h). A
 * capture mapped from its file is handed back to the kernel page by page as it
 * is read. Also pcap_import_new, _finish, _new_section, _get_stats, _error and
 * _free, and pcap_import_linktype_str. */
#include "recorder/import/pcap_import.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "recorder/import/pcap_lib.h"

#include "db/writer.h"
#include "recorder/import/log_reader.h"
#include "model/tpm/wire.h"

#include "recorder/import/pcap_int.h"

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

/* The IPv4 or IPv6 header (ver) of a TCP packet: the addresses go into k
 * (client and TPM sorted out by the caller), *ip_end is where IP says the
 * packet ends ((size_t)-1: not said). Returns -1 for a packet that is not a
 * whole-datagram TCP one. */
static int ip_parse(struct wire_rd *r, int ver, struct conn_key *k, size_t *ip_end)
{
	const uint8_t *src, *dst;
	size_t ip_start = r->off;

	memset(k, 0, sizeof(*k));
	k->family = (uint8_t)ver;
	if (ver == 4) {
		/* RFC 791: version/IHL, TOS, total length, id, flags/fragment
		 * offset, TTL, protocol, checksum, source, destination. */
		uint8_t vihl = wire_u8(r);
		wire_u8(r);
		uint16_t total = wire_u16(r);
		wire_u16(r);
		uint16_t frag = wire_u16(r);
		wire_u8(r);
		uint8_t proto = wire_u8(r);
		wire_u16(r);
		src = wire_skip(r, 4);
		dst = wire_skip(r, 4);
		size_t ihl = (size_t)(vihl & 15) * 4;
		/* A total length of 0 comes from segmentation offload (the NIC
		 * splits it): the captured bytes are the packet. */
		if (r->err || ihl < 20 || (total && total < ihl) || proto != 6 || (frag & 0x3FFF))
			return -1;
		if (!wire_skip(r, ihl - 20))
			return -1;
		*ip_end = total ? ip_start + total : (size_t)-1;
		memcpy(k->client, src, 4); /* sorted out by the caller */
		memcpy(k->tpm, dst, 4);
	} else {
		/* RFC 8200: fixed 40-byte header, then extension headers. */
		wire_u32(r);
		uint16_t plen = wire_u16(r);
		uint8_t nh = wire_u8(r);
		wire_u8(r);
		src = wire_skip(r, 16);
		dst = wire_skip(r, 16);
		if (r->err)
			return -1;
		*ip_end = plen ? r->off + plen : (size_t)-1;
		while (nh == 0 || nh == 43 || nh == 60 || nh == 51) {
			uint8_t next = wire_u8(r);
			uint8_t hl = wire_u8(r);
			size_t n = nh == 51 ? ((size_t)hl + 2) * 4 : ((size_t)hl + 1) * 8;
			if (!wire_skip(r, n - 2))
				return -1;
			nh = next;
		}
		if (nh != 6) /* fragments (44) and everything that is not TCP */
			return -1;
		memcpy(k->client, src, 16);
		memcpy(k->tpm, dst, 16);
	}
	return 0;
}

int pcap_import_packet(struct pcap_import *pi, int dlt, uint64_t t_ns, const uint8_t *pkt,
		       size_t caplen, size_t wirelen)
{
	struct wire_rd r;
	struct conn_key k;
	size_t ip_end, missing = 0;
	int ver, platform, di;
	uint16_t tpm_port = pi->cfg.tpm_port;

	if (pi->rc)
		return pi->rc;
	if (import_log_stop_requested) {
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
	if (ip_parse(&r, ver, &k, &ip_end) < 0)
		goto skip;
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
	struct conn *c = pcap_conn_get(pi, &k, platform);
	if (!c)
		return pi->rc ? pi->rc : -ENOMEM;
	pcap_dir_segment(pi, c, di, seq, flags, pkt + r.off, end - r.off, missing);
	pcap_lru_touch(pi, c);
	struct dir *d = &c->d[di];
	if (!d->len && d->cap && !pi->rc) {
		/* Nothing waits to be framed: an idle connection holds no buffer (one of DIR_BUF
		 * bytes is kept for the next that needs it). */
		pi->bytes -= d->cap;
		if (!pi->spare_buf && d->cap == DIR_BUF)
			pi->spare_buf = d->buf;
		else
			free(d->buf);
		d->buf = NULL;
		d->cap = 0;
	}
	if (flags & TCP_FIN)
		c->fin |= (uint8_t)(1u << di);
	if (!pi->rc && (c->fin == 3 || (flags & TCP_RST)))
		pcap_conn_finish(pi, c); /* over: both sides said so, or one reset it */
	/* Connections silent for the idle gap (capture time) are over too. */
	while (!pi->rc && pi->lru && pi->t > pi->lru->last_t &&
	       pi->t - pi->lru->last_t > pi->cfg.idle_gap_ns)
		pcap_conn_finish(pi, pi->lru);
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
		pcap_conn_finish(pi, pi->first);
	return pi->rc;
}

int pcap_import_new_section(struct pcap_import *pi)
{
	/* A section is a capture of its own (the pcap TCTI starts one per
	 * initialisation, with sequence numbers starting over): what was open is
	 * finished, the same addresses and ports make a new connection. */
	int rc = pcap_import_finish(pi);
	while (pi->first)
		pcap_conn_free(pi, pi->first);
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
		pcap_conn_free(pi, pi->first);
	free(pi->spare_buf);
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
		uint32_t blen = get_u32_bo(buf + o + 4, be);
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

/* A capture's packets, from libpcap or, for a classic pcap file of the
 * common kinds, straight from the buffer: its 24-byte file header, then each
 * packet after a 16-byte record header (seconds, micro- or nanoseconds,
 * captured and original length). libpcap reads through a FILE and copies
 * every packet; this read was a third of the parser's instructions. A file
 * the direct read does not know (another version, link type or magic), or a
 * record it would not take, is read by libpcap, which names the fault. */
struct reader {
	pcap_t *p;	    /* libpcap, or NULL: direct */
	const uint8_t *buf; /* direct: the file */
	size_t len, off;    /* ... and the next record's offset */
	int be, nano, dlt;  /* big-endian file; nanosecond timestamps */
	uint32_t snaplen;
};

/* The link types of the direct read: a LINKTYPE_ value and its DLT_. */
static int direct_dlt(uint32_t linktype)
{
	switch (linktype) {
	case 0:
		return DLT_NULL;
	case 1:
		return DLT_EN10MB;
	case 101:
		return DLT_RAW;
	case 108:
		return DLT_LOOP;
	case 113:
		return DLT_LINUX_SLL;
	case 228:
		return DLT_IPV4;
	case 229:
		return DLT_IPV6;
	case 276:
		return DLT_LINUX_SLL2;
	}
	return -1;
}

/* 1 when buf is a classic pcap file the direct read takes (r set up). */
static int direct_open(struct reader *r, const uint8_t *buf, size_t len)
{
	memset(r, 0, sizeof(*r));
	if (len < 24)
		return 0;
	uint32_t m = get_u32_bo(buf, 0);
	r->be = m == 0xd4c3b2a1 || m == 0x4d3cb2a1;
	r->nano = m == 0xa1b23c4d || m == 0x4d3cb2a1;
	if (!r->be && !r->nano && m != 0xa1b2c3d4)
		return 0;
	/* version 2.4: major and minor, 16 bits each, in the file's order */
	if (get_u32_bo(buf + 4, r->be) != (r->be ? 0x00020004u : 0x00040002u))
		return 0;
	r->snaplen = get_u32_bo(buf + 16, r->be);
	r->dlt = direct_dlt(get_u32_bo(buf + 20, r->be));
	if (r->dlt < 0 || r->snaplen == 0)
		return 0;
	r->buf = buf;
	r->len = len;
	r->off = 24;
	return 1;
}

/* The next packet: 1, 0 at the end, -1 on a record the direct read does
 * not take (libpcap's read says what is wrong with it). */
static int reader_next(struct reader *r, uint64_t *t, const uint8_t **data, uint32_t *caplen,
		       uint32_t *wirelen)
{
	if (r->p) {
		struct pcap_pkthdr *h;
		int rc = pcap_next_ex(r->p, &h, data);
		if (rc != 1)
			return rc == -1 ? -1 : 0;
		*t = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
		*caplen = h->caplen;
		*wirelen = h->len;
		return 1;
	}
	if (r->off == r->len)
		return 0;
	if (r->len - r->off < 16)
		return -1;
	const uint8_t *h = r->buf + r->off;
	uint32_t sec = get_u32_bo(h, r->be), frac = get_u32_bo(h + 4, r->be),
		 cl = get_u32_bo(h + 8, r->be);
	if (frac >= (r->nano ? 1000000000u : 1000000u) || cl > r->snaplen || cl > 262144 ||
	    cl > r->len - r->off - 16)
		return -1;
	*t = (uint64_t)sec * 1000000000ull + (r->nano ? frac : (uint64_t)frac * 1000);
	*data = h + 16;
	*caplen = cl;
	*wirelen = get_u32_bo(h + 12, r->be);
	r->off += 16 + (size_t)cl;
	return 1;
}

/* Opens the reader of the section [base, base + slen) of buf: direct (the
 * whole file is its one section) or libpcap (perr says why not). 0 or -1. */
static int reader_open(struct reader *r, int direct, const uint8_t *buf, size_t base, size_t slen,
		       char *perr)
{
	if (direct)
		return direct_open(r, buf, base + slen) ? 0 : -1;
	memset(r, 0, sizeof(*r));
	if (!(r->p = section_open(buf + base, slen, perr)))
		return -1;
	r->dlt = pcap_datalink(r->p);
	return 0;
}

/* Bytes of the section read so far. */
static size_t reader_offset(struct reader *r)
{
	if (!r->p)
		return r->off;
	long off = ftell(pcap_file(r->p));
	return off < 0 ? 0 : (size_t)off;
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
	char why[320];
	rc = pcap_lib_load(why, sizeof why);
	if (rc) {
		snprintf(err, errlen, "%s: %s", name, why);
		return rc;
	}
	nsec = sections_find(buf, len, &starts);
	if (!nsec) {
		free(starts);
		starts = &one; /* classic pcap, or something libpcap will name */
		nsec = 1;
	}
	/* Pass 1: the whole file must read cleanly; the timestamps tell whether
	 * they were made up (equal steps) and how fine they are. A classic file
	 * is read directly (struct reader) unless a record stops that read:
	 * then libpcap reads it again, from the start. */
	struct reader rd;
	int direct = nsec == 1 && starts[0] == 0 && direct_open(&rd, buf, len);
again:
	for (size_t s = 0; s < nsec; s++) {
		size_t base = starts[s], slen = (s + 1 < nsec ? starts[s + 1] : len) - base;
		if (reader_open(&rd, direct, buf, base, slen, perr)) {
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
			size_t off = reader_offset(&rd);
			if (import_log_stop_requested) {
				snprintf(err, errlen, "%s: interrupted", name);
				rc = -EINTR;
				break;
			}
			uint64_t t;
			const uint8_t *data;
			uint32_t caplen, wirelen;
			int r = reader_next(&rd, &t, &data, &caplen, &wirelen);
			if (r == 1) {
				pktno++;
				if (!(pktno & 4095))
					give_back(buf, base + off, mapped);
				tstats_add(&ts, t);
				continue;
			}
			if (r == -1 && direct) {
				direct = 0; /* libpcap reads it: it names the fault, if any */
				pktno = 0;
				memset(&ts, 0, sizeof(ts));
				goto again;
			}
			if (r == -1) {
				snprintf(err, errlen,
					 "%s: packet %" PRIu64 " (block at byte offset %zu): %s",
					 name, pktno + 1, base + off, pcap_geterr(rd.p));
				rc = -EINVAL;
			}
			break;
		}
		if (rd.p)
			pcap_close(rd.p);
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
		if (reader_open(&rd, direct, buf, base, slen, perr)) {
			snprintf(err, errlen, "%s: section %zu: %s", name, s + 1, perr);
			rc = -EINVAL;
			break;
		}
		if (s > 0)
			rc = pcap_import_new_section(pi);
		pi->st.sections++;
		pi->st.last_linktype = rd.dlt;
		uint64_t t;
		const uint8_t *data;
		uint32_t caplen, wirelen;
		while (!rc && reader_next(&rd, &t, &data, &caplen, &wirelen) == 1) {
			rc = pcap_import_packet(pi, rd.dlt, t, data, caplen, wirelen);
			if (!(pi->pkt & 4095)) {
				give_back(buf, base + reader_offset(&rd), mapped);
				if (c2.progress)
					c2.progress(c2.progress_arg, pi->pkt, pktno);
			}
		}
		if (rd.p)
			pcap_close(rd.p);
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
	int rc = import_log_map_file(path, cfg && cfg->follow, &m, &len, &is_file, err, errlen);
	if (rc)
		return rc;
	rc = import_mem(m ? m : (const void *)"", len, path, cfg, ops, ctx, st, err, errlen,
			is_file);
	import_log_unmap_file(m, len);
	return rc;
}

int pcap_import_mem(const uint8_t *buf, size_t len, const char *name,
		    const struct pcap_import_cfg *cfg, const struct pcap_import_ops *ops, void *ctx,
		    struct pcap_import_stats *st, char *err, size_t errlen)
{
	return import_mem(buf, len, name, cfg, ops, ctx, st, err, errlen, 0);
}