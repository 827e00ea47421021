/* Libraries loaded at first use (model/tpm/dl.h). */
#include "model/tpm/dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int tpm_dl_need(const struct tpm_dl_lib *lib, const char *const *names, size_t n, void *table,
		int *loaded, char *err, size_t errlen)
{
	if (*loaded)
		return 0;
	void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen,
			 "%s (%s), which is not installed (Debian: apt-get install %s): %s",
			 lib->needs, lib->soname, lib->package, dlerror());
		return -ENOENT;
	}
	for (size_t i = 0; i < n; i++) {
		void *sym = dlsym(h, names[i]);
		if (!sym) {
			snprintf(err, errlen, "%s has no %s: tpmtrace needs %s", lib->soname,
				 names[i], lib->version);
			dlclose(h);
			return -ENOENT;
		}
		/* A function pointer from dlsym's object pointer (POSIX). */
		memcpy((char *)table + i * sizeof(void (*)(void)), &sym, sizeof sym);
	}
	*loaded = 1;
	return 0;
}
