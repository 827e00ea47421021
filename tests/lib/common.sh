# Shared helpers for the shell tests (sourced). Each test gets a private
# directory, real swtpm instances and a cleanup trap; checks are counted and the
# test ends with "N passed, N failed".
set -u
# Run through ctest, or directly (bash tests/integration/test_NAME.sh) against
# the build in ./build: the variables ctest sets (tests/CMakeLists.txt), with
# those defaults.
TPMTRACE_TEST_LIB=${TPMTRACE_TEST_LIB:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
TPMTRACE_SRC=${TPMTRACE_SRC:-$(cd "$TPMTRACE_TEST_LIB/../.." && pwd)}
TPMTRACE_TEST_BUILD=${TPMTRACE_TEST_BUILD:-$TPMTRACE_SRC/build}
TPMTRACE_BIN=${TPMTRACE_BIN:-$TPMTRACE_TEST_BUILD/bin}
TPMTRACE=${TPMTRACE:-$TPMTRACE_BIN/tpmtrace}
TPMTRACE_SHARED_DATA=${TPMTRACE_SHARED_DATA:-$TPMTRACE_SRC/../shared/data}
export TPMTRACE TPMTRACE_BIN TPMTRACE_SRC TPMTRACE_SHARED_DATA TPMTRACE_TEST_LIB TPMTRACE_TEST_BUILD
if [ ! -x "$TPMTRACE" ]; then
	echo "$TPMTRACE is not built: cmake -B build && cmake --build build (or run the test through ctest)" >&2
	exit 1
fi
TPMCLIENT=${TPMTRACE_TEST_BUILD:-$(dirname "$TPMTRACE")/..}/tests/tpmclient
T=$(mktemp -d "${TMPDIR:-/tmp}/tpmtrace-it.XXXXXX")
PASS=0
FAIL=0
PIDS=()

cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

# tpm2-tools wait for a response for ever (their TCTIs block): every tpm2_*
# command a test runs, directly or through a script, goes through a wrapper
# that gives it TPMTRACE_TEST_CLIENT_TIMEOUT seconds (default 120), so that a
# response lost on the way fails the test instead of hanging it until
# ctest's limit. (tpmclient has its own --timeout.)
wrap_tpm2_tools() {
	local f p
	mkdir -p "$T/.clients"
	for f in $(compgen -c tpm2_ | sort -u); do
		p=$(type -P "$f") || continue
		printf '#!/bin/sh\nexec timeout --foreground -k 5 %s %s "$@"\n' \
			"${TPMTRACE_TEST_CLIENT_TIMEOUT:-120}" "$p" >"$T/.clients/$f"
	done
	chmod +x "$T"/.clients/* 2>/dev/null
	PATH=$T/.clients:$PATH
}
wrap_tpm2_tools

# check "description" COMMAND [ARG...]: one command (a function for a compound
# condition, or one [ A -a B ]), counted as passed or failed. Never
# `check "…" [ A ] && [ B ]`: only A would be checked (check_guard.sh catches
# it at run time, tests/selftest/test_lint_checks.sh in the source). Never put
# a command substitution in the description when the command reads $?: the
# substitution resets it (capture the status in a variable first).
check() {
	check_guard_arm "$1"
	local what=$1
	shift
	if [ $# -eq 0 ]; then
		bad "$what: check without a command"
		return 0
	fi
	if "$@"; then
		PASS=$((PASS + 1))
	else
		FAIL=$((FAIL + 1))
		echo "FAILED: $what" >&2
	fi
	return 0
}
check_escaped() { bad "$*"; }

expect_eq() { # expect_eq "description" actual expected
	if [ "$2" == "$3" ]; then
		PASS=$((PASS + 1))
	else
		FAIL=$((FAIL + 1))
		echo "FAILED: $1: got '$2', expected '$3'" >&2
	fi
}

# For checks written as: [ CONDITION ] && ok || bad "what went wrong"
ok() { PASS=$((PASS + 1)); }
bad() {
	FAIL=$((FAIL + 1))
	echo "FAILED: $*" >&2
}

finish() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
	exit $?
}

# without_lib SONAME CMD...: runs CMD with the shared library SONAME
# unreadable to the loader, as on a machine where it is not installed: an
# empty file bind-mounted over it in a private mount namespace (root only).
without_lib() {
	local f
	f=$(realpath "$(ldconfig -p | awk -v s="$1" '$1 == s {print $NF; exit}')")
	shift
	unshare -m sh -c 'mount --bind /dev/null "$0" && exec "$@"' "$f" "$@"
}

# skip REASON: the whole test is skipped (exit 77), for a documented reason
# only (a missing optional tool outside CI: tests/README.md), and only before
# the first check: a skip after checks ran would throw their verdicts away, so
# it fails instead.
skip() {
	if [ $((PASS + FAIL)) -gt 0 ]; then
		bad "skipped after $((PASS + FAIL)) checks ($FAIL failed): $* (need/skip go before the first check)"
		finish
	fi
	echo "SKIPPED: $*"
	exit 77
}

need() {
	for c in "$@"; do command -v "$c" >/dev/null || skip "$c is not installed"; done
}

# start_swtpm DIR: a swtpm on unix sockets DIR/s.sock (+ .ctrl), not started up.
start_swtpm() {
	local d=$1
	mkdir -p "$d"
	swtpm socket --tpm2 --tpmstate dir="$d" --server type=unixio,path="$d/s.sock" \
		--ctrl type=unixio,path="$d/s.sock.ctrl" --flags not-need-init \
		--log file="$d/swtpm.log" &
	PIDS+=($!)
	SWTPM_PID=$!
	wait_for_listener "$d/s.sock"
}

# wait_for_listener PATH: until a unix socket at PATH takes connections. For
# swtpm's: its file is there from bind(), connections are taken from listen(),
# and between the two a client is refused (seen with both cores busy). Not for
# a recorder's socket: it is linked into place listening (wait_for_socket), and
# a probe would be a client in its trace.
wait_for_listener() {
	wait_for_socket "$1" && wait_until "python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX).connect(sys.argv[1])' '$1' 2>/dev/null" 30
}

# wait_for_socket PATH: until a socket is at PATH (30 s: a process started on
# a machine whose two cores are busy can take seconds to get there).
wait_for_socket() {
	for _ in $(seq 1200); do
		[ -S "$1" ] && return 0
		sleep 0.025
	done
	echo "socket $1 did not appear" >&2
	return 1
}

# swtpm_primary SOCK: starts up the swtpm at SOCK (start_swtpm's s.sock) and
# makes the persistent primary 0x81000001 that tpmclient's readpublic and mix
# ask for, directly (PCRs stay at their reset values).
swtpm_primary() {
	local tcti=swtpm:path=$1
	tpm2_startup -T "$tcti" -c &&
		tpm2_createprimary -T "$tcti" -Q -C o -c "$T/primary.ctx" &&
		tpm2_evictcontrol -T "$tcti" -Q -C o -c "$T/primary.ctx" 0x81000001 >/dev/null
}

# record_bg DB ARGS...: tpmtrace record in the background (RECORD_PID).
record_bg() {
	local db=$1
	shift
	# Emptied here, not when the job opens it: listen_port never reads the
	# banner of the recorder before this one.
	: >"$T/record.err"
	"$TPMTRACE" record --db "$db" "$@" 2>>"$T/record.err" &
	RECORD_PID=$!
	PIDS+=($RECORD_PID)
}

# listen_port swtpm|mssim [FILE]: the port of the first such TCP listener of a
# recorder started with --listen tcp:H:0 or --listen-mssim tcp:H:0 (it binds
# a free pair of ports itself: no test picks a port by chance), read from its
# banner in FILE (default $T/record.err, where record_bg puts it) once there.
listen_port() {
	local f=${2:-$T/record.err} p=
	# One read finds the line and takes the port (a grep then a sed could see
	# two different files).
	wait_until "p=\$(sed -n 's/.*TPM2TOOLS_TCTI=$1:host=[^,]*,port=\([0-9][0-9]*\).*/\1/p' '$f' 2>/dev/null | head -1) && [ -n \"\$p\" ]" 30 ||
		return 1
	echo "$p"
}

# record_client DB CMD COUNT [RECORD-OPTION]...: tpmtrace record --spawn-swtpm
# --no-startup of a tpmclient workload: TPM2_Startup, then COUNT commands CMD
# (tpmclient --cmd). The status is the recorder's.
record_client() {
	local db=$1 cmd=$2 n=$3
	shift 3
	"$TPMTRACE" record --spawn-swtpm --no-startup --db "$db" "$@" -- sh -c \
		"'$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd startup --quiet >/dev/null &&
		 '$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd $cmd --count $n --quiet >/dev/null"
}

# record_demo DB [N]: tpmtrace record --spawn-swtpm of tools/demo-workload N
# (default 3) rounds into DB, trace name demo, stderr in $T/rec.err: the
# setup of a test that reads a trace. The status is the recorder's.
record_demo() {
	"$TPMTRACE" record --spawn-swtpm --db "$1" --name demo -- \
		"$TPMTRACE_SRC/tools/demo-workload" "${2:-3}" >/dev/null 2>"$T/rec.err"
}

# swtpm_log FILE: swtpm's own log at level 20 (import swtpm-log) of a
# TPM2_Startup, a GetRandom and a PCR_Read, written to FILE by a swtpm of
# the test's.
swtpm_log() {
	local d=$T/logtpm.$RANDOM tcti
	mkdir -p "$d"
	swtpm socket --tpm2 --tpmstate dir="$d" --server type=unixio,path="$d/s.sock" \
		--ctrl type=unixio,path="$d/s.sock.ctrl" --flags not-need-init \
		--log file="$1",level=20 &
	PIDS+=($!)
	wait_for_socket "$d/s.sock" || return 1
	tcti=swtpm:path=$d/s.sock
	TPM2TOOLS_TCTI=$tcti tpm2_startup -c >/dev/null 2>&1
	TPM2TOOLS_TCTI=$tcti tpm2_getrandom 8 >/dev/null 2>&1
	TPM2TOOLS_TCTI=$tcti tpm2_pcrread sha256:0 >/dev/null 2>&1
	grep -q SWTPM_IO_Read "$1"
}

# for_others FILE: prints the path of a copy of FILE (a program or script of
# the tree) that another user (nobody, through setpriv) can run: the tree may
# lie in a directory only its owner may enter (a clone in a mktemp -d). $T is
# opened to passage (0711), the copy's directory to reading (0755).
for_others() {
	local c=$T/others/$(basename "$1")
	chmod 0711 "$T"
	mkdir -p -m 0755 "$T/others"
	[ -e "$c" ] || install -m 0755 "$1" "$c"
	echo "$c"
}

# unwrap FILE: FILE's text with the lines a wrapped message continues on
# (indented by two spaces: terminal text fits 100 columns) joined to the line
# before, for a pattern that spans them.
unwrap() {
	sed -z 's/\n  / /g' "$1"
}

# record_summary [FILE]: "forwarded recorded dropped waits" from the exit line
# of tpmtrace record in FILE (default $T/record.err, where record_bg puts it):
# commands forwarded, recorded and dropped, and how often the TPM path waited
# for the writer. Read it with `read -r fwd rec drop waits <<<"$(record_summary)"`.
record_summary() {
	# The exit lines are joined first: the figures are on three of them.
	tr '\n' ' ' <"${1:-$T/record.err}" |
		sed -n 's/.* \([0-9]*\) commands forwarded, \([0-9]*\) recorded, \([0-9]*\) dropped.*waited for the writer \([0-9]*\) times.*/\1 \2 \3 \4/p'
}

# record_drained: asks the recorder RECORD_PID for its status line (SIGUSR1)
# until one says its queue is empty: every record it has taken so far was
# stored or dropped. Status 1 when none does within 60 s.
record_drained() {
	wait_until "kill -USR1 $RECORD_PID && sleep 0.05 &&
		grep 'dropped, [0-9]* queued\$' '$T/record.err' | tail -1 | grep -q ' 0 queued\$'"
}

# wait_until 'CONDITION' [SECONDS]: evaluates the shell condition every 50 ms
# until it holds (status 0) or SECONDS (default 60) have passed (status 1).
# For a state the test waits for (rows committed, a message printed), never a
# sleep that guesses how long it takes.
wait_until() {
	local i
	for ((i = 0; i < ${2:-60} * 20; i++)); do
		eval "$1" && return 0
		sleep 0.05
	done
	return 1
}

# json_get FILE PATH: the value at PATH in the JSON document FILE, keys and
# array indices joined by dots (runs.0.fidelity): a string bare, a number or
# a boolean as JSON writes it, null as "null"; a missing key prints nothing
# and fails. For one value a check compares, instead of inline Python.
json_get() {
	python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split(".") if sys.argv[2] else []:
    try:
        v = v[int(k)] if isinstance(v, list) else v[k]
    except (KeyError, IndexError, ValueError, TypeError):
        sys.exit(1)
print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2"
}

# db_count DB 'WHERE ...': how many commands of DB the clause keeps, a command
# said by name with the SQL function tpm_cc ("WHERE trace_id = 2 AND cc =
# tpm_cc('PCR_Extend')"), never by its hex code.
db_count() {
	"$TPMTRACE" sql "$1" "SELECT count(*) FROM command ${2:-}" --no-header
}

. "$(dirname "${BASH_SOURCE[0]}")/check_guard.sh"

# seal_unseal_lines SECRET PASSWORD: the lines of a tpm2-tools workload (for
# a script run through a recorder) that starts the TPM, makes a primary, seals
# SECRET under PASSWORD, loads and unseals it into ./unsealed, flushing what
# each tool leaves loaded.
seal_unseal_lines() {
	cat <<-EOS
		tpm2_startup -c
		tpm2_createprimary -Q -C o -c prim.ctx
		tpm2_flushcontext -t
		printf '%s' '$1' | tpm2_create -Q -C prim.ctx -p '$2' -i- -u seal.pub -r seal.priv
		tpm2_flushcontext -t
		tpm2_load -Q -C prim.ctx -u seal.pub -r seal.priv -c seal.ctx
		tpm2_flushcontext -t
		tpm2_unseal -c seal.ctx -p '$2' -o unsealed
		tpm2_flushcontext -t
	EOS
}
