/* libpcap loaded at first use (recorder/import/pcap_lib.h). */
#include "recorder/import/pcap_lib.h"

#include <errno.h>
#include <stdio.h>

#include "db/dl.h"

struct pcap_lib pcap_lib;

int pcap_lib_load(char *err, size_t errlen)
{
	static int loaded;
	static const char *const names[] = {
#define PCAP_LIB_NAME(f) #f,
	    PCAP_LIB_FUNCS(PCAP_LIB_NAME)
#undef PCAP_LIB_NAME
	};
	if (loaded)
		return 0;
	struct pcap_lib l;
	void *const slot[] = {
#define PCAP_LIB_SLOT(f) &l.f_##f,
	    PCAP_LIB_FUNCS(PCAP_LIB_SLOT)
#undef PCAP_LIB_SLOT
	};
	char why[256];
	int rc =
	    db_dl_load(PCAP_LIB_SONAME, names, slot, sizeof names / sizeof *names, why, sizeof why);
	if (rc == -ENOENT)
		snprintf(err, errlen,
			 "reading a capture needs libpcap (%s), which is not installed (Debian: "
			 "apt-get install libpcap0.8): %s",
			 PCAP_LIB_SONAME, why);
	else if (rc)
		snprintf(err, errlen, "%s has no %s: tpmtrace needs libpcap 1.5 or later",
			 PCAP_LIB_SONAME, why);
	if (rc)
		return -ENOENT;
	pcap_lib = l;
	loaded = 1;
	return 0;
}
