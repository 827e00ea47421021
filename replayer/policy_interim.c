/* INTERIM: see policy_interim.h. Compiles to nothing once model/policy.h is
 * merged. The sequences are those of /work/shared/reference/kernel-sessions.md
 * (drivers/char/tpm/tpm2-sessions.c, 6.10 and 6.12). */
#if !__has_include("model/policy.h")
#include "replayer/policy_interim.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "model/decode.h"

static const struct policy presets[] = {
    {"as-recorded", POL_MODE_AS_RECORDED, POL_REUSE_PER_COMMAND, 1},
    {"password", POL_MODE_PASSWORD, POL_REUSE_PER_COMMAND, 1},
    {"linux-6.10", POL_MODE_SESSIONS, POL_REUSE_PER_COMMAND, 1},
    {"linux-6.12", POL_MODE_SESSIONS, POL_REUSE_LAZY, 1},
    {"linux-6.12-no-pcr-integrity", POL_MODE_SESSIONS, POL_REUSE_LAZY, 0},
};
#define N_PRESETS (sizeof presets / sizeof presets[0])

const char *policy_preset_name(unsigned i)
{
	return i < N_PRESETS ? presets[i].name : NULL;
}

int policy_parse(const char *text, struct policy *p, char *err, size_t errlen)
{
	for (unsigned i = 0; i < N_PRESETS; i++)
		if (text && !strcmp(text, presets[i].name)) {
			*p = presets[i];
			return 0;
		}
	snprintf(err, errlen,
		 "'%s' is not a preset (as-recorded, password, linux-6.10, linux-6.12, "
		 "linux-6.12-no-pcr-integrity)%s",
		 text ? text : "",
		 text && strchr(text, '=') ? "; custom knob specs need model/policy.h" : "");
	return -EINVAL;
}

const char *pol_role_str(int r)
{
	static const char *const n[] = {"original", "nullkey-init", "session-setup", "session-end",
					"name-lookup"};
	return r >= 0 && r < POL_ROLE__COUNT ? n[r] : "?";
}

int policy_kernel_protects(uint32_t cc)
{
	return cc == TPM_CC_PCR_Extend || cc == TPM_CC_GetRandom || cc == TPM_CC_Create ||
	       cc == TPM_CC_Load || cc == TPM_CC_Unseal;
}

void policy_expand_init(struct pol_state *s, const struct policy *p, pol_emit_fn emit, void *ctx)
{
	memset(s, 0, sizeof *s);
	s->p = p;
	s->emit = emit;
	s->ctx = ctx;
}

static int put(struct pol_state *s, uint32_t cc, int auth, int role, unsigned attrs,
	       uint32_t handle, const struct pol_cmd *src)
{
	struct pol_out o = {.cc = cc,
			    .auth_kind = (uint8_t)auth,
			    .role = (uint8_t)role,
			    .sess_attrs = (uint8_t)attrs,
			    .handle = handle,
			    .src = src};
	s->emitted[role]++;
	return s->emit(s->ctx, &o);
}

static int start(struct pol_state *s)
{
	int rc;
	s->started = 1;
	if (s->p->mode != POL_MODE_SESSIONS)
		return 0;
	if ((rc = put(s, TPM_CC_CreatePrimary, TPM_AUTH_PASSWORD, POL_ROLE_NULLKEY_INIT, 0,
		      TPM_RH_NULL, NULL)) ||
	    (rc = put(s, TPM_CC_ContextSave, 0, POL_ROLE_NULLKEY_INIT, 0, 0, NULL)))
		return rc;
	return put(s, TPM_CC_FlushContext, 0, POL_ROLE_NULLKEY_INIT, 0, 0, NULL);
}

static int end_session(struct pol_state *s, const struct pol_cmd *src)
{
	if (!s->session_live)
		return 0;
	s->session_live = 0;
	return put(s, TPM_CC_FlushContext, 0, POL_ROLE_SESSION_END, 0, 0, src);
}

