/* PCR banks and the software PCR model (model/tpm/pcr_bank.h): the hash
 * algorithms a bank may use (pcr_alg_by_id, _by_name, _by_size,
 * pcr_alg_parse_list), and struct pcr_sim, whose pcr_sim_apply replays a
 * recorded PCR_Extend, PCR_Event, PCR_Reset or Startup(CLEAR) on the banks as a
 * TPM would (pcr_sim_extend, pcr_sim_event, pcr_sim_reset,
 * pcr_sim_startup_clear, with the locality-dependent reset values). Digests are
 * computed with OpenSSL's EVP; commands are read with decode.h and wire.h. */
#include "model/tpm/pcr_bank.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/tpm/crypto_lib.h"
#include "model/tpm/decode.h"
#include "model/tpm/wire.h"

#define PCR_ALG_ROW(name, bank, evp, use) {TPM_ALG_##name, TPM_DIGEST_##name, bank, evp},
static const struct pcr_alg algs[] = {TPM_HASHES(PCR_ALG_ROW)};
#undef PCR_ALG_ROW
#define N_ALGS (sizeof(algs) / sizeof(algs[0]))

const struct pcr_alg *pcr_alg_common(unsigned i)
{
	return i < PCR_COMMON_ALGS ? &algs[i] : NULL;
}

int pcr_alg_common_index(uint16_t alg)
{
	for (int i = 0; i < PCR_COMMON_ALGS; i++)
		if (algs[i].alg == alg)
			return i;
	return -1;
}

const struct pcr_alg *pcr_alg_by_id(uint16_t alg)
{
	for (size_t i = 0; i < N_ALGS; i++)
		if (algs[i].alg == alg)
			return &algs[i];
	return NULL;
}

const struct pcr_alg *pcr_alg_by_name(const char *name)
{
	if (!strncasecmp(name, "TPM2_ALG_", 9))
		name += 9;
	else if (!strncasecmp(name, "TPM_ALG_", 8))
		name += 8;
	if (!strncasecmp(name, "0x", 2)) {
		char *end;
		unsigned long v = strtoul(name, &end, 16);
		return *end || v > 0xffff ? NULL : pcr_alg_by_id((uint16_t)v);
	}
	for (size_t i = 0; i < N_ALGS; i++)
		if (!strcasecmp(algs[i].name, name))
			return &algs[i];
	/* "sha3-256" and "sm3" as OpenSSL and some tools spell them. */
	if (!strcasecmp(name, "sm3"))
		return pcr_alg_by_id(TPM_ALG_SM3_256);
	for (size_t i = 0; i < N_ALGS; i++)
		if (!strcasecmp(algs[i].evp, name))
			return &algs[i];
	return NULL;
}

const struct pcr_alg *pcr_alg_by_size(size_t size)
{
	for (size_t i = 0; i < 4; i++)
		if (algs[i].size == size)
			return &algs[i];
	return NULL;
}

int pcr_alg_parse_list(const char *list, uint16_t *out, unsigned max, char *err, size_t errlen)
{
	char item[32];
	unsigned n = 0;
	const char *p = list;

	while (*p) {
		size_t k = strcspn(p, ",");
		if (k == 0 || k >= sizeof item) {
			snprintf(err, errlen, "bad bank list '%s'", list);
			return -EINVAL;
		}
		memcpy(item, p, k);
		item[k] = 0;
		const struct pcr_alg *a = pcr_alg_by_name(item);
		if (!a) {
			snprintf(err, errlen, "unknown hash algorithm '%s'", item);
			return -EINVAL;
		}
		int dup = 0;
		for (unsigned i = 0; i < n; i++)
			dup |= out[i] == a->alg;
		if (!dup) {
			if (n == max) {
				snprintf(err, errlen, "more than %u banks in '%s'", max, list);
				return -EINVAL;
			}
			out[n++] = a->alg;
		}
		p += k;
		if (*p == ',')
			p++;
	}
	if (!n) {
		snprintf(err, errlen, "empty bank list");
		return -EINVAL;
	}
	return (int)n;
}

int pcr_sim_init(struct pcr_sim *s)
{
	memset(s, 0, sizeof(*s));
	if (tpm_crypto_load(NULL, 0))
		return -ENOENT;
	s->ctx = EVP_MD_CTX_new();
	return s->ctx ? 0 : -ENOMEM;
}

const char *pcr_sim_init_error(int rc)
{
	return rc == -ENOENT ? "no libcrypto: cannot compute PCRs" : "out of memory";
}

