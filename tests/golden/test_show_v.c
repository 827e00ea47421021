/* `tpmtrace show -V`'s decoder (model/tpm/params.c) against expected text:
 * each tests/golden/show_v/NAME.hex holds fixed command and response bytes
 * (recorded once from swtpm and frozen, or constructed by hand; the comment
 * line says which) and whether the trace was redacted; NAME.txt is the
 * explanation, rendered as show -V renders it (four spaces a level). Every
 * command code issue 16 lists must have a file, decode by name (not as hex)
 * in both directions and show no "?"; redacted files must show <redacted>.
 * TPMTRACE_GOLDEN_UPDATE=1 writes the .txt files instead (then read them:
 * they are the expectation). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tpm/params.h"
#include "testlib.h"

static const uint32_t listed[] = {
    TPM_CC_PCR_Extend,	   TPM_CC_PCR_Read,	    TPM_CC_StartAuthSession,
    TPM_CC_ContextLoad,	   TPM_CC_ContextSave,	    TPM_CC_FlushContext,
    TPM_CC_CreatePrimary,  TPM_CC_Create,	    TPM_CC_Load,
    TPM_CC_Unseal,	   TPM_CC_GetRandom,	    TPM_CC_GetCapability,
    TPM_CC_NV_DefineSpace, TPM_CC_NV_Read,	    TPM_CC_NV_Write,
    TPM_CC_NV_ReadPublic,  TPM_CC_NV_UndefineSpace, TPM_CC_PolicyPCR,
    TPM_CC_Quote,	   TPM_CC_ReadPublic,
};
#define N_LISTED (sizeof listed / sizeof listed[0])

static void render(void *ctx, const struct tpm_field *f)
{
	FILE *out = ctx;
	char line[8192];
	tpm_field_format(f, line, sizeof line);
	fprintf(out, "%*s%s\n", 4 * (int)(f->depth + 1), "", line);
}

struct msg {
	int redacted;
	uint8_t cmd[4096], rsp[4096];
	size_t cmd_len, rsp_len;
};

static int load(const char *path, struct msg *m)
{
	size_t len;
	char *text = (char *)tl_read_file(path, &len);
	if (!text)
		return -1;
	memset(m, 0, sizeof *m);
	for (char *sp, *l = strtok_r(text, "\n", &sp); l; l = strtok_r(NULL, "\n", &sp)) {
		if (!strncmp(l, "redacted ", 9))
			m->redacted = atoi(l + 9);
		else if (!strncmp(l, "cmd ", 4))
			m->cmd_len = tl_hex(l + 4, m->cmd, sizeof m->cmd);
		else if (!strncmp(l, "rsp ", 4))
			m->rsp_len = tl_hex(l + 4, m->rsp, sizeof m->rsp);
	}
	free(text);
	return m->cmd_len >= 10 && m->rsp_len >= 10 ? 0 : -1;
}

static void discard(void *ctx, const struct tpm_field *f)
{
	char line[64];
	(void)ctx;
	tpm_field_format(f, line, sizeof line); /* cut: formatting must stay in bounds */
}

/* Every truncation of a message, in a buffer of exactly that length (the
 * sanitizer build sees any read past it), and every single-byte change of the
 * parameters: explained without reading out of bounds; a truncated message is
 * reported as not parsing (-1). */