static int protected_cmd(struct pol_state *s, const struct pol_cmd *c)
{
	unsigned attrs = 0;
	int rc = 0;
	if (c->cc == TPM_CC_PCR_Extend && !s->p->pcr_integrity)
		return put(s, c->cc, TPM_AUTH_PASSWORD, POL_ROLE_ORIGINAL, 0, 0, c);
	if (!s->session_live) {
		if ((rc = put(s, TPM_CC_ContextLoad, 0, POL_ROLE_SESSION_SETUP, 0, 0, c)) ||
		    (rc = put(s, TPM_CC_StartAuthSession, 0, POL_ROLE_SESSION_SETUP, 0, 0, c)) ||
		    (rc = put(s, TPM_CC_FlushContext, 0, POL_ROLE_SESSION_SETUP, 0, 0, c)))
			return rc;
		s->session_live = 1;
	}
	for (unsigned i = 0; i < c->n_handles && i < 3; i++) {
		uint8_t type = (uint8_t)(c->handles[i] >> 24);
		if ((type == 0x80 || type == 0x81 || type == 0x01) &&
		    (rc = put(s, TPM_CC_ReadPublic, 0, POL_ROLE_NAME_LOOKUP, 0, c->handles[i], c)))
			return rc;
	}
	if (c->cc == TPM_CC_GetRandom || c->cc == TPM_CC_Unseal)
		attrs = POL_SA_ENCRYPT;
	else if (c->cc == TPM_CC_Create)
		attrs = POL_SA_DECRYPT;
	if (s->p->reuse == POL_REUSE_LAZY || c->cc == TPM_CC_GetRandom)
		attrs |= POL_SA_CONTINUE;
	rc = put(s, c->cc,
		 attrs & (POL_SA_DECRYPT | POL_SA_ENCRYPT) ? TPM_AUTH_HMAC_ENC : TPM_AUTH_HMAC,
		 POL_ROLE_ORIGINAL, attrs, 0, c);
	if (rc)
		return rc;
	if ((c->has_rc && c->rc) || c->cc == TPM_CC_GetRandom)
		return end_session(s, c);
	if (!(attrs & POL_SA_CONTINUE))
		s->session_live = 0;
	return 0;
}

int policy_expand_event(struct pol_state *s, enum pol_event ev)
{
	int rc;
	if (!s->started && (rc = start(s)))
		return rc;
	if (s->p->mode != POL_MODE_SESSIONS)
		return 0;
	if (ev == POL_EV_RESET) {
		s->session_live = 0;
		return 0;
	}
	return end_session(s, NULL);
}

int policy_expand_cmd(struct pol_state *s, const struct pol_cmd *c)
{
	int rc;
	s->in_commands++;
	if (!s->started && (rc = start(s)))
		return rc;
	if (s->p->mode == POL_MODE_PASSWORD) {
		const struct tpm_cc_info *ci = tpm_cc_lookup(c->cc);
		int auth = c->auth_kind && (!ci || ci->auth_handles) ? TPM_AUTH_PASSWORD : 0;
		return put(s, c->cc, auth, POL_ROLE_ORIGINAL, 0, 0, c);
	}
	if (s->p->mode == POL_MODE_SESSIONS && c->origin != POL_ORIGIN_USER) {
		if (c->cc == TPM_CC_Shutdown && (rc = end_session(s, c)))
			return rc;
		if (c->cc == TPM_CC_Startup)
			s->session_live = 0;
		if (policy_kernel_protects(c->cc))
			return protected_cmd(s, c);
	} else if (s->p->mode == POL_MODE_SESSIONS && (rc = end_session(s, NULL))) {
		return rc;
	}
	return put(s, c->cc, c->auth_kind, POL_ROLE_ORIGINAL, c->sess_attrs & 0xff, 0, c);
}

int policy_event_from_kind(const char *kind)
{
	if (!strcasecmp(kind, "USER_ACCESS") || !strcasecmp(kind, "USERSPACE"))
		return POL_EV_USER_ACCESS;
	if (!strcasecmp(kind, "SUSPEND"))
		return POL_EV_SUSPEND;
	if (!strcasecmp(kind, "RESET") || !strcasecmp(kind, "INIT") ||
	    !strcasecmp(kind, "POWER_ON"))
		return POL_EV_RESET;
	if (!strcasecmp(kind, "FLUSH"))
		return POL_EV_FLUSH;
	return 0;
}
#else
typedef int policy_interim_unused; /* an empty translation unit is not ISO C */
#endif
