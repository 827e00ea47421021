/* tpmtrace record: the socket proxy in front of swtpm, recording into SQLite. */
#include <errno.h>
#include <getopt.h>
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
#include "record_pcap.h"
#include "db/db.h"
#include "db/writer.h"
#include "model/tpm_cc.h"
#include "recorder/proxy.h"
#include "recorder/recorder.h"
#include "recorder/swtpm_spawn.h"
#include "record_qemu.h"
#include "replayer/emulate.h"

static const char usage[] =
    "usage: tpmtrace record [--db FILE] (--spawn-swtpm | --backend SPEC)\n"
    "                       [--listen SPEC]... [--listen-mssim tcp:HOST:PORT]...\n"
    "                       [--payloads none|redacted|full] [--name NAME]\n"
    "                       [--swtpm-state DIR] [--timeout MS] [--queue-size N] [--quiet]\n"
    "                       [--forward-only] [--emulate PROFILE [--emulate-seed N]]\n"
    "                       [--mode OCTAL] [--group GROUP]\n"
    "                       [--idle-timeout SECONDS] [--max-per-peer N]\n"
    "                       [-- COMMAND ARGS...]\n"
    "       tpmtrace record --pcap-live IFACE [--port N] [--mssim] [--db FILE]\n"
    "                       [--payloads MODE] [--name NAME] [--quiet] [-- COMMAND ARGS...]\n"
    "\n"
    "Records every TPM command and response that passes through a proxy in front of\n"
    "swtpm, with monotonic timing, into a SQLite database. The proxy forwards every\n"
    "byte unchanged; recording never blocks the TPM path (records are dropped and\n"
    "counted if the database cannot keep up or fails).\n"
    "\n"
    "With -- COMMAND, runs COMMAND with TPM2TOOLS_TCTI and TCTI pointing at the proxy,\n"
    "stops when it exits and returns its exit status (like strace or perf record).\n"
    "Without it, records until SIGINT or SIGTERM and exits with everything committed.\n"
    "\n"
    "Options:\n"
    "  --db FILE            database file, created 0600 if missing (default tpmtrace.db)\n"
    "  --spawn-swtpm        start a private swtpm (fresh state, not started up: the\n"
    "                       first command should be TPM2_Startup) and record in front of it\n"
    "  --backend SPEC       an already running swtpm: swtpm:host=H,port=P (control at\n"
    "                       P+1), swtpm:path=SOCK (control at SOCK.ctrl), tcp:H:P, unix:PATH\n"
    "  --swtpm-state DIR    with --spawn-swtpm: keep swtpm's state in DIR\n"
    "  --listen SPEC        where clients connect: tcp:HOST:PORT (swtpm control channel\n"
    "                       forwarded on PORT+1) or unix:PATH (control at PATH.ctrl).\n"
    "                       Raw TPM commands and MS-simulator framing are both accepted.\n"
    "                       Default tcp:127.0.0.1:2321, or a private unix socket with\n"
    "                       -- COMMAND. May be given several times.\n"
    "  --listen-mssim tcp:HOST:PORT\n"
    "                       serve the MS simulator's two ports (commands on PORT,\n"
    "                       platform on PORT+1), mapped onto swtpm, for tpm2-tss's\n"
    "                       mssim: TCTI. May be given several times.\n"
    "  --payloads MODE      none: no raw bytes; redacted (default): raw bytes with\n"
    "                       secrets zeroed (docs/security.md); full: everything, secrets\n"
    "                       included (warns)\n"
    "  --name NAME          a name for the trace\n"
    "  --timeout MS         how long to wait for the backend's response (default 120000)\n"
    "  --queue-size N       records the writer queue holds before it drops (a power of\n"
    "                       two; default 4096); their raw bytes get 512 bytes a record\n"
    "                       (at least 256 KiB, at most 64 MiB)\n"
    "  --quiet              no summary at exit\n"
    "  --forward-only       proxy without recording (no database): the baseline that\n"
    "                       tools/bench compares recording against\n"
    "  --emulate PROFILE    latency injection: hold every response until the latency\n"
    "                       PROFILE gives for that command (by command code,\n"
    "                       authorization kind and key/session variant, drawn from its\n"
    "                       distribution) has passed since the command was sent, so\n"
    "                       swtpm answers like the profiled TPM. PROFILE is a file, a\n"
    "                       profile stored in the database, or a shipped one. The\n"
    "                       recorded latencies are the emulated ones (flag 4) and the\n"
    "                       trace's 'emulated' column names the profile\n"
    "  --emulate-seed N     seed of the latency draws (default: random, stored in the\n"
    "                       trace's 'emulate' event)\n"
    "  --pcap-live IFACE    no proxy: capture TPM traffic on TCP port N (--port,\n"
    "                       default 2321) of IFACE with libpcap and decode it as\n"
    "                       'import pcap' does ('record --pcap-live lo --help' for more)\n"
    "  --mode OCTAL         permissions of the database and its -wal/-shm files\n"
    "                       (default 0600: the trace may show what ran and when, even\n"
    "                       redacted); e.g. 0640 with --group to let a group read it.\n"
    "                       Only read/write bits; never world-writable\n"
    "  --group GROUP        group (name or number) that owns the database files\n"
    "  --idle-timeout SECONDS\n"
    "                       close a client connection silent this long (default\n"
    "                       300; 0: never). The clock restarts when a client gets\n"
    "                       its answer, so a long TPM command is not idleness\n"
    "  --max-per-peer N     connections one peer (TCP address, or uid on a unix\n"
    "                       socket) may hold (default 256). At this limit, and at\n"
    "                       the limit of all connections (1024, fewer if the file\n"
    "                       descriptor limit is lower), the oldest idle connection\n"
    "                       is closed for the new one; every such close is an event\n"
    "  -h, --help           this text\n"
    "\n"
    "Examples:\n"
    "  tpmtrace record --spawn-swtpm --db boot.db -- tpm2_pcrread sha256:0,1\n"
    "  tpmtrace record --backend swtpm:host=127.0.0.1,port=2321 --listen tcp:127.0.0.1:2331\n"
    "  tpmtrace record --spawn-swtpm --emulate slb9670-linux-integrity -- tpm2_pcrread\n"
    "  tpmtrace record --pcap-live lo --port 2321 --db lo.db\n"
    "\n" RECORD_QEMU_USAGE;

