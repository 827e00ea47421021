#!/usr/bin/env bash
# A replay's fidelity is the replayer's figure, stored in the run's trace row
# (trace.fidelity, schema version 5), and a later run of the same trace,
# policy and target compares itself with it from there (docs/replay.md).
# A file of version 4 gets the column when first opened for writing, filled
# for its complete replays from their replay-stop events.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3
db=$T/r.db
check "a recording of the demo workload" record_demo "$db"

# ---- the figure, stored ----
"$TPMTRACE" replay "$db" --trace 1 --min-fidelity 0 --json >"$T/r1.json" 2>"$T/r1.err"
expect_eq "a replay as recorded (exit status)" "$?" 0
run=$(json_get "$T/r1.json" runs.0.trace)
fid=$(json_get "$T/r1.json" runs.0.fidelity)
expect_eq "the run's trace row holds its fidelity (percent), the summary's figure" \
	"$(sqlite3 "$db" "SELECT printf('%.4f', fidelity / 100) FROM trace WHERE id = $run")" \
	"$(printf '%.4f' "$fid")"
expect_eq "the source and other kinds have none" \
	"$(sqlite3 "$db" "SELECT count(*) FROM trace WHERE fidelity IS NOT NULL")" 1

# ---- a later run compared with it ----
# An earlier run better than any this trace gives (a fault a real run cannot
# be made to produce): the next run of the same trace, policy and target is
# below it and ends the command, naming that run.
sqlite3 "$db" "UPDATE trace SET fidelity = 100.5 WHERE id = $run"
"$TPMTRACE" replay "$db" --trace 1 --min-fidelity 0 >/dev/null 2>"$T/r2.err"
expect_eq "below an earlier run's fidelity: exit status 1" "$?" 1
check "... the message names that run and its figure" \
	grep -q "is below the 100.5% of trace $run (the same trace, policy and target)" "$T/r2.err"
"$TPMTRACE" replay "$db" --trace 1 --policy password --min-fidelity 0 >/dev/null 2>"$T/r3.err"
expect_eq "another policy is not compared with it (exit status)" "$?" 0

# ---- a file of version 4 ----
# Made from a dump with the column taken out of the table and its rows (the
# last value of each, NULL first), as version 4 wrote them.
cp "$db" "$T/v5.db"
sqlite3 "$T/v5.db" "UPDATE trace SET fidelity = NULL"
sqlite3 "$T/v5.db" .dump | sed -e '/^\tfidelity REAL/d' -e 's/^\(\tuuid TEXT\),/\1/' \
	-e 's/^\(INSERT INTO trace VALUES(.*\),NULL);$/\1);/' >"$T/v4.sql"
sqlite3 "$T/v4.db" <"$T/v4.sql"
sqlite3 "$T/v4.db" "UPDATE meta SET value = '4' WHERE key = 'schema_version';
	PRAGMA application_id = $(sqlite3 "$db" "PRAGMA application_id"); PRAGMA user_version = 4"
expect_eq "the version 4 file has no fidelity column" \
	"$(sqlite3 "$T/v4.db" "SELECT count(*) FROM pragma_table_info('trace') WHERE name = 'fidelity'")" 0
check "read-only commands read a version 4 file" "$TPMTRACE" stats "$T/v4.db" --trace "$run"
expect_eq "... and leave it at version 4" "$(sqlite3 "$T/v4.db" "PRAGMA user_version")" 4
check "opened for writing (advise --rewrite)" \
	"$TPMTRACE" advise "$T/v4.db" --trace 1 --rewrite repeated-primary
expect_eq "migrated to version 5: each complete replay's fidelity from its replay-stop event" \
	"$(sqlite3 "$T/v4.db" "PRAGMA user_version; SELECT count(*) FROM trace WHERE fidelity IS NOT NULL;
	SELECT printf('%.4f', fidelity / 100) FROM trace WHERE id = $run")" \
	"5
$(sqlite3 "$db" "SELECT count(*) FROM trace WHERE kind = 'replay' AND status = 'complete'")
$(printf '%.4f' "$fid")"
finish
