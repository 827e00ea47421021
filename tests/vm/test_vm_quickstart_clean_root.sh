#!/bin/bash
# docs/quickstart.md's set-up block (```sh quickstart-setup), word for word, in
# a fresh Debian 12 root (tests/vm/clean-root.sh) holding the tree's files as
# a clone has them: its apt-get line installs everything CMake requires, and
# the build gives a tpmtrace that runs there. Only sudo is added first (the
# block runs its apt-get through it). Times: tests/vm/README.md.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib/common.sh"
. "$HERE/clean-root.sh" # skips (77) when not root
clean_root_with_tree # R: the root
python3 - "$TPMTRACE_SRC/docs/quickstart.md" >"$R/root/setup.sh" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
print(''.join(re.findall(r'^```sh quickstart-setup\n(.*?)^```', s, re.S | re.M)), end='')
PY
check "quickstart.md has a set-up block" grep -q 'apt-get install' "$R/root/setup.sh"
inroot "$R" "apt-get update -q && apt-get install -y -q sudo" >"$T/sudo.log" 2>&1
expect_eq "sudo installed in the root" "$?" 0
inroot "$R" "cd tpmtrace && DEBIAN_FRONTEND=noninteractive sh -ex /root/setup.sh" >"$T/setup.log" 2>&1
rc=$?
expect_eq "the quickstart's set-up block runs in the clean root" "$rc" 0
[ "$rc" -eq 0 ] || tail -30 "$T/setup.log" >&2
v=$(inroot "$R" "tpmtrace/build/bin/tpmtrace --version" 2>&1)
expect_eq "the tpmtrace it built runs there" "$v" "tpmtrace $(sed -nE 's/^project\(tpmtrace VERSION ([0-9.]+).*/\1/p' "$TPMTRACE_SRC/CMakeLists.txt")"
finish
