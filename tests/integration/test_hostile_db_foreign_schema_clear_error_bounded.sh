#!/usr/bin/env bash
# Hostile databases (issue 22, item 7; docs/security.md, "Hostile databases"):
# a view in place of the command table (over a recursive CTE that never ends),
# a redefined command_stats (a recursive view, as many rows as it is asked
# for) and views of a gigabyte blob. Every read-only subcommand refuses each
# with a clear error naming the object, exit 1, within 5 s and 100 MB (the
# child's own peak RSS). A database with the user's own extra view still
# opens, and `sql` is bounded too: a blob over the value limit and a
# statement over its time budget fail with an error.
. "$(dirname "$0")/../lib/common.sh"
need swtpm python3 tpm2_getrandom tpm2_pcrextend
BR=(python3 "$TPMTRACE_TEST_LIB/bounded_run.py" 5)
"$TPMTRACE" record --spawn-swtpm --quiet --db "$T/good.db" -- sh -c \
	'tpm2_getrandom -T "$TPMTRACE_TCTI" 8 >/dev/null &&
	 tpm2_pcrextend -T "$TPMTRACE_TCTI" 16:sha256=$(printf "%064d" 0)' 2>"$T/rec.err"
rc=$?
check "a trace is recorded ($(cat "$T/rec.err"))" [ $rc -eq 0 ]

# hostile NAME SQL: a copy of the good database changed by SQL.
hostile() {
	cp "$T/good.db" "$T/$1.db"
	python3 - "$T/$1.db" "$2" <<-'PY'
		import sqlite3, sys
		c = sqlite3.connect(sys.argv[1])
		c.executescript(sys.argv[2])
		c.commit()
	PY
}
# Under AddressSanitizer freed memory waits in a quarantine (256 MB by
# default) before reuse, so a statement that allocates and frees per row
# would grow to the quarantine's size: kept small here, so that the memory
# bounds below measure tpmtrace, not the sanitizer (no effect without ASan).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"
REC="WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)"
hostile view-for-table "PRAGMA legacy_alter_table = ON; ALTER TABLE command RENAME TO c0;
	CREATE VIEW command AS $REC SELECT c0.* FROM r, c0;"
hostile recursive-view "DROP VIEW command_stats;
	CREATE VIEW command_stats AS $REC SELECT 1 AS trace_id, 1 AS cc, 'x' AS name,
	n AS count, n AS total_ns, n AS min_ns, n AS mean_ns, n AS p50_ns, n AS p95_ns,
	n AS p99_ns, n AS max_ns, n AS first_ns FROM r;"
hostile huge-blob "DROP VIEW trace_summary; DROP VIEW command_named;
	CREATE VIEW trace_summary AS SELECT 1 AS trace_id, zeroblob(1000000000) AS name;
	CREATE VIEW command_named AS $REC SELECT randomblob(100000000) AS name FROM r;"
for h in view-for-table recursive-view huge-blob; do
	check "$h: the hostile database is made" [ -s "$T/$h.db" ]
done
what_of() {
	case $1 in
	view-for-table) echo "command is a view, tpmtrace's command is a table" ;;
	recursive-view) echo "view command_stats is not tpmtrace's" ;;
	huge-blob) echo "view [a-z_]* is not tpmtrace's" ;;
	esac
}

SUBS=(list stats show verify pcrs export report diff predict sql)
run_sub() { # run_sub SUB DB: the subcommand's usual use of DB
	local db=$2
	case $1 in
	list | stats | show | verify | pcrs) "${BR[@]}" "$TPMTRACE" "$1" "$db" ;;
	export) "${BR[@]}" "$TPMTRACE" export "$db" --csv "$T/out.csv" ;;
	report) "${BR[@]}" "$TPMTRACE" report "$db" -o "$T/out.html" ;;
	diff) "${BR[@]}" "$TPMTRACE" diff "$db" 1 1 ;;
	predict) "${BR[@]}" "$TPMTRACE" predict "$db" --profile ifx-slb9670-tpmscan ;;
	sql) "${BR[@]}" "$TPMTRACE" sql "$db" "SELECT count(*) FROM command_stats" ;;
	esac
}
# bounded ERRFILE: "status maxrss_kb killed" of the run.
bounded() { sed -n 's/^bounded_run: status \([0-9]*\) maxrss_kb \([0-9]*\) killed \([01]\)$/\1 \2 \3/p' "$1"; }
within() { [ "$2" -eq 1 -a "$3" -eq 0 -a "$4" -le 102400 ]; }

