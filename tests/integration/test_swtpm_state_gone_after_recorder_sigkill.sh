#!/usr/bin/env bash
# A killed recorder leaves no swtpm state behind (issue 22, item 6;
# docs/security.md, "swtpm state"): the spawned swtpm dies with it
# (PDEATHSIG), and its state directory (tpm2-00.permall: NV contents and
# hierarchy authValues in clear), whose lock the dead recorder no longer holds,
# is removed by the next spawn. A live recorder's directory, whose lock is
# held, is left alone. A private TMPDIR holds them all.
. "$(dirname "$0")/../lib/common.sh"
need swtpm
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
dirs() { ls -A "$TMPDIR" | tr '\n' ' ' | sed 's/ $//'; }
swtpm_of() { pgrep -f -- "--tpmstate dir=$1" >/dev/null; }

# A: a live recorder, stays running throughout.
"$TPMTRACE" record --spawn-swtpm --db "$T/a.db" --listen "unix:$T/a.sock" 2>"$T/a.err" &
A=$!
PIDS+=($A)
wait_for_socket "$T/a.sock"
a_dir=$TMPDIR/$(dirs)
check "A's swtpm state is in TMPDIR ($a_dir)" [ -f "$a_dir/tpm2-00.permall" ]

# B: killed with SIGKILL while it runs.
"$TPMTRACE" record --spawn-swtpm --db "$T/b.db" --listen "unix:$T/b.sock" 2>"$T/b.err" &
B=$!
PIDS+=($B)
wait_for_socket "$T/b.sock"
b_dir=
for d in "$TMPDIR"/tpmtrace-swtpm-*; do [ "$d" != "$a_dir" ] && b_dir=$d; done
check "B's swtpm state is in TMPDIR ($b_dir)" [ -n "$b_dir" -a -f "$b_dir/tpm2-00.permall" ]
check "B's swtpm runs" swtpm_of "$b_dir"
kill -KILL "$B"
wait "$B" 2>/dev/null
check "B's swtpm dies with B (no orphan)" wait_until '! swtpm_of "$b_dir"' 10

# The next start removes what B left, and nothing of A's.
"$TPMTRACE" record --spawn-swtpm --quiet --db "$T/c.db" -- true 2>"$T/c.err"
rc=$?
check "the next recorder runs ($(cat "$T/c.err"))" [ $rc -eq 0 ]
check "B's state directory is gone after the next start" [ ! -e "$b_dir" ]
check "A's (live, locked) directory is left alone" [ -f "$a_dir/tpm2-00.permall" ]
check "A's swtpm still runs" swtpm_of "$a_dir"
kill -INT "$A"
wait "$A"
rc=$?
check "A stops cleanly ($rc)" [ $rc -eq 0 ]
expect_eq "nothing left in TMPDIR" "$(dirs)" ""
check "no swtpm of this test runs" [ -z "$(pgrep -f -- "--tpmstate dir=$TMPDIR")" ]
finish
