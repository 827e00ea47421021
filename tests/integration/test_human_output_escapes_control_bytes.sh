#!/usr/bin/env bash
# Terminal injection (issue 15, finding 10): text that comes from a file (IMA
# file names, trace names and sources, command names in a crafted database)
# reaches show, list, stats, the importers' warnings and the HTML report with
# its control characters escaped (\x1b), never as raw ESC sequences (before:
# an IMA file name's ESC sequence reached `show` raw, a trace's name and
# source reached `list` raw). UTF-8 text stays as it is.
. "$(dirname "$0")/../lib/common.sh"
need sqlite3
D=$TPMTRACE_SHARED_DATA
[ -d "$D/ima" ] || skip "no shared data at $D"
esc=$'\e[2J\e]0;pwned\a'
list=$T/list.ascii
sed "s|boot_aggregate|/etc/${esc}évil|" "$D/ima/ima-evm-utils/test_ascii_runtime_measurements" >"$list"
db=$T/e.db
"$TPMTRACE" import ima "$list" --db "$db" --name "name${esc}" >"$T/import.out" 2>"$T/import.err"
check "imported" [ "$(sqlite3 "$db" 'SELECT count(*) FROM command')" -ge 3 ]
# A crafted command table entry, as a hostile file could hold.
sqlite3 "$db" "UPDATE tpm_cc SET name = 'PCR_Extend' || char(27) || '[5m' WHERE cc = 386"
raw() { # FILE: how many ESC or BEL bytes it holds
	tr -cd '\033\007' <"$1" | wc -c
}
"$TPMTRACE" show "$db" >"$T/show"
"$TPMTRACE" list "$db" >"$T/list"
"$TPMTRACE" stats "$db" >"$T/stats"
"$TPMTRACE" report "$db" -o "$T/r.html"
for f in show list stats r.html import.err; do
	expect_eq "finding 10: no raw ESC or BEL in $f" "$(raw "$T/$f")" 0
done
check "show: the IMA file name, escaped" grep -qF '/etc/\x1b[2J\x1b]0;pwned\x07évil' "$T/show"
check "list: the trace's name, escaped" grep -qF 'name\x1b[2J\x1b]0;pwned\x07' "$T/list"
check "stats: the trace's name, escaped" grep -qF "'name\\x1b[2J" "$T/stats"
check "report: escaped too" grep -qF '\x1b[2J' "$T/r.html"
finish