void pcr_sim_release(struct pcr_sim *s)
{
	if (s->ctx) { /* made once libcrypto was loaded (pcr_sim_init) */
		for (unsigned i = 0; i < s->n_banks; i++)
			EVP_MD_free(s->bank[i].md);
		EVP_MD_CTX_free(s->ctx);
	}
	memset(s, 0, sizeof(*s));
}

void pcr_sim_reset_value(const struct pcr_sim *s, unsigned pcr, uint8_t *out, size_t size)
{
	/* PC Client Platform TPM Profile (PTP) table "PCR attributes": PCR 17-22
	 * (DRTM) reset to all ones at TPM2_Startup and to zero by a dynamic
	 * launch; PCR 0 reads 3 after TPM2_Startup from locality 3 and 4 after
	 * an H-CRTM sequence (TCG PC Client PFP, StartupLocality event). */
	memset(out, pcr >= 17 && pcr <= 22 ? 0xff : 0, size);
	if (pcr == 0 && (s->startup_locality == 3 || s->startup_locality == 4) && size)
		out[size - 1] = s->startup_locality;
}

int pcr_sim_bank(struct pcr_sim *s, uint16_t alg)
{
	for (unsigned i = 0; i < s->n_banks; i++)
		if (s->bank[i].a->alg == alg)
			return (int)i;
	const struct pcr_alg *a = pcr_alg_by_id(alg);
	if (!a)
		return -ENOTSUP;
	if (s->n_banks == PCR_MAX_BANKS)
		return -ENOSPC;
	if (!s->ctx) /* not made by pcr_sim_init */
		return -EINVAL;
	EVP_MD *md = EVP_MD_fetch(NULL, a->evp, NULL);
	if (!md)
		return -ENOTSUP;
	struct pcr_sim_bank *b = &s->bank[s->n_banks];
	memset(b, 0, sizeof(*b));
	b->a = a;
	b->md = md;
	for (unsigned p = 0; p < PCR_COUNT; p++)
		pcr_sim_reset_value(s, p, b->pcr[p], a->size);
	return (int)s->n_banks++;
}

void pcr_sim_startup_clear(struct pcr_sim *s, uint8_t locality)
{
	s->startup_locality = locality;
	for (unsigned i = 0; i < s->n_banks; i++)
		for (unsigned p = 0; p < PCR_COUNT; p++)
			pcr_sim_reset_value(s, p, s->bank[i].pcr[p], s->bank[i].a->size);
}

void pcr_sim_reset(struct pcr_sim *s, unsigned pcr)
{
	/* TPM2_PCR_Reset sets the PCR to zero (Part 3 22.8), DRTM PCRs included. */
	if (pcr >= PCR_COUNT)
		return;
	for (unsigned i = 0; i < s->n_banks; i++)
		memset(s->bank[i].pcr[pcr], 0, PCR_MAX_DIGEST);
}

static int digest_into(struct pcr_sim *s, struct pcr_sim_bank *b, const uint8_t *a, size_t alen,
		       const uint8_t *c, size_t clen, uint8_t *out)
{
	unsigned int olen = 0;
	if (!EVP_DigestInit_ex2(s->ctx, b->md, NULL) || !EVP_DigestUpdate(s->ctx, a, alen) ||
	    (clen && !EVP_DigestUpdate(s->ctx, c, clen)) || !EVP_DigestFinal_ex(s->ctx, out, &olen))
		return -ENOTSUP;
	return 0;
}

int pcr_sim_hash(struct pcr_sim *s, uint16_t alg, const uint8_t *data, size_t len, uint8_t *out)
{
	int i = pcr_sim_bank(s, alg);
	if (i < 0)
		return i;
	return digest_into(s, &s->bank[i], data, len, NULL, 0, out);
}

int pcr_sim_extend(struct pcr_sim *s, unsigned pcr, uint16_t alg, const uint8_t *digest, size_t len)
{
	int i = pcr_sim_bank(s, alg);
	if (i < 0)
		return i;
	struct pcr_sim_bank *b = &s->bank[i];
	if (len != b->a->size)
		return -EINVAL;
	if (pcr >= PCR_COUNT)
		return -ERANGE;
	uint8_t out[PCR_MAX_DIGEST];
	int rc = digest_into(s, b, b->pcr[pcr], b->a->size, digest, len, out);
	if (rc)
		return rc;
	memcpy(b->pcr[pcr], out, b->a->size);
	b->extends[pcr]++;
	return 0;
}

