/* Session policies (model/policy.h): the presets (as-recorded, password,
 * linux-6.10, linux-6.12 and linux-6.12-no-pcr-integrity, after the kernel's
 * drivers/char/tpm/tpm2-sessions.c), policy_parse and policy_spec for the knob
 * syntax, and the expander: policy_expand_init, then policy_expand_cmd and
 * policy_expand_event per trace command and event, which calls the caller's
 * emit once per command the host would send under the policy (session starts,
 * flushes, context loads of the null key, the command itself with its session
 * role and variant). The rules it applies are here too: policy_startup_cmd
 * (Startup, SelfTest and the GetCapability probes), policy_kernel_first_cmd
 * (the command the kernel's driver sends first), policy_kernel_protects (what
 * the kernel wraps in a session) and policy_auth_kept. It reads commands
 * through model/tpm (decode.h, wire.h, tpm_cc.h) and allocates nothing per
 * command. */
#include "model/policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/tpm_ht.h"
#include "model/tpm/wire.h"

struct preset {
	const char *name;
	struct policy p;
};

/* The presets, in the order of --policy all. The kernel presets mirror
 * drivers/char/tpm/tpm2-sessions.c as of the version in their name. */
static const struct preset presets[] = {
    {"as-recorded", {.mode = POL_MODE_AS_RECORDED}},
    {"password", {.mode = POL_MODE_PASSWORD}},
    {"linux-6.10",
     {.mode = POL_MODE_SESSIONS,
      .salt = POL_SALT_NULL_ECC,
      .reuse = POL_REUSE_PER_COMMAND,
      .encrypt = POL_ENC_KERNEL,
      .nullkey = POL_NULLKEY_CONTEXT_LOAD,
      .pcr_integrity = 1}},
    {"linux-6.12",
     {.mode = POL_MODE_SESSIONS,
      .salt = POL_SALT_NULL_ECC,
      .reuse = POL_REUSE_LAZY,
      .encrypt = POL_ENC_KERNEL,
      .nullkey = POL_NULLKEY_CONTEXT_LOAD,
      .pcr_integrity = 1}},
    {"linux-6.12-no-pcr-integrity",
     {.mode = POL_MODE_SESSIONS,
      .salt = POL_SALT_NULL_ECC,
      .reuse = POL_REUSE_LAZY,
      .encrypt = POL_ENC_KERNEL,
      .nullkey = POL_NULLKEY_CONTEXT_LOAD,
      .pcr_integrity = 0}},
    /* CONFIG_TCG_TPM2_HMAC is default n since 6.18 (commit 4bddf4587c13). */
    {"linux-6.18",
     {.mode = POL_MODE_SESSIONS,
      .salt = POL_SALT_NULL_ECC,
      .reuse = POL_REUSE_PER_COMMAND,
      .encrypt = POL_ENC_KERNEL,
      .nullkey = POL_NULLKEY_CONTEXT_LOAD,
      .pcr_integrity = 1,
      .hmac_off = 1}},
};
#define N_PRESETS (sizeof(presets) / sizeof(presets[0]))

/* Designs on the table that no kernel implements (docs/policies.md):
 * named, not in --policy all. */
static const struct preset proposed[] = {
    /* one session set up at start, kept with ContextSave/ContextLoad */
    {"one-session",
     {.mode = POL_MODE_SESSIONS,
      .salt = POL_SALT_NULL_ECC,
      .reuse = POL_REUSE_SAVED,
      .encrypt = POL_ENC_KERNEL,
      .nullkey = POL_NULLKEY_CONTEXT_LOAD,
      .pcr_integrity = 1}},
    /* the null key replaced by a persistent key (the SRK handle of the
     * TCG provisioning guidance): read once, no CreatePrimary */
    {"persistent-key",
     {.mode = POL_MODE_SESSIONS,
      .salt = POL_SALT_PERSISTENT,
      .salt_handle = 0x81000001,
      .reuse = POL_REUSE_LAZY,
      .encrypt = POL_ENC_KERNEL,
      .nullkey = POL_NULLKEY_CONTEXT_LOAD,
      .pcr_integrity = 1}},
};
#define N_PROPOSED (sizeof(proposed) / sizeof(proposed[0]))

