/* Session policies: how a trace's commands turn into the command sequence a
 * host would send under another authorization strategy (as recorded, password
 * only, the Linux kernel's HMAC session strategies, or one composed from knobs).
 *
 * One implementation serves the cost model (predict) and the replayer: the
 * caller streams trace commands and events in, the expander calls back once
 * per command to send, in order. No allocation happens per command; the state
 * is a fixed-size struct. docs/policies.md gives every sequence and the kernel
 * source each one mirrors. */
#ifndef TPMTRACE_POLICY_H
#define TPMTRACE_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "model/tpm/variant.h"

/* TPMA_SESSION bits (TPM 2.0 Part 2, 8.4). */
#define POL_SA_CONTINUE 0x01u
#define POL_SA_DECRYPT	0x20u
#define POL_SA_ENCRYPT	0x40u

enum pol_mode {
	POL_MODE_AS_RECORDED = 0, /* every command as recorded */
	POL_MODE_PASSWORD,	  /* every authorization becomes an empty TPM_RS_PW session */
	POL_MODE_SESSIONS,	  /* kernel-style HMAC sessions, shaped by the knobs below */
};

enum pol_salt {
	POL_SALT_NULL_ECC = 0, /* ECDH with the null-hierarchy P-256 primary (the kernel) */
	POL_SALT_PERSISTENT,   /* salted with a persistent key (salt_handle) */
	POL_SALT_NONE,	       /* unsalted, unbound */
};

enum pol_reuse {
	POL_REUSE_PER_COMMAND = 0, /* a new session for every protected command (6.10) */
	POL_REUSE_LAZY,		   /* kept until a flush event (6.12 lazy flush) */
	POL_REUSE_FOREVER,	   /* kept across flush events; only an error ends it */
	/* Set up once and kept like forever, its context loaded before and
	 * saved after each use (ContextLoad/ContextSave; proposed, one-session). */
	POL_REUSE_SAVED,
};

enum pol_encrypt {
	POL_ENC_KERNEL = 0, /* the kernel's attributes per command */
	POL_ENC_OFF,	    /* HMAC only, never parameter encryption */
	POL_ENC_ALL,	    /* encrypt every first parameter that can be (TPM2B) */
};

enum pol_nullkey {
	POL_NULLKEY_CONTEXT_LOAD = 0, /* ContextSave once, ContextLoad + Flush per session */
	POL_NULLKEY_KEEP_LOADED,      /* CreatePrimary once, left loaded */
};

struct policy {
	char name[128]; /* preset name or the canonical spec */
	enum pol_mode mode;
	enum pol_salt salt;
	uint32_t salt_handle;
	enum pol_reuse reuse;
	enum pol_encrypt encrypt;
	enum pol_nullkey nullkey;
	int pcr_integrity; /* 0: PCR_Extend keeps a password session (disable_pcr_integrity=1) */
	int hwrng_off;	   /* 1: a kernel without HW_RANDOM_TPM: the hwrng's reads are not sent */
	/* 1: a kernel without CONFIG_TCG_TPM2_HMAC (hmac=off, linux-6.18): no
	 * null key, no session; the commands it would protect go with an empty
	 * password session, or none without an authorization handle. */
	int hmac_off;
	/* 1: user-space access does not end the kernel's session (user-flush=
	 * off, proposed: no kernel does it); other flush events still do. */
	int user_flush_off;
};

/* Parses a preset name (as-recorded, password, linux-6.10, linux-6.12,
 * linux-6.12-no-pcr-integrity, linux-6.18; the proposed one-session and
 * persistent-key) or a custom spec "salt=…,reuse=…,encrypt=…,nullkey=…
 * [,pcr-integrity=on|off][,hwrng=on|off][,hmac=on|off][,user-flush=on|off]".
 * Returns 0, or
 * -EINVAL with err naming the offending knob and its offset in text. */
int policy_parse(const char *text, struct policy *p, char *err, size_t errlen);
/* Writes the canonical spec of p ("salt=null-ecc,reuse=lazy,…") to buf. */
void policy_spec(const struct policy *p, char *buf, size_t len);
/* Preset i (0-based), or NULL past the end: the order of --policy all. */
const char *policy_preset_name(unsigned i);
/* Proposed preset i (designs no kernel implements: one-session,
 * persistent-key), or NULL past the end; named only, not in --policy all. */
const char *policy_proposed_name(unsigned i);

/* Who sent a trace command. The kernel strategies only touch the kernel's own
 * commands; a userspace command is passed through and is a flush event; the
 * firmware's commands (before the kernel's first) are passed through and are
 * no event at all: the kernel has not registered its session key yet. */
enum pol_origin {
	POL_ORIGIN_UNKNOWN = 0, /* treated as the kernel (IMA, synthetic traces) */
	POL_ORIGIN_KERNEL,
	POL_ORIGIN_USER,
	POL_ORIGIN_FIRMWARE,
};
#define POL_ORIGIN__COUNT 4

/* The origin's name: "unknown", "kernel", "userspace", "firmware". */
const char *policy_origin_str(int origin);

/* One command of the input trace. */
struct pol_cmd {
	uint32_t cc;
	uint32_t handles[3];
	uint8_t n_handles;
	uint8_t auth_kind; /* enum tpm_auth_kind as recorded */
	uint8_t origin;	   /* enum pol_origin */
	uint8_t variant;   /* enum pol_variant of the command's key or salt (model/tpm/variant.h) */
	uint8_t has_rc;	   /* rc is known */
	uint8_t hwrng;	   /* a read of the kernel's TPM hwrng (tpm_hwrng_read) */
	uint8_t kstartup;  /* policy_startup_cmd(): the kernel's start-up, before its key */
	uint32_t sess_attrs;
	uint32_t rc;
	uint64_t seq;
};

