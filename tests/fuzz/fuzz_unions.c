/* libFuzzer target: the Part 2 union readers (model/tpm/decode.c: TPMT_SYM_DEF,
 * TPMT_SYM_DEF_OBJECT, the keyedhash, signature, RSA, ECC and KDF schemes,
 * TPMU_PUBLIC_PARMS) on arbitrary bytes. Checked beyond memory safety: a
 * reader either succeeds, having read exactly its selector and the member the
 * selector names (never past the input), or fails with the reader in error;
 * XOR never has a mode and NULL never has details.
 * Input: [0] which reader, [1..2] a TPM_ALG type for the public parameters,
 * then the bytes. */
#include <stdlib.h>
#include <string.h>

#include "model/tpm/decode.h"
#include "model/tpm/wire.h"

static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	uint8_t which = data[0] % 8;
	uint16_t type = wire_get_u16(data + 1);
	size_t len = size - 3;
	uint8_t *buf = malloc(len ? len : 1); /* exact size: ASan sees an overread */
	memcpy(buf, data + 3, len);
	struct wire_rd r;
	wire_rd_init(&r, buf, len);
	struct tpm_sym_def d;
	struct tpm_scheme s;
	struct tpm_public_parms p;
	int rc;
	switch (which) {
	case 0:
	case 1:
		rc = tpm_rd_sym_def(&r, which, &d);
		if (!rc && (d.alg == 0x000A || d.alg == 0x0010))
			check(d.mode == 0x0010 && d.key_bits == 0);
		if (!rc)
			check(r.off == (d.alg == 0x0010 ? 2u : d.alg == 0x000A ? 4u : 6u));
		break;
	case 2:
		rc = tpm_rd_keyedhash_scheme(&r, &s);
		break;
	case 3:
		rc = tpm_rd_sig_scheme(&r, &s);
		break;
	case 4:
		rc = tpm_rd_rsa_scheme(&r, &s);
		break;
	case 5:
		rc = tpm_rd_ecc_scheme(&r, &s);
		break;
	case 6:
		rc = tpm_rd_kdf_scheme(&r, &s);
		break;
	default:
		rc = tpm_rd_public_parms(&r, type, &p);
		break;
	}
	if (which >= 2 && which <= 6 && !rc) {
		if (s.scheme == 0x0010)
			check(r.off == 2 && !s.hash && !s.count && !s.kdf);
		else
			check(r.off >= 2 && r.off <= 6);
	}
	check(rc == 0 ? !r.err && r.off <= len : r.err != 0);
	free(buf);
	return 0;
}
