#!/usr/bin/env bash
# Man pages render without a warning (groff -ww, man -l); every subcommand has
# a section in tpmtrace(1); the bash completion offers the subcommands and a
# subcommand's options; 'cmake --install' into a staging DESTDIR puts the
# binary, the pages and the completion in place, and the installed binary runs.
. "$TPMTRACE_TEST_LIB/common.sh"
need groff man cmake
PCAP=$TPMTRACE_SHARED_DATA/pcap/esys-duplicate.int.pcap
[ -f "$PCAP" ] || skip "$PCAP missing (the shared test data)"
MAN=$TPMTRACE_SRC/docs/man
for page in tpmtrace.1 tpm-cuse-proxy.8 tpmtrace-policies.7 tpmtrace-schema.5; do
	check "$page exists" test -f "$MAN/$page"
	groff -ww -man -Tutf8 "$MAN/$page" >"$T/out" 2>"$T/warn"
	expect_eq "groff -ww $page: no warnings" "$(cat "$T/warn")" ""
	check "$page renders text" test "$(wc -l <"$T/out")" -gt 30
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$MAN/$page" >/dev/null 2>"$T/warn"
	expect_eq "man -l $page: no warnings" "$(cat "$T/warn")" ""
done
subs=$("$TPMTRACE" --help | awk '/^Subcommands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
for s in $subs; do
	check "tpmtrace(1) has a section for $s" grep -qx ".SS $s" "$MAN/tpmtrace.1"
done
# tpmtrace(1) mentions every option each subcommand's --help mentions.
for s in $subs; do
	for o in $("$TPMTRACE" "$s" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		[ "$o" = --help ] && continue
		check "tpmtrace(1) mentions $s $o" grep -q -- "${o//-/\\\\-}" "$MAN/tpmtrace.1"
	done
done

# ---- bash completion ----
COMP=$TPMTRACE_SRC/tools/completion/tpmtrace.bash
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

# ---- cmake --install into a staging prefix ----
B=${TPMTRACE_TEST_BUILD:?}
STAGE=$T/stage
DESTDIR=$STAGE cmake --install "$B" --prefix /usr >"$T/install.log" 2>&1
expect_eq "cmake --install exits 0" $? 0
check "binary installed" test -x "$STAGE/usr/bin/tpmtrace"
for p in man1/tpmtrace.1 man8/tpm-cuse-proxy.8 man7/tpmtrace-policies.7 man5/tpmtrace-schema.5; do
	check "man page $p installed" test -f "$STAGE/usr/share/man/$p"
done
check "completion installed" test -f "$STAGE/usr/share/bash-completion/completions/tpmtrace"
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