const char *policy_preset_name(unsigned i)
{
	return i < N_PRESETS ? presets[i].name : NULL;
}

const char *policy_proposed_name(unsigned i)
{
	return i < N_PROPOSED ? proposed[i].name : NULL;
}

static const char *const salt_names[] = {"null-ecc", "persistent", "none"};
static const char *const reuse_names[] = {"per-command", "lazy", "forever", "saved"};
static const char *const enc_names[] = {"kernel", "off", "all"};
static const char *const nullkey_names[] = {"context-load", "keep-loaded"};

void policy_spec(const struct policy *p, char *buf, size_t len)
{
	if (p->mode == POL_MODE_AS_RECORDED) {
		snprintf(buf, len, "as-recorded");
		return;
	}
	if (p->mode == POL_MODE_PASSWORD) {
		snprintf(buf, len, "password");
		return;
	}
	if (p->hmac_off) {
		snprintf(buf, len, "hmac=off%s", p->hwrng_off ? ",hwrng=off" : "");
		return;
	}
	char salt[32];
	if (p->salt == POL_SALT_PERSISTENT)
		snprintf(salt, sizeof salt, "persistent:0x%08x", p->salt_handle);
	else
		snprintf(salt, sizeof salt, "%s", salt_names[p->salt]);
	/* nullkey only means something with the null-key salt; hwrng is named
	 * only when off (every preset models a kernel with HW_RANDOM_TPM). */
	snprintf(buf, len, "salt=%s,reuse=%s,encrypt=%s%s%s,pcr-integrity=%s%s%s", salt,
		 reuse_names[p->reuse], enc_names[p->encrypt],
		 p->salt == POL_SALT_NULL_ECC ? ",nullkey=" : "",
		 p->salt == POL_SALT_NULL_ECC ? nullkey_names[p->nullkey] : "",
		 p->pcr_integrity ? "on" : "off", p->hwrng_off ? ",hwrng=off" : "",
		 p->user_flush_off ? ",user-flush=off" : "");
}

/* Index of the len bytes at s in names[], or -1. */
static int pick(const char *s, size_t len, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strlen(names[i]) == len && !strncmp(s, names[i], len))
			return i;
	return -1;
}

/* The value of salt= (v, vlen bytes of text) into p. */
static int parse_salt(const char *text, const char *v, size_t vlen, struct policy *p, char *err,
		      size_t errlen)
{
	int val;

	if (vlen > 11 && !strncmp(v, "persistent:", 11)) {
		char buf[16] = "", *e;
		size_t hl = vlen - 11;
		if (hl < sizeof buf)
			memcpy(buf, v + 11, hl);
		unsigned long h = hl < sizeof buf ? strtoul(buf, &e, 0) : 0;
		if (hl >= sizeof buf || *e || !hl || h > UINT32_MAX ||
		    tpm_ht_of((uint32_t)h) != TPM_HT_PERSISTENT) {
			snprintf(err, errlen,
				 "offset %zu: salt=persistent needs a persistent "
				 "handle 0x81xxxxxx, not '%.*s'",
				 (size_t)(v - text) + 11, (int)hl, v + 11);
			return -EINVAL;
		}
		p->salt = POL_SALT_PERSISTENT;
		p->salt_handle = (uint32_t)h;
		return 0;
	}
	if ((val = pick(v, vlen, salt_names, 3)) >= 0 && val != POL_SALT_PERSISTENT) {
		p->salt = (enum pol_salt)val;
		return 0;
	}
	snprintf(err, errlen,
		 "offset %zu: salt='%.*s' (expected null-ecc, "
		 "persistent:0x81xxxxxx or none)",
		 (size_t)(v - text), (int)vlen, v);
	return -EINVAL;
}

