#!/bin/bash
# README's first command, ./tools/demo, in a fresh Debian 12 root
# (tests/vm/clean-root.sh) holding the tree's files as a clone has them: it
# installs what the demo needs (TPMTRACE_DEMO_PACKAGES) and nothing of the
# test chain, builds, and runs the main job to its reports. Prints what it
# installed and how long it took (tests/vm/README.md: "The clean-system
# tests"; no time is asserted).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib/common.sh"
. "$HERE/clean-root.sh" # skips (77) when not root
clean_root_with_tree # R: the root
cmd=$(sed -n 's/^\(\.\/tools\/demo\)\( .*\)\{0,1\}$/\1/p' "$TPMTRACE_SRC/README.md" | head -n1)
expect_eq "README names ./tools/demo" "$cmd" ./tools/demo
pkgs() { inroot "$R" "dpkg-query -W -f='\${Package}\\n'" | sort; }
pkgs >"$T/before"
t0=$(date +%s)
inroot "$R" "cd tpmtrace && $cmd" >"$T/demo.log" 2>&1
rc=$?
t1=$(date +%s)
expect_eq "./tools/demo exits 0 in the clean root" "$rc" 0
[ "$rc" -eq 0 ] || tail -40 "$T/demo.log" >&2
pkgs >"$T/after"
comm -13 "$T/before" "$T/after" >"$T/installed"
echo "./tools/demo in a fresh Debian 12 root: $((t1 - t0)) s," \
	"$(wc -l <"$T/installed") packages installed (dependencies included)"
echo "asked for: $(grep -o 'installing .*' "$T/demo.log" | head -n1)"
for p in qemu-system-x86 qemu-system-arm chromium postgresql clang valgrind tshark lintian \
	mmdebstrap busybox-static; do
	check "the demo does not install $p" test -z "$(grep -x "$p" "$T/installed")"
done
for p in swtpm tpm2-tools sqlite3 cmake libtss2-dev; do
	check "the demo installed $p" grep -qx "$p" "$T/installed"
done
for s in "== Per-command latency" "== Predicted on an Infineon SLB9670" "linux-6.10 TPM time: predicted" \
	"== What to change" "== Report:"; do
	check "the demo printed '$s'" grep -qF "$s" "$T/demo.log"
done
check "the demo wrote its report" test -s "$R/root/tpmtrace/tpmtrace-demo.html"
check "and the linux-6.10 replay's report" test -s "$R/root/tpmtrace/tpmtrace-demo-linux-6.10.html"
finish
