/* tpm-cuse-proxy: options, the diagnostics modes, and the set-up and tear-down
 * of the proxy (detaching, the guardian, the recording, the CUSE device of
 * cuse_dev.c). */
#include "cuse_state.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuse_proxy.h"
#include "recorder/record_session.h"

static const char usage[] =
    "usage: tpm-cuse-proxy --backend DEVICE|TCTI --name NAME (--db FILE | --no-record)\n"
    "                      [--mode OCTAL] [--group GROUP] [--takeover] [--foreground]\n"
    "                      [--payloads none|redacted|full] [--trace-name NAME]\n"
    "                      [--exclusive | --shared] [--dev-dir DIR] [--debug]\n"
    "                      [--pidfile FILE] [--initrd]\n"
    "       tpm-cuse-proxy --restore [--name NAME] [--dev-dir DIR]\n"
    "       tpm-cuse-proxy --probe DEVICE [--exclusive]\n"
    "       tpm-cuse-proxy --bench DEVICE[,DEVICE...] [--bench-command extend|getrandom]\n"
    "                      [--count N] [--rounds R] [--json]\n"
    "\n"
    "Serves a CUSE character device /dev/NAME that behaves like the kernel's TPM\n"
    "devices: a write carries one whole command, a read returns the response (or\n"
    "the part asked for, the rest on the next read), a second write before the\n"
    "response is read fails with EBUSY, O_NONBLOCK and poll work. Every command is\n"
    "forwarded to the backend, one at a time, and recorded into a tpmtrace\n"
    "database with its timing and the process that sent it.\n"
    "\n"
    "Options:\n"
    "  --backend B       the real TPM: a device node (/dev/tpmrm0: every open of\n"
    "                    /dev/NAME gets its own backend open, i.e. its own resource\n"
    "                    manager space; /dev/tpm0: one open shared), swtpm:path=SOCK,\n"
    "                    swtpm:host=H,port=P, or any tpm2-tss TCTI string\n"
    "                    (mssim:host=H,port=P, tabrmd, ...)\n"
    "  --name NAME       device name under /dev (default tpmproxy0). Names starting\n"
    "                    with tpmrm allow many opens; others one at a time (EBUSY),\n"
    "                    as the kernel's /dev/tpmrm0 and /dev/tpm0 do\n"
    "  --exclusive, --shared   override that choice\n"
    "  --db FILE         database (created 0600 if missing)\n"
    "  --no-record       forward only, record nothing (for comparisons)\n"
    "  --payloads MODE   none | redacted (default: raw bytes, secrets zeroed) | full\n"
    "  --trace-name N    a name for the trace\n"
    "  --mode OCTAL      mode of /dev/NAME (default 0600, or the original's with\n"
    "                    --takeover)\n"
    "  --group GROUP     group of /dev/NAME (name or number)\n"
    "  --takeover        serve under the kernel node's own name: /dev/NAME is moved\n"
    "                    to /dev/NAME.real and swapped with the CUSE node in one\n"
    "                    step; on exit (SIGTERM, SIGINT, backend gone) it is put back.\n"
    "                    A guardian process puts it back if the proxy is killed;\n"
    "                    --restore does the same by hand or from ExecStopPost\n"
    "  --foreground      stay in the foreground (default: detach once /dev/NAME is\n"
    "                    ready, so a boot script can go on as soon as it returns)\n"
    "  --dev-dir DIR     where device nodes live (default /dev)\n"
    "  --debug           libfuse debug output (implies --foreground)\n"
    "  --pidfile FILE    write the (detached) proxy's pid to FILE, removed at exit\n"
    "  --initrd          keep running across the switch to the real root (argv[0]\n"
    "                    starts with '@', as systemd wants of root storage daemons)\n"
    "  --restore         put DIR/NAME.real back as DIR/NAME (all *.real nodes that\n"
    "                    are kernel TPM devices when --name is not given) and exit\n"
    "  --probe DEVICE    print how DEVICE answers good and bad writes, reads, polls\n"
    "                    (to compare a CUSE node with the kernel's)\n"
    "  --bench LIST      median round trip (write+read) of one command on each\n"
    "                    device, interleaved: --count commands per device per round\n"
    "                    (default 1), --rounds (default 1000), --json;\n"
    "                    --bench-command extend (PCR_Extend of PCR 16, default) or\n"
    "                    getrandom (GetRandom of 16 bytes)\n"
    "  -h, --help        this text\n"
    "\n"
    "Examples:\n"
    "  tpm-cuse-proxy --backend /dev/tpmrm0 --name tpmproxy0 --db /run/tpm.db\n"
    "  TPM2TOOLS_TCTI=device:/dev/tpmproxy0 tpm2_pcrread sha256:0\n"
    "  tpm-cuse-proxy --backend /dev/tpm0 --name tpm0 --takeover --db /run/boot.db\n"
    "  tpm-cuse-proxy --restore --name tpm0\n";