int policy_parse(const char *text, struct policy *p, char *err, size_t errlen)
{
	unsigned seen = 0;
	const char *s = text;

	memset(p, 0, sizeof *p);
	if (!text || !*text) {
		snprintf(err, errlen,
			 "empty policy (give a preset or a spec such as "
			 "'salt=null-ecc,reuse=lazy')");
		return -EINVAL;
	}
	for (unsigned i = 0; i < N_PRESETS; i++) {
		if (!strcmp(text, presets[i].name)) {
			*p = presets[i].p;
			snprintf(p->name, sizeof p->name, "%s", presets[i].name);
			return 0;
		}
	}
	for (unsigned i = 0; i < N_PROPOSED; i++) {
		if (!strcmp(text, proposed[i].name)) {
			*p = proposed[i].p;
			snprintf(p->name, sizeof p->name, "%s", proposed[i].name);
			return 0;
		}
	}
	if (!strchr(text, '=')) {
		snprintf(
		    err, errlen,
		    "'%s' is neither a preset (as-recorded, password, linux-6.10, linux-6.12, "
		    "linux-6.12-no-pcr-integrity, linux-6.18, one-session, persistent-key) nor "
		    "a spec (knob=value,...)",
		    text);
		return -EINVAL;
	}
	/* A spec starts from the 6.10 behaviour and changes what it names. */
	*p = presets[2].p;
	while (*s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		const char *eq = memchr(s, '=', len);
		size_t off = (size_t)(s - text);
		if (!eq) {
			snprintf(err, errlen, "offset %zu: '%.*s' is not knob=value", off, (int)len,
				 s);
			return -EINVAL;
		}
		size_t klen = (size_t)(eq - s), vlen = len - klen - 1;
		const char *v = eq + 1;
		static const char *const knobs[] = {"salt",    "reuse",		"encrypt",
						    "nullkey", "pcr-integrity", "hwrng",
						    "hmac",    "user-flush"};
		static const char *const onoff[] = {"off", "on"};
		int k = pick(s, klen, knobs, 8), val = -1;
		if (k < 0) {
			snprintf(err, errlen,
				 "offset %zu: unknown knob '%.*s' (knobs: salt, reuse, encrypt, "
				 "nullkey, pcr-integrity, hwrng, hmac, user-flush)",
				 off, (int)klen, s);
			return -EINVAL;
		}
		if (seen & (1u << k)) {
			snprintf(err, errlen, "offset %zu: knob '%s' given twice", off, knobs[k]);
			return -EINVAL;
		}
		seen |= 1u << k;
		switch (k) {
		case 0:
			if (parse_salt(text, v, vlen, p, err, errlen))
				return -EINVAL;
			break;
		case 1:
			if ((val = pick(v, vlen, reuse_names, 4)) < 0) {
				snprintf(err, errlen,
					 "offset %zu: reuse='%.*s' (expected per-command, lazy, "
					 "forever or saved)",
					 (size_t)(v - text), (int)vlen, v);
				return -EINVAL;
			}
			p->reuse = (enum pol_reuse)val;
			break;
		case 2:
			if ((val = pick(v, vlen, enc_names, 3)) < 0) {
				snprintf(err, errlen,
					 "offset %zu: encrypt='%.*s' (expected off, kernel or all)",
					 (size_t)(v - text), (int)vlen, v);
				return -EINVAL;
			}
			p->encrypt = (enum pol_encrypt)val;
			break;
		case 3:
			if ((val = pick(v, vlen, nullkey_names, 2)) < 0) {
				snprintf(err, errlen,
					 "offset %zu: nullkey='%.*s' (expected context-load or "
					 "keep-loaded)",
					 (size_t)(v - text), (int)vlen, v);
				return -EINVAL;
			}
			p->nullkey = (enum pol_nullkey)val;
			break;
		default:
			if ((val = pick(v, vlen, onoff, 2)) < 0) {
				snprintf(err, errlen, "offset %zu: %s='%.*s' (expected on or off)",
					 (size_t)(v - text), knobs[k], (int)vlen, v);
				return -EINVAL;
			}
			if (k == 4)
				p->pcr_integrity = val;
			else if (k == 5)
				p->hwrng_off = !val;
			else if (k == 6)
				p->hmac_off = !val;
			else
				p->user_flush_off = !val;
			break;
		}
		s = end ? end + 1 : s + len;
		if (end && !*s) {
			snprintf(err, errlen, "offset %zu: trailing comma", (size_t)(s - text));
			return -EINVAL;
		}
	}
	if ((seen & (1u << 3)) && p->salt != POL_SALT_NULL_ECC) {
		snprintf(err, errlen, "nullkey= only applies to salt=null-ecc");
		return -EINVAL;
	}
	policy_spec(p, p->name, sizeof p->name);
	return 0;
}

