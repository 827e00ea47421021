/* tpmtrace record --pcap-live IFACE: live capture (recorder/pcap_live.h) into
 * a trace of kind 'record'. */
#include "record.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "common.h"
#include "db/writer.h"
#include "recorder/pcap_live.h"
#include "recorder/record_session.h"

#define SUB "record"

int record_pcap_live(const struct record_args *a)
{
	int ret = 1;
	char err[512], source[128];
	struct record_pcap_live *l = NULL;
	struct record_child child = {0};
	struct record_session s;

	record_session_init(&s);
	if (cli_db_for_create(SUB, a->db_path))
		return 1;
	/* Signals arrive through a signalfd; blocked before the writer thread
	 * starts, which would otherwise take (and drop) SIGCHLD. */
	if (record_session_signals(&s, RECORD_SIG_CHLD) < 0) {
		cli_error(SUB, "signalfd failed");
		goto out;
	}
	if (record_pcap_open(&l, a->iface, a->port, a->mssim, err, sizeof err)) {
		cli_error(SUB, "%s", err);
		goto out;
	}
	unsigned port = record_pcap_port(l);
	snprintf(source, sizeof source, "pcap-live:%s tcp port %u", a->iface, port);
	struct record_trace_cfg tc = {.db_path = a->db_path,
				      .file_mode = -1,
				      .name = a->name,
				      .source = source,
				      .payloads = a->payloads};
	if (record_session_begin(&s, &tc, err, sizeof err) ||
	    record_pcap_start(l, s.w, a->payloads, source, err, sizeof err)) {
		cli_error(SUB, "%s", err);
		goto out;
	}
	if (a->command) {
		if ((child.pid = cli_spawn(SUB, a->command, &s.oldmask, NULL)) < 0)
			goto out;
	} else if (!a->quiet) {
		fprintf(stderr,
			"tpmtrace record: capturing TPM traffic on %s, TCP port %u, into %s (trace "
			"%lld); stop with Ctrl-C\n",
			cli_name(a->iface), port, cli_name(a->db_path), (long long)s.trace_id);
	}
	record_pcap_loop(l, &s, &child);
	struct record_pcap_stats st;
	record_pcap_finish(l, child.signal, &st);
	struct writer_stats ws = {0};
	int closed = record_session_end(&s, &ws) ? -1 : 0;
	if (closed)
		fprintf(stderr, "tpmtrace record: could not finalize trace %lld in %s\n",
			(long long)s.trace_id, cli_name(a->db_path));
	if (!a->quiet || ws.dropped || st.kernel_dropped)
		fprintf(stderr,
			"tpmtrace record: trace %lld: %" PRIu64 " packets, %" PRIu64
			" TPM segments, %" PRIu64 " commands (%" PRIu64 " malformed, %" PRIu64
			" without response), %" PRIu64 " clients; %llu rows dropped by the "
			"writer, %u packets dropped by the kernel\n",
			(long long)s.trace_id, st.packets, st.tpm_packets, st.commands,
			st.malformed, st.no_response, st.clients, (unsigned long long)ws.dropped,
			st.kernel_dropped);
	ret = a->command ? cli_exit_status(child.status) : record_pcap_failed(l) ? 1 : 0;
	if (closed && !ret)
		ret = 1;
out:
	if (child.pid > 0) {
		kill(child.pid, SIGTERM);
		waitpid(child.pid, NULL, 0);
	}
	record_session_close(&s);
	record_pcap_close(l);
	return ret;
}
