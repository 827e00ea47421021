/* A recording between QEMU and swtpm (recorder/qemu_session.h). */
#include "recorder/qemu_session.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int qemu_session_begin(struct qemu_session *s, const struct qemu_record_opts *o, unsigned sig_flags,
		       char *err, size_t errlen)
{
	const char *ctrl = o->swtpm_ctrl;

	memset(s, 0, sizeof(*s));
	record_session_init(&s->rs);
	s->db_path = o->db_path;
	record_session_signals(&s->rs, sig_flags);
	if (o->spawn) {
		if (swtpm_spawn(&s->sw, o->swtpm_state, SWTPM_CTRL_ONLY, err, errlen))
			return -1;
		ctrl = s->sw.sock;
	}
	if (qemu_interposer_new(&s->qi, o->qemu_ctrl, ctrl, 5000, err, errlen))
		return -1;
	char source[400];
	snprintf(source, sizeof source, "qemu:%s <- swtpm-ctrl:%s%s", o->qemu_ctrl, ctrl,
		 o->spawn ? " (spawned)" : "");
	struct record_trace_cfg tc = {.db_path = o->db_path,
				      .file_mode = -1,
				      .name = o->name,
				      .source = source,
				      .payloads = o->payloads,
				      .emulated = o->emu ? o->emu->prof.name : NULL};
	if (record_session_begin(&s->rs, &tc, err, errlen))
		return -1;
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

int qemu_session_end(struct qemu_session *s, struct qemu_session_stats *st)
{
	int ret = 0;
	memset(st, 0, sizeof *st);
	st->ctrl_messages = s->qi ? qemu_interposer_ctrl_count(s->qi) : 0;
	st->trace_id = s->rs.trace_id;
	if (s->rs.w) {
		st->recorded = 1;
		recorder_stop_event(&s->rec, "record-stop", NULL);
		if (record_session_end(&s->rs, &st->w) != 0)
			ret = -EIO;
	}
	qemu_interposer_free(s->qi);
	s->qi = NULL;
	swtpm_stop(&s->sw);
	record_session_close(&s->rs);
	return ret;
}
