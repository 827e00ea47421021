/* IMA lists and TCG event logs from real systems (../shared/data, README
 * there for the expected results): parsing, template hash checks against the
 * hashes the kernel logged, violations, truncated records, and PCR replay
 * against values read from a real TPM (ima-evm-utils samples). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "model/tpm/pcr_bank.h"
#include "recorder/import/ima_import.h"
#include "recorder/import/tcglog_import.h"
#include "testlib.h"

static char path_buf[4096];
static const char *data_path(const char *rel)
{
	snprintf(path_buf, sizeof path_buf, "%s/%s", tl_shared_data(), rel);
	return path_buf;
}

struct ima_seen {
	unsigned entries, bad_hash, violations, ff_ok, templates_seen;
	char last_template[IMA_NAME_MAX + 1];
	struct pcr_sim *sim;
};

static int on_ima(void *ctx, const struct ima_entry *e)
{
	struct ima_seen *s = ctx;
	s->entries++;
	if (!e->hash_ok)
		s->bad_hash++;
	snprintf(s->last_template, sizeof s->last_template, "%s", e->template_name);
	if (e->violation) {
		s->violations++;
		/* per-bank rule: every bank gets all 0xff of its width. */
		int ok = e->ext.n == 2;
		for (unsigned i = 0; i < e->ext.n; i++)
			for (unsigned k = 0; k < e->ext.v[i].size; k++)
				ok &= e->ext.v[i].d[k] == 0xff;
		s->ff_ok += ok;
	}
	if (s->sim)
		for (unsigned i = 0; i < e->ext.n; i++)
			pcr_sim_extend(s->sim, e->pcr, e->ext.v[i].alg, e->ext.v[i].d,
				       e->ext.v[i].size);
	return 0;
}

static int on_capture(void *ctx, const struct ima_entry *e)
{
	if (e->violation)
		*(struct pcr_digests *)ctx = e->ext;
	return 0;
}

static char msgs[4096];
static void on_msg(void *ctx, int sev, const char *m)
{
	(void)ctx;
	(void)sev;
	strncat(msgs, m, sizeof msgs - strlen(msgs) - 2);
	strcat(msgs, "\n");
}

static int parse_file_ima(const char *rel, const struct ima_opts *o, struct ima_seen *s,
			  struct ima_result *res, size_t *size)
{
	char err[512] = "";
	size_t len;
	uint8_t *buf = tl_read_file(data_path(rel), &len);
	CHECK(buf != NULL, "cannot read %s", rel);
	if (!buf)
		return -1;
	struct ima_opts oo = *o;
	oo.label = rel;
	msgs[0] = 0;
	int rc = ima_parse_mem(buf, len, &oo, on_ima, on_msg, s, res, err, sizeof err);
	CHECK(rc == 0, "%s: %s", rel, err);
	free(buf);
	*size = len;
	return rc;
}

static void test_tpm2_tss_lists(void)
{
	/* README: legacy ima 12 entries, ima-ng sha1 6, ima-sig sha256 9; the
	 * files end with stray bytes of a truncated record. */
	static const struct {
		const char *file;
		const char *tmpl;
		unsigned entries;
	} files[] = {
	    {"ima/tpm2-tss/sml-ima-sha1.bin", "ima", 12},
	    {"ima/tpm2-tss/sml-ima-ng-sha1.bin", "ima-ng", 6},
	    {"ima/tpm2-tss/sml-ima-sig-sha256.bin", "ima-sig", 9},
	};
	struct ima_opts o = {0};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		struct ima_seen s = {0};
		struct ima_result res;
		size_t size;
		if (parse_file_ima(files[i].file, &o, &s, &res, &size))
			continue;
		CHECK(s.entries == files[i].entries, "%s: %u entries, README says %u",
		      files[i].file, s.entries, files[i].entries);
		CHECK(!strcmp(s.last_template, files[i].tmpl), "%s: template %s", files[i].file,
		      s.last_template);
		/* Template hashes were computed by the kernel: ours must agree. */
		CHECK(s.bad_hash == 0, "%s: %u template hash mismatches", files[i].file,
		      s.bad_hash);
		CHECK(res.tail.truncated && res.tail.bytes >= 1 && res.tail.bytes <= 6 &&
			  res.tail.offset + res.tail.bytes == size,
		      "%s: truncated=%d offset %llu bytes %llu size %zu", files[i].file,
		      res.tail.truncated, (unsigned long long)res.tail.offset,
		      (unsigned long long)res.tail.bytes, size);
		char want[64];
		snprintf(want, sizeof want, "truncated record at offset %llu",
			 (unsigned long long)res.tail.offset);
		CHECK(strstr(msgs, want) != NULL, "%s: warning '%s' missing in: %s", files[i].file,
		      want, msgs);
	}
	/* Invalidated lists: violations logged as zeros are extended as 0xff. */
	static const char *inv[] = {"ima/tpm2-tss/sml-ima-sha1-invalidated.bin",
				    "ima/tpm2-tss/sml-ima-sig-sha256-invalidated.bin"};
	for (size_t i = 0; i < 2; i++) {
		struct ima_seen s = {0};
		struct ima_result res;
		size_t size;
		if (parse_file_ima(inv[i], &o, &s, &res, &size))
			continue;
		CHECK(s.violations >= 1, "%s: no violation found", inv[i]);
		CHECK(s.ff_ok == s.violations, "%s: %u of %u violations extended as 0xff", inv[i],
		      s.ff_ok, s.violations);
		CHECK(s.bad_hash == 0, "%s: %u mismatches", inv[i], s.bad_hash);
	}
	/* The ima-ng invalidated file is one record cut short. */
	{
		struct ima_seen s = {0};
		struct ima_result res;
		size_t size;
		if (!parse_file_ima("ima/tpm2-tss/sml-ima-ng-sha1-invalidated.bin", &o, &s, &res,
				    &size))
			CHECK(res.tail.truncated && res.tail.offset == 0 && res.tail.bytes == size,
			      "ima-ng invalidated: truncated=%d at %llu", res.tail.truncated,
			      (unsigned long long)res.tail.offset);
	}
	/* padded-sha1 rule: a violation is 20 bytes of 0xff then zeros. */
	{
		size_t len;
		char err[256] = "";
		uint8_t *buf =
		    tl_read_file(data_path("ima/tpm2-tss/sml-ima-sha1-invalidated.bin"), &len);
		struct ima_opts po = {.rule = IMA_RULE_PADDED_SHA1};
		struct pcr_digests cap = {0};
		int rc = buf ? ima_parse_mem(buf, len, &po, on_capture, NULL, &cap, NULL, err,
					     sizeof err)
			     : -1;
		CHECK(rc == 0 && cap.n == 2 && cap.v[1].alg == TPM_ALG_SHA256, "padded: %s", err);
		int ok = 1;
		for (unsigned k = 0; k < 32; k++)
			ok &= cap.v[1].d[k] == (k < 20 ? 0xff : 0);
		CHECK(ok, "padded-sha1 violation in the sha256 bank is not ff*20 || 0*12");
		free(buf);
	}
}

