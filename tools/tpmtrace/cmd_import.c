/* tpmtrace import KIND FILE... --db DB: existing traces into the database. */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"

#include "db/db.h"
#include "model/tpm/redact.h"
#include "recorder/import/import_kinds.h"
#include "recorder/import/log_reader.h"
#include "recorder/import/pcap_import.h"

SUBCOMMAND(import);

/* Files from this size on get a progress bar; TPMTRACE_PROGRESS_BYTES
 * overrides it (the tests use small files). */
static off_t progress_min_bytes(void)
{
	const char *e = getenv("TPMTRACE_PROGRESS_BYTES");
	return e && *e ? (off_t)strtoll(e, NULL, 10) : (off_t)32 << 20;
}

static void import_progress(void *arg, uint64_t done, uint64_t total)
{
	progress_update(arg, done, total);
}

/* Imports one file (import_kind_file) with a progress bar for the kinds that
 * have one and files that take a while (about 1 s and more). */
static int import_file(const struct importer *imp, const struct import_opts *o, const char *file,
		       struct import_sink *s, struct import_log_result *lr, char *err,
		       size_t errlen, int *db_failed)
{
	struct import_opts po = *o;
	struct progress pg;
	struct stat sb;
	progress_init(&pg, "import", "packets",
		      imp->progress && !o->json && !stat(file, &sb) &&
			  sb.st_size >= progress_min_bytes());
	if (pg.enabled) {
		po.progress = import_progress;
		po.progress_arg = &pg;
	}
	int rc = import_kind_file(imp, &po, file, s, lr, err, errlen, db_failed);
	progress_done(&pg);
	return rc;
}

/* Warnings of the measurement-log importers: they quote the log (names,
 * template names), escaped. */
static void print_msg(void *ctx, int sev, const char *m)
{
	char buf[1024];
	(void)ctx;
	fprintf(stderr, "tpmtrace import: %s: %s\n", sev ? "error" : "warning",
		db_text_safe(m, buf, sizeof buf));
}

/* ---- output ---- */

static void print_text(const struct import_sink *s)
{
	double span_ms = s->t_last > s->t_first ? (double)(s->t_last - s->t_first) / 1e6 : 0;
	/* the file on a line of its own: the figures fit 100 columns below it */
	printf("%s: trace %" PRId64 " (%s):\n  %" PRIu64 " commands (%" PRIu64
	       " malformed, %" PRIu64 " without response), %" PRIu64 " events, %" PRIu64
	       " clients, span %.3f ms%s\n",
	       cli_name(s->file), s->trace_id, s->status, s->commands, s->malformed, s->no_response,
	       s->events, s->clients, span_ms, s->synthetic ? ", synthetic timestamps" : "");
}

/* ---- the subcommand ---- */

