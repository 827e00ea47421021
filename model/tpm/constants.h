/* The TPM 2.0 constants tpmtrace uses, in one place (TPM 2.0 Part 2; the
 * section of each group is given). Command codes are in tpm_cc.def. */
#ifndef TPMTRACE_CONSTANTS_H
#define TPMTRACE_CONSTANTS_H

/* Structure tags (Part 2 6.9, TPM_ST). */
#define TPM_ST_RSP_COMMAND 0x00C4 /* TPM 1.2 style tag, used for some errors */
#define TPM_ST_NO_SESSIONS 0x8001
#define TPM_ST_SESSIONS	   0x8002
#define TPM_ST_CREATION	   0x8021
#define TPM_ST_HASHCHECK   0x8024

/* TPM2_Startup's startupType (Part 2 6.5, TPM_SU), and the command's length
 * (tpm_startup_cmd). */
#define TPM_SU_CLEAR	 0x0000
#define TPM_SU_STATE	 0x0001
#define TPM_STARTUP_SIZE 12

/* Message limits: the header, the kernel's buffer (TPM_BUFSIZE), sessions
 * per command (Part 1 18.7). */
#define TPM_HEADER_SIZE	 10
#define TPM_MAX_MESSAGE	 4096
#define TPM_MAX_SESSIONS 3

/* Handles (Part 2 7.4, TPM_RH; TPM_RS_PW the password session). */
#define TPM_RH_OWNER	0x40000001u
#define TPM_RH_NULL	0x40000007u
#define TPM_RS_PW	0x40000009u
#define TPM_RH_PLATFORM 0x4000000Cu

/* Response codes (Part 2 6.6.3): tpm_rc.def. Algorithms (Part 2 6.3,
 * TPM_ALG_ID): tpm_alg.def. Capabilities (Part 2 6.12, TPM_CAP):
 * tpm_cap.def. Properties (Part 2 6.13, TPM_PT): tpm_pt.def. */
enum {
#define TPM_RC(name, value) TPM_RC_##name = value,
#include "model/tpm/tpm_rc.def"
#undef TPM_RC
};

/* TPM_RC_RETRY, YIELDED, TESTING (Part 2 6.6.3): the TPM did not start the
 * command, which is sent again with the same bytes; its sessions are as they
 * were before it. */
static inline int tpm_rc_is_retry(unsigned rc)
{
	return rc == TPM_RC_RETRY || rc == TPM_RC_YIELDED || rc == TPM_RC_TESTING;
}

/* What an algorithm is used as (tpm_alg.def's class column). */
enum tpm_alg_class {
	TPM_ALGC_HASH = 1,
	TPM_ALGC_SYM = 2,
	TPM_ALGC_MODE = 4,
	TPM_ALGC_SCHEME = 8,
};

enum {
#define TPM_ALG(name, id, digest, class, profile) TPM_ALG_##name = id,
#include "model/tpm/tpm_alg.def"
#undef TPM_ALG
};

/* A hash's digest size by name (tpm_alg.def's digest column): TPM_DIGEST_SHA256. */
enum {
#define TPM_ALG(name, id, digest, class, profile) TPM_DIGEST_##name = digest,
#include "model/tpm/tpm_alg.def"
#undef TPM_ALG
};

enum {
#define TPM_CAP(name, value) TPM_CAP_##name = value,
#include "model/tpm/tpm_cap.def"
#undef TPM_CAP
};

enum {
#define TPM_PT(name, value) TPM_PT_##name = value,
#include "model/tpm/tpm_pt.def"
#undef TPM_PT
};

/* ECC curves (Part 2 6.4, TPM_ECC_CURVE): tpm_ecc.def. */
enum {
#define TPM_ECC(name, id, profile) TPM_ECC_##name = id,
#include "model/tpm/tpm_ecc.def"
#undef TPM_ECC
};

/* Session types (Part 2 6.11, TPM_SE). */
#define TPM_SE_HMAC   0x00
#define TPM_SE_POLICY 0x01
#define TPM_SE_TRIAL  0x03

/* Session attributes (Part 2 8.4, TPMA_SESSION). tpm2-tss's tss2_tpm2_types.h
 * defines the TPMA_ names too, with the same values: a file that includes it
 * first keeps those. */
#ifndef TPMA_SESSION_CONTINUESESSION
#define TPMA_SESSION_CONTINUESESSION 0x01
#define TPMA_SESSION_AUDITEXCLUSIVE  0x02
#define TPMA_SESSION_AUDITRESET	     0x04
#define TPMA_SESSION_DECRYPT	     0x20
#define TPMA_SESSION_ENCRYPT	     0x40
#define TPMA_SESSION_AUDIT	     0x80
#endif

/* Object attributes (Part 2 8.3, TPMA_OBJECT). */
#ifndef TPMA_OBJECT_SENSITIVEDATAORIGIN
#define TPMA_OBJECT_SENSITIVEDATAORIGIN 0x20u
#endif

#endif
