#!/bin/bash
# Imports every TPMScan performance.yaml of the shared data and checks each
# imported entry against the yaml read independently here (awk): mean, min,
# max and sample count of the measurement at the line the entry cites; and
# that every measurement is either imported, reported as failed, or reported
# as a duplicate. Then stores one in a database and reads it back.
. "$(dirname "$0")/../lib/common.sh"
D="${TPMTRACE_SHARED_DATA:-}/profiles/tpmscan"
ls "$D"/*.performance.yaml >/dev/null 2>&1 || skip "no TPMScan data in $D"

for y in "$D"/*.performance.yaml; do
	b=$(basename "$y")
	out="$T/${b%.performance.yaml}.profile"
	if ! "$TPMTRACE" profile import tpmscan "$y" --output "$out" 2>"$T/err"; then
		bad "$b: import failed: $(cat "$T/err")"
		continue
	fi
	ok
	# Every imported entry: "... n=N mean=A min=B max=C  # FILE line L".
	entries=0
	while IFS= read -r line; do
		entries=$((entries + 1))
		l=${line##* line }
		got=$(printf '%s\n' "$line" | sed -E 's/.* n=([0-9]+) mean=([0-9.e+-]+) min=([0-9.e+-]+) max=([0-9.e+-]+) .*/\1 \2 \3 \4/')
		want=$(awk -v L="$l" 'NR > L && /avg op:/ && !a { a = $3 } NR > L && /min op:/ && !mi { mi = $3 }
			NR > L && /max op:/ && !ma { ma = $3 } NR > L && /successful:/ && !s { s = $2; print s, a, mi, ma; exit }' "$y")
		if awk -v g="$got" -v w="$want" 'BEGIN { split(g, x, " "); split(w, y, " ");
			for (i = 1; i <= 4; i++) if (x[i] + 0 != y[i] + 0) exit 1; exit 0 }'; then
			ok
		else
			bad "$b line $l: imported '$got', yaml says '$want'"
		fi
	done < <(grep -E '^[A-Za-z_0-9]+ +(none|password) .* # .* line [0-9]+$' "$out")
	# Every measurement accounted for.
	items=$(grep -c '^- ' "$y")
	failed=$(grep '^note: not imported' "$out" | grep -o '(line [0-9]*' | wc -l)
	dups=$(sed -nE 's/^note: ([0-9]+) duplicate measurements.*/\1/p' "$out")
	dups=${dups:-0}
	if [ "$items" -eq $((entries + failed + dups)) ] && [ "$entries" -gt 10 ]; then
		ok
	else
		bad "$b: $items measurements, $entries imported + $failed failed + $dups duplicates"
	fi
	# Failed measurements are the ones with no successful iteration.
	zero=$(grep -c 'successful: 0$' "$y")
	if [ "$failed" -eq "$zero" ]; then ok; else bad "$b: $failed reported failed, yaml has $zero"; fi
	# The written profile parses again (round trip).
	if "$TPMTRACE" profile import profile "$out" --output "$T/rt.profile" 2>/dev/null &&
		cmp -s "$out" "$T/rt.profile"; then ok; else bad "$b: round trip differs"; fi
done

# Store in a database, list, export: same text back.
y=$(ls "$D"/IFX_*.performance.yaml | head -1)
if "$TPMTRACE" profile import tpmscan "$y" "$T/p.db" --name ifx-test 2>/dev/null &&
	"$TPMTRACE" profile export ifx-test "$T/p.db" >"$T/db.profile" &&
	"$TPMTRACE" profile import tpmscan "$y" --name ifx-test >"$T/direct.profile" 2>/dev/null &&
	diff -u "$T/direct.profile" "$T/db.profile" >/dev/null; then ok; else bad "database round trip"; fi
"$TPMTRACE" profile list "$T/p.db" | grep -q '^ifx-test .*database' && ok || bad "list shows the stored profile"
"$TPMTRACE" profile import tpmscan "$y" "$T/p.db" --name ifx-test 2>"$T/err" && bad "duplicate store accepted" || ok
grep -q "already stored" "$T/err" && ok || bad "duplicate message: $(cat "$T/err")"

finish
