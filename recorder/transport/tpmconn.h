/* A blocking raw transport to a TPM through tss2-tctildr, and the few raw
 * commands the session policies need (TPM 2.0 Part 3), built with model/tpm/wire.h.
 *
 * Return convention: 0, -errno (host or transport error; the TSS2_RC of a
 * transport failure is kept in conn->tss_rc), or a positive TPM response code. */
#ifndef TPMTRACE_TPMCONN_H
#define TPMTRACE_TPMCONN_H

#include <stddef.h>
#include <stdint.h>

#include "model/tpm/decode.h"
#include "model/tpm/session.h"

/* Called after every exchange (also a failed one: rc < 0, rsp_len 0), with
 * the monotonic times around it: how the replayer times and stores each
 * command, those the helpers below send included. */
typedef void (*tpmconn_xfer_fn)(void *arg, const uint8_t *cmd, size_t len, const uint8_t *rsp,
				size_t rsp_len, uint64_t t_submit, uint64_t t_done, int rc);

struct emulator;

struct tpmconn {
	void *tcti;	      /* TSS2_TCTI_CONTEXT */
	struct emulator *emu; /* latency injection (model/emulate.h), or NULL */
	uint32_t tss_rc;
	tpmconn_xfer_fn on_xfer; /* optional; set after tpmconn_open */
	void *on_xfer_arg;
	/* With emu: 1 when the command being sent is held apart (its lateness
	 * neither owed nor made up, emulate_hold), as a response answered
	 * RETRY, YIELDED or TESTING is; optional, on_xfer_arg. */
	int (*emu_apart)(void *arg);
	/* Resubmissions of a command the TPM answered TPM_RC_RETRY, YIELDED or
	 * TESTING (Part 2 6.6.3: it did not start the command), as a TSS does:
	 * at most this many (0 after tpmconn_open: the answer is returned as it
	 * is); each attempt is an exchange of its own (on_xfer), counted in
	 * retries. */
	unsigned max_retries;
	uint64_t retries;
	uint8_t cmd[TPM_MAX_MESSAGE];
	uint8_t rsp[TPM_MAX_MESSAGE];
	size_t rsp_len;
};

/* The kernel's null key (Part 1 C.6, TCG "H" ECC template with empty unique):
 * what CreatePrimary/ReadPublic give back that the sessions need. */
struct tpm_ecc_key {
	uint32_t handle;
	struct tpm_name name;
	uint8_t x[32], y[32];
	uint16_t xlen, ylen;
	uint16_t name_alg;
};

/* conf: a TCTI string as for Tss2_TctiLdr_Initialize, e.g.
 * "swtpm:path=/tmp/x/s.sock" or "device:/dev/tpmrm0". */
int tpmconn_open(struct tpmconn *t, const char *conf);
void tpmconn_close(struct tpmconn *t);

/* Sends cmd (len bytes) and waits for the whole response into t->rsp (with
 * t->emu set: and until the emulated latency has passed), resubmitting it
 * up to t->max_retries times while the TPM answers a retry-class warning.
 * Returns 0 or -errno; the TPM's response code is otherwise not looked at. */
int tpmconn_xfer(struct tpmconn *t, const uint8_t *cmd, size_t len);

/* The response code of the response in t->rsp (-EPROTO if too short). */
int tpmconn_rc(const struct tpmconn *t);

/* Commands marshalled by the caller, in t->cmd: begun with tag and code (the
 * size is patched when sent), then handles, an authorization area and the
 * parameters written to w. Sending returns 0 only if the TPM answered
 * TPM_RC_SUCCESS, else -errno or its response code. */
struct wire_wr;
void tpmconn_cmd_begin(struct tpmconn *t, struct wire_wr *w, uint16_t tag, uint32_t cc);
int tpmconn_cmd_send(struct tpmconn *t, struct wire_wr *w);
/* An authorization area of n empty password sessions (Part 1 19.6.5:
 * TPM_RS_PW, empty nonce, attributes 0, empty password). */
void tpmconn_wr_pw_auth(struct wire_wr *w, unsigned n);