enum { K_PCAP = 1, K_IMA = 2, K_TCG = 4, K_SWLOG = 8, K_FTRACE = 16 };
enum {
	O_DB = 256,
	O_NAME,
	O_PORT,
	O_JSON,
	O_KEEP,
	O_RULE,
	O_BANKS,
	O_FORMAT,
	O_LISTALG,
	O_STRICT,
	O_QUIET,
	O_FOLLOW,
	O_IDLEGAP,
	O_PAYLOADS
};
static const struct cli_opt opts[] = {
    {"db", O_DB, "DB", CLI_REQ,
     "database file (created 0600 if missing, once every\nFILE was recognised; its directory "
     "must exist)",
     "@file"},
    {"name", O_NAME, "NAME", 0, "trace name (default: the file's base name)"},
    {"json", O_JSON, NULL, 0, "print the summary as one JSON object {\"version\": 1, ...}"},
    {"keep-partial", O_KEEP, NULL, 0,
     "a file that fails part-way keeps what was imported as\na trace with status 'incomplete' "
     "(default: nothing)"},
    {"quiet", O_QUIET, NULL, 0, "no summary line"},
    {"follow", O_FOLLOW, NULL, 0,
     "read a FIFO or character device to its end (at most\n1 GiB); without it they are refused"},
    {"port", O_PORT, "N", CLI_NUM,
     "pcap: the TPM's TCP port (default 2321; N+1 is the\nplatform port)", NULL, 1, 65534, K_PCAP},
    {"idle-gap", O_IDLEGAP, "SECONDS", CLI_REAL,
     "pcap: a TCP connection without packets this long\n"
     "(capture time) is over, as one that ended with FIN or\n"
     "RST (default 300). At most 65,536 connections (64 MiB\n"
     "of their bytes) are held open at once; a capture that\n"
     "needs more is refused",
     NULL, 0, 1000000000, K_PCAP},
    {"payloads", O_PAYLOADS, "MODE", CLI_CHOICE, CLI_PAYLOADS_HELP, CLI_PAYLOADS_CHOICES, 0, 0,
     K_PCAP | K_SWLOG},
    {"kernel-rule", O_RULE, "RULE", CLI_CHOICE,
     "ima: what the kernel extended into each bank:\n"
     "per-bank (Linux >= 5.8: H_bank(template data),\n"
     "default), padded-sha1 (4.10-5.7: SHA-1 template hash\n"
     "zero-padded), sha1-only (older: only the SHA-1 bank);\n"
     "violations extend 0xff",
     "per-bank padded-sha1 sha1-only", 0, 0, K_IMA},
    {"banks", O_BANKS, "LIST", 0, "ima: PCR banks of the TPM (default sha1,sha256)", NULL, 0, 0,
     K_IMA},
    {"format", O_FORMAT, "F", CLI_CHOICE, "ima: auto (default), binary or ascii",
     "auto binary ascii", 0, 0, K_IMA},
    {"list-alg", O_LISTALG, "ALG", 0,
     "ima: digest of the list (default: from a _sha256 style\nfile name suffix, else detected)",
     PCR_COMMON_NAMES, 0, 0, K_IMA},
    {"strict", O_STRICT, NULL, 0,
     "ima, tcglog: a truncated last record (ima: also a\n"
     "template hash mismatch) is an error: exit 1",
     NULL, 0, 0, K_IMA | K_TCG},
};
static const struct cli_form forms[] = {
    {K_PCAP, "pcap FILE...", NULL},	{K_IMA, "ima FILE...", NULL},
    {K_TCG, "tcglog FILE...", NULL},	{K_SWLOG, "swtpm-log FILE...", NULL},
    {K_FTRACE, "ftrace FILE...", NULL},
};

static unsigned kind_mode(const struct importer *imp)
{
	return 1u << import_kind_index(imp);
}

/* Ctrl-C, SIGTERM, SIGHUP: the importer stops at its next step and its
 * trace is closed 'incomplete' like any failed import, never left
 * 'recording'. (No SA_RESTART: a read waiting on a FIFO returns.) */
static void on_stop(int sig)
{
	(void)sig;
	import_log_stop_requested = 1;
}

static void import_catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_stop};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* One option k (its argument in p) into o. Returns 0 or the usage exit status. */
static int parse_option(int k, const struct cli_parse *p, struct import_opts *o)
{
	char err[512];

	switch (k) {
	case O_DB:
		o->db = p->arg;
		break;
	case O_NAME:
		o->name = p->arg;
		break;
	case O_PAYLOADS:
		o->payloads = tpm_payload_mode_parse(p->arg);
		break;
	case O_PORT:
		o->port = (unsigned)p->num;
		break;
	case O_JSON:
		o->json = 1;
		break;
	case O_KEEP:
		o->keep_partial = 1;
		break;
	case O_FOLLOW:
		o->follow = 1;
		break;
	case O_IDLEGAP:
		if (!(p->real > 0))
			return cli_usage_error(
			    &subcmd_import, "--idle-gap takes seconds above 0, not '%s'", p->arg);
		o->idle_gap_s = p->real;
		break;
	case O_QUIET:
		o->quiet = 1;
		break;
	case O_STRICT:
		o->strict = 1;
		break;
	case O_RULE:
		ima_rule_parse(p->arg, &o->ima.rule);
		break;
	case O_FORMAT:
		o->ima.format = !strcmp(p->arg, "binary")  ? IMA_FMT_BINARY
				: !strcmp(p->arg, "ascii") ? IMA_FMT_ASCII
							   : IMA_FMT_AUTO;
		break;
	case O_BANKS: {
		int n = pcr_alg_parse_list(p->arg, o->ima.banks, PCR_MAX_BANKS, err, sizeof err);
		if (n < 0)
			return cli_usage_error(&subcmd_import, "--banks: %s", err);
		o->ima.n_banks = (unsigned)n;
		break;
	}
	case O_LISTALG: {
		const struct pcr_alg *a = pcr_alg_by_name(p->arg);
		if (!a)
			return cli_usage_error(&subcmd_import, "--list-alg: unknown digest '%s'",
					       p->arg);
		o->ima.list_alg = a->alg;
		break;
	}
	}
	return 0;
}