/* Applies --mode/--group to the database and the WAL files SQLite made
 * beside it (they are created with the database's mode: 0600). */
static int widen_files(const char *db_path, long mode, gid_t gid)
{
	static const char *const suffix[] = {"", "-wal", "-shm"};
	char p[4200];
	for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
		snprintf(p, sizeof p, "%s%s", db_path, suffix[i]);
		if (gid != (gid_t)-1 && chown(p, (uid_t)-1, gid) && errno != ENOENT)
			return die("record", "%s: cannot give it to group %u: %s", p, (unsigned)gid,
				   strerror(errno));
		if (mode >= 0 && chmod(p, (mode_t)mode) && errno != ENOENT)
			return die("record", "%s: cannot set mode %04lo: %s", p, mode,
				   strerror(errno));
	}
	return 0;
}

static int run(int argc, char **argv);
const struct subcommand subcmd_record = {"record", run, "record TPM traffic through a proxy",
					 usage};

struct record_ctx {
	int sfd;
	pid_t child;
	int child_status;
	int stop_signal;
};

static int on_wake(void *arg)
{
	struct record_ctx *x = arg;
	struct signalfd_siginfo si;
	while (read(x->sfd, &si, sizeof si) == sizeof si) {
		if (si.ssi_signo == SIGCHLD) {
			int status;
			if (x->child > 0 && waitpid(x->child, &status, WNOHANG) == x->child) {
				x->child_status = status;
				x->child = 0;
				return 1;
			}
		} else {
			x->stop_signal = (int)si.ssi_signo;
			if (x->child > 0)
				kill(x->child, (int)si.ssi_signo);
			else
				return 1;
		}
	}
	return 0;
}

