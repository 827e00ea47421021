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

int cli_qemu_start(struct qemu_session *s, const struct qemu_record_opts *o, const char *sub,
		   unsigned sig_flags)
{
	char err[512];
	if (!qemu_session_begin(s, o, sig_flags, err, sizeof err))
		return 0;
	cli_error(sub, "%s", err);
	return 1;
}

int cli_qemu_finish(struct qemu_session *s, const char *sub, int quiet)
{
	struct qemu_session_stats st;
	int ret = qemu_session_end(s, &st);
	if (ret)
		cli_error(sub, "could not finalize trace %lld in %s", (long long)st.trace_id,
			  s->db_path);
	else if (st.recorded && (!quiet || st.w.dropped))
		fprintf(stderr,
			"tpmtrace %s: trace %lld: %llu commands, %llu events recorded, "
			"%llu dropped (%lu control messages relayed)\n",
			sub, (long long)st.trace_id, (unsigned long long)st.w.commands,
			(unsigned long long)st.w.events, (unsigned long long)st.w.dropped,
			st.ctrl_messages);
	return ret;
}

static int stop_on_signal(void *arg)
{
	struct record_session *rs = arg;
	struct signalfd_siginfo si;
	while (read(rs->sfd, &si, sizeof si) == sizeof si)
		if (!record_session_status(rs, &si) && si.ssi_signo != SIGCHLD)
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
	if (cli_qemu_start(&s, &o, "record", 0))
		goto out;
	if (!quiet)
		fprintf(stderr, "tpmtrace record: waiting for QEMU on %s, recording into %s\n",
			cli_name(o.qemu_ctrl), cli_name(o.db_path));
	int rc = qemu_interposer_run(s.qi, &s.rec, s.rs.sfd, stop_on_signal, &s.rs);
	if (rc < 0)
		cli_error("record", "interposer: %s", strerror(-rc));
	ret = rc < 0;
out:
	if (cli_qemu_finish(&s, "record", quiet))
		ret = 1;
	return ret;
}
