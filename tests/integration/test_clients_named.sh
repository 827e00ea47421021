#!/usr/bin/env bash
# Who sent each command (issue 31, item 7): a client is its program by its
# full name, not the 15 bytes of its comm (tpm2_createprimary, and two
# tpmclient processes run under names longer than 15 bytes), in the client
# table, in `show -V` and in advise's findings; `show --client` takes a full
# name, the start of one or pid:N and keeps the commands an independent query
# counts; a name the trace does not have is an error (exit 1) naming its
# clients. Through `record --listen unix:` and `--listen tcp:127.0.0.1:0` (the
# kernel picks the port pair; the children read it from TPM2TOOLS_TCTI) two
# processes at once are two clients with the pids the test started and their
# names; a tpm2-tools process on TCP (data and control connections) is one
# client with its pid.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 tpm2_createprimary tpm2_pcrread tpm2_getrandom

mkdir -p "$T/bin" "$T/w"
ln -s "$TPMCLIENT" "$T/bin/tpmtrace-test-client-alpha"
ln -s "$TPMCLIENT" "$T/bin/tpmtrace-test-client-beta"
export T
q() { sqlite3 "$1" "$2"; }
pid_of() { awk -v n="$2" '$1 == n { print $2 }' "$1"; } # PIDFILE NAME
# getrandoms DB PID_A PID_B: the GetRandom count of each process's client
getrandoms() {
	q "$1" "SELECT group_concat(n, ' ') FROM (SELECT count(*) n FROM command c JOIN client k
	   ON k.trace_id = c.trace_id AND k.id = c.client_id WHERE c.cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND k.pid IN ($2, $3)
	   GROUP BY k.id ORDER BY k.pid = $2 DESC)"
}

# ---- unix socket: tpm2-tools and two long-named processes at once ----
work_unix() {
	cd "$T/w" || return 1
	tpm2_createprimary -C o -c p1.ctx >/dev/null && tpm2_createprimary -C o -c p2.ctx >/dev/null &&
		tpm2_pcrread sha256:0 >/dev/null || return 1
	"$T/bin/tpmtrace-test-client-alpha" --connect "unix:$T/u.sock" --cmd getrandom --count 40 --quiet &
	a=$!
	echo "alpha $a" >"$T/unix.pids"
	"$T/bin/tpmtrace-test-client-beta" --connect "unix:$T/u.sock" --cmd getrandom --count 30 --quiet &
	b=$!
	echo "beta $b" >>"$T/unix.pids"
	wait $a && wait $b
}
export -f work_unix
# record_work NAME LISTEN: the work_NAME function recorded into $T/NAME.db
# through LISTEN; pid_a and pid_b the pids of its two long-named processes.
record_work() {
	"$TPMTRACE" record --spawn-swtpm --db "$T/$1.db" --listen "$2" --quiet -- bash -c "work_$1" \
		2>"$T/$1.err"
	local rc=$?
	expect_eq "$1 recording through $2 ($(tail -n 3 "$T/$1.err"))" "$rc" 0
	pid_a=$(pid_of "$T/$1.pids" alpha)
	pid_b=$(pid_of "$T/$1.pids" beta)
}
U=$T/unix.db
record_work unix "unix:$T/u.sock"
expect_eq "unix: the first process's client, by its pid, has its full name" \
	"$(q "$U" "SELECT comm FROM client WHERE pid=$pid_a")" tpmtrace-test-client-alpha
expect_eq "unix: the second's" "$(q "$U" "SELECT comm FROM client WHERE pid=$pid_b")" \
	tpmtrace-test-client-beta
expect_eq "unix: each its own commands (40 and 30 GetRandom)" "$(getrandoms "$U" "$pid_a" "$pid_b")" \
	"40 30"
expect_eq "tpm2_createprimary named whole (two processes)" \
	"$(q "$U" "SELECT count(*) FROM client WHERE comm = 'tpm2_createprimary'")" 2

