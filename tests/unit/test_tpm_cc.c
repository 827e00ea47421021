/* The command table (model/tpm/tpm_cc.def): internal consistency of every row,
 * the lookup functions, and spot checks against the TPM 2.0 Library spec.
 *
 * Sources of the spot-check values (read, not copied):
 *  [TT]  TCG reference implementation, TrustedComputingGroup/TPM @3b1f0e6,
 *        TPMCmd/tpm/include/tpm_public/TpmTypes.h (TPM_CC values, Part 2 6.5.2)
 *  [CA]  same tree, TPMCmd/tpm/include/private/CommandAttributeData.h, which is
 *        generated from the Part 3 rev 1.83 command tables: s_ccAttr gives the
 *        TPMA_CC cHandles and rHandle fields; s_commandAttributes gives
 *        HANDLE_1_USER/ADMIN/DUP and HANDLE_2_USER (the '@' handles),
 *        DECRYPT_2 (first command parameter is a TPM2B) and ENCRYPT_2 (first
 *        response parameter is a TPM2B).
 *  [MS]  microsoft/ms-tpm-20-ref @e9fc7b8, TPMCmd/tpm/include/CommandAttributeData.h
 *        (agrees with [CA] on every code both know, i.e. up to 0x19A)
 *  [TSS] tpm2-tss include/tss2/tss2_tpm2_types.h (TPM2_CC_* values up to 0x19A)
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/tpm/tpm_cc.h"
#include "testlib.h"

struct expect {
	const char *name;
	uint32_t cc;
	uint8_t hin, auth, hout, ctb, rtb;
};

static const struct expect spot[] = {
    /* [CA] cHandles 2, HANDLE_1_ADMIN + HANDLE_2_USER: both handles authorized. */
    {"ActivateCredential", 0x147, 2, 2, 0, 1, 1},
    /* [CA] HANDLE_1_ADMIN (@nvIndex) + HANDLE_2_USER (@platform); params are none. */
    {"NV_UndefineSpaceSpecial", 0x11F, 2, 2, 0, 0, 0},
    /* [CA] two handles (authObject, policySession), no HANDLE_* flag: no '@'. */
    {"PolicySigned", 0x160, 2, 0, 0, 1, 1},
    /* [CA] cHandles 3 (@authHandle, nvIndex, policySession); DECRYPT_2 (operandB). */
    {"PolicyNV", 0x149, 3, 1, 0, 1, 0},
    /* [CA] cHandles 3, two '@'. */
    {"GetSessionAuditDigest", 0x14D, 3, 2, 0, 1, 1},
    /* [CA] NO_SESSIONS + R_HANDLE: context blob in, loaded handle out. */
    {"ContextLoad", 0x161, 0, 0, 1, 0, 0},
    /* [CA] cHandles 0: flushHandle is a parameter, not a handle (Part 3 28.4). */
    {"FlushContext", 0x165, 0, 0, 0, 0, 0},
    /* [CA] tpmKey and bind, no '@'; R_HANDLE; DECRYPT_2 (nonceCaller),
     * ENCRYPT_2 (nonceTPM). */
    {"StartAuthSession", 0x176, 2, 0, 1, 1, 1},
    /* [TT] shares its code with MAC_Start; [CA] R_HANDLE, no ENCRYPT_2 (no
     * response parameters). */
    {"HMAC_Start", 0x15B, 1, 1, 1, 1, 0},
    /* [CA] R_HANDLE, DECRYPT_2 (inPrivate), ENCRYPT_2 (name). [MS] agrees. */
    {"Load", 0x157, 1, 1, 1, 1, 1},
    /* [CA] @authHandle, nvIndex; ENCRYPT_2 (data), size/offset are UINT16. */
    {"NV_Read", 0x14E, 2, 1, 0, 0, 1},
    /* [CA] @pcrHandle; digests is a TPML, not a TPM2B. */
    {"PCR_Extend", 0x182, 1, 1, 0, 0, 0},
    /* [CA] HANDLE_1_USER + HANDLE_2_USER; result is a TPML: no ENCRYPT_2. */
    {"EventSequenceComplete", 0x185, 2, 2, 0, 1, 0},
    /* [CA] no handles in, R_HANDLE out; DECRYPT_2 (auth). */
    {"HashSequenceStart", 0x186, 0, 0, 1, 1, 0},
    /* [CA] cHandles 3: @sendObject (HANDLE_1_DUP), @authHandle, ac. */
    {"AC_Send", 0x195, 3, 2, 0, 1, 0},
    /* [CA] HANDLE_1_ADMIN + HANDLE_2_USER. */
    {"CertifyX509", 0x197, 2, 2, 0, 1, 1},
    /* [CA] ECC_Encrypt needs no authorization, ECC_Decrypt does. */
    {"ECC_Encrypt", 0x199, 1, 0, 0, 1, 1},
    {"ECC_Decrypt", 0x19A, 1, 1, 0, 1, 1},
    /* rev 1.83 additions, [TT] + [CA] only (not yet in [MS]/[TSS]). */
    {"PolicyCapability", 0x19B, 1, 0, 0, 1, 0},
    {"NV_DefineSpace2", 0x19D, 1, 1, 0, 1, 0},
    {"NV_ReadPublic2", 0x19E, 1, 0, 0, 0, 1},
    {"SetCapability", 0x19F, 1, 1, 0, 1, 0},
    {"ReadOnlyControl", 0x1A0, 1, 1, 0, 0, 0},
    {"PolicyTransportSPDM", 0x1A1, 1, 0, 0, 1, 0},
};

