/* tpmtrace record: the socket proxy in front of swtpm, recording into SQLite. */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "record.h"
#include "db/db.h"
#include "db/host_id.h"
#include "db/writer.h"
#include "model/tpm/decode.h"
#include "model/tpm/tpm_cc.h"
#include "model/tpm/wire.h"
#include "recorder/proxy.h"
#include "recorder/record_session.h"
#include "recorder/recorder.h"
#include "recorder/transport/swtpm_spawn.h"
#include "model/emulate.h"

enum {
	O_DB = 256,
	O_SPAWN,
	O_BACKEND,
	O_LISTEN,
	O_MSSIM,
	O_PAYLOADS,
	O_NAME,
	O_STATE,
	O_TIMEOUT,
	O_QUIET,
	O_QUEUE,
	O_FWD,
	O_EMU,
	O_SEED,
	O_MODE,
	O_GROUP,
	O_NOSTARTUP,
	O_RM,
	O_NORM,
	O_PCAP,
	O_PORT,
	O_PCAP_MSSIM,
	O_QEMU,
	O_SWCTRL,
	O_IDLE,
	O_PER_PEER,
	O_KERNEL,
	O_CMDLINE,
	O_EARLY,
	O_PIDFILE,
	O_INITRD
};
enum { M_PROXY = 1, M_PCAP = 2, M_QEMU = 4, M_KERNEL = 8 };
static const struct cli_opt opts[] = {
    {"db", O_DB, "FILE", 0,
     "database file, created 0600 if missing (default\n"
     "tpmtrace.db); nothing is created before the recorder\n"
     "listens, and its directory must exist",
     "@file"},
    {"spawn-swtpm", O_SPAWN, NULL, CLI_REQ,
     "start a private swtpm and record in front of it; it is\n"
     "sent TPM2_Startup(CLEAR) before any client connects\n"
     "(recorded as tpmtrace's own command, flag 32)",
     NULL, 0, 0, M_PROXY | M_QEMU, 1},
    {"backend", O_BACKEND, "SPEC", CLI_REQ,
     "an already running swtpm: swtpm:host=H,port=P\n"
     "(control at P+1), swtpm:path=SOCK (control at\n"
     "SOCK.ctrl), tcp:H:P, unix:PATH",
     "swtpm:host=127.0.0.1,port=2321 swtpm:path= tcp: unix:", 0, 0, M_PROXY, 1},
    {"swtpm-ctrl", O_SWCTRL, "PATH", CLI_REQ,
     "QEMU mode: the control socket of a running `swtpm\nsocket --ctrl type=unixio,path=PATH`",
     "@file", 0, 0, M_QEMU, 1},
    {"no-startup", O_NOSTARTUP, NULL, 0,
     "with --spawn-swtpm: send no TPM2_Startup (firmware or\n"
     "a kernel among the clients sends it)",
     NULL, 0, 0, M_PROXY},
    {"swtpm-state", O_STATE, "DIR", 0, "with --spawn-swtpm: keep swtpm's state in DIR", "@dir", 0,
     0, M_PROXY | M_QEMU},
    {"listen", O_LISTEN, "SPEC", CLI_MULTI,
     "where clients connect: tcp:HOST:PORT (swtpm control\n"
     "channel forwarded on PORT+1) or unix:PATH (control at\n"
     "PATH.ctrl). Raw TPM commands and MS-simulator framing\n"
     "are both accepted. PORT 0: a free pair of ports, named\n"
     "in the banner and in TPMTRACE_TCTI. Default:\n"
     "tcp:127.0.0.1:2321, or a private unix socket with\n"
     "-- COMMAND (none when only --listen-mssim is given)",
     NULL, 0, 0, M_PROXY},
    {"listen-mssim", O_MSSIM, "tcp:HOST:PORT", CLI_MULTI,
     "serve the MS simulator's two ports (commands on PORT,\n"
     "platform on PORT+1), mapped onto swtpm, for tpm2-tss's\n"
     "mssim: TCTI (PORT 0: a free pair)",
     NULL, 0, 0, M_PROXY},
    {"rm", O_RM, NULL, 0,
     "resource manager (the default with -- COMMAND): the\n"
     "transient objects and sessions a client leaves loaded\n"
     "are flushed when it disconnects, as /dev/tpmrm0 does;\n"
     "the flushes are recorded as tpmtrace's own commands",
     NULL, 0, 0, M_PROXY},
    {"no-rm", O_NORM, NULL, 0, "no resource manager: clients' handles stay loaded", NULL, 0, 0,
     M_PROXY},
    {"payloads", O_PAYLOADS, "MODE", CLI_CHOICE, CLI_PAYLOADS_HELP, CLI_PAYLOADS_CHOICES},
    {"name", O_NAME, "NAME", 0, "a name for the trace"},
    {"timeout", O_TIMEOUT, "MS", CLI_NUM,
     "how long to wait for the backend's response (default\n120000)", NULL, 1, 3600000, M_PROXY},
    {"queue-size", O_QUEUE, "N", CLI_NUM,
     "records the writer queue holds before it drops (a\n"
     "power of two; default 65536, with 16 MiB for their raw\n"
     "bytes); a size given gets 512 bytes a record (at least\n"
     "256 KiB, at most 64 MiB); only what is queued at the\n"
     "moment is resident",
     NULL, 2, 1 << 24, M_PROXY | M_KERNEL},
    {"quiet", O_QUIET, NULL, 0, "no summary at exit"},
    {"forward-only", O_FWD, NULL, 0,
     "proxy without recording (no database): the baseline\nthat tools/bench compares recording "
     "against",
     NULL, 0, 0, M_PROXY},
    {"emulate", O_EMU, "PROFILE", 0,
     "latency injection: hold every response until the\n"
     "latency PROFILE gives for that command (by command\n"
     "code, authorization kind and key/session variant,\n"
     "drawn from its distribution) has passed since the\n"
     "command was sent, so swtpm answers like the profiled\n"
     "TPM. PROFILE is a file, a profile stored in the\n"
     "database, or a shipped one. The recorded latencies\n"
     "are the emulated ones (flag 4) and the trace's\n"
     "'emulated' column names the profile",
     "@profile", 0, 0, M_PROXY},
    {"emulate-seed", O_SEED, "N", CLI_U64,
     "seed of the latency draws (default: random, stored in\nthe trace's 'emulate' event)", NULL, 0,
     0, M_PROXY},
    {"mode", O_MODE, "OCTAL", 0,
     "permissions of the database and its -wal/-shm files\n"
     "(default 0600: the trace may show what ran and when,\n"
     "even redacted); e.g. 0640 with --group to let a group\n"
     "read it. Only read/write bits; never world-writable",
     NULL, 0, 0, M_PROXY},
    {"group", O_GROUP, "GROUP", 0, "group (name or number) that owns the database files", NULL, 0,
     0, M_PROXY},
    {"idle-timeout", O_IDLE, "SECONDS", CLI_REAL,
     "close a client connection silent this long (default\n"
     "300; 0: never). The clock restarts when a client gets\n"
     "its answer, so a long TPM command is not idleness",
     NULL, 0, 86400 * 30, M_PROXY},
    {"max-per-peer", O_PER_PEER, "N", CLI_NUM,
     "connections one peer (TCP address, or uid on a unix\n"
     "socket) may hold (default 256). At this limit, and at\n"
     "the limit of all connections (1024, fewer if the file\n"
     "descriptor limit is lower), the oldest idle connection\n"
     "is closed for the new one; every such close is an event",
     NULL, 1, PROXY_MAX_CONN, M_PROXY},
    {"pcap-live", O_PCAP, "IFACE", CLI_REQ,
     "no proxy: capture TPM traffic on TCP port N (--port,\n"
     "default 2321) of IFACE with libpcap and decode it as\n"
     "'import pcap' does (needs CAP_NET_RAW). Times are\n"
     "capture times; with -- COMMAND, COMMAND must reach the\n"
     "TPM itself",
     NULL, 0, 0, M_PCAP},
    {"port", O_PORT, "N", CLI_NUM, "--pcap-live: the TPM's TCP port (default 2321)", NULL, 1, 65534,
     M_PCAP},
    {"mssim", O_PCAP_MSSIM, NULL, 0,
     "--pcap-live: capture port N+1 as the MS simulator's\nplatform port (its codes become "
     "events)",
     NULL, 0, 0, M_PCAP},
    {"qemu-ctrl", O_QEMU, "PATH", CLI_REQ,
     "QEMU mode: serve the unix socket QEMU's TPM emulator\n"
     "backend connects to (created 0600), forward every\n"
     "control message to swtpm and record it as an event\n"
     "(INIT = power-on, SHUTDOWN, STOP = reset,\n"
     "SET_LOCALITY, ...), and relay the data channel QEMU\n"
     "hands over with CMD_SET_DATAFD, recording every\n"
     "command with its locality. Stops when QEMU\n"
     "disconnects, or on SIGINT/SIGTERM",
     "@file", 0, 0, M_QEMU},
    {"kernel", O_KERNEL, NULL, CLI_REQ,
     "no proxy: record every command the kernel's TPM driver\n"
     "sends (eBPF on tpm_transmit; root, or CAP_BPF and\n"
     "CAP_PERFMON): IMA, the HMAC sessions, hwrng, trusted\n"
     "keys, user space through /dev/tpm0 and /dev/tpmrm0,\n"
     "the resource manager's swaps, each with its origin",
     NULL, 0, 0, M_KERNEL},
    {"cmdline", O_CMDLINE, NULL, 0,
     "--kernel: print the kernel command-line words of the\n"
     "early-boot way (kprobe events on tpm_transmit from boot\n"
     "on, CLOCK_MONOTONIC) and exit; nothing is recorded",
     NULL, 0, 0, M_KERNEL},
    {"early", O_EARLY, "FILE", 0,
     "--kernel: merge the early-boot way's output (FILE:\n"
     "/sys/kernel/tracing/trace of a boot with the --cmdline\n"
     "words) ahead of the eBPF part: the commands before it\n"
     "attached, leading 64 bytes and times, flag 64 (partial)",
     "@file", 0, 0, M_KERNEL},
    {"pidfile", O_PIDFILE, "FILE", 0,
     "--kernel: write the recorder's pid to FILE once the\n"
     "probes are attached and the trace has begun (from then\n"
     "on no command is missed; docs/record-boot.md's hand-over\n"
     "waits for it); removed at exit",
     "@file", 0, 0, M_KERNEL},
    {"initrd", O_INITRD, NULL, 0,
     "--kernel: started in the initramfs: argv[0] begins\n"
     "with '@', so that systemd leaves the recorder running\n"
     "across the switch to the real root (a root storage\n"
     "daemon)",
     NULL, 0, 0, M_KERNEL},
};
static const struct cli_form forms[] = {
    {M_PROXY, NULL, "[-- COMMAND ARGS...]"},
    {M_PCAP, NULL, "[-- COMMAND ARGS...]"},
    {M_QEMU, NULL, NULL},
    {M_KERNEL, NULL, "[-- COMMAND ARGS...]"},
};

