/* Linux IMA measurement lists (securityfs ima/binary_runtime_measurements,
 * ascii_runtime_measurements and the per-bank *_<alg> files of Linux >= 6.10)
 * parsed into entries, checked, and turned into the PCR extends the kernel
 * made. Format facts: the kernel's security/integrity/ima/ima_fs.c,
 * ima_template_lib.c and ima_crypto.c (ima_calc_field_array_hash_tfm). */
#ifndef TPMTRACE_IMA_IMPORT_H
#define TPMTRACE_IMA_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "model/tpm/pcr_bank.h"
#include "recorder/import/log_reader.h"

/* Which bytes the kernel extended into each bank (see docs/importers.md). */
enum ima_rule {
	IMA_RULE_PER_BANK = 0, /* Linux >= 5.8: H_bank(template data) */
	IMA_RULE_PADDED_SHA1,  /* 4.10-5.7: SHA-1 template hash zero-padded */
	IMA_RULE_SHA1_ONLY,    /* older: only the SHA-1 bank */
};
const char *ima_rule_str(enum ima_rule r);
/* Parses "per-bank", "padded-sha1", "sha1-only"; -EINVAL if unknown. */
int ima_rule_parse(const char *s, enum ima_rule *out);

enum ima_format { IMA_FMT_AUTO = 0, IMA_FMT_BINARY, IMA_FMT_ASCII };

struct ima_opts {
	enum ima_rule rule;
	enum ima_format format;
	unsigned n_banks; /* banks the TPM had; 0: sha1,sha256 */
	uint16_t banks[PCR_MAX_BANKS];
	uint16_t list_alg; /* digest in the list; 0: from the file
			    * name suffix (_sha256), else probed */
	const char *label; /* file name in messages */
};

#define IMA_NAME_MAX 255

struct ima_entry {
	uint64_t index;	 /* 1-based */
	uint64_t offset; /* of the record (binary) or line (ascii) */
	uint32_t pcr;
	char template_name[IMA_NAME_MAX + 1];
	const uint8_t *tdata; /* template data (binary layout, rebuilt for ascii) */
	uint32_t tdata_len;
	const uint8_t *logged; /* template digest in the list */
	unsigned logged_len;
	int violation;		/* logged digest all zero */
	int hash_ok;		/* logged digest equals the recomputed one (1 for violations) */
	struct pcr_digests ext; /* what the kernel extended, per the rule */
	const char *line;	/* the entry as ascii_runtime_measurements shows it (<= 1 KiB) */
};

/* severity: 0 warning, 1 error. */
typedef void (*ima_msg_fn)(void *ctx, int severity, const char *msg);
/* Nonzero stops the parse and is returned by ima_parse. */
typedef int (*ima_entry_fn)(void *ctx, const struct ima_entry *e);

struct ima_result {
	uint64_t entries;
	uint64_t violations;
	uint64_t mismatches; /* template hash differs from the template data */
	uint64_t bad_pcr;    /* entries for a PCR index beyond 23: not extended */
	int ascii;
	int big_endian;
	uint16_t list_alg;
	struct log_tail tail; /* the input ends inside a record */
	/* What the trace holds (the figures of list and stats): the extends made,
	 * and one event row per entry. */
	uint64_t stored_commands, stored_events;
};

/* Parses the whole list, calling cb per entry. Returns 0 (warnings went to
 * msg: template hash mismatches, a truncated last record), -EINVAL for a
 * record that cannot be parsed (err names label, entry and offset), -errno for
 * I/O, or cb's nonzero value. */
int ima_parse(struct log_rd *rd, const struct ima_opts *o, ima_entry_fn cb, ima_msg_fn msg,
	      void *ctx, struct ima_result *res, char *err, size_t errlen);
int ima_parse_mem(const uint8_t *p, size_t len, const struct ima_opts *o, ima_entry_fn cb,
		  ima_msg_fn msg, void *ctx, struct ima_result *res, char *err, size_t errlen);

/* Import into a database: one trace per file. */
/* A sanity bound: more entries than a kernel keeps in memory for years. */
#define IMA_MAX_ENTRIES 50000000u

struct ima_import_cfg {
	struct ima_opts opts;
	const char *db_path;
	const char *name; /* trace name; NULL: the file name */
	int strict;	  /* a truncated record or a hash mismatch is an error */
	int follow;	  /* read a FIFO or character device (import_log_rd_open_file) */
	int keep_partial; /* a file that fails part-way keeps its rows, 'incomplete' */
	ima_msg_fn msg;
	void *msg_ctx;
};

/* Returns 0 and the trace id, or nonzero with err set (the partial trace is
 * kept with status 'incomplete'). */
int ima_import_file(const char *path, const struct ima_import_cfg *cfg, int64_t *trace_id,
		    struct ima_result *res, char *err, size_t errlen);

#endif
