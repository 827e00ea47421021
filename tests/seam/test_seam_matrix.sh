#!/usr/bin/env bash
# The seam matrix: every read command (list stats show pcrs predict, predict
# --vendor, advise report diff export verify sql) on every trace of the seam corpus (a trace of
# every kind: tests/seam/corpus.sh), with the checks of tests/lib/seam.py;
# prints the matrix of kinds x commands at the end.
. "$(dirname "$0")/../lib/common.sh"
need python3
C=${TPMTRACE_SEAM_CORPUS:-$TPMTRACE_TEST_BUILD/seam-corpus}
[ -s "$C/corpus.txt" ] || { echo "no seam corpus at $C (ctest runs seam/corpus first)" >&2; exit 1; }
# Read from a path longer than a line, wherever the build is: every line
# that names the database must wrap (only the path itself may pass 100
# columns, as one word).
L=$T/$(printf 'a-directory-with-a-long-name-%.0s' 1 2 3 4)
cp -r "$C" "$L"
python3 "$TPMTRACE_TEST_LIB/seam.py" "$L" "$TPMTRACE" "$T/work"
expect_eq "the seam matrix: every check passed" "$?" 0
cp "$L/matrix.txt" "$C/matrix.txt"
finish
