#!/usr/bin/env bash
# A recorder takes no client before its TPM answers (issue 36, item 15):
# swtpm opens its sockets before it initializes its TPM and writes its state
# (tpm2-00.permall), so a recorder that listened as soon as swtpm's socket
# accepted a connection could be reached while the state was not there yet
# (test_swtpm_state_gone_after_recorder_sigkill saw that in a cold run). Here
# swtpm's first state write is held: its temporary file is a FIFO that this
# test reads only after it has seen the recorder wait for swtpm's answer (a
# connection pending on swtpm's control socket) or listen. The recorder's
# socket must not exist while swtpm cannot answer. (That a ready swtpm's
# recorder serves its clients, every other recording test shows.)
. "$(dirname "$0")/../lib/common.sh"
need swtpm ss
mkdir -m 700 "$T/st"
mkfifo "$T/st/TMP2-00.permall"
pending() { # PATH: connections waiting on a listening unix socket
	ss -xlH | awk -v p="$1" '$5 == p {print $3}'
}
waits_or_listens() {
	[ -S "$T/r.sock" ] || [ "$(pending "$T/st/swtpm.sock.ctrl")" = 1 ]
}
record_bg "$T/r.db" --spawn-swtpm --swtpm-state "$T/st" --listen "unix:$T/r.sock"
check "the recorder waits for swtpm or listens" wait_until waits_or_listens
check "no socket while swtpm's state is not written" [ ! -e "$T/r.sock" ]
# Let swtpm go on: its state is written into the FIFO (read to its end here)
# and the FIFO renamed to tpm2-00.permall, which swtpm then reads back and
# finds empty (opened for writing and closed). A TPM whose state cannot be
# had: swtpm gives up, and the recorder with it, without having listened.
cat "$T/st/TMP2-00.permall" >/dev/null
timeout 60 sh -c ': >"$1"' - "$T/st/tpm2-00.permall"
wait $RECORD_PID
rc=$?
check "the recorder fails ($rc): $(cat "$T/record.err")" [ $rc -eq 1 ]
check "the message names swtpm" grep -q swtpm "$T/record.err"
check "it never listened" [ ! -e "$T/r.sock" ]
check "its swtpm is gone" wait_until "! pgrep -f -- 'tpmstate dir=$T/st' >/dev/null" 10
finish
