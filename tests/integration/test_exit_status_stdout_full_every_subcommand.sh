#!/usr/bin/env bash
# Issue 22 item 8: a command whose standard output fails (>/dev/full) exits 1
# with "tpmtrace: cannot write standard output: No space left on device",
# never 0. Every subcommand that `tpmtrace --help` lists is run with --help
# (so a new subcommand is covered without a change here) and with its usual
# output; a subcommand missing from the table below fails the test, unless it
# is one whose usual output is not on standard output (NO_STDOUT).
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3
cd "$T" || exit 1

"$TPMTRACE" record --spawn-swtpm --db demo.db --quiet -- "$TPMTRACE_SRC/tools/demo-workload" 10 >/dev/null 2>rec.err
expect_eq "setup: demo recorded" $? 0
"$TPMTRACE" replay demo.db --policy password >/dev/null 2>rep.err
expect_eq "setup: demo replayed" $? 0
cp demo.db copy.db
PROFILE=ifx-slb9670-tpmscan

# The usual output of each subcommand, one invocation a line.
USUAL=(
	"list demo.db" "list demo.db --json"
	"stats demo.db" "stats demo.db --json" "stats demo.db --by origin"
	"show demo.db" "show demo.db -V" "show demo.db --json"
	"diff demo.db 1 2" "diff demo.db 1 2 --json"
	"sql demo.db 'SELECT count(*) FROM command'"
	"verify demo.db"
	"pcrs demo.db" "pcrs demo.db --json"
	"predict demo.db --profile $PROFILE" "predict demo.db --profile $PROFILE --json"
	"advise demo.db --trace 1 --profile $PROFILE" "advise demo.db --trace 1 --profile $PROFILE --json"
	"replay copy.db --policy password"
	"strip copy.db --json"
	"attribute --kernel-cmdline"
	"profile list" "profile show $PROFILE" "profile export $PROFILE" "profile learn demo.db -o -"
	"report demo.db -o -"
	"export demo.db --csv -" "export demo.db --jsonl -"
)
# Their own output is on standard error (or the child's, for record -- CMD):
# covered by --help.
NO_STDOUT=" record vm-record import calibrate "
# Their usual output needs a PostgreSQL server: test_fleet_push_faults runs
# them against one with standard output on /dev/full.
NEEDS_SERVER=" push fleet "

subs=$("$TPMTRACE" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
check "the subcommands are listed" test -n "$subs"

# full ARGS...: runs tpmtrace ARGS with standard output on /dev/full.
full() {
	local what=$*
	"$TPMTRACE" "$@" >/dev/full 2>err
	local rc=$?
	check "'$what' >/dev/full exits non-zero (got $rc)" test $rc -ne 0 -a $rc -lt 128
	check "'$what' >/dev/full says why ($(head -c 300 err))" grep -q "standard output: No space left on device" err
}

for args in --help help --version; do
	full "$args"
done
for s in $subs; do
	full "$s" --help
	covered=0
	case $NO_STDOUT$NEEDS_SERVER in *" $s "*) covered=1 ;; esac
	for u in "${USUAL[@]}"; do [ "${u%% *}" = "$s" ] && covered=1; done
	check "$s: its usual output is in the table (or it writes none to stdout)" test $covered = 1
done
for u in "${USUAL[@]}"; do
	eval "args=($u)"
	# The same command to a working output succeeds: the failure above is
	# the full device's, not a wrong invocation.
	"$TPMTRACE" "${args[@]}" >ok.out 2>err
	rc=$?
	expect_eq "'$u' exits 0 with a working standard output ($(head -c 200 err))" $rc 0
	check "'$u' writes to standard output" test -s ok.out
	full "${args[@]}"
done
finish
