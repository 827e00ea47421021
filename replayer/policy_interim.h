/* INTERIM stand-in for model/policy.h (branch `model`), same names and types,
 * used only while that header is not merged: see policy_api.h. It implements
 * the five presets, not the custom knob spec. Delete with the merge. */
#ifndef TPMTRACE_POLICY_INTERIM_H
#define TPMTRACE_POLICY_INTERIM_H

#include <stddef.h>
#include <stdint.h>

#define POL_SA_CONTINUE 0x01u
#define POL_SA_DECRYPT	0x20u
#define POL_SA_ENCRYPT	0x40u

enum pol_mode { POL_MODE_AS_RECORDED = 0, POL_MODE_PASSWORD, POL_MODE_SESSIONS };
enum pol_reuse { POL_REUSE_PER_COMMAND = 0, POL_REUSE_LAZY };

struct policy {
	char name[128];
	enum pol_mode mode;
	enum pol_reuse reuse;
	int pcr_integrity;
};

int policy_parse(const char *text, struct policy *p, char *err, size_t errlen);
const char *policy_preset_name(unsigned i);

enum pol_origin { POL_ORIGIN_UNKNOWN = 0, POL_ORIGIN_KERNEL, POL_ORIGIN_USER };

struct pol_cmd {
	uint32_t cc;
	uint32_t handles[3];
	uint8_t n_handles;
	uint8_t auth_kind;
	uint8_t origin;
	uint8_t has_rc;
	uint32_t sess_attrs;
	uint32_t rc;
	uint64_t seq;
};

enum pol_event { POL_EV_USER_ACCESS = 1, POL_EV_SUSPEND, POL_EV_RESET, POL_EV_FLUSH };

enum pol_role {
	POL_ROLE_ORIGINAL = 0,
	POL_ROLE_NULLKEY_INIT,
	POL_ROLE_SESSION_SETUP,
	POL_ROLE_SESSION_END,
	POL_ROLE_NAME_LOOKUP,
	POL_ROLE__COUNT,
};

const char *pol_role_str(int r);

struct pol_out {
	uint32_t cc;
	uint8_t auth_kind;
	uint8_t role;
	uint8_t variant;
	uint8_t sess_attrs;
	uint32_t handle;
	const struct pol_cmd *src;
};

typedef int (*pol_emit_fn)(void *ctx, const struct pol_out *o);

struct pol_state {
	const struct policy *p;
	pol_emit_fn emit;
	void *ctx;
	int started;
	int session_live;
	uint64_t emitted[POL_ROLE__COUNT];
	uint64_t in_commands;
};

void policy_expand_init(struct pol_state *s, const struct policy *p, pol_emit_fn emit, void *ctx);
int policy_expand_cmd(struct pol_state *s, const struct pol_cmd *c);
int policy_expand_event(struct pol_state *s, enum pol_event ev);
int policy_event_from_kind(const char *kind);
int policy_kernel_protects(uint32_t cc);

#endif
