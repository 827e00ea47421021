#!/usr/bin/env bash
# Load: 64 clients at once, 2,000 commands each (PCR_Extend, GetRandom,
# GetCapability and ReadPublic mixed, shaped per client by tpmclient --tag so
# that an answer delivered to the wrong client is detected), through the socket
# proxy against one swtpm. Every client checks each answer against the command
# it sent; the database must hold exactly each client's commands and answers,
# in the client's order (seq increasing per client), none lost, none twice; the
# recorder's peak memory (VmHWM) stays bounded. Should the writer be starved of
# CPU long enough to drop records (a busy machine, the sanitizer build), each
# client's rows must still be its log in order with only the dropped ones
# missing, and recorded + dropped = forwarded.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 tpm2_createprimary

CLIENTS=${LOAD_CLIENTS:-64}
N=${LOAD_COUNT:-2000}
HWM_MAX_KB=32768

start_swtpm "$T/sw"
# The object ReadPublic asks for.
swtpm_primary "$T/sw/s.sock" || { echo "cannot prepare swtpm" >&2; exit 1; }

db=$T/load.db
record_bg "$db" --backend "swtpm:path=$T/sw/s.sock" --listen "unix:$T/p.sock" --payloads full
wait_for_socket "$T/p.sock"

declare -A pid_of
for k in $(seq "$CLIENTS"); do
	"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd mix --tag "$k" --count "$N" \
		--log "$T/log.$k" >"$T/out.$k" 2>"$T/err.$k" &
	pid_of[$k]=$!
done
hwm_max=0
while kill -0 "${pid_of[@]}" 2>/dev/null; do
	h=$(awk '/VmHWM/ {print $2}' "/proc/$RECORD_PID/status" 2>/dev/null || echo 0)
	[ "${h:-0}" -gt "$hwm_max" ] && hwm_max=$h
	sleep 0.5
done
failed_clients=0
for k in $(seq "$CLIENTS"); do
	wait "${pid_of[$k]}" || { failed_clients=$((failed_clients + 1)); head -3 "$T/err.$k" >&2; }
done
expect_eq "every client got every answer right (its own)" "$failed_clients" 0
expect_eq "answers checked" "$(cat "$T"/out.* | awk '{ok += $4; w += $12} END {print ok " " w}')" \
	"$((CLIENTS * N)) 0"
h=$(awk '/VmHWM/ {print $2}' "/proc/$RECORD_PID/status")
[ "$h" -gt "$hwm_max" ] && hwm_max=$h
kill -TERM $RECORD_PID
check "recorder exits 0" wait $RECORD_PID
echo "recorder peak RSS (VmHWM): $hwm_max kB with $CLIENTS clients"
case ${TPMTRACE_TEST_BUILD:-} in
*asan*) echo "memory bound not checked: ASan's shadow memory and quarantine dominate" ;;
*) check "recorder memory bounded (VmHWM $hwm_max kB <= $HWM_MAX_KB kB)" [ "$hwm_max" -le $HWM_MAX_KB ] ;;
esac

q() { sqlite3 "$db" "$1"; }
read -r fwd rec drop _ <<<"$(record_summary)"
echo "forwarded $fwd, recorded $rec, dropped $drop"
expect_eq "commands forwarded: every one sent" "$fwd" "$((CLIENTS * N))"
expect_eq "recorded + dropped = forwarded" "$((rec + drop))" "$fwd"
expect_eq "rows: one per command recorded" "$(q "SELECT count(*) FROM command")" "$rec"
expect_eq "one client row per process" "$(q "SELECT count(*) FROM client WHERE comm='tpmclient'")" "$CLIENTS"
bad=0
for k in $(seq "$CLIENTS"); do
	id=$(q "SELECT id FROM client WHERE pid=${pid_of[$k]}")
	q "SELECT hex(cmd) || ' ' || hex(rsp) FROM command WHERE client_id=$id ORDER BY seq" >"$T/db.$k"
	if [ "$drop" -eq 0 ]; then
		cmp -s "$T/log.$k" "$T/db.$k" || { bad=$((bad + 1)); echo "client $k differs" >&2; }
	else
		# an ordered subsequence of the log: nothing foreign, nothing twice
		awk 'NR == FNR { log_[NR] = $0; n = NR; next }
			{ while (i < n && log_[++i] != $0) ; if (log_[i] != $0) bad = 1 }
			END { exit bad }' "$T/log.$k" "$T/db.$k" ||
			{ bad=$((bad + 1)); echo "client $k: rows not in its log's order" >&2; }
	fi
done
expect_eq "each client's rows are its own commands and answers, in its order" "$bad" 0
expect_eq "sequence numbers unique; the gaps are the drops" \
	"$(q "SELECT count(DISTINCT seq) = count(*) AND max(seq) - count(*) = (SELECT dropped FROM trace) FROM (SELECT seq FROM command UNION ALL SELECT seq FROM event)")" 1
if [ "$drop" -eq 0 ]; then
	expect_eq "all four kinds of command, evenly" \
		"$(q "SELECT group_concat(n) FROM (SELECT count(*) n FROM command GROUP BY cc ORDER BY cc)")" \
		"$((CLIENTS * N / 4)),$((CLIENTS * N / 4)),$((CLIENTS * N / 4)),$((CLIENTS * N / 4))"
fi
expect_eq "integrity" "$(q 'PRAGMA integrity_check')" ok
finish