/* Codes inside the TPM_CC range that Part 2 6.5.2 leaves unassigned ([TT]:
 * no TPM_CC_* define has these values), and codes outside it. */
static const uint32_t unknown[] = {0x0,	  0x11E, 0x123, 0x15A, 0x15F,	   0x166,
				   0x175, 0x1A2, 0x1FF, 0x100, 0x20000001, 0xFFFFFFFF};

static int same(const struct tpm_cc_info *a, const struct tpm_cc_info *b)
{
	return a && b && a->name && b->name && !strcmp(a->name, b->name) && a->cc == b->cc &&
	       a->handles_in == b->handles_in && a->auth_handles == b->auth_handles &&
	       a->handles_out == b->handles_out && a->cmd_tpm2b == b->cmd_tpm2b &&
	       a->rsp_tpm2b == b->rsp_tpm2b;
}

static void check_consistency(void)
{
	const struct tpm_cc_info *e, *prev = NULL;
	unsigned n = 0, in_range = 0;
	char buf[64];

	for (unsigned i = 0; (e = tpm_cc_at(i)); i++, n++) {
		CHECK(e->name && *e->name, "entry %u has no name", i);
		if (!e->name)
			continue;
		if (prev)
			CHECK(e->cc > prev->cc, "entry %u %s 0x%x not above %s 0x%x", i, e->name,
			      e->cc, prev->name, prev->cc);
		for (unsigned j = 0; j < i; j++)
			CHECK(strcasecmp(tpm_cc_at(j)->name, e->name) != 0,
			      "name %s repeated at entries %u and %u", e->name, j, i);
		CHECK(e->auth_handles <= e->handles_in, "%s: %u auth > %u handles", e->name,
		      e->auth_handles, e->handles_in);
		CHECK(e->handles_in <= 3, "%s: %u handles in", e->name, e->handles_in);
		/* TPMA_CC.rHandle is one bit (Part 2 8.9): at most one response handle. */
		CHECK(e->handles_out <= 1, "%s: %u handles out", e->name, e->handles_out);
		CHECK(e->cmd_tpm2b <= 1 && e->rsp_tpm2b <= 1, "%s: flags not 0/1", e->name);
		/* lookup may return its own copy of the row (tpm_cc.c keeps a
		 * by-code index): compare contents, not pointers. */
		CHECK(same(tpm_cc_lookup(e->cc), e), "%s: lookup(0x%x) differs", e->name, e->cc);
		CHECK(tpm_cc_name(e->cc) && !strcmp(tpm_cc_name(e->cc), e->name),
		      "%s: name(0x%x) = %s", e->name, e->cc,
		      tpm_cc_name(e->cc) ? tpm_cc_name(e->cc) : "NULL");
		CHECK(tpm_cc_from_name(e->name) == e->cc, "%s: from_name = 0x%x", e->name,
		      tpm_cc_from_name(e->name));
		snprintf(buf, sizeof(buf), "TPM2_%s", e->name);
		CHECK(tpm_cc_from_name(buf) == e->cc, "from_name(%s)", buf);
		snprintf(buf, sizeof(buf), "TPM_CC_%s", e->name);
		CHECK(tpm_cc_from_name(buf) == e->cc, "from_name(%s)", buf);
		snprintf(buf, sizeof(buf), "tpm2_cc_%s", e->name);
		for (char *p = buf; *p; p++)
			*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
		CHECK(tpm_cc_from_name(buf) == e->cc, "from_name(%s)", buf);
		if (e->cc >= 0x11F && e->cc <= 0x1A1)
			in_range++;
		prev = e;
	}
	/* [TT]: TPM_CC_FIRST 0x11F .. TPM_CC_LAST 0x1A1 holds 128 TPM_CC names, two
	 * of them (MAC, MAC_Start) aliases: 126 codes. Plus Vendor_TCG_Test. */
	CHECK(in_range == 126, "%u codes in 0x11F..0x1A1, want 126", in_range);
	/* The two aliases resolve to the codes the table names HMAC, HMAC_Start. */
	CHECK(tpm_cc_from_name("MAC") == tpm_cc_from_name("HMAC") && tpm_cc_from_name("MAC") != 0,
	      "from_name(MAC) = 0x%x", tpm_cc_from_name("MAC"));
	CHECK(tpm_cc_from_name("TPM2_CC_MAC_Start") == tpm_cc_from_name("HMAC_Start") &&
		  tpm_cc_from_name("HMAC_Start") != 0,
	      "from_name(TPM2_CC_MAC_Start) = 0x%x", tpm_cc_from_name("TPM2_CC_MAC_Start"));
	CHECK(n == 127, "%u entries, want 127", n);
	CHECK(tpm_cc_at(n) == NULL && tpm_cc_at(1000) == NULL, "tpm_cc_at past the end");
}

