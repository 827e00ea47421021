/* Small helpers for the C tests: checks that count failures and print where. */
#ifndef TPMTRACE_TESTLIB_H
#define TPMTRACE_TESTLIB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

extern int tl_failures;
extern int tl_checks;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		tl_checks++;                                                                       \
		if (!(cond)) {                                                                     \
			tl_failures++;                                                             \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);   \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

/* Prints "N passed, N failed" and returns the exit status for main(). */
int tl_finish(const char *name);
/* Exits 77 (skipped) after printing why; before any CHECK only (after one it
 * exits 1: a skip must not throw verdicts away). */
void tl_skip(const char *why);
/* The shared test data directory (TPMTRACE_SHARED_DATA), or skips. */
const char *tl_shared_data(void);
/* Reads a whole file; NULL on error. Caller frees. */
uint8_t *tl_read_file(const char *path, size_t *len);
/* Parses hex (whitespace and ".." allowed: ".." bytes are wildcards set in mask). */
size_t tl_hex(const char *hex, uint8_t *out, size_t cap);
/* Whether s[0..n), n <= 4096, is valid UTF-8 by glibc's iconv decoder (an
 * oracle that shares no code with tpmtrace's scans); -1: no iconv. */
int tl_iconv_utf8_valid(const char *s, size_t n);
/* A fresh temporary directory (removed by the caller if wanted). */
const char *tl_tmpdir(void);

#endif
