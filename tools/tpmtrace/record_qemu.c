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

int qemu_session_start(struct qemu_session *s, const struct qemu_record_opts *o, const char *sub,
		       unsigned sig_flags)
{
	char err[512];
	const char *ctrl = o->swtpm_ctrl;

	memset(s, 0, sizeof(*s));
	record_session_init(&s->rs);
	s->db_path = o->db_path;
	record_session_signals(&s->rs, sig_flags);
	if (o->spawn) {
		if (swtpm_spawn(&s->sw, o->swtpm_state, SWTPM_CTRL_ONLY, err, sizeof err)) {
			cli_error(sub, "%s", err);
			return 1;
		}
		ctrl = s->sw.sock;
	}
	if (qemu_interposer_new(&s->qi, o->qemu_ctrl, ctrl, 5000, err, sizeof err)) {
		cli_error(sub, "%s", err);
		return 1;
	}
	char source[400];
	snprintf(source, sizeof source, "qemu:%s <- swtpm-ctrl:%s%s", o->qemu_ctrl, ctrl,
		 o->spawn ? " (spawned)" : "");
	struct record_trace_cfg tc = {.db_path = o->db_path,
				      .file_mode = -1,
				      .name = o->name,
				      .source = source,
				      .payloads = o->payloads,
				      .emulated = o->emu ? o->emu->prof.name : NULL};
	if (record_session_begin(&s->rs, &tc, err, sizeof err)) {
		cli_error(sub, "%s", err);
		return 1;
	}
	recorder_init(&s->rec, s->rs.w, qemu_interposer_transport(s->qi), o->payloads);
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
	if (s->rs.w) {
		struct writer_stats st;
		recorder_stop_event(&s->rec, "record-stop", NULL);
		if (record_session_end(&s->rs, &st) != 0) {
			cli_error(sub, "could not finalize trace %lld in %s",
				  (long long)s->rs.trace_id, s->db_path);
			ret = 1;
		} else if (!quiet || st.dropped) {
			fprintf(stderr,
				"tpmtrace %s: trace %lld: %llu commands, %llu events recorded, "
				"%llu dropped (%lu control messages relayed)\n",
				sub, (long long)s->rs.trace_id, (unsigned long long)st.commands,
				(unsigned long long)st.events, (unsigned long long)st.dropped,
				nctrl);
		}
	}
	qemu_interposer_free(s->qi);
	s->qi = NULL;
	swtpm_stop(&s->sw);
	record_session_close(&s->rs);
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

	struct qemu_session s;
	if (qemu_session_start(&s, &o, "record", 0))
		goto out;
	if (!quiet)
		fprintf(stderr, "tpmtrace record: waiting for QEMU on %s, recording into %s\n",
			cli_name(o.qemu_ctrl), cli_name(o.db_path));
	int rc = qemu_interposer_run(s.qi, &s.rec, s.rs.sfd, stop_on_signal, &s.rs.sfd);
	if (rc < 0)
		cli_error("record", "interposer: %s", strerror(-rc));
	ret = rc < 0;
out:
	if (qemu_session_finish(&s, "record", quiet))
		ret = 1;
	return ret;
}