const char *policy_role_str(int r)
{
	switch (r) {
	case POL_ROLE_ORIGINAL:
		return "original";
	case POL_ROLE_NULLKEY_INIT:
		return "nullkey-init";
	case POL_ROLE_SESSION_SETUP:
		return "session-setup";
	case POL_ROLE_SESSION_END:
		return "session-end";
	case POL_ROLE_NAME_LOOKUP:
		return "name-lookup";
	}
	return "?";
}

const char *policy_origin_str(int origin)
{
	switch (origin) {
	case POL_ORIGIN_KERNEL:
		return "kernel";
	case POL_ORIGIN_USER:
		return "userspace";
	case POL_ORIGIN_FIRMWARE:
		return "firmware";
	}
	return "unknown";
}

int policy_startup_cmd(uint32_t cc, const uint8_t *cmd, size_t len)
{
	/* TPM 2.0 Part 3, 30.2: GetCapability's parameters start with the
	 * capability (TPM_CAP_COMMANDS 2, TPM_CAP_TPM_PROPERTIES 6). */
	if (cc == TPM_CC_Startup || cc == TPM_CC_SelfTest)
		return 1;
	if (cc != TPM_CC_GetCapability)
		return 0;
	if (!cmd || len < TPM_HEADER_SIZE + 4)
		return 1;
	uint32_t cap = wire_get_u32(cmd + TPM_HEADER_SIZE);
	return cap == 2 || cap == 6;
}

int policy_kernel_first_cmd(const uint8_t *cmd, size_t len)
{
	/* Part 3, 10.2 (SelfTest: fullTest, a TPMI_YES_NO) and 30.2
	 * (GetCapability: capability, property, propertyCount); TPM_PT_TOTAL_
	 * COMMANDS is PT_FIXED + 41 (Part 2, 6.13). */
	if (len < TPM_HEADER_SIZE || wire_get_u16(cmd) != 0x8001)
		return 0;
	uint32_t cc = wire_get_u32(cmd + 6);
	if (cc == TPM_CC_GetCapability && len == TPM_HEADER_SIZE + 12)
		return wire_get_u32(cmd + 10) == 6 && wire_get_u32(cmd + 14) == 0x129 &&
		       wire_get_u32(cmd + 18) == 1;
	if (cc == TPM_CC_SelfTest && len == TPM_HEADER_SIZE + 1)
		return cmd[10] == 0;
	return 0;
}

int policy_kernel_protects(uint32_t cc)
{
	/* tpm2_pcr_extend, tpm2_get_random (tpm2-cmd.c) and the trusted-key
	 * seal/load/unseal paths (trusted_tpm2.c) append an HMAC session;
	 * everything else the kernel sends goes without one. */
	switch (cc) {
	case TPM_CC_PCR_Extend:
	case TPM_CC_GetRandom:
	case TPM_CC_Create:
	case TPM_CC_Load:
	case TPM_CC_Unseal:
		return 1;
	}
	return 0;
}

