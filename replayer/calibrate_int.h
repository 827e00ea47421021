/* tpmtrace calibrate's private header (replayer/ only; the interface is
 * calibrate.h): the state of one run (struct cal) and the steps of the kinds
 * measured, which calibrate.c's table of kinds names. */
#ifndef TPMTRACE_CALIBRATE_INT_H
#define TPMTRACE_CALIBRATE_INT_H

#include "replayer/calibrate.h"

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "model/tpm/constants.h"
#include "model/tpm/decode.h"
#include "model/tpm/session.h"
#include "model/tpm/wire.h"
#include "recorder/transport/swtpm_spawn.h"
#include "recorder/transport/tpmconn.h"

#define CAL_MAX_RETRIES	     50
#define CAL_PCR		     16 /* the debug PCR: resettable, measured by nothing */
#define CAL_NV_BASE	     0x01500F00u
#define CAL_MAX_HANDLES	     32
#define CAL_MAX_BLOB	     1024
#define CAL_MAX_NV	     2
#define ATTR_SEALED	     0x00000052u /* fixedTPM | fixedParent | userWithAuth */
#define ATTR_SIGN	     0x00040072u /* ... | sensitiveDataOrigin | sign */
#define ATTR_STORAGE_PRIMARY 0x00030072u /* ... | restricted | decrypt */
/* TPMA_NV: OWNERWRITE | OWNERREAD | NO_DA (Part 2 13.4) */
#define NV_ATTRS 0x02020002u

struct blob {
	uint8_t b[CAL_MAX_BLOB]; /* a TPM2B as sent: size and bytes */
	size_t len;
};

struct cal {
	const struct calibrate_opts *o;
	struct calibrate_result *res;
	struct tpmconn t;
	struct sess_crypto cr;
	int cr_ok;
	struct swtpm_child sw;
	int spawned;
	uint64_t last_ns;
	uint32_t handles[CAL_MAX_HANDLES]; /* transient objects and sessions to flush */
	unsigned n_handles;
	uint8_t auth;		 /* enum tpm_auth_kind of the kind being measured */
	uint32_t nv[CAL_MAX_NV]; /* NV indices defined, 0 = free slot */
	uint32_t nv_index, nv_tmp;
	struct tpm_name nv_name, nv_tmp_name;
	struct tpm_ecc_key nk; /* the kernel's null key: parent of everything */
	uint8_t nk_ctx[2048];
	size_t nk_ctx_len;
	struct sess hs; /* salted HMAC session for PCR_Extend */
	uint32_t ps;	/* policy session */
	struct blob seal_priv, seal_pub, sig_priv, sig_pub, tmp_priv, tmp_pub;
	struct tpm_name seal_name, sig_name;
	uint32_t seal_h, sig_h, tmp_h;
	uint32_t counter;
	/* Test-only fault (TPMTRACE_FAULT_CALIBRATE_AUTH_PASSWORD set): the
	 * kinds authorised through auth_send in an HMAC session are measured
	 * with a password instead, their entries priced from the wrong form;
	 * the calibration test must catch it. */
	int fault_auth_pw;
	char *err;
	size_t errlen;
};

/* calibrate_ops.c: helpers and the steps of the kinds (begin, pre, op, post, end) */
void rp_cal_track(struct cal *k, uint32_t h);
void rp_cal_cmd_start(struct cal *k, struct wire_wr *w, uint32_t cc, const uint32_t *h, unsigned nh,
		      unsigned npw);
void rp_cal_rsp_params(struct cal *k, uint32_t cc, struct wire_rd *r, uint32_t *handle);
int rp_cal_op_getcap(struct cal *k);
int rp_cal_op_getrandom(struct cal *k);
int rp_cal_op_pcrread(struct cal *k);
int rp_cal_op_extend_pw(struct cal *k);
int rp_cal_op_extend_hmac(struct cal *k);
int rp_cal_op_sas_unsalted(struct cal *k);
int rp_cal_op_sas_salted(struct cal *k);
int rp_cal_flush_tmp(struct cal *k);
int rp_cal_load_nk(struct cal *k);
int rp_cal_op_ctxsave(struct cal *k);
int rp_cal_op_cp_nullkey(struct cal *k);
int rp_cal_op_cp_rsa(struct cal *k);
int rp_cal_op_cp_ecc(struct cal *k);
int rp_cal_op_readpublic(struct cal *k);
int rp_cal_create(struct cal *k, int sign, struct blob *priv, struct blob *pub);
int rp_cal_op_create(struct cal *k);
int rp_cal_op_create_ecc(struct cal *k);
int rp_cal_op_load(struct cal *k);
int rp_cal_begin_unseal(struct cal *k);
int rp_cal_op_unseal(struct cal *k);
int rp_cal_end_unseal(struct cal *k);
int rp_cal_begin_policy(struct cal *k);
int rp_cal_op_policypcr(struct cal *k);
int rp_cal_op_policydigest(struct cal *k);
int rp_cal_end_policy(struct cal *k);
int rp_cal_nv_undefine(struct cal *k, uint32_t index, const struct tpm_name *name);
int rp_cal_begin_nvdef(struct cal *k);
int rp_cal_op_nvdefine(struct cal *k);
int rp_cal_post_nvundefine(struct cal *k);
int rp_cal_pre_nvdefine(struct cal *k);
int rp_cal_op_nvundefine(struct cal *k);
int rp_cal_begin_nv(struct cal *k);
int rp_cal_op_nvwrite(struct cal *k);
int rp_cal_op_nvread(struct cal *k);
int rp_cal_op_nvreadpublic(struct cal *k);
int rp_cal_end_nv(struct cal *k);
int rp_cal_begin_sign(struct cal *k);
int rp_cal_op_sign(struct cal *k);
int rp_cal_op_quote(struct cal *k);
int rp_cal_end_sign(struct cal *k);

#endif