enum pol_event {
	POL_EV_USER_ACCESS = 1, /* userspace wrote to /dev/tpm0 or /dev/tpmrm0 */
	POL_EV_SUSPEND,		/* suspend (before Shutdown(STATE)) */
	POL_EV_RESET,		/* TPM reset or power cycle: sessions and loaded keys vanish */
	POL_EV_FLUSH,		/* any other reason the kernel ends its session */
	/* The trace begins on a running kernel (record --kernel's
	 * "kernel-attached"): its null key was registered before, so a
	 * prediction adds no registration; no session is taken to be live. A
	 * replay, whose target is fresh, ignores it. */
	POL_EV_ATTACHED,
};

enum pol_role {
	POL_ROLE_ORIGINAL = 0,	/* the trace's command (authorization possibly changed) */
	POL_ROLE_NULLKEY_INIT,	/* CreatePrimary/ContextSave/FlushContext at chip registration */
	POL_ROLE_SESSION_SETUP, /* ContextLoad, StartAuthSession, FlushContext of the null key */
	POL_ROLE_SESSION_END,	/* FlushContext of the HMAC session */
	POL_ROLE_NAME_LOOKUP,	/* ReadPublic to learn an entity's Name */
	POL_ROLE__COUNT,
};

const char *policy_role_str(int r);

/* pol_out.handle of the kept session's ContextSave and ContextLoad (reuse=
 * saved): the kernel's HMAC session, whatever handle the TPM gave it. */
#define POL_KEPT_SESSION 0x02000000u

/* One command to send. */
struct pol_out {
	uint32_t cc;
	uint8_t auth_kind;  /* enum tpm_auth_kind */
	uint8_t role;	    /* enum pol_role */
	uint8_t variant;    /* enum pol_variant */
	uint8_t sess_attrs; /* TPMA_SESSION of its HMAC session, POL_SA_* */
	/* ReadPublic: the entity; SESSION_SETUP's ContextSave and ContextLoad
	 * of the kept session (reuse=saved): POL_KEPT_SESSION, of the null
	 * key 0; otherwise unused (0). */
	uint32_t handle;
	const struct pol_cmd *src; /* the trace command it serves; NULL for init */
};

/* Returns 0 to continue; anything else stops the expansion and is returned. */
typedef int (*pol_emit_fn)(void *ctx, const struct pol_out *o);

struct pol_state {
	const struct policy *p;
	pol_emit_fn emit;
	void *ctx;
	int started;	    /* chip registration has been emitted */
	int session_live;   /* an HMAC session is open */
	int nullkey_loaded; /* keep-loaded: the null key is resident */
	uint64_t emitted[POL_ROLE__COUNT];
	uint64_t in_commands;
	int session_saved; /* reuse=saved: the session's context is saved, not loaded */
	/* The code of the last command if it was a protected one answered
	 * TPM_RC_RETRY (or YIELDED, TESTING): the next command of that code is
	 * its resubmission; 0 otherwise. */
	uint32_t retried_cc;
};

void policy_expand_init(struct pol_state *s, const struct policy *p, pol_emit_fn emit, void *ctx);
/* Expands one trace command; returns 0 or what emit returned. */
int policy_expand_cmd(struct pol_state *s, const struct pol_cmd *c);
/* Feeds a flush or reset event. */
int policy_expand_event(struct pol_state *s, enum pol_event ev);

/* The policy event an event row's kind stands for (USER_ACCESS, SUSPEND,
 * RESET/INIT/POWER_ON, FLUSH; case-insensitive), or 0 for others. */
int policy_event_from_kind(const char *kind);

/* True if the kernel would protect this command with its HMAC session
 * (drivers/char/tpm/tpm2-cmd.c, trusted_tpm2.c). */
int policy_kernel_protects(uint32_t cc);
/* 1 when a command authorized with this kind (enum tpm_auth_kind) keeps its
 * recorded sessions under every policy: a policy session (PolicyPCR, ...)
 * has no password or HMAC equivalent (the object may have no userWithAuth),
 * so the presets leave e.g. a PCR-sealed key's Unseal alone. */
int policy_auth_kept(int auth_kind);

/* True for the commands the kernel sends before it registers its null key
 * (tpm2_probe, tpm2_auto_startup up to tpm2_sessions_init): Startup,
 * SelfTest, GetCapability of TPM properties or of the command table. Without
 * the command's bytes (cmd NULL) every GetCapability counts as such. A
 * kernel's command that is not one of these starts the policy's registration
 * (pol_cmd.kstartup). */
int policy_startup_cmd(uint32_t cc, const uint8_t *cmd, size_t len);

/* True for the first command a Linux kernel sends to the TPM it finds, where
 * a VM boot's firmware part ends: tpm2_probe's GetCapability(TPM_CAP_TPM_
 * PROPERTIES, TPM_PT_TOTAL_COMMANDS, 1) (tpm_tis and the other drivers that
 * probe the TPM's version), or, for CRB, which is not probed, the first
 * attempt of tpm2_do_selftest, SelfTest(fullTest=NO). SeaBIOS sends neither
 * (its SelfTest is a full one); OVMF sends SelfTest(NO) too, so with OVMF and
 * CRB the firmware part ends too early by this rule alone. */
int policy_kernel_first_cmd(const uint8_t *cmd, size_t len);

#endif
