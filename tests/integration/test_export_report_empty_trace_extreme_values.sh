#!/usr/bin/env bash
# Export and report on traces at the edges (issue 15, findings 9 and 11):
#  - finding 9: a trace of 0 commands (legitimate: record -- true) exports and
#    reports (before: qsort(NULL, 0) in both; under the sanitizer build it
#    aborted and left a 0-byte HTML file); a crafted t_submit_ns of INT64_MIN
#    exports without overflowing (this test runs in the ASan+UBSan build too);
#  - finding 11: a command over 65,495 bytes is left out of the pcapng with its
#    response, and both are counted (before: one message counted);
#    `stats` on latencies whose sum overflows says so (before: "integer
#    overflow").
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 tshark tpm2_getrandom
db=$T/empty.db
check "record a trace of 0 commands" "$TPMTRACE" record --spawn-swtpm --no-startup --db "$db" --quiet -- true
expect_eq "it has no command" "$(sqlite3 "$db" 'SELECT count(*) FROM command')" 0
check "finding 9: export of 0 commands" "$TPMTRACE" export "$db" --pcapng "$T/e.pcapng" \
	--csv "$T/e.csv" --jsonl "$T/e.jsonl"
check "... a pcapng with no packet" [ "$(tshark -r "$T/e.pcapng" 2>/dev/null | wc -l)" -eq 0 -a -s "$T/e.pcapng" ]
check "finding 9: report of 0 commands" "$TPMTRACE" report "$db" -o "$T/e.html"
check "... a whole HTML file" grep -q '</html>' "$T/e.html"
check "stats of 0 commands" "$TPMTRACE" stats "$db"

# A trace with commands, then crafted values.
db=$T/t.db
check "record a few commands" "$TPMTRACE" record --spawn-swtpm --db "$db" --quiet -- \
	bash -c 'tpm2_startup -c && tpm2_getrandom 8 >/dev/null && tpm2_getrandom 8 >/dev/null'
n=$(sqlite3 "$db" 'SELECT count(*) FROM command')
sqlite3 "$db" "UPDATE command SET t_submit_ns = -9223372036854775808 WHERE seq = (SELECT min(seq) FROM command)"
check "finding 9: export with a t_submit_ns of INT64_MIN" \
	"$TPMTRACE" export "$db" --pcapng "$T/min.pcapng" --csv "$T/min.csv"
check "... report too" "$TPMTRACE" report "$db" -o "$T/min.html"
# A command of 70,000 bytes with its response: both left out, both counted.
sqlite3 "$db" "UPDATE command SET cmd = zeroblob(70000), cmd_size = 70000 WHERE seq = (SELECT max(seq) FROM command WHERE rsp IS NOT NULL)"
"$TPMTRACE" export "$db" --pcapng "$T/big.pcapng" 2>"$T/err"
check "finding 11: over 65,495 bytes: the command and its response counted" \
	grep -q "^tpmtrace export: 2 messages left out" "$T/err"
expect_eq "... and left out of the pcapng" \
	"$(tshark -r "$T/big.pcapng" 2>/dev/null | wc -l)" $((2 * n - 2))
# Latencies whose sum overflows: stats says what it means.
sqlite3 "$db" "UPDATE command SET latency_ns = 9223372036854775000"
"$TPMTRACE" stats "$db" >/dev/null 2>"$T/err"
st=$?
check "finding 11: stats on overflowing latencies fails (exit $st)" [ "$st" -eq 1 ]
check "... and says why, not just 'integer overflow'" grep -q "overflows 64 bits" "$T/err"
finish
