/* libcrypto loaded at first use (model/tpm/crypto_lib.h). */
#include "model/tpm/crypto_lib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "model/tpm/dl.h"

struct tpm_crypto tpm_crypto;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_int loaded;
static int load_rc;
static char load_err[256];

static void load_once(void)
{
	static const struct tpm_dl_lib lib = {
	    TPM_CRYPTO_SONAME, "sessions, PCR values and digests need OpenSSL's libcrypto",
	    "libssl3", "OpenSSL 3.0 or later"};
	static const char *const names[] = {TPM_CRYPTO_FUNCS(TPM_DL_NAME)};
	int done = 0;
	_Static_assert(sizeof tpm_crypto == sizeof names / sizeof *names * sizeof(void (*)(void)),
		       "one function pointer per name, in order");
	load_rc = tpm_dl_need(&lib, names, sizeof names / sizeof *names, &tpm_crypto, &done,
			      load_err, sizeof load_err);
	atomic_store(&loaded, done);
	if (load_rc) /* once: whatever needed it says what failed */
		fprintf(stderr, "tpmtrace: %s\n", load_err);
}

int tpm_crypto_load(char *err, size_t errlen)
{
	pthread_once(&once, load_once);
	if (load_rc && err && errlen)
		snprintf(err, errlen, "%s", load_err);
	return load_rc;
}

int tpm_crypto_loaded(void)
{
	return atomic_load(&loaded);
}