static int run(int argc, char **argv);
const struct subcommand subcmd_record = {
    "record",
    run,
    "record TPM traffic through a proxy",
    CLI_FORMS(forms),
    CLI_OPTS(opts),
    "Records every TPM command and response that passes through a proxy in front of\n"
    "swtpm, with monotonic timing, into a SQLite database. The proxy forwards every\n"
    "byte unchanged; recording never blocks the TPM path (records are dropped and\n"
    "counted if the database cannot keep up or fails).\n"
    "\n"
    "With -- COMMAND, runs COMMAND with TPM2TOOLS_TCTI and TCTI pointing at the proxy,\n"
    "stops when it exits and returns its exit status (like strace or perf record).\n"
    "Without it, records until SIGINT or SIGTERM and exits with everything committed.\n"
    "SIGUSR1 prints a status line (stored, dropped, queued) and recording goes on.\n"
    "\n"
    "A command is exactly the bytes its size field declares (at most 4096): one\n"
    "declaring more, or less than its 10-byte header, is answered\n"
    "TPM_RC_COMMAND_SIZE without reaching the TPM and stored as malformed. Idle\n"
    "clients are closed after --idle-timeout; at a connection limit the oldest\n"
    "idle connection makes room for the new one; each such close is an event.\n"
    "\n"
    "With --pcap-live there is no proxy: traffic on a TCP port is captured with\n"
    "libpcap. With --qemu-ctrl, record stands between QEMU's -tpmdev emulator and\n"
    "swtpm and records a whole VM (firmware, kernel, IMA, user space; or simply:\n"
    "tpmtrace vm-record).\n",
    NULL,
    "tpmtrace record --spawn-swtpm --db boot.db -- tpm2_pcrread sha256:0,1\n"
    "tpmtrace record --backend swtpm:host=127.0.0.1,port=2321 --listen tcp:127.0.0.1:2331\n"
    "tpmtrace record --spawn-swtpm --emulate slb9670-linux-integrity -- tpm2_pcrread\n"
    "tpmtrace record --pcap-live lo --port 2321 --db lo.db\n"
    "tpmtrace record --qemu-ctrl /tmp/vtpm.sock --spawn-swtpm --db boot.db &\n",
    NULL,
    1,
};

