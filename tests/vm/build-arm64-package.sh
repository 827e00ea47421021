#!/bin/bash
# tpmtrace's arm64 package (tools/package arm64: cross-built, lintian
# included) built once into TPMTRACE_TEST_BUILD/package-arm64 before the
# tests of the arm64 guest (tests/vm/arm64.sh), which run its binaries:
# ctest's fixture vm_arm64_package (tests/CMakeLists.txt). Prints the package
# and the time it took.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"
[ "$(id -u)" = 0 ] || { vm_skip "tools/package installs the cross tool chain: root only"; exit 77; }
t0=$(date +%s)
vm_arm64_package || exit 1
dpkg-deb -f "$VM_ARM64_DEB" Package Version Architecture Depends
echo "$VM_ARM64_DEB ready in $(($(date +%s) - t0)) s"
