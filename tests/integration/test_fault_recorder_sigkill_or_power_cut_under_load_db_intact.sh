#!/usr/bin/env bash
# Fault: the recorder dies under load. (1) SIGKILL of the recorder while four
# clients drive swtpm through it; (2) a power cut simulated by SIGKILL of the
# whole process group (recorder, the swtpm it spawned and the client, started
# with setsid). Each time: PRAGMA integrity_check passes; every batch another
# connection saw committed before the kill is still there; batches are whole
# (sequence numbers contiguous from 1); the trace is left 'recording' and
# `tpmtrace verify` reports the unfinished tail and exits 0.
# (A real power cut also loses the page cache; WAL with synchronous=NORMAL
# may then lose the last batches but never corrupts the file. Killing the
# processes cannot simulate that part; it needs a VM.)
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 setsid

q() { sqlite3 "$1" "$2"; }
# watch DB: the committed command count, as another connection sees it,
# every 50 ms, into $T/seen (last line = last seen before the kill)
watch_db() {
	while :; do
		sqlite3 "$1" "SELECT count(*) FROM command" 2>/dev/null | grep -E '^[0-9]+$' >>"$T/seen"
		sleep 0.05
	done
}
after_kill() { # NAME DB
	local n=$1 db=$2 seen
	seen=$(tail -1 "$T/seen" 2>/dev/null || echo 0)
	expect_eq "$n: integrity_check" "$(q "$db" 'PRAGMA integrity_check')" ok
	local rows
	rows=$(q "$db" "SELECT count(*) FROM command")
	echo "$n: $rows commands stored; $seen seen committed by a reader before the kill"
	check "$n: every batch seen committed is there ($rows >= $seen)" [ "$rows" -ge "${seen:-0}" ]
	check "$n: a real load was running ($seen)" [ "${seen:-0}" -ge 1000 ]
	expect_eq "$n: batches whole (seq contiguous from 1)" \
		"$(q "$db" "SELECT min(seq) = 1 AND max(seq) = count(*) FROM (SELECT seq FROM command UNION ALL SELECT seq FROM event)")" 1
	expect_eq "$n: trace left recording" "$(q "$db" "SELECT status FROM trace")" recording
	"$TPMTRACE" verify "$db" >"$T/$n.verify"
	expect_eq "$n: verify exits 0" "$?" 0
	check "$n: verify reports the unfinished tail" grep -q "unfinished: .* $rows commands" <(unwrap "$T/$n.verify")
}

# -- 1. SIGKILL of the recorder under load.
start_swtpm "$T/sw"
db=$T/kill.db
# A queue large enough (and no payload bytes) that nothing is dropped on a
# busy machine: then whole batches show as sequence numbers without a gap.
record_bg "$db" --backend "swtpm:path=$T/sw/s.sock" --listen "unix:$T/p.sock" --queue-size 262144 --payloads none
wait_for_socket "$T/p.sock"
"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd startup >/dev/null
clients=()
for k in 1 2 3 4; do
	"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd mix --tag $k --count 1000000 --quiet \
		>/dev/null 2>&1 &
	clients+=($!)
	PIDS+=($!)
done
: >"$T/seen"
watch_db "$db" &
watcher=$!
PIDS+=($watcher)
sleep 3
kill -KILL $RECORD_PID
kill $watcher
wait $RECORD_PID $watcher 2>/dev/null
for c in "${clients[@]}"; do
	timeout 10 tail --pid="$c" -f /dev/null || kill "$c"
done
check "sigkill: the clients saw the proxy go (no hang)" bash -c "! kill -0 ${clients[*]} 2>/dev/null"
after_kill sigkill "$db"

# -- 2. Power cut: the whole process group at once.
db=$T/cut.db
: >"$T/seen"
setsid "$TPMTRACE" record --spawn-swtpm --no-startup --db "$db" --queue-size 262144 --payloads none -- bash -c \
	"'$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd startup >/dev/null; exec '$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd pcrextend --count 10000000 --quiet" \
	>/dev/null 2>"$T/cut.err" &
leader=$!
PIDS+=($leader)
for _ in $(seq 100); do [ -e "$db" ] && break; sleep 0.05; done
watch_db "$db" &
watcher=$!
PIDS+=($watcher)
sleep 3
pgid=$(ps -o pgid= "$leader" | tr -d ' ')
check "power cut: the recorder leads its own process group" [ "$pgid" = "$leader" ]
members=$(pgrep -g "$pgid" | wc -l)
check "power cut: recorder and client in the group ($members)" [ "$members" -ge 2 ]
sw=$(pgrep -P "$leader" -x swtpm)
check "power cut: the spawned swtpm found" [ -n "$sw" ]
kill -KILL -- "-$pgid" $sw
kill $watcher
wait $leader $watcher 2>/dev/null
sleep 0.2
ps -o pid,stat,cmd -g "$pgid" -p "$sw" | sed 1d >"$T/left"; cat "$T/left" >&2
check "power cut: nothing survives (zombies aside)" bash -c "! grep -qv ' Z' $T/left"
after_kill power-cut "$db"
finish
