/* `tpmtrace record --pcap-live IFACE`: live capture of TPM traffic on TCP
 * (tools/tpmtrace/record_pcap.c); cmd_record.c hands its whole argv over. */
#ifndef TPMTRACE_RECORD_PCAP_H
#define TPMTRACE_RECORD_PCAP_H

int record_pcap_live(int argc, char **argv);

#endif
