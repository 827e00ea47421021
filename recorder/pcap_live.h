/* record --pcap-live IFACE: TPM traffic on TCP captured live with libpcap and
 * decoded packet by packet exactly as `import pcap` decodes a file, into the
 * trace of a record session (commands through the recording core: redacted
 * as a proxy's are). */
#ifndef TPMTRACE_RECORDER_PCAP_LIVE_H
#define TPMTRACE_RECORDER_PCAP_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct record_pcap_live;
struct writer;
struct record_session;
struct record_child;

/* What a capture saw (record_pcap_finish). */
struct record_pcap_stats {
	uint64_t packets, tpm_packets, commands, malformed, no_response, clients;
	int have_kernel;	 /* the kernel's counts are known */
	unsigned kernel_dropped; /* packets the kernel dropped */
};

/* Opens the capture on iface, before anything else (a command started before
 * it is active would lose its first packets): TCP to and from port (0: the
 * simulator's 2321) and, with mssim, port + 1 (its platform port). 0, or -1
 * with err set; *out is released with record_pcap_close either way. */
int record_pcap_open(struct record_pcap_live **out, const char *iface, unsigned port, int mssim,
		     char *err, size_t errlen);
/* The TPM port captured. */
unsigned record_pcap_port(const struct record_pcap_live *l);
/* Decodes into writer w (payloads: enum payload_mode) from now on, after the
 * record-start event naming source. 0, or -1 with err set. */
int record_pcap_start(struct record_pcap_live *l, struct writer *w, int payloads,
		      const char *source, char *err, size_t errlen);
/* Packets until the session's stop signals say to stop
 * (record_session_stop_due: the child c ended, or a stop signal). */
void record_pcap_loop(struct record_pcap_live *l, struct record_session *s, struct record_child *c);
/* What is left in the kernel's buffer, the connections still open, the
 * kernel's drops (a capture_gap event), the record-stop event; the counts in
 * st. The writer is the caller's to stop. */
void record_pcap_finish(struct record_pcap_live *l, int stop_signal, struct record_pcap_stats *st);
/* 1 when a packet could not be stored (the decoder or the writer failed). */
int record_pcap_failed(const struct record_pcap_live *l);
void record_pcap_close(struct record_pcap_live *l);

#endif
