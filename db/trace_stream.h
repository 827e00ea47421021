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

/* Returns 0, -ENOENT (no such trace), -EIO with err set, or what a callback
 * returned. *n_cmds counts the commands streamed. Origin: a client whose comm
 * or peer is "kernel" is the kernel; in a trace that has such a client, a
 * client with a pid is userspace; everything else is unknown (priced as the
 * kernel's, as replay does). */
int trace_stream(sqlite3 *db, int64_t trace_id, const struct trace_stream_ops *ops, void *ctx,
		 uint64_t *n_cmds, char *err, size_t errlen);

/* The same into a predictor (model/predict.h): every command to
 * predict_cmd, every event that is a policy event to predict_event. */
struct predictor;
int trace_stream_predict(sqlite3 *db, int64_t trace_id, struct predictor *pr, uint64_t *n_cmds,
			 char *err, size_t errlen);

#endif
