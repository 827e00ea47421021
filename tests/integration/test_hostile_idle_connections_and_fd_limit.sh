#!/usr/bin/env bash
# Bounded resources, fair service (issue 15, findings 2 and 3):
#  - finding 2: 1,100 idle connections (more than the proxy's 1,024) no longer
#    starve a good client: its 100 requests, one connection each as tpm2-tss's
#    swtpm TCTI makes them, and 100 more on one connection, all succeed within
#    the idle timeout; every idle connection is closed by the proxy (evicted at
#    the per-peer limit, or timed out) and each close is an event;
#  - finding 3: under `prlimit --nofile=256` with 300 idle connections the
#    proxy stays under 10% CPU (its utime+stime from /proc) and serves good
#    clients; with the limit then lowered below what it holds (EMFILE at
#    accept) it closes the oldest idle connection, and with nothing left to
#    close it pauses accepting instead of spinning, and serves again once
#    descriptors are free.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3 prlimit
H=(python3 "$TPMTRACE_TEST_LIB/hostile.py")
ulimit -n 4096 2>/dev/null || skip "cannot raise the descriptor limit for 1,100 sockets"

start_swtpm "$T/sw"
listen() { # DB ARGS...: a recorder on a free TCP port ($port), RECORD_PID
	local db=$1
	shift
	record_bg "$db" --backend "swtpm:path=$T/sw/s.sock" --listen "tcp:127.0.0.1:0" "$@"
	port=$(listen_port swtpm) && [ -n "$port" ]
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# ---- 1,100 idle connections, idle timeout 15 s (room for a loaded machine
# under ASan: 100 new connections took over 4 s with both cores kept busy) ----
check "recorder started" listen "$T/idle.db" --idle-timeout 15
check "startup" "$TPMCLIENT" --connect "tcp:127.0.0.1:$port" --cmd startup --quiet
"${H[@]}" idle "tcp:127.0.0.1:$port" 1100 40 >"$T/idle.out" &
idler=$!
wait_until "grep -q opened '$T/idle.out'" 20
expect_eq "1,100 idle connections opened" "$(grep opened "$T/idle.out")" "opened 1100"
check "finding 2: 100 requests, a connection each, within the idle timeout" \
	timeout 15 "$TPMCLIENT" --connect "tcp:127.0.0.1:$port" --new-conn --cmd getrandom \
	--count 100 --quiet
check "finding 2: 100 requests on one connection, within the idle timeout" \
	timeout 15 "$TPMCLIENT" --connect "tcp:127.0.0.1:$port" --cmd getrandom --count 100 --quiet
wait $idler
expect_eq "every idle connection was closed by the proxy" "$(grep closed "$T/idle.out")" "closed 1100"
kill -TERM $RECORD_PID
check "recorder exits 0" wait $RECORD_PID
q() { sqlite3 "$T/idle.db" "$1"; }
evicted=$(q "SELECT count(*) FROM event WHERE kind='conn-evicted'")
timedout=$(q "SELECT count(*) FROM event WHERE kind='conn-idle-timeout'")
check "evicted at the per-peer limit ($evicted), the rest timed out ($timedout): an event each" \
	[ "$evicted" -ge 1 -a "$timedout" -ge 1 -a $((evicted + timedout)) -ge 1100 ]
expect_eq "an eviction names the peer and the limit" \
	"$(q "SELECT count(*) FROM event WHERE kind='conn-evicted' AND detail LIKE '256 connections of 127.0.0.1%'")" \
	"$evicted"
expect_eq "the good client's 200 requests were recorded" \
	"$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND rc=0")" 200

# ---- prlimit --nofile=256: 300 idle connections ----
listen_limited() {
	: >"$T/record.err" # not the last recorder's banner (record_bg)
	prlimit --nofile=256:256 "$TPMTRACE" record --db "$T/fd.db" \
		--backend "swtpm:path=$T/sw/s.sock" --listen "tcp:127.0.0.1:0" \
		--idle-timeout 60 2>>"$T/record.err" &
	RECORD_PID=$!
	PIDS+=($RECORD_PID)
	port=$(listen_port swtpm) && [ -n "$port" ]
}
check "recorder started under prlimit --nofile=256" listen_limited
"${H[@]}" idle "tcp:127.0.0.1:$port" 300 12 >"$T/fd.out" &
idler=$!
wait_until "grep -q opened '$T/fd.out'" 20
expect_eq "300 idle connections opened" "$(grep opened "$T/fd.out")" "opened 300"
sleep 0.5
c0=$(cpu_ticks $RECORD_PID)
sleep 3
c1=$(cpu_ticks $RECORD_PID)
hz=$(getconf CLK_TCK)
check "finding 3: proxy CPU under 10% with 300 idle connections ($((c1 - c0)) ticks in 3 s)" \
	[ $(((c1 - c0) * 100)) -lt $((3 * hz * 10)) ]
check "finding 3: good clients served" \
	"$TPMCLIENT" --connect "tcp:127.0.0.1:$port" --new-conn --cmd getrandom --count 20 --quiet

# The limit lowered under the running proxy: accept() meets EMFILE (or poll()
# refuses the descriptors it holds).
fds=$(ls "/proc/$RECORD_PID/fd" | wc -l)
check "limit lowered to 40 below what it holds ($fds)" \
	prlimit --pid $RECORD_PID --nofile=$((fds - 40)):
check "EMFILE: the oldest idle connection makes room, good clients served" \
	"$TPMCLIENT" --connect "tcp:127.0.0.1:$port" --new-conn --cmd getrandom --count 20 --quiet
wait $idler # the idle clients hang up; their descriptors are freed
sleep 0.5
# The limit at the lowest free descriptor number: not one more can be opened,
# and there is no connection left to close.
free=$(ls "/proc/$RECORD_PID/fd" | sort -n | awk '$1 != NR - 1 {print NR - 1; f = 1; exit} END {if (!f) print NR}')
check "limit lowered to the lowest free descriptor ($free), no connection left" \
	prlimit --pid $RECORD_PID --nofile=$free:
"${H[@]}" idle "tcp:127.0.0.1:$port" 40 6 >"$T/wait.out" &
waiter=$!
sleep 0.5
c0=$(cpu_ticks $RECORD_PID)
sleep 2
c1=$(cpu_ticks $RECORD_PID)
check "finding 3: nothing to close, connections waiting: accepts pause, CPU under 10% ($((c1 - c0)) ticks in 2 s)" \
	[ $(((c1 - c0) * 100)) -lt $((2 * hz * 10)) ]
check "limit raised again" prlimit --pid $RECORD_PID --nofile=256:
check "finding 3: served again once descriptors are free" \
	timeout 10 "$TPMCLIENT" --connect "tcp:127.0.0.1:$port" --cmd getrandom --count 20 --quiet
wait $waiter
kill -TERM $RECORD_PID
check "recorder exits 0" wait $RECORD_PID
q() { sqlite3 "$T/fd.db" "$1"; }
check "evictions for the connection limit and for the lowered descriptor limit" \
	[ "$(q "SELECT count(*) FROM event WHERE kind='conn-evicted' AND detail LIKE '%connections (the limit)%'")" -ge 1 -a \
	"$(q "SELECT count(*) FROM event WHERE kind='conn-evicted' AND (detail LIKE 'out of file descriptors%' OR detail LIKE 'the file descriptor limit was lowered%')")" -ge 1 ]
check "the pause is an event" \
	[ "$(q "SELECT count(*) FROM event WHERE kind='accept-paused'")" -ge 1 ]
finish
