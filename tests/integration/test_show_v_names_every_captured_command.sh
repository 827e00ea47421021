#!/usr/bin/env bash
# `tpmtrace show -V` on the real tpm2-tss captures of shared/data/pcap (26
# traces of its integration tests, ~740 commands of ~60 codes): with the
# layouts of model/tpm/tpm_cc_layout.def every command and response is
# explained by name - none falls back to hex "(no layout here)" - and a
# field that does not parse ("?") appears only where a session with the
# decrypt attribute encrypted the first parameter (Part 1 21.1: the bytes
# are ciphertext, so the structure inside cannot be read).
. "$(dirname "$0")/../lib/common.sh"
need sqlite3

pcaps=("$TPMTRACE_SHARED_DATA"/pcap/*.pcap*)
[ -e "${pcaps[0]}" ] || skip "no captures in $TPMTRACE_SHARED_DATA/pcap"
db=$T/c.db
check "the captures import" "$TPMTRACE" import pcap "${pcaps[@]}" --db "$db" --quiet
n=$(sqlite3 "$db" 'SELECT max(id) FROM trace')
for t in $(seq 1 "$n"); do
	"$TPMTRACE" show "$db" --trace "$t" -V --limit 100000 >>"$T/v.txt" || bad "show -V of trace $t"
done
expect_eq "every command explained" "$(grep -c '^Command: ' "$T/v.txt")" \
	"$(sqlite3 "$db" 'SELECT count(*) FROM command')"
expect_eq "nothing left as hex" "$(grep -c 'no layout here' "$T/v.txt")" 0
# A block from "Command:" to the next: a "?" needs a decrypt session there.
undecrypted=$(awk '/^Command: /{ if (q && !d) n++; q = 0; d = 0 }
	/sessionAttributes: .*decrypt/{ d = 1 }
	/\? /{ q = 1 }
	END { if (q && !d) n++; print n + 0 }' "$T/v.txt")
expect_eq "a '?' only where the first parameter is encrypted" "$undecrypted" 0
codes=$(sqlite3 "$db" 'SELECT count(DISTINCT cc) FROM command')
check "the captures hold many codes ($codes)" [ "$codes" -ge 40 ]
echo "show -V: $(grep -c "^Command: " "$T/v.txt") commands of $codes codes"
finish