/* What the proxy's loop wakes with: the session's stop signals. */
struct record_ctx {
	struct record_session *s;
	struct record_child child;
};

static int on_wake(void *arg)
{
	struct record_ctx *x = arg;
	return record_session_stop_due(x->s, &x->child);
}

/* One option k (its argument in p) into a. Returns 0 or the usage exit status. */
static int parse_option(int k, const struct cli_parse *p, struct record_args *a)
{
	char err[256];

	switch (k) {
	case O_DB:
		a->db_path = p->arg;
		break;
	case O_SPAWN:
		a->spawn = 1;
		break;
	case O_BACKEND:
		a->backend = p->arg;
		break;
	case O_LISTEN:
	case O_MSSIM: {
		struct endpoint ep;
		int mssim = k == O_MSSIM;
		if (net_endpoint_parse(p->arg, &ep, err, sizeof err) || (mssim && ep.is_unix))
			return cli_usage_error(
			    &subcmd_record, "--%s '%s': expected %s", p->opt->name, p->arg,
			    mssim ? "tcp:HOST:PORT" : "tcp:HOST:PORT or unix:PATH");
		if ((mssim ? a->n_mssim : a->n_listen) == RECORD_MAX_LISTEN)
			return cli_usage_error(&subcmd_record, "too many --%s", p->opt->name);
		if (mssim)
			a->mssims[a->n_mssim++] = p->arg;
		else
			a->listens[a->n_listen++] = p->arg;
		break;
	}
	case O_PAYLOADS:
		a->payloads = tpm_payload_mode_parse(p->arg);
		break;
	case O_NAME:
		a->name = p->arg;
		break;
	case O_STATE:
		a->state = p->arg;
		break;
	case O_TIMEOUT:
		a->timeout_ms = (long)p->num;
		break;
	case O_QUIET:
		a->quiet = 1;
		break;
	case O_FWD:
		a->forward_only = 1;
		break;
	case O_EMU:
		a->emulate = p->arg;
		break;
	case O_NOSTARTUP:
		a->no_startup = 1;
		break;
	case O_RM:
		a->rm = 1;
		break;
	case O_NORM:
		a->rm = 0;
		break;
	case O_IDLE:
		a->idle_s = p->real;
		break;
	case O_PER_PEER:
		a->per_peer = (unsigned)p->num;
		break;
	case O_SEED:
		a->seed = p->u64;
		a->have_seed = 1;
		break;
	case O_MODE: {
		char *end;
		long m = strtol(p->arg, &end, 8);
		if (*end || end == p->arg || m < 0 || (m & ~0666) || (m & 0002) ||
		    (m & 0600) != 0600)
			return cli_usage_error(&subcmd_record,
					       "--mode takes octal read/write bits with the "
					       "owner's rw and nothing world-writable (e.g. 0640), "
					       "not '%s'",
					       p->arg);
		a->file_mode = m;
		break;
	}
	case O_GROUP: {
		char *end;
		struct group *g = getgrnam(p->arg);
		unsigned long n = strtoul(p->arg, &end, 10);
		if (g)
			a->gid = g->gr_gid;
		else if (!*end && end != p->arg)
			a->gid = (gid_t)n;
		else
			return cli_usage_error(&subcmd_record, "--group: no group '%s'", p->arg);
		break;
	}
	case O_QUEUE:
		a->queue = (unsigned long)p->num;
		if (a->queue & (a->queue - 1))
			return cli_usage_error(&subcmd_record,
					       "--queue-size takes a power of two from 2 to %u, "
					       "not '%s'",
					       1u << 24, p->arg);
		break;
	case O_PCAP:
		a->iface = p->arg;
		break;
	case O_PORT:
		a->port = (unsigned)p->num;
		break;
	case O_PCAP_MSSIM:
		a->mssim = 1;
		break;
	case O_QEMU:
		a->qemu_ctrl = p->arg;
		break;
	case O_SWCTRL:
		a->swtpm_ctrl = p->arg;
		break;
	case O_KERNEL:
		a->kernel = 1;
		break;
	case O_CMDLINE:
		a->kernel_cmdline = 1;
		break;
	case O_EARLY:
		a->early = p->arg;
		break;
	case O_PIDFILE:
		a->pidfile = p->arg;
		break;
	case O_INITRD:
		a->initrd = 1;
		break;
	}
	return 0;
}

