/* The TPM 2.0 structures and command layouts as data, and one walker over
 * them (docs/architecture.md, "Layouts and the walker").
 *
 * tpm_types.def describes the structures (integers, TPM2Bs, TPM2Bs holding
 * a structure, structures, counted lists, unions chosen by a selector
 * field); tpm_cc_layout.def gives each command of tpm_cc.def its handle
 * names and its command and response parameters, with the secret ones
 * marked. The walker reads a command or a response by them through the
 * sticky-error reader of wire.h and hands each field to a callback: its
 * name, type, offset, length and whether it is secret. The explainer
 * (params.c), redaction (redact.c) and the variants (variant.c) are built
 * on it, so that adding a command is a row of tpm_cc_layout.def (and of
 * tpm_cc.def) plus its test. */
#ifndef TPMTRACE_WALK_H
#define TPMTRACE_WALK_H

#include <stddef.h>
#include <stdint.h>

#include "model/tpm/decode.h"

/* How a type is laid out (tpm_types.def explains each). */
enum tpm_walk_kind {
	TPM_WK_U8,
	TPM_WK_U16,
	TPM_WK_U32,
	TPM_WK_U64,
	TPM_WK_TPM2B,
	TPM_WK_SIZED,
	TPM_WK_STRUCT,
	TPM_WK_LIST,
	TPM_WK_UNION,
	TPM_WK_DIGEST,
	TPM_WK_SELECT,
	TPM_WK_REST,
};

/* The types: TPM_T_TPM2B_PUBLIC, ... (TPM_T_NONE is 0). */
enum tpm_type {
#define TPM_TYPE(name, kind, sub, parts) TPM_T_##name,
#include "model/tpm/tpm_types.def"
#undef TPM_TYPE
	TPM_T__COUNT
};

/* A field of a structure or a parameter of a command. */
struct tpm_walk_fld {
	const char *name;
	uint16_t type;	/* enum tpm_type */
	uint8_t secret; /* redaction zeroes it */
	int8_t sel;	/* a union's or digest's selector: a sibling's index, else -1 */
};

struct tpm_walk_arm {
	uint32_t value;
	uint16_t type;
};

struct tpm_walk_type {
	const char *name; /* "TPM2B_PUBLIC" */
	uint8_t kind;	  /* enum tpm_walk_kind */
	uint16_t sub;	  /* a list's element, a SIZED's contents, a union's default */
	const struct tpm_walk_fld *fields; /* STRUCT: ends with a NULL name */
	const struct tpm_walk_arm *arms;   /* UNION: ends with type TPM_T_NONE */
};

/* A command's layout (tpm_cc_layout.def). */
struct tpm_cc_layout {
	const char *name;
	uint32_t cc;
	uint8_t full;			      /* cmd and rsp are every parameter */
	const char *const *handles;	      /* NULL-terminated; NULL for none */
	const char *rsp_handle;		      /* NULL when the response has none */
	const struct tpm_walk_fld *cmd, *rsp; /* NULL-name-terminated; NULL none */
};

const struct tpm_walk_type *tpm_walk_type(unsigned type);
/* NULL for a code without a layout. */
const struct tpm_cc_layout *tpm_cc_layout(uint32_t cc);
/* Iterates over the layouts in tpm_cc.def's order (then Vendor_TCG_Test). */
const struct tpm_cc_layout *tpm_cc_layout_at(unsigned i);

enum tpm_walk_event {
	TPM_WE_FIELD, /* a whole field: an integer, bytes, or (not deep) a parameter */
	TPM_WE_ENTER, /* deep: a structure, list or SIZED begins; its parts follow */
	TPM_WE_LEAVE, /* deep: it ended (off, len now whole) */
	TPM_WE_ERROR, /* the parameter (depth 0) at off does not parse; the walk stops */
};

enum tpm_walk_area {
	TPM_WA_HANDLE,
	TPM_WA_PARAM,
};

struct tpm_walk_field {
	int event;		   /* enum tpm_walk_event */
	int area;		   /* enum tpm_walk_area */
	const char *name;	   /* NULL for a list's element (index says which) */
	unsigned type;		   /* enum tpm_type */
	unsigned depth;		   /* 0 a handle or parameter, 1 its parts, ... */
	unsigned index;		   /* among its siblings (a parameter's number) */
	size_t off, len;	   /* the whole field, from the message's start */
	size_t data_off, data_len; /* a TPM2B's (SIZED's, SELECT's, digest's) bytes */
	uint64_t value;		   /* an integer; a list's count; a TPM2B's size */
	int secret;		   /* inside a secret parameter */
};

/* Return 1 from TPM_WE_ENTER to skip the parts (the walk goes on after the
 * field), else 0. */
typedef int (*tpm_walk_fn)(void *ctx, const struct tpm_walk_field *f);

enum {
	/* Every part of every parameter (ENTER, parts, LEAVE), SIZED contents
	 * checked. Without it, one FIELD per parameter, and a TPM2B holding a
	 * structure is walked as bytes: redaction needs only where each
	 * parameter is, whatever its contents. */
	TPM_WALK_DEEP = 1,
};

/* Walks the parameters fields (a layout's cmd or rsp) in buf from off to
 * end. Returns 0 when every one parsed and they end at end, -1 when one
 * does not parse (TPM_WE_ERROR said which), -2 when bytes are left over.
 * *stop (may be NULL) gets the offset reached. */
int tpm_walk_params(const uint8_t *buf, size_t off, size_t end, const struct tpm_walk_fld *fields,
		    int flags, tpm_walk_fn fn, void *ctx, size_t *stop);
/* Walks one value of type at off (up to end) as the parameter name. Same
 * returns as tpm_walk_params, but without -2. */
int tpm_walk_value(const uint8_t *buf, size_t off, size_t end, unsigned type, const char *name,
		   int flags, tpm_walk_fn fn, void *ctx, size_t *stop);

/* A decoded command c (buf, len): its handles, then its parameters. Returns
 * as tpm_walk_params, or 1 when the code has no full layout (the fields it
 * has were walked) or the command is malformed (nothing walked). */
int tpm_walk_cmd(const uint8_t *buf, size_t len, const struct tpm_cmd *c, int flags, tpm_walk_fn fn,
		 void *ctx);
/* A decoded success response r to command c: its handle, then its
 * parameters (up to parameterSize). Same returns; 1 also for an error
 * response. */
int tpm_walk_rsp(const uint8_t *buf, size_t len, const struct tpm_cmd *c, const struct tpm_rsp *r,
		 int flags, tpm_walk_fn fn, void *ctx);

/* The parameter called name of a command or response (not deep): 0 and *f,
 * or -1 when it has none or it does not parse. */
int tpm_walk_find_cmd(const uint8_t *buf, size_t len, const struct tpm_cmd *c, const char *name,
		      struct tpm_walk_field *f);

#endif
