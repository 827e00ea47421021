#!/usr/bin/env bash
# The test clients never hang on a lost response: against a peer that reads
# commands and never answers, tpmclient (socket, and --mssim framing) stops at
# its --timeout with a failure naming the command, and a tpm2-tools command
# run by a test (common.sh wraps them) fails after TPMTRACE_TEST_CLIENT_TIMEOUT
# seconds, instead of either waiting for ctest's limit. (timeout(1) -s KILL
# around them only turns a hang into exit 137.)
. "$(dirname "$0")/../lib/common.sh"
need python3 timeout

# A peer that accepts, reads, and answers nothing (data and control socket).
python3 - "$T/mute.sock" <<'PY' &
import socket, sys, threading
def drain(c):
    while c.recv(4096):
        pass
def serve(s):
    while True:
        c, _ = s.accept()
        threading.Thread(target=drain, args=(c,), daemon=True).start()
for p in (sys.argv[1], sys.argv[1] + '.ctrl'):
    s = socket.socket(socket.AF_UNIX)
    s.bind(p)
    s.listen(8)
    threading.Thread(target=serve, args=(s,), daemon=True).start()
threading.Event().wait()
PY
PIDS+=($!)
wait_for_socket "$T/mute.sock.ctrl"
for framing in raw mssim; do
	flag=
	[ $framing = mssim ] && flag=--mssim
	timeout -s KILL 60 "$TPMCLIENT" --connect "unix:$T/mute.sock" $flag --cmd getrandom --count 3 \
		--timeout 300 >"$T/$framing.out" 2>"$T/$framing.err"
	rc=$?
	expect_eq "$framing: a lost response fails the client (not a hang: 137)" "$rc" 1
	check "$framing: it names the command and the timeout" \
		grep -q "command 0: no response within 300 ms; stopping" "$T/$framing.err"
	check "$framing: and stops there (no second command sent)" \
		bash -c "! grep -q 'command 1' '$T/$framing.err'"
done
"$TPMCLIENT" --connect "unix:$T/mute.sock" --timeout 0 >/dev/null 2>&1
expect_eq "--timeout 0 is a usage error" "$?" 2

# tpm2-tools, as a test runs them: through common.sh's wrapper.
need tpm2_getrandom
printf '. "%s/common.sh"\nTPM2TOOLS_TCTI=swtpm:path=%s tpm2_getrandom 4\n' \
	"$TPMTRACE_TEST_LIB" "$T/mute.sock" >"$T/tool.sh"
TPMTRACE_TEST_CLIENT_TIMEOUT=2 timeout -s KILL 60 bash "$T/tool.sh" >/dev/null 2>&1
expect_eq "tpm2_getrandom with no answer: stopped by the wrapper's timeout (124; a hang: 137)" "$?" 124
finish
