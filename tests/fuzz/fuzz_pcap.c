/* libFuzzer target: a whole pcap/pcapng file through the importer (libpcap
 * parsing, section splitting, link layers, IP, TCP reassembly, TPM framing,
 * the decoder). Every callback touches the bytes it is given so that the
 * sanitizers see reads past the end. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "recorder/import/pcap_import.h"

static volatile uint32_t sink;

static int on_client(void *ctx, uint32_t id, const char *peer, uint64_t first_ns)
{
	for (const char *p = peer; *p; p++)
		sink += (uint8_t)*p;
	return 0;
}

static int on_command(void *ctx, const struct pcap_tpm_cmd *c)
{
	for (size_t i = 0; i < c->cmd_len; i++)
		sink += c->cmd[i];
	for (size_t i = 0; c->rsp && i < c->rsp_len; i++)
		sink += c->rsp[i];
	return 0;
}

static int on_event(void *ctx, const struct pcap_tpm_event *e)
{
	for (const char *p = e->detail; p && *p; p++)
		sink += (uint8_t)*p;
	return 0;
}

/* Input starting with 'P': packets fed directly, past libpcap, so the TCP and
 * framing code sees arbitrary headers: 'P', then per packet a link-type
 * selector byte, a u16 length (big-endian) and the packet. Anything else is
 * a capture file (the seeds are real ones). */
static void packets(const uint8_t *d, size_t n)
{
	static const int dlts[] = {DLT_IPV4, DLT_IPV6, DLT_RAW,	      DLT_EN10MB,
				   DLT_NULL, DLT_LOOP, DLT_LINUX_SLL, DLT_LINUX_SLL2};
	static const struct pcap_import_ops ops = {on_client, on_command, on_event};
	struct pcap_import_cfg cfg = {0};
	struct pcap_import *pi;
	uint64_t t = 0;

	if (pcap_import_new(&pi, &cfg, &ops, NULL))
		return;
	while (n >= 3) {
		int dlt = dlts[d[0] % (sizeof(dlts) / sizeof(dlts[0]))];
		size_t len = (size_t)(d[1] << 8 | d[2]), cut = d[0] >> 6;
		d += 3;
		n -= 3;
		if (len > n)
			len = n;
		/* The packet in its own allocation, so a read past it is caught. */
		uint8_t *p = malloc(len ? len : 1);
		if (!p)
			break;
		memcpy(p, d, len);
		pcap_import_packet(pi, dlt, t += 1000, p, len, len + cut);
		free(p);
		d += len;
		n -= len;
	}
	pcap_import_finish(pi);
	pcap_import_free(pi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pcap_import_ops ops = {on_client, on_command, on_event};
	char err[256];
	if (size && data[0] == 'P')
		packets(data + 1, size - 1);
	else
		pcap_import_mem(data, size, "fuzz", NULL, &ops, NULL, NULL, err, sizeof err);
	return 0;
}
