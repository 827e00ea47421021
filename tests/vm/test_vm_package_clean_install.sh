#!/bin/bash
# The amd64 package on a clean system: tools/package amd64 builds it; a fresh
# Debian 12 root (tests/vm/clean-root.sh: mmdebstrap --variant=apt plus
# man-db, cached as a tarball keyed on its recipe) gets it by `apt-get install ./tpmtrace_*.deb` in a
# chroot, which fetches its Depends and Recommends (swtpm) from Debian; then,
# in the root: `tpmtrace record --spawn-swtpm -- tpm2_getrandom 8`, `stats`,
# `report -o r.html` and `man tpmtrace`.
# Cold (base root made and cached) and warm times: tests/vm/README.md.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib/common.sh"
. "$HERE/clean-root.sh" # skips (77) when not root

# The package, built from this tree by the one command.
TPMTRACE_PACKAGE_OUT=$T/pkg "$TPMTRACE_SRC/tools/package" amd64 >"$T/package.log" 2>&1
rc=$?
expect_eq "tools/package amd64 exits 0 (lintian included)" "$rc" 0
[ "$rc" -eq 0 ] || { tail -30 "$T/package.log" >&2; finish; }
debs=("$T"/pkg/tpmtrace_*_amd64.deb)
expect_eq "one amd64 package" "${#debs[@]}" 1
deb=${debs[0]}
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libtss2-tctildr0 libsqlite3-0 libfuse3-3 libbpf1; do
	check "Depends names $lib (dpkg-shlibdeps)" grep -q "$lib (" <<<"$depends"
done
# libcrypto is loaded at its first use (model/tpm/crypto_lib.h): named by hand.
check "Depends names libssl3" grep -q "libssl3 (>= 3.0.0)" <<<"$depends"
# libpq and libpcap are loaded by the commands that use them (db/pg/pq.h,
# recorder/import/pcap_lib.h): recommended.
check "Recommends names libpq5 and libpcap0.8" \
	grep -q "libpq5 (>= 14), libpcap0.8" <<<"$(dpkg-deb -f "$deb" Recommends)"
check "the version names the commit" \
	grep -q "~git.*\.$(git -C "$TPMTRACE_SRC" rev-parse --short=7 HEAD)" <<<"$(dpkg-deb -f "$deb" Version)"
files=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/tpmtrace ./usr/bin/tpm-cuse-proxy ./usr/share/man/man1/tpmtrace.1.gz \
	./usr/share/man/man8/tpm-cuse-proxy.8.gz ./usr/share/bash-completion/completions/tpmtrace \
	./lib/systemd/system/tpm-cuse-proxy.service ./usr/libexec/tpmtrace/tpmtrace-kernel-handover \
	./usr/lib/dracut/modules.d/90tpmtrace-kernel/module-setup.sh \
	./usr/share/initramfs-tools/hooks/tpmtrace-kernel ./usr/share/doc/tpmtrace/copyright; do
	check "the package holds $f" grep -qxF "$f" <<<"$files"
done

# The clean root (tests/vm/clean-root.sh: cached, about 2 min cold).
R=$T/root
clean_root "$R"
expect_eq "the clean Debian 12 root is made (mmdebstrap)" "$?" 0
[ -d "$R/root" ] || finish
check "the clean root has no tpmtrace, swtpm or libtss2" \
	test ! -e "$R/usr/bin/tpmtrace" -a ! -e "$R/usr/bin/swtpm" -a -z "$(ls "$R"/usr/lib/x86_64-linux-gnu/libtss2* 2>/dev/null)"
cp "$deb" "$R/tmp/"
inroot "$R" "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	/tmp/$(basename "$deb") tpm2-tools" >"$T/install.log" 2>&1
rc=$?
expect_eq "apt-get install ./tpmtrace_*.deb in the clean root" "$rc" 0
[ "$rc" -eq 0 ] || { tail -30 "$T/install.log" >&2; finish; }
check "apt-get installed swtpm (Recommends)" test -x "$R/usr/bin/swtpm"

inroot "$R" "tpmtrace record --spawn-swtpm --db r.db -- tpm2_getrandom 8" >"$T/record.log" 2>&1
expect_eq "tpmtrace record --spawn-swtpm -- tpm2_getrandom 8 in the root" "$?" 0
# The trace holds the GetRandom the client sent (its reply: 8 bytes).
n=$(inroot "$R" "tpmtrace sql r.db \"SELECT count(*) FROM command_named WHERE name = 'GetRandom'\" \
	--no-header" 2>&1)
expect_eq "the recorded trace holds one GetRandom" "$n" 1
inroot "$R" "tpmtrace stats r.db" >"$T/stats.txt" 2>&1
expect_eq "tpmtrace stats exits 0" "$?" 0
check "stats lists GetRandom" grep -q GetRandom "$T/stats.txt"
inroot "$R" "tpmtrace report r.db -o r.html" >"$T/report.log" 2>&1
expect_eq "tpmtrace report -o r.html exits 0" "$?" 0
check "the report names GetRandom" grep -q GetRandom "$R/root/r.html"
check "the report is 0600" test "$(stat -c %a "$R/root/r.html")" = 600
# push loads libpq, installed as recommended: it gets as far as the server.
inroot "$R" "tpmtrace push r.db 'postgresql:///t?host=/nonexistent'" >"$T/push.log" 2>&1
check "push in the root loads libpq5 and tries the server ($(head -c 300 "$T/push.log"))" \
	grep -q "cannot connect to the server" "$T/push.log"
page=$(inroot "$R" "man -w tpmtrace" 2>&1)
expect_eq "man finds tpmtrace(1)" "$page" /usr/share/man/man1/tpmtrace.1.gz
inroot "$R" "MANWIDTH=80 man tpmtrace 2>/dev/null | head -20" >"$T/man.txt"
check "man tpmtrace shows its NAME section" grep -q "tpmtrace - " "$T/man.txt"
check "the bash completion is where bash-completion looks" \
	test -s "$R/usr/share/bash-completion/completions/tpmtrace"
finish
