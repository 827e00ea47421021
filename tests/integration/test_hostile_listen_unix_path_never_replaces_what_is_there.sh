#!/usr/bin/env bash
# record --listen unix:PATH takes PATH only if it is free or holds a dead
# socket of ours (issue 36, item 1; docs/security.md, "Local users"): a file
# that is no socket (another user's file, the database itself), a symbolic
# link, a socket somebody answers on (another recorder's) and another user's
# dead socket stay, and the recorder is refused before any database exists;
# the same for the PATH.ctrl companion. On exit a recorder removes only the
# socket it made, not one put at PATH since. The planted files belong to a
# second user (nobody) in a sticky directory, as in /tmp; the recorders run
# as root, who could delete them all.
. "$(dirname "$0")/../lib/common.sh"
need swtpm setpriv python3
[ "$(id -u)" -eq 0 ] || skip "needs root: plants files as nobody for a recorder run as root"
S=$(mktemp -d /tmp/tpmtrace-sticky.XXXXXX)
trap 'rm -rf "$S"; cleanup' EXIT
chmod 711 "$S"
D=$S/shared
mkdir -m 1777 "$D"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# (a recorder in the background is started by setpriv itself, so that its
# PID is the recorder's)
# dead_socket PATH: a socket file nobody listens on (bound, then closed).
dead_socket() {
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$1"
}
# refused NAME PATH [DB]: a recorder on unix:PATH fails, leaving no database.
refused() {
	local db=${3:-$T/$1.db}
	"$TPMTRACE" record --spawn-swtpm --quiet --listen "unix:$2" --db "$db" -- true \
		2>"$T/$1.err"
	local rc=$?
	check "$1: the recorder is refused ($(cat "$T/$1.err"))" [ $rc -ne 0 ]
	check "$1: the message names $2" grep -qF "$2" "$T/$1.err"
}

# A regular file of another user.
as_nobody sh -c "echo kept >'$D/victim.db'"
refused victim "$D/victim.db"
expect_eq "victim: the file is intact" "$(cat "$D/victim.db")" "kept"
check "victim: no database was made" [ ! -e "$T/victim.db" ]

# The database's own path.
as_nobody sh -c "echo kept >'$D/same.db'"
refused same "$D/same.db" "$D/same.db"
expect_eq "same path as --db: the file is intact" "$(cat "$D/same.db")" "kept"

# A symbolic link (to a file of the victim's).
as_nobody ln -s victim.db "$D/link"
refused link "$D/link"
check "link: the link is still there" [ -L "$D/link" ]

# PATH free, PATH.ctrl a file: refused as a whole, PATH not left behind.
as_nobody sh -c "echo kept >'$D/s2.ctrl'"
refused ctrl "$D/s2"
expect_eq "ctrl: the .ctrl file is intact" "$(cat "$D/s2.ctrl")" "kept"
check "ctrl: no socket left at PATH" [ ! -e "$D/s2" ]

# Another user's dead socket.
as_nobody bash -c "$(declare -f dead_socket); dead_socket '$D/theirs.sock'"
check "nobody's dead socket is there" [ -S "$D/theirs.sock" ]
refused theirs "$D/theirs.sock"
check "theirs: nobody's socket is still there" [ -S "$D/theirs.sock" ]
expect_eq "theirs: still nobody's" "$(stat -c %U "$D/theirs.sock")" "nobody"

# A dead socket of ours (and its .ctrl) is replaced: the recorder runs.
dead_socket "$D/ours.sock"
dead_socket "$D/ours.sock.ctrl"
"$TPMTRACE" record --spawn-swtpm --quiet --listen "unix:$D/ours.sock" --db "$T/ours.db" -- \
	"$TPMCLIENT" --connect "unix:$D/ours.sock" --cmd getrandom --quiet >/dev/null 2>"$T/ours.err"
rc=$?
check "our dead sockets are replaced and served ($(cat "$T/ours.err"))" [ $rc -eq 0 ]
check "ours: the recorder removed its sockets at exit" [ ! -e "$D/ours.sock" -a ! -e "$D/ours.sock.ctrl" ]

# A live recorder of nobody's: a second one on its path is refused, and the
# first one's clients keep their socket.
setpriv --reuid=nobody --regid=nogroup --clear-groups env TMPDIR="$D" "$(for_others "$TPMTRACE")" record --spawn-swtpm --quiet --db "$D/a.db" \
	--listen "unix:$D/live.sock" 2>"$T/a.err" &
A=$!
PIDS+=($A)
check "nobody's recorder listens" wait_for_socket "$D/live.sock"
ino=$(stat -c %i "$D/live.sock")
refused live "$D/live.sock"
check "live: the first recorder's socket is the same file" [ "$(stat -c %i "$D/live.sock")" = "$ino" ]
check "live: the first recorder still serves its clients" \
	"$TPMCLIENT" --connect "unix:$D/live.sock" --cmd getrandom --quiet >/dev/null

# On exit a recorder removes only its own socket: B's socket is taken away
# and C listens there; B's exit leaves C's socket in place.
"$TPMTRACE" record --spawn-swtpm --quiet --db "$T/b.db" --listen "unix:$D/r.sock" \
	2>"$T/b.err" &
B=$!
PIDS+=($B)
check "B listens" wait_for_socket "$D/r.sock"
rm -f "$D/r.sock" "$D/r.sock.ctrl"
"$TPMTRACE" record --spawn-swtpm --quiet --db "$T/c.db" --listen "unix:$D/r.sock" \
	2>"$T/c.err" &
C=$!
PIDS+=($C)
check "C listens at B's old path" wait_for_socket "$D/r.sock"
kill -INT "$B"
wait "$B"
rc=$?
check "B stops cleanly ($rc)" [ $rc -eq 0 ]
check "B's exit leaves C's socket" [ -S "$D/r.sock" -a -S "$D/r.sock.ctrl" ]
check "C still serves its clients" "$TPMCLIENT" --connect "unix:$D/r.sock" --cmd getrandom --quiet >/dev/null
kill -INT "$C" "$A"
wait "$C" "$A"
finish
