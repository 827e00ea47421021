#!/usr/bin/env bash
# tpmtrace verify: 0 on a good database, non-zero with the problem named on a
# bad one: a trace whose stored rows differ from the counts written when it
# ended (a row deleted, a count changed), duplicate sequence numbers, a
# latency that is not completion minus submit, a corrupt file (pages
# overwritten), a file that is not a database at all. An unfinished trace is
# reported, not an error. Each bad copy is made from the same good database.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3

good=$T/good.db
record_client "$good" big 300 --payloads full --quiet
expect_eq "a trace recorded" "$?" 0
rows=$(sqlite3 "$good" "SELECT count(*) FROM command")
expect_eq "301 commands in it" "$rows" 301

"$TPMTRACE" verify "$good" >"$T/good.out" 2>&1
expect_eq "good database: exit 0" "$?" 0
check "good database: consistent" grep -qx consistent "$T/good.out"
check "good database: the trace is ok" grep -q "^trace 1 (complete): 301 commands, [0-9]* events, 0 dropped: ok$" "$T/good.out"
"$TPMTRACE" verify "$good" --json >"$T/good.json"
expect_eq "good database, --json: no problems, trace ok" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["integrity"], d["problems"], d["traces"][0]["ok"])' "$T/good.json")" \
	"ok 0 True"

# bad NAME SQL: a copy of the good database changed by SQL; verify must fail
# and name the problem (PATTERN).
bad_sql() {
	local name=$1 sql=$2 pattern=$3
	cp "$good" "$T/$name.db"
	sqlite3 "$T/$name.db" "$sql"
	"$TPMTRACE" verify "$T/$name.db" >"$T/$name.out" 2>&1
	local rc=$?
	check "$name: verify exits non-zero (got $rc)" [ "$rc" -ne 0 ]
	check "$name: names the problem ($(grep -v '^integrity' "$T/$name.out" | head -1))" grep -q "$pattern" <(unwrap "$T/$name.out")
	check "$name: says problems found" grep -qx "problems found" "$T/$name.out"
}
bad_sql row-deleted "DELETE FROM command WHERE seq = (SELECT max(seq) FROM command)" \
	"stored 300 commands and [0-9]* events, but 301 and [0-9]* were recorded"
bad_sql count-changed "UPDATE trace SET commands = commands + 5" \
	"stored 301 commands and [0-9]* events, but 306 and"
bad_sql event-count "UPDATE trace SET events = events + 1" "stored 301 commands and [0-9]* events, but 301 and"
bad_sql duplicate-seq "INSERT INTO event (trace_id, seq, t_ns, kind) SELECT 1, max(seq), 0, 'x' FROM command" \
	"duplicate sequence numbers"
bad_sql latency "UPDATE command SET latency_ns = latency_ns + 1 WHERE seq = (SELECT min(seq) FROM command)" \
	"1 latencies differ from done - submit"

# Corrupt files: pages overwritten in the middle; not a database at all.
cp "$good" "$T/corrupt.db"
size=$(stat -c %s "$T/corrupt.db")
page=$(sqlite3 "$good" "PRAGMA page_size")
check "the database spans more than 4 pages ($size bytes)" [ "$size" -gt $((4 * page)) ]
# Pages 3 and 4 (b-tree pages of the tables) filled with garbage.
head -c $((2 * page)) /dev/urandom | dd of="$T/corrupt.db" bs="$page" seek=2 conv=notrunc status=none
"$TPMTRACE" verify "$T/corrupt.db" >"$T/corrupt.out" 2>&1
rc=$?
check "corrupt pages: verify exits non-zero (got $rc)" [ "$rc" -ne 0 ]
# says_corrupt FILE: SQLite's integrity check reported something else than
# ok, or the file was refused with its name.
says_corrupt() {
	{ grep -q '^integrity_check: ' "$1" && ! grep -qx 'integrity_check: ok' "$1"; } ||
		grep -q "corrupt.db: .*malformed" "$1"
}
check "corrupt pages: says what ($(head -2 "$T/corrupt.out" | tr '\n' ' '))" says_corrupt "$T/corrupt.out"
head -c 20000 /dev/urandom >"$T/noise.db"
"$TPMTRACE" verify "$T/noise.db" >"$T/noise.out" 2>&1
rc=$?
check "not a database: verify exits non-zero (got $rc)" [ "$rc" -ne 0 ]
check "not a database: names the file" grep -q "noise.db" "$T/noise.out"
"$TPMTRACE" verify "$T/missing.db" >"$T/missing.out" 2>&1
rc=$?
check "missing file: verify exits non-zero (got $rc)" [ "$rc" -ne 0 ]
check "missing file: not created by verify" [ ! -e "$T/missing.db" ]

# Unfinished (the recorder never closed the trace): reported, not an error.
cp "$good" "$T/unfinished.db"
sqlite3 "$T/unfinished.db" "UPDATE trace SET status = 'recording', commands = 0, events = 0"
"$TPMTRACE" verify "$T/unfinished.db" >"$T/unfinished.out" 2>&1
expect_eq "unfinished trace: exit 0" "$?" 0
check "unfinished trace: reported with its committed rows" grep -q "unfinished: .* 301 commands" <(unwrap "$T/unfinished.out")
finish