for h in view-for-table recursive-view huge-blob; do
	for s in "${SUBS[@]}"; do
		run_sub "$s" "$T/$h.db" >"$T/out" 2>"$T/err"
		read -r st rss killed <<<"$(bounded "$T/err")"
		check "$h: $s exits 1 within 5 s and 100 MB (status ${st:-?}, ${rss:-?} KB, killed ${killed:-?})" \
			within "$s" "${st:-0}" "${killed:-1}" "${rss:-999999}"
		check "$h: $s names the object ($(head -1 "$T/err"))" grep -q "foreign schema: $(what_of "$h")" "$T/err"
	done
done

# The control: the good database, with a view of the user's own added, opens
# for every subcommand.
hostile user-view "CREATE VIEW my_getrandoms AS SELECT * FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom');"
for s in "${SUBS[@]}"; do
	run_sub "$s" "$T/user-view.db" >"$T/out" 2>"$T/err"
	read -r st rss killed <<<"$(bounded "$T/err")"
	check "a user's own view: $s exits 0 (status ${st:-?}: $(head -1 "$T/err"))" [ "${st:-1}" -eq 0 ]
done
got=$("$TPMTRACE" sql "$T/user-view.db" "SELECT count(*) FROM my_getrandoms" | tail -1)
expect_eq "sql reads the user's own view" "$got" 1
# A database an older tpmtrace made (command_stats before it left out the
# commands tpmtrace sent itself, flag 32) is still tpmtrace's.
cp "$T/good.db" "$T/old.db"
python3 - "$T/old.db" <<-'PY'
	import sqlite3, sys
	c = sqlite3.connect(sys.argv[1])
	sql = c.execute("SELECT sql FROM sqlite_schema WHERE name = 'command_stats'").fetchone()[0]
	old = sql.replace(" AND flags & 32 = 0", "")
	assert old != sql
	c.executescript("DROP VIEW command_stats; " + old + ";")
	c.commit()
PY
"$TPMTRACE" stats "$T/old.db" >"$T/out" 2>"$T/err"
rc=$?
check "an older version's command_stats: stats exits 0 ($(head -1 "$T/err"))" [ $rc -eq 0 ]

# sql's own statements are bounded: a value over the limit, a statement
# over its time budget (TPMTRACE_DB_STATEMENT_MS, 60 s by default).
"${BR[@]}" "$TPMTRACE" sql "$T/good.db" "SELECT length(zeroblob(1000000000))" >"$T/out" 2>"$T/err"
read -r st rss killed <<<"$(bounded "$T/err")"
check "sql: a gigabyte blob is an error within 5 s and 100 MB (${st:-?}, ${rss:-?} KB)" \
	within sql "${st:-0}" "${killed:-1}" "${rss:-999999}"
check "... saying it is too big" grep -q "too big" "$T/err"
TPMTRACE_DB_STATEMENT_MS=1000 "${BR[@]}" "$TPMTRACE" sql "$T/good.db" \
	"$REC SELECT count(*) FROM r" >"$T/out" 2>"$T/err"
read -r st rss killed <<<"$(bounded "$T/err")"
check "sql: a statement that never ends is interrupted at its budget (${st:-?}, ${rss:-?} KB)" \
	within sql "${st:-0}" "${killed:-1}" "${rss:-999999}"
check "... saying so" grep -q "interrupted" "$T/err"
finish
