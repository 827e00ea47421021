#!/bin/bash
# The kernels the VM tier builds from source (tests/vm/linux-6.12.recipe,
# every variant of each architecture: the x86 guest's and the arm64 guest's),
# built into the cache once before the tests that boot them: ctest's fixture
# vm_kernels (tests/CMakeLists.txt). A cold build takes tens of minutes on two
# cores, longer than one test's timeout, so it is a step of its own with a
# timeout of its own; a warm cache returns at once. Prints the cache
# directories and the build times.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"
VM_CACHE=${TPMTRACE_VM_CACHE:-${HOME:-/root}/.cache/tpmtrace-vm}
mkdir -p "$VM_CACHE" || { vm_skip "cannot create cache dir $VM_CACHE"; exit 77; }
t0=$(date +%s)
for VM_ARCH in amd64 arm64; do
	vm_kernel_build
	rc=$?
	[ $rc = 0 ] || exit $rc
	for v in $(vm_kernel_variants); do
		k=$(find "$VM_KBUILD_DIR/$v/boot" -name 'vmlinuz-*' 2>/dev/null | head -n1)
		[ -n "$k" ] || { echo "FAIL: no $VM_ARCH kernel of variant $v in $VM_KBUILD_DIR"; exit 1; }
		echo "$VM_ARCH, variant $v: $k"
	done
	[ -s "$VM_KBUILD_DIR/times" ] && sed "s/^/$VM_ARCH: /" "$VM_KBUILD_DIR/times"
done
echo "kernels ready in $(($(date +%s) - t0)) s (cache $VM_CACHE/linux-build)"
