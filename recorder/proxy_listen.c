/* The proxy's listeners as record's options name them (recorder/proxy.h:
 * proxy_listen_all). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/text.h"
#include "recorder/proxy.h"

/* One listener's TCTI, a line of all. */
static void add_tcti(char *all, size_t alen, const char *one)
{
	size_t used = strlen(all);
	snprintf(all + used, alen - used, "%s\n", one);
}

int proxy_listen_all(struct proxy *px, const struct proxy_listen_cfg *a, char *sockdir,
		     size_t sdlen, char *all, size_t alen, char *err, size_t errlen)
{
	const char *listens[PROXY_MAX_LISTEN + 1];
	char default_listen[128], e[512];
	int n_listen = a->n_listen;

	if (n_listen > PROXY_MAX_LISTEN)
		return db_errf(err, errlen, -1, "too many --listen");
	memcpy(listens, a->listens, sizeof *listens * (size_t)n_listen);
	if (!n_listen && !a->n_mssim) {
		if (a->private_socket) {
			snprintf(sockdir, sdlen, "%s/tpmtrace-XXXXXX",
				 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
			if (strlen(sockdir) > 40 || !mkdtemp(sockdir)) {
				snprintf(sockdir, sdlen, "/tmp/tpmtrace-XXXXXX");
				if (!mkdtemp(sockdir)) {
					sockdir[0] = 0;
					return db_errf(err, errlen, -1,
						       "cannot create a socket directory: %s",
						       strerror(errno));
				}
			}
			snprintf(default_listen, sizeof default_listen, "unix:%s/tpm.sock",
				 sockdir);
		} else {
			snprintf(default_listen, sizeof default_listen, "tcp:127.0.0.1:2321");
		}
		listens[n_listen++] = default_listen;
	}
	for (int i = 0; i < n_listen; i++) {
		struct endpoint ep;
		if (net_endpoint_parse(listens[i], &ep, e, sizeof e))
			return db_errf(err, errlen, -1, "--listen %s", e);
		if (proxy_listen_pair(px, &ep, LISTEN_DATA, LISTEN_CTRL, e, sizeof e))
			return db_errf(err, errlen, -1, "--listen: %s", e);
		char one[PROXY_TCTI_LEN];
		if (ep.is_unix)
			snprintf(one, sizeof one, "swtpm:path=%s", ep.path);
		else
			snprintf(one, sizeof one, "swtpm:host=%s,port=%u", ep.host, ep.port);
		add_tcti(all, alen, one);
	}
	for (int i = 0; i < a->n_mssim; i++) {
		struct endpoint ep;
		if (net_endpoint_parse(a->mssims[i], &ep, e, sizeof e) || ep.is_unix)
			return db_errf(err, errlen, -1,
				       "--listen-mssim '%s': expected tcp:HOST:PORT", a->mssims[i]);
		if (proxy_listen_pair(px, &ep, LISTEN_DATA, LISTEN_MSSIM_PLAT, e, sizeof e))
			return db_errf(err, errlen, -1, "--listen-mssim: %s", e);
		char one[PROXY_TCTI_LEN];
		snprintf(one, sizeof one, "mssim:host=%s,port=%u", ep.host, ep.port);
		add_tcti(all, alen, one);
	}
	return 0;
}
