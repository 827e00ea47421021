# Shared helpers for the shell tests (sourced). Each test gets a private
# directory, real swtpm instances and a cleanup trap; checks are counted and the
# test ends with "N passed, N failed".
set -u
: "${TPMTRACE:?run through ctest (TPMTRACE unset)}"
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

check() { # check "description" command...
	local what=$1
	shift
	if "$@"; then
		PASS=$((PASS + 1))
	else
		FAIL=$((FAIL + 1))
		echo "FAILED: $what" >&2
	fi
}

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

skip() {
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
	wait_for_socket "$d/s.sock"
}

wait_for_socket() {
	for _ in $(seq 200); do
		[ -S "$1" ] && return 0
		sleep 0.025
	done
	echo "socket $1 did not appear" >&2
	return 1
}

# record_bg DB ARGS...: tpmtrace record in the background (RECORD_PID).
record_bg() {
	local db=$1
	shift
	"$TPMTRACE" record --db "$db" "$@" 2>"$T/record.err" &
	RECORD_PID=$!
	PIDS+=($RECORD_PID)
}

sql() { sqlite3 "$@"; }
