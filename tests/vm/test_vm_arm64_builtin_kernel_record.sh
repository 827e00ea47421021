#!/bin/bash
# record --kernel on arm64 with the TIS driver built in: the boot of
# test_vm_kernel_record.sh in the arm64 guest (qemu-system-aarch64 -M virt,
# swtpm behind tpm-tis-device, the binaries of tpmtrace's arm64 package) on
# the recipe's arm64 Linux 6.12 (tests/vm/linux-6.12.recipe, cross-built and
# cached) instead of Debian's, whose TIS driver is a module that IMA never
# sees. Here IMA finds the TPM at its init, so its PCR 10 extends are checked
# (origin ima, by the call path and from the stack alone), and trusted keys
# too (the recipe sets CONFIG_TRUSTED_KEYS); the rest as on Debian's kernel:
# every command the host relayed is in the guest trace, in order, byte for
# byte. No BTF in that kernel: the object without CO-RE.
VM_ARCH=arm64
VM_KERNEL_BUILD=stock
# shellcheck source=test_vm_kernel_record.sh
. "$(cd "$(dirname "$0")" && pwd)/test_vm_kernel_record.sh"