static void check_spot(void)
{
	for (size_t i = 0; i < sizeof(spot) / sizeof(spot[0]); i++) {
		const struct expect *x = &spot[i];
		const struct tpm_cc_info *e = tpm_cc_lookup(x->cc);
		CHECK(e != NULL, "0x%x (%s) missing", x->cc, x->name);
		if (!e)
			continue;
		CHECK(!strcmp(e->name, x->name), "0x%x is %s, want %s", x->cc, e->name, x->name);
		CHECK(e->handles_in == x->hin, "%s handles_in %u want %u", x->name, e->handles_in,
		      x->hin);
		CHECK(e->auth_handles == x->auth, "%s auth_handles %u want %u", x->name,
		      e->auth_handles, x->auth);
		CHECK(e->handles_out == x->hout, "%s handles_out %u want %u", x->name,
		      e->handles_out, x->hout);
		CHECK(e->cmd_tpm2b == x->ctb, "%s cmd_tpm2b %u want %u", x->name, e->cmd_tpm2b,
		      x->ctb);
		CHECK(e->rsp_tpm2b == x->rtb, "%s rsp_tpm2b %u want %u", x->name, e->rsp_tpm2b,
		      x->rtb);
	}
	/* [TT]/[TSS]: the codes the decoder special-cases. */
	CHECK(TPM_CC_PCR_Extend == 0x182 && TPM_CC_PCR_Event == 0x13C && TPM_CC_PCR_Reset == 0x13D,
	      "PCR command codes");
	/* [TT] TPM_CC_MAC == TPM_CC_HMAC, TPM_CC_MAC_Start == TPM_CC_HMAC_Start. */
	CHECK(TPM_CC_HMAC == 0x155 && TPM_CC_HMAC_Start == 0x15B, "HMAC/MAC codes");
	/* Part 2 6.5.2: TPM_CC_Vendor_TCG_Test is 0x20000000 (V bit set). */
	CHECK(tpm_cc_from_name("Vendor_TCG_Test") == 0x20000000, "vendor test code");
	CHECK(tpm_cc_lookup(0x20000000) != NULL, "vendor test code lookup");
}

/* A secret layout (tpm_cc.def): S, B, 1, 2, 4, 8 or ! followed by a size;
 * its first parameter a TPM2B exactly when the table says so. */
static void check_layout(const char *name, const char *l, int first_tpm2b, const char *what)
{
	int ok = 1;
	for (const char *p = l; *p; p++) {
		if (*p == '!')
			p++;
		if (!strchr("SB1248", *p) || !*p || (p > l && p[-1] == '!' && !strchr("1248", *p)))
			ok = 0;
		if (!*p)
			break;
	}
	CHECK(ok, "%s: %s layout '%s' is not S, B, 1, 2, 4, 8 or !N", name, what, l);
	if (*l)
		CHECK((*l == 'S' || *l == 'B') == first_tpm2b,
		      "%s: %s layout '%s' disagrees with the first parameter being a TPM2B (%d)",
		      name, what, l, first_tpm2b);
	CHECK(strchr(l, 'S') || strchr(l, '!') || !*l, "%s: %s layout '%s' names no secret", name,
	      what, l);
}

