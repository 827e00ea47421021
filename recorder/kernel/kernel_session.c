/* record --kernel's recording between the attach and the trace's end
 * (recorder/kernel/kernel_rec.h): its first events, the loop that reads the
 * ring buffer, and the end (detach, drain, the record-stop event). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "db/writer.h"
#include "recorder/kernel/kernel_rec.h"
#include "recorder/record_session.h"
#include "recorder/recorder.h"

int kernel_trace_begin(struct kernel_trace *kt, struct kernel_rec *k, const char *early, char *err,
		       size_t errlen)
{
	struct recorder *rec = kt->rec;
	recorder_event(rec, "record-start", kernel_rec_describe(k), 0);
	/* The chip was registered (its null key made) before this trace began,
	 * unless the early-boot part below holds the registration. */
	if (!early) {
		recorder_event(rec, "kernel-attached",
			       "the kernel's TPM was registered before this trace began", 0);
		return 0;
	}
	int rc = kernel_early_import(kt, early, kernel_rec_attach_ns(k), err, errlen);
	if (rc)
		return rc;
	char d[160];
	snprintf(d, sizeof d, "%s: %" PRIu64 " commands before the eBPF part (partial)", early,
		 kt->early);
	recorder_event(rec, "early-boot", d, kt->early_client);
	return 0;
}

int kernel_trace_run(struct kernel_trace *kt, struct kernel_rec *k, struct record_session *s,
		     struct record_child *c)
{
	/* Fault injection (test_vm_kernel_load): the reader away this long
	 * before each read, as a recorder descheduled on a loaded machine, so
	 * that a small ring buffer fills and the BPF side drops. */
	const char *stall = getenv("TPMTRACE_FAULT_KERNEL_READER_STALL_MS");
	unsigned stall_ms = stall ? (unsigned)strtoul(stall, NULL, 10) : 0;
	for (;;) {
		if (stall_ms) {
			struct timespec ts = {stall_ms / 1000, (long)(stall_ms % 1000) * 1000000};
			nanosleep(&ts, NULL);
		}
		int n = kernel_rec_poll(k, 100, kernel_trace_record, kt);
		if (n < 0 && n != -EINTR)
			return n;
		if (record_session_stop_due(s, c))
			return 0;
	}
}

void kernel_trace_end(struct kernel_trace *kt, struct kernel_rec *k, const char *reason,
		      struct kernel_rec_counts *kcn, char *summary, size_t len)
{
	/* Detach (the kernel as it was), then read what is still in the ring
	 * buffer: every record made before the probes went is kept. Read the
	 * other way round, a record made between the last read and the detach
	 * was lost, uncounted (a span's end after its commands, say). */
	kernel_rec_detach(k);
	while (kernel_rec_poll(k, 0, kernel_trace_record, kt) > 0)
		;
	kernel_rec_counts(k, kcn);
	kernel_trace_summary(kt, summary, len);
	char detail[2300];
	snprintf(detail, sizeof detail,
		 "%s; %" PRIu64 " transmissions, %" PRIu64 " dropped by the ring buffer, %" PRIu64
		 " returns without their entry\n%s",
		 reason, kt->commands, kcn->dropped, kcn->lost_returns, summary);
	recorder_stop_event(kt->rec, "record-stop", detail);
	/* trace.dropped counts what the writer could not store; the ring
	 * buffer's drops are commands the kernel sent that never reached the
	 * writer: added to it, so that recorded + dropped is every
	 * transmission. Through the writer's open database: after a switch of
	 * root the path may lead nowhere. */
	db_writer_add_dropped(kt->rec->w, kcn->dropped);
}