int policy_auth_kept(int auth_kind)
{
	return auth_kind == TPM_AUTH_POLICY || auth_kind == TPM_AUTH_POLICY_ENC;
}

void policy_expand_init(struct pol_state *s, const struct policy *p, pol_emit_fn emit, void *ctx)
{
	memset(s, 0, sizeof *s);
	s->p = p;
	s->emit = emit;
	s->ctx = ctx;
}

static int put(struct pol_state *s, uint32_t cc, int auth, int role, int variant, unsigned attrs,
	       uint32_t handle, const struct pol_cmd *src)
{
	struct pol_out o = {
	    .cc = cc,
	    .auth_kind = (uint8_t)auth,
	    .role = (uint8_t)role,
	    .variant = (uint8_t)variant,
	    .sess_attrs = (uint8_t)attrs,
	    .handle = handle,
	    .src = src,
	};
	s->emitted[role]++;
	return s->emit(s->ctx, &o);
}

/* Chip registration (tpm2_sessions_init): the null primary is created once;
 * context-load keeps only its saved context. */
static int start(struct pol_state *s)
{
	int rc = 0;
	s->started = 1;
	if (s->p->mode != POL_MODE_SESSIONS || s->p->hmac_off)
		return 0;
	/* A persistent salt key is not made: its public area is read once
	 * (the ECDH needs its point). */
	if (s->p->salt == POL_SALT_PERSISTENT)
		return put(s, TPM_CC_ReadPublic, TPM_AUTH_NONE, POL_ROLE_NAME_LOOKUP, POL_VAR_NONE,
			   0, s->p->salt_handle, NULL);
	if (s->p->salt != POL_SALT_NULL_ECC)
		return 0;
	/* CreatePrimary under TPM_RH_NULL with an empty password session. */
	rc = put(s, TPM_CC_CreatePrimary, TPM_AUTH_PASSWORD, POL_ROLE_NULLKEY_INIT,
		 POL_VAR_ECC_P256, 0, 0x40000007, NULL);
	if (rc || s->p->nullkey == POL_NULLKEY_KEEP_LOADED) {
		s->nullkey_loaded = 1;
		return rc;
	}
	rc = put(s, TPM_CC_ContextSave, TPM_AUTH_NONE, POL_ROLE_NULLKEY_INIT, POL_VAR_NONE, 0, 0,
		 NULL);
	if (!rc)
		rc = put(s, TPM_CC_FlushContext, TPM_AUTH_NONE, POL_ROLE_NULLKEY_INIT, POL_VAR_NONE,
			 0, 0, NULL);
	return rc;
}

static int end_session(struct pol_state *s, const struct pol_cmd *src)
{
	if (!s->session_live)
		return 0;
	s->session_live = 0;
	s->session_saved = 0; /* a saved session is flushed by its handle too */
	/* tpm2_end_auth_session: FlushContext of the session handle. */
	return put(s, TPM_CC_FlushContext, TPM_AUTH_NONE, POL_ROLE_SESSION_END, POL_VAR_NONE, 0, 0,
		   src);
}

