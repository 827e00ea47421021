/* Software PCR replay of a stored trace (replayer/pcr_replay.h):
 * rp_pcr_replay_trace applies the raw bytes of the trace's successful PCR_Extend,
 * PCR_Event, PCR_Reset and Startup commands to a pcr_sim (model/tpm/pcr_bank.h)
 * in seq order. pcr_expect_parse_mem and rp_pcr_expect_parse_file read expected
 * PCR values (tpm2_pcrread or tpm2_eventlog YAML, tsspcrread text);
 * rp_pcr_boot_aggregate_find reads the boot_aggregate of an IMA trace and
 * rp_pcr_boot_aggregate_calc computes it from the simulated PCRs as the kernel's
 * ima_calc_boot_aggregate_tfm does. */
#include "replayer/pcr_replay.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/tpm/tpm_cc.h"
#include "recorder/import/log_reader.h"

int rp_pcr_replay_trace(sqlite3 *db, int64_t trace_id, struct pcr_sim *s,
			struct pcr_replay_stats *st, char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL;
	int rc = 0;
	char why[256];

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM trace WHERE id=?", -1, &q, NULL)) {
		rc = -EIO;
		goto sqlerr;
	}
	sqlite3_bind_int64(q, 1, trace_id);
	if (sqlite3_step(q) != SQLITE_ROW || sqlite3_column_int64(q, 0) == 0) {
		snprintf(err, errlen, "no trace %lld in the database", (long long)trace_id);
		rc = -ENOENT;
		goto out;
	}
	sqlite3_finalize(q);
	/* Only the commands that touch PCRs; the (trace_id, seq) index orders them. */
	if (sqlite3_prepare_v2(
		db,
		"SELECT seq, locality, rc, cmd FROM command WHERE trace_id=?1 AND cc IN"
		" (?2, ?3, ?4, ?5) ORDER BY seq",
		-1, &q, NULL)) {
		rc = -EIO;
		goto sqlerr;
	}
	sqlite3_bind_int64(q, 1, trace_id);
	sqlite3_bind_int(q, 2, TPM_CC_PCR_Extend);
	sqlite3_bind_int(q, 3, TPM_CC_PCR_Event);
	sqlite3_bind_int(q, 4, TPM_CC_PCR_Reset);
	sqlite3_bind_int(q, 5, TPM_CC_Startup);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		st->rows++;
		if (sqlite3_column_type(q, 2) == SQLITE_NULL) {
			st->no_rsp++;
			continue;
		}
		if (sqlite3_column_int64(q, 2) != 0) {
			st->failed++;
			continue;
		}
		const uint8_t *cmd = sqlite3_column_blob(q, 3);
		int len = sqlite3_column_bytes(q, 3);
		if (!cmd || !len) {
			st->no_bytes++;
			continue;
		}
		int r = pcr_sim_apply(s, cmd, (size_t)len, (uint8_t)sqlite3_column_int(q, 1), why,
				      sizeof why);
		if (r < 0)
			st->bad++;
		else if (r > 0)
			st->applied++;
	}
	if (rc != SQLITE_DONE) {
		rc = -EIO;
		goto sqlerr;
	}
	rc = 0;
	goto out;
sqlerr:
	snprintf(err, errlen, "reading trace %lld: %s", (long long)trace_id, sqlite3_errmsg(db));
out:
	sqlite3_finalize(q);
	return rc;
}

static int expect_bank(struct pcr_expect *e, uint16_t alg)
{
	for (unsigned i = 0; i < e->n_banks; i++)
		if (e->alg[i] == alg)
			return (int)i;
	if (e->n_banks == PCR_MAX_BANKS)
		return -1;
	e->alg[e->n_banks] = alg;
	e->present[e->n_banks] = 0;
	return (int)e->n_banks++;
}

int rp_pcr_expect_parse_mem(const char *text, size_t len, const char *label, struct pcr_expect *e,
			    char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	const struct pcr_alg *bank = NULL;
	int count = 0, lineno = 0;
	/* tpm2_eventlog prints events first; only its pcrs: section counts. */
	const char *pcrs = NULL;
	for (const char *s = text; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		if (n >= 5 && !memcmp(s, "pcrs:", 5))
			pcrs = s;
		s += n + 1;
	}
	memset(e, 0, sizeof(*e));
	if (pcrs) {
		for (const char *s = text; s < pcrs; s++)
			lineno += *s == '\n';
		p = pcrs;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char line[512];
		lineno++;
		if (n >= sizeof line)
			n = sizeof line - 1;
		memcpy(line, p, n);
		line[n] = 0;
		p += (nl ? (size_t)(nl - p) : n) + 1;
		char *s = line;
		while (isspace((unsigned char)*s))
			s++;
		char *t = s + strlen(s);
		while (t > s && isspace((unsigned char)t[-1]))
			*--t = 0;
		if (!*s)
			continue;
		const char *halg = strstr(s, "-halg ");
		if (halg) {
			char name[32];
			if (sscanf(halg + 6, "%31s", name) == 1 && pcr_alg_by_name(name))
				bank = pcr_alg_by_name(name);
			continue;
		}
		if (isdigit((unsigned char)*s)) {
			/* "N : 0xHEX" (tpm2-tools) or "N: HEX" (tsspcrread) */
			char *q;
			unsigned long pcr = strtoul(s, &q, 10);
			while (*q == ' ')
				q++;
			if (*q != ':')
				continue;
			q++;
			while (*q == ' ')
				q++;
			if (!strncmp(q, "0x", 2) || !strncmp(q, "0X", 2))
				q += 2;
			size_t hx = strlen(q);
			const struct pcr_alg *a = bank ? bank : pcr_alg_by_size(hx / 2);
			if (pcr >= PCR_COUNT || !a || hx != 2u * a->size) {
				snprintf(err, errlen, "%s:%d: not a PCR value of %s: %s", label,
					 lineno, a ? a->name : "a known bank", s);
				return -EINVAL;
			}
			int b = expect_bank(e, a->alg);
			if (b < 0 || import_log_unhex(q, hx, e->v[b][pcr], a->size)) {
				snprintf(err, errlen, "%s:%d: bad PCR value: %s", label, lineno, s);
				return -EINVAL;
			}
			e->present[b] |= 1u << pcr;
			count++;
			continue;
		}
		if (t > s && t[-1] == ':') {
			t[-1] = 0;
			const struct pcr_alg *a = pcr_alg_by_name(s);
			if (a)
				bank = a;
		}
	}
	if (!count) {
		snprintf(err, errlen, "%s: no PCR values found", label);
		return -EINVAL;
	}
	return count;
}