# show -V and the --client filter
n_of() { "$TPMTRACE" show "$U" "$@" | grep -vc '  -- '; }
cp_n=$(q "$U" "SELECT count(*) FROM command c JOIN client k ON k.trace_id = c.trace_id AND
	k.id = c.client_id WHERE k.comm = 'tpm2_createprimary'")
check "the tpm2_createprimary processes sent commands" [ "$cp_n" -gt 2 ]
expect_eq "show --client tpm2_createprimary: its commands" "$(n_of --client tpm2_createprimary)" "$cp_n"
expect_eq "show --client tpm2_createprim (the start of the name): the same" \
	"$(n_of --client tpm2_createprim)" "$cp_n"
# a name stored cut (record --kernel's comm of a process already gone) is
# matched by the whole name
cp "$U" "$T/cut.db"
q "$T/cut.db" "UPDATE client SET comm = 'tpm2_createprim' || char(8230) WHERE comm = 'tpm2_createprimary'"
expect_eq "show --client tpm2_createprimary: a name stored cut ('tpm2_createprim…') matched" \
	"$("$TPMTRACE" show "$T/cut.db" --client tpm2_createprimary | wc -l)" "$cp_n"
expect_eq "show --client pid:N: that process's commands" "$(n_of --client "pid:$pid_b")" 30
"$TPMTRACE" show "$U" --cc CreatePrimary --limit 1 -V >"$T/v.txt"
check "show -V names the client whole" grep -q '^Command: seq [0-9]*, trace 1, client [0-9]* (tpm2_createprimary)' "$T/v.txt"
"$TPMTRACE" show "$U" --client nosuch >"$T/none.out" 2>"$T/none.err"
rc=$?
expect_eq "show --client nosuch: exit status 1 (no such client)" "$rc" 1
expect_eq "show --client nosuch: no row" "$(wc -c <"$T/none.out")" 0
check "show --client nosuch: says so, with the trace's clients" \
	grep -q "trace 1 has no client 'nosuch' (its clients: tpmtrace, tpm2_createprimary" "$T/none.err"
"$TPMTRACE" show "$U" --client 999 >/dev/null 2>"$T/none.err"
rc=$?
expect_eq "show --client 999 (no client of that number): exit status 1" "$rc" 1

# advise: two primaries of one template, the finding names its clients whole
"$TPMTRACE" advise "$U" >"$T/advise.txt"
check "advise finds the repeated primary" grep -q '^1\. repeated-primary' "$T/advise.txt"
check "advise names its clients whole" grep -q "tpm2_createprimary (pid [0-9]*)" "$T/advise.txt"

# ---- TCP on a port pair the kernel picked ----
work_tcp() {
	port=${TPM2TOOLS_TCTI##*port=}
	"$T/bin/tpmtrace-test-client-alpha" --connect "tcp:127.0.0.1:$port" --cmd getrandom --count 25 --quiet &
	a=$!
	echo "alpha $a" >"$T/tcp.pids"
	"$T/bin/tpmtrace-test-client-beta" --connect "tcp:127.0.0.1:$port" --new-conn --cmd getrandom \
		--count 15 --quiet &
	b=$!
	echo "beta $b" >>"$T/tcp.pids"
	wait $a && wait $b && tpm2_getrandom 8 >/dev/null
}
export -f work_tcp
N=$T/tcp.db
record_work tcp tcp:127.0.0.1:0
expect_eq "tcp: two processes, two clients with their pids and names" \
	"$(q "$N" "SELECT group_concat(pid || ' ' || comm, ', ') FROM (SELECT pid, comm FROM client
	   WHERE pid IN ($pid_a, $pid_b) ORDER BY pid = $pid_a DESC)")" \
	"$pid_a tpmtrace-test-client-alpha, $pid_b tpmtrace-test-client-beta"
expect_eq "tcp: each its own commands (25, and 15 on a connection each)" \
	"$(getrandoms "$N" "$pid_a" "$pid_b")" "25 15"
expect_eq "tcp: tpm2_getrandom (its data and control connections) one client with a pid" \
	"$(q "$N" "SELECT count(*) || ' ' || count(pid) FROM client WHERE comm = 'tpm2_getrandom'")" "1 1"
expect_eq "tcp: every client a process (none by address alone)" \
	"$(q "$N" "SELECT count(*) FROM client WHERE pid IS NULL AND comm IS NOT 'tpmtrace'")" 0
finish
