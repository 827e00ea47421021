#!/usr/bin/env bash
# Soak: an hour of boot traffic compressed: 1,000,000 commands through the
# proxy while the writer stalls for 500 ms every 2 s (a slow disk now and
# then: TPMTRACE_FAULT_WRITER_STALL_MS with _EVERY_MS). The backend is the
# instant fake (tpmclient --serve: answers at once) so that the run fits the
# test budget and measures the proxy and the writer, not swtpm. The TPM path
# never waits for the database: no round trip comes near a stall, and the
# client's p99 round trip stays near that of a run without stalls. Drops are
# counted exactly: forwarded = recorded + dropped, the rows are the recorded
# ones, and the gaps in seq are the drops.
. "$TPMTRACE_TEST_LIB/common.sh"
need sqlite3

N=${SOAK_COUNT:-1000000}
BASE_N=200000
case ${TPMTRACE_TEST_BUILD:-} in
*asan*) N=${SOAK_COUNT:-250000}; BASE_N=50000 ;; # sanitizers: memory errors, not figures
esac
STALL_MS=500

"$TPMCLIENT" --serve "unix:$T/instant.sock" &
PIDS+=($!)
wait_for_socket "$T/instant.sock"

summary() { # forwarded recorded dropped, from the recorder's exit line
	sed -n 's/.* \([0-9]*\) commands forwarded, \([0-9]*\) recorded, \([0-9]*\) dropped.*/\1 \2 \3/p' "$T/record.err"
}
p99() { awk '{print $8}' "$1"; }

# Baseline: the same proxy and writer, no stalls.
record_bg "$T/base.db" --backend "swtpm:path=$T/instant.sock" --listen "unix:$T/b.sock" --quiet
wait_for_socket "$T/b.sock"
check "baseline: every command answered" \
	"$TPMCLIENT" --connect "unix:$T/b.sock" --cmd pcrextend --count "$BASE_N" >"$T/base.out"
kill -TERM $RECORD_PID
wait $RECORD_PID

db=$T/soak.db
TPMTRACE_FAULT_WRITER_STALL_MS=$STALL_MS TPMTRACE_FAULT_WRITER_STALL_EVERY_MS=2000 \
	record_bg "$db" --backend "swtpm:path=$T/instant.sock" --listen "unix:$T/p.sock"
wait_for_socket "$T/p.sock"
t0=$(date +%s.%N)
check "soak: every command answered" \
	"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd pcrextend --count "$N" --rtt "$T/rtt" >"$T/soak.out"
t1=$(date +%s.%N)
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$RECORD_PID/status")
kill -TERM $RECORD_PID
check "recorder exits 0" wait $RECORD_PID
read -r fwd rec drop <<<"$(summary)"
base_p99=$(p99 "$T/base.out")
soak_p99=$(p99 "$T/soak.out")
slow=$(awk -v lim=$((STALL_MS * 1000000 / 2)) '$1 > lim {n++} END {print n+0}' "$T/rtt")
awk -v n="$N" -v a="$t0" -v b="$t1" -v bp="$base_p99" -v sp="$soak_p99" -v f="$fwd" -v r="$rec" \
	-v d="$drop" -v h="$hwm" 'BEGIN {
	printf "soak: %d commands in %.1f s (%.0f/s, instant backend); client p99 %.1f us with stalls, %.1f us without; %d recorded, %d dropped; recorder VmHWM %d kB\n", n, b-a, n/(b-a), sp, bp, r, d, h }'

expect_eq "no round trip waited for a stall (> $((STALL_MS / 2)) ms)" "$slow" 0
check "p99 round trip unaffected by stalls ($soak_p99 us vs $base_p99 us)" \
	awk -v s="$soak_p99" -v b="$base_p99" 'BEGIN { exit !(s <= 3 * b + 200) }'
expect_eq "commands forwarded" "$fwd" "$N"
check "stalls made the writer drop (the fault took effect)" [ "${drop:-0}" -gt 0 ]
expect_eq "recorded + dropped = forwarded" "$((rec + drop))" "$N"
q() { sqlite3 "$db" "$1"; }
expect_eq "rows stored = recorded" "$(q "SELECT count(*) FROM command")" "$rec"
# The stop event waits for the queue to drain: it is the last row, so a drop
# at the very end still leaves a gap below it.
expect_eq "record-stop is stored, as the last row" \
	"$(q "SELECT kind FROM event WHERE seq = (SELECT max(seq) FROM (SELECT seq FROM command UNION ALL SELECT seq FROM event))")" \
	record-stop
expect_eq "trace.dropped = every dropped record" "$(q "SELECT dropped FROM trace")" \
	"$(q "SELECT max(seq) - count(*) FROM (SELECT seq FROM command UNION ALL SELECT seq FROM event)")"
check "trace.dropped includes the dropped commands" [ "$(q "SELECT dropped FROM trace")" -ge "$drop" ]
case ${TPMTRACE_TEST_BUILD:-} in
*asan*) ;; # ASan's shadow memory and quarantine dominate the figure
*) check "recorder memory bounded (VmHWM $hwm kB)" [ "$hwm" -le 32768 ] ;;
esac
expect_eq "integrity" "$(q 'PRAGMA integrity_check')" ok
finish
