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

/* Key or session variants that change a command's latency. */
enum pol_variant {
	POL_VAR_NONE = 0,
	POL_VAR_ECC_P256,   /* CreatePrimary of the ECC P-256 null key */
	POL_VAR_SALTED_ECC, /* StartAuthSession salted by ECDH with a P-256 key */
	POL_VAR_SALTED,	    /* StartAuthSession salted with a key of unknown type */
	POL_VAR_UNSALTED,   /* StartAuthSession without salt */
	/* Keys of a trace's own CreatePrimary/Create (below). */
	POL_VAR_RSA_2048,
	POL_VAR_RSA_3072,
	POL_VAR_RSA_4096,
	POL_VAR_ECC_P384,
	POL_VAR_ECC_P521,
	POL_VAR__COUNT, /* at most 16: predict's price cache keeps 4 bits */
};

/* The profile spelling of a variant ("-" for none). */
const char *tpm_variant_str(int v);

/* Command codes whose variant depends on their parameters. */
int tpm_cc_has_variant(uint32_t cc);

/* enum pol_variant of a whole command; POL_VAR_NONE when it
 * has none or the bytes do not tell. */
int tpm_cmd_variant(const uint8_t *cmd, size_t len);
/* The same for a command the caller has decoded already (c from cmd). */
struct tpm_cmd;
int tpm_cmd_variant_of(const struct tpm_cmd *c, const uint8_t *cmd, size_t len);

#endif
