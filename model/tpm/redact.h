/* Redaction of secret-bearing fields (docs/security.md has the table). Works
 * on the recorder's private copy of a message; sizes are kept, bytes zeroed. */
#ifndef TPMTRACE_REDACT_H
#define TPMTRACE_REDACT_H

#include <stddef.h>
#include <stdint.h>

#include "model/tpm/decode.h"

enum payload_mode {
	PAYLOADS_NONE = 0,
	PAYLOADS_REDACTED = 1,
	PAYLOADS_FULL = 2,
};

/* "none" | "redacted" | "full" -> mode, or -1. */
int tpm_payload_mode_parse(const char *s);
const char *tpm_payload_mode_str(int mode);

/* Zeroes secrets in a copy of a decoded command. Returns 1 if anything was
 * zeroed, 0 if nothing needed to be. */
int redact_command(uint8_t *buf, size_t len, const struct tpm_cmd *c);
/* Zeroes secrets in a copy of the response to command c. */
int redact_response(uint8_t *buf, size_t len, const struct tpm_cmd *c, const struct tpm_rsp *r);

#endif
