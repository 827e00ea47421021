/* tpmtrace record --pcap-live IFACE: TPM traffic on TCP captured live with
 * libpcap and decoded packet by packet exactly as `import pcap` decodes a
 * file (recorder/import/pcap_import.h), into a trace of kind 'record'. */
#include "record.h"

#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "db/db.h"
#include "db/writer.h"
#include "recorder/import/pcap_import.h"
#include "recorder/record_session.h"
#include "recorder/recorder.h"
#include "model/tpm/redact.h"

#define SUB "record"

struct live {
	struct recorder rec; /* writer, payload mode, redaction */
	pcap_t *pc;
	struct pcap_import *pi;
	int dlt;
	int nano;	   /* the capture's timestamps are in nanoseconds */
	int64_t clock_off; /* CLOCK_MONOTONIC - capture clock, ns */
	int cb_rc;
	uint64_t packets;
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
	struct live *l = ctx;
	/* Through the recorder: a row the full queue refuses is retried with
	 * the next command, as the proxy's are. */
	recorder_client_add(&l->rec, id, peer, first_ns);
	return 0;
}

static int on_command(void *ctx, const struct pcap_tpm_cmd *c)
{
	struct live *l = ctx;
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
	struct live *l = ctx;
	db_writer_event(l->rec.w, e->t_ns, e->kind, e->detail, e->client_id);
	return 0;
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct live *l = (struct live *)user;
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
static void drain(struct live *l)
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
static int capture_open(struct live *l, const char *iface, unsigned port, int mssim,
			struct bpf_program *prog, int *have_prog)
{
	char ebuf[PCAP_ERRBUF_SIZE], filter[96];

	l->pc = pcap_create(iface, ebuf);
	if (!l->pc)
		return cli_error(SUB, "--pcap-live %s: %s", iface, ebuf);
	pcap_set_snaplen(l->pc, 262144);
	pcap_set_promisc(l->pc, 0);
	pcap_set_immediate_mode(l->pc, 1);
	pcap_set_buffer_size(l->pc, 8 << 20);
	pcap_set_tstamp_precision(l->pc, PCAP_TSTAMP_PRECISION_NANO);
	int prc = pcap_activate(l->pc);
	if (prc < 0)
		return cli_error(SUB, "--pcap-live %s: %s%s", iface, pcap_geterr(l->pc),
				 prc == PCAP_ERROR_PERM_DENIED ? " (capturing needs CAP_NET_RAW)"
							       : "");
	l->nano = pcap_get_tstamp_precision(l->pc) == PCAP_TSTAMP_PRECISION_NANO;
	snprintf(filter, sizeof filter, mssim ? "tcp port %u or tcp port %u" : "tcp port %u", port,
		 port + 1);
	if (pcap_compile(l->pc, prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0 ||
	    (*have_prog = 1, pcap_setfilter(l->pc, prog) < 0))
		return cli_error(SUB, "--pcap-live %s: filter '%s': %s", iface, filter,
				 pcap_geterr(l->pc));
	l->dlt = pcap_datalink(l->pc);
	/* pcap_import handles the link types a pcap file may have; a live
	 * loopback is DLT_EN10MB on Linux. */
	l->clock_off = (int64_t)db_mono_ns() - (int64_t)realtime_ns();
	return 0;
}

/* Packets until a stop signal (passed on to the child, if any, which then
 * ends it) or the child's end. */
static void capture_loop(struct live *l, int sfd, pid_t *child, int *child_status, int *stop_signal)
{
	struct pollfd pf[2] = {{.fd = pcap_get_selectable_fd(l->pc), .events = POLLIN},
			       {.fd = sfd, .events = POLLIN}};
	for (int done = 0; !done && !l->cb_rc;) {
		int n = poll(pf, 2, pf[0].fd >= 0 ? 200 : 10);
		if (n < 0 && errno != EINTR)
			break;
		pcap_dispatch(l->pc, -1, on_packet, (u_char *)l);
		struct signalfd_siginfo si;
		while (read(sfd, &si, sizeof si) == sizeof si) {
			if (si.ssi_signo == SIGCHLD) {
				if (*child > 0 &&
				    waitpid(*child, child_status, WNOHANG) == *child) {
					*child = 0;
					done = 1;
				}
			} else {
				*stop_signal = (int)si.ssi_signo;
				if (*child > 0)
					kill(*child, (int)si.ssi_signo);
				else
					done = 1;
			}
		}
	}
}

/* What is left in the kernel's buffer, the connections still open, the
 * kernel's drops (an event), the trace's last event; then the writer.
 * Returns -1 when the trace could not be closed. */
static int capture_finish(struct live *l, struct record_session *s, const struct record_args *a,
			  int stop_signal)
{
	drain(l);
	pcap_import_finish(l->pi);

	struct pcap_stat ps = {0};
	int have_ps = pcap_stats(l->pc, &ps) == 0;
	if (have_ps && ps.ps_drop) {
		char d[64];
		snprintf(d, sizeof d, "%u packets dropped by the kernel", ps.ps_drop);
		recorder_event(&l->rec, "capture_gap", d, 0);
	}
	recorder_stop_event(&l->rec, "record-stop", stop_signal ? strsignal(stop_signal) : NULL);
	struct pcap_import_stats st;
	pcap_import_get_stats(l->pi, &st);
	struct writer_stats ws = {0};
	int rc = record_session_end(s, &ws) ? -1 : 0;
	if (rc)
		fprintf(stderr, "tpmtrace record: could not finalize trace %lld in %s\n",
			(long long)s->trace_id, cli_name(a->db_path));
	if (!a->quiet || ws.dropped || (have_ps && ps.ps_drop))
		fprintf(stderr,
			"tpmtrace record: trace %lld: %" PRIu64 " packets, %" PRIu64
			" TPM segments, %" PRIu64 " commands (%" PRIu64 " malformed, %" PRIu64
			" without response), %" PRIu64 " clients; %llu rows dropped by the "
			"writer, %u packets dropped by the kernel\n",
			(long long)s->trace_id, l->packets, st.tpm_packets, st.commands,
			st.malformed, st.no_response, st.clients, (unsigned long long)ws.dropped,
			have_ps ? ps.ps_drop : 0);
	return rc;
}

int record_pcap_live(const struct record_args *a)
{
	const char *iface = a->iface;
	unsigned port = a->port ? a->port : PCAP_IMPORT_DEFAULT_PORT;
	int ret = 1;
	char err[512], ebuf[PCAP_ERRBUF_SIZE], source[128];
	struct live l;
	struct bpf_program prog;
	int have_prog = 0;
	pid_t child = 0;
	int child_status = 0, stop_signal = 0;
	struct record_session s;

	memset(&l, 0, sizeof l);
	record_session_init(&s);
	if (cli_db_for_create(SUB, a->db_path))
		return 1;
	/* Signals arrive through a signalfd; blocked before the writer thread
	 * starts, which would otherwise take (and drop) SIGCHLD. */
	if (record_session_signals(&s, RECORD_SIG_CHLD) < 0) {
		cli_error(SUB, "signalfd failed");
		goto out;
	}
	if (capture_open(&l, iface, port, a->mssim, &prog, &have_prog))
		goto out;
	snprintf(source, sizeof source, "pcap-live:%s tcp port %u", iface, port);
	struct record_trace_cfg tc = {.db_path = a->db_path,
				      .file_mode = -1,
				      .name = a->name,
				      .source = source,
				      .payloads = a->payloads};
	if (record_session_begin(&s, &tc, err, sizeof err)) {
		cli_error(SUB, "%s", err);
		goto out;
	}
	recorder_init(&l.rec, s.w, NULL, a->payloads);
	static const struct pcap_import_ops ops = {on_client, on_command, on_event};
	struct pcap_import_cfg cfg = {.tpm_port = (uint16_t)port, .ts_res_ns = l.nano ? 1 : 1000};
	if (pcap_import_new(&l.pi, &cfg, &ops, &l)) {
		cli_error(SUB, "out of memory");
		goto out;
	}
	recorder_event(&l.rec, "record-start", source, 0);
	if (pcap_setnonblock(l.pc, 1, ebuf) < 0) {
		cli_error(SUB, "signalfd/pcap_setnonblock failed");
		goto out;
	}
	if (a->command) {
		if ((child = cli_spawn(SUB, a->command, &s.oldmask, NULL)) < 0)
			goto out;
	} else if (!a->quiet) {
		fprintf(stderr,
			"tpmtrace record: capturing TPM traffic on %s, TCP port %u, into %s (trace "
			"%lld); stop with Ctrl-C\n",
			cli_name(iface), port, cli_name(a->db_path), (long long)s.trace_id);
	}
	capture_loop(&l, s.sfd, &child, &child_status, &stop_signal);
	int closed = capture_finish(&l, &s, a, stop_signal);
	ret = a->command ? cli_exit_status(child_status) : l.cb_rc ? 1 : 0;
	if (closed && !ret)
		ret = 1;
out:
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
	record_session_close(&s);
	pcap_import_free(l.pi);
	if (have_prog)
		pcap_freecode(&prog);
	if (l.pc)
		pcap_close(l.pc);
	return ret;
}
