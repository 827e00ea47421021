#!/usr/bin/env bash
# Imports are all or nothing, and an unfinished trace is never taken by
# default (issue 36, item 9):
#  - `import ima --follow` of a 200,000-entry list fed through a FIFO is
#    SIGKILLed once half of it was read and written (its WAL holds the rows, or
#    a reader sees rows committed): nothing of it is left, the database is
#    intact, `pcrs` (default trace) replays the earlier import and `verify`
#    exits 0; the same file imports again. Before, a trace of kind import,
#    status 'recording', with the rows of the batches committed so far was
#    left, and `pcrs` took it as the newest trace without a word;
#  - a recording SIGKILLed mid-way (status 'recording') is not taken by default
#    (`stats`, `pcrs`), and is named with a warning by every command given its
#    id; `verify` reports its tail (exit 0);
#  - an import left unfinished (as an earlier tpmtrace left them) makes `verify`
#    exit 1 naming it.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3
SRC=$TPMTRACE_SHARED_DATA/ima/tpm2-tss/sml-ima-ng-sha1.bin
[ -r "$SRC" ] || skip "the shared IMA sample is not at $SRC"

# Whole records of the sample, repeated to N (as tools/bench import does).
python3 - "$SRC" "$T/big.ima" 200000 <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
recs, o = [], 0
while o + 28 <= len(b):
    nl = struct.unpack_from('<I', b, o + 24)[0]
    if o + 28 + nl + 4 > len(b): break
    dl = struct.unpack_from('<I', b, o + 28 + nl)[0]
    end = o + 32 + nl + dl
    if end > len(b): break
    recs.append(b[o:end]); o = end
with open(sys.argv[2], 'wb') as f:
    for i in range(int(sys.argv[3])):
        f.write(recs[i % len(recs)])
PY
db=$T/t.db
I=(--format binary --kernel-rule per-bank --banks sha1,sha256 --quiet)
"$TPMTRACE" import ima "$SRC" --db "$db" "${I[@]}" 2>"$T/imp1.err"
rc=$?
check "a first import (trace 1) ($(cat "$T/imp1.err"))" [ $rc -eq 0 ]
"$TPMTRACE" pcrs "$db" --json >"$T/pcrs1.json" 2>"$T/pcrs1.err"
check "pcrs of trace 1" [ $? -eq 0 ]

# -- 1. An import killed part-way.
mkfifo "$T/fifo"
"$TPMTRACE" import ima "$T/fifo" --follow --db "$db" "${I[@]}" 2>"$T/kill.err" &
IMP=$!
PIDS+=($IMP)
exec 3>"$T/fifo"
half=$(($(stat -c %s "$T/big.ima") / 2))
head -c "$half" "$T/big.ima" >&3
# Half of the list is being stored: in the WAL (uncommitted, one transaction)
# or, before, in committed batches a reader sees.
under_way() {
	[ "$(stat -c %s "$db-wal" 2>/dev/null || echo 0)" -gt 4000000 ] ||
		[ "$(sqlite3 "$db" 'SELECT count(*) FROM command WHERE trace_id > 1' 2>/dev/null || echo 0)" -gt 0 ]
}
check "the import is under way" wait_until under_way
kill -KILL $IMP
wait $IMP
rc=$?
exec 3>&-
check "the import was killed while reading ($rc)" [ $rc -eq 137 ]
expect_eq "integrity_check" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
expect_eq "nothing of the killed import is left (traces, commands beyond trace 1)" \
	"$(sqlite3 "$db" 'SELECT count(*), (SELECT count(*) FROM command WHERE trace_id > 1) FROM trace')" "1|0"
"$TPMTRACE" pcrs "$db" --json >"$T/pcrs2.json" 2>"$T/pcrs2.err"
rc=$?
check "pcrs by default afterwards ($(cat "$T/pcrs2.err"))" [ $rc -eq 0 ]
check "... replays trace 1, as before the killed import" cmp "$T/pcrs1.json" "$T/pcrs2.json"
"$TPMTRACE" verify "$db" >"$T/verify1" 2>&1
rc=$?
expect_eq "verify exits 0 ($(tail -1 "$T/verify1"))" "$rc" 0
check "the same list imports afterwards" "$TPMTRACE" import ima "$T/big.ima" --db "$db" "${I[@]}"
expect_eq "... as trace 2, complete, every entry" \
	"$(sqlite3 "$db" "SELECT id, status, commands FROM trace WHERE id > 1")" "2|complete|200000"

# -- 2. A recording killed mid-way is unfinished.
start_swtpm "$T/sw"
record_bg "$db" --backend "swtpm:path=$T/sw/s.sock" --listen "unix:$T/p.sock"
wait_for_socket "$T/p.sock"
"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd startup >/dev/null
check "commands through the recorder" \
	"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd getrandom --count 50 --quiet
check "... committed" wait_until "[ \"\$(sqlite3 '$db' 'SELECT count(*) FROM command WHERE trace_id = 3')\" = 51 ]"
kill -KILL "$RECORD_PID"
wait "$RECORD_PID"
expect_eq "the recording is trace 3, left 'recording'" \
	"$(sqlite3 "$db" "SELECT id, status FROM trace WHERE id > 2")" "3|recording"
id_of() { python3 -c 'import json, sys; print(json.load(sys.stdin)["trace"]["id"])'; }
expect_eq "stats by default takes the newest finished trace (2), not the unfinished 3" \
	"$("$TPMTRACE" stats "$db" --json 2>/dev/null | id_of)" 2
expect_eq "stats --trace latest: the same" \
	"$("$TPMTRACE" stats "$db" --trace latest --json 2>/dev/null | id_of)" 2
for sub in stats show export; do
	case $sub in
	export) args=(--csv "$T/x.csv") ;;
	*) args=() ;;
	esac
	"$TPMTRACE" $sub "$db" --trace 3 "${args[@]}" >/dev/null 2>"$T/$sub.err"
	rc=$?
	check "$sub --trace 3 runs ($(head -c 300 "$T/$sub.err"))" [ $rc -eq 0 ]
	check "$sub --trace 3 names the trace unfinished" \
		grep -q "^tpmtrace $sub: warning: trace 3 is unfinished (status 'recording'" "$T/$sub.err"
done
"$TPMTRACE" stats "$db" --trace 2 >/dev/null 2>"$T/stats2.err"
check "a finished trace gets no warning" [ ! -s "$T/stats2.err" ]
"$TPMTRACE" verify "$db" >"$T/verify2" 2>&1
expect_eq "verify: a killed recording's tail is no error" "$?" 0

# -- 3. An import left unfinished (by a tpmtrace before imports were one
# transaction): made so by hand.
sqlite3 "$db" "UPDATE trace SET status='recording' WHERE id=2"
"$TPMTRACE" verify "$db" >"$T/verify3" 2>&1
expect_eq "verify: an unfinished import is a problem" "$?" 1
check "... named ($(grep -m1 unfinished "$T/verify3"))" grep -q "unfinished import" "$T/verify3"
"$TPMTRACE" pcrs "$db" --json >"$T/pcrs3.json" 2>"$T/pcrs3.err"
check "pcrs by default takes trace 1, past the unfinished 2 and 3" cmp "$T/pcrs1.json" "$T/pcrs3.json"
finish