/* Detaches after the device is ready: the parent waits for one byte. */
static int daemonize(void)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		char c = 0;
		close(p[1]);
		ssize_t n;
		do
			n = read(p[0], &c, 1);
		while (n < 0 && errno == EINTR);
		_exit(n == 1 && c == 'R' ? 0 : 1);
	}
	close(p[0]);
	setsid();
	cuse_state.ready_fd = p[1];
	if (chdir("/") != 0) {
		/* not fatal */
	}
	int fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

static int parse_group(const char *s, long *gid)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s && !*end && v >= 0) {
		*gid = v;
		return 0;
	}
	struct group *gr = getgrnam(s);
	if (!gr)
		return -1;
	*gid = gr->gr_gid;
	return 0;
}

struct opts {
	const char *backend, *db_path, *trace_name, *probe, *bench, *pidfile;
	int no_record, foreground, debug, restore, payloads;
	int excl, count, rounds, json, bench_getrandom;
};

enum {
	OPT_BACKEND = 1,
	OPT_NAME,
	OPT_DB,
	OPT_NOREC,
	OPT_MODE,
	OPT_GROUP,
	OPT_TAKEOVER,
	OPT_FG,
	OPT_PAYLOADS,
	OPT_TNAME,
	OPT_EXCL,
	OPT_SHARED,
	OPT_DEVDIR,
	OPT_DEBUG,
	OPT_RESTORE,
	OPT_PROBE,
	OPT_BENCH,
	OPT_COUNT,
	OPT_ROUNDS,
	OPT_JSON,
	OPT_HELP,
	OPT_PIDFILE,
	OPT_INITRD,
	OPT_BENCH_CMD
};

static const struct option long_opts[] = {{"backend", required_argument, 0, OPT_BACKEND},
					  {"name", required_argument, 0, OPT_NAME},
					  {"db", required_argument, 0, OPT_DB},
					  {"no-record", no_argument, 0, OPT_NOREC},
					  {"mode", required_argument, 0, OPT_MODE},
					  {"group", required_argument, 0, OPT_GROUP},
					  {"takeover", no_argument, 0, OPT_TAKEOVER},
					  {"foreground", no_argument, 0, OPT_FG},
					  {"payloads", required_argument, 0, OPT_PAYLOADS},
					  {"trace-name", required_argument, 0, OPT_TNAME},
					  {"exclusive", no_argument, 0, OPT_EXCL},
					  {"shared", no_argument, 0, OPT_SHARED},
					  {"dev-dir", required_argument, 0, OPT_DEVDIR},
					  {"debug", no_argument, 0, OPT_DEBUG},
					  {"restore", no_argument, 0, OPT_RESTORE},
					  {"probe", required_argument, 0, OPT_PROBE},
					  {"bench", required_argument, 0, OPT_BENCH},
					  {"count", required_argument, 0, OPT_COUNT},
					  {"rounds", required_argument, 0, OPT_ROUNDS},
					  {"json", no_argument, 0, OPT_JSON},
					  {"help", no_argument, 0, OPT_HELP},
					  {"pidfile", required_argument, 0, OPT_PIDFILE},
					  {"initrd", no_argument, 0, OPT_INITRD},
					  {"bench-command", required_argument, 0, OPT_BENCH_CMD},
					  {0, 0, 0, 0}};

