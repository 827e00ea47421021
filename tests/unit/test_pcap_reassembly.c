/* The pcap importer's TCP and framing logic on crafted segments: pipelined
 * messages in one segment, a command split over segments that arrive out of
 * order and retransmitted, simulator framing with locality and the response
 * in three writes, a response without command, a command without response,
 * garbage on the TPM port, lost segments, synthetic timestamps, bad files.
 * Messages are TPM 2.0 Part 3 commands written out by hand. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "testlib.h"

#include "db/writer.h"
#include "model/tpm/wire.h"
#include "recorder/import/pcap_import.h"

/* TPM2_Startup(TPM_SU_CLEAR): Part 3 section 9.3. */
static const uint8_t startup[] = {0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x44, 0, 0};
/* TPM2_GetRandom(bytesRequested = 8): Part 3 section 16.1. */
static const uint8_t getrandom[] = {0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x7B, 0, 8};
/* Success with no parameters, and TPM_RC_INITIALIZE (0x100). */
static const uint8_t rsp_ok[] = {0x80, 0x01, 0, 0, 0, 10, 0, 0, 0, 0};
static const uint8_t rsp_init[] = {0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x01, 0x00};
/* GetRandom's answer: TPM2B_DIGEST of 8 bytes. */
static const uint8_t rsp_random[] = {0x80, 0x01, 0, 0, 0, 20, 0, 0, 0, 0,
				     0,	   8,	 1, 2, 3, 4,  5, 6, 7, 8};

#define MAXC 16
struct got {
	int n;
	uint32_t cc[MAXC], rc[MAXC], flags[MAXC], client[MAXC];
	int loc[MAXC], has_rsp[MAXC], mal[MAXC];
	size_t cmd_len[MAXC], rsp_len[MAXC];
	uint64_t t_submit[MAXC], t_done[MAXC];
	int nev;
	char ev[MAXC][32];
	int nclients;
	char peer[MAXC][64];
};

static int on_client(void *ctx, uint32_t id, const char *peer, uint64_t first_ns)
{
	struct got *g = ctx;
	if (g->nclients < MAXC)
		snprintf(g->peer[g->nclients++], sizeof g->peer[0], "%s", peer);
	return 0;
}

static int on_command(void *ctx, const struct pcap_tpm_cmd *c)
{
	struct got *g = ctx;
	if (g->n >= MAXC)
		return 0;
	int i = g->n++;
	g->cc[i] = c->dc.cc;
	g->rc[i] = c->dr.rc;
	g->flags[i] = c->flags;
	g->client[i] = c->client_id;
	g->loc[i] = c->locality;
	g->has_rsp[i] = c->rsp != NULL;
	g->mal[i] = c->malformed;
	g->cmd_len[i] = c->cmd_len;
	g->rsp_len[i] = c->rsp_len;
	g->t_submit[i] = c->t_submit_ns;
	g->t_done[i] = c->t_done_ns;
	return 0;
}

static int on_event(void *ctx, const struct pcap_tpm_event *e)
{
	struct got *g = ctx;
	if (g->nev < MAXC)
		snprintf(g->ev[g->nev++], sizeof g->ev[0], "%s", e->kind);
	return 0;
}

static const struct pcap_import_ops ops = {on_client, on_command, on_event};

/* A raw IPv4 + TCP packet (RFC 791, RFC 9293); checksums are not checked. */
static size_t mk_pkt(uint8_t *p, int to_tpm, uint16_t cport, uint16_t tport, uint32_t seq,
		     const void *data, size_t n)
{
	memset(p, 0, 40);
	p[0] = 0x45;
	wire_put_u16(p + 2, (uint16_t)(40 + n));
	p[8] = 64;
	p[9] = 6;
	wire_put_u32(p + 12, to_tpm ? 0x0A000002 : 0x0A000001);
	wire_put_u32(p + 16, to_tpm ? 0x0A000001 : 0x0A000002);
	wire_put_u16(p + 20, to_tpm ? cport : tport);
	wire_put_u16(p + 22, to_tpm ? tport : cport);
	wire_put_u32(p + 24, seq);
	p[32] = 5 << 4;
	p[33] = 0x18;
	memcpy(p + 40, data, n);
	return 40 + n;
}

