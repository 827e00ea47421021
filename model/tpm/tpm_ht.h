/* Handle types (model/tpm/tpm_ht.def, TPM 2.0 Part 2 7.2): the values and
 * names for printing, so that no file tests a handle against a bare 0x80. */
#ifndef TPMTRACE_TPM_HT_H
#define TPMTRACE_TPM_HT_H

#include <stdint.h>

enum tpm_ht {
#define TPM_HT(name, value, text) TPM_HT_##name = value,
#include "model/tpm/tpm_ht.def"
#undef TPM_HT
	TPM_HT_LOADED_SESSION = TPM_HT_HMAC_SESSION, /* Part 2 7.2: second names */
	TPM_HT_SAVED_SESSION = TPM_HT_POLICY_SESSION,
};

/* The type of a handle: its most significant octet. */
static inline uint8_t tpm_ht_of(uint32_t handle)
{
	return (uint8_t)(handle >> 24);
}

/* An HMAC or a policy session's handle (loaded or saved). */
static inline int tpm_ht_is_session(uint32_t handle)
{
	return tpm_ht_of(handle) == TPM_HT_HMAC_SESSION ||
	       tpm_ht_of(handle) == TPM_HT_POLICY_SESSION;
}

/* The text for a handle type ("transient object"), or NULL if Part 2 has none. */
const char *tpm_ht_name(uint8_t ht);

#endif
