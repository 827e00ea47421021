#!/usr/bin/env bash
# Issue 36, item 2: standard output that is the database (a shell's 1<>db,
# or >>db) is refused before anything is written: an output spelled `-`
# is checked like any other against the command's inputs, and every
# subcommand that opens a database refuses one whose file is its standard
# output (what it prints would overwrite it). Exit non-zero, the database
# byte for byte as it was and still a database; a plain `-` still writes.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3
cd "$T" || exit 1
check "setup: the demo recorded into demo.db" record_demo demo.db 5

intact() { cmp -s demo.db w.db && [ "$(sqlite3 w.db 'SELECT count(*) FROM trace')" = 1 ]; }
# refused WHAT ARGS...: the subcommand run with w.db, a copy of the
# database, as its standard output (read and write, not truncated).
refused() {
	local what=$1
	shift
	cp demo.db w.db
	"$TPMTRACE" "$@" 1<>w.db 2>err
	local rc=$?
	check "$what 1<>db exits non-zero ($(head -c 200 err))" [ $rc -ne 0 ]
	check "$what: the error says why" grep -q "standard output" err
	check "$what: the database is as it was" intact
}
refused "export --csv -" export w.db --csv -
refused "export --jsonl -" export w.db --jsonl -
refused "report --json -o -" report w.db --json -o -
refused "report -o -" report w.db -o -
refused "pcrs -o -" pcrs w.db --banks sha256 -o -
refused "profile learn -o -" profile learn w.db -o -
refused "show" show w.db
refused "list" list w.db
refused "stats" stats w.db
refused "sql" sql w.db 'SELECT 1'
refused "predict" predict w.db --profile ifx-slb9670-tpmscan
refused "verify" verify w.db
# An input other than the database: the profile file read by import.
"$TPMTRACE" profile learn demo.db -o p.profile >/dev/null 2>err
rc=$?
expect_eq "setup: a profile written ($(head -c 200 err))" $rc 0
cp p.profile p.copy
"$TPMTRACE" profile import profile p.profile -o - 1<>p.profile 2>err
rc=$?
check "profile import -o - onto its input exits non-zero" [ $rc -ne 0 ]
check "...and the input is as it was" cmp -s p.profile p.copy
# import prints its summary to standard output: never onto a file it reads.
"$TPMTRACE" export demo.db --pcapng x.pcapng >/dev/null 2>err
rc=$?
expect_eq "setup: a pcapng written ($(head -c 200 err))" $rc 0
cp x.pcapng y.pcapng
"$TPMTRACE" import pcap y.pcapng --db n.db 1<>y.pcapng 2>err
rc=$?
check "import with its input as standard output exits non-zero" [ $rc -ne 0 ]
check "...and the input is as it was" cmp -s x.pcapng y.pcapng

# Standard output elsewhere: - still writes there.
cp demo.db w.db
"$TPMTRACE" export w.db --csv - >out.csv 2>err
rc=$?
expect_eq "export --csv - to another file exits 0 ($(head -c 200 err))" $rc 0
check "...and writes the CSV" grep -q '^trace_id,seq' out.csv
finish
