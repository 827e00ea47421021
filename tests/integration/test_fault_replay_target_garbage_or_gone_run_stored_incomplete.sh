#!/usr/bin/env bash
# Fault: a replay target that answers garbage (framed responses that claim
# success and hold nonsense: tpmclient --serve-garbage, with a control
# channel that accepts everything). Under every preset the run is stored,
# linked to its source, marked 'incomplete', with a replay-error event, and a
# clear message names the command; the source trace is untouched. A target
# that answers the first command and then goes away: exit 1 with "the target
# stopped answering" and an incomplete run, never death by SIGPIPE (exit 141,
# seen once in the sanitizer build's "target gone" of test_replay.sh before
# replay ignored SIGPIPE; tss2's swtpm TCTI connects anew for each command,
# so whether its write meets the closed socket is a race this loop may or
# may not hit). A target that is
# not there at all is refused with a message naming it. (A swtpm killed
# mid-run is tests/integration/test_replay.sh, "target gone".)
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3

db=$T/src.db
"$TPMTRACE" record --spawn-swtpm --no-startup --db "$db" -- bash -c \
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

for p in password linux-6.12; do
	for i in 1 2 3 4 5; do
		rm -f "$T/c.sock" "$T/c.sock.ctrl"
		"$TPMCLIENT" --close-after 1 --serve "unix:$T/c.sock" &
		PIDS+=($!)
		wait_for_socket "$T/c.sock"
		wait_for_socket "$T/c.sock.ctrl"
		timeout 60 "$TPMTRACE" replay "$db" --trace 1 --policy $p \
			--target "swtpm:path=$T/c.sock" >/dev/null 2>"$T/c.err"
		echo $? >>"$T/c.status.$p"
		grep -q "the target stopped answering .*(the partial run is stored as incomplete)" "$T/c.err" ||
			cat "$T/c.err" >>"$T/c.unclear.$p"
		id=$(sqlite3 "$db" "SELECT max(id) FROM trace")
		sqlite3 "$db" "SELECT status FROM trace WHERE id=$id" >>"$T/c.stored.$p"
	done
	expect_eq "gone after one answer $p: exit 1 each time (141 = killed by SIGPIPE)" \
		"$(sort -u "$T/c.status.$p" | tr '\n' ' ')" "1 "
	check "gone after one answer $p: clear message each time" [ ! -s "$T/c.unclear.$p" ]
	expect_eq "gone after one answer $p: stored incomplete each time" \
		"$(sort -u "$T/c.stored.$p" | tr '\n' ' ')" "incomplete "
done

timeout 60 "$TPMTRACE" replay "$db" --trace 1 --target "swtpm:path=$T/none.sock" >/dev/null 2>"$T/none.err"
expect_eq "absent target: exit status 1" "$?" 1
check "absent target: message names it" grep -q "cannot open the target 'swtpm:path=$T/none.sock'" "$T/none.err"
check "verify" "$TPMTRACE" verify "$db" >/dev/null
expect_eq "integrity" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
finish
