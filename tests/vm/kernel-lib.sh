# shellcheck shell=bash
# shellcheck disable=SC2034 # VM_* knobs are read by harness.sh
# tests/vm/kernel-lib.sh -- what the `record --kernel` VM tests share
# (sourced by test_vm_kernel_*.sh after harness.sh): tpmtrace in the guest,
# IMA programs on an ext4 image, and the comparison of the guest's
# `record --kernel` trace with the host's vm-record trace of the same boot.
#
#   kernel_setup                 vm_setup + tpmtrace in the guest + ext4 programs
#   kernel_compare HOSTDB GUESTDB  python check: the guest trace is a
#                                contiguous run of the host's, byte for byte
#   kernel_compare_handover HOSTDB INITDB UNITDB  the same for the two traces
#                                of a hand-over: no command between them

KERNEL_PROGRAMS=${KERNEL_PROGRAMS:-240}

kernel_setup() {
	[ -x "$TPMTRACE" ] || { echo "tpmtrace binary not found at $TPMTRACE" >&2; exit 1; }
	vm_setup
	vm_add_tpmtrace "$TPMTRACE" || exit 1
	local i
	mkdir -p "$VM_WORK/ext4src"
	for i in $(seq -w 1 "$KERNEL_PROGRAMS"); do
		printf '#!/bin/sh\n: program %s %s\n' "$i" "$$" >"$VM_WORK/ext4src/p$i.sh"
	done
	chmod 755 "$VM_WORK/ext4src"/*
	vm_ext4_image "$VM_WORK/ext4src" || exit 1
}

# kernel_compare HOSTDB GUESTDB: prints what it found; exit 0 when every
# guest command is the host's, in order, none missing between the first and
# the last, byte-identical command and response; the per-command latency
# difference (guest - host) printed (kernel_compare.py).
kernel_compare() {
	python3 "$VM_HARNESS_DIR/kernel_compare.py" "$1" "$2"
}

# kernel_compare_handover HOSTDB INITDB UNITDB: the initramfs recorder's trace
# is a contiguous run of the host's trace from its first command, the unit's
# trace another, starting no later than the first one ends (no command
# between them; the overlap counted), byte for byte where the guest kept the
# bytes (not redacted). Exit 0 when so (kernel_compare.py).
kernel_compare_handover() {
	python3 "$VM_HARNESS_DIR/kernel_compare.py" "$1" "$2" "$3"
}