struct feeder {
	struct pcap_import *pi;
	uint16_t cport, tport;
	uint32_t seq[2]; /* next sequence number per direction */
	uint64_t t;
};

/* Sends n bytes from one side at time t (ms steps), advancing its sequence. */
static void send_at(struct feeder *f, int to_tpm, uint32_t seq, const void *d, size_t n)
{
	uint8_t pkt[2048];
	size_t len = mk_pkt(pkt, to_tpm, f->cport, f->tport, seq, d, n);
	f->t += 1000000;
	pcap_import_packet(f->pi, DLT_IPV4, f->t, pkt, len, len);
}

static void feed(struct feeder *f, int to_tpm, const void *d, size_t n)
{
	send_at(f, to_tpm, f->seq[!to_tpm], d, n);
	f->seq[!to_tpm] += (uint32_t)n;
}

static void start(struct feeder *f, struct got *g, uint16_t tport)
{
	struct pcap_import_cfg cfg = {.tpm_port = tport};
	memset(g, 0, sizeof(*g));
	memset(f, 0, sizeof(*f));
	f->cport = 50123;
	f->tport = tport;
	f->seq[0] = 1000;
	f->seq[1] = 90000;
	CHECK(pcap_import_new(&f->pi, &cfg, &ops, g) == 0, "new");
}

static void finish(struct feeder *f)
{
	pcap_import_finish(f->pi);
	pcap_import_free(f->pi);
}

static void test_pipelined(void)
{
	struct feeder f;
	struct got g;
	uint8_t two[24], rsps[30];
	start(&f, &g, 2321);
	memcpy(two, startup, 12);
	memcpy(two + 12, getrandom, 12);
	memcpy(rsps, rsp_init, 10);
	memcpy(rsps + 10, rsp_random, 20);
	feed(&f, 1, two, sizeof two);
	feed(&f, 0, rsps, sizeof rsps);
	finish(&f);
	CHECK(g.n == 2, "two commands from one segment, got %d", g.n);
	CHECK(g.cc[0] == 0x144 && g.rc[0] == 0x100, "first: cc %x rc %x", g.cc[0], g.rc[0]);
	CHECK(g.cc[1] == 0x17B && g.rc[1] == 0 && g.rsp_len[1] == 20, "second: cc %x rc %x len %zu",
	      g.cc[1], g.rc[1], g.rsp_len[1]);
	CHECK(g.mal[0] == 0 && g.mal[1] == 0, "malformed %d %d", g.mal[0], g.mal[1]);
	CHECK(g.loc[0] == -1, "raw framing has no locality: %d", g.loc[0]);
	CHECK(g.nclients == 1 && !strcmp(g.peer[0], "10.0.0.2:50123"), "peer %s", g.peer[0]);
}

static void test_split_ooo(void)
{
	struct feeder f;
	struct got g;
	uint32_t s = 1000;
	start(&f, &g, 2321);
	/* Segments [0,5) [5,9) [9,12): the last arrives before the middle one,
	 * the first is sent twice. */
	send_at(&f, 1, s, getrandom, 5);
	send_at(&f, 1, s, getrandom, 5);
	send_at(&f, 1, s + 9, getrandom + 9, 3);
	uint64_t t_mid = f.t + 1000000;
	send_at(&f, 1, s + 5, getrandom + 5, 4);
	f.seq[0] = s + 12;
	feed(&f, 0, rsp_random, 7);
	feed(&f, 0, rsp_random + 7, 13);
	finish(&f);
	CHECK(g.n == 1 && g.cc[0] == 0x17B && g.cmd_len[0] == 12 && !g.mal[0],
	      "reassembled command: n %d cc %x len %zu mal %d", g.n, g.cc[0], g.cmd_len[0],
	      g.mal[0]);
	CHECK(g.t_submit[0] == t_mid, "submit time is the completing segment's");
	CHECK(g.has_rsp[0] && g.rsp_len[0] == 20 && g.t_done[0] == f.t, "response reassembled");
	CHECK(g.nev == 0, "no events, got %d (%s)", g.nev, g.ev[0]);
}