/* The TPM2B_PUBLIC of the kernel's null key: the TCG "H" template for ECC
 * P-256 storage keys (Provisioning Guidance; restricted decrypt, AES-128-CFB,
 * noDA, fixedTPM/fixedParent, sensitiveDataOrigin, userWithAuth) with the
 * point x, y as unique (empty, xl = yl = 0, in a CreatePrimary). */
void tpmconn_wr_null_key_public(struct wire_wr *w, const uint8_t *x, size_t xl, const uint8_t *y,
				size_t yl);

/* TPM2_CreatePrimary (Part 3 24.1) of the kernel's null key in `hierarchy`
 * (TPM_RH_NULL for the kernel) with an empty password session; fills key (the
 * Name is computed here and compared with the one the TPM returns). */
int tpmconn_create_null_primary(struct tpmconn *t, struct sess_crypto *c, uint32_t hierarchy,
				struct tpm_ecc_key *key);

/* TPM2_ContextSave (Part 3 28.2): the TPMS_CONTEXT bytes go to blob. */
int tpmconn_context_save(struct tpmconn *t, uint32_t handle, uint8_t *blob, size_t cap,
			 size_t *len);
/* TPM2_ContextLoad (Part 3 28.3). */
int tpmconn_context_load(struct tpmconn *t, const uint8_t *blob, size_t len, uint32_t *handle);
/* TPM2_FlushContext (Part 3 28.4). */
int tpmconn_flush(struct tpmconn *t, uint32_t handle);

/* TPM2_ReadPublic (Part 3 12.4): the key's point and Name (computed here and
 * checked against the TPM's). Only ECC keys. */
int tpmconn_read_public(struct tpmconn *t, struct sess_crypto *c, uint32_t handle,
			struct tpm_ecc_key *key);

/* TPM2_StartAuthSession (Part 3 11.1): HMAC session, salted to the loaded ECC
 * key `tpm_key` (ECDH, Part 1 C.6.1), bind TPM_RH_NULL, AES-128-CFB, SHA-256.
 * On success s is ready with s->attrs = 0. */
int tpmconn_start_salted(struct tpmconn *t, struct sess_crypto *c,
			 const struct tpm_ecc_key *tpm_key, struct sess *s);

/* The per-command prologue of Linux 6.10's HMAC sessions: ContextLoad of the
 * null key's saved context (ctx), StartAuthSession salted to it, FlushContext
 * of the loaded key. key: the null key (its handle is replaced by the loaded
 * one). Returns 0, a TPM rc, or -errno; the key is flushed in any case. */
int tpmconn_kernel_session(struct tpmconn *t, struct sess_crypto *c, const struct tpm_ecc_key *key,
			   const uint8_t *ctx, size_t ctx_len, struct sess *s);

/* Sends a command built by sess_cmd_build (in t->cmd, len bytes) and opens the
 * response: see sess_rsp_open. */
int tpmconn_session_cmd(struct tpmconn *t, struct sess *s, struct sess_crypto *c, uint32_t cc,
			const uint32_t *handles, const struct tpm_name *names, unsigned n_handles,
			const uint8_t *auth, size_t auth_len, const uint8_t *params, size_t plen,
			uint8_t **rparams, size_t *rplen);

/* TPM2_PCR_Extend (Part 3 22.2) of `pcr` with one SHA-256 digest, authorised by
 * session s (attributes s->attrs); the response HMAC is verified. */
int tpmconn_pcr_extend_sha256(struct tpmconn *t, struct sess *s, struct sess_crypto *c,
			      uint32_t pcr, const uint8_t digest[32]);

/* TPM2_GetRandom (Part 3 16.1) of n bytes (at most 32 here) through session s
 * (the kernel uses encrypt | continueSession); out receives the decrypted bytes. */
int tpmconn_get_random(struct tpmconn *t, struct sess *s, struct sess_crypto *c, uint16_t n,
		       uint8_t *out, uint16_t *got);

/* TPM2_PCR_Read (Part 3 22.4), no session: one PCR of one bank. */
int tpmconn_pcr_read(struct tpmconn *t, uint16_t hash_alg, uint32_t pcr, uint8_t *out,
		     uint16_t *len);

#endif
