/* The effects table (model/tpm/tpm_cc_effects.def) and the handle types
 * (model/tpm/tpm_ht.def): one effects row for every command of tpm_cc.def,
 * the families the same as the name rules that sorted commands before the
 * family became a column (kept here as the independent oracle: Part 3's
 * chapters by command name), the flags consistent with the handle counts of
 * tpm_cc.def, and the layouts readable. */
#include <stdio.h>
#include <string.h>

#include "model/tpm/cc_family.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/tpm_cc_effects.h"
#include "model/tpm/tpm_ht.h"
#include "model/tpm/wire.h"
#include "testlib.h"

static int has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static int in(const char *n, const char *const *l, size_t k, int prefix)
{
	for (size_t i = 0; i < k; i++)
		if (prefix ? has_prefix(n, l[i]) : !strcmp(n, l[i]))
			return 1;
	return 0;
}

#define IN(n, l, prefix) in(n, l, sizeof l / sizeof *l, prefix)

/* The family by the command's name, grouped as Part 3 groups them. */
static enum tpm_family family_by_name(const char *n)
{
	static const char *const lifecycle[] = {"Startup",
						"Shutdown",
						"SelfTest",
						"IncrementalSelfTest",
						"GetTestResult",
						"Clear",
						"ClearControl",
						"HierarchyControl",
						"HierarchyChangeAuth",
						"ChangeEPS",
						"ChangePPS",
						"SetPrimaryPolicy",
						"DictionaryAttack",
						"FieldUpgrade",
						"FirmwareRead",
						"PP_Commands",
						"SetAlgorithmSet",
						"SetCommandCodeAuditStatus"};
	static const char *const object[] = {
	    "CreatePrimary",	  "Create",    "Load",	 "ReadPublic", "ObjectChangeAuth",
	    "EvictControl",	  "Duplicate", "Rewrap", "Import",     "MakeCredential",
	    "ActivateCredential", "Unseal"};
	static const char *const context[] = {"ContextSave", "ContextLoad", "FlushContext"};
	static const char *const crypto[] = {"Sign",	       "VerifySignature",
					     "RSA_",	       "ECDH_",
					     "ECC_",	       "EC_Ephemeral",
					     "ZGen",	       "Commit",
					     "EncryptDecrypt", "Hash",
					     "HMAC",	       "MAC",
					     "Sequence",       "EventSequenceComplete",
					     "GetRandom",      "StirRandom"};
	static const char *const attest[] = {
	    "Quote",	 "Certify", "GetTime", "GetSessionAuditDigest", "GetCommandAuditDigest",
	    "NV_Certify"};
	static const char *const info[] = {"GetCapability", "TestParms", "ReadClock", "ClockSet",
					   "ClockRateAdjust"};
	if (IN(n, attest, 1))
		return TPM_FAM_ATTEST;
	if (has_prefix(n, "PCR_"))
		return TPM_FAM_PCR;
	if (has_prefix(n, "NV_"))
		return TPM_FAM_NV;
	if (has_prefix(n, "Policy") || !strcmp(n, "StartAuthSession"))
		return TPM_FAM_SESSION;
	if (IN(n, context, 0))
		return TPM_FAM_CONTEXT;
	if (IN(n, lifecycle, 1))
		return TPM_FAM_LIFECYCLE;
	if (IN(n, info, 0))
		return TPM_FAM_INFO;
	if (IN(n, object, 1))
		return TPM_FAM_OBJECT;
	if (IN(n, crypto, 1))
		return TPM_FAM_CRYPTO;
	return TPM_FAM_OTHER;
}

