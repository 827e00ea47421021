/* tpmtrace record --qemu-ctrl: stand between QEMU's -tpmdev emulator and
 * swtpm and record the whole VM's TPM traffic (recorder/qemu_interposer.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cli.h"
#include "db/db.h"
#include "common.h"
#include "record.h"
#include "record_qemu.h"

int qemu_session_start(struct qemu_session *s, const struct qemu_record_opts *o, const char *sub)
{
	char err[512];
	sqlite3 *db = NULL;
	const char *ctrl = o->swtpm_ctrl;

	memset(s, 0, sizeof(*s));
	s->db_path = o->db_path;
	if (o->spawn) {
		if (swtpm_spawn(&s->sw, o->swtpm_state, SWTPM_CTRL_ONLY, err, sizeof err)) {
			die(sub, "%s", err);
			return 1;
		}
		ctrl = s->sw.sock;
	}
	if (qemu_interposer_new(&s->qi, o->qemu_ctrl, ctrl, 5000, err, sizeof err)) {
		die(sub, "%s", err);
		return 1;
	}
	if (db_open(o->db_path, DB_CREATE, &db, err, sizeof err)) {
		die(sub, "%s", err);
		return 1;
	}
	char source[400];
	snprintf(source, sizeof source, "qemu:%s <- swtpm-ctrl:%s%s", o->qemu_ctrl, ctrl,
		 o->spawn ? " (spawned)" : "");
	struct trace_info ti = {.name = o->name,
				.kind = "record",
				.source = source,
				.payloads = payload_mode_str(o->payloads),
				.emulated = o->emu ? o->emu->prof.name : NULL};
	s->trace_id = db_trace_begin(db, &ti);
	if (s->trace_id < 0) {
		die(sub, "%s: cannot add a trace: %s", o->db_path, sqlite3_errmsg(db));
		db_close(db);
		return 1;
	}
	db_close(db);
	struct writer_cfg wc = {.path = o->db_path, .trace_id = s->trace_id};
	if (writer_start(&s->w, &wc, err, sizeof err)) {
		die(sub, "%s", err);
		return 1;
	}
	recorder_init(&s->rec, s->w, qemu_interposer_transport(s->qi), o->payloads);
	recorder_event(&s->rec, "record-start", source, 0);
	if (o->emu) {
		char detail[300];
		s->rec.emu = o->emu;
		snprintf(detail, sizeof detail, "profile=%s from=%s seed=%llu", o->emu->prof.name,
			 o->emu->from, (unsigned long long)o->emu->seed);
		recorder_event(&s->rec, "emulate", detail, 0);
	}
	return 0;
}

int qemu_session_finish(struct qemu_session *s, const char *sub, int quiet)
{
	int ret = 0;
	unsigned long nctrl = s->qi ? qemu_interposer_ctrl_count(s->qi) : 0;
	if (s->w) {
		struct writer_stats st;
		recorder_stop_event(&s->rec, "record-stop", NULL);
		if (writer_stop(s->w, "complete", &st) != 0) {
			die(sub, "could not finalize trace %lld in %s", (long long)s->trace_id,
			    s->db_path);
			ret = 1;
		} else if (!quiet || st.dropped) {
			fprintf(stderr,
				"tpmtrace %s: trace %lld: %llu commands, %llu events recorded, "
				"%llu dropped (%lu control messages relayed)\n",
				sub, (long long)s->trace_id, (unsigned long long)st.commands,
				(unsigned long long)st.events, (unsigned long long)st.dropped,
				nctrl);
		}
		s->w = NULL;
	}
	qemu_interposer_free(s->qi);
	s->qi = NULL;
	swtpm_stop(&s->sw);
	return ret;
}

static int stop_on_signal(void *arg)
{
	int sfd = *(int *)arg;
	struct signalfd_siginfo si;
	while (read(sfd, &si, sizeof si) == sizeof si)
		if (si.ssi_signo != SIGCHLD)
			return 1;
	return 0;
}

int record_qemu_main(const struct record_args *a)
{
	struct qemu_record_opts o = {.db_path = a->db_path,
				     .payloads = a->payloads,
				     .name = a->name,
				     .qemu_ctrl = a->qemu_ctrl,
				     .swtpm_ctrl = a->swtpm_ctrl,
				     .swtpm_state = a->state,
				     .spawn = a->spawn};
	int quiet = a->quiet, ret = 1;
	if (o.spawn == !!o.swtpm_ctrl) {
		fprintf(stderr,
			"tpmtrace record: --qemu-ctrl needs exactly one of --swtpm-ctrl and "
			"--spawn-swtpm\nTry 'tpmtrace record --help'.\n");
		return EXIT_USAGE;
	}
	if (o.swtpm_state && !o.spawn) {
		fprintf(stderr, "tpmtrace record: --swtpm-state goes with --spawn-swtpm\nTry "
				"'tpmtrace record --help'.\n");
		return EXIT_USAGE;
	}
	if (a->command) {
		fprintf(stderr, "tpmtrace record: -- COMMAND does not go with --qemu-ctrl\nTry "
				"'tpmtrace record --help'.\n");
		return EXIT_USAGE;
	}
	if (cli_db_for_create("record", o.db_path))
		return 1;

	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

	struct qemu_session s;
	if (qemu_session_start(&s, &o, "record"))
		goto out;
	if (!quiet)
		fprintf(stderr, "tpmtrace record: waiting for QEMU on %s, recording into %s\n",
			o.qemu_ctrl, o.db_path);
	int rc = qemu_interposer_run(s.qi, &s.rec, sfd, stop_on_signal, &sfd);
	if (rc < 0)
		die("record", "interposer: %s", strerror(-rc));
	ret = rc < 0;
out:
	if (qemu_session_finish(&s, "record", quiet))
		ret = 1;
	if (sfd >= 0)
		close(sfd);
	return ret;
}
