#include "recorder/redact.h"

#include <string.h>

#include "model/wire.h"

int payload_mode_parse(const char *s)
{
	if (!strcmp(s, "none"))
		return PAYLOADS_NONE;
	if (!strcmp(s, "redacted"))
		return PAYLOADS_REDACTED;
	if (!strcmp(s, "full"))
		return PAYLOADS_FULL;
	return -1;
}

const char *payload_mode_str(int mode)
{
	switch (mode) {
	case PAYLOADS_NONE:
		return "none";
	case PAYLOADS_FULL:
		return "full";
	}
	return "redacted";
}

/* Zeroes the contents of the TPM2B at off, if it lies inside the buffer. */
static int zero_tpm2b(uint8_t *buf, size_t len, size_t off)
{
	struct wire_rd r;
	uint16_t n;
	wire_rd_init(&r, buf, len);
	r.off = off;
	const uint8_t *p = wire_tpm2b(&r, &n);
	if (!p || !n)
		return 0;
	memset(buf + (p - buf), 0, n);
	return 1;
}

/* Commands whose first parameter is a secret: sensitive areas (Part 3 12.1
 * Create, 24.1 CreatePrimary: TPM2B_SENSITIVE_CREATE holds userAuth and data),
 * new authorization values, and symmetric keys handed in. */
static int cmd_first_param_secret(uint32_t cc)
{
	switch (cc) {
	case TPM_CC_Create:
	case TPM_CC_CreatePrimary:
	case TPM_CC_CreateLoaded:
	case TPM_CC_LoadExternal:
	case TPM_CC_HierarchyChangeAuth:
	case TPM_CC_NV_ChangeAuth:
	case TPM_CC_ObjectChangeAuth:
	case TPM_CC_NV_DefineSpace:
	case TPM_CC_NV_DefineSpace2:
	case TPM_CC_PCR_SetAuthValue:
	case TPM_CC_HMAC_Start:
	case TPM_CC_HashSequenceStart:
	case TPM_CC_Import:
	case TPM_CC_Duplicate:
	/* Data written to an NV index is what NV_Read returns (Part 3 31.7);
	 * plaintext handed in for encryption (Part 3 14.2 RSA_Encrypt, 15.3
	 * EncryptDecrypt2, 14.8 ECC_Encrypt). */
	case TPM_CC_NV_Write:
	case TPM_CC_RSA_Encrypt:
	case TPM_CC_EncryptDecrypt2:
	case TPM_CC_ECC_Encrypt:
		return 1;
	}
	return 0;
}

/* Responses whose first parameter is a secret: random bytes, unsealed data,
 * NV contents, decrypted data, shared secrets, released credentials. */
static int rsp_first_param_secret(uint32_t cc)
{
	switch (cc) {
	case TPM_CC_GetRandom:
	case TPM_CC_Unseal:
	case TPM_CC_NV_Read:
	case TPM_CC_RSA_Decrypt:
	case TPM_CC_ECDH_ZGen:
	case TPM_CC_ECDH_KeyGen:
	case TPM_CC_ZGen_2Phase:
	case TPM_CC_EncryptDecrypt:
	case TPM_CC_EncryptDecrypt2:
	case TPM_CC_ECC_Decrypt:
	case TPM_CC_ActivateCredential:
	case TPM_CC_Duplicate:
		return 1;
	}
	return 0;
}

int redact_command(uint8_t *buf, size_t len, const struct tpm_cmd *c)
{
	int did = 0;
	if (c->malformed && c->malformed != TPM_MAL_NONE) {
		/* Unparsed bytes may hold anything: keep only the header. */
		if (len > TPM_HEADER_SIZE) {
			memset(buf + TPM_HEADER_SIZE, 0, len - TPM_HEADER_SIZE);
			did = 1;
		}
		return did;
	}
	/* Password sessions carry the password in the hmac field (Part 1 19.8.4);
	 * a policy session may too (PolicyPassword). */
	for (unsigned i = 0; i < c->n_sessions; i++) {
		const struct tpm_session *s = &c->sess[i];
		if ((s->handle == TPM_RS_PW || (s->handle >> 24) == 0x03) && s->hmac_size &&
		    s->hmac_off + s->hmac_size <= len) {
			memset(buf + s->hmac_off, 0, s->hmac_size);
			did = 1;
		}
	}
	if (cmd_first_param_secret(c->cc))
		did |= zero_tpm2b(buf, len, c->param_off);
	return did;
}

int redact_response(uint8_t *buf, size_t len, const struct tpm_cmd *c, const struct tpm_rsp *r)
{
	if (r->malformed || r->rc != 0 || !c->info)
		return 0;
	if (rsp_first_param_secret(c->cc))
		return zero_tpm2b(buf, len, r->param_off);
	return 0;
}