static void check_rows(void)
{
	unsigned n_cc = 0, n_eff = 0, fams[TPM_FAM__COUNT] = {0};
	for (unsigned i = 0; tpm_cc_at(i); i++) {
		const struct tpm_cc_info *c = tpm_cc_at(i);
		const struct tpm_cc_effects *e = tpm_cc_effects(c->cc);
		enum tpm_family want = family_by_name(c->name);
		CHECK(tpm_cc_family(c->cc) == want, "%s: family %s, by name %s", c->name,
		      tpm_family_name(tpm_cc_family(c->cc)), tpm_family_name(want));
		fams[tpm_cc_family(c->cc)]++;
		if (c->cc == TPM_CC_Vendor_TCG_Test) {
			CHECK(!e, "the vendor test code is not a tpm_cc.def row");
			continue;
		}
		n_cc++;
		CHECK(e != NULL, "%s (0x%x) has no row in tpm_cc_effects.def", c->name, c->cc);
		if (!e)
			continue;
		CHECK(!strcmp(e->name, c->name) && e->cc == c->cc, "%s: row named %s", c->name,
		      e->name);
		CHECK(e->destructive == c->destructive, "%s: destructive", c->name);
		/* A new transient object or session comes back in the handle area. */
		CHECK(!(e->transient || e->session || e->ctx_load) || c->handles_out == 1,
		      "%s: makes a handle but tpm_cc.def has %u out", c->name, c->handles_out);
		CHECK(!c->handles_out || e->transient || e->session || e->ctx_load,
		      "%s: returns a handle but the row says nothing makes one", c->name);
		CHECK(!e->new_auth || (c->handles_in >= 1 && c->cmd_tpm2b), "%s: new_auth",
		      c->name);
		CHECK(!e->template_ || !strcmp(c->cmd_secret, "S"), "%s: template, inSensitive",
		      c->name);
		CHECK(!e->primary || e->template_, "%s: primary without template", c->name);
		CHECK(!(e->nv_undefine || e->nv_write) || e->family == TPM_FAM_NV, "%s: NV",
		      c->name);
		CHECK(!e->pcr_extend || e->family == TPM_FAM_PCR, "%s: PCR", c->name);
		CHECK(!e->public_ || e->rsp_name, "%s: public without a Name", c->name);
		/* A layout names only parameters the table knows. */
		const char *lay[] = {e->rsp_public, e->rsp_name, e->cmd_public, e->cmd_handle};
		for (unsigned k = 0; k < 4; k++)
			CHECK(!lay[k] || strspn(lay[k], "B1248") == strlen(lay[k]), "%s: layout %s",
			      c->name, lay[k]);
	}
	for (unsigned i = 0; tpm_cc_effects_at(i); i++) {
		const struct tpm_cc_effects *e = tpm_cc_effects_at(i);
		n_eff++;
		CHECK(tpm_cc_lookup(e->cc) && !strcmp(tpm_cc_lookup(e->cc)->name, e->name),
		      "effects row %s is not in tpm_cc.def", e->name);
		CHECK(tpm_cc_effects(e->cc) == e ||
			  (tpm_cc_effects(e->cc) && !strcmp(tpm_cc_effects(e->cc)->name, e->name)),
		      "%s: lookup", e->name);
	}
	CHECK(n_eff == n_cc, "%u effects rows for %u commands", n_eff, n_cc);
	CHECK(!tpm_cc_effects(0) && !tpm_cc_effects(0x11E) && !tpm_cc_effects(0x1A2),
	      "unknown codes");
	CHECK(tpm_cc_family(0x12345) == TPM_FAM_OTHER, "unknown code's family");
	printf("%u commands:", n_cc);
	for (unsigned f = 0; f < TPM_FAM__COUNT; f++)
		printf(" %s %u;", tpm_family_name((enum tpm_family)f), fams[f]);
	printf("\n");
}

static void check_spot(void)
{
	const struct tpm_cc_effects *e = tpm_cc_effects(TPM_CC_CreatePrimary);
	CHECK(e && e->transient && e->primary && e->template_ && !e->load, "CreatePrimary");
	e = tpm_cc_effects(TPM_CC_StartAuthSession);
	CHECK(e && e->session && !e->transient && e->ends_session, "StartAuthSession");
	e = tpm_cc_effects(TPM_CC_FlushContext);
	CHECK(e && e->flush && !e->ends_session && e->cmd_handle && !*e->cmd_handle,
	      "FlushContext");
	e = tpm_cc_effects(TPM_CC_NV_UndefineSpace);
	CHECK(e && e->nv_undefine && e->destructive, "NV_UndefineSpace");
	e = tpm_cc_effects(TPM_CC_PCR_Extend);
	CHECK(e && e->pcr_extend && !e->destructive, "PCR_Extend");
	CHECK(tpm_cc_effects(TPM_CC_ContextSave)->ctx_save, "ContextSave");
	CHECK(tpm_cc_effects(TPM_CC_ContextLoad)->ctx_load, "ContextLoad");
	CHECK(tpm_cc_effects(TPM_CC_NV_DefineSpace)->nv_define, "NV_DefineSpace");
	CHECK(tpm_cc_effects(TPM_CC_NV_Write)->nv_write, "NV_Write");
	CHECK(tpm_cc_effects(TPM_CC_Load)->load, "Load");
	CHECK(!tpm_cc_effects(TPM_CC_GetRandom)->transient, "GetRandom");
}

