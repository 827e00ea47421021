#!/usr/bin/env bash
# Man pages render without a warning (groff -ww, man -l); tpmtrace(1), which
# the build generates from the option tables (tools/gendoc), has a section per
# subcommand with its synopsis; tpm-cuse-proxy(8), generated from its own
# table, has each form's synopsis and every option; the generated bash
# completions offer the subcommands, a subcommand's options and their values; 'cmake --install' into
# a staging DESTDIR puts the binaries (each once), the pages and the completion
# in place, and the installed binary runs.
. "$(dirname "$0")/../lib/common.sh"
need groff man cmake
PCAP=$TPMTRACE_SHARED_DATA/pcap/esys-duplicate.int.pcap
[ -f "$PCAP" ] || skip "$PCAP missing (the shared test data)"
B=${TPMTRACE_TEST_BUILD:?}
MAN=$TPMTRACE_SRC/docs/man
for page in "$B/man/tpmtrace.1" "$B/man/tpm-cuse-proxy.8" "$MAN/tpmtrace-policies.7" "$MAN/tpmtrace-schema.5"; do
	p=$(basename "$page")
	check "$p exists" test -f "$page"
	groff -ww -man -Tutf8 "$page" >"$T/out" 2>"$T/warn"
	expect_eq "groff -ww $p: no warnings" "$(cat "$T/warn")" ""
	check "$p renders text" test "$(wc -l <"$T/out")" -gt 30
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" >/dev/null 2>"$T/warn"
	expect_eq "man -l $p: no warnings" "$(cat "$T/warn")" ""
done
check "tpmtrace(1) is no checked-in copy" test ! -e "$MAN/tpmtrace.1"
check "tpm-cuse-proxy(8) is no checked-in copy" test ! -e "$MAN/tpm-cuse-proxy.8"
MANWIDTH=200 man -l "$B/man/tpm-cuse-proxy.8" 2>/dev/null | col -b >"$T/cuse.txt"
for form in "--backend DEVICE|TCTI (--db FILE | --no-record)" "--restore [--name NAME]" \
	"--probe DEVICE" "--bench LIST [--bench-command CMD]"; do
	check "tpm-cuse-proxy(8) has the synopsis tpm-cuse-proxy $form" \
		grep -qF -- "tpm-cuse-proxy $form" "$T/cuse.txt"
done
if [ -x "$B/bin/tpm-cuse-proxy" ]; then
	cuse_opts=$("$B/bin/tpm-cuse-proxy" --help | awk '/^Options:/ {on=1; next} on && /^$/ {on=0} on' |
		grep -oE -- '--[a-z][a-z-]*' | sort -u)
	check "tpm-cuse-proxy --help lists options" test "$(wc -l <<<"$cuse_opts")" -ge 20
	for o in $cuse_opts; do
		check "tpm-cuse-proxy(8) describes $o" grep -qE -- "^ +(-[a-z], )?$o( |\$)" "$T/cuse.txt"
	done
