/* Latency profiles: what each command costs on one TPM, per authorization kind
 * and, where it matters, key type or session variant; with provenance (who
 * measured, chip, firmware, bus, date) and what the profile covers and lacks.
 *
 * Text format (docs/profiles.md):
 *   tpmtrace-profile 1
 *   name: slb9670-linux-integrity
 *   vendor: Infineon            (also chip, firmware, bus, measured-by, date,
 *   source: ...                  source and note may repeat, covers, lacks,
 *   transport-ms: 0              transport-ms, fallback-ms)
 *   PCR_Extend  password  -  [derived=CMD] n=1 mean=6.36 [p50= p90= p95= p99= stdev= min= max=]  #
 * comment All times in milliseconds. Parsing errors name file:line. */
#ifndef TPMTRACE_PROFILE_H
#define TPMTRACE_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#define PROFILE_AUTH_ANY 0xff /* "*": any authorization kind */
/* Latencies above this are rejected as absurd (10 minutes). */
#define PROFILE_MAX_MS 600000.0

struct prof_entry {
	uint32_t cc;
	uint8_t auth;	  /* enum tpm_auth_kind or PROFILE_AUTH_ANY */
	char variant[48]; /* "-" when the entry is not specific to a key or session type */
	uint64_t n;	  /* samples behind the figures; 0 = unknown */
	double mean_ms;	  /* required, > 0 */
	double p50_ms, p95_ms, stdev_ms, min_ms, max_ms; /* NAN = unknown */
	double p90_ms, p99_ms;				 /* NAN = unknown */
	char *comment;					 /* provenance of this one entry, or NULL */
	unsigned line; /* where it was read (0 when not from a file) */
	/* derived=CMD: the figures are another command's (CMD's, same
	 * authorization and variant), by a rule of docs/profiles.md ("Derived
	 * entries"); 0 when measured. */
	uint32_t derived_from;
};

struct profile {
	char *name, *vendor, *chip, *firmware, *bus, *measured_by, *date;
	char *source; /* one line per source, '\n'-separated */
	char *note;   /* likewise */
	char *covers, *lacks;
	double transport_ms; /* fixed cost added to every priced command */
	double fallback_ms;  /* price of a command the profile lacks; NAN = median of entries */
	struct prof_entry *e;
	size_t n, cap;
};

void profile_init(struct profile *p);
void profile_release(struct profile *p);

/* Parses the text format. name is used in messages ("FILE:LINE: ..."). Returns
 * 0, or -EINVAL with err naming the line; p is left empty on error. */
int profile_parse(const char *text, size_t len, const char *name, struct profile *p, char *err,
		  size_t errlen);
/* Reads and parses a file. */
int profile_load_file(const char *path, struct profile *p, char *err, size_t errlen);
/* Writes the text format. Returns 0 or -EIO. */
int profile_write(FILE *f, const struct profile *p);

/* Checks one entry's figures (positive, finite, ordered, not absurd). Returns
 * 0 or -EINVAL with a message (without file:line). */
int profile_check_entry(const struct prof_entry *e, char *err, size_t errlen);
/* Checks every entry (profile_check_entry): 0, or -EINVAL with the message
 * of the first bad one as "entry N: ..." (N from 1). */
int profile_check(const struct profile *p, char *err, size_t errlen);
/* Appends a copy of e (comment duplicated). Returns 0 or -ENOMEM, -EEXIST. */
int profile_add(struct profile *p, const struct prof_entry *e);
/* Sets a header string field (replaces; source/note append a line). */
int profile_set(struct profile *p, const char *key, const char *value);

enum prof_match {
	PROF_EXACT = 0,	    /* command, authorization and variant */
	PROF_OTHER_VARIANT, /* same command and authorization, generic or other variant */
	PROF_OTHER_AUTH,    /* same command, nearest authorization kind */
	PROF_MISSING,	    /* not in the profile: fallback_ms */
};
const char *profile_match_str(int m);

/* Finds the entry to price (cc, auth, variant) by the fallback rules of
 * docs/profiles.md. Returns NULL with *how = PROF_MISSING when the command is
 * not in the profile at all. */
const struct prof_entry *profile_lookup(const struct profile *p, uint32_t cc, int auth,
					const char *variant, enum prof_match *how);
/* The entry of exactly (cc, auth, variant), or NULL. */
const struct prof_entry *profile_lookup_exact(const struct profile *p, uint32_t cc, int auth,
					      const char *variant);