/* tsspcrread text "N: hex" parsed here independently of the code under test. */
static int read_tss_pcrs(const char *rel, uint8_t v[PCR_COUNT][20])
{
	FILE *f = fopen(data_path(rel), "r");
	char line[256];
	int n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		unsigned p;
		char hex[64];
		if (sscanf(line, "%u: %63s", &p, hex) == 2 && p < PCR_COUNT && strlen(hex) == 40) {
			tl_hex(hex, v[p], 20);
			n++;
		}
	}
	fclose(f);
	return n;
}

struct tcg_seen {
	struct pcr_sim *sim;
	unsigned extends;
};

static int on_tcg(void *ctx, const struct tcg_event *e)
{
	struct tcg_seen *s = ctx;
	if (e->startup_locality >= 0)
		pcr_sim_startup_clear(s->sim, (uint8_t)e->startup_locality);
	if (e->no_action)
		return 0;
	s->extends++;
	for (unsigned i = 0; i < e->digests.n; i++)
		pcr_sim_extend(s->sim, e->pcr, e->digests.v[i].alg, e->digests.v[i].d,
			       e->digests.v[i].size);
	return 0;
}

static int replay_tcg(const char *rel, struct pcr_sim *sim, struct tcg_result *res)
{
	size_t len;
	char err[512] = "";
	struct tcg_seen s = {.sim = sim};
	uint8_t *buf = tl_read_file(data_path(rel), &len);
	CHECK(buf != NULL, "cannot read %s", rel);
	if (!buf)
		return -1;
	pcr_sim_bank(sim, TPM_ALG_SHA1);
	pcr_sim_bank(sim, TPM_ALG_SHA256);
	int rc = tcg_parse_mem(buf, len, rel, on_tcg, NULL, &s, res, err, sizeof err);
	CHECK(rc == 0, "%s: %s", rel, err);
	free(buf);
	return rc;
}

static void boot_aggregate(const char *ascii_rel, struct pcr_sim *fw, unsigned last)
{
	size_t len;
	char err[512] = "";
	uint8_t *buf = tl_read_file(data_path(ascii_rel), &len);
	CHECK(buf != NULL, "cannot read %s", ascii_rel);
	if (!buf)
		return;
	/* first line: "10 <sha1> ima-ng sha256:<hex> boot_aggregate" */
	char tmpl[32], dng[160], name[64];
	CHECK(sscanf((const char *)buf, "%*u %*s %31s %159s %63s", tmpl, dng, name) == 3 &&
		  !strcmp(name, "boot_aggregate") && !strncmp(dng, "sha256:", 7),
	      "%s: first line not a sha256 boot_aggregate", ascii_rel);
	uint8_t want[32], got[32];
	tl_hex(dng + 7, want, 32);
	/* sha256 over the replayed sha256 PCR 0..last, computed here directly. */
	int b = pcr_sim_bank(fw, TPM_ALG_SHA256);
	uint8_t cat[10 * 32];
	for (unsigned p = 0; p <= last; p++)
		memcpy(cat + 32 * p, fw->bank[b].pcr[p], 32);
	unsigned int glen = 0;
	CHECK(EVP_Digest(cat, 32 * (last + 1), got, &glen, EVP_sha256(), NULL) == 1, "sha256");
	CHECK(!memcmp(want, got, 32), "%s: boot_aggregate != sha256(sha256 PCR 0..%u)", ascii_rel,
	      last);
	/* The template hashes of the ascii list (computed by the kernel) match
	 * the template data rebuilt from the fields. */
	struct ima_seen s = {0};
	struct ima_opts o = {.label = ascii_rel};
	struct ima_result res;
	int rc = ima_parse_mem(buf, len, &o, on_ima, NULL, &s, &res, err, sizeof err);
	CHECK(rc == 0 && res.ascii && s.entries >= 1 && s.bad_hash == 0,
	      "%s: rc %d ascii %d entries %u mismatches %u %s", ascii_rel, rc, res.ascii, s.entries,
	      s.bad_hash, err);
	free(buf);
}

