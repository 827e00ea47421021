/* Private to the pcap importer: the state shared by its packet reader
 * (pcap_import.c) and its TCP / MS-simulator stream reassembly
 * (pcap_stream.c). Not for use outside recorder/import/. */
#ifndef TPMTRACE_PCAP_INT_H
#define TPMTRACE_PCAP_INT_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/import/pcap_import.h"
#include "recorder/transport/frame.h"

/* Framing limits. A TPM message is at most a few KiB (the kernel allows 4096,
 * the simulator 4096 + headers); a size field beyond this is garbage, not a
 * message to wait for. */
#define MAX_FRAME  65536u
#define MAX_OOO	   32 /* out-of-order segments held per direction */
#define HASH_SIZE  4096
#define CLIENT_MAX 64
#define DIR_BUF	   4096 /* a direction's buffer to start with */

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04

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
	uint8_t *cmd; /* data, or NULL */
	size_t cmd_len;
	size_t cap; /* bytes of data */
	uint32_t rsp_bytes;
	int locality;
	uint64_t t;
	uint64_t pkt;
	uint8_t data[];
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
	enum frame_mode mode;
	char peer[CLIENT_MAX];
	struct dir d[2];
	struct pending *head, *tail;
	struct pending *spare; /* the last one answered, for the next command */
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
	/* A direction's buffer of DIR_BUF bytes given up when it held nothing more, for the next
	 * direction that needs one: one allocation and one free less for every segment. */
	uint8_t *spare_buf;
	uint32_t last_id;
	struct pcap_import_stats st;
	uint64_t pkt;  /* current packet number */
	uint64_t t;    /* current packet time */
	int rc;	       /* first callback failure */
	char why[200]; /* what went wrong, for a failure that is not a callback's */
};

/* pcap_stream.c: connections and their byte streams. */
struct conn *pcap_conn_get(struct pcap_import *pi, const struct conn_key *k, int platform);
/* c had a packet now: the most recently seen. */
void pcap_lru_touch(struct pcap_import *pi, struct conn *c);
/* One TCP segment of a direction (RFC 9293 sequence space). */
void pcap_dir_segment(struct pcap_import *pi, struct conn *c, int di, uint32_t seq, uint8_t flags,
		      const uint8_t *data, size_t len, size_t missing);
/* The connection is over: what it holds is framed and emitted, then freed. */
void pcap_conn_finish(struct pcap_import *pi, struct conn *c);
/* Takes c out of the importer (hash, lists) and frees it. */
void pcap_conn_free(struct pcap_import *pi, struct conn *c);

#endif
