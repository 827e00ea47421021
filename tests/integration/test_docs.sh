#!/usr/bin/env bash
# The docs cannot drift from the program:
#  - docs/quickstart.md: the ```sh quickstart blocks run word for word in a
#    directory laid out like a fresh checkout (build/ is the tested build) and
#    reach the report;
#  - docs/sql-cookbook.md: every ```sql cookbook query runs on the demo
#    database and returns rows; a few answers are checked against the data;
#  - docs/schema.md names every table, view and column of db/schema.sql.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_startup sqlite3 python3
DOCS=$TPMTRACE_SRC/docs
blocks() { # blocks FILE TAG: the blocks fenced as ```TAG, separated by NUL
	python3 - "$1" "$2" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
for b in re.findall(r'^```' + re.escape(sys.argv[2]) + r'\n(.*?)^```', s, re.S | re.M):
    sys.stdout.write(b + '\0')
PY
}

# ---- quick start ----
Q=$T/checkout
mkdir -p "$Q"
ln -s "${TPMTRACE_TEST_BUILD:?}" "$Q/build"
ln -s "$TPMTRACE_SRC/tools" "$Q/tools"
check "quickstart has a setup block (not run here: the build exists)" \
	test "$(blocks "$DOCS/quickstart.md" 'sh quickstart-setup' | tr -cd '\0' | wc -c)" -eq 1
n=0
while IFS= read -r -d '' block; do
	n=$((n + 1))
	(cd "$Q" && bash -euo pipefail -c "$block") >"$T/qs.$n.out" 2>&1
	rc=$?
	expect_eq "quickstart block $n runs" $rc 0
	[ $rc -eq 0 ] || tail -20 "$T/qs.$n.out"
done < <(blocks "$DOCS/quickstart.md" 'sh quickstart')
check "quickstart has command blocks" test "$n" -ge 3
check "quickstart reaches the report" grep -q 'id="timeline"' "$Q/demo.html"
check "the report has the policy chart" grep -q 'id="policy-measured"' "$Q/demo.html"
check "the report has the prediction" grep -q 'id="policy-predicted"' "$Q/demo.html"
check "quickstart's claim: about 170 commands" \
	test "$(sqlite3 "$Q/demo.db" 'SELECT count(*) FROM command WHERE trace_id=1')" -gt 150
check "quickstart's claim: two replays" \
	test "$(sqlite3 "$Q/demo.db" "SELECT count(*) FROM trace WHERE kind='replay' AND parent_id=1")" -eq 2

# ---- SQL cookbook, on the quick start's database ----
DB=$Q/demo.db
k=0
while IFS= read -r -d '' q; do
	k=$((k + 1))
	"$TPMTRACE" sql "$DB" "$q" >"$T/ck.$k.out" 2>"$T/ck.$k.err"
	rc=$?
	expect_eq "cookbook query $k runs" $rc 0
	[ $rc -eq 0 ] || cat "$T/ck.$k.err"
	check "cookbook query $k returns rows" test "$(wc -l <"$T/ck.$k.out")" -ge 2
done < <(blocks "$DOCS/sql-cookbook.md" 'sql cookbook')
check "at least ten cookbook queries" test "$k" -ge 10
# Answers checked against the data: 50 extends of PCR 16 (query 4), the
# slowest command (query 1), the linux-6.10 replay spends more commands in
# session set-up than the recording (query 3).
expect_eq "extends per PCR" "$(sed -n 2p "$T/ck.4.out" | cut -d'|' -f1-2)" "16|50"
expect_eq "slowest command first" "$(sed -n 2p "$T/ck.1.out" | cut -d'|' -f1)" \
	"$(sqlite3 "$DB" 'SELECT seq FROM command WHERE trace_id=1 ORDER BY latency_ns DESC LIMIT 1')"
rec=$(awk -F'|' '$3=="-" {print $4}' "$T/ck.3.out")
hmac=$(awk -F'|' '$3=="linux-6.10" {print $4}' "$T/ck.3.out")
check "session set-up grows under linux-6.10 ($rec -> $hmac)" test "${hmac:-0}" -gt "${rec:-0}"
expect_eq "commands per client add up" "$(awk -F'|' 'NR>1 {s+=$5} END {print s}' "$T/ck.6.out")" \
	"$(sqlite3 "$DB" 'SELECT count(*) FROM command WHERE trace_id=1')"

# ---- schema reference ----
S=$T/schema.db
sqlite3 "$S" <"$TPMTRACE_SRC/db/schema.sql"
for obj in $(sqlite3 "$S" "SELECT name FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%'"); do
	check "schema.md has a section for $obj" grep -q "^### \`$obj\`" "$DOCS/schema.md"
	for col in $(sqlite3 "$S" "SELECT name FROM pragma_table_info('$obj')"); do
		check "schema.md names $obj.$col" grep -q "\`$col\`" "$DOCS/schema.md"
	done
done
finish
