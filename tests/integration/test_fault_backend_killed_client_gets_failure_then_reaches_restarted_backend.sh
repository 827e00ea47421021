#!/usr/bin/env bash
# Fault: the backend swtpm is killed while a command is in flight (stopped
# with SIGSTOP so that the command is sent and unanswered, then SIGKILL). The
# waiting client gets a TPM_RC_FAILURE response at once, never a hang; while
# the backend is down every client gets the same; a backend that hangs
# (stopped, not killed) yields TPM_RC_FAILURE after --timeout. When swtpm is
# restarted on the same socket, later clients reach it without restarting the
# recorder; the trace holds the gap as backend-lost / backend-back events
# around the failed commands. What ended each wait is read from the
# backend-lost event's reason, not from a stopwatch: the killed backend's
# closed socket (not the timeout), the hung one's timeout; the waits
# themselves are printed.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 timeout

FAILURE=80010000000a00000101 # TPM_ST_NO_SESSIONS, size 10, TPM_RC_FAILURE
GETRANDOM=80010000000c0000017b0008

# swtpm_at DIR: swtpm on DIR/s.sock, started up, state kept in DIR (SWTPM_PID)
swtpm_at() {
	mkdir -p "$1"
	swtpm socket --tpm2 --tpmstate dir="$1" --server type=unixio,path="$1/s.sock" \
		--ctrl type=unixio,path="$1/s.sock.ctrl" --flags not-need-init,startup-clear \
		--log file="$1/swtpm.log" &
	SWTPM_PID=$!
	PIDS+=($SWTPM_PID)
	wait_for_listener "$1/s.sock"
}

swtpm_at "$T/sw"
db=$T/gap.db
record_bg "$db" --backend "swtpm:path=$T/sw/s.sock" --listen "unix:$T/p.sock" --timeout 2000
wait_for_socket "$T/p.sock"
check "before: commands answered" "$TPMCLIENT" --connect "unix:$T/p.sock" --cmd pcrextend --count 200

# 1. Killed mid-command.
kill -STOP "$SWTPM_PID"
timeout 10 "$TPMCLIENT" --connect "unix:$T/p.sock" --hex "$GETRANDOM" >"$T/inflight" &
client=$!
sleep 0.5 # the command is now with the stopped swtpm
kill -KILL "$SWTPM_PID"
kill -CONT "$SWTPM_PID" 2>/dev/null
wait "$SWTPM_PID" 2>/dev/null
t0=$(date +%s%N)
wait $client
expect_eq "killed mid-command: the waiting client is answered" "$?" 0
expect_eq "killed mid-command: with TPM_RC_FAILURE" "$(cat "$T/inflight")" "$FAILURE"
echo "killed mid-command: answered $((($(date +%s%N) - t0) / 1000000)) ms after the kill (a figure)"

# 2. While the backend is down: every command is answered TPM_RC_FAILURE.
expect_eq "backend down: TPM_RC_FAILURE" \
	"$(timeout 10 "$TPMCLIENT" --connect "unix:$T/p.sock" --hex "$GETRANDOM")" "$FAILURE"
out=$(timeout 20 "$TPMCLIENT" --connect "unix:$T/p.sock" --cmd getrandom --count 50 --expect-rc 101)
expect_eq "backend down: 50 commands, each TPM_RC_FAILURE" "$?" 0

# 3. Restarted on the same socket: later clients reach it.
rm -f "$T/sw/s.sock" "$T/sw/s.sock.ctrl"
swtpm_at "$T/sw"
check "restarted: later clients reach the new backend" \
	timeout 20 "$TPMCLIENT" --connect "unix:$T/p.sock" --cmd pcrextend --count 200
check "restarted: tpm2-tools through the proxy" \
	timeout 20 env TPM2TOOLS_TCTI="swtpm:path=$T/p.sock" tpm2_getrandom 8 -o "$T/rnd"

# 4. Hung (stopped, not killed): TPM_RC_FAILURE after --timeout (2 s).
kill -STOP "$SWTPM_PID"
t0=$(date +%s%N)
expect_eq "hung backend: TPM_RC_FAILURE" \
	"$(timeout 10 "$TPMCLIENT" --connect "unix:$T/p.sock" --hex "$GETRANDOM")" "$FAILURE"
echo "hung backend: answered after $((($(date +%s%N) - t0) / 1000000)) ms (--timeout 2000; a figure)"
kill -CONT "$SWTPM_PID"
check "resumed: commands answered again" \
	timeout 20 "$TPMCLIENT" --connect "unix:$T/p.sock" --cmd getrandom --count 20

kill -TERM $RECORD_PID
check "recorder exits 0" wait $RECORD_PID
q() { sqlite3 "$db" "$1"; }
expect_eq "events: the gaps" \
	"$(q "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM event WHERE kind LIKE 'backend-%' ORDER BY seq)")" \
	"backend-lost backend-back backend-lost backend-back"
expect_eq "the in-flight and down-time commands are stored without a response" \
	"$(q "SELECT count(*) FROM command WHERE flags & 8")" 53
expect_eq "each failed command lies inside a gap" \
	"$(q "SELECT count(*) FROM command c WHERE flags & 8 AND (SELECT kind FROM event e WHERE e.seq < c.seq AND kind LIKE 'backend-%' ORDER BY seq DESC LIMIT 1) = 'backend-lost'")" 53
lost=$(q "SELECT group_concat(detail, ' / ') FROM (SELECT detail FROM event WHERE kind='backend-lost' ORDER BY seq)")
echo "backend-lost reasons: $lost"
# killed: the connection's end was seen (reset, EOF), not waited out
not_timeout() { [ -n "$1" ] && [[ $1 != *"timed out"* ]]; }
check "killed mid-command: the closed connection ended the wait, not the timeout" \
	not_timeout "$(q "SELECT detail FROM event WHERE kind='backend-lost' ORDER BY seq LIMIT 1")"
check "hung backend: the timeout ended the wait" \
	grep -q "timed out" <<<"$(q "SELECT detail FROM event WHERE kind='backend-lost' ORDER BY seq LIMIT 1 OFFSET 1")"
expect_eq "PCR_Extend answered by the first and the restarted backend" \
	"$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND rc = 0")" 400
check "GetRandom answered after the restart and the resume" \
	[ "$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND rc = 0")" -ge 21 ]
check "verify" "$TPMTRACE" verify "$db" >/dev/null
finish
