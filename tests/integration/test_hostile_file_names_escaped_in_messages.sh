#!/usr/bin/env bash
# Issue 36, item 11: a file name from the command line reaches the terminal
# as text, never as an escape sequence or a line break: every error
# (cli_error/cli_usage_error print their whole message escaped) and every summary
# that names a file (export, import, profile, an unknown subcommand) shows
# ESC as \x1b and a newline as \x0a, on the one line of its message.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3
cd "$T" || exit 1
check "setup: the demo recorded into demo.db" record_demo demo.db 3

ESC=$'\e'
mkdir esc
# plain FILE: no control byte but the line ends, and the name escaped.
plain() { ! LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <"$1"); }
# shown WHAT LINES: the messages (msg) are LINES lines, no raw control byte,
# ESC shown as \x1b.
shown() {
	check "$1: no raw control byte ($(od -c msg | head -3 | tr '\n' ' '))" plain msg
	expect_eq "$1: on $2 line(s)" "$(wc -l <msg)" "$2"
	check "$1: ESC shown as \\x1b" grep -qF '\x1b[' msg
}

"$TPMTRACE" import pcap "esc/${ESC}[2Jgone.pcap" --db n.db >msg 2>&1
rc=$?
expect_eq "import of a missing file with ESC in its name: exit 1" $rc 1
shown "import error" 1

"$TPMTRACE" export demo.db --csv "a${ESC}[31mRED"$'\n'"x.csv" >msg 2>&1
rc=$?
expect_eq "export to a name with ESC and a newline: exit 0" $rc 0
shown "export summary" 1
check "...the newline shown as \\x0a" grep -qF 'RED\x0ax.csv' msg

"$TPMTRACE" export demo.db --pcapng "esc/p${ESC}[2J"$'\n'".pcapng" >/dev/null 2>&1
rc=$?
expect_eq "setup: a pcapng with ESC and a newline in its name" $rc 0
"$TPMTRACE" import pcap "esc/p${ESC}[2J"$'\n'".pcapng" --db i.db >msg 2>&1
rc=$?
expect_eq "import of it: exit 0 ($(head -c 200 msg))" $rc 0
check "import summary: no raw control byte" plain msg
check "import summary: ESC shown as \\x1b" grep -qF 'p\x1b[2J\x0a.pcapng' msg

"$TPMTRACE" profile learn demo.db -o "esc/l${ESC}]0;title${ESC}\\.profile" >msg 2>&1
rc=$?
expect_eq "profile learn -o a name with an OSC sequence: exit 0 ($(head -c 200 msg))" $rc 0
check "profile summary: no raw control byte" plain msg

"$TPMTRACE" list "no${ESC}[2J"$'\n'"such.db" >msg 2>&1
rc=$?
expect_eq "list of a missing database with ESC: exit 1" $rc 1
shown "list error" 1

"$TPMTRACE" export demo.db --csv "dup${ESC}[1m.csv" --jsonl "dup${ESC}[1m.csv" >msg 2>&1
rc=$?
expect_eq "export with one name twice: usage error" $rc 2
shown "usage error" 2

"$TPMTRACE" "sub${ESC}[2J" >msg 2>&1
rc=$?
expect_eq "an unknown subcommand with ESC: usage error" $rc 2
shown "unknown subcommand" 1
finish
