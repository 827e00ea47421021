/* The latency variant of a command from its bytes: what, besides the command
 * code and the authorization kind, changes its cost enough for a profile to
 * tell apart (docs/profiles.md): the key type and size of CreatePrimary,
 * Create and CreateLoaded, and whether StartAuthSession is salted and how.
 * Shared by predict (model/trace_stream.c), the replayer and latency injection,
 * so that all three price a command from the same profile entry. */
#ifndef TPMTRACE_VARIANT_H
#define TPMTRACE_VARIANT_H

#include <stddef.h>
#include <stdint.h>

/* Command codes whose variant depends on their parameters. */
int tpm_cc_has_variant(uint32_t cc);

/* enum pol_variant (model/policy.h) of a whole command; POL_VAR_NONE when it
 * has none or the bytes do not tell. */
int tpm_cmd_variant(const uint8_t *cmd, size_t len);
/* The same for a command the caller has decoded already (c from cmd). */
struct tpm_cmd;
int tpm_cmd_variant_of(const struct tpm_cmd *c, const uint8_t *cmd, size_t len);

#endif
