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

/* Response codes (Part 2 6.6.3). */
#define TPM_RC_INITIALIZE   0x100u
#define TPM_RC_FAILURE	    0x101u
#define TPM_RC_COMMAND_SIZE 0x142u /* commandSize does not fit */
#define TPM_RC_NV_DEFINED   0x14Cu
#define TPM_RC_LOCALITY	    0x907u /* a locality the TPM does not take */

/* Algorithms (Part 2 6.3, TPM_ALG_ID). */
#define TPM_ALG_RSA	  0x0001
#define TPM_ALG_SHA1	  0x0004
#define TPM_ALG_AES	  0x0006
#define TPM_ALG_KEYEDHASH 0x0008
#define TPM_ALG_XOR	  0x000A
#define TPM_ALG_SHA256	  0x000B
#define TPM_ALG_SHA384	  0x000C
#define TPM_ALG_SHA512	  0x000D
#define TPM_ALG_NULL	  0x0010
#define TPM_ALG_SM3_256	  0x0012
#define TPM_ALG_ECDSA	  0x0018
#define TPM_ALG_ECC	  0x0023
#define TPM_ALG_SYMCIPHER 0x0025
#define TPM_ALG_SHA3_256  0x0027
#define TPM_ALG_SHA3_384  0x0028
#define TPM_ALG_SHA3_512  0x0029
#define TPM_ALG_CFB	  0x0043

/* ECC curves (Part 2 6.4, TPM_ECC_CURVE). */
#define TPM_ECC_NIST_P256 0x0003
#define TPM_ECC_NIST_P384 0x0004
#define TPM_ECC_NIST_P521 0x0005

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
