#!/usr/bin/env bash
# Database file modes (issue 15, findings 5 and 6):
#  - a pre-existing empty file wider than 0600 is not adopted (before: the
#    database, its -wal and -shm all took its 0666, without a word); a
#    symbolic link to an empty file is not followed (before: its target was
#    filled); a dangling link gets a clear message (before: "File exists");
#  - `sql` without --write writes nothing anywhere: VACUUM INTO and ATTACH are
#    refused (before: VACUUM INTO wrote a full copy of a 0600 database, 0644);
#  - `record --mode 0640 --group G`: a member of G who may not write the
#    directory reads the database once recording has ended (before: every
#    read subcommand failed, "attempt to write a readonly database", the -shm
#    being gone).
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 setpriv tpm2_getrandom
[ "$(id -u)" -eq 0 ] || skip "needs root to read as another user (setpriv)"
G=$(getent group nogroup tss | head -1 | cut -d: -f1)
[ -n "$G" ] || skip "no group nogroup or tss to read as"
GID=$(getent group "$G" | cut -d: -f3)
reader() { setpriv --reuid=65534 --regid="$GID" --clear-groups "$@"; }

chmod 0711 "$T" # the reader may pass, not list or write
mkdir -m 0755 "$T/shared"

# -- an empty file, too wide
: >"$T/pre.db"
chmod 666 "$T/pre.db"
"$TPMTRACE" record --spawn-swtpm --db "$T/pre.db" -- tpm2_getrandom 8 >/dev/null 2>"$T/pre.err"
st=$?
check "finding 5: a 0666 empty file is not adopted (exit $st)" [ "$st" -ne 0 ]
# (tpmtrace refuses every empty file as a database: docs/cli.md; the library
# under tpm-cuse-proxy adopts one only if it is ours and no wider: test_db.)
check "... with a message that says why" grep -q "empty file, not a tpmtrace database" "$T/pre.err"
expect_eq "... the file stays empty and 0666" "$(stat -c '%s %a' "$T/pre.db")" "0 666"
check "... and no -wal or -shm was made" [ ! -e "$T/pre.db-wal" -a ! -e "$T/pre.db-shm" ]

# -- links
: >"$T/target"
ln -s "$T/target" "$T/link.db"
"$TPMTRACE" record --spawn-swtpm --db "$T/link.db" -- tpm2_getrandom 8 >/dev/null 2>"$T/link.err"
check "finding 5: a link to an empty file is refused" grep -q "symbolic link to an empty file" "$T/link.err"
expect_eq "... its target stays empty" "$(stat -c %s "$T/target")" 0
ln -s "$T/nowhere/x.db" "$T/dangling.db"
"$TPMTRACE" record --spawn-swtpm --db "$T/dangling.db" -- tpm2_getrandom 8 >/dev/null 2>"$T/dangling.err"
check "finding 11: a dangling link: a clear message, not 'File exists'" \
	[ "$(grep -c 'does not exist' "$T/dangling.err")" -ge 1 -a "$(grep -c 'File exists' "$T/dangling.err")" -eq 0 ]

# -- group reader after recording
db=$T/shared/g.db
check "record --mode 0640 --group $G" \
	"$TPMTRACE" record --spawn-swtpm --db "$db" --mode 0640 --group "$G" --quiet -- \
	bash -c 'tpm2_startup -c && tpm2_getrandom 8 -o /dev/null'
expect_eq "database 0640, group $G" "$(stat -c '%a %G' "$db")" "640 $G"
check "no -wal/-shm left behind" [ ! -e "$db-wal" -a ! -e "$db-shm" ]
check "the reader cannot write the directory" reader bash -c "! touch '$T/shared/x' 2>/dev/null"
check "finding 6: the group reader lists the traces after recording" \
	reader "$TPMTRACE" list "$db"
check "finding 6: ... stats" reader "$TPMTRACE" stats "$db"
check "finding 6: ... show" reader "$TPMTRACE" show "$db"
expect_eq "finding 6: ... sql" \
	"$(reader "$TPMTRACE" sql "$db" --no-header 'SELECT count(*) > 0 FROM command' 2>&1)" 1
# Recording again into it (WAL while recording), then reading again.
check "record into it again" "$TPMTRACE" record --spawn-swtpm --db "$db" --mode 0640 \
	--group "$G" --quiet -- bash -c 'tpm2_startup -c && tpm2_getrandom 8 -o /dev/null'
check "finding 6: read after the second recording" reader "$TPMTRACE" stats "$db"
expect_eq "... mode and group kept" "$(stat -c '%a %G' "$db")" "640 $G"

# -- sql without --write writes nothing anywhere
out=$("$TPMTRACE" sql "$db" "VACUUM INTO '$T/copy.db'" 2>&1)
check "finding 5: sql without --write: VACUUM INTO refused ($out)" [ ! -e "$T/copy.db" ]
out=$("$TPMTRACE" sql "$db" "ATTACH '$T/att.db' AS a" 2>&1)
check "finding 5: ... ATTACH refused ($out)" [ ! -e "$T/att.db" ]
"$TPMTRACE" sql "$db" "DELETE FROM event" >/dev/null 2>&1
check "finding 5: ... DELETE refused" [ "$(sqlite3 "$db" 'SELECT count(*) FROM event')" -gt 0 ]
check "with --write it may" "$TPMTRACE" sql "$db" --write "DELETE FROM event WHERE kind='nothing'"
finish
