# suite (sourced by tools/test): ctest in one build directory, and what CI
# makes of its skips. ctest counts a test that exits 77 as skipped and its own
# exit status stays 0; under CI=true a skip fails the run unless the allow-list
# (SKIP_ALLOWED, default tests/skip-allowed.txt) has a line "BUILD TEST REASON"
# for it (BUILD: the directory's name, or * for any). tests/selftest/
# test_ci_skips.sh runs it on a small ctest project.

# skip_allowed BUILD TEST: the allow-list has a line for TEST in BUILD.
skip_allowed() {
	awk -v b="$(basename "$1")" -v t="$2" '!/^#/ && NF >= 3 && ($1 == b || $1 == "*") && $2 == t { f = 1 }
		END { exit !f }' "${SKIP_ALLOWED:-tests/skip-allowed.txt}"
}

# suite BUILD CTEST-ARGS...: ctest in BUILD (output also in BUILD/ctest.log);
# status 1 on a failed test, and under CI=true on a skip not allowed.
suite() {
	local dir=$1 rc=0 t reason
	shift
	# shellcheck disable=SC2086 # TPMTRACE_TEST_ARGS is a list of words
	(cd "$dir" && ctest --output-on-failure -j "${jobs:-2}" "$@" ${TPMTRACE_TEST_ARGS:-}) 2>&1 |
		tee "$dir/ctest.log"
	[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	for t in $(sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (Skipped)$/\1/p' "$dir/ctest.log"); do
		if skip_allowed "$dir" "$t"; then
			reason=$(awk -v t="$t" '!/^#/ && $2 == t { $1 = $2 = ""; print substr($0, 3); exit }' \
				"${SKIP_ALLOWED:-tests/skip-allowed.txt}")
			echo "== $dir: $t skipped, allowed: $reason"
		elif [ "${CI:-}" = true ]; then
			echo "== $dir: FAILED: $t was skipped, and ${SKIP_ALLOWED:-tests/skip-allowed.txt} does not allow it"
			rc=1
		else
			echo "== $dir: note: $t was skipped (under CI=true that fails the run)"
		fi
	done
	return $rc
}