/* One option (getopt_long's result opt, its argument in optarg) into o or cuse_state.
 * Returns -1 to go on, else the exit status. */
static int apply_option(int opt, char **argv, struct opts *o)
{
	switch (opt) {
	case OPT_BACKEND:
		o->backend = optarg;
		break;
	case OPT_NAME:
		cuse_state.name = optarg;
		break;
	case OPT_DB:
		o->db_path = optarg;
		break;
	case OPT_NOREC:
		o->no_record = 1;
		break;
	case OPT_MODE: {
		char *end;
		long m = strtol(optarg, &end, 8);
		if (*end || m < 0 || m > 07777) {
			msg("--mode takes an octal mode, not '%s'", optarg);
			return 2;
		}
		cuse_state.mode = (int)m;
		break;
	}
	case OPT_GROUP:
		if (parse_group(optarg, &cuse_state.gid)) {
			msg("--group: no group '%s'", optarg);
			return 2;
		}
		break;
	case OPT_TAKEOVER:
		cuse_state.takeover = 1;
		break;
	case 'f':
	case OPT_FG:
		o->foreground = 1;
		break;
	case OPT_PAYLOADS:
		o->payloads = payload_mode_parse(optarg);
		if (o->payloads < 0) {
			msg("--payloads takes none, redacted or full, not '%s'", optarg);
			return 2;
		}
		break;
	case OPT_TNAME:
		o->trace_name = optarg;
		break;
	case OPT_EXCL:
		o->excl = 1;
		break;
	case OPT_SHARED:
		o->excl = 0;
		break;
	case OPT_DEVDIR:
		cuse_state.dev_dir_name = optarg;
		break;
	case OPT_DEBUG:
		o->debug = o->foreground = 1;
		break;
	case OPT_RESTORE:
		o->restore = 1;
		break;
	case OPT_PROBE:
		o->probe = optarg;
		break;
	case OPT_BENCH:
		o->bench = optarg;
		break;
	case OPT_COUNT:
		o->count = atoi(optarg);
		break;
	case OPT_ROUNDS:
		o->rounds = atoi(optarg);
		break;
	case OPT_JSON:
		o->json = 1;
		break;
	case OPT_BENCH_CMD:
		if (strcmp(optarg, "extend") && strcmp(optarg, "getrandom")) {
			msg("--bench-command takes extend or getrandom, not '%s'", optarg);
			return 2;
		}
		o->bench_getrandom = !strcmp(optarg, "getrandom");
		break;
	case OPT_PIDFILE:
		o->pidfile = optarg;
		break;
	case OPT_INITRD:
		/* systemd leaves processes whose argv[0] starts with '@'
		 * running across the switch to the real root
		 * (https://systemd.io/ROOT_STORAGE_DAEMONS/). */
		argv[0][0] = '@';
		break;
	case 'h':
	case OPT_HELP:
		fputs(usage, stdout);
		return 0;
	default:
		fprintf(stderr, "Try 'tpm-cuse-proxy --help'.\n");
		return 2;
	}
	return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct opts *o)
{
	int opt, rc;

	*o = (struct opts){.payloads = PAYLOADS_REDACTED, .excl = -1, .count = 1, .rounds = 1000};
	cuse_state.dev_dir_name = "/dev";
	cuse_state.name = NULL;
	while ((opt = getopt_long(argc, argv, "hf", long_opts, NULL)) != -1)
		if ((rc = apply_option(opt, argv, o)) >= 0)
			return rc;
	if (optind < argc) {
		msg("unexpected argument '%s'", argv[optind]);
		return 2;
	}
	return -1;
}