/* The options that go together (or not), once all are read. */
static int check_args(struct cli_parse *p, struct record_args *a)
{
	int k;

	if (!!a->iface + !!a->qemu_ctrl + !!a->kernel > 1)
		return cli_usage_error(&subcmd_record,
				       "--pcap-live, --qemu-ctrl and --kernel are modes: give one");
	if (a->kernel)
		return cli_only_mode(p, M_KERNEL, "with --kernel");
	if (a->iface)
		return cli_only_mode(p, M_PCAP, "with --pcap-live");
	if (a->qemu_ctrl)
		return cli_only_mode(p, M_QEMU, "with --qemu-ctrl");
	if ((k = cli_only_mode(p, M_PROXY, "without --pcap-live or --qemu-ctrl")))
		return k;
	if (a->spawn == !!a->backend)
		return cli_usage_error(&subcmd_record,
				       "give exactly one of --spawn-swtpm and --backend");
	if (a->state && !a->spawn)
		return cli_usage_error(&subcmd_record, "--swtpm-state goes with --spawn-swtpm");
	if (a->no_startup && !a->spawn)
		return cli_usage_error(&subcmd_record, "--no-startup goes with --spawn-swtpm");
	if (a->have_seed && !a->emulate)
		return cli_usage_error(&subcmd_record, "--emulate-seed goes with --emulate");
	if (a->forward_only && (a->file_mode >= 0 || a->gid != (gid_t)-1))
		return cli_usage_error(&subcmd_record, "--mode and --group need a database, not "
						       "--forward-only");
	return 0;
}

