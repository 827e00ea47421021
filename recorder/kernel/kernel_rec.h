/* record --kernel: the eBPF recorder on the kernel TPM driver's transmit
 * path (tpm_kernel.bpf.c), loaded, attached and read here, and every
 * transmission it reports written through the recording core (recorder.h):
 * the same writer, payload modes and redaction as every recorder. */
#ifndef TPMTRACE_KERNEL_REC_H
#define TPMTRACE_KERNEL_REC_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/kernel/kernel_abi.h"
#include "recorder/recorder.h"

struct kernel_rec;

struct kernel_rec_cfg {
	const char *transmit_sym; /* NULL: tpm_transmit */
	int discard;		  /* attached, records counted and not sent (tools/bench) */
	uint32_t ring_bytes;	  /* 0: 1 MiB */
};

/* Checks what the kernel offers (privileges, the bpf syscall, BTF, the
 * probed function), loads and attaches. Nothing is created. Returns 0, or
 * -errno with err saying what is missing and what was tried. */
int kernel_rec_open(struct kernel_rec **out, const struct kernel_rec_cfg *c, char *err,
		    size_t errlen);

/* How it is attached: "tpm_transmit (CO-RE), 17 of 21 caller probes; not
 * found: ..." */
const char *kernel_rec_describe(const struct kernel_rec *k);

typedef void (*kernel_rec_fn)(void *ctx, const struct krec_hdr *h, const uint8_t *data);

/* Waits up to timeout_ms for records (the BPF side wakes the wait only when
 * its ring buffer is a quarter full), then hands each there is to fn.
 * Returns the number handled or -errno (-EINTR: a signal). */
int kernel_rec_poll(struct kernel_rec *k, int timeout_ms, kernel_rec_fn fn, void *ctx);

struct kernel_rec_counts {
	uint64_t sent, dropped, lost_returns;
};
void kernel_rec_counts(const struct kernel_rec *k, struct kernel_rec_counts *c);

/* Removes every probe: no record is made after it returns (a kprobe's
 * removal waits for the handlers running), and what they made is still in
 * the ring buffer for kernel_rec_poll. */
void kernel_rec_detach(struct kernel_rec *k);

/* Detaches and unloads: the kernel as it was. */
void kernel_rec_close(struct kernel_rec *k);

/* The records into a trace. */
struct kernel_origin_stats {
	uint64_t n, lat_ns, wait_ns, max_wait_ns;
};
struct kernel_span_stats {
	uint64_t n, ns, tx_ns, n_tx;
};
#define KERNEL_CLIENTS 512
struct kernel_trace {
	struct recorder *rec;
	struct {
		uint32_t key_a, key_b; /* origin | node << 8 | chip << 16, tgid */
		uint32_t id;
	} clients[KERNEL_CLIENTS];
	unsigned n_clients;
	uint64_t commands;
	struct kernel_origin_stats org[KORG__COUNT];
	struct kernel_span_stats span[KSPAN__COUNT];
	uint64_t wait_event_ns; /* waits at least this long get an event (0: none) */
	uint32_t early_client;	/* the client of the early-boot commands, 0: none yet */
	uint64_t early;		/* early-boot commands merged */
};

void kernel_trace_init(struct kernel_trace *t, struct recorder *rec);
/* A kernel_rec_fn: ctx is a struct kernel_trace. */
void kernel_trace_record(void *ctx, const struct krec_hdr *h, const uint8_t *data);

const char *kernel_origin_name(unsigned origin);
const char *kernel_span_name(unsigned span);

/* The summary of a recording, one line per origin and span kind, into buf
 * (the record-stop event and what record --kernel prints). */
void kernel_trace_summary(const struct kernel_trace *t, char *buf, size_t len);

/* The early-boot way: the kernel command-line words that trace every
 * tpm_transmit from boot on (kprobe events, CLOCK_MONOTONIC), and their text
 * output (/sys/kernel/tracing/trace) merged into the trace: each command
 * that started before before_ns, with its leading 64 bytes (kept with
 * --payloads full only), its times and no response code, flag partial,
 * client `kernel` / `early-boot`. Returns 0 or -errno with err set. */
const char *kernel_early_cmdline(void);
int kernel_early_import(struct kernel_trace *t, const char *path, uint64_t before_ns, char *err,
			size_t errlen);

/* db_mono_ns() just before tpm_transmit's probe was attached. */
uint64_t kernel_rec_attach_ns(const struct kernel_rec *k);

struct record_session;
struct record_child;
/* A recording's first events: how the recorder is attached, and with early
 * (--early FILE) the early-boot way's commands merged ahead of the eBPF part.
 * 0, or -errno with err set. */
int kernel_trace_begin(struct kernel_trace *kt, struct kernel_rec *k, const char *early, char *err,
		       size_t errlen);
/* Reads the ring buffer into kt until the session's stop signals say to stop
 * (record_session_stop_due: the child c ended, or a stop signal). 0, or the
 * ring buffer's -errno. */
int kernel_trace_run(struct kernel_trace *kt, struct kernel_rec *k, struct record_session *s,
		     struct record_child *c);
/* The end: the probes detached, what is left in the ring buffer read, the
 * counts in kcn, the summary in summary, the record-stop event (reason
 * first) and the ring buffer's drops added to the trace's. */
void kernel_trace_end(struct kernel_trace *kt, struct kernel_rec *k, const char *reason,
		      struct kernel_rec_counts *kcn, char *summary, size_t len);

#endif
