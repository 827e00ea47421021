#!/usr/bin/env bash
# Issue 36, items 4 and 5: outputs in a shared sticky directory (/tmp) where
# another user (nobody) plants things, tpmtrace run as root. The kernel's
# fs.protected_* rules, applied by tpmtrace whatever the sysctls say
# (docs/security.md, "Outputs"):
#  - a FIFO or a regular file owned by neither us nor the directory's owner
#    is not written (nobody's reader gets nothing, nobody's file stays);
#  - a socket is never an output, ours or not;
#  - a FIFO that no process reads is an error, not a hang;
#  - a symbolic link planted there is not followed, also as a directory on
#    the way (d/dd/r.html with d/dd -> a private directory of root's);
#  - our own links there are followed, a relative one from its directory.
# Needs root (files owned by nobody); skipped as a whole without it.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 setpriv python3
[ "$(id -u)" -eq 0 ] || skip "needs root: runs a second user (nobody) with setpriv"
cd "$T" || exit 1
# A directory nobody can reach (its parents traversable), a sticky d in it.
S=$(mktemp -d /tmp/tpmtrace-sticky.XXXXXX)
trap 'rm -rf "$S"; cleanup' EXIT
chmod 0755 "$S"
mkdir -m 1777 "$S/d"
mkdir -m 0777 "$S/x" # the planted readers' own files
mkdir -m 0700 "$S/priv" "$T/private"
# (with the system's PATH: root's may lead through directories nobody
# cannot read)
as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		env PATH=/usr/local/bin:/usr/bin:/bin "$@"
}

check "setup: the demo recorded into demo.db" record_demo demo.db 5

# planted KIND NAME CMD...: nobody's reader (FIFO or socket) at d/NAME,
# tpmtrace CMD... run against it as root; leaves rc, err and got (bytes
# nobody received).
planted() {
	local kind=$1 name=$2 pid
	shift 2
	rm -f "$S/x/ready" "$S/x/done" "$S/x/got"
	as_nobody python3 "$(for_others "$TPMTRACE_TEST_LIB/planted_reader.py")" "$kind" "$S/d/$name" \
		"$S/x/ready" "$S/x/done" "$S/x/got" &
	pid=$!
	wait_until '[ -e "$S/x/ready" ]'
	timeout 60 "$TPMTRACE" "$@" 2>err
	rc=$?
	touch "$S/x/done"
	wait $pid
	got=$(cat "$S/x/got" 2>/dev/null || echo "no count")
}
planted fifo f.html export demo.db --jsonl "$S/d/f.html"
expect_eq "nobody's FIFO in the sticky directory: refused ($(head -c 200 err))" $rc 1
check "...with the reason" grep -q "shared sticky directory owned by someone else" err
expect_eq "...and nobody read nothing" "$got" 0
planted socket s.csv export demo.db --csv "$S/d/s.csv"
expect_eq "nobody's socket in the sticky directory: refused ($(head -c 200 err))" $rc 1
check "...as a socket" grep -q "is a socket" err
expect_eq "...and nobody received nothing" "$got" 0

# Our own socket, in our own directory: still no output.
python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
import time; open(sys.argv[2], "w").close(); time.sleep(600)' "$T/own.sock" "$T/sock.ready" &
PIDS+=($!)
wait_until '[ -e "$T/sock.ready" ]'
timeout 60 "$TPMTRACE" export demo.db --csv "$T/own.sock" 2>err
rc=$?
expect_eq "our own socket: refused ($(head -c 200 err))" $rc 1
check "...the socket still a socket" test -S "$T/own.sock"

# A FIFO nobody reads: an error after a bounded wait, not a hang.
mkfifo -m 600 "$T/lonely.html"
timeout 60 "$TPMTRACE" report demo.db -o "$T/lonely.html" 2>err
rc=$?
expect_eq "a FIFO without a reader: exit 1, no hang ($(head -c 200 err))" $rc 1
check "...saying no process reads it" grep -q "no process reads" err

# A regular file nobody planted: not replaced, ours is.
as_nobody touch "$S/d/r.csv"
timeout 60 "$TPMTRACE" export demo.db --csv "$S/d/r.csv" 2>err
rc=$?
expect_eq "nobody's file in the sticky directory: refused ($(head -c 200 err))" $rc 1
is_nobodys_empty() { [ "$(stat -c %U "$1")" = nobody -a ! -s "$1" ]; }
check "...still nobody's and empty" is_nobodys_empty "$S/d/r.csv"
timeout 60 "$TPMTRACE" export demo.db --csv "$S/d/mine.csv" 2>err
rc=$?
expect_eq "a new name in the sticky directory is written ($(head -c 200 err))" $rc 0
check "...with the CSV" grep -q '^trace_id,seq' "$S/d/mine.csv"
timeout 60 "$TPMTRACE" export demo.db --csv "$S/d/mine.csv" 2>err
rc=$?
expect_eq "...and replaced, being ours ($(head -c 200 err))" $rc 0

# A directory link planted by nobody, on the way to the output.
as_nobody ln -s "$T/private" "$S/d/dd"
timeout 60 "$TPMTRACE" report demo.db -o "$S/d/dd/r.html" 2>err
rc=$?
expect_eq "nobody's link as a directory on the way: refused ($(head -c 200 err))" $rc 1
check "...not followed" grep -q "not followed" err
check "...nothing written in the private directory" test ! -e "$T/private/r.html"
as_nobody ln -s "$S/d/dd" "$S/x/hop"
timeout 60 "$TPMTRACE" export demo.db --csv "$S/x/hop/r.csv" 2>err
rc=$?
expect_eq "...also reached through another link ($(head -c 200 err))" $rc 1
check "...nothing written in the private directory" test ! -e "$T/private/r.csv"
# Ours: a relative link, resolved from the directory that holds it.
ln -s ../priv "$S/d/mine"
timeout 60 "$TPMTRACE" export demo.db --csv "$S/d/mine/x.csv" 2>err
rc=$?
expect_eq "our own relative directory link is followed ($(head -c 200 err))" $rc 0
check "...from its own directory" grep -q '^trace_id,seq' "$S/priv/x.csv"
finish
