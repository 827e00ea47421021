#!/usr/bin/env bash
# tools/test's rule for skips (tools/lib/suite.sh), on a small ctest project:
# a test that exits 77 passes ctest, but under CI=true it fails the run unless
# the allow-list names it (for that build or any) with a reason; outside CI it
# is noted. A failed test fails the run either way.
. "$(dirname "$0")/../lib/common.sh"
need cmake ctest
P=$T/proj
mkdir -p "$P"
cat >"$P/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.13)
project(skips NONE)
enable_testing()
add_test(NAME integration/test_skips COMMAND sh -c "echo 'SKIPPED: no such tool'; exit 77")
set_tests_properties(integration/test_skips PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME integration/test_passes COMMAND true)
add_test(NAME integration/test_fails COMMAND sh -c "exit \${FAIL_IT:-0}")
CM
cmake -S "$P" -B "$P/build" >/dev/null 2>&1
expect_eq "the project configures" "$?" 0
run() { # ENV...: suite on the project, its status and its verdict lines
	(cd "$TPMTRACE_SRC" && env "$@" bash -c '. tools/lib/suite.sh; suite "$0"' "$P/build") \
		>"$T/out" 2>&1
	echo "$?"
}
printf '# none\n' >"$T/none.txt"
printf 'build integration/test_skips the tool is optional here\n' >"$T/allowed.txt"
printf '* integration/test_skips the tool is optional everywhere\n' >"$T/any.txt"
printf 'build-asan integration/test_skips only the sanitizer build may skip it\n' >"$T/other.txt"
expect_eq "CI=true, a skip not allowed: the run fails" "$(run CI=true SKIP_ALLOWED="$T/none.txt")" 1
check "... saying which" grep -q "FAILED: integration/test_skips was skipped" "$T/out"
expect_eq "CI=true, allowed for this build: passes" "$(run CI=true SKIP_ALLOWED="$T/allowed.txt")" 0
check "... with the reason" grep -q "skipped, allowed: the tool is optional here" "$T/out"
expect_eq "CI=true, allowed for any build: passes" "$(run CI=true SKIP_ALLOWED="$T/any.txt")" 0
expect_eq "CI=true, allowed for another build only: fails" "$(run CI=true SKIP_ALLOWED="$T/other.txt")" 1
expect_eq "outside CI a skip is noted, not failed" "$(run CI= SKIP_ALLOWED="$T/none.txt")" 0
check "... noted" grep -q "note: integration/test_skips was skipped" "$T/out"
expect_eq "a failed test fails the run" "$(run CI= SKIP_ALLOWED="$T/any.txt" FAIL_IT=1)" 1
# The real allow-list: every line names a test of this tree with a reason.
while read -r b t reason; do
	case $b in '#'* | '') continue ;; esac
	check "skip-allowed.txt: $t exists and has a reason" \
		[ -n "$reason" -a -e "$TPMTRACE_SRC/tests/${t%%/*}/${t#*/}.sh" ]
done <"$TPMTRACE_SRC/tests/skip-allowed.txt"
finish