fi
subs=$("$TPMTRACE" --help | awk '/^Subcommands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
for s in $subs; do
	check "tpmtrace(1) has a section for $s" grep -qx ".SS $s" "$B/man/tpmtrace.1"
	check "tpmtrace(1) has the synopsis of $s" grep -qx ".SY \"tpmtrace $s\"" "$B/man/tpmtrace.1"
done
MANWIDTH=200 man -l "$B/man/tpmtrace.1" 2>/dev/null | col -b >"$T/man.txt"
check "tpmtrace(1) shows report's -o, --output FILE" grep -q -- '-o, --output FILE' "$T/man.txt"

# ---- bash completion ----
COMP=$B/completion/tpmtrace
check "no checked-in completion" test ! -e "$TPMTRACE_SRC/tools/completion/tpmtrace.bash"
complete_words() { # complete_words WORD... : what the completion offers for the last word
	bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_tpmtrace; printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP" "$@"
}
check "completion offers report" grep -qx report <<<"$(complete_words "$TPMTRACE" rep)"
check "completion offers every subcommand" test "$(complete_words "$TPMTRACE" "" | grep -c .)" -ge "$(wc -w <<<"$subs")"
check "completion offers report --max-marks" grep -qx -- --max-marks <<<"$(complete_words "$TPMTRACE" report --max)"
check "completion offers policies" grep -qx linux-6.10 <<<"$(complete_words "$TPMTRACE" replay --policy linux-6.1)"
check "replay --policy offers all (every preset)" grep -qx all <<<"$(complete_words "$TPMTRACE" replay --policy a)"
check "predict --policy offers all" grep -qx all <<<"$(complete_words "$TPMTRACE" predict --policy a)"
for k in pcap ima tcglog swtpm-log ftrace; do
	check "import <TAB> offers $k" grep -qx -- "$k" <<<"$(complete_words "$TPMTRACE" import "")"
done
for a in import export show list learn; do
	check "profile <TAB> offers $a" grep -qx -- "$a" <<<"$(complete_words "$TPMTRACE" profile "")"
done
check "--payloads offers redacted" grep -qx redacted <<<"$(complete_words "$TPMTRACE" record --payloads r)"
check "--trace offers latest-replay" grep -qx latest-replay <<<"$(complete_words "$TPMTRACE" stats --trace latest-)"
check "report -o completes files" grep -q . <<<"$(cd "$TPMTRACE_SRC" && complete_words "$TPMTRACE" report -o READ)"
CCOMP=$B/completion/tpm-cuse-proxy
cuse_complete() { # cuse_complete WORD... : what tpm-cuse-proxy's completion offers
	bash -c '
		source "$1"; shift
		COMP_WORDS=(tpm-cuse-proxy "$@"); COMP_CWORD=$#
		_tpm_cuse_proxy; printf "%s\n" "${COMPREPLY[@]}"' _ "$CCOMP" "$@"
}
check "tpm-cuse-proxy completion offers --takeover" grep -qx -- --takeover <<<"$(cuse_complete --take)"
check "... --payloads values" grep -qx full <<<"$(cuse_complete --payloads f)"
check "... --bench-command values" grep -qx getrandom <<<"$(cuse_complete --bench-command g)"
check "... --backend devices" grep -qx /dev/tpmrm0 <<<"$(cuse_complete --backend /dev/tpmr)"
if [ -n "${cuse_opts:-}" ]; then
	offered=$(cuse_complete -)
	for o in $cuse_opts; do
		check "tpm-cuse-proxy completion offers $o" grep -qx -- "$o" <<<"$offered"
	done
fi

# ---- cmake --install into a staging prefix ----
STAGE=$T/stage
DESTDIR=$STAGE cmake --install "$B" --prefix /usr >"$T/install.log" 2>&1
expect_eq "cmake --install exits 0" $? 0
check "binary installed" test -x "$STAGE/usr/bin/tpmtrace"
if [ -f "$B/bin/tpm-cuse-proxy" ]; then
	check "tpm-cuse-proxy installed in bin (where its unit runs it)" test -x "$STAGE/usr/bin/tpm-cuse-proxy"
	check "tpm-cuse-proxy installed once (not in sbin)" test ! -e "$STAGE/usr/sbin/tpm-cuse-proxy"
fi
check "the generator is not installed" test ! -e "$STAGE/usr/bin/tpmtrace-gendoc"
expect_eq "installed tpmtrace(1) is the generated one" "$(cmp "$STAGE/usr/share/man/man1/tpmtrace.1" "$B/man/tpmtrace.1" && echo same)" same
expect_eq "installed completion is the generated one" "$(cmp "$STAGE/usr/share/bash-completion/completions/tpmtrace" "$COMP" && echo same)" same
for p in man1/tpmtrace.1 man8/tpm-cuse-proxy.8 man7/tpmtrace-policies.7 man5/tpmtrace-schema.5; do
	check "man page $p installed" test -f "$STAGE/usr/share/man/$p"
done
check "completion installed" test -f "$STAGE/usr/share/bash-completion/completions/tpmtrace"
expect_eq "installed tpm-cuse-proxy(8) is the generated one" "$(cmp "$STAGE/usr/share/man/man8/tpm-cuse-proxy.8" "$B/man/tpm-cuse-proxy.8" && echo same)" same
expect_eq "installed tpm-cuse-proxy completion is the generated one" "$(cmp "$STAGE/usr/share/bash-completion/completions/tpm-cuse-proxy" "$CCOMP" && echo same)" same
if [ -d "$TPMTRACE_SRC/tools/systemd" ] && ls "$TPMTRACE_SRC"/tools/systemd/*.service >/dev/null 2>&1; then
	for u in "$TPMTRACE_SRC"/tools/systemd/*.service; do
		check "unit $(basename "$u") installed" test -f "$STAGE/usr/lib/systemd/system/$(basename "$u")"
	done
fi
expect_eq "installed binary runs" "$("$STAGE/usr/bin/tpmtrace" --version)" "$("$TPMTRACE" --version)"
"$STAGE/usr/bin/tpmtrace" import pcap "$PCAP" --db "$T/i.db" >/dev/null
expect_eq "installed binary imports" $? 0
check "installed binary reports" "$STAGE/usr/bin/tpmtrace" report "$T/i.db" -o "$T/i.html"
check "report written" grep -q 'id="timeline"' "$T/i.html"
check "installed page renders" bash -c "MANWIDTH=80 man -l '$STAGE/usr/share/man/man1/tpmtrace.1' | grep -q 'EXIT STATUS'"
finish
