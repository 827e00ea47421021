#!/usr/bin/env bash
# The CLI's finish: every subcommand that 'tpmtrace --help' lists answers
# --help with exit 0, a usage line, an Options section and an example; each
# option its --help lists (one option table per subcommand drives both) is
# in the generated tpmtrace(1) and bash completion too, and is accepted by
# the parser (an unknown option is a usage error: exit 2 and exactly two
# lines, "tpmtrace SUB: ..." and "Try 'tpmtrace SUB --help'."); the overview
# documents the exit codes. Progress bars appear on a pseudo-terminal only
# (script(1) gives one), not when piped and not under CI.
. "$(dirname "$0")/../lib/common.sh"
need script swtpm tpm2_getrandom sqlite3
SRC=$TPMTRACE_SRC/tools/tpmtrace
PCAP=$TPMTRACE_SHARED_DATA/pcap/esys-duplicate.int.pcap
[ -f "$PCAP" ] || skip "$PCAP missing (the shared test data)"

"$TPMTRACE" --help >"$T/overview"
expect_eq "tpmtrace --help exits 0" $? 0
check "overview documents exit codes" grep -q "0 ok, 1 error, 2 usage" "$T/overview"
"$TPMTRACE" >/dev/null 2>&1
expect_eq "no subcommand is a usage error" $? 2
"$TPMTRACE" no-such-subcommand >/dev/null 2>&1
expect_eq "unknown subcommand is a usage error" $? 2
"$TPMTRACE" --version | grep -q '^tpmtrace [0-9]'
expect_eq "--version" $? 0

