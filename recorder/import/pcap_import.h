/* Importer for TPM 2.0 traffic captured as pcap or pcapng.
 *
 * Reads every section of a capture (libpcap reads the packets; sections are
 * split here because libpcap 1.10 stops at a section whose interface has a
 * different link type), takes TCP payloads to and from the TPM port, puts
 * each direction of each connection back together, frames TPM messages (raw
 * TPM 2.0, Part 1 section 18, or the MS simulator's framing) and matches
 * responses to commands per connection. Results go to callbacks; nothing is
 * printed. */
#ifndef TPMTRACE_PCAP_IMPORT_H
#define TPMTRACE_PCAP_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "model/tpm/decode.h"

#define PCAP_IMPORT_DEFAULT_PORT 2321
/* What the importer keeps of a capture at once (pcap_import_cfg): a TCP
 * connection ends with FIN from both sides or RST, or once it has had no
 * packet for the idle gap (capture time; longer than the slowest TPM command
 * measured, 177 s); at most so many connections and bytes of theirs
 * (buffered messages, commands waiting for a response) are held: a capture
 * that needs more is refused with a message naming the packet. */
#define PCAP_IMPORT_IDLE_GAP_S 300
#define PCAP_IMPORT_MAX_OPEN   65536
#define PCAP_IMPORT_MAX_BYTES  ((size_t)64 << 20)

/* One command with its response (if any) as seen on the wire. */
struct pcap_tpm_cmd {
	uint64_t t_submit_ns; /* capture time of the packet completing the command */
	uint64_t t_done_ns;   /* capture time of the packet completing the response */
	const uint8_t *cmd;   /* raw command, framing stripped */
	size_t cmd_len;
	const uint8_t *rsp; /* raw response, NULL when none was captured */
	size_t rsp_len;
	int locality;	     /* from the simulator framing; -1 when unknown */
	uint32_t client_id;  /* the connection, numbered from 1 in order of appearance */
	const char *client;  /* the client's "addr:port" ("[v6]:port" for IPv6) */
	uint32_t flags;	     /* REC_F_* of db/writer.h: MALFORMED, NO_RESPONSE, SYNTHETIC_TIME */
	uint32_t ts_res_ns;  /* granularity of the capture's timestamps */
	uint64_t cmd_packet; /* packet numbers (1-based, across sections) */
	uint64_t rsp_packet;
	struct tpm_cmd dc; /* decoded command (model/tpm/decode.h) */
	struct tpm_rsp dr; /* decoded response; zeroed when there is none */
	int malformed;	   /* the command's reason, else the response's (enum tpm_malformed) */
};

/* A platform or control event: simulator platform-port codes, simulator
 * codes on the command port, framing errors and capture gaps. */
struct pcap_tpm_event {
	uint64_t t_ns;
	const char *kind; /* e.g. "POWER_ON", "NV_ON", "SESSION_END", "capture_gap" */
	const char *detail;
	uint32_t client_id;
	uint64_t packet;
};

/* Callbacks; any may be NULL. A non-zero return stops the import and is
 * returned by pcap_import_*(). */
struct pcap_import_ops {
	int (*client)(void *ctx, uint32_t client_id, const char *peer, uint64_t first_ns);
	int (*command)(void *ctx, const struct pcap_tpm_cmd *c);
	int (*event)(void *ctx, const struct pcap_tpm_event *e);
};

struct pcap_import_cfg {
	uint16_t tpm_port; /* 0 means PCAP_IMPORT_DEFAULT_PORT; the platform port is +1 */
	/* Passed to every command; pcap_import_mem() sets SYNTHETIC_TIME and the
	 * resolution itself from a first pass over the timestamps. */
	uint32_t flags;
	uint32_t ts_res_ns;
	/* Optional: called every few thousand packets of the second pass and at
	 * its end with the packets done and the file's total (for a progress bar). */
	void (*progress)(void *arg, uint64_t done, uint64_t total);
	void *progress_arg;
	/* 0: the defaults above. */
	uint64_t idle_gap_ns;
	uint32_t max_open;
	size_t max_bytes;
	/* pcap_import_file: read a FIFO or character device to its end (up to
	 * PCAP_IMPORT_MAX_FOLLOW bytes) instead of refusing it. */
	int follow;
};

struct pcap_import_stats {
	uint64_t packets;     /* packets read */
	uint64_t tpm_packets; /* TCP segments to or from the TPM or platform port */
	uint64_t skipped;     /* not IP/TCP, other ports, fragments, unsupported link type */
	uint64_t sections;
	uint64_t commands; /* commands emitted */
	uint64_t malformed;
	uint64_t no_response;
	uint64_t events;
	uint64_t unmatched; /* responses without a command */
	uint64_t gaps;	    /* bytes lost in the capture (TCP sequence holes, snaplen) */
	uint64_t clients;
	uint64_t first_ns, last_ns; /* first and last packet time */
	uint32_t ts_res_ns;
	int synthetic_time;
	int last_linktype;	       /* DLT_* of the last section */
	uint32_t unsupported_linktype; /* a DLT that was skipped, 0 if none */
};

/* Packet-level interface (also used by the fuzz target and unit tests). */
struct pcap_import;
int pcap_import_new(struct pcap_import **out, const struct pcap_import_cfg *cfg,
		    const struct pcap_import_ops *ops, void *ctx);
/* Feeds one captured packet of link type dlt (DLT_* value as libpcap returns
 * it). caplen bytes are present of wirelen on the wire. Returns 0 or the
 * first non-zero callback return. */
int pcap_import_packet(struct pcap_import *pi, int dlt, uint64_t t_ns, const uint8_t *pkt,
		       size_t caplen, size_t wirelen);
/* Emits what is still pending (commands without response, partial messages). */
int pcap_import_finish(struct pcap_import *pi);
/* A new capture section starts: finishes all connections; packets with the
 * same addresses and ports then belong to new connections (new client ids). */
int pcap_import_new_section(struct pcap_import *pi);
void pcap_import_get_stats(const struct pcap_import *pi, struct pcap_import_stats *st);
/* Why pcap_import_packet failed when no callback did (bounds), or "". */
const char *pcap_import_error(const struct pcap_import *pi);
void pcap_import_free(struct pcap_import *pi);

/* Imports a whole capture held in memory; name is used in messages. Checks
 * the whole file first: a truncated or corrupt capture fails with a message
 * naming the file, the packet number and the byte offset, and no callback is
 * called. Returns 0, -EINVAL (not a capture, corrupt), -ENOMEM, or a callback's
 * return. st may be NULL. */
int pcap_import_mem(const uint8_t *buf, size_t len, const char *name,
		    const struct pcap_import_cfg *cfg, const struct pcap_import_ops *ops, void *ctx,
		    struct pcap_import_stats *st, char *err, size_t errlen);
/* The same for a file (mapped read-only). -errno when it cannot be read. */
int pcap_import_file(const char *path, const struct pcap_import_cfg *cfg,
		     const struct pcap_import_ops *ops, void *ctx, struct pcap_import_stats *st,
		     char *err, size_t errlen);

/* Name of a link type for messages ("raw IPv4", "Ethernet", ...). */
const char *pcap_import_linktype_str(int dlt);

#endif