static int begin_session(struct pol_state *s, const struct pol_cmd *src)
{
	const struct policy *p = s->p;
	int rc = 0;
	switch (p->salt) {
	case POL_SALT_NULL_ECC:
		if (p->nullkey == POL_NULLKEY_CONTEXT_LOAD) {
			rc = put(s, TPM_CC_ContextLoad, TPM_AUTH_NONE, POL_ROLE_SESSION_SETUP,
				 POL_VAR_NONE, 0, 0, src);
		} else if (!s->nullkey_loaded) {
			/* After a TPM reset the resident key is gone: re-create it. */
			rc = put(s, TPM_CC_CreatePrimary, TPM_AUTH_PASSWORD, POL_ROLE_NULLKEY_INIT,
				 POL_VAR_ECC_P256, 0, 0x40000007, src);
			s->nullkey_loaded = 1;
		}
		/* StartAuthSession carries no sessions itself (tag NO_SESSIONS). */
		if (!rc)
			rc = put(s, TPM_CC_StartAuthSession, TPM_AUTH_NONE, POL_ROLE_SESSION_SETUP,
				 POL_VAR_SALTED_ECC, 0, 0, src);
		/* The kernel flushes the loaded null key right after. */
		if (!rc && p->nullkey == POL_NULLKEY_CONTEXT_LOAD)
			rc = put(s, TPM_CC_FlushContext, TPM_AUTH_NONE, POL_ROLE_SESSION_SETUP,
				 POL_VAR_NONE, 0, 0, src);
		break;
	case POL_SALT_PERSISTENT:
		rc = put(s, TPM_CC_StartAuthSession, TPM_AUTH_NONE, POL_ROLE_SESSION_SETUP,
			 POL_VAR_SALTED, 0, p->salt_handle, src);
		break;
	case POL_SALT_NONE:
		rc = put(s, TPM_CC_StartAuthSession, TPM_AUTH_NONE, POL_ROLE_SESSION_SETUP,
			 POL_VAR_UNSALTED, 0, 0, src);
		break;
	}
	s->session_live = 1;
	return rc;
}

/* The session attributes the kernel sets per command (tpm2-cmd.c and
 * trusted_tpm2.c, 6.10): GetRandom encrypt, Create decrypt, Unseal encrypt,
 * PCR_Extend and Load none. */
static unsigned kernel_enc_attrs(uint32_t cc)
{
	switch (cc) {
	case TPM_CC_GetRandom:
	case TPM_CC_Unseal:
		return POL_SA_ENCRYPT;
	case TPM_CC_Create:
		return POL_SA_DECRYPT;
	}
	return 0;
}

