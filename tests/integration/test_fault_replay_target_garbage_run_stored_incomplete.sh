#!/usr/bin/env bash
# Fault: a replay target that answers garbage (framed responses that claim
# success and hold nonsense: tpmclient --serve-garbage, with a control
# channel that accepts everything). Under every preset the run is stored,
# linked to its source, marked 'incomplete', with a replay-error event, and a
# clear message names the command; the source trace is untouched. A target
# that is not there at all is refused with a message naming it. (A target that
# disappears mid-run is tests/integration/test_replay.sh, "target gone".)
. "$TPMTRACE_TEST_LIB/common.sh"
need swtpm sqlite3

db=$T/src.db
"$TPMTRACE" record --spawn-swtpm --db "$db" -- bash -c \
	"'$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd startup >/dev/null && '$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd pcrextend --count 100 >/dev/null" \
	2>"$T/rec.err"
expect_eq "source recorded" "$?" 0
before=$(sqlite3 "$db" "SELECT hex(cmd), hex(rsp) FROM command WHERE trace_id=1 ORDER BY seq" | sha256sum)

"$TPMCLIENT" --serve-garbage "unix:$T/g.sock" &
PIDS+=($!)
wait_for_socket "$T/g.sock"
wait_for_socket "$T/g.sock.ctrl"
for p in as-recorded password linux-6.10 linux-6.12; do
	timeout 60 "$TPMTRACE" replay "$db" --trace 1 --policy $p --target "swtpm:path=$T/g.sock" \
		>"$T/$p.out" 2>"$T/$p.err"
	expect_eq "garbage $p: exit status 1 (no hang)" "$?" 1
	check "garbage $p: clear message naming the command" \
		grep -q "tpmtrace replay: malformed .* response (source seq [0-9]*) (the partial run is stored as incomplete)" "$T/$p.err"
	id=$(sqlite3 "$db" "SELECT max(id) FROM trace")
	expect_eq "garbage $p: run stored incomplete, linked to its source" \
		"$(sqlite3 "$db" "SELECT status||','||parent_id||','||policy FROM trace WHERE id=$id")" "incomplete,1,$p"
	expect_eq "garbage $p: replay-error event" \
		"$(sqlite3 "$db" "SELECT count(*) FROM event WHERE trace_id=$id AND kind='replay-error'")" 1
done
expect_eq "source trace untouched" \
	"$(sqlite3 "$db" "SELECT hex(cmd), hex(rsp) FROM command WHERE trace_id=1 ORDER BY seq" | sha256sum)" "$before"

timeout 60 "$TPMTRACE" replay "$db" --trace 1 --target "swtpm:path=$T/none.sock" >/dev/null 2>"$T/none.err"
expect_eq "absent target: exit status 1" "$?" 1
check "absent target: message names it" grep -q "cannot open the target 'swtpm:path=$T/none.sock'" "$T/none.err"
check "verify" "$TPMTRACE" verify "$db" >/dev/null
expect_eq "integrity" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
finish