static void test_evm_utils(void)
{
	struct pcr_sim sim;
	struct tcg_result res;
	uint8_t tpm[PCR_COUNT][20];
	CHECK(pcr_sim_init(&sim) == 0, "sim");
	if (replay_tcg("ima/ima-evm-utils/sample-binary_bios_measurements-pcrs-8-9", &sim, &res))
		return;
	CHECK(res.crypto_agile && res.extends == 161, "sample: %llu extends (README: 161)",
	      (unsigned long long)res.extends);
	CHECK(read_tss_pcrs("ima/ima-evm-utils/sample-tpm-2.0-pcrs-8-9", tpm) == 24,
	      "tsspcrread sample");
	int b = pcr_sim_bank(&sim, TPM_ALG_SHA1);
	static const unsigned pcrs[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 14};
	for (size_t i = 0; i < sizeof pcrs / sizeof pcrs[0]; i++)
		CHECK(!memcmp(sim.bank[b].pcr[pcrs[i]], tpm[pcrs[i]], 20),
		      "sha1 PCR %u differs from the TPM", pcrs[i]);
	boot_aggregate("ima/ima-evm-utils/sample-ascii_runtime_measurements-pcrs-8-9", &sim, 9);
	pcr_sim_release(&sim);

	CHECK(pcr_sim_init(&sim) == 0, "sim");
	if (replay_tcg("ima/ima-evm-utils/test_binary_bios_measurements", &sim, &res))
		return;
	CHECK(res.extends == 46, "test log: %llu extends (README: 46)",
	      (unsigned long long)res.extends);
	boot_aggregate("ima/ima-evm-utils/test_ascii_runtime_measurements", &sim, 7);
	pcr_sim_release(&sim);
}

/* A big-endian host writes every integer, the lengths inside the template
 * data too, in its order; the template hash covers those bytes. Convert the
 * ima-ng sample and recompute its hashes here, then parse it. */
static void test_big_endian(void)
{
	size_t len, o = 0, n = 0;
	uint8_t *b = tl_read_file(data_path("ima/tpm2-tss/sml-ima-ng-sha1.bin"), &len);
	CHECK(b != NULL, "read");
	if (!b)
		return;
	while (o + 28 <= len) {
		uint32_t nl = b[o + 24] | b[o + 25] << 8, tl;
		if (o + 32 + nl > len)
			break;
		tl = b[o + 28 + nl] | b[o + 29 + nl] << 8;
		if (o + 32 + nl + tl > len)
			break;
		size_t t = o + 32 + nl;
		for (size_t f = t; f + 4 <= t + tl;) {
			uint32_t fl = b[f] | b[f + 1] << 8;
			uint8_t x = b[f];
			b[f] = b[f + 3], b[f + 3] = x, x = b[f + 1], b[f + 1] = b[f + 2],
			b[f + 2] = x;
			f += 4 + fl;
		}
		unsigned int hl;
		EVP_Digest(b + t, tl, b + o + 4, &hl, EVP_sha1(), NULL);
		size_t at[] = {o, o + 24, o + 28 + nl};
		for (int k = 0; k < 3; k++) {
			uint8_t *q = b + at[k], x = q[0];
			q[0] = q[3], q[3] = x, x = q[1], q[1] = q[2], q[2] = x;
		}
		o = t + tl;
		n++;
	}
	struct ima_seen s = {0};
	struct ima_opts opt = {.label = "big-endian"};
	struct ima_result res;
	char err[512] = "";
	int rc = ima_parse_mem(b, o, &opt, on_ima, NULL, &s, &res, err, sizeof err);
	CHECK(rc == 0 && res.big_endian && s.entries == n && n == 6 && s.bad_hash == 0 &&
		  !res.tail.truncated,
	      "big-endian: rc %d be %d entries %u of %zu mismatches %u %s", rc, res.big_endian,
	      s.entries, n, s.bad_hash, err);
	free(b);
}

int main(void)
{
	test_big_endian();
	test_tpm2_tss_lists();
	test_evm_utils();
	return tl_finish("test_ima_tcg_logs");
}
