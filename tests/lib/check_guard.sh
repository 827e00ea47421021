# Run-time guard for the checks of the shell tests (sourced by common.sh and
# tests/vm/harness.sh). `check "what" [ A ] && [ B ]` is parsed by the shell
# as `(check "what" [ A ]) && [ B ]`: only A is checked and B's verdict is
# thrown away. A DEBUG trap sees the first command that runs after a check
# returns; when that command is a test ([, [[, test) on the lines of the
# check's own statement, it is a condition that escaped the check, and the
# test counts a failure naming the place. (The static side of the same rule:
# tests/selftest/test_lint_checks.sh.)
#
# The including library defines check_escaped MESSAGE (count a failure) and
# calls check_guard_arm at the start of its check.

_CG_SRC=
_CG_LINE=
_CG_WHAT=

# check_guard_arm DESCRIPTION: called by check (the caller's caller is the test).
check_guard_arm() {
	_CG_SRC=${BASH_SOURCE[2]:-}
	_CG_LINE=${BASH_LINENO[1]:-}
	_CG_WHAT=$1
}

# The last line of the statement that starts at line $2 of file $1: lines
# ending in a backslash continue it.
_check_guard_end() {
	awk -v s="$2" 'NR >= s { if (!/\\$/) { print NR; exit } }' "$1"
}

_check_guard() {
	[ -n "$_CG_LINE" ] || return 0
	local src=$_CG_SRC line=$_CG_LINE what=$_CG_WHAT
	_CG_LINE=
	case $BASH_COMMAND in
	'[ '* | '[[ '* | 'test '*) ;;
	*) return 0 ;;
	esac
	[ "${BASH_SOURCE[1]:-}" = "$src" ] || return 0
	local at=${BASH_LINENO[0]} end
	[ "$at" -ge "$line" ] || return 0
	end=$(_check_guard_end "$src" "$line")
	[ -n "$end" ] && [ "$at" -le "$end" ] || return 0
	check_escaped "a condition outside the check \"$what\" ($src:$at: $BASH_COMMAND): write it as one command (a function, or one [ ... -a ... ])"
}
trap _check_guard DEBUG
