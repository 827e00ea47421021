/* libpcap loaded at first use (recorder/import/pcap_lib.h). */
#include "recorder/import/pcap_lib.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

struct pcap_lib pcap_lib;

int pcap_lib_load(char *err, size_t errlen)
{
	static int loaded;
	if (loaded)
		return 0;
	void *h = dlopen(PCAP_LIB_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen,
			 "reading a capture needs libpcap (%s), which is not installed (Debian: "
			 "apt-get install libpcap0.8): %s",
			 PCAP_LIB_SONAME, dlerror());
		return -ENOENT;
	}
	struct pcap_lib l;
	const char *missing = NULL;
#define PCAP_LIB_LOOKUP(f)                                                                         \
	if (!(l.f_##f = (__typeof__(l.f_##f))dlsym(h, #f)) && !missing)                            \
		missing = #f;
	PCAP_LIB_FUNCS(PCAP_LIB_LOOKUP)
#undef PCAP_LIB_LOOKUP
	if (missing) {
		snprintf(err, errlen, "%s has no %s: tpmtrace needs libpcap 1.5 or later",
			 PCAP_LIB_SONAME, missing);
		dlclose(h);
		return -ENOENT;
	}
	pcap_lib = l;
	loaded = 1;
	return 0;
}