/* --probe and --bench. Returns -1 when neither was asked for. */
static int run_devtools(const struct opts *o)
{
	if (o->probe)
		return devtools_probe(o->probe, o->excl == 1) ? 1 : 0;
	if (!o->bench)
		return -1;
	const char *paths[8];
	int n = 0;
	char *list = strdup(o->bench), *save = NULL;
	for (char *p = strtok_r(list, ",", &save); p && n < 8; p = strtok_r(NULL, ",", &save))
		paths[n++] = p;
	if (o->count <= 0 || o->rounds <= 0) {
		msg("--count and --rounds take positive numbers");
		return 2;
	}
	int ret =
	    devtools_bench(paths, n, o->count, o->rounds, o->json, o->bench_getrandom) ? 1 : 0;
	free(list);
	return ret;
}

/* What the proxy needs and --restore does not. Returns -1 when it is all
 * there, else the exit status. */
static int check_proxy_options(const struct opts *o)
{
	if (!cuse_state.name)
		cuse_state.name = "tpmproxy0";
	if (!o->backend) {
		msg("--backend is required (e.g. --backend /dev/tpmrm0)");
		return 2;
	}
	if (!o->db_path && !o->no_record) {
		msg("give --db FILE, or --no-record to forward without recording");
		return 2;
	}
	if (strchr(cuse_state.name, '/') || strlen(cuse_state.name) > 200) {
		msg("--name takes a plain device name (no '/')");
		return 2;
	}
	cuse_state.exclusive = o->excl >= 0 ? o->excl : strncmp(cuse_state.name, "tpmrm", 5) != 0;
	if (o->payloads == PAYLOADS_FULL && !o->no_record)
		msg("--payloads full: secrets will be stored in %s", o->db_path);
	return -1;
}

/* Before any TPM, CUSE or database descriptor is open: a leftover node put
 * back, detaching, the pid file, the guardian. Returns 0, or -1 once the
 * reason was printed (before: exit status 1 at once; after: through the
 * tear-down, *begun set). */
static int prepare(const struct opts *o, int *begun)
{
	/* A leftover from a proxy that died without its guardian: put the
	 * kernel's node back before taking it over again. */
	if (cuse_state.takeover) {
		int rc = node_restore(cuse_state.dev_fd, cuse_state.name, cuse_state.err,
				      sizeof cuse_state.err);
		if (rc < 0) {
			msg("--takeover: %s", cuse_state.err);
			return -1;
		}
		if (rc > 0)
			msg("restored %s/%s left over by an earlier run", cuse_state.dev_dir_name,
			    cuse_state.name);
	}
	if (!o->foreground && daemonize() != 0) {
		msg("cannot detach: %s", strerror(errno));
		return -1;
	}
	*begun = 1;
	if (o->pidfile) {
		FILE *pf = fopen(o->pidfile, "we");
		if (!pf || fprintf(pf, "%d\n", (int)getpid()) < 0 || fclose(pf) != 0) {
			msg("cannot write %s: %s", o->pidfile, strerror(errno));
			return -1;
		}
	}
	/* The guardian holds no TPM, CUSE or database descriptor: fork it
	 * before any is opened. */
	if (cuse_state.takeover) {
		cuse_state.guard_fd = guardian_start(cuse_state.dev_fd, cuse_state.name);
		if (cuse_state.guard_fd < 0) {
			msg("cannot start the guardian: %s", strerror(-cuse_state.guard_fd));
			return -1;
		}
	}
	return 0;
}

/* A trace in the database and the writer that fills it
 * (recorder/record_session.h). */
static int start_recording(const struct opts *o, const char *node_path, struct record_session *rs)
{
	char source[600];
	snprintf(source, sizeof source, "cuse:%s <- %s", node_path, o->backend);
	struct record_trace_cfg tc = {.db_path = o->db_path,
				      .file_mode = -1,
				      .name = o->trace_name,
				      .source = source,
				      .payloads = o->payloads};
	if (record_session_begin(rs, &tc, cuse_state.err, sizeof cuse_state.err)) {
		msg("%s", cuse_state.err);
		return -1;
	}
	return 0;
}

/* The backend, the recording, the worker and the device; then the FUSE loop
 * until a signal or the backend ends it. Returns the exit status. */
static int serve(const struct opts *o, char *argv0, const char *node_path,
		 struct record_session *rs)
{
	sigset_t mask, old;