/* The options into o, KIND into *imp, the files into files[1..nfiles-1]
 * (files[0] is KIND). Returns 0 or the usage exit status. */
static int parse(int argc, char **argv, struct import_opts *o, const struct importer **imp,
		 char ***files, int *nfiles)
{
	struct cli_parse p;
	int k;

	/* GNU getopt permutes: options may follow the operands. */
	cli_parse_init(&p, &subcmd_import, argc, argv);
	while ((k = cli_next(&p)) > 0)
		if ((k = parse_option(k, &p, o)))
			return k;
	if (k < 0)
		return EXIT_USAGE;
	char **ops = argv + p.ind;
	int nops = argc - p.ind;
	if (nops < 1)
		return cli_usage_error(
		    &subcmd_import, "which KIND of file? (pcap, ima, tcglog, swtpm-log, ftrace)");
	*imp = import_kind_find(ops[0]);
	if (!*imp)
		return cli_usage_error(&subcmd_import,
				       "unknown KIND '%s' (pcap, ima, tcglog, swtpm-log, ftrace)",
				       ops[0]);
	char why[48];
	snprintf(why, sizeof why, "with import %s", (*imp)->kind);
	if ((k = cli_only_mode(&p, kind_mode(*imp), why)))
		return k;
	if (nops < 2)
		return cli_usage_error(&subcmd_import, "no FILE to import");
	if (!o->db)
		return cli_usage_error(&subcmd_import, "--db DB is required");
	if (o->name && nops > 2)
		return cli_usage_error(&subcmd_import,
				       "--name names one trace: give one FILE with it");
	*files = ops;
	*nfiles = nops;
	return 0;
}

/* A failed file: its message; its trace goes unless --keep-partial. */
static void import_failed(const struct import_opts *o, const char *file, struct import_sink *s,
			  const char *err)
{
	cli_error("import", "%s", err[0] ? err : "import failed");
	/* All or nothing: a file that failed part-way leaves no trace unless
	 * asked to. */
	if (s->trace_id > 0 && o->keep_partial)
		fprintf(stderr,
			"tpmtrace import: %s: trace %lld kept as 'incomplete' (--keep-partial)\n",
			cli_name(file), (long long)s->trace_id);
	else if (s->trace_id > 0 && !cli_trace_delete("import", o->db, s->trace_id))
		s->trace_id = 0;
}

/* Before anything is written: the database is none of the inputs, and every
 * FILE is there and of the named KIND. Files not of KIND (or not there) are
 * reported first and skipped (okf[i] 0, why_not[i] the reason). Returns the
 * number of files left, or -1 for an exit status in *ret. */
static int check_files(const struct importer *imp, const struct import_opts *o, char **files,
		       int nfiles, char *okf, char (*why_not)[512], int *failed, int *ret)
{
	char err[512];
	int n_ok = 0;

	/* The database, and the summaries on standard output (1<>file), are
	 * never written onto a file read. */
	for (int i = 1; i < nfiles; i++)
		if ((*ret =
			 cli_out_check("import", o->db, (const char *const[]){files[i], NULL})) ||
		    (*ret = cli_out_check("import", "-", (const char *const[]){files[i], NULL})))
			return -1;
	for (int i = 1; i < nfiles; i++) {
		err[0] = 0;
		if (imp->sniff(files[i], o, err, sizeof err)) {
			snprintf(why_not[i], sizeof why_not[i], "%s", err[0] ? err : files[i]);
			cli_error("import", "%s", why_not[i]);
			(*failed)++;
		} else {
			okf[i] = 1;
			n_ok++;
		}
	}
	if (n_ok && cli_db_for_create("import", o->db))
		n_ok = 0, *failed = nfiles - 1;
	if (n_ok && imp->run) {
		/* Made here once; each file's sink opens it for writing. */
		sqlite3 *probe = NULL;
		if (db_open(o->db, DB_CREATE, &probe, err, sizeof err)) {
			cli_error("import", "%s", err);
			n_ok = 0;
			*failed = nfiles - 1;
		}
		db_close(probe);
	}
	return n_ok;
}

