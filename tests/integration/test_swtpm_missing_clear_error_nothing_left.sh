#!/usr/bin/env bash
# A missing swtpm (issue 22, item 9): record, replay and calibrate say that
# swtpm is not in PATH, exit 1 and leave nothing behind (no
# tpmtrace-swtpm-* directory, no database), instead of pointing to a
# swtpm.log that never existed.
. "$(dirname "$0")/../lib/common.sh"
need swtpm
"$TPMTRACE" record --spawn-swtpm --quiet --db "$T/src.db" -- true 2>"$T/src.err"
rc=$?
check "a trace to replay is recorded (with swtpm in PATH)" [ $rc -eq 0 ]
# A PATH with what the commands need but no swtpm.
mkdir -p "$T/bin" "$T/tmp"
ln -s "$(command -v sh)" "$(command -v true)" "$T/bin/"
nothing_left() { [ -z "$(ls -A "$T/tmp")" ] && [ ! -e "$T/new.db" ]; }
run() { # run NAME ARGS...
	local name=$1
	shift
	TMPDIR=$T/tmp PATH=$T/bin "$TPMTRACE" "$@" >/dev/null 2>"$T/$name.err"
	rc=$?
	check "$name: exit 1 ($rc: $(cat "$T/$name.err"))" [ $rc -eq 1 ]
	check "$name: says swtpm is not in PATH" grep -q "swtpm not found in PATH; install swtpm" "$T/$name.err"
	check "$name: points to no swtpm.log" [ "$(grep -c swtpm.log "$T/$name.err")" -eq 0 ]
	check "$name: nothing left in TMPDIR, no database made ($(ls -A "$T/tmp"))" nothing_left
}
run record record --spawn-swtpm --db "$T/new.db" -- true
run replay replay "$T/src.db"
run calibrate calibrate --db "$T/new.db"
finish