static int parse(int argc, char **argv, struct record_args *a)
{
	struct cli_parse p;
	int k;
	memset(a, 0, sizeof *a);
	a->db_path = "tpmtrace.db";
	a->payloads = PAYLOADS_REDACTED;
	a->timeout_ms = 120000;
	a->rm = -1;
	a->file_mode = -1;
	a->gid = (gid_t)-1;
	a->idle_s = PROXY_IDLE_TIMEOUT_MS / 1000.0;
	a->per_peer = PROXY_MAX_PER_PEER;
	cli_parse_init(&p, &subcmd_record, argc, argv);
	while ((k = cli_next(&p)) > 0)
		if ((k = parse_option(k, &p, a)))
			return k;
	if (k < 0)
		return EXIT_USAGE;
	if (p.ind < argc) {
		if (strcmp(argv[p.ind - 1], "--") != 0)
			return cli_usage_error(
			    &subcmd_record,
			    "unexpected argument '%s' (a command to run goes after --)",
			    argv[p.ind]);
		a->command = argv + p.ind;
	}
	return check_args(&p, a);
}

#define RECORD_TCTI_LEN PROXY_TCTI_LEN
/* The exit lines, each under 100 columns: commands, events, the TPM path.
 * The figures are the clients' commands (docs/schema.md, "Figures");
 * tpmtrace's own (the Startup of a spawned swtpm, the resource manager's
 * flushes) are counted on a line of their own. Forwarded = recorded +
 * dropped holds for each: an own command not committed was dropped. */
static void print_summary(const struct recorder *rec, int64_t trace_id,
			  const struct writer_stats *st)
{
	uint64_t own_kept = st->own_commands < rec->own ? st->own_commands : rec->own;
	uint64_t own_lost = rec->own - own_kept;
	fprintf(stderr,
		"tpmtrace record: trace %lld: %llu commands forwarded, %llu recorded, %llu "
		"dropped\n",
		(long long)trace_id, (unsigned long long)(rec->forwarded - rec->own),
		(unsigned long long)(st->commands - own_kept),
		(unsigned long long)(st->dropped_commands - own_lost));
	if (rec->own)
		fprintf(stderr,
			"tpmtrace record: %llu own commands (Startup, resource-manager flushes), "
			"%llu recorded\n",
			(unsigned long long)rec->own, (unsigned long long)own_kept);
	fprintf(stderr, "tpmtrace record: %llu events recorded, %llu dropped%s\n",
		(unsigned long long)st->events,
		(unsigned long long)(st->dropped - st->dropped_commands),
		st->dropped ? " (the database could not keep up or failed)" : "");
	fprintf(stderr, "tpmtrace record: the TPM path waited for the writer %llu times\n",
		(unsigned long long)st->waits);
}

