/* Libraries loaded at first use (db/dl.h). */
#include "db/dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int db_dl_load(const char *soname, const char *const *names, void *const *slot, size_t n, char *why,
	       size_t whylen)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, whylen, "%s", dlerror());
		return -ENOENT;
	}
	for (size_t i = 0; i < n; i++) {
		void *sym = dlsym(h, names[i]);
		if (!sym) {
			snprintf(why, whylen, "%s", names[i]);
			dlclose(h);
			return -ENOSYS;
		}
		/* A function pointer from dlsym's object pointer (POSIX). */
		memcpy(slot[i], &sym, sizeof sym);
	}
	return 0;
}