/* resubmitted: c follows its own retry-class answer (pol_state.retried_cc). */
static int expand_protected(struct pol_state *s, const struct pol_cmd *c, int resubmitted)
{
	const struct policy *p = s->p;
	const struct tpm_cc_info *ci = tpm_cc_lookup(c->cc);
	unsigned attrs = 0;
	int rc = 0;

	if (p->hmac_off) /* no session: a password where an authorization handle is */
		return put(s, c->cc, ci && ci->auth_handles ? TPM_AUTH_PASSWORD : TPM_AUTH_NONE,
			   POL_ROLE_ORIGINAL, c->variant, 0, 0, c);
	if (c->cc == TPM_CC_PCR_Extend && !p->pcr_integrity)
		return put(s, c->cc, TPM_AUTH_PASSWORD, POL_ROLE_ORIGINAL, c->variant, 0, 0, c);
	/* The resubmission of a command the TPM answered with a retry: the
	 * kernel sends the same bytes again (tpm_transmit), with the session
	 * and the Names it had, unless a flush event ended that session. */
	resubmitted = resubmitted && s->session_live;
	if (!s->session_live && (rc = begin_session(s, c)))
		return rc;
	/* reuse=saved: the kept session's context back in the TPM */
	if (s->session_saved &&
	    (rc = put(s, TPM_CC_ContextLoad, TPM_AUTH_NONE, POL_ROLE_SESSION_SETUP, POL_VAR_NONE, 0,
		      POL_KEPT_SESSION, c)))
		return rc;
	s->session_saved = 0;
	/* tpm_buf_append_name: a Name for persistent, transient and NV handles
	 * comes from ReadPublic; a PCR's Name is its handle (Part 1, 16). */
	for (unsigned i = 0; !resubmitted && i < c->n_handles && i < 3; i++) {
		uint8_t type = tpm_ht_of(c->handles[i]);
		if (type == TPM_HT_TRANSIENT || type == TPM_HT_PERSISTENT ||
		    type == TPM_HT_NV_INDEX) {
			rc = put(s, TPM_CC_ReadPublic, TPM_AUTH_NONE, POL_ROLE_NAME_LOOKUP,
				 POL_VAR_NONE, 0, c->handles[i], c);
			if (rc)
				return rc;
		}
	}
	switch (p->encrypt) {
	case POL_ENC_KERNEL:
		attrs = kernel_enc_attrs(c->cc);
		break;
	case POL_ENC_OFF:
		break;
	case POL_ENC_ALL:
		if (ci && ci->cmd_tpm2b)
			attrs |= POL_SA_DECRYPT;
		if (ci && ci->rsp_tpm2b)
			attrs |= POL_SA_ENCRYPT;
		break;
	}
	/* 6.10 clears continueSession except for GetRandom, which it ends
	 * explicitly; lazy and forever keep the session. */
	if (p->reuse != POL_REUSE_PER_COMMAND || c->cc == TPM_CC_GetRandom)
		attrs |= POL_SA_CONTINUE;
	rc = put(s, c->cc,
		 attrs & (POL_SA_DECRYPT | POL_SA_ENCRYPT) ? TPM_AUTH_HMAC_ENC : TPM_AUTH_HMAC,
		 POL_ROLE_ORIGINAL, c->variant, attrs, 0, c);
	if (rc)
		return rc;
	/* A retry-class answer: the TPM did not start the command, so the
	 * session is as it was (not ended, not dropped, not saved), and the
	 * kernel sends the command again with it. (A replay whose target ran
	 * the command at once gives its answer here instead: replay_step.c.) */
	if (c->has_rc && tpm_rc_is_retry(c->rc)) {
		s->retried_cc = c->cc;
		return 0;
	}
	int failed = c->has_rc && c->rc != 0;
	if (failed || (c->cc == TPM_CC_GetRandom && p->reuse < POL_REUSE_FOREVER))
		return end_session(s, c);
	if (!(attrs & POL_SA_CONTINUE))
		s->session_live = 0; /* the TPM drops it after a successful command */
	if (p->reuse == POL_REUSE_SAVED && s->session_live) {
		s->session_saved = 1;
		return put(s, TPM_CC_ContextSave, TPM_AUTH_NONE, POL_ROLE_SESSION_SETUP,
			   POL_VAR_NONE, 0, POL_KEPT_SESSION, c);
	}
	return 0;
}

int policy_expand_event(struct pol_state *s, enum pol_event ev)
{
	int rc = 0;
	if (ev == POL_EV_ATTACHED) {
		if (!s->started) {
			s->started = 1;
			s->session_live = 0;
			s->nullkey_loaded = s->p->nullkey == POL_NULLKEY_KEEP_LOADED;
		}
		return 0;
	}
	if (!s->started && (rc = start(s)))
		return rc;
	if (s->p->mode != POL_MODE_SESSIONS)
		return 0;
	if (ev == POL_EV_RESET) {
		/* Part 1, 19.4: no session or transient object survives TPM Reset. */
		s->session_live = 0;
		s->session_saved = 0;
		s->nullkey_loaded = 0;
		return 0;
	}
	if (s->p->reuse >= POL_REUSE_FOREVER || (ev == POL_EV_USER_ACCESS && s->p->user_flush_off))
		return 0;
	return end_session(s, NULL);
}

