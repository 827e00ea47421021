#!/bin/bash
# record --kernel, proof 1 on Linux 6.12 built with CONFIG_TCG_TPM2_HMAC=y
# (tests/vm/linux-6.12.recipe; no BTF, so the object without CO-RE): the
# boot of test_vm_kernel_record.sh, and the kernel's own session commands
# (ContextLoad of the null key, StartAuthSession, FlushContext) with origin
# kernel-session, each tpm2_start_auth_session timed as a span.
KERNEL_VARIANT=hmac
# shellcheck source=test_vm_kernel_record.sh
. "$(cd "$(dirname "$0")" && pwd)/test_vm_kernel_record.sh"