/* CreatePrimary's response: outPublic, creationData, creationHash,
 * creationTicket {tag, hierarchy, digest}, name: the layout finds the Name. */
static void check_layout(void)
{
	static const uint8_t rsp[] = {0, 2, 0xAA, 0xBB, 0, 1,	 0xCC, 0, 0,	0x80, 0x21, 0x40,
				      0, 0, 1,	  0,	1, 0xDD, 0,    3, 0xE1, 0xE2, 0xE3};
	struct wire_rd r;
	uint16_t n;
	wire_rd_init(&r, rsp, sizeof rsp);
	tpm_layout_skip(&r, tpm_cc_effects(TPM_CC_CreatePrimary)->rsp_name);
	const uint8_t *name = wire_tpm2b(&r, &n);
	CHECK(!r.err && n == 3 && name && name[0] == 0xE1, "CreatePrimary's Name: err %d n %u",
	      r.err, n);
	wire_rd_init(&r, rsp, 4);
	tpm_layout_skip(&r, "BB");
	CHECK(r.err, "a layout past the end sets the sticky error");
}

static void check_ht(void)
{
	CHECK(TPM_HT_TRANSIENT == 0x80 && TPM_HT_PERSISTENT == 0x81 && TPM_HT_NV_INDEX == 0x01,
	      "values");
	CHECK(TPM_HT_LOADED_SESSION == 0x02 && TPM_HT_SAVED_SESSION == 0x03 && TPM_HT_AC == 0x90,
	      "aliases");
	CHECK(tpm_ht_of(0x80000001) == TPM_HT_TRANSIENT && tpm_ht_of(0x40000001) == 0x40, "of");
	CHECK(tpm_ht_name(0x81) && !strcmp(tpm_ht_name(0x81), "persistent object"), "name");
	CHECK(!tpm_ht_name(0x7F), "no name for 0x7F");
}

/* A secret class is given only where tpm_cc.def's cmd_secret marks the first
 * parameter secret ("S"), one class per row; and every command whose first
 * parameter is a secret authValue (EF_NEW_AUTH) has the authValue class. */
static void check_secret_classes(void)
{
	unsigned n = 0;
	for (unsigned i = 0; tpm_cc_effects_at(i); i++) {
		const struct tpm_cc_effects *e = tpm_cc_effects_at(i);
		const struct tpm_cc_info *ci = tpm_cc_lookup(e->cc);
		unsigned classes = e->secret_auth + e->secret_data + e->secret_key;
		CHECK(classes <= 1, "%s: %u secret classes", e->name, classes);
		if (classes) {
			n++;
			CHECK(ci && ci->cmd_secret && ci->cmd_secret[0] == 'S',
			      "%s: a secret class, but cmd_secret '%s'", e->name,
			      ci && ci->cmd_secret ? ci->cmd_secret : "?");
		}
		if (e->new_auth)
			CHECK(e->secret_auth, "%s: a new authValue, not in the authValue class",
			      e->name);
	}
	CHECK(n == 15, "15 commands with a secret class (got %u)", n);
	CHECK(tpm_cc_effects(TPM_CC_Duplicate)->secret_key, "Duplicate: a key");
	CHECK(tpm_cc_effects(TPM_CC_HashSequenceStart)->secret_auth, "HashSequenceStart: auth");
	CHECK(tpm_cc_effects(TPM_CC_StirRandom)->secret_data, "StirRandom: data");
	CHECK(!tpm_cc_effects(TPM_CC_Unseal)->secret_data, "Unseal: none (its secret is out)");
}

int main(void)
{
	check_rows();
	check_secret_classes();
	check_spot();
	check_layout();
	check_ht();
	return tl_finish("test_tpm_cc_effects");
}
