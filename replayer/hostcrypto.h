/* Host-side crypto cost measured on this host with tpmtrace's own session
 * code (model/tpm/session.h), for `tpmtrace predict` (model/predict.h,
 * struct pred_host).
 *
 * Each figure is the time per call of the session functions the replayer
 * uses for that step, with SHA-256 sessions and AES-128-CFB as the kernel and
 * tpm2-tools use them; the minimum over a few short batches, so that another
 * process taking the CPU for a moment does not count (the same reasoning as
 * tests/bench/bench_session.c, which measures the whole sequence against a
 * TPM). The whole measurement takes a few milliseconds.
 *
 * Return convention: 0 or -errno (-EIO: an OpenSSL failure). */
#ifndef TPMTRACE_HOSTCRYPTO_H
#define TPMTRACE_HOSTCRYPTO_H

#include "model/predict.h"

int rp_host_crypto_measure(struct pred_host *h);

#endif
