#!/usr/bin/env bash
# Issue 36, item 12: `sql --json` prints one JSON object with an "error"
# member (exit 1) when the database does not open at all -- a file that is
# not a database, a missing file, a database another process holds locked
# (docs/cli.md, "Errors") -- and a locked database is called locked (busy),
# not "not an SQLite database", by sql and the other subcommands (db_open).
# With standard output the database itself (1<>db), not even the JSON error
# is written into it.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3
cd "$T" || exit 1
check "setup: the demo recorded into demo.db" record_demo demo.db 3

# one_error FILE: FILE holds exactly one JSON object, with an "error".
one_error() {
	python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
sys.exit(0 if isinstance(o, dict) and isinstance(o.get("error"), str) and o["rows"] == [] else 1)' "$1"
}
echo "not a database at all" >text.db
"$TPMTRACE" sql text.db 'SELECT 1' --json >out.json 2>err
rc=$?
expect_eq "sql --json on a text file exits 1 ($(head -c 200 err))" $rc 1
check "...printing one JSON object with an error ($(head -c 200 out.json))" one_error out.json
"$TPMTRACE" sql missing.db 'SELECT 1' --json >out.json 2>err
rc=$?
expect_eq "sql --json on a missing file exits 1 ($(head -c 200 err))" $rc 1
check "...printing one JSON object with an error ($(head -c 200 out.json))" one_error out.json

# A database another process holds with an exclusive lock (rollback journal).
cp demo.db locked.db
python3 -c 'import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA journal_mode=DELETE")
c.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
while not os.path.exists(sys.argv[3]):
    time.sleep(0.05)
c.execute("ROLLBACK")' locked.db lock.ready lock.done &
LOCKER=$!
PIDS+=($LOCKER)
wait_until '[ -e lock.ready ]'
"$TPMTRACE" sql locked.db 'SELECT 1' --json >out.json 2>err
rc=$?
expect_eq "sql --json on a locked database exits 1 ($(head -c 200 err))" $rc 1
check "...printing one JSON object with an error ($(head -c 200 out.json))" one_error out.json
check "...that says locked" grep -q "locked" out.json
no_misnomer() { ! grep -q "not an SQLite database" "$@"; }
check "...not 'not an SQLite database'" no_misnomer out.json err
"$TPMTRACE" list locked.db >/dev/null 2>err
rc=$?
expect_eq "list on a locked database exits 1" $rc 1
check "...saying locked, not 'not an SQLite database' ($(head -c 200 err))" grep -q "is locked by another process" err
touch lock.done
wait $LOCKER
"$TPMTRACE" sql locked.db 'SELECT count(*) AS n FROM trace' --json >out.json 2>err
rc=$?
expect_eq "...and read once the lock is gone ($(head -c 200 err))" $rc 0

# Standard output that is the database: refused, nothing written into it.
cp demo.db w.db
"$TPMTRACE" sql w.db 'SELECT 1' --json 1<>w.db 2>err
rc=$?
expect_eq "sql --json 1<>db exits 1" $rc 1
check "...the database as it was" cmp -s demo.db w.db
"$TPMTRACE" verify w.db --json 1<>w.db 2>err
rc=$?
expect_eq "verify --json 1<>db exits 1" $rc 1
check "...the database as it was" cmp -s demo.db w.db
finish