subs=$(awk '/^Subcommands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on=0}' "$T/overview")
check "the overview lists subcommands" test -n "$subs"
# Every file cmd_NAME.c is a listed subcommand, and every listed one has a file.
for f in "$SRC"/cmd_*.c; do
	n=$(basename "$f" .c)
	n=${n#cmd_}
	n=${n//_/-}
	check "cmd_$n.c is listed in tpmtrace --help" grep -qx "$n" <<<"$subs"
done

B=${TPMTRACE_TEST_BUILD:?}
MAN1=$B/man/tpmtrace.1
COMP=$B/completion/tpmtrace
check "tpmtrace(1) is generated" test -s "$MAN1"
check "the completion is generated" test -s "$COMP"
options_of() { # the long options a subcommand's --help lists in its Options section,
	# NAME or NAME= for one that takes a value
	"$TPMTRACE" "$1" --help | awk '/^Options:/ {on=1; next} on && /^$/ {on=0} on' |
		grep -oE -- '^  (-[a-z], )?--[a-z][a-z0-9-]*( [^ ])?' |
		sed -E 's/^ *(-[a-z], )?--//; s/ .$/=/' | sort -u
}
section_of() { # a subcommand's section of tpmtrace(1)
	awk -v s=".SS $1" '$0 == s {on=1; next} on && /^\.S[SH] / {on=0} on' "$MAN1"
}
comp_opts_of() { # the options the completion offers for a subcommand
	bash -c 'source "$1"; COMP_WORDS=(tpmtrace "$2" -); COMP_CWORD=2; _tpmtrace
		printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP" "$1"
}

for s in $subs; do
	out=$("$TPMTRACE" "$s" --help)
	expect_eq "$s --help exits 0" $? 0
	check "$s --help starts with usage" grep -q "^usage: tpmtrace $s" <<<"$out"
	check "$s --help has an Options section" grep -q '^Options:' <<<"$out"
	check "$s --help has an example" grep -qiE '^Examples?:' <<<"$out"
	check "$s -h is --help" test "$("$TPMTRACE" "$s" -h)" == "$out"
	opts=$(options_of "$s")
	check "$s: options found in --help" test -n "$opts"
	sec=$(section_of "$s")
	comp=$(comp_opts_of "$s")
	for ov in $opts; do
		o=${ov%=}
		[ "$o" = help ] && continue
		check "tpmtrace(1) has $s --$o" grep -qF -- "\\-\\-${o//-/\\-}" <<<"$sec"
		check "the completion offers $s --$o" grep -qx -- "--$o" <<<"$comp"
		# The parser knows it: given last without its value it says that
		# it needs one; a flag passes and the unknown option after it is
		# what is reported (nothing runs: exit 2 either way).
		if [ "$ov" != "$o" ]; then
			"$TPMTRACE" "$s" "--$o" >/dev/null 2>"$T/err" </dev/null
			check "$s --$o needs a value" grep -q "option '--$o' needs a value" "$T/err"
		else
			"$TPMTRACE" "$s" "--$o" --no-such-option >/dev/null 2>"$T/err" </dev/null
			check "$s --$o is a known flag" grep -q "unknown option '--no-such-option'" "$T/err"
		fi
	done
	"$TPMTRACE" "$s" --no-such-option >/dev/null 2>"$T/err"
	expect_eq "$s --no-such-option exits 2" $? 2
	expect_eq "$s --no-such-option: two lines" "$(cat "$T/err")" \
		"tpmtrace $s: unknown option '--no-such-option'
Try 'tpmtrace $s --help'."
done

# Consistent names: a database is --db or the first operand, a trace is
# --trace, JSON is --json; no subcommand spells them differently.
for s in $subs; do
	for bad in database trace-id traceid json-output format=json; do
		check "$s has no --$bad" bash -c "! '$TPMTRACE' '$s' --help | grep -q -- '--$bad\\b'"
	done
done

# ---- progress bars: on a terminal only ----
{
	env -u CI TPMTRACE_PROGRESS_BYTES=0 script -qec \
		"'$TPMTRACE' import pcap '$PCAP' --db '$T/tty.db'" /dev/null >"$T/tty.out"
	check "import on a pty draws a bar with rate and ETA" grep -q 'import \[.*/s, ETA' "$T/tty.out"
	env -u CI TPMTRACE_PROGRESS_BYTES=0 "$TPMTRACE" import pcap "$PCAP" --db "$T/pipe.db" \
		>"$T/pipe.out" 2>&1
	check "import piped: no bar" bash -c "! grep -q ETA '$T/pipe.out'"
	check "import piped: summary printed" grep -q "trace 1 (complete)" "$T/pipe.out"
	CI=true TPMTRACE_PROGRESS_BYTES=0 script -qec \
		"'$TPMTRACE' import pcap '$PCAP' --db '$T/ci.db'" /dev/null >"$T/ci.out"
	check "import under CI: no bar" bash -c "! grep -q ETA '$T/ci.out'"
	env -u CI script -qec "'$TPMTRACE' import pcap '$PCAP' --db '$T/small.db'" /dev/null \
		>"$T/small.out"
	check "small file: no bar" bash -c "! grep -q ETA '$T/small.out'"
	expect_eq "the pty import stored the same commands" \
		"$(sqlite3 "$T/tty.db" 'SELECT count(*) FROM command')" \
		"$(sqlite3 "$T/pipe.db" 'SELECT count(*) FROM command')"
}
{
	"$TPMTRACE" record --spawn-swtpm --db "$T/r.db" -- sh -c \
		'tpm2_startup -c && tpm2_getrandom 8 >/dev/null && tpm2_getcap properties-fixed >/dev/null' \
		>/dev/null 2>&1
	expect_eq "record -- CMD returns 0 for a command that succeeds" $? 0
	"$TPMTRACE" record --spawn-swtpm --db "$T/r2.db" -- sh -c 'exit 7' >/dev/null 2>&1
	expect_eq "record -- CMD returns CMD's status" $? 7
	env -u CI script -qec "'$TPMTRACE' replay '$T/r.db' --trace 1" /dev/null >"$T/rtty.out"
	check "replay on a pty draws a bar with rate and ETA" grep -q 'replay \[.*/s, ETA' "$T/rtty.out"
	env -u CI "$TPMTRACE" replay "$T/r.db" --trace 1 >"$T/rpipe.out" 2>&1
	check "replay piped: no bar" bash -c "! grep -q ETA '$T/rpipe.out'"
}
finish
