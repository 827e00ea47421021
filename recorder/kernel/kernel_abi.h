/* What the eBPF side of `record --kernel` (tpm_kernel.bpf.c) hands to user
 * space (kernel_rec.c) through its ring buffer: one record per transmission
 * on the TPM driver's tpm_transmit() and one per timed kernel function (a
 * span). Shared by both sides; the BPF side defines the fixed-width types
 * before it includes this file. */
#ifndef TPMTRACE_KERNEL_ABI_H
#define TPMTRACE_KERNEL_ABI_H

#define KREC_BUF 4096 /* the driver's buffer: a page (tpm_buf), TPM_BUFSIZE */

enum krec_kind {
	KREC_CMD = 1,  /* a command and its response */
	KREC_SPAN = 2, /* a timed kernel function (session set-up, HMAC) */
};

/* The origin of a transmission, from the kernel call path (probes on the
 * callers push and pop it per task). */
enum krec_origin {
	KORG_KERNEL = 0, /* a kernel caller no probe names */
	KORG_IMA,
	KORG_HWRNG,
	KORG_TRUSTED,
	KORG_SESSION,  /* the kernel's own HMAC sessions and its null key */
	KORG_CHIPINIT, /* probe, start-up, self-test */
	KORG_USER,     /* user space through /dev/tpm0 or /dev/tpmrm0 */
	KORG_RMSWAP,   /* the resource manager's swaps around a user command */
	KORG__COUNT
};

/* The probe cookie of a caller probe: origin | flags. */
#define KCOOKIE_STRONG	   0x100u /* wins over the origin of an outer caller */
#define KCOOKIE_SPAN	   0x200u /* also timed as a span (id in bits 16..23) */
#define KCOOKIE_SPAN_ID(c) (((c) >> 16) & 0xffu)

enum krec_span {
	KSPAN_START_AUTH = 1, /* tpm2_start_auth_session */
	KSPAN_FILL_HMAC,      /* tpm_buf_fill_hmac_session */
	KSPAN_CHECK_HMAC,     /* tpm_buf_check_hmac_response */
	KSPAN_SESSIONS_INIT,  /* tpm2_sessions_init (null key at registration) */
	KSPAN__COUNT
};

/* The callers whose probes push an origin on entry and pop it on return:
 * X(function, cookie). One table for both sides: the loader attaches a
 * kprobe pair with the cookie, or the fentry/fexit pair the BPF side
 * generates from it with the cookie built in (fe_FUNCTION, fx_FUNCTION). */
#define KSPAN_COOKIE(id) (KCOOKIE_SPAN | ((unsigned)(id) << 16))
#define KCALLERS(X)                                                                                \
	X(tpm2_flush_space, KORG_RMSWAP | KCOOKIE_STRONG)                                          \
	X(tpm2_start_auth_session, KORG_SESSION | KCOOKIE_STRONG | KSPAN_COOKIE(KSPAN_START_AUTH)) \
	X(tpm2_end_auth_session, KORG_SESSION | KCOOKIE_STRONG)                                    \
	X(tpm2_sessions_init, KORG_SESSION | KCOOKIE_STRONG | KSPAN_COOKIE(KSPAN_SESSIONS_INIT))   \
	X(tpm_buf_fill_hmac_session, KORG_KERNEL | KSPAN_COOKIE(KSPAN_FILL_HMAC))                  \
	X(tpm_buf_check_hmac_response, KORG_KERNEL | KSPAN_COOKIE(KSPAN_CHECK_HMAC))               \
	X(ima_add_template_entry, KORG_IMA)                                                        \
	X(ima_calc_boot_aggregate, KORG_IMA)                                                       \
	X(tpm_pcr_extend, KORG_IMA)                                                                \
	X(tpm_hwrng_read, KORG_HWRNG)                                                              \
	X(trusted_instantiate, KORG_TRUSTED)                                                       \
	X(trusted_update, KORG_TRUSTED)                                                            \
	X(tpm2_seal_trusted, KORG_TRUSTED)                                                         \
	X(tpm2_unseal_trusted, KORG_TRUSTED)                                                       \
	X(tpm_chip_register, KORG_CHIPINIT)                                                        \
	X(tpm2_auto_startup, KORG_CHIPINIT)                                                        \
	X(tpm_tis_core_init, KORG_CHIPINIT)                                                        \
	X(tpm2_probe, KORG_CHIPINIT)

/* The callers' code, for a transmission whose task has no origin pushed (a
 * call under way before the probes attached): the return addresses on its
 * kernel stack are looked up in these ranges, [start, end) of each caller
 * probe's function, filled by the loader from /proc/kallsyms. The innermost
 * strong caller wins, else the outermost other one (the push rule). */
#define KRANGE_MAX 32
#define KSTACK_MAX 24
struct krange {
	uint64_t start, end;
	uint32_t cookie;
	uint32_t pad;
};
struct kranges {
	uint32_t n;
	uint32_t pad;
	struct krange r[KRANGE_MAX];
};

/* The counters map: what the BPF side counted. */
enum { KCNT_DROPPED = 0, KCNT_SENT, KCNT_LOST, KCNT__COUNT };
/* The config map's flags. */
#define KCONF_DISCARD 1u /* count, send nothing (attached but discarding) */

/* node of a user-space command */
enum { KNODE_NONE = 0, KNODE_TPM = 1, KNODE_TPMRM = 2 };

struct krec_hdr {
	uint32_t kind;	 /* enum krec_kind */
	uint32_t origin; /* enum krec_origin */
	uint32_t tgid;	 /* the process: the caller's; for user space the writer's */
	uint32_t tid;
	int32_t chip; /* tpm_chip.dev_num; -1: not known (no BTF) */
	uint32_t cmd_len;
	uint32_t rsp_len;
	uint32_t node;		 /* KNODE_* */
	int64_t ret;		 /* tpm_transmit's return: response length or -errno */
	uint64_t t_start, t_end; /* CLOCK_MONOTONIC ns */
	uint64_t wait_ns;	 /* KREC_CMD: waiting for the chip (tpm_try_get_ops) before it */
	uint32_t span;		 /* KREC_SPAN: enum krec_span */
	uint32_t n_tx;		 /* KREC_SPAN: transmissions inside */
	uint64_t tx_ns;		 /* KREC_SPAN: their time */
	char comm[16];
};

/* A record: the header, then cmd_len command bytes, then rsp_len response
 * bytes. The room is twice what they need: the BPF side's offsets are
 * masked to 13 bits, which the verifier can follow. */
struct krec {
	struct krec_hdr h;
	uint8_t data[4 * KREC_BUF];
};

#endif
