/* Streams one trace's commands and events in seq order, without loading the
 * trace into memory (two cursors merged by seq). */
#ifndef TPMTRACE_TRACE_STREAM_H
#define TPMTRACE_TRACE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "model/policy.h"

struct trace_stream_ops {
	/* latency_ns < 0 when not recorded; times 0 when unknown. */
	int (*cmd)(void *ctx, const struct pol_cmd *c, uint64_t t_submit_ns, uint64_t t_done_ns,
		   int64_t latency_ns);
	int (*event)(void *ctx, const char *kind, const char *detail);
};

/* The origin rule, the one predict, replay, stats and report use (enum
 * pol_origin), from a client row and whether the trace names the kernel or
 * the firmware among its clients:
 *  - comm or peer "firmware" (or naming a BIOS: bios, uefi, ovmf) -> firmware
 *  - comm or peer "kernel" or "ima" -> kernel; with peer "hwrng" it is the
 *    kernel's TPM hwrng (*hwrng = 1)
 *  - comm or peer "userspace" -> userspace
 *  - a client with a pid, in a trace that names the kernel or the firmware ->
 *    userspace (its commands went through /dev/tpm*; elsewhere a pid is the
 *    process that recorded or replayed, and its commands are priced as the
 *    kernel's: the question is what they would cost if the kernel sent them)
 *  - anything else (e.g. "guest": vm-record's commands after the firmware's,
 *    kernel and user space not told apart) -> unknown, treated as the
 *    kernel's.
 * hwrng may be NULL. */
int trace_client_origin(const char *comm, const char *peer, int has_pid, int trace_names_kernel,
			int *hwrng);

/* Client ids are small; origins of clients beyond this are unknown. */
#define TRACE_MAX_CLIENTS 65536
/* Bit set in a trace_origins_load() entry for the kernel's hwrng client. */
#define TRACE_ORIGIN_HWRNG 0x80

/* The origin of every client of a trace, indexed by client id (TRACE_MAX_CLIENTS
 * entries: enum pol_origin, | TRACE_ORIGIN_HWRNG); *out is freed by the caller.
 * Returns 0, -ENOMEM or -EIO. */
int trace_origins_load(sqlite3 *db, int64_t trace_id, uint8_t **out);

/* Returns 0, -ENOENT (no such trace), -EIO with err set, or what a callback
 * returned. *n_cmds counts the commands streamed. The origin of each command
 * is its client's (trace_client_origin); kstartup comes from the command's
 * bytes when stored (policy_startup_cmd). */
/* Streams the trace's commands only: those tpmtrace sent itself (flag 32)
 * are left out, as in every figure (db/stats.h). */
int trace_stream(sqlite3 *db, int64_t trace_id, const struct trace_stream_ops *ops, void *ctx,
		 uint64_t *n_cmds, char *err, size_t errlen);

/* The same into a predictor (model/predict.h): every command to
 * predict_cmd, every event that is a policy event to predict_event. */
struct predictor;
int trace_stream_predict(sqlite3 *db, int64_t trace_id, struct predictor *pr, uint64_t *n_cmds,
			 char *err, size_t errlen);

#endif
