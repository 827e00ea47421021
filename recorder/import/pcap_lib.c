/* libpcap loaded at first use (recorder/import/pcap_lib.h). */
#include "recorder/import/pcap_lib.h"

#include "model/tpm/dl.h"

struct pcap_lib pcap_lib;

int pcap_lib_load(char *err, size_t errlen)
{
	static const struct tpm_dl_lib lib = {PCAP_LIB_SONAME, "reading a capture needs libpcap",
					      "libpcap0.8", "libpcap 1.5 or later"};
	static const char *const names[] = {PCAP_LIB_FUNCS(TPM_DL_NAME)};
	static int loaded;
	_Static_assert(sizeof pcap_lib == sizeof names / sizeof *names * sizeof(void (*)(void)),
		       "one function pointer per name, in order");
	return tpm_dl_need(&lib, names, sizeof names / sizeof *names, &pcap_lib, &loaded, err,
			   errlen);
}