/* The commands a review of Part 3 found secret-bearing (docs/security.md),
 * listed here apart from the table so that a row losing its mark fails:
 * code, command side has secrets, response side has secrets. */
static const struct {
	const char *name;
	int cmd, rsp;
} secret_spot[] = {
    {"Create", 1, 0},
    {"CreatePrimary", 1, 0},
    {"CreateLoaded", 1, 0},
    {"LoadExternal", 1, 0},
    {"HierarchyChangeAuth", 1, 0},
    {"ObjectChangeAuth", 1, 0},
    {"NV_ChangeAuth", 1, 0},
    {"NV_DefineSpace", 1, 0},
    {"PCR_SetAuthValue", 1, 0},
    {"HMAC_Start", 1, 0},
    {"HashSequenceStart", 1, 0},
    {"Duplicate", 1, 1},
    {"Import", 1, 0},
    {"Rewrap", 1, 1},
    {"MakeCredential", 1, 0},
    {"ActivateCredential", 0, 1},
    {"RSA_Encrypt", 1, 0},
    {"RSA_Decrypt", 0, 1},
    {"ECC_Encrypt", 1, 0},
    {"ECC_Decrypt", 0, 1},
    {"ECDH_ZGen", 0, 1},
    {"ECDH_KeyGen", 0, 1},
    {"ZGen_2Phase", 0, 1},
    {"EncryptDecrypt", 1, 1},
    {"EncryptDecrypt2", 1, 1},
    {"GetRandom", 0, 1},
    {"StirRandom", 1, 0},
    {"Unseal", 0, 1},
    {"NV_Write", 1, 0},
    {"NV_Read", 0, 1},
    {"NV_Certify", 0, 1},
    {"PolicyNV", 1, 0},
    {"NV_SetBits", 1, 0},
    /* Not secrets: a MAC's input, a digest's input, attestations. */
    {"HMAC", 0, 0},
    {"Hash", 0, 0},
    {"Quote", 0, 0},
    {"PolicySecret", 0, 0},
};

static void check_secret(void)
{
	const struct tpm_cc_info *e;
	for (unsigned i = 0; (e = tpm_cc_at(i)); i++) {
		CHECK(e->cmd_secret && e->rsp_secret, "%s: secret columns NULL", e->name);
		if (!e->cmd_secret || !e->rsp_secret)
			continue;
		check_layout(e->name, e->cmd_secret, e->cmd_tpm2b, "command");
		check_layout(e->name, e->rsp_secret, e->rsp_tpm2b, "response");
	}
	/* EncryptDecrypt's plaintext is its fourth parameter (Part 3 15.2:
	 * decrypt, mode, ivIn, inData). */
	e = tpm_cc_lookup(TPM_CC_EncryptDecrypt);
	CHECK(e && !strcmp(e->cmd_secret, "12BS"), "EncryptDecrypt layout");
	for (size_t i = 0; i < sizeof(secret_spot) / sizeof(secret_spot[0]); i++) {
		e = tpm_cc_lookup(tpm_cc_from_name(secret_spot[i].name));
		CHECK(e != NULL, "%s missing", secret_spot[i].name);
		if (!e)
			continue;
		CHECK(!!e->cmd_secret[0] == secret_spot[i].cmd, "%s: command secrets '%s'", e->name,
		      e->cmd_secret);
		CHECK(!!e->rsp_secret[0] == secret_spot[i].rsp, "%s: response secrets '%s'",
		      e->name, e->rsp_secret);
	}
}

static void check_unknown(void)
{
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		CHECK(tpm_cc_lookup(unknown[i]) == NULL, "lookup(0x%x) not NULL", unknown[i]);
		CHECK(tpm_cc_name(unknown[i]) == NULL, "name(0x%x) not NULL", unknown[i]);
	}
	CHECK(tpm_cc_from_name("NoSuchCommand") == 0, "from_name of an unknown name");
	CHECK(tpm_cc_from_name("") == 0, "from_name of the empty string");
	CHECK(tpm_cc_from_name("TPM2_") == 0, "from_name of a bare prefix");
	CHECK(tpm_cc_from_name("PCR_Extend2") == 0, "from_name matches whole names only");
	CHECK(tpm_cc_from_name("PCR_Exten") == 0, "from_name matches whole names only");
}

int main(void)
{
	check_consistency();
	check_spot();
	check_secret();
	check_unknown();
	return tl_finish("test_tpm_cc");
}