/* The price of a missing command: fallback_ms, or the median of the means. */
double profile_fallback(const struct profile *p);
/* Low and high per-command figures for the uncertainty range; returns 1 if
 * the entry has spread data (else lo = hi = mean). */
int profile_entry_range(const struct prof_entry *e, double *lo, double *hi);

/* Sets every figure of e unknown (NAN), the mean included. */
void profile_entry_clear(struct prof_entry *e);
/* Raises every known figure of e but stdev to at least floor_ms (a clock
 * that did not move, a cached or synthetic time: not a latency). */
void profile_entry_floor(struct prof_entry *e, double floor_ms);
/* Fills e's statistics from n samples in ms (sorted in place): n, mean,
 * nearest-rank p50/p90/p95/p99, min, max, sample stdev. */
void profile_entry_stats(struct prof_entry *e, double *v, size_t n);

/* The authorization kind spelled as in profiles ("none", "password", "hmac",
 * "hmac+enc", "policy", "policy+enc", "*"); -1 if unknown. */
int profile_auth_parse(const char *s);
const char *profile_auth_str(int auth);

/* Shipped profiles (the .profile files in model/profiles, embedded at build time). */
unsigned profile_builtin_count(void);
/* Name (file name without .profile) and text of shipped profile i, or NULL. */
const char *profile_builtin_name(unsigned i, char *buf, size_t len);
const char *profile_builtin_text(unsigned i);
/* Loads shipped profile name. Returns 0, -ENOENT, or -EINVAL. */
int profile_load_builtin(const char *name, struct profile *p, char *err, size_t errlen);
/* Calls fn for every shipped profile, in order, loaded. One that does not
 * load is skipped; the return is then
 * -EINVAL with the first such error in err (the others are still listed). */
int profile_builtin_list(void (*fn)(void *ctx, const struct profile *p), void *ctx, char *err,
			 size_t errlen);

/* What a profile covers. profile_commands: its distinct command codes.
 * profile_boot_covered: how many of the commands a Linux boot with the
 * kernel's HMAC sessions sends (PCR_Extend StartAuthSession ContextLoad
 * ContextSave FlushContext GetRandom CreatePrimary; *total set to 7) have an
 * entry (*derived of them only derived ones); the others are priced by
 * fallback. profile_derived: its derived entries. profile_spread_share: the share
 * of entries with a spread (p95, stdev or max: profile_entry_range). */
unsigned profile_commands(const struct profile *p);
unsigned profile_derived(const struct profile *p);
/* Whether p's vendor starts with prefix, any case (NULL: every profile):
 * the --vendor filter of profile list and predict. */
int profile_vendor_is(const struct profile *p, const char *prefix);
unsigned profile_boot_covered(const struct profile *p, unsigned *derived, unsigned *total);
/* The boot's commands p has no entry of, their names space-separated in
 * names; returns how many. */
unsigned profile_boot_missing(const struct profile *p, char *names, size_t len);
double profile_spread_share(const struct profile *p);

/* Finds a profile by what a user typed: a file path (contains '/' or ends in
 * .profile and exists), else a profile stored in db (if db), else a shipped
 * one. *from is set to "file", "database" or "shipped". */
int profile_resolve(sqlite3 *db, const char *arg, struct profile *p, const char **from, char *err,
		    size_t errlen);

/* Importers from other formats: recorder/import/profile_import.h. */

/* Database: tables profile and profile_entry (db/schema.sql). */
int profile_db_store(sqlite3 *db, const struct profile *p, int replace, char *err, size_t errlen);
/* Opens (creating if missing) the database at dbpath and stores p in it.
 * Errors: db_open's message, or "DBPATH: message" from the store. */
int profile_db_store_path(const char *dbpath, const struct profile *p, int replace, char *err,
			  size_t errlen);
/* Returns 0, -ENOENT when there is no such profile, or -EIO. */
int profile_db_load(sqlite3 *db, const char *name, struct profile *p, char *err, size_t errlen);
/* Calls fn for every stored profile, loaded, by name. */
int profile_db_list(sqlite3 *db, void (*fn)(void *ctx, const struct profile *p), void *ctx,
		    char *err, size_t errlen);
/* Builds a profile from the recorded latencies of trace_id: the clients'
 * commands (DB_CLIENT_CMDS: not tpmtrace's own Startup, resource-manager
 * flushes or replay clean-up) that succeeded (rc 0; rc unknown, as ftrace
 * imports have it, counts), well-formed and answered (docs/schema.md, "Trace
 * kinds"). */
int profile_learn(sqlite3 *db, int64_t trace_id, struct profile *p, char *err, size_t errlen);

#endif
