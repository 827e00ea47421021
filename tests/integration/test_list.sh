#!/usr/bin/env bash
# tpmtrace list: one line per trace (id, trace kind, status, commands, TPM
# time, policy, name; --wide adds start, dropped, emulated, parent and
# source), and --json with the same and the replay's parent and policy; the counts are those of the database's rows, the command count
# of every command (tpmtrace's own, flag 32, left out; docs/schema.md,
# "Figures"). A missing file is an error that creates nothing.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3

db=$T/l.db
record_client "$db" pcrextend 7 --name first --quiet
expect_eq "trace 1 recorded" "$?" 0
"$TPMTRACE" replay "$db" --trace 1 --policy password >/dev/null 2>"$T/replay.err"
expect_eq "trace 2: its replay" "$?" 0
record_client "$db" getrandom 3 --name second --quiet
expect_eq "trace 3 recorded" "$?" 0

"$TPMTRACE" list "$db" >"$T/list.out"
expect_eq "list: exit 0" "$?" 0
cat "$T/list.out"
expect_eq "list: a header and one line per trace" "$(wc -l <"$T/list.out")" 4
check "list: the header" grep -Eq '^ +id +kind +status +commands +TPM time +policy +name$' "$T/list.out"
n2=$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=2 AND NOT flags & 32")
check "list: trace 1, record, complete, 8 commands, its TPM time and name" \
	grep -Eq '^ +1 +record +complete +8 +[0-9.]+ ms +- +first$' "$T/list.out"
check "list: trace 2, the replay, with its $n2 commands and policy" \
	grep -Eq "^ +2 +replay +complete +$n2 +[0-9.]+ ms +password +replay of 1$" "$T/list.out"
check "list: trace 3, 4 commands" \
	grep -Eq '^ +3 +record +complete +4 +[0-9.]+ ms +- +second$' "$T/list.out"
"$TPMTRACE" list "$db" --wide >"$T/wide.out"
check "list --wide: the header" grep -Eq \
	'^ +id +kind +status +started +commands +dropped +TPM time +policy +emulated +parent +name / source$' \
	"$T/wide.out"
check "list --wide: trace 1, start, 0 dropped, name and source" \
	grep -Eq '^ +1 +record +complete +[0-9T:-]+Z +8 +0 +[0-9.]+ ms +- +- +- +first / swtpm \(spawned\)$' \
	"$T/wide.out"
check "list --wide: trace 2, its parent" \
	grep -Eq "^ +2 +replay +complete +[0-9T:-]+Z +$n2 +0 +[0-9.]+ ms +password +- +1 +replay of 1 / " \
	"$T/wide.out"

"$TPMTRACE" list "$db" --json >"$T/list.json"
expect_eq "list --json: exit 0" "$?" 0
expect_eq "list --json: id kind status commands dropped name parent policy, per trace" \
	"$(python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["traces"]:
    print(t["id"], t["kind"], t["status"], t["commands"], t["dropped"], t["name"], t["parent_id"], t["policy"])' "$T/list.json" | tr '\n' ';')" \
	"1 record complete 8 0 first None None;2 replay complete $n2 0 replay of 1 1 password;3 record complete 4 0 second None None;"
expect_eq "list --json: commands = the rows stored, per trace" \
	"$(python3 -c 'import json,sys; print(" ".join(str(t["commands"]) for t in json.load(open(sys.argv[1]))["traces"]))' "$T/list.json")" \
	"$(sqlite3 "$db" "SELECT group_concat(n, ' ') FROM (SELECT (SELECT count(*) FROM command c WHERE c.trace_id = t.id AND NOT c.flags & 32) n FROM trace t ORDER BY t.id)")"

"$TPMTRACE" list "$T/missing.db" >/dev/null 2>"$T/missing.err"
rc=$?
check "list of a missing file: exits non-zero (got $rc)" [ "$rc" -ne 0 ]
check "list of a missing file: names it" grep -q "missing.db" "$T/missing.err"
check "list of a missing file: creates nothing" [ ! -e "$T/missing.db" ]
finish
