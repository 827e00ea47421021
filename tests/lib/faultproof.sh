#!/usr/bin/env bash
# A fault proof (tests/README.md, "Every check can fail"): runs one test with a
# fault made to happen -- a test-only fault switch (TPMTRACE_FAULT_*), a
# deliberately broken tpmtrace, a broken source fixture -- and passes only when
# the test then fails the way it must: exit status 1 and a FAILED (FAIL in the
# VM tier) line matching each expected pattern. A proof whose test skips
# (exit 77: a tool is missing) is skipped too.
#
#   faultproof.sh [OPTION]... -- TEST_SCRIPT
#     -e REGEX              a failed check that must be reported (repeatable)
#     --status N            the test's exit status instead (77: it must skip),
#                           with -e matched against any line of its output
#     --env VAR=VALUE       set for the test (repeatable): a fault switch, or a
#                           knob that makes its work smaller
#     --broken REGEX:ACTION the test's tpmtrace is tests/lib/broken-tpmtrace:
#                           commands whose arguments match REGEX fail (ACTION
#                           fail), print half their output (truncate), say
#                           yes (succeed), or lose an option (drop=, drop2=)
#     --src-fixture SCRIPT  TPMTRACE_SRC is a copy of the source tree's tools/
#                           and tests/ that SCRIPT (run in the copy) breaks
#     --as USER             run the test as USER (setpriv)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
patterns=()
envs=()
status=1
broken=
fixture=
as=
while [ $# -gt 0 ]; do
	case $1 in
	-e) patterns+=("$2"); shift 2 ;;
	--status) status=$2; shift 2 ;;
	--env) envs+=("$2"); shift 2 ;;
	--broken) broken=$2; shift 2 ;;
	--src-fixture) fixture=$2; shift 2 ;;
	--as) as=$2; shift 2 ;;
	--) shift; break ;;
	*) echo "faultproof.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
script=${1:?faultproof.sh: no test script}
W=$(mktemp -d "${TMPDIR:-/tmp}/tpmtrace-proof.XXXXXX")
trap 'rm -rf "$W"' EXIT
if [ -n "$broken" ]; then
	envs+=("TPMTRACE_REAL=$TPMTRACE" "TPMTRACE=$HERE/broken-tpmtrace"
		"BROKEN_MATCH=${broken%:*}" "BROKEN_ACTION=${broken##*:}")
fi
if [ -n "$fixture" ]; then
	mkdir -p "$W/src"
	cp -r "$TPMTRACE_SRC/tools" "$TPMTRACE_SRC/tests" "$W/src/"
	(cd "$W/src" && eval "$fixture") || { echo "faultproof.sh: the fixture failed: $fixture" >&2; exit 1; }
	envs+=("TPMTRACE_SRC=$W/src")
fi
wrap=()
if [ -n "$as" ]; then
	chmod 755 "$W"
	wrap=(setpriv --reuid="$as" --regid="$(id -gn "$as")" --clear-groups env TMPDIR="$W")
	# The source and build trees may sit where USER cannot read them (a
	# clone in a mktemp -d directory, mode 0700): the test runs from a copy
	# of tests/ and of tpmtrace that USER can read.
	if ! "${wrap[@]}" test -r "$script" -a -x "$TPMTRACE"; then
		tier=$(basename "$(dirname "$script")")
		mkdir -p "$W/src/bin" && cp -r "$(dirname "$(dirname "$script")")" "$W/src/" &&
			cp "$TPMTRACE" "$W/src/bin/tpmtrace" && chmod -R a+rX "$W/src" ||
			{ echo "faultproof.sh: cannot copy the tests for $as" >&2; exit 1; }
		script=$W/src/tests/$tier/$(basename "$script")
		envs+=("TPMTRACE_TEST_LIB=$W/src/tests/lib" "TPMTRACE_SRC=$W/src")
		[ -n "$broken" ] || envs+=("TPMTRACE=$W/src/bin/tpmtrace")
	fi
fi
echo "fault proof: ${envs[*]:-} bash $script"
"${wrap[@]}" env "${envs[@]}" bash "$script" >"$W/out" 2>&1
rc=$?
if [ "$rc" = 77 ] && [ "$status" != 77 ]; then
	grep '^SKIP' "$W/out"
	exit 77
fi
ok=1
if [ "$rc" != "$status" ]; then
	echo "PROOF FAILED: the test exited $rc, expected $status" >&2
	ok=0
fi
if [ "$status" = 1 ]; then
	grep -E '^(FAILED|FAIL):' "$W/out" >"$W/failed"
else
	cp "$W/out" "$W/failed"
fi
for p in "${patterns[@]}"; do
	if grep -Eq -- "$p" "$W/failed"; then
		echo "caught as expected: $(grep -E -m1 -- "$p" "$W/failed")"
	else
		echo "PROOF FAILED: no failed check matches '$p'" >&2
		ok=0
	fi
done
if [ $ok = 0 ]; then
	echo "--- the test's output ---" >&2
	tail -n 40 "$W/out" >&2
	exit 1
fi
echo "fault proof holds: $(grep -Ec '^(FAILED|FAIL):' "$W/out") checks failed, exit status $rc"
