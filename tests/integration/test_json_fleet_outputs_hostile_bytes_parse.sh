#!/usr/bin/env bash
# push --json and fleet stats/list --json (the fleet half of
# test_json_outputs_hostile_bytes_parse.sh) on a real PostgreSQL server
# (tests/lib/pg.sh): a host whose hostname and kernel release hold control
# bytes, a quote and a backslash gives strict UTF-8 JSON that parses with
# Python's json module, the names found escaped (db/json.h).
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3
. "$(dirname "$0")/../lib/pg.sh"
J=$TPMTRACE_TEST_LIB/json_strict.py
check "a PostgreSQL 15 server starts in the test directory" pg_start pg
[ -n "${PGURL:-}" ] || finish

H=$'\e[2J\a\x01"\\'
HJ='\u001b[2J\u0007\u0001\"\\'
TPMTRACE_HOST_ID_HOSTNAME="host$H" TPMTRACE_HOST_ID_MACHINE_ID=machine-1 \
	TPMTRACE_HOST_ID_KERNEL_RELEASE="6.12$H" TPMTRACE_HOST_ID_KERNEL_CMDLINE="root=$H" \
	TPMTRACE_HOST_ID_BOOT_ID=b00710d0-0000-4000-8000-000000000001 \
	"$TPMTRACE" record --spawn-swtpm --no-startup --db "$T/h.db" --quiet --name "boot$H" -- \
	sh -c "'$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd startup --quiet >/dev/null &&
	 '$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd getrandom --count 2 --quiet >/dev/null"
expect_eq "a host recorded" "$?" 0
"$TPMTRACE" push "$T/h.db" "$PGURL" --json >"$T/push.json" 2>"$T/push.err"
rc=$?
expect_eq "push --json: exit 0 ($(head -c 300 "$T/push.err"))" "$rc" 0
"$TPMTRACE" fleet "$PGURL" stats --json >"$T/stats.json" 2>"$T/stats.err"
rc=$?
expect_eq "fleet stats --json: exit 0 ($(head -c 300 "$T/stats.err"))" "$rc" 0
"$TPMTRACE" fleet "$PGURL" list --json >"$T/list.json" 2>"$T/list.err"
rc=$?
expect_eq "fleet list --json: exit 0 ($(head -c 300 "$T/list.err"))" "$rc" 0

strict() { # strict DESCRIPTION FILE ARGS...
	local d=$1 f=$2
	shift 2
	python3 "$J" "$f" "$@" >"$f.check" 2>&1
	local rc=$?
	cat "$f.check"
	check "$d: valid UTF-8 JSON ($(head -c 300 "$f.check"))" [ $rc -eq 0 ]
}
strict "push --json" "$T/push.json"
check "push --json: one trace pushed" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["pushed"] == 1' "$T/push.json"
strict "fleet stats --json: the kernel and the slowest host, escaped" "$T/stats.json" \
	--contains "\"6.12$HJ\"" --contains "\"host$HJ\""
strict "fleet list --json: the host's name and kernel, escaped" "$T/list.json" \
	--contains "\"host$HJ\"" --contains "\"6.12$HJ\""
finish
