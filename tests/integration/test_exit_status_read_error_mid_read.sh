#!/usr/bin/env bash
# Issue 22 item 8: a read loop that stops at an error (SQLITE_CORRUPT, BUSY,
# IOERR) is an error, exit 1 with sqlite's message, never short output with
# exit 0. A real lock cannot stop a loop part-way (a rollback-mode reader
# holds its SHARED lock for the whole statement; a WAL reader is never
# blocked), so a real SQLite error comes part-way instead: one b-tree page of
# a copy of a real recording made unreadable (its page-type byte), found with
# the dbstat table. The command table's fifth leaf: the rows before it are
# read, then the error; the command_trace_seq index: list's per-trace count;
# the profile table: profile list.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 dd
cd "$T" || exit 1

"$TPMTRACE" record --spawn-swtpm --db demo.db --quiet -- "$TPMTRACE_SRC/tools/demo-workload" 20 >/dev/null 2>rec.err
expect_eq "setup: demo recorded" $? 0
"$TPMTRACE" profile learn demo.db 2>/dev/null
expect_eq "setup: a profile learned into the database" $? 0

# corrupt COPY OBJECT N: the page-type byte of OBJECT's Nth page set to 0xff.
corrupt() {
	cp demo.db "$1"
	local pg size
	pg=$(sqlite3 "$1" "SELECT pageno FROM dbstat WHERE name='$2' AND pagetype='leaf' ORDER BY pageno LIMIT 1 OFFSET $3")
	size=$(sqlite3 "$1" "PRAGMA page_size")
	[ -n "$pg" ] || return 1
	printf '\377' | dd of="$1" bs=1 seek=$(((pg - 1) * size + (pg == 1 ? 100 : 0))) conv=notrunc 2>/dev/null
}
corrupt leaf.db command 4
expect_eq "setup: a leaf of the command table made unreadable" $? 0
corrupt index.db command_trace_seq 0
expect_eq "setup: the command index made unreadable" $? 0
corrupt profile.db profile 0
expect_eq "setup: the profile table made unreadable" $? 0

# fails DB ARGS...: exit 1 and sqlite's message on stderr.
fails() {
	local db=$1
	shift
	"$TPMTRACE" "$@" "$db" >out 2>err
	local rc=$?
	expect_eq "'$* $db' exits 1 ($(head -c 200 err))" $rc 1
	check "'$* $db' gives sqlite's message" grep -q "database disk image is malformed" err
}
# The rows before the bad page are printed: the output is short, not empty.
"$TPMTRACE" show leaf.db >out 2>/dev/null
check "show leaf.db prints the rows before the bad page" test "$(wc -l <out)" -gt 10
for args in show "show -V" "show --json" "stats --by origin" "stats" "export --csv -" pcrs; do
	# shellcheck disable=SC2086
	fails leaf.db $args
done
for args in list "list --json" show; do
	# shellcheck disable=SC2086
	fails index.db $args
done
fails profile.db profile list
# The same commands on the intact database exit 0: the failures are the bad
# page's.
for args in show "show -V" "show --json" "stats --by origin" list "list --json" "profile list"; do
	# shellcheck disable=SC2086
	"$TPMTRACE" $args demo.db >/dev/null 2>err
	rc=$?
	expect_eq "'$args demo.db' exits 0 ($(head -c 200 err))" $rc 0
done
finish