int policy_expand_cmd(struct pol_state *s, const struct pol_cmd *c)
{
	const struct policy *p = s->p;
	int rc = 0;

	s->in_commands++;
	/* only the very next command can be a retried one's resubmission */
	int resubmitted = s->retried_cc && s->retried_cc == c->cc;
	s->retried_cc = 0;
	if (p->mode == POL_MODE_SESSIONS && c->origin == POL_ORIGIN_FIRMWARE) {
		/* Before the kernel: no session key, no session, no flush event.
		 * A Startup here is a new boot: the next kernel registers again. */
		if (c->cc == TPM_CC_Startup && (!c->has_rc || c->rc == 0)) {
			s->started = 0;
			s->session_live = 0;
			s->session_saved = 0;
			s->nullkey_loaded = 0;
		}
		return put(s, c->cc, c->auth_kind, POL_ROLE_ORIGINAL, c->variant,
			   c->sess_attrs & 0xff, 0, c);
	}
	/* The kernel registers its null key after its start-up commands
	 * (tpm2_auto_startup: tpm2_sessions_init after tpm2_get_cc_attrs_tbl);
	 * a trace that does not tell the kernel's commands apart registers it
	 * before the first command. */
	int defer = p->mode == POL_MODE_SESSIONS && c->origin == POL_ORIGIN_KERNEL && c->kstartup;
	if (!s->started && !defer && (rc = start(s)))
		return rc;
	switch (p->mode) {
	case POL_MODE_AS_RECORDED:
		return put(s, c->cc, c->auth_kind, POL_ROLE_ORIGINAL, c->variant,
			   c->sess_attrs & 0xff, 0, c);
	case POL_MODE_PASSWORD: {
		if (policy_auth_kept(c->auth_kind))
			return put(s, c->cc, c->auth_kind, POL_ROLE_ORIGINAL, c->variant,
				   c->sess_attrs & 0xff, 0, c);
		/* A password session only goes where an authorization handle is
		 * (Part 1, 19.6.x); audit or encrypt-only sessions disappear. */
		const struct tpm_cc_info *ci = tpm_cc_lookup(c->cc);
		int auth = c->auth_kind == TPM_AUTH_NONE ? TPM_AUTH_NONE : TPM_AUTH_PASSWORD;
		if (ci && !ci->auth_handles)
			auth = TPM_AUTH_NONE;
		return put(s, c->cc, auth, POL_ROLE_ORIGINAL, c->variant, 0, 0, c);
	}
	case POL_MODE_SESSIONS:
		break;
	}
	if (c->origin == POL_ORIGIN_USER) {
		/* tpm-dev-common.c ends the kernel's session before userspace's
		 * command goes out (lazy flush). */
		if (p->reuse < POL_REUSE_FOREVER && !p->user_flush_off &&
		    (rc = end_session(s, NULL)))
			return rc;
		return put(s, c->cc, c->auth_kind, POL_ROLE_ORIGINAL, c->variant,
			   c->sess_attrs & 0xff, 0, c);
	}
	/* A kernel without HW_RANDOM_TPM never reads the TPM's hwrng: no
	 * GetRandom, no session for it, no flush after it. */
	if (c->hwrng && p->hwrng_off)
		return 0;
	if (c->cc == TPM_CC_Shutdown && p->reuse < POL_REUSE_FOREVER && (rc = end_session(s, c)))
		return rc;
	if (c->cc == TPM_CC_Startup) {
		s->session_live = 0;
		s->session_saved = 0;
		s->nullkey_loaded = 0;
	}
	if (policy_kernel_protects(c->cc) && !policy_auth_kept(c->auth_kind))
		return expand_protected(s, c, resubmitted);
	return put(s, c->cc, c->auth_kind, POL_ROLE_ORIGINAL, c->variant, c->sess_attrs & 0xff, 0,
		   c);
}

int policy_event_from_kind(const char *kind)
{
	static const struct {
		const char *kind;
		enum pol_event ev;
	} map[] = {
	    {"USER_ACCESS", POL_EV_USER_ACCESS},
	    {"USERSPACE", POL_EV_USER_ACCESS},
	    {"SUSPEND", POL_EV_SUSPEND},
	    {"RESET", POL_EV_RESET},
	    {"INIT", POL_EV_RESET},
	    {"POWER_ON", POL_EV_RESET},
	    {"FLUSH", POL_EV_FLUSH},
	    {"kernel-attached", POL_EV_ATTACHED},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (!strcasecmp(kind, map[i].kind))
			return map[i].ev;
	return 0;
}
