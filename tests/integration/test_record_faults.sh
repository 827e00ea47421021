#!/usr/bin/env bash
# Faults while recording: TPM traffic never stops and the database stays
# intact. (1) a stalled writer overrun by traffic: drops counted exactly;
# (2) SIGKILL of the recorder: integrity_check passes and every committed batch
# is there; (3) disk full (a size-limited tmpfs): traffic continues, one
# warning, drops counted exactly, recording resumes when space returns;
# (4) the database directory and files made read-only mid-recording (recorder
# running as an unprivileged user): traffic continues, counts exact.
. "$TPMTRACE_TEST_LIB/common.sh"
need swtpm sqlite3

# summary FIELD: a number from the recorder's exit summary.
summary() {
	sed -n 's/.* \([0-9]*\) commands forwarded, \([0-9]*\) recorded, \([0-9]*\) dropped.*/\1 \2 \3/p' "$T/record.err"
}

# -- 1. Stalled writer, tiny queue.
start_swtpm "$T/sw1"
db=$T/stall.db
TPMTRACE_FAULT_WRITER_STALL_MS=300 record_bg "$db" --backend "swtpm:path=$T/sw1/s.sock" \
	--listen "unix:$T/p1.sock" --queue-size 64
wait_for_socket "$T/p1.sock"
"$TPMCLIENT" --connect "unix:$T/p1.sock" --cmd startup >/dev/null
check "stalled writer: every command answered" \
	"$TPMCLIENT" --connect "unix:$T/p1.sock" --cmd getrandom --count 3000
kill -TERM $RECORD_PID
wait $RECORD_PID
read -r fwd rec drop <<<"$(summary)"
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
sleep 0.5 # more than the writer's commit interval
kill -KILL $RECORD_PID
wait $RECORD_PID 2>/dev/null
expect_eq "sigkill: integrity" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
expect_eq "sigkill: every committed command is there" "$(sqlite3 "$db" "SELECT count(*) FROM command")" 2001
expect_eq "sigkill: no gaps" "$(sqlite3 "$db" "SELECT max(seq) - count(*) FROM (SELECT seq FROM command UNION ALL SELECT seq FROM event)")" 0
"$TPMTRACE" verify "$db" >"$T/verify.out"
expect_eq "sigkill: verify exits 0" "$?" 0
check "sigkill: verify reports the unfinished trace" grep -q "unfinished" "$T/verify.out"

# -- 3. Disk full.
mkdir -p "$T/full"
if mount -t tmpfs -o size=1m tpmtrace-test "$T/full" 2>/dev/null; then
	start_swtpm "$T/sw3"
	db=$T/full/full.db
	record_bg "$db" --backend "swtpm:path=$T/sw3/s.sock" --listen "unix:$T/p3.sock" --payloads full
	wait_for_socket "$T/p3.sock"
	"$TPMCLIENT" --connect "unix:$T/p3.sock" --cmd startup >/dev/null
	check "disk full: before" "$TPMCLIENT" --connect "unix:$T/p3.sock" --cmd getrandom --count 200
	sleep 0.3
	dd if=/dev/zero of="$T/full/filler" bs=4k 2>/dev/null
	check "disk full: traffic continues" "$TPMCLIENT" --connect "unix:$T/p3.sock" --cmd big --count 2000
	sleep 0.5
	rm -f "$T/full/filler"
	check "disk full: after" "$TPMCLIENT" --connect "unix:$T/p3.sock" --cmd getrandom --count 200
	sleep 0.3
	kill -TERM $RECORD_PID
	wait $RECORD_PID
	read -r fwd rec drop <<<"$(summary)"
	expect_eq "disk full: commands forwarded" "$fwd" 2401
	check "disk full: drops counted" [ "${drop:-0}" -gt 0 ]
	expect_eq "disk full: recorded + dropped = forwarded" "$((rec + drop))" 2401
	expect_eq "disk full: rows stored = recorded" "$(sqlite3 "$db" "SELECT count(*) FROM command")" "$rec"
	expect_eq "disk full: a single warning" "$(grep -c 'cannot write' "$T/record.err")" 1
	check "disk full: recording resumed" grep -q "succeed again" "$T/record.err"
	check "disk full: commands after the space returned are stored" \
		[ "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE cc=0x17B")" -gt 200 ]
	expect_eq "disk full: integrity" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
	expect_eq "disk full: trace closed" "$(sqlite3 "$db" "SELECT status FROM trace")" complete
	umount "$T/full"
else
	echo "disk full part skipped: cannot mount a tmpfs here (not root?)"
fi

# -- 4. Read-only directory and files, recorder running as nobody.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	mkdir -p "$T/ro" "$T/rotmp"
	chown nobody "$T/ro" "$T/rotmp"
	chmod 755 "$T"
	db=$T/ro/ro.db
	TMPDIR=$T/rotmp setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$TPMTRACE" record --db "$db" --spawn-swtpm --listen "unix:$T/rotmp/p4.sock" 2>"$T/record.err" &
	RECORD_PID=$!
	PIDS+=($RECORD_PID)
	wait_for_socket "$T/rotmp/p4.sock"
	"$TPMCLIENT" --connect "unix:$T/rotmp/p4.sock" --cmd startup >/dev/null
	check "read-only: before" "$TPMCLIENT" --connect "unix:$T/rotmp/p4.sock" --cmd getrandom --count 300
	chmod 0444 "$db"*
	chmod 0555 "$T/ro"
	check "read-only: traffic continues" "$TPMCLIENT" --connect "unix:$T/rotmp/p4.sock" --cmd getrandom --count 300
	kill -TERM $RECORD_PID
	wait $RECORD_PID
	read -r fwd rec drop <<<"$(summary)"
	# 600 getrandom, the client's startup and tpmtrace's own Startup of the
	# swtpm it spawned.
	expect_eq "read-only: commands forwarded" "$fwd" 602
	expect_eq "read-only: recorded + dropped = forwarded" "$((rec + drop))" 602
	expect_eq "read-only: rows stored = recorded" "$(sqlite3 "$db" "SELECT count(*) FROM command")" "$rec"
	expect_eq "read-only: integrity" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
	chmod 0755 "$T/ro"
else
	echo "read-only part skipped: needs root and setpriv to run the recorder as nobody"
fi
finish
