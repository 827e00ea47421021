/* Command effects (model/tpm/tpm_cc_effects.h): tpm_cc_effects.def as a
 * direct-index table over the codes of tpm_cc.def, the destructive column
 * taken from tpm_cc.def itself. A row whose name tpm_cc.def lacks does not
 * compile (TPM_CC_<name> and TPMTRACE_DESTR_<name> come from there). */
#include "model/tpm/tpm_cc_effects.h"

#include <stddef.h>

#include "model/tpm/cc_family.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/wire.h"

#define CC_FIRST 0x11Fu
#define CC_LAST	 0x1A1u

enum {
#define TPM_CC(name, code, hin, auth, hout, ctb, rtb, csec, rsec, destr)                           \
	TPMTRACE_DESTR_##name = destr,
#include "model/tpm/tpm_cc.def"
#undef TPM_CC
};

#define HAS(flags, f) (((flags) & (f)) != 0)
/* clang-format off */
#define ROW(name_, fam, rpub, rname, cpub, ch, fl)                                                 \
	{#name_, TPM_CC_##name_, TPM_FAM_##fam,                                                     \
	 HAS(fl, EF_TRANSIENT), HAS(fl, EF_SESSION), HAS(fl, EF_PRIMARY), HAS(fl, EF_TEMPLATE),      \
	 HAS(fl, EF_LOAD), HAS(fl, EF_FLUSH), HAS(fl, EF_CTX_SAVE), HAS(fl, EF_CTX_LOAD),            \
	 HAS(fl, EF_NV_DEFINE), HAS(fl, EF_NV_UNDEFINE), HAS(fl, EF_NV_WRITE),                       \
	 HAS(fl, EF_PCR_EXTEND), HAS(fl, EF_PERSIST), HAS(fl, EF_BLOB), HAS(fl, EF_PUBLIC),          \
	 HAS(fl, EF_NEW_AUTH), !HAS(fl, EF_NO_SESSIONS),                                            \
	 HAS(fl, EF_SECRET_AUTH), HAS(fl, EF_SECRET_DATA), HAS(fl, EF_SECRET_KEY),                  \
	 TPMTRACE_DESTR_##name_, rpub, rname, cpub, ch},
/* clang-format on */

/* A row names only the flags above: a bit past the last is a typo. */
#define EF_ALL ((EF_SECRET_KEY << 1) - 1)
#define TPM_CC_EFFECTS(name_, fam, rpub, rname, cpub, ch, fl)                                      \
	_Static_assert(((fl) & ~EF_ALL) == 0, #name_ ": an unknown effect flag");
#include "model/tpm/tpm_cc_effects.def"
#undef TPM_CC_EFFECTS

static const struct tpm_cc_effects by_code[CC_LAST - CC_FIRST + 1] = {
#define TPM_CC_EFFECTS(name_, ...) [TPM_CC_##name_ - CC_FIRST] = ROW(name_, __VA_ARGS__)
#include "model/tpm/tpm_cc_effects.def"
#undef TPM_CC_EFFECTS
};

static const struct tpm_cc_effects rows[] = {
#define TPM_CC_EFFECTS(name_, ...) ROW(name_, __VA_ARGS__)
#include "model/tpm/tpm_cc_effects.def"
#undef TPM_CC_EFFECTS
};

const struct tpm_cc_effects *tpm_cc_effects(uint32_t cc)
{
	if (cc < CC_FIRST || cc > CC_LAST)
		return NULL;
	const struct tpm_cc_effects *e = &by_code[cc - CC_FIRST];
	return e->name ? e : NULL;
}

const struct tpm_cc_effects *tpm_cc_effects_at(unsigned i)
{
	return i < sizeof rows / sizeof *rows ? &rows[i] : NULL;
}

void tpm_layout_skip(struct wire_rd *r, const char *layout)
{
	uint16_t n;
	for (const char *p = layout; p && *p; p++) {
		switch (*p) {
		case 'B':
			wire_tpm2b(r, &n);
			break;
		case '1':
			wire_u8(r);
			break;
		case '2':
			wire_u16(r);
			break;
		case '4':
			wire_u32(r);
			break;
		case '8':
			wire_u32(r);
			wire_u32(r);
			break;
		default:
			r->err = 1;
			return;
		}
	}
}
