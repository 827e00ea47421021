#!/usr/bin/env bash
# Soak: an hour of boot traffic compressed: 1,000,000 commands through the
# proxy while the writer stalls for 500 ms every 2 s (a slow disk now and
# then: TPMTRACE_FAULT_WRITER_STALL_MS with _EVERY_MS). The backend is the
# instant fake (tpmclient --serve: answers at once) so that the run fits the
# test budget and exercises the proxy and the writer, not swtpm.
#
# The TPM path never waits for the database. Asserted as the mechanism that
# makes it so, not as a timing: the recorder counts every hand-over of a
# record to the writer's queue that had to wait for room, and that count must
# be 0 while the stalls make the queue overflow and drop (a queue of 1,024
# records: any stall of 500 ms meets more commands than that). Drops are
# counted exactly: forwarded = recorded + dropped, the rows are the recorded
# ones, and the gaps in seq are the drops. The round-trip figures (p99 with
# and without stalls) are printed here and compared in `tools/bench soak`.
# A recorder that waited on the writer (TPMTRACE_FAULT_WRITER_BLOCK_WHEN_FULL,
# faultproof/soak_tpm_path_waits_for_writer) must fail this test.
#   SOAK_COUNT, SOAK_STALL_MS, SOAK_STALL_EVERY_MS, SOAK_QUEUE change 1,000,000 / 500 / 2000 / 1024.
. "$(dirname "$0")/../lib/common.sh"
need sqlite3

N=${SOAK_COUNT:-1000000}
case ${TPMTRACE_TEST_BUILD:-} in
*asan*) N=${SOAK_COUNT:-250000} ;; # sanitizers: memory errors, not figures
esac
STALL_MS=${SOAK_STALL_MS:-500}
STALL_EVERY_MS=${SOAK_STALL_EVERY_MS:-2000}
QUEUE=${SOAK_QUEUE:-1024}

"$TPMCLIENT" --serve "unix:$T/instant.sock" &
PIDS+=($!)
wait_for_socket "$T/instant.sock"

db=$T/soak.db
TPMTRACE_FAULT_WRITER_STALL_MS=$STALL_MS TPMTRACE_FAULT_WRITER_STALL_EVERY_MS=$STALL_EVERY_MS \
	record_bg "$db" --backend "swtpm:path=$T/instant.sock" --listen "unix:$T/p.sock" \
	--queue-size $QUEUE
wait_for_socket "$T/p.sock"
t0=$(date +%s.%N)
check "soak: every command answered" \
	"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd pcrextend --count "$N" >"$T/soak.out"
t1=$(date +%s.%N)
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$RECORD_PID/status")
kill -TERM $RECORD_PID
check "recorder exits 0" wait $RECORD_PID
read -r fwd rec drop waits <<<"$(record_summary)"
awk -v n="$N" -v a="$t0" -v b="$t1" -v p="$(awk '{print $8}' "$T/soak.out")" -v r="$rec" \
	-v d="$drop" -v h="$hwm" 'BEGIN {
	printf "soak: %d commands in %.1f s (%.0f/s, instant backend); client p99 %.1f us; %d recorded, %d dropped; recorder VmHWM %d kB (figures only: tools/bench soak compares them)\n", n, b-a, n/(b-a), p, r, d, h }'

expect_eq "the TPM path never waited for the writer" "${waits:-none}" 0
expect_eq "commands forwarded" "${fwd:-none}" "$N"
check "stalls made the writer drop (the fault took effect)" [ "${drop:-0}" -gt 0 ]
expect_eq "recorded + dropped = forwarded" "$((${rec:-0} + ${drop:-0}))" "$N"
q() { sqlite3 "$db" "$1"; }
expect_eq "rows stored = recorded" "$(q "SELECT count(*) FROM command")" "${rec:-none}"
# The stop event waits for the queue to drain: it is the last row, so a drop
# at the very end still leaves a gap below it.
expect_eq "record-stop is stored, as the last row" \
	"$(q "SELECT kind FROM event WHERE seq = (SELECT max(seq) FROM (SELECT seq FROM command UNION ALL SELECT seq FROM event))")" \
	record-stop
expect_eq "trace.dropped = every dropped record" "$(q "SELECT dropped FROM trace")" \
	"$(q "SELECT max(seq) - count(*) FROM (SELECT seq FROM command UNION ALL SELECT seq FROM event)")"
check "trace.dropped includes the dropped commands" [ "$(q "SELECT dropped FROM trace")" -ge "${drop:-0}" ]
case ${TPMTRACE_TEST_BUILD:-} in
*asan*) ;; # ASan's shadow memory and quarantine dominate the figure
*) check "recorder memory bounded (VmHWM $hwm kB)" [ "$hwm" -le 32768 ] ;;
esac
expect_eq "integrity" "$(q 'PRAGMA integrity_check')" ok
finish
