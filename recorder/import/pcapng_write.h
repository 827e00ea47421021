/* A trace as pcapng, for Wireshark's TPM 2.0 dissector: a section header,
 * one interface and one enhanced packet block per TPM message
 * (draft-ietf-opsawg-pcapng, sections 4.1, 4.2, 4.3), each message in IPv4
 * and TCP (or Ethernet, IPv4 and TCP) between a made-up client address and
 * the TPM at 10.0.0.1, with a comment naming the command, its seq and its
 * latency. */
#ifndef TPMTRACE_PCAPNG_WRITE_H
#define TPMTRACE_PCAPNG_WRITE_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#define LINKTYPE_ETHERNET  1
#define LINKTYPE_IPV4	   228
#define PCAPNG_MAX_SEGMENT (65535 - 40) /* a message above this is left out */

/* Writes trace's commands and responses to out with link type link and the
 * TPM at TCP port port. *count gets the packets written, *left_out the
 * messages left out (over PCAPNG_MAX_SEGMENT bytes, or the response to a
 * command that was). Returns 0, or -errno with err set. */
int import_pcapng_export(sqlite3 *db, int64_t trace, FILE *out, int link, uint16_t port,
			 uint64_t *count, uint64_t *left_out, char *err, size_t errlen);

#endif
