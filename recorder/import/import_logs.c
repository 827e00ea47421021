/* `tpmtrace import ima|tcglog`: measurement logs into traces of synthesized
 * TPM2_PCR_Extend commands (recorder/import/ima_import.c, recorder/import/tcglog_import.c),
 * and what tells such a log from other files. */
#include "recorder/import/import_kinds.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recorder/import/ima_import.h"
#include "recorder/import/tcglog_import.h"

static void quiet_msg(void *ctx, int sev, const char *m)
{
	(void)ctx;
	(void)sev;
	(void)m;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

long import_head(const char *file, void *buf, size_t cap, int *regular, char *err, size_t errlen)
{
	struct stat st;
	*regular = 0;
	/* Only a regular file is opened: opening and closing a FIFO here would
	 * let its writer start and lose what it wrote before the import opens
	 * it again (a pipe's bytes go when its last reader closes). */
	if (stat(file, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return 0;
	/* O_NONBLOCK: a file replaced by a FIFO meanwhile must not hang here. */
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: is a directory", file);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	*regular = 1;
	size_t got = 0;
	while (got < cap) {
		ssize_t n = read(fd, (char *)buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err, errlen, "%s: %s", file, strerror(errno));
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	return (long)got;
}

/* ---- IMA ---- */

static int stop_at_first(void *ctx, const struct ima_entry *e)
{
	(void)ctx;
	(void)e;
	return 1;
}

int import_ima_sniff(const char *file, const struct import_opts *o, char *err, size_t errlen)
{
	/* A list's first entry (boot_aggregate) is small; 1 MiB holds it. */
	size_t cap = 1 << 20;
	uint8_t *b = malloc(cap);
	int regular;
	char why[400];
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	long n = import_head(file, b, cap, &regular, err, errlen);
	int rc = 0;
	if (n < 0) {
		rc = -EIO;
	} else if (regular && n == 0) {
		snprintf(err, errlen, "%s: empty file, not an IMA measurement list", file);
		rc = -EINVAL;
	} else if (regular) {
		struct ima_opts io = o->ima;
		struct ima_result res;
		io.label = file;
		memset(&res, 0, sizeof res);
		int prc = ima_parse_mem(b, (size_t)n, &io, stop_at_first, quiet_msg, NULL, &res,
					why, sizeof why);
		if (prc != 1) {
			if (prc == 0)
				snprintf(why, sizeof why,
					 "no complete entry in its first %ld bytes", n);
			snprintf(err, errlen, "%s: not an IMA measurement list (%s)", file, why);
			rc = -EINVAL;
		}
	}
	free(b);
	return rc;
}

int import_ima_file(const char *file, const struct import_opts *o, struct import_log_result *r,
		    char *err, size_t errlen)
{
	struct ima_import_cfg cfg = {.msg = o->msg ? o->msg : quiet_msg};
	struct ima_result res;
	double t0 = now_s();
	cfg.opts = o->ima;
	cfg.db_path = o->db;
	cfg.name = o->name;
	cfg.strict = o->strict;
	cfg.keep_partial = o->keep_partial;
	cfg.follow = o->follow;
	int rc = ima_import_file(file, &cfg, &r->trace_id, &res, err, errlen);
	snprintf(r->status, sizeof r->status, "%s", rc ? "incomplete" : "complete");
	/* kept rows count also when the file failed part-way (--keep-partial) */
	r->commands = res.stored_commands;
	r->events = res.stored_events;
	if (rc)
		return rc;
	const struct pcr_alg *la = pcr_alg_by_id(res.list_alg);
	/* the file on a line of its own, the figures below it (as a pcap's) */
	snprintf(r->text, sizeof r->text,
		 "%s: trace %lld: %llu commands, %llu events\n  %llu entries (%llu violations, "
		 "%llu template hash mismatches, %llu for PCRs beyond 23 not extended%s),\n  %s "
		 "list%s, %s digests, kernel rule %s, %.2f s",
		 file, (long long)r->trace_id, (unsigned long long)r->commands,
		 (unsigned long long)r->events, (unsigned long long)res.entries,
		 (unsigned long long)res.violations, (unsigned long long)res.mismatches,
		 (unsigned long long)res.bad_pcr,
		 res.tail.truncated ? ", truncated last record ignored" : "",
		 res.ascii ? "ascii" : "binary",
		 res.ascii	  ? ""
		 : res.big_endian ? " big-endian"
				  : " little-endian",
		 la ? la->name : "?", ima_rule_str(cfg.opts.rule), now_s() - t0);
	struct json_w *w = &r->json;
	json_kuint(w, "commands", r->commands);
	json_kuint(w, "events", r->events);
	json_kuint(w, "entries", res.entries);
	json_kuint(w, "violations", res.violations);
	json_kuint(w, "mismatches", res.mismatches);
	json_kuint(w, "beyond_pcr23", res.bad_pcr);
	json_kbool(w, "truncated", res.tail.truncated);
	json_kstr(w, "format",
		  res.ascii	   ? "ascii"
		  : res.big_endian ? "binary-big-endian"
				   : "binary");
	json_kstr(w, "list_alg", la ? la->name : "?");
	json_kstr(w, "kernel_rule", ima_rule_str(cfg.opts.rule));
	return 0;
}

/* ---- TCG ---- */

int import_tcglog_sniff(const char *file, const struct import_opts *o, char *err, size_t errlen)
{
	/* The first event, TCG_PCR_EVENT (PFP 10.2.1): PCR, type, SHA-1
	 * digest, event size, event data; in a crypto-agile log its data is the
	 * Spec ID Event03 (PFP 9.4.5.1). */
	uint8_t b[4096];
	int regular;
	(void)o;
	long n = import_head(file, b, sizeof b, &regular, err, errlen);
	if (n < 0)
		return -EIO;
	if (!regular)
		return 0;
	if (n == 0) {
		snprintf(err, errlen, "%s: empty file, not a TCG event log", file);
		return -EINVAL;
	}
	if (n >= 32) {
		uint32_t pcr = get_u32_bo(b, 0), type = get_u32_bo(b + 4, 0),
			 size = get_u32_bo(b + 28, 0);
		if (type == EV_NO_ACTION && n >= 32 + 15 && size >= 16 &&
		    !memcmp(b + 32, "Spec ID Event", 13))
			return 0;
		/* A SHA-1 log of TCG 1.2 has no header: its first event
		 * must at least look like one. */
		if (pcr < 24 && tcg_event_type_str(type) && size <= 1u << 20)
			return 0;
		snprintf(err, errlen,
			 "%s: not a TCG event log (no Spec ID Event03 header, and no SHA-1 log "
			 "event at offset 0: PCR %u, type 0x%08x)",
			 file, pcr, type);
		return -EINVAL;
	}
	snprintf(err, errlen, "%s: not a TCG event log (no Spec ID Event03 header; %ld bytes)",
		 file, n);
	return -EINVAL;
}

int import_tcglog_file(const char *file, const struct import_opts *o, struct import_log_result *r,
		       char *err, size_t errlen)
{
	struct tcg_import_cfg cfg = {.msg = o->msg ? o->msg : quiet_msg};
	struct tcg_result res;
	cfg.db_path = o->db;
	cfg.name = o->name;
	cfg.strict = o->strict;
	cfg.keep_partial = o->keep_partial;
	cfg.follow = o->follow;
	int rc = tcg_import_file(file, &cfg, &r->trace_id, &res, err, errlen);
	snprintf(r->status, sizeof r->status, "%s", rc ? "incomplete" : "complete");
	/* kept rows count also when the file failed part-way (--keep-partial) */
	r->commands = res.stored_commands;
	r->events = res.stored_events;
	if (rc)
		return rc;
	char banks[128] = "sha1";
	size_t k = 0;
	for (unsigned b = 0; b < res.n_algs && k < sizeof banks - 16; b++) {
		const struct pcr_alg *a = pcr_alg_by_id(res.algs[b]);
		k += (size_t)snprintf(banks + k, sizeof banks - k, "%s%s", b ? "," : "",
				      a ? a->name : "?");
	}
	snprintf(r->text, sizeof r->text,
		 "%s: trace %lld: %llu commands, %llu events\n  %llu log events, %llu extends "
		 "(%llu for PCRs beyond 23 not made), %s format, banks %s, startup locality %d%s",
		 file, (long long)r->trace_id, (unsigned long long)r->commands,
		 (unsigned long long)r->events, (unsigned long long)res.events,
		 (unsigned long long)res.extends, (unsigned long long)res.bad_pcr,
		 res.crypto_agile ? "crypto-agile" : "SHA-1", banks,
		 res.startup_locality < 0 ? 0 : res.startup_locality,
		 res.tail.truncated ? ", truncated last event ignored" : "");
	struct json_w *w = &r->json;
	json_kuint(w, "commands", r->commands);
	json_kuint(w, "events", r->events);
	json_kuint(w, "log_events", res.events);
	json_kuint(w, "extends", res.extends);
	json_kuint(w, "beyond_pcr23", res.bad_pcr);
	json_kbool(w, "truncated", res.tail.truncated);
	json_kstr(w, "format", res.crypto_agile ? "crypto-agile" : "sha1");
	json_kstr(w, "banks", banks);
	json_kint(w, "startup_locality", res.startup_locality < 0 ? 0 : res.startup_locality);
	return 0;
}
