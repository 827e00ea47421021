#!/bin/bash
# record --kernel on arm64: the boot of test_vm_kernel_record.sh in the arm64
# guest (tests/vm/arm64.sh: qemu-system-aarch64 -M virt, Debian 12's arm64
# kernel, swtpm behind tpm-tis-device) with the binaries of tpmtrace's arm64
# package, under the host's vm-record: every command the host relayed from
# the guest recorder's first to its last is in the guest trace, in order,
# byte for byte; IMA's extends, hwrng reads, tpm2-tools on /dev/tpmrm0 and
# /dev/tpm0 and the resource manager's swaps told apart (origins); nothing
# dropped; the kprobes gone after it; origins from the kernel stack alone.
VM_ARCH=arm64
# shellcheck source=test_vm_kernel_record.sh
. "$(cd "$(dirname "$0")" && pwd)/test_vm_kernel_record.sh"
