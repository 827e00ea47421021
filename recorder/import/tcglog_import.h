/* TCG firmware event logs (securityfs tpm0/binary_bios_measurements): the
 * SHA-1 format of TCG 1.2 (TCG_PCR_EVENT) and the crypto-agile format whose
 * first event, "Spec ID Event03", lists the banks and their digest sizes
 * (TCG PC Client Platform Firmware Profile, sections 10.2.1-10.2.2 and 9.4.5.1). */
#ifndef TPMTRACE_TCGLOG_IMPORT_H
#define TPMTRACE_TCGLOG_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "model/tpm/pcr_bank.h"
#include "recorder/import/log_reader.h"

#define EV_NO_ACTION	   0x00000003u
#define EV_EFI_HCRTM_EVENT 0x80000010u

struct tcg_event {
	uint64_t index; /* 0-based, the EventNum tpm2_eventlog prints */
	uint64_t offset;
	uint32_t pcr;
	uint32_t type;
	int no_action;	      /* EV_NO_ACTION: not extended */
	int startup_locality; /* a StartupLocality event: its locality, else -1 */
	struct pcr_digests digests;
	const uint8_t *data;
	uint32_t data_len;
	const char *desc; /* "EV_EFI_VARIABLE_BOOT BootOrder", <= 512 bytes */
};

/* severity: 0 warning, 1 error. */
typedef void (*tcg_msg_fn)(void *ctx, int severity, const char *msg);
typedef int (*tcg_event_fn)(void *ctx, const struct tcg_event *e);

struct tcg_result {
	uint64_t events; /* including EV_NO_ACTION */
	uint64_t extends;
	uint64_t bad_pcr; /* events for a PCR index beyond 23: not extended */
	int crypto_agile;
	unsigned n_algs; /* banks of the Spec ID event (crypto-agile) */
	uint16_t algs[PCR_MAX_BANKS];
	int startup_locality; /* -1 if the log has none */
	struct log_tail tail; /* the input ends inside an event */
	/* What the trace holds (the figures of list and stats): the Startup and
	 * the extends made, and one event row per log event. */
	uint64_t stored_commands, stored_events;
};

const char *tcg_event_type_str(uint32_t type);

/* Returns 0 (a truncated last event is a warning through msg), -EINVAL with
 * err naming label, event and offset, -errno, or cb's nonzero value. */
int tcg_parse(struct log_rd *rd, const char *label, tcg_event_fn cb, tcg_msg_fn msg, void *ctx,
	      struct tcg_result *res, char *err, size_t errlen);
int tcg_parse_mem(const uint8_t *p, size_t len, const char *label, tcg_event_fn cb, tcg_msg_fn msg,
		  void *ctx, struct tcg_result *res, char *err, size_t errlen);

/* A sanity bound: firmware logs hold hundreds of events, a few thousand. */
#define TCG_MAX_EVENTS 1000000u

struct tcg_import_cfg {
	const char *db_path;
	const char *name;
	int strict;
	int follow;	  /* read a FIFO or character device (import_log_rd_open_file) */
	int keep_partial; /* a file that fails part-way keeps its rows, 'incomplete' */
	tcg_msg_fn msg;
	void *msg_ctx;
};

/* One trace per file: TPM2_Startup(CLEAR) at the StartupLocality (0 if the
 * log has none), then one TPM2_PCR_Extend per measured event. */
int tcg_import_file(const char *path, const struct tcg_import_cfg *cfg, int64_t *trace_id,
		    struct tcg_result *res, char *err, size_t errlen);

#endif