static int run(int argc, char **argv)
{
	const char *db_path = "tpmtrace.db", *backend = NULL, *name = NULL, *state = NULL;
	const char *listens[8], *mssims[8];
	int n_listen = 0, n_mssim = 0, spawn = 0, quiet = 0, payloads = PAYLOADS_REDACTED;
	long timeout_ms = 120000;
	unsigned long queue = 0;
	int forward_only = 0;
	const char *emulate = NULL;
	uint64_t seed = 0;
	int have_seed = 0;
	struct emulator em;
	int have_em = 0;
	char emdetail[400] = "";
	long file_mode = -1;
	gid_t file_gid = (gid_t)-1;
	double idle_s = PROXY_IDLE_TIMEOUT_MS / 1000.0;
	unsigned long per_peer = PROXY_MAX_PER_PEER;
	int64_t trace_id = 0;
	char err[512], sockdir[64] = "", default_listen[128];
	struct swtpm_child sw = {0};
	struct transport *tr = NULL;
	struct writer *w = NULL;
	struct proxy *px = NULL;
	struct recorder rec;
	struct record_ctx x = {.sfd = -1};
	sqlite3 *db = NULL;
	int ret = 1, rc;
	sigset_t mask, oldmask;

	enum {
		O_DB = 1,
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
		O_IDLE,
		O_PER_PEER
	};
	static const struct option opts[] = {{"db", required_argument, 0, O_DB},
					     {"spawn-swtpm", no_argument, 0, O_SPAWN},
					     {"backend", required_argument, 0, O_BACKEND},
					     {"listen", required_argument, 0, O_LISTEN},
					     {"listen-mssim", required_argument, 0, O_MSSIM},
					     {"payloads", required_argument, 0, O_PAYLOADS},
					     {"name", required_argument, 0, O_NAME},
					     {"swtpm-state", required_argument, 0, O_STATE},
					     {"timeout", required_argument, 0, O_TIMEOUT},
					     {"quiet", no_argument, 0, O_QUIET},
					     {"queue-size", required_argument, 0, O_QUEUE},
					     {"forward-only", no_argument, 0, O_FWD},
					     {"emulate", required_argument, 0, O_EMU},
					     {"emulate-seed", required_argument, 0, O_SEED},
					     {"mode", required_argument, 0, O_MODE},
					     {"group", required_argument, 0, O_GROUP},
					     {"idle-timeout", required_argument, 0, O_IDLE},
					     {"max-per-peer", required_argument, 0, O_PER_PEER},
					     {0, 0, 0, 0}};
	/* Between QEMU and swtpm: a mode of its own (record_qemu.c). */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], "--qemu-ctrl", 11))
			return record_qemu_main(argc, argv);
	/* Live capture instead of a proxy: its own options (record_pcap.c). */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--pcap-live") || !strncmp(argv[i], "--pcap-live=", 12))
			return record_pcap_live(argc, argv);
	int o;
	optind = 1;
	while ((o = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (o) {
		case O_DB:
			db_path = optarg;
			break;
		case O_SPAWN:
			spawn = 1;
			break;
		case O_BACKEND:
			backend = optarg;
			break;
		case O_LISTEN:
			if (n_listen == 8)
				return usage_error(&subcmd_record, "too many --listen");
			listens[n_listen++] = optarg;
			break;
		case O_MSSIM:
			if (n_mssim == 8)
				return usage_error(&subcmd_record, "too many --listen-mssim");
			mssims[n_mssim++] = optarg;
			break;
		case O_PAYLOADS:
			payloads = payload_mode_parse(optarg);
			if (payloads < 0)
				return usage_error(&subcmd_record,
						   "--payloads takes none, redacted or full, not "
						   "'%s'",
						   optarg);
			break;
		case O_NAME:
			name = optarg;
			break;
		case O_STATE:
			state = optarg;
			break;
		case O_TIMEOUT:
			timeout_ms = strtol(optarg, NULL, 10);
			if (timeout_ms <= 0)
				return usage_error(&subcmd_record, "--timeout takes milliseconds");
			break;
		case O_QUIET:
			quiet = 1;
			break;
		case O_FWD:
			forward_only = 1;
			break;
		case O_EMU:
			emulate = optarg;
			break;
		case O_SEED: {
			char *e;
			errno = 0;
			seed = strtoull(optarg, &e, 0);
			if (errno || *e || !*optarg || optarg[0] == '-')
				return usage_error(&subcmd_record,
						   "--emulate-seed takes an unsigned integer, not "
						   "'%s'",
						   optarg);
			have_seed = 1;
			break;
		}
		case O_MODE: {
			char *end;
			file_mode = strtol(optarg, &end, 8);
			if (*end || end == optarg || file_mode < 0 || (file_mode & ~0666) ||
			    (file_mode & 0002) || (file_mode & 0600) != 0600)
				return usage_error(
				    &subcmd_record,
				    "--mode takes octal read/write bits with the "
				    "owner's rw and nothing world-writable (e.g. 0640), "
				    "not '%s'",
				    optarg);
			break;
		}
		case O_GROUP: {
			char *end;
			struct group *g = getgrnam(optarg);
			unsigned long n = strtoul(optarg, &end, 10);
			if (g)
				file_gid = g->gr_gid;
			else if (!*end && end != optarg)
				file_gid = (gid_t)n;
			else
				return usage_error(&subcmd_record, "--group: no group '%s'",
						   optarg);
			break;
		}
		case O_IDLE: {
			char *end;
			idle_s = strtod(optarg, &end);
			if (*end || end == optarg || !(idle_s >= 0) || idle_s > 86400 * 30)
				return usage_error(&subcmd_record,
						   "--idle-timeout takes seconds up to 30 days (0: "
						   "never), not '%s'",
						   optarg);
			break;
		}
		case O_PER_PEER: {
			char *end;
			per_peer = strtoul(optarg, &end, 10);
			if (*end || end == optarg || optarg[0] == '-' || !per_peer ||
			    per_peer > PROXY_MAX_CONN)
				return usage_error(
				    &subcmd_record,
				    "--max-per-peer takes a number from 1 to %u, not "
				    "'%s'",
				    PROXY_MAX_CONN, optarg);
			break;
		}
		case O_QUEUE:
			queue = strtoul(optarg, NULL, 10);
			if (queue < 2 || queue > (1u << 24) || (queue & (queue - 1)))
				return usage_error(&subcmd_record,
						   "--queue-size takes a power of two from 2 to %u",
						   1u << 24);
			break;
		default:
			return usage_error(&subcmd_record, "unknown option");
		}
	}
	char **command = optind < argc ? argv + optind : NULL;
	if (command && strcmp(argv[optind - 1], "--") != 0)
		return usage_error(&subcmd_record,
				   "unexpected argument '%s' (a command to run "
				   "goes after --)",
				   argv[optind]);
	if (spawn == !!backend)
		return usage_error(&subcmd_record,
				   "give exactly one of --spawn-swtpm and --backend");
	if (state && !spawn)
		return usage_error(&subcmd_record, "--swtpm-state goes with --spawn-swtpm");
	if (have_seed && !emulate)
		return usage_error(&subcmd_record, "--emulate-seed goes with --emulate");

	if (emulate) {
		/* The profile is checked before anything is started or written:
		 * a bad profile leaves no database and no trace behind. A
		 * profile stored in an existing database is found there. */
		sqlite3 *pdb = NULL;
		if (!forward_only && access(db_path, F_OK) == 0 &&
		    db_open(db_path, DB_READ, &pdb, err, sizeof err))
			pdb = NULL;
		rc = emulate_init(&em, pdb, emulate, have_seed ? seed : emulate_random_seed(), err,
				  sizeof err);
		db_close(pdb);
		if (rc) {
			die("record", "--emulate: %s", err);
			return 1;
		}
		have_em = 1;
		snprintf(emdetail, sizeof emdetail, "profile=%s from=%s seed=%llu", em.prof.name,
			 em.from, (unsigned long long)em.seed);
	}

	if (payloads == PAYLOADS_FULL)
		fprintf(stderr,
			"tpmtrace record: --payloads full: secrets (unsealed data, random "
			"bytes, passwords, sensitive areas) will be stored in %s\n",
			db_path);

	/* Signals arrive through a signalfd that the proxy loop watches. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	signal(SIGPIPE, SIG_IGN);
	x.sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

	if (spawn) {
		rc = swtpm_spawn(&sw, state, SWTPM_SOCKETS, err, sizeof err);
		if (rc) {
			die("record", "%s", err);
			goto out;
		}
		backend = sw.tcti;
	}
	rc = transport_swtpm_open(backend, &tr, err, sizeof err);
	if (rc) {
		die("record", "%s", err);
		goto out;
	}
	tr->timeout_ms = (int)timeout_ms;

	if (!forward_only) {
		/* Created (or adopted) at the mode asked for, not widened after. */
		rc = file_mode >= 0 ? db_open_perm(db_path, DB_CREATE, (unsigned)file_mode, &db,
						   err, sizeof err)
				    : db_open(db_path, DB_CREATE, &db, err, sizeof err);
		if (rc) {
			die("record", "%s", err);
			goto out;
		}
		struct trace_info ti = {.name = name,
					.kind = "record",
					.source = spawn ? "swtpm (spawned)" : backend,
					.payloads = payload_mode_str(payloads),
					.emulated = have_em ? em.prof.name : NULL};
		trace_id = db_trace_begin(db, &ti);
		if (trace_id < 0) {
			die("record", "%s: cannot add a trace: %s", db_path, sqlite3_errmsg(db));
			goto out;
		}
		db_close(db);
		db = NULL;
		/* The writer sizes the payload ring from the queue. */
		struct writer_cfg wc = {
		    .path = db_path, .trace_id = trace_id, .queue_slots = (uint32_t)queue};
		rc = writer_start(&w, &wc, err, sizeof err);
		if (rc) {
			die("record", "%s", err);
			goto out;
		}
		if ((file_mode >= 0 || file_gid != (gid_t)-1) &&
		    widen_files(db_path, file_mode, file_gid))
			goto out;
	}
	recorder_init(&rec, w, tr, payloads);
	if (have_em)
		rec.emu = &em;
	rc = proxy_new(&px, &rec);
	if (rc) {
		die("record", "out of memory");
		goto out;
	}
	/* A timeout below 1 ms would be none at all: round it up. */
	proxy_set_limits(px, idle_s > 0 && idle_s < 0.001 ? 1 : (unsigned)(idle_s * 1000 + 0.5),
			 (unsigned)per_peer);
	if (!n_listen) {
		if (command) {
			snprintf(sockdir, sizeof sockdir, "%s/tpmtrace-XXXXXX",
				 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
			if (strlen(sockdir) > 40 || !mkdtemp(sockdir)) {
				snprintf(sockdir, sizeof sockdir, "/tmp/tpmtrace-XXXXXX");
				if (!mkdtemp(sockdir)) {
					die("record", "cannot create a socket directory: %s",
					    strerror(errno));
					goto out;
				}
			}
			snprintf(default_listen, sizeof default_listen, "unix:%s/tpm.sock",
				 sockdir);
		} else {
			snprintf(default_listen, sizeof default_listen, "tcp:127.0.0.1:2321");
		}
		listens[n_listen++] = default_listen;
	}
	char tcti[200] = "";
	for (int i = 0; i < n_listen; i++) {
		struct endpoint ep, ctrl;
		if (endpoint_parse(listens[i], &ep, err, sizeof err) ||
		    proxy_listen(px, &ep, LISTEN_DATA, err, sizeof err)) {
			die("record", "--listen %s", err);
			goto out;
		}
		endpoint_ctrl_of(&ep, &ctrl);
		if (proxy_listen(px, &ctrl, LISTEN_CTRL, err, sizeof err)) {
			die("record", "control channel: %s", err);
			goto out;
		}
		if (!tcti[0]) {
			if (ep.is_unix)
				snprintf(tcti, sizeof tcti, "swtpm:path=%s", ep.path);
			else
				snprintf(tcti, sizeof tcti, "swtpm:host=%s,port=%u", ep.host,
					 ep.port);
		}
	}
	for (int i = 0; i < n_mssim; i++) {
		struct endpoint ep, plat;
		if (endpoint_parse(mssims[i], &ep, err, sizeof err) || ep.is_unix) {
			die("record", "--listen-mssim '%s': expected tcp:HOST:PORT", mssims[i]);
			goto out;
		}
		plat = ep;
		plat.port++;
		if (proxy_listen(px, &ep, LISTEN_DATA, err, sizeof err) ||
		    proxy_listen(px, &plat, LISTEN_MSSIM_PLAT, err, sizeof err)) {
			die("record", "--listen-mssim %s", err);
			goto out;
		}
	}
	recorder_event(&rec, "record-start", backend, 0);
	if (have_em)
		recorder_event(&rec, "emulate", emdetail, 0);

	if (command) {
		if ((x.child = cli_spawn("record", command, &oldmask, tcti)) < 0)
			goto out;
	} else if (!quiet) {
		fprintf(stderr,
			"tpmtrace record: recording into %s (trace %lld); clients: "
			"TPM2TOOLS_TCTI=%s; stop with Ctrl-C\n",
			forward_only ? "nothing (--forward-only)" : db_path, (long long)trace_id,
			tcti);
	}
	proxy_run(px, x.sfd, on_wake, &x);
	recorder_stop_event(&rec, "record-stop", x.stop_signal ? strsignal(x.stop_signal) : NULL);
	proxy_free(px);
	px = NULL;

	struct writer_stats st = {0};
	if (w) {
		rc = writer_stop(w, "complete", &st);
		w = NULL;
		if (rc)
			fprintf(stderr, "tpmtrace record: could not finalize trace %lld in %s\n",
				(long long)trace_id, db_path);
	}
	if (!quiet || st.dropped)
		fprintf(stderr,
			"tpmtrace record: trace %lld: %llu commands forwarded, %llu recorded, %llu "
			"dropped; %llu events recorded, %llu dropped%s\n",
			(long long)trace_id, (unsigned long long)rec.forwarded,
			(unsigned long long)st.commands, (unsigned long long)st.dropped_commands,
			(unsigned long long)st.events,
			(unsigned long long)(st.dropped - st.dropped_commands),
			st.dropped ? " (the database could not keep up or failed)" : "");
	if (have_em && (!quiet || em.missing)) {
		fprintf(stderr,
			"tpmtrace record: emulated %s (%s, seed %llu): %llu responses held; %llu "
			"priced from another variant or authorization, %llu at the fallback "
			"%.3f ms",
			em.prof.name, em.from, (unsigned long long)em.seed,
			(unsigned long long)em.commands, (unsigned long long)em.approx,
			(unsigned long long)em.missing, em.fallback_ms);
		for (unsigned k = 0; k < em.n_missing_cc; k++)
			fprintf(stderr, "%s%s", k ? ", " : " (",
				tpm_cc_name(em.missing_cc[k]) ? tpm_cc_name(em.missing_cc[k])
							      : "?");
		fprintf(stderr,
			"%s; %llu came after their drawn latency (%.3f ms in all, %.3f ms not "
			"made up by later holds)\n",
			em.n_missing_cc ? ")" : "", (unsigned long long)em.late,
			(double)em.late_ns / 1e6, (double)em.debt_ns / 1e6);
	}
	ret = command ? cli_exit_status(x.child_status) : 0;
out:
	if (x.child > 0) {
		kill(x.child, SIGTERM);
		waitpid(x.child, NULL, 0);
	}
	proxy_free(px);
	if (w)
		writer_stop(w, "incomplete", NULL);
	db_close(db);
	if (tr)
		tr->ops->close(tr);
	swtpm_stop(&sw);
	if (sockdir[0])
		rmdir(sockdir);
	if (x.sfd >= 0)
		close(x.sfd);
	if (have_em)
		emulate_release(&em);
	return ret;
}