/* The emulation's account, wrapped at 100 columns (it names the commands
 * the profile lacks, which may be many). */
static void print_emulation(const struct emulator *em)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return;
	fprintf(m,
		"emulated %s (%s, seed %llu): %llu responses held; %llu priced from another "
		"variant or authorization, %llu at the fallback %.3f ms",
		em->prof.name, em->from, (unsigned long long)em->seed,
		(unsigned long long)em->commands, (unsigned long long)em->approx,
		(unsigned long long)em->missing, em->fallback_ms);
	for (unsigned k = 0; k < em->n_missing_cc; k++)
		fprintf(m, "%s%s", k ? ", " : " (",
			tpm_cc_name(em->missing_cc[k]) ? tpm_cc_name(em->missing_cc[k]) : "?");
	fprintf(m,
		"%s; %llu came after their drawn latency (%.3f ms in all, %.3f ms not "
		"made up by later holds)",
		em->n_missing_cc ? ")" : "", (unsigned long long)em->late,
		(double)em->late_ns / 1e6, (double)em->debt_ns / 1e6);
	if (fclose(m) == 0)
		db_text_wrap(stderr, "tpmtrace record: ", 17, text, len, DB_TEXT_WIDTH);
	free(text);
}

/* The trace and its writer (not with --forward-only), at --mode/--group. */
static int begin_trace(struct record_session *s, const struct record_args *a, const char *source,
		       const struct emulator *em, struct recorder *rec)
{
	char err[512];
	struct record_trace_cfg tc = {.db_path = a->db_path,
				      .file_mode = a->file_mode,
				      .name = a->name,
				      .source = source,
				      .emulated = em ? em->prof.name : NULL,
				      .payloads = a->payloads,
				      .queue_slots = (uint32_t)a->queue,
				      .set_group = a->gid != (gid_t)-1,
				      .gid = a->gid};
	if (a->forward_only)
		return 0;
	if (record_session_begin(s, &tc, err, sizeof err))
		return cli_error("record", "%s", err);
	rec->w = s->w;
	return 0;
}

/* The socket proxy: in front of a swtpm (spawned or given), recording until
 * a signal or the end of -- COMMAND. */