static void test_mssim(void)
{
	struct feeder f;
	struct got g;
	uint8_t hdr[9] = {0, 0, 0, 8, 2, 0, 0, 0, 12}, size[4] = {0, 0, 0, 20}, zero[4] = {0};
	uint8_t end[4] = {0, 0, 0, 20};
	start(&f, &g, 2321);
	feed(&f, 1, hdr, 9);
	feed(&f, 1, getrandom, 12);
	feed(&f, 0, size, 4);
	feed(&f, 0, rsp_random, 20);
	feed(&f, 0, zero, 4);
	/* A second command in one segment at locality 0, answered in one. */
	uint8_t c2[21], r2[18];
	memcpy(c2, hdr, 9);
	c2[4] = 0;
	memcpy(c2 + 9, startup, 12);
	wire_put_u32(r2, 10);
	memcpy(r2 + 4, rsp_ok, 10);
	memset(r2 + 14, 0, 4);
	feed(&f, 1, c2, 21);
	feed(&f, 0, r2, 18);
	feed(&f, 1, end, 4); /* SESSION_END */
	finish(&f);
	CHECK(g.n == 2, "two simulator commands, got %d", g.n);
	CHECK(g.cc[0] == 0x17B && g.loc[0] == 2 && g.cmd_len[0] == 12 && g.rsp_len[0] == 20 &&
		  !g.mal[0],
	      "first: cc %x loc %d len %zu/%zu mal %d", g.cc[0], g.loc[0], g.cmd_len[0],
	      g.rsp_len[0], g.mal[0]);
	CHECK(g.cc[1] == 0x144 && g.loc[1] == 0 && g.rc[1] == 0 && !g.mal[1], "second: cc %x",
	      g.cc[1]);
	CHECK(g.nev == 1 && !strcmp(g.ev[0], "SESSION_END"), "events %d %s", g.nev, g.ev[0]);

	/* The platform port: codes become events, the replies are ignored. */
	start(&f, &g, 2321);
	f.tport = 2322;
	uint8_t on[8] = {0, 0, 0, 1, 0, 0, 0, 11};
	feed(&f, 1, on, 8);
	feed(&f, 0, zero, 4);
	finish(&f);
	CHECK(g.n == 0 && g.nev == 2 && !strcmp(g.ev[0], "POWER_ON") && !strcmp(g.ev[1], "NV_ON"),
	      "platform: %d commands, %d events", g.n, g.nev);
}

static void test_unmatched_and_garbage(void)
{
	struct feeder f;
	struct got g;
	start(&f, &g, 4000);
	feed(&f, 0, rsp_ok, 10);  /* response first */
	feed(&f, 1, startup, 12); /* never answered */
	finish(&f);
	CHECK(g.nev == 1 && !strcmp(g.ev[0], "unmatched_response"), "events %d %s", g.nev, g.ev[0]);
	CHECK(g.n == 1 && !g.has_rsp[0] && (g.flags[0] & REC_F_NO_RESPONSE),
	      "command without response: n %d flags %x", g.n, g.flags[0]);

	start(&f, &g, 2321);
	static const char http[] = "GET / HTTP/1.1\r\n\r\n";
	feed(&f, 1, http, strlen(http));
	finish(&f);
	CHECK(g.n == 1 && g.mal[0] && (g.flags[0] & REC_F_MALFORMED),
	      "garbage is one malformed command: n %d mal %d", g.n, g.n ? g.mal[0] : 0);

	/* Other ports are not TPM traffic. */
	start(&f, &g, 2321);
	f.tport = 80;
	feed(&f, 1, startup, 12);
	finish(&f);
	CHECK(g.n == 0 && g.nev == 0 && g.nclients == 0, "port 80 ignored");
}

static void test_gap(void)
{
	struct feeder f;
	struct got g;
	start(&f, &g, 2321);
	send_at(&f, 1, 1000, getrandom, 6);
	/* bytes 6..8 never captured; the rest arrives, then another command */
	send_at(&f, 1, 1009, getrandom + 9, 3);
	finish(&f);
	CHECK(g.nev >= 1 && !strcmp(g.ev[0], "capture_gap"), "gap event: %d %s", g.nev, g.ev[0]);
}

