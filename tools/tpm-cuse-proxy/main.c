/* tpm-cuse-proxy: the options (parsed from the table of cuse_options.c), the
 * diagnostics modes, and the set-up and tear-down of the proxy (detaching,
 * the guardian, the recording, the CUSE device of cuse_dev.c). */
#include "cuse_state.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuse_options.h"
#include "cuse_proxy.h"
#include "db/host_id.h"
#include "recorder/record_session.h"

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

/* The parsed options into the proxy's state. Returns -1 to go on, else the
 * exit status (cuse_options.c printed what it was). */
static int parse_options(int argc, char **argv, struct cuse_opts *o)
{
	int rc = cuse_parse_options(argc, argv, o);
	if (rc >= 0)
		return rc;
	cuse_state.dev_dir_name = o->dev_dir;
	cuse_state.name = o->name;
	cuse_state.mode = o->mode;
	cuse_state.gid = o->gid;
	cuse_state.takeover = o->takeover;
	return -1;
}

/* --probe and --bench. Returns -1 when neither was asked for. */
static int run_devtools(const struct cuse_opts *o)
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
	int ret =
	    devtools_bench(paths, n, o->count, o->rounds, o->json, o->bench_getrandom) ? 1 : 0;
	free(list);
	return ret;
}

/* What the proxy needs and --restore does not. Returns -1 when it is all
 * there, else the exit status. */
static int check_proxy_options(const struct cuse_opts *o)
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
static int prepare(const struct cuse_opts *o, int *begun)
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
static int start_recording(const struct cuse_opts *o, const char *node_path,
			   struct record_session *rs)
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
static int serve(const struct cuse_opts *o, char *argv0, const char *node_path,
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
static int teardown(const struct cuse_opts *o, const char *node_path, struct record_session *rs,
		    int ret)
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
	struct cuse_opts o;
	struct record_session rs;
	int rc, begun = 0;

	record_session_init(&rs);

	if ((rc = parse_options(argc, argv, &o)) >= 0)
		return rc;
	if ((rc = run_devtools(&o)) >= 0)
		return rc;
	db_host_id_prefetch(); /* before any thread: no libcrypto mapped (db/host_id.h) */
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
