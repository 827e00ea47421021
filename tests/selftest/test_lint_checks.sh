#!/usr/bin/env bash
# The static side of "every check can fail" (tests/README.md): no shell test
# has a check continued by && or || outside it (`check "…" [ A ] && [ B ]`
# checks only A), and no check or expect_eq has a command substitution in its
# description while it reads $? (the substitution resets it). The lint itself
# must find each bad form in a fixture and leave the good ones alone.
. "$(dirname "$0")/../lib/common.sh"
need python3
LINT=$TPMTRACE_TEST_LIB/lint_checks.py
S=$TPMTRACE_SRC/tests

python3 "$LINT" "$S"/integration/*.sh "$S"/vm/*.sh "$S"/vm/vm-run "$S"/selftest/*.sh "$S"/lib/*.sh \
	>"$T/tree.out"
rc=$?
cat "$T/tree.out"
expect_eq "the suite's checks: none compound, none losing \$? ($(wc -l <"$T/tree.out") found)" "$rc" 0
check "the lint read the suite" test "$(ls "$S"/integration/*.sh | wc -l)" -ge 30

cat >"$T/fixture.sh" <<'FIXTURE'
check "bad 1" [ "$x" = 1 ] && [ "$y" = 2 ]
check "bad 2" \
	[ "$x" = 1 ] ||
	[ "$y" = 2 ]
check "bad 3 ($(cat err))" test $? -eq 0
expect_eq "bad 4 ($(cat "$T/err"))" "$?" 0
for f in a b; do check "bad 5 $f" test -e "$f" && echo yes; done
check "good 1" [ "$x" = 1 -a "$y" = 2 ]
check "good 2" bash -c "[ a = a ] && [ b = b ]"
rc=$?
check "good 3 ($(cat err))" [ "$rc" = 0 ]
{ check "good 4" false; continue; }
check "good 5 $(echo a && echo b)" true # a comment && [ x ]
[ -n "$x" ] && check "good 6" true
cat <<EOT
check "good 7: a heredoc line" [ a ] && [ b ]
EOT
FIXTURE
python3 "$LINT" "$T/fixture.sh" >"$T/fixture.out"
rc=$?
cat "$T/fixture.out"
expect_eq "the lint fails on the fixture" "$rc" 1
expect_eq "it finds exactly the bad forms" \
	"$(sed -E 's/^[^:]*:([0-9]+): ([a-z]+):.*/\1 \2/' "$T/fixture.out" | tr '\n' ',')" \
	"1 compound,2 compound,5 status,6 status,7 compound,"
finish