/* A classic pcap file in memory (LINKTYPE_IPV4, microseconds). */
static size_t mk_file(uint8_t *buf, const uint64_t *us, int n)
{
	struct wire_wr w;
	uint8_t pkt[128];
	wire_wr_init(&w, buf, 8192);
	/* little-endian header: magic, 2.4, zone, sigfigs, snaplen, link */
	const uint8_t hdr[24] = {0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0,	  0, 0, 0,
				 0,    0,    0,	   0,	 0, 0, 4, 0, 228, 0, 0, 0};
	wire_wr_bytes(&w, hdr, 24);
	for (int i = 0; i < n; i++) {
		int to_tpm = !(i & 1);
		size_t len =
		    to_tpm ? mk_pkt(pkt, 1, 50000, 2321, 1000 + 12 * (uint32_t)(i / 2), startup, 12)
			   : mk_pkt(pkt, 0, 50000, 2321, 9000 + 10 * (uint32_t)(i / 2), rsp_ok, 10);
		uint8_t rec[16];
		uint32_t v[4] = {(uint32_t)(us[i] / 1000000), (uint32_t)(us[i] % 1000000),
				 (uint32_t)len, (uint32_t)len};
		for (int k = 0; k < 4; k++) {
			rec[4 * k] = (uint8_t)v[k];
			rec[4 * k + 1] = (uint8_t)(v[k] >> 8);
			rec[4 * k + 2] = (uint8_t)(v[k] >> 16);
			rec[4 * k + 3] = (uint8_t)(v[k] >> 24);
		}
		wire_wr_bytes(&w, rec, 16);
		wire_wr_bytes(&w, pkt, len);
	}
	return w.err ? 0 : w.off;
}

static void test_files(void)
{
	static uint8_t buf[8192];
	struct pcap_import_stats st;
	struct got g;
	char err[256];
	uint64_t steady[8], real[8];
	for (int i = 0; i < 8; i++) {
		steady[i] = 1700000000000000ull + 10ull * (uint64_t)i;
		real[i] = 1700000000000000ull + (uint64_t)(i * i * 37 + i * 5);
	}
	size_t n = mk_file(buf, steady, 8);
	memset(&g, 0, sizeof(g));
	int rc = pcap_import_mem(buf, n, "steady.pcap", NULL, &ops, &g, &st, err, sizeof err);
	CHECK(rc == 0, "steady: %s", err);
	CHECK(g.n == 4 && (g.flags[0] & REC_F_SYNTHETIC_TIME) && st.synthetic_time,
	      "equal steps are synthetic: n %d flags %x", g.n, g.flags[0]);
	CHECK(st.ts_res_ns == 10000, "10 us steps: resolution %u", st.ts_res_ns);

	n = mk_file(buf, real, 8);
	memset(&g, 0, sizeof(g));
	rc = pcap_import_mem(buf, n, "real.pcap", NULL, &ops, &g, &st, err, sizeof err);
	CHECK(rc == 0 && g.n == 4 && !(g.flags[0] & REC_F_SYNTHETIC_TIME) && !st.synthetic_time,
	      "irregular steps are not synthetic");
	CHECK(st.ts_res_ns == 1000, "microsecond file: resolution %u", st.ts_res_ns);
	CHECK(g.t_submit[1] == real[2] * 1000, "times in ns");

	/* Cut inside the last packet: an error naming the packet, no callback. */
	memset(&g, 0, sizeof(g));
	rc = pcap_import_mem(buf, n - 5, "cut.pcap", NULL, &ops, &g, NULL, err, sizeof err);
	CHECK(rc == -EINVAL && strstr(err, "cut.pcap: packet 8 ") && g.n == 0 && g.nclients == 0,
	      "truncated: rc %d err %s", rc, err);
	rc = pcap_import_mem(buf, 0, "empty.pcap", NULL, &ops, &g, NULL, err, sizeof err);
	CHECK(rc == -EINVAL && strstr(err, "empty.pcap: empty file"), "empty: %s", err);
}

int main(void)
{
	test_pipelined();
	test_split_ooo();
	test_mssim();
	test_unmatched_and_garbage();
	test_gap();
	test_files();
	return tl_finish("pcap_reassembly");
}
