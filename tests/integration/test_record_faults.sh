#!/usr/bin/env bash
# Faults while recording: TPM traffic never stops and the database stays
# intact. (1) a stalled writer overrun by traffic: drops counted exactly;
# (2) SIGKILL of the recorder: integrity_check passes and every committed batch
# is there. Disk full and a read-only database need root (a tmpfs mount, a
# recorder run as nobody): test_record_faults_disk_full_read_only_as_root.sh.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3

# -- 1. Stalled writer, tiny queue.
start_swtpm "$T/sw1"
db=$T/stall.db
TPMTRACE_FAULT_WRITER_STALL_MS=300 record_bg "$db" --backend "swtpm:path=$T/sw1/s.sock" \
	--listen "unix:$T/p1.sock" --queue-size 64
wait_for_socket "$T/p1.sock"
"$TPMCLIENT" --connect "unix:$T/p1.sock" --cmd startup >/dev/null
check "stalled writer: every command answered" \
	"$TPMCLIENT" --connect "unix:$T/p1.sock" --cmd getrandom --count 3000
# The status line while it runs (SIGUSR1): once the queue is empty, its
# stored count is the rows a reader sees, and the drops are there.
check "stalled writer: a status line says the queue drained" record_drained
status=$(grep ' queued$' "$T/record.err" | tail -1)
expect_eq "stalled writer: status line: commands stored = rows" \
	"$(sed -n 's/.*: \([0-9]*\) commands and .*/\1/p' <<<"$status")" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command")"
check "stalled writer: status line: drops counted ($status)" \
	[ "$(sed -n 's/.*, \([0-9]*\) dropped.*/\1/p' <<<"$status")" -gt 0 ]
check "stalled writer: the recorder goes on after it" kill -0 $RECORD_PID
kill -TERM $RECORD_PID
wait $RECORD_PID
read -r fwd rec drop _ <<<"$(record_summary)"
expect_eq "stalled writer: commands forwarded" "$fwd" 3001
check "stalled writer: some were dropped" [ "${drop:-0}" -gt 0 ]
expect_eq "stalled writer: recorded + dropped = forwarded" "$((rec + drop))" 3001
expect_eq "stalled writer: rows stored = recorded" "$(sqlite3 "$db" "SELECT count(*) FROM command")" "$rec"
check "stalled writer: trace.dropped counts them" [ "$(sqlite3 "$db" "SELECT dropped FROM trace")" -ge "$drop" ]
expect_eq "stalled writer: integrity" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
check "stalled writer: drop count printed at exit" grep -q "could not keep up" "$T/record.err"

# -- 2. SIGKILL.
start_swtpm "$T/sw2"
db=$T/kill.db
record_bg "$db" --backend "swtpm:path=$T/sw2/s.sock" --listen "unix:$T/p2.sock"
wait_for_socket "$T/p2.sock"
"$TPMCLIENT" --connect "unix:$T/p2.sock" --cmd startup >/dev/null
check "sigkill: commands answered" "$TPMCLIENT" --connect "unix:$T/p2.sock" --cmd pcrextend --count 2000
# Killed once every command is committed (a reader sees them all).
check "sigkill: all 2,001 commands committed before the kill" \
	wait_until "[ \"\$(sqlite3 '$db' 'SELECT count(*) FROM command')\" = 2001 ]"
kill -KILL $RECORD_PID
wait $RECORD_PID 2>/dev/null
expect_eq "sigkill: integrity" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
expect_eq "sigkill: every committed command is there" "$(sqlite3 "$db" "SELECT count(*) FROM command")" 2001
expect_eq "sigkill: no gaps" "$(sqlite3 "$db" "SELECT max(seq) - count(*) FROM (SELECT seq FROM command UNION ALL SELECT seq FROM event)")" 0
"$TPMTRACE" verify "$db" >"$T/verify.out"
expect_eq "sigkill: verify exits 0" "$?" 0
check "sigkill: verify reports the unfinished trace" grep -q "unfinished" "$T/verify.out"
finish