static void damaged(const char *file, const struct msg *m)
{
	for (size_t len = 0; len < m->cmd_len; len++) {
		uint8_t *b = malloc(len ? len : 1);
		memcpy(b, m->cmd, len);
		int rc = tpm_explain_cmd(b, len, m->redacted, discard, NULL);
		CHECK(rc == -1, "%s: command cut to %zu bytes reported (%d)", file, len, rc);
		free(b);
	}
	for (size_t len = 0; len < m->rsp_len; len++) {
		uint8_t *b = malloc(len ? len : 1);
		memcpy(b, m->rsp, len);
		int rc = tpm_explain_rsp(b, len, m->cmd, m->cmd_len, m->redacted, discard, NULL);
		CHECK(rc == -1, "%s: response cut to %zu bytes reported (%d)", file, len, rc);
		free(b);
	}
	uint8_t *b = malloc(m->rsp_len > m->cmd_len ? m->rsp_len : m->cmd_len);
	for (size_t i = 10; i < m->cmd_len; i++) {
		memcpy(b, m->cmd, m->cmd_len);
		b[i] ^= 0xFF;
		tpm_explain_cmd(b, m->cmd_len, m->redacted, discard, NULL);
	}
	for (size_t i = 10; i < m->rsp_len; i++) {
		memcpy(b, m->rsp, m->rsp_len);
		b[i] ^= 0xFF;
		tpm_explain_rsp(b, m->rsp_len, m->cmd, m->cmd_len, m->redacted, discard, NULL);
	}
	free(b);
}

int main(void)
{
	const char *src = getenv("TPMTRACE_SRC");
	char dir[4096], path[4200];
	int update = getenv("TPMTRACE_GOLDEN_UPDATE") != NULL;
	unsigned seen[N_LISTED] = {0}, files = 0;
	if (!src || !*src)
		tl_skip("TPMTRACE_SRC is not set (run through ctest)");
	snprintf(dir, sizeof dir, "%s/tests/golden/show_v", src);
	DIR *dh = opendir(dir);
	CHECK(dh != NULL, "%s: the golden files are part of the source tree", dir);
	if (!dh)
		return tl_finish("test_show_v");
	for (struct dirent *e; (e = readdir(dh));) {
		size_t nl = strlen(e->d_name);
		if (nl < 5 || strcmp(e->d_name + nl - 4, ".hex"))
			continue;
		struct msg m;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		CHECK(load(path, &m) == 0, "%s: no cmd and rsp lines", e->d_name);
		char *text = NULL;
		size_t tlen = 0;
		FILE *out = open_memstream(&text, &tlen);
		fprintf(out, "Command\n");
		int rc_cmd = tpm_explain_cmd(m.cmd, m.cmd_len, m.redacted, render, out);
		fprintf(out, "Response\n");
		int rc_rsp =
		    tpm_explain_rsp(m.rsp, m.rsp_len, m.cmd, m.cmd_len, m.redacted, render, out);
		fclose(out);
		files++;
		damaged(e->d_name, &m);
		uint32_t cc = wire_get_u32(m.cmd + 6);
		for (unsigned i = 0; i < N_LISTED; i++)
			if (listed[i] == cc) {
				seen[i]++;
				CHECK(rc_cmd == 0 && rc_rsp == 0, "%s: decoded by name (%d, %d)",
				      e->d_name, rc_cmd, rc_rsp);
				CHECK(!strchr(text, '?'), "%s: no '?' in\n%s", e->d_name, text);
			}
		if (m.redacted)
			CHECK(strstr(text, "<redacted>") != NULL, "%s: shows <redacted>",
			      e->d_name);
		snprintf(path + strlen(path) - 4, 5, ".txt");
		if (update) {
			FILE *w = fopen(path, "w");
			CHECK(w && fwrite(text, 1, tlen, w) == tlen && !fclose(w), "write %s",
			      path);
		} else {
			size_t want_len;
			char *want = (char *)tl_read_file(path, &want_len);
			CHECK(want && want_len == tlen && !memcmp(want, text, tlen),
			      "%s: explanation differs from %s; got:\n%s", e->d_name, path, text);
			free(want);
		}
		free(text);
	}
	closedir(dh);
	CHECK(files >= N_LISTED, "%u golden files", files);
	for (unsigned i = 0; i < N_LISTED; i++)
		CHECK(seen[i] > 0, "a golden file for %s", tpm_cc_name(listed[i]));
	return tl_finish("test_show_v");
}