static int run_import(int argc, char **argv)
{
	struct import_opts o = {
	    .port = PCAP_IMPORT_DEFAULT_PORT, .payloads = PAYLOADS_REDACTED, .msg = print_msg};
	const struct importer *imp = NULL;
	char err[512], **files = NULL;
	int nfiles = 0, failed = 0, imported = 0, ret = 0;
	uint64_t tot_cmd = 0, tot_mal = 0, tot_ev = 0, t0 = db_mono_ns();

	import_catch_signals();
	if ((ret = parse(argc, argv, &o, &imp, &files, &nfiles)))
		return ret;
	cli_payloads_warn("import", o.payloads, o.db);
	char *okf = calloc((size_t)nfiles, 1);
	char(*why_not)[512] = calloc((size_t)nfiles, sizeof *why_not);
	if (!okf || !why_not) {
		free(okf);
		free(why_not);
		return cli_error("import", "out of memory");
	}
	struct stat dbst;
	int db_existed = stat(o.db, &dbst) == 0;
	int n_ok = check_files(imp, &o, files, nfiles, okf, why_not, &failed, &ret);
	if (n_ok < 0 || (!n_ok && !o.json)) {
		free(okf);
		free(why_not);
		return n_ok < 0 ? ret : 1;
	}
	struct json_w w;
	json_init_file(&w, stdout, JSON_SPACED);
	if (o.json) {
		json_begin_object(&w);
		json_kint(&w, "version", 1);
		json_key(&w, "imports");
		json_begin_array(&w);
	}
	for (int i = 1; i < nfiles; i++) {
		struct import_sink s;
		struct import_log_result lr;
		if (!okf[i]) {
			if (o.json) {
				memset(&s, 0, sizeof s);
				s.file = files[i];
				import_kind_json(&w, &s, imp->kind, why_not[i], NULL);
			}
			continue;
		}
		int db_failed = 0;
		int rc = import_file(imp, &o, files[i], &s, &lr, err, sizeof err, &db_failed);
		if (db_failed) {
			json_free(&lr.json);
			failed++;
			cli_error("import", "%s", err);
			break;
		}
		if (rc) {
			failed++;
			import_failed(&o, files[i], &s, err);
		}
		if (s.trace_id > 0)
			imported++;
		if (o.json)
			import_kind_json(&w, &s, imp->kind, rc ? err : NULL,
					 imp->run_log ? &lr.json : NULL);
		else if (!o.quiet && !rc && imp->run)
			print_text(&s);
		else if (!o.quiet && !rc)
			printf("%s\n", lr.text);
		json_free(&lr.json);
		if (s.trace_id <= 0) /* deleted (all or nothing): not in the database */
			continue;
		tot_cmd += s.commands;
		tot_mal += s.malformed;
		tot_ev += s.events;
	}
	free(okf);
	free(why_not);
	/* A database this run created and left without a trace goes again. */
	if (!imported && !db_existed) {
		static const char *const suffix[] = {"", "-wal", "-shm"};
		char pth[4200];
		for (size_t j = 0; j < 3; j++) {
			snprintf(pth, sizeof pth, "%s%s", o.db, suffix[j]);
			unlink(pth);
		}
	}
	uint64_t dt = db_mono_ns() - t0;
	if (o.json) {
		json_ws(&w, "\n  ");
		json_end_array(&w);
		json_kint(&w, "files", nfiles - 1);
		json_kint(&w, "failed", failed);
		json_kuint(&w, "commands", tot_cmd);
		json_kuint(&w, "malformed", tot_mal);
		json_kuint(&w, "events", tot_ev);
		json_kuint(&w, "elapsed_ns", dt);
		json_end_object(&w);
		json_newline(&w);
		if (json_done(&w))
			failed = cli_error("import", "the JSON output went wrong");
	} else if (nfiles > 2 && !o.quiet)
		printf("%d files (%d failed): %" PRIu64 " commands, %" PRIu64 " malformed, %" PRIu64
		       " events in %.3f s\n",
		       nfiles - 1, failed, tot_cmd, tot_mal, tot_ev, (double)dt / 1e9);
	return failed ? 1 : 0;
}