int rp_pcr_expect_parse_file(const char *path, struct pcr_expect *e, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	for (;;) {
		if (len + 4096 > cap) {
			if (cap >= (64u << 20)) {
				snprintf(err, errlen, "%s: larger than 64 MiB", path);
				rc = -EFBIG;
				goto out;
			}
			char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);
			if (!nb) {
				rc = -ENOMEM;
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		if (!got)
			break;
		len += got;
	}
	rc = rp_pcr_expect_parse_mem(buf ? buf : "", len, path, e, err, errlen);
out:
	free(buf);
	fclose(f);
	return rc;
}

int rp_pcr_boot_aggregate_find(sqlite3 *db, int64_t trace_id, uint16_t *alg, uint8_t *digest,
			       char *err, size_t errlen)
{
	sqlite3_stmt *q = NULL;
	int rc = -ENOENT;
	/* The event detail is the entry as the ascii list shows it:
	 * "10 <template hash> <template> <digest field> boot_aggregate". */
	if (sqlite3_prepare_v2(
		db,
		"SELECT detail FROM event WHERE trace_id=? AND kind='ima' AND"
		" detail LIKE '% boot\\_aggregate%' ESCAPE '\\' ORDER BY seq LIMIT 1",
		-1, &q, NULL)) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		return -EIO;
	}
	sqlite3_bind_int64(q, 1, trace_id);
	if (sqlite3_step(q) != SQLITE_ROW) {
		snprintf(err, errlen, "trace %lld has no IMA boot_aggregate entry",
			 (long long)trace_id);
		goto out;
	}
	char tok[5][160] = {{0}};
	const char *d = (const char *)sqlite3_column_text(q, 0);
	if (sscanf(d, "%159s %159s %159s %159s %159s", tok[0], tok[1], tok[2], tok[3], tok[4]) !=
		5 ||
	    strcmp(tok[4], "boot_aggregate")) {
		snprintf(err, errlen, "trace %lld: boot_aggregate entry not understood: %s",
			 (long long)trace_id, d);
		rc = -EINVAL;
		goto out;
	}
	/* d-ng "sha256:hex" (or "ima:sha256:hex"), or the legacy 20-byte SHA-1. */
	const char *hex = strrchr(tok[3], ':');
	const struct pcr_alg *a = NULL;
	if (hex) {
		char name[32] = "";
		const char *start = tok[3];
		const char *c1 = strchr(tok[3], ':');
		if (c1 != hex)
			start = c1 + 1;
		snprintf(name, sizeof name, "%.*s", (int)(hex - start), start);
		a = pcr_alg_by_name(name);
		hex++;
	} else {
		a = pcr_alg_by_id(TPM_ALG_SHA1);
		hex = tok[3];
	}
	if (!a || import_log_unhex(hex, strlen(hex), digest, a->size)) {
		snprintf(err, errlen, "trace %lld: boot_aggregate digest not understood: %s",
			 (long long)trace_id, tok[3]);
		rc = -EINVAL;
		goto out;
	}
	*alg = a->alg;
	rc = 0;
out:
	sqlite3_finalize(q);
	return rc;
}

int rp_pcr_boot_aggregate_calc(struct pcr_sim *s, uint16_t alg, unsigned last, uint8_t *out)
{
	/* ima_calc_boot_aggregate_tfm: H(PCR0 || ... || PCR7), plus PCR8 and
	 * PCR9 for non-SHA-1 banks since Linux 5.8. */
	int b = pcr_sim_bank(s, alg);
	if (b < 0)
		return b;
	const struct pcr_sim_bank *k = &s->bank[b];
	uint8_t buf[10 * PCR_MAX_DIGEST];
	size_t n = 0;
	for (unsigned p = 0; p <= last && p < 10; p++) {
		memcpy(buf + n, k->pcr[p], k->a->size);
		n += k->a->size;
	}
	return pcr_sim_hash(s, alg, buf, n, out);
}
