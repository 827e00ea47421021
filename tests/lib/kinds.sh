# shellcheck shell=bash
# A database of several trace kinds (sourced after common.sh; the trace-kind
# tests: docs/schema.md "Trace kinds"). kinds_db DB N: trace 1 a recording of
# tools/demo-workload N through a spawned swtpm, trace 2 its
# session-per-command rewrite (advise --rewrite, kind derived, as advise
# --prove and tools/demo make one), trace 3 a replay of it under linux-6.10.
kinds_db() {
	"$TPMTRACE" record --spawn-swtpm --db "$1" --quiet -- "$TPMTRACE_SRC/tools/demo-workload" "$2" \
		>/dev/null 2>"$T/rec.err"
	expect_eq "setup: demo recorded" $? 0
	"$TPMTRACE" advise "$1" --trace 1 --rewrite session-per-command >/dev/null 2>"$T/err"
	expect_eq "setup: the session-per-command rewrite made" $? 0
	"$TPMTRACE" replay "$1" --trace 1 --policy linux-6.10 >/dev/null 2>"$T/err"
	expect_eq "setup: a replay made" $? 0
}
