/* The command table as data (model/tpm/tpm_cc.h): every row of
 * model/tpm/tpm_cc.def expanded twice, into cc_by_code, indexed directly by
 * command code from 0x11F to 0x1A1 so that tpm_cc_lookup is a bounds check and
 * a load (Vendor_TCG_Test apart), and into cc_list in the .def's order for
 * tpm_cc_at and tpm_cc_from_name (any case, with or without a TPM2_, TPM_CC_ or
 * TPM2_CC_ prefix). tpm_cc_name gives a code's name. */
#include "model/tpm/tpm_cc.h"

#include "model/tpm/constants.h"
#include "model/tpm/wire.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define CC_FIRST 0x11Fu
#define CC_LAST	 0x1A1u

/* Indexed by code - CC_FIRST: a lookup is one bounds check and one load. */
static const struct tpm_cc_info cc_by_code[CC_LAST - CC_FIRST + 1] = {
#define TPM_CC(name_, code, hin, auth, hout, ctb, rtb, csec, rsec, destr)                          \
	[(code)-CC_FIRST] = {#name_, code, hin, auth, hout, ctb, rtb, csec, rsec, destr},
#include "model/tpm/tpm_cc.def"
#undef TPM_CC
};

static const struct tpm_cc_info cc_list[] = {
#define TPM_CC(name_, code, hin, auth, hout, ctb, rtb, csec, rsec, destr)                          \
	{#name_, code, hin, auth, hout, ctb, rtb, csec, rsec, destr},
#include "model/tpm/tpm_cc.def"
#undef TPM_CC
    /* Part 2 6.5.2: the one vendor-specific code the TCG reserves for testing;
     * its data in and out are opaque, so kept secret. */
    {"Vendor_TCG_Test", TPM_CC_Vendor_TCG_Test, 0, 0, 0, 1, 1, "S", "S", 0},
};

const struct tpm_cc_info *tpm_cc_lookup(uint32_t cc)
{
	if (cc >= CC_FIRST && cc <= CC_LAST) {
		const struct tpm_cc_info *i = &cc_by_code[cc - CC_FIRST];
		return i->name ? i : NULL;
	}
	if (cc == TPM_CC_Vendor_TCG_Test)
		return &cc_list[sizeof(cc_list) / sizeof(cc_list[0]) - 1];
	return NULL;
}

const char *tpm_cc_name(uint32_t cc)
{
	const struct tpm_cc_info *i = tpm_cc_lookup(cc);
	return i ? i->name : NULL;
}

void tpm_startup_cmd(uint8_t *cmd, uint16_t su)
{
	struct wire_wr w;
	wire_wr_init(&w, cmd, TPM_STARTUP_SIZE);
	wire_wr_u16(&w, TPM_ST_NO_SESSIONS);
	wire_wr_u32(&w, TPM_STARTUP_SIZE);
	wire_wr_u32(&w, TPM_CC_Startup);
	wire_wr_u16(&w, su);
}

const char *tpm_cc_label(uint32_t cc, char *buf, size_t len)
{
	const char *n = tpm_cc_name(cc);
	if (n)
		return n;
	snprintf(buf, len, "0x%08X", cc);
	return buf;
}

int tpm_cc_is_policy(uint32_t cc)
{
	const struct tpm_cc_info *i = tpm_cc_lookup(cc);
	return i && !strncmp(i->name, "Policy", 6);
}

const struct tpm_cc_info *tpm_cc_at(unsigned i)
{
	return i < sizeof(cc_list) / sizeof(cc_list[0]) ? &cc_list[i] : NULL;
}

uint32_t tpm_cc_from_name(const char *name)
{
	if (!strncasecmp(name, "TPM2_CC_", 8))
		name += 8;
	else if (!strncasecmp(name, "TPM_CC_", 7))
		name += 7;
	else if (!strncasecmp(name, "TPM2_", 5))
		name += 5;
	for (unsigned i = 0; i < sizeof(cc_list) / sizeof(cc_list[0]); i++)
		if (!strcasecmp(cc_list[i].name, name))
			return cc_list[i].cc;
	/* Part 2 6.5.2: the second names of 0x155 and 0x15B (tpm_cc.def). */
	if (!strcasecmp(name, "MAC"))
		return 0x155;
	if (!strcasecmp(name, "MAC_Start"))
		return 0x15B;
	return 0;
}
