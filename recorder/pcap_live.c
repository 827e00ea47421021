/* record --pcap-live (recorder/pcap_live.h): TPM traffic on TCP captured
 * live with libpcap and decoded packet by packet exactly as `import pcap`
 * decodes a file (recorder/import/pcap_import.h), through the recording
 * core. */
#include "recorder/pcap_live.h"

#include <errno.h>
#include "recorder/import/pcap_lib.h"
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "db/text.h"
#include "db/writer.h"
#include "recorder/import/pcap_import.h"
#include "recorder/record_session.h"
#include "recorder/recorder.h"

struct record_pcap_live {
	struct recorder rec; /* writer, payload mode, redaction */
	pcap_t *pc;
	struct pcap_import *pi;
	int dlt;
	int nano;	   /* the capture's timestamps are in nanoseconds */
	int64_t clock_off; /* CLOCK_MONOTONIC - capture clock, ns */
	int cb_rc;
	uint64_t packets;
	struct bpf_program prog;
	int have_prog;
	unsigned port;
};

static uint64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- decoded traffic into the writer ---- */

static int on_client(void *ctx, uint32_t id, const char *peer, uint64_t first_ns)
{
	struct record_pcap_live *l = ctx;
	/* Through the recorder: a row the full queue refuses is retried with
	 * the next command, as the proxy's are. */
	recorder_client_add(&l->rec, id, peer, first_ns);
	return 0;
}

static int on_command(void *ctx, const struct pcap_tpm_cmd *c)
{
	struct record_pcap_live *l = ctx;
	/* recorder_log() stores what a proxy would have: decoded columns, the
	 * payload mode's bytes (redacted by default), NO_RESPONSE when there was
	 * none. */
	struct rec_timing tm = {
	    .t_submit = c->t_submit_ns,
	    .t_done = c->rsp ? c->t_done_ns : c->t_submit_ns,
	    .rc = c->rsp ? 0 : -EPIPE,
	};
	recorder_log(&l->rec, c->client_id, c->locality < 0 ? 0 : (uint8_t)c->locality, c->cmd,
		     c->cmd_len, c->rsp ? c->rsp : (const uint8_t *)"", c->rsp_len, &tm);
	return 0;
}

static int on_event(void *ctx, const struct pcap_tpm_event *e)
{
	struct record_pcap_live *l = ctx;
	db_writer_event(l->rec.w, e->t_ns, e->kind, e->detail, e->client_id);
	return 0;
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct record_pcap_live *l = (struct record_pcap_live *)user;
	/* With nanosecond precision granted, tv_usec holds nanoseconds. */
	uint64_t t = (uint64_t)h->ts.tv_sec * 1000000000ull +
		     (uint64_t)h->ts.tv_usec * (l->nano ? 1u : 1000u);
	l->packets++;
	if (l->cb_rc)
		return;
	l->cb_rc = pcap_import_packet(l->pi, l->dlt, (uint64_t)((int64_t)t + l->clock_off), bytes,
				      h->caplen, h->len);
}

/* Reads what the kernel holds now, without waiting. */
static void drain(struct record_pcap_live *l)
{
	for (int quiet = 0; quiet < 3;) {
		int n = pcap_dispatch(l->pc, -1, on_packet, (u_char *)l);
		if (n > 0) {
			quiet = 0;
			continue;
		}
		if (n < 0)
			break;
		quiet++;
		struct timespec ts = {0, 30 * 1000000};
		nanosleep(&ts, NULL);
	}
}

/* The capture, before anything else: a command started before it is active
 * would lose its first packets. Only TCP to and from port (and port + 1, the
 * simulator's platform port, with mssim). */
