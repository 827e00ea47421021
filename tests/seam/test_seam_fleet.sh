#!/usr/bin/env bash
# The seam corpus pushed to a real PostgreSQL 15 (tests/lib/pg.sh), then the
# fleet's read commands: push takes every trace of every kind (or says why
# not, naming it) and exits as it says; fleet stats, list and report --json
# parse, fit 100 columns, and count as boots only the traces that are boots
# (finished recordings and timed imports: docs/schema.md, "Trace kinds"):
# never a replay, a derived trace, an untimed import (no 0 ms boot) or an
# unfinished trace.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pg.sh"
need python3 sqlite3
C=${TPMTRACE_SEAM_CORPUS:-$TPMTRACE_TEST_BUILD/seam-corpus}
[ -s "$C/corpus.txt" ] || { echo "no seam corpus at $C (ctest runs seam/corpus first)" >&2; exit 1; }
check "a PostgreSQL 15 server starts in the test directory" pg_start pg
[ -n "${PGURL:-}" ] || finish
cp "$C/corpus.db" "$T/corpus.db"
"$TPMTRACE" push "$T/corpus.db" "$PGURL" >"$T/push.out" 2>&1
rc=$?
check "push of every kind exits 0 ($(tail -3 "$T/push.out"))" test "$rc" -eq 0
fits() { ! awk 'length > 100 { bad = 1 } END { exit !bad }' "$1"; }
check "push: fits 100 columns" fits "$T/push.out"
for c in stats list; do
	"$TPMTRACE" fleet "$PGURL" $c >"$T/$c.txt" 2>&1
	expect_eq "fleet $c exits 0" "$?" 0
	check "fleet $c: fits 100 columns" fits "$T/$c.txt"
	"$TPMTRACE" fleet "$PGURL" $c --json >"$T/$c.json" 2>"$T/$c.err"
	expect_eq "fleet $c --json exits 0" "$?" 0
	check "fleet $c --json is strict JSON" python3 "$TPMTRACE_TEST_LIB/json_strict.py" "$T/$c.json"
done
"$TPMTRACE" fleet "$PGURL" report -o "$T/fleet.html" >"$T/report.out" 2>&1
expect_eq "fleet report exits 0" "$?" 0
# The boots: the corpus's recordings and timed imports that finished.
want=$(awk '$2 == "record" || $2 == "import-timed"' "$C/corpus.txt" | wc -l)
got=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
rows = d.get("groups") or d.get("rows") or []
print(sum(r.get("boots", 0) for r in rows))' "$T/stats.json")
expect_eq "fleet stats: the boots are the recordings and timed imports" "$got" "$want"
finish