	/* Only the main thread takes SIGTERM/SIGINT/SIGHUP (they stop the
	 * FUSE loop); the writer and the worker never see them. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &mask, &old);

	if (open_backend(o->backend, cuse_state.err, sizeof cuse_state.err)) {
		msg("backend: %s", cuse_state.err);
		return 1;
	}
	if (!o->no_record && start_recording(o, node_path, rs))
		return 1;
	recorder_init(&cuse_state.rec, rs->w,
		      cuse_state.shared ? cuse_state.shared : &cuse_state.none, o->payloads);
	recorder_event(&cuse_state.rec, "record-start", o->backend, 0);
	if (cuse_worker_start()) {
		msg("cannot start the worker thread");
		return 1;
	}
	if (cuse_device_setup(argv0, o->debug)) {
		msg("cannot create the CUSE device %s (is the cuse module loaded?)",
		    cuse_state.name);
		return 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	fuse_session_loop(cuse_state.se);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	return cuse_state.setup_failed ? 1 : 0;
}

/* The kernel's node back first, so that it is never missing; then the
 * worker, the device, the recording. Returns ret, or 1 on a failure. */
static int teardown(const struct opts *o, const char *node_path, struct record_session *rs, int ret)
{
	if (cuse_state.taken_over) {
		int rc = node_restore(cuse_state.dev_fd, cuse_state.name, cuse_state.err,
				      sizeof cuse_state.err);
		if (rc < 0) {
			msg("restoring %s/%s: %s", cuse_state.dev_dir_name, cuse_state.name,
			    cuse_state.err);
			ret = 1;
		}
		pthread_mutex_lock(&cuse_state.rec_lock);
		recorder_event(&cuse_state.rec, "restore", node_path, 0);
		pthread_mutex_unlock(&cuse_state.rec_lock);
	}
	signal_ready(0);
	cuse_worker_stop();
	if (cuse_state.se)
		cuse_lowlevel_teardown(cuse_state.se);
	if (rs->w) {
		struct writer_stats st;
		recorder_stop_event(&cuse_state.rec, "record-stop", NULL);
		if (record_session_end(rs, &st) != 0)
			ret = 1;
		else
			msg("%llu commands, %llu events recorded, %llu dropped",
			    (unsigned long long)st.commands, (unsigned long long)st.events,
			    (unsigned long long)st.dropped);
	}
	if (cuse_state.shared)
		cuse_state.shared->ops->close(cuse_state.shared);
	if (cuse_state.guard_fd >= 0)
		close(cuse_state.guard_fd);
	if (o->pidfile)
		unlink(o->pidfile);
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct record_session rs;
	int rc, begun = 0;

	record_session_init(&rs);

	if ((rc = parse_options(argc, argv, &o)) >= 0)
		return rc;
	if ((rc = run_devtools(&o)) >= 0)
		return rc;
	/* The device directory and /sys/class, held open (takeover.c). */
	cuse_state.dev_fd = open(cuse_state.dev_dir_name, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cuse_state.dev_fd < 0) {
		msg("%s: %s", cuse_state.dev_dir_name, strerror(errno));
		return 1;
	}
	takeover_init();
	if (o.restore) {
		rc = cuse_state.name ? node_restore(cuse_state.dev_fd, cuse_state.name,
						    cuse_state.err, sizeof cuse_state.err)
				     : node_restore_all(cuse_state.dev_fd, cuse_state.err,
							sizeof cuse_state.err);
		if (rc < 0) {
			msg("--restore: %s", cuse_state.err);
			return 1;
		}
		msg("%s", rc ? "restored the kernel's TPM node" : "nothing to restore");
		return 0;
	}
	if ((rc = check_proxy_options(&o)) >= 0)
		return rc;
	fault_crash_init();

	char node_path[512];
	snprintf(node_path, sizeof node_path, "%s/%s", cuse_state.dev_dir_name, cuse_state.name);
	if (prepare(&o, &begun))
		return begun ? teardown(&o, node_path, &rs, 1) : 1;
	rc = serve(&o, argv[0], node_path, &rs);
	return teardown(&o, node_path, &rs, rc);
}