static int capture_open(struct record_pcap_live *l, const char *iface, unsigned port, int mssim,
			char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE], filter[96];

	l->pc = pcap_create(iface, ebuf);
	if (!l->pc)
		return db_errf(err, errlen, -1, "--pcap-live %s: %s", iface, ebuf);
	pcap_set_snaplen(l->pc, 262144);
	pcap_set_promisc(l->pc, 0);
	pcap_set_immediate_mode(l->pc, 1);
	pcap_set_buffer_size(l->pc, 8 << 20);
	pcap_set_tstamp_precision(l->pc, PCAP_TSTAMP_PRECISION_NANO);
	int prc = pcap_activate(l->pc);
	if (prc < 0)
		return db_errf(err, errlen, -1, "--pcap-live %s: %s%s", iface, pcap_geterr(l->pc),
			       prc == PCAP_ERROR_PERM_DENIED ? " (capturing needs CAP_NET_RAW)"
							     : "");
	l->nano = pcap_get_tstamp_precision(l->pc) == PCAP_TSTAMP_PRECISION_NANO;
	snprintf(filter, sizeof filter, mssim ? "tcp port %u or tcp port %u" : "tcp port %u", port,
		 port + 1);
	if (pcap_compile(l->pc, &l->prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0 ||
	    (l->have_prog = 1, pcap_setfilter(l->pc, &l->prog) < 0))
		return db_errf(err, errlen, -1, "--pcap-live %s: filter '%s': %s", iface, filter,
			       pcap_geterr(l->pc));
	l->dlt = pcap_datalink(l->pc);
	/* pcap_import handles the link types a pcap file may have; a live
	 * loopback is DLT_EN10MB on Linux. */
	l->clock_off = (int64_t)db_mono_ns() - (int64_t)realtime_ns();
	return 0;
}

void record_pcap_loop(struct record_pcap_live *l, struct record_session *s, struct record_child *c)
{
	struct pollfd pf[2] = {{.fd = pcap_get_selectable_fd(l->pc), .events = POLLIN},
			       {.fd = s->sfd, .events = POLLIN}};
	for (int done = 0; !done && !l->cb_rc;) {
		int n = poll(pf, 2, pf[0].fd >= 0 ? 200 : 10);
		if (n < 0 && errno != EINTR)
			break;
		pcap_dispatch(l->pc, -1, on_packet, (u_char *)l);
		done = record_session_stop_due(s, c);
	}
}

int record_pcap_open(struct record_pcap_live **out, const char *iface, unsigned port, int mssim,
		     char *err, size_t errlen)
{
	struct record_pcap_live *l = calloc(1, sizeof *l);
	*out = l;
	if (!l)
		return db_errf(err, errlen, -1, "out of memory");
	l->port = port ? port : PCAP_IMPORT_DEFAULT_PORT;
	int rc = pcap_lib_load(err, errlen);
	return rc ? rc : capture_open(l, iface, l->port, mssim, err, errlen);
}

unsigned record_pcap_port(const struct record_pcap_live *l)
{
	return l->port;
}

int record_pcap_start(struct record_pcap_live *l, struct writer *w, int payloads,
		      const char *source, char *err, size_t errlen)
{
	static const struct pcap_import_ops ops = {on_client, on_command, on_event};
	char ebuf[PCAP_ERRBUF_SIZE];
	recorder_init(&l->rec, w, NULL, payloads);
	struct pcap_import_cfg cfg = {.tpm_port = (uint16_t)l->port,
				      .ts_res_ns = l->nano ? 1 : 1000};
	if (pcap_import_new(&l->pi, &cfg, &ops, l))
		return db_errf(err, errlen, -1, "out of memory");
	recorder_event(&l->rec, "record-start", source, 0);
	if (pcap_setnonblock(l->pc, 1, ebuf) < 0)
		return db_errf(err, errlen, -1, "signalfd/pcap_setnonblock failed");
	return 0;
}

void record_pcap_finish(struct record_pcap_live *l, int stop_signal, struct record_pcap_stats *st)
{
	drain(l);
	pcap_import_finish(l->pi);
	struct pcap_stat ps = {0};
	memset(st, 0, sizeof *st);
	st->have_kernel = pcap_stats(l->pc, &ps) == 0;
	st->kernel_dropped = st->have_kernel ? ps.ps_drop : 0;
	if (st->kernel_dropped) {
		char d[64];
		snprintf(d, sizeof d, "%u packets dropped by the kernel", st->kernel_dropped);
		recorder_event(&l->rec, "capture_gap", d, 0);
	}
	recorder_stop_event(&l->rec, "record-stop", stop_signal ? strsignal(stop_signal) : NULL);
	struct pcap_import_stats is;
	pcap_import_get_stats(l->pi, &is);
	st->packets = l->packets;
	st->tpm_packets = is.tpm_packets;
	st->commands = is.commands;
	st->malformed = is.malformed;
	st->no_response = is.no_response;
	st->clients = is.clients;
}

int record_pcap_failed(const struct record_pcap_live *l)
{
	return l->cb_rc != 0;
}

void record_pcap_close(struct record_pcap_live *l)
{
	if (!l)
		return;
	pcap_import_free(l->pi);
	if (l->have_prog)
		pcap_freecode(&l->prog);
	if (l->pc)
		pcap_close(l->pc);
	free(l);
}
