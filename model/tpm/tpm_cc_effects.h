/* What a command does to the TPM (model/tpm/tpm_cc_effects.def as data): the
 * objects, sessions, contexts and NV indices it makes, loads, flushes or
 * changes, and its command family. The one place the replayer's capture, the
 * proxy's resource manager and the report's families ask. */
#ifndef TPMTRACE_TPM_CC_EFFECTS_H
#define TPMTRACE_TPM_CC_EFFECTS_H

#include <stdint.h>

/* What a command does: the flags a row of tpm_cc_effects.def ORs together,
 * each described there. */
enum tpm_cc_effect {
	EF_TRANSIENT = 1u << 0,
	EF_SESSION = 1u << 1,
	EF_PRIMARY = 1u << 2,
	EF_TEMPLATE = 1u << 3,
	EF_LOAD = 1u << 4,
	EF_FLUSH = 1u << 5,
	EF_CTX_SAVE = 1u << 6,
	EF_CTX_LOAD = 1u << 7,
	EF_NV_DEFINE = 1u << 8,
	EF_NV_UNDEFINE = 1u << 9,
	EF_NV_WRITE = 1u << 10,
	EF_PCR_EXTEND = 1u << 11,
	EF_PERSIST = 1u << 12,
	EF_BLOB = 1u << 13,
	EF_PUBLIC = 1u << 14,
	EF_NEW_AUTH = 1u << 15,
	EF_NO_SESSIONS = 1u << 16,
	EF_SECRET_AUTH = 1u << 17,
	EF_SECRET_DATA = 1u << 18,
	EF_SECRET_KEY = 1u << 19,
};

/* One row, its flags spelled out as fields; the columns are described in
 * tpm_cc_effects.def. ends_session is the complement of EF_NO_SESSIONS. */
struct tpm_cc_effects {
	const char *name; /* as in tpm_cc.def */
	uint32_t cc;
	uint8_t family; /* enum tpm_family */
	uint8_t transient, session, primary, template_, load, flush, ctx_save, ctx_load;
	uint8_t nv_define, nv_undefine, nv_write, pcr_extend, persist, blob, public_, new_auth;
	uint8_t ends_session;
	uint8_t secret_auth, secret_data, secret_key;
	uint8_t destructive; /* tpm_cc.def's column, taken from there */
	/* Where a value sits (tpm_cc_effects.def): the parameters before it, or
	 * NULL for none. */
	const char *rsp_public, *rsp_name, *cmd_public, *cmd_handle;
};

/* NULL for a code not in tpm_cc.def. */
const struct tpm_cc_effects *tpm_cc_effects(uint32_t cc);
/* Iterates over the table: row i, or NULL past the end. */
const struct tpm_cc_effects *tpm_cc_effects_at(unsigned i);

struct wire_rd;
/* Skips the parameters a layout names (B a TPM2B, 1 2 4 8 an integer); the
 * reader's sticky error says whether they were there. */
void tpm_layout_skip(struct wire_rd *r, const char *layout);

#endif