int pcr_sim_event(struct pcr_sim *s, unsigned pcr, const uint8_t *data, size_t len)
{
	uint8_t h[PCR_MAX_DIGEST];
	for (unsigned i = 0; i < s->n_banks; i++) {
		struct pcr_sim_bank *b = &s->bank[i];
		int rc = digest_into(s, b, data, len, NULL, 0, h);
		if (!rc)
			rc = pcr_sim_extend(s, pcr, b->a->alg, h, b->a->size);
		if (rc)
			return rc;
	}
	return 0;
}

int pcr_sim_apply(struct pcr_sim *s, const uint8_t *cmd, size_t len, uint8_t locality, char *err,
		  size_t errlen)
{
	struct tpm_cmd c;
	struct wire_rd r;

	if (tpm_cmd_decode(cmd, len, &c)) {
		snprintf(err, errlen, "malformed command: %s", tpm_malformed_str(c.malformed));
		return c.cc == TPM_CC_PCR_Extend || c.cc == TPM_CC_PCR_Event ? -EINVAL : 0;
	}
	wire_rd_init(&r, cmd, len);
	wire_skip(&r, c.param_off);
	if ((c.cc == TPM_CC_PCR_Extend || c.cc == TPM_CC_PCR_Event || c.cc == TPM_CC_PCR_Reset) &&
	    c.handles[0] >= PCR_COUNT && c.handles[0] != TPM_RH_NULL) {
		/* No PCR of a TPM (0-23): nothing to apply, but said. */
		if (s->ignored_pcr < sizeof s->ignored_idx / sizeof s->ignored_idx[0])
			s->ignored_idx[s->ignored_pcr] = c.handles[0];
		s->ignored_pcr++;
		snprintf(err, errlen, "PCR index %u is not a PCR (0-23)", c.handles[0]);
		return 0;
	}
	switch (c.cc) {
	case TPM_CC_Startup:
		/* Part 3 9.3: TPM_SU_CLEAR (0) resets the PCRs; TPM_SU_STATE keeps
		 * the saved values. */
		if (wire_u16(&r) == 0 && !r.err) {
			pcr_sim_startup_clear(s, locality);
			s->applied++;
			return 1;
		}
		return 0;
	case TPM_CC_PCR_Reset:
		if (c.pcr < 0)
			return 0;
		pcr_sim_reset(s, (unsigned)c.pcr);
		s->applied++;
		return 1;
	case TPM_CC_PCR_Extend: {
		/* Part 3 22.2: TPML_DIGEST_VALUES, each TPMT_HA is an algorithm id
		 * and a digest of that algorithm's size. */
		if (c.handles[0] > 31) /* TPM_RH_NULL: no PCR, no effect */
			return 0;
		uint32_t n = wire_u32(&r);
		if (r.err || n > 16) {
			snprintf(err, errlen, "PCR_Extend: bad digest count %u", n);
			return -EINVAL;
		}
		for (uint32_t k = 0; k < n; k++) {
			uint16_t alg = wire_u16(&r);
			const struct pcr_alg *a = pcr_alg_by_id(alg);
			if (r.err || !a) {
				snprintf(err, errlen, "PCR_Extend: unknown hash algorithm 0x%04x",
					 alg);
				return -EINVAL;
			}
			const uint8_t *d = wire_skip(&r, a->size);
			if (!d) {
				snprintf(err, errlen, "PCR_Extend: digest %u runs past the end", k);
				return -EINVAL;
			}
			int rc = pcr_sim_extend(s, c.handles[0], alg, d, a->size);
			if (rc && rc != -ERANGE) {
				snprintf(err, errlen, "PCR_Extend: cannot compute %s: %s", a->name,
					 strerror(-rc));
				return rc;
			}
		}
		s->applied++;
		return 1;
	}
	case TPM_CC_PCR_Event: {
		/* Part 3 22.3: TPM2B_EVENT; every bank gets H_bank(eventData). */
		if (c.handles[0] > 31)
			return 0;
		uint16_t n;
		const uint8_t *d = wire_tpm2b(&r, &n);
		if (r.err) {
			snprintf(err, errlen, "PCR_Event: event data runs past the end");
			return -EINVAL;
		}
		int rc = pcr_sim_event(s, c.handles[0], d, n);
		if (rc && rc != -ERANGE) {
			snprintf(err, errlen, "PCR_Event: %s", strerror(-rc));
			return rc;
		}
		s->applied++;
		return 1;
	}
	}
	return 0;
}