const struct subcommand subcmd_import = {
    "import",
    run_import,
    "import existing traces (pcap/pcapng, IMA lists, TCG event logs, swtpm logs, ftrace)",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Imports TPM traffic that was recorded by something else. Each FILE becomes one\n"
    "trace (kind 'import', source FILE) with one row per command, decoded like a live\n"
    "recording: command and response codes, sizes, handles, sessions, authorization\n"
    "kind, PCR index, flags and the reason a message did not parse. Recorded bytes\n"
    "(pcap, swtpm-log) are stored as record stores them: secrets redacted unless\n"
    "--payloads says otherwise. Imports are all or nothing: every FILE is recognised\n"
    "as the KIND named before anything is written (a missing FILE or one of another\n"
    "format is reported and creates no database), and a file that fails part-way\n"
    "(naming the packet, entry or byte offset) leaves no trace behind unless\n"
    "--keep-partial.\n"
    "\n"
    "KIND:\n"
    "  pcap        pcap or pcapng (any number of sections) of TCP traffic to a TPM:\n"
    "              raw TPM 2.0 messages (swtpm, tpm2-tss pcap TCTI) or MS simulator\n"
    "              framing (locality taken from it; platform-port codes become\n"
    "              events). Link types: raw IPv4/IPv6, Ethernet (VLAN tags), Linux\n"
    "              cooked SLL and SLL2, BSD loopback. TCP segments are reassembled\n"
    "              per connection; each connection is one client (addr:port).\n"
    "              Timestamps are the capture's; equal steps between all packets\n"
    "              mark them synthetic (flag 16).\n"
    "  ima         Linux IMA measurement lists (binary or ascii, native or canonical\n"
    "              byte order, per-bank *_sha256 files; templates ima, ima-ng,\n"
    "              ima-sig, ima-buf, ima-modsig, ima-ngv2, ima-sigv2): one\n"
    "              TPM2_PCR_Extend per entry with every bank's digest; violations\n"
    "              extended as 0xFF. Logs have no timing (flag 16, no latency).\n"
    "  tcglog      TCG firmware event logs (binary_bios_measurements, SHA-1 or\n"
    "              crypto-agile): TPM2_Startup at the StartupLocality, then one\n"
    "              TPM2_PCR_Extend per event; EV_NO_ACTION skipped.\n"
    "  swtpm-log   swtpm's own log at level 20 or more (swtpm --log file=F,level=20):\n"
    "              every SWTPM_IO_Read dump is a command, the SWTPM_IO_Write dump\n"
    "              after it its response; Ctrl Cmd/Ctrl Rsp become 'ctrl:NAME'\n"
    "              events and SET_LOCALITY sets the locality of what follows. The\n"
    "              log has no timestamps: flag 16, the ordinal as time, no latency.\n"
    "  ftrace      ftrace function_graph text of the kernel's TPM functions (as\n"
    "              posted on linux-integrity; funcgraph-abstime optional): one\n"
    "              command per timed TPM command, its code from the tpm2_* function\n"
    "              (tpm2_pcr_extend = PCR_Extend, tpm2_start_auth_session =\n"
    "              StartAuthSession, ...; docs/importers.md), its latency the\n"
    "              duration of tpm_transmit_cmd. No bytes (payloads 'none'; rc and\n"
    "              sizes NULL); without timestamps commands are laid end to end\n"
    "              (flag 16). An 'ftrace' event names the function and line.\n",
    "Prints per file: trace id, commands, malformed, events, clients, time span.\n"
    "Exit status: 0 all files imported, 1 a file failed (or is not of KIND), 2 usage\n"
    "error.\n",
    "tpmtrace import pcap tpm2_log.pcap capture2.pcapng --db traces.db\n"
    "tpmtrace import pcap --port 2321 --json mssim.pcap --db traces.db\n"
    "tpmtrace import tcglog /sys/kernel/security/tpm0/binary_bios_measurements --db boot.db\n"
    "tpmtrace import ima /sys/kernel/security/ima/binary_runtime_measurements --db boot.db\n"
    "tpmtrace import swtpm-log swtpm.log --db vm1.db\n"
    "tpmtrace import ftrace trace.txt --db boot.db\n",
    "pcap ima tcglog swtpm-log ftrace",
};
