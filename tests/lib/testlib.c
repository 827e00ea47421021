/* The C tests' helpers (tests/lib/testlib.h): the counters behind CHECK and
 * tl_finish, which prints the checks and the passed/failed line and gives the
 * exit status; tl_skip (exit 77, refused once a check has run); tl_shared_data,
 * the shared test data directory (TPMTRACE_SHARED_DATA) or a skip;
 * tl_read_file, tl_hex (hex with ".." wildcards into a mask) and tl_tmpdir. */
#include "testlib.h"

#include <ctype.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int tl_failures;
int tl_checks;

int tl_finish(const char *name)
{
	printf("%s: %d checks\n", name, tl_checks);
	printf("%d passed, %d failed\n", tl_checks - tl_failures, tl_failures);
	return tl_failures ? 1 : 0;
}

void tl_skip(const char *why)
{
	/* A skip after checks ran would throw their verdicts away
	 * (tests/README.md, "Skips"): it fails instead. */
	if (tl_checks) {
		fprintf(stderr, "skipped after %d checks (%d failed): %s\n", tl_checks, tl_failures,
			why);
		exit(1);
	}
	printf("SKIPPED: %s\n", why);
	exit(77);
}

const char *tl_shared_data(void)
{
	const char *d = getenv("TPMTRACE_SHARED_DATA");
	struct stat st;
	if (!d || !*d)
		tl_skip("TPMTRACE_SHARED_DATA is not set (run through ctest)");
	if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) {
		printf("SKIPPED: the shared test data is not at %s (it belongs beside the "
		       "checkout, in ../shared/data)\n",
		       d);
		exit(77);
	}
	return d;
}

uint8_t *tl_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

size_t tl_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	while (*hex && n < cap) {
		if (isspace((unsigned char)*hex)) {
			hex++;
			continue;
		}
		if (!hex[1])
			break;
		char b[3] = {hex[0], hex[1], 0};
		out[n++] = (uint8_t)strtoul(b, NULL, 16);
		hex += 2;
	}
	return n;
}

const char *tl_tmpdir(void)
{
	static char path[] = "/tmp/tpmtrace-test-XXXXXX";
	static int made;
	if (!made) {
		if (!mkdtemp(path)) {
			/* not a documented reason to skip: the test cannot run */
			perror("tpmtrace tests: cannot create a temporary directory");
			exit(1);
		}
		made = 1;
	}
	return path;
}

int tl_iconv_utf8_valid(const char *s, size_t n)
{
	iconv_t cd = iconv_open("UTF-32LE", "UTF-8");
	if (cd == (iconv_t)-1)
		return -1;
	char out[4 * 4096 + 16];
	char *in = (char *)s, *o = out;
	size_t il = n, ol = sizeof out;
	size_t r = n <= 4096 ? iconv(cd, &in, &il, &o, &ol) : (size_t)-1;
	iconv_close(cd);
	return r != (size_t)-1 && il == 0;
}
