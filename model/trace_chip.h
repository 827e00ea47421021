/* The TPM a trace was recorded on, as its own GetCapability answers name it
 * (TPM_PT_MANUFACTURER, _VENDOR_STRING_1..4, _FIRMWARE_VERSION_1 and _2), and
 * the shipped profile of that chip: what predict uses when no --profile is
 * given (docs/profiles.md, "The trace's own chip") and what push stores as the
 * trace's TPM (docs/fleet.md). */
#ifndef TPMTRACE_TRACE_CHIP_H
#define TPMTRACE_TRACE_CHIP_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct trace_chip {
	char manufacturer[8]; /* "IFX", "STM" (blanks trimmed); "" when not answered */
	char vendor[20];      /* TPM_PT_VENDOR_STRING_1..4 joined ("SLB9670"), NULs dropped */
	char firmware[48];    /* "7.85.17.51968" as TPMScan writes it; "" when not answered */
	uint64_t answers;     /* GetCapability responses read */
};

/* Reads the properties every stored GetCapability(TPM_PROPERTIES) response
 * of trace_id gives. Returns 0 (c->manufacturer "" when none said), or -EIO
 * with err set. */
int trace_chip_load(sqlite3 *db, int64_t trace_id, struct trace_chip *c, char *err, size_t errlen);

/* The same read one command at a time, for a caller that reads a trace's
 * commands anyway (push: the rows it sends): zeroed, then every command of
 * the trace given to trace_chip_add in seq order, then trace_chip_end gives
 * what trace_chip_load would. */
struct trace_chip_reader {
	uint32_t v[8]; /* TPM_PT_MANUFACTURER .. TPM_PT_FIRMWARE_VERSION_2 */
	unsigned have; /* bit i: v[i] answered */
	uint64_t answers;
};
/* A command's code and response (NULL: none stored); only the responses of
 * GetCapability are read. */
void trace_chip_add(struct trace_chip_reader *r, uint32_t cc, const void *rsp, size_t n);
void trace_chip_end(const struct trace_chip_reader *r, struct trace_chip *c);

/* The shipped profile of that manufacturer and firmware (the one with the
 * most entries when several are): 0 with its name, or -ENOENT. */
int trace_chip_profile(const struct trace_chip *c, char *name, size_t len);

#endif