static int record_proxy(const struct record_args *a)
{
	const char *backend = a->backend;
	struct emulator em;
	int have_em = 0, ret = 1, rc;
	char err[512], sockdir[64] = "", tcti[RECORD_TCTI_LEN] = "", all[1024] = "";
	struct swtpm_child sw = {0};
	struct transport *tr = NULL;
	struct proxy *px = NULL;
	struct recorder rec;
	struct record_session s;
	struct record_ctx x = {0};
	int rm = a->rm < 0 ? !!a->command : a->rm;

	record_session_init(&s);
	if (!a->forward_only && cli_db_for_create("record", a->db_path))
		return 1;
	/* The profile is checked before anything is started or written: a
	 * bad profile leaves no database and no trace behind. */
	if (a->emulate) {
		if (record_emulator_init(&em, a->forward_only ? NULL : a->db_path, a->emulate,
					 a->have_seed, a->seed, err, sizeof err))
			return cli_error("record", "--emulate: %s", err);
		have_em = 1;
	}
	cli_payloads_warn("record", a->payloads, a->db_path);
	/* Signals arrive through a signalfd that the proxy loop watches. */
	record_session_signals(&s, RECORD_SIG_CHLD);
	x.s = &s;
	if (a->spawn) {
		if (swtpm_spawn(&sw, a->state, SWTPM_SOCKETS, err, sizeof err)) {
			cli_error("record", "%s", err);
			goto out;
		}
		backend = sw.tcti;
	}
	if (transport_swtpm_open(backend, &tr, err, sizeof err)) {
		cli_error("record", "%s", err);
		goto out;
	}
	tr->timeout_ms = (int)a->timeout_ms;
	/* Listening first: a listener that cannot be had (address in use)
	 * ends here, before the database or a trace exists. */
	recorder_init(&rec, NULL, tr, a->payloads);
	if (have_em)
		rec.emu = &em;
	if (proxy_new(&px, &rec)) {
		cli_error("record", "out of memory");
		goto out;
	}
	proxy_set_rm(px, rm);
	/* A timeout below 1 ms would be none at all: round it up. */
	proxy_set_limits(
	    px, a->idle_s > 0 && a->idle_s < 0.001 ? 1 : (unsigned)(a->idle_s * 1000 + 0.5),
	    a->per_peer);
	struct proxy_listen_cfg lc = {a->listens, a->n_listen, a->mssims, a->n_mssim, !!a->command};
	if (proxy_listen_all(px, &lc, sockdir, sizeof sockdir, all, sizeof all, err, sizeof err)) {
		cli_error("record", "%s", err);
		goto out;
	}
	snprintf(tcti, sizeof tcti, "%.*s", (int)strcspn(all, "\n"), all);
	if (begin_trace(&s, a, a->spawn ? "swtpm (spawned)" : backend, have_em ? &em : NULL, &rec))
		goto out;
	recorder_event(&rec, "record-start", backend, 0);
	if (have_em) {
		char emdetail[400];
		snprintf(emdetail, sizeof emdetail, "profile=%s from=%s seed=%llu", em.prof.name,
			 em.from, (unsigned long long)em.seed);
		recorder_event(&rec, "emulate", emdetail, 0);
	}
	if (a->spawn && !a->no_startup && recorder_startup(&rec, err, sizeof err)) {
		cli_error("record", "%s", err);
		goto out;
	}

	if (a->command) {
		if ((x.child.pid = cli_spawn("record", a->command, &s.oldmask, tcti)) < 0)
			goto out;
	} else if (!a->quiet) {
		fprintf(stderr,
			"tpmtrace record: recording into %s (trace %lld); stop with Ctrl-C\n",
			a->forward_only ? "nothing (--forward-only)" : cli_name(a->db_path),
			(long long)s.trace_id);
		/* a line a listener: where its clients connect */
		for (char *l = all, *nl; (nl = strchr(l, '\n')); l = nl + 1)
			fprintf(stderr, "tpmtrace record: clients: TPM2TOOLS_TCTI=%.*s\n",
				(int)(nl - l), l);
	}
	proxy_run(px, s.sfd, on_wake, &x);
	/* The clients still connected go now (their leftovers flushed under
	 * --rm), before the trace's last event. */
	proxy_close_clients(px);
	recorder_stop_event(&rec, "record-stop", x.child.signal ? strsignal(x.child.signal) : NULL);
	proxy_free(px);
	px = NULL;

	struct writer_stats st = {0};
	rc = 0;
	if (s.w) {
		rc = record_session_end(&s, &st);
		rec.w = NULL;
		if (rc)
			fprintf(stderr, "tpmtrace record: could not finalize trace %lld in %s\n",
				(long long)s.trace_id, cli_name(a->db_path));
	}
	if (!a->quiet || st.dropped)
		print_summary(&rec, s.trace_id, &st);
	if (have_em && (!a->quiet || em.missing))
		print_emulation(&em);
	ret = a->command ? cli_exit_status(x.child.status) : 0;
	if (rc && !ret)
		ret = 1; /* the trace could not be closed: say so in the status too */
out:
	if (x.child.pid > 0) {
		kill(x.child.pid, SIGTERM);
		waitpid(x.child.pid, NULL, 0);
	}
	proxy_free(px);
	record_session_close(&s);
	if (tr)
		tr->ops->close(tr);
	swtpm_stop(&sw);
	if (sockdir[0])
		rmdir(sockdir);
	if (have_em)
		emulate_release(&em);
	return ret;
}

static int run(int argc, char **argv)
{
	struct record_args a;
	int rc = parse(argc, argv, &a);
	if (rc)
		return rc;
	/* Before any thread: a recorder never maps libcrypto (db/host_id.h). */
	db_host_id_prefetch();
	if (a.iface)
		return record_pcap_live(&a);
	if (a.qemu_ctrl)
		return record_qemu_main(&a);
	if (a.kernel)
		return record_kernel_main(&a);
	return record_proxy(&a);
}
