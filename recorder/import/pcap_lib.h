/* libpcap, loaded when a capture is first read (import pcap, record
 * --pcap-live) rather than by every tpmtrace process: with the libraries it
 * brings (dbus, libsystemd, libgcrypt, lz4, zstd, ...) it was about 1 MB of
 * a recorder's resident memory. The two files that call libpcap include
 * this instead of <pcap/pcap.h>; each pcap_* name they use is a macro for
 * the function looked up in libpcap.so.0.8 (model/tpm/dl.h). pcap_lib_load must
 * succeed first: pcap_import_file and pcap_import_mem, and record_pcap_open,
 * call it. */
#ifndef TPMTRACE_PCAP_LIB_H
#define TPMTRACE_PCAP_LIB_H

#include <stddef.h>

#include <pcap/pcap.h>

#define PCAP_LIB_SONAME "libpcap.so.0.8"

/* Every libpcap function called (a new one is added here and below). */
/* clang-format off */
#define PCAP_LIB_FUNCS(X) \
	X(pcap_activate) \
	X(pcap_close) \
	X(pcap_compile) \
	X(pcap_create) \
	X(pcap_datalink) \
	X(pcap_dispatch) \
	X(pcap_file) \
	X(pcap_fopen_offline_with_tstamp_precision) \
	X(pcap_freecode) \
	X(pcap_get_selectable_fd) \
	X(pcap_get_tstamp_precision) \
	X(pcap_geterr) \
	X(pcap_next_ex) \
	X(pcap_set_buffer_size) \
	X(pcap_set_immediate_mode) \
	X(pcap_set_promisc) \
	X(pcap_set_snaplen) \
	X(pcap_set_tstamp_precision) \
	X(pcap_setfilter) \
	X(pcap_setnonblock) \
	X(pcap_stats)
/* clang-format on */

struct pcap_lib {
#define PCAP_LIB_MEMBER(f) __typeof__(f) *f_##f;
	PCAP_LIB_FUNCS(PCAP_LIB_MEMBER)
#undef PCAP_LIB_MEMBER
};
extern struct pcap_lib pcap_lib;

/* Loads libpcap (once): 0, or -ENOENT with err saying what is missing and
 * which package has it. */
int pcap_lib_load(char *err, size_t errlen);

#define pcap_activate				 pcap_lib.f_pcap_activate
#define pcap_close				 pcap_lib.f_pcap_close
#define pcap_compile				 pcap_lib.f_pcap_compile
#define pcap_create				 pcap_lib.f_pcap_create
#define pcap_datalink				 pcap_lib.f_pcap_datalink
#define pcap_dispatch				 pcap_lib.f_pcap_dispatch
#define pcap_file				 pcap_lib.f_pcap_file
#define pcap_fopen_offline_with_tstamp_precision pcap_lib.f_pcap_fopen_offline_with_tstamp_precision
#define pcap_freecode				 pcap_lib.f_pcap_freecode
#define pcap_get_selectable_fd			 pcap_lib.f_pcap_get_selectable_fd
#define pcap_get_tstamp_precision		 pcap_lib.f_pcap_get_tstamp_precision
#define pcap_geterr				 pcap_lib.f_pcap_geterr
#define pcap_next_ex				 pcap_lib.f_pcap_next_ex
#define pcap_set_buffer_size			 pcap_lib.f_pcap_set_buffer_size
#define pcap_set_immediate_mode			 pcap_lib.f_pcap_set_immediate_mode
#define pcap_set_promisc			 pcap_lib.f_pcap_set_promisc
#define pcap_set_snaplen			 pcap_lib.f_pcap_set_snaplen
#define pcap_set_tstamp_precision		 pcap_lib.f_pcap_set_tstamp_precision
#define pcap_setfilter				 pcap_lib.f_pcap_setfilter
#define pcap_setnonblock			 pcap_lib.f_pcap_setnonblock
#define pcap_stats				 pcap_lib.f_pcap_stats

#endif
