#!/bin/bash
# tpm-cuse-proxy on arm64: test_vm_cuse.sh in the arm64 guest
# (tests/vm/arm64.sh) with the binaries of tpmtrace's arm64 package: the demo
# workload (real tpm2-tools) through the CUSE node in front of /dev/tpmrm0
# and through --takeover of /dev/tpm0, every command recorded once, byte for
# byte, in order, deterministic responses identical to a direct run; the
# kernel's /dev/tpm0 back after SIGTERM, SIGKILL and --restore.
VM_ARCH=arm64
# shellcheck source=test_vm_cuse.sh
. "$(cd "$(dirname "$0")" && pwd)/test_vm_cuse.sh"
