#!/bin/bash
# dracut module: `tpmtrace record --kernel` in a systemd-based initramfs.
# Install the directory as /usr/lib/dracut/modules.d/90tpmtrace-kernel and
# rebuild with `dracut -f --add tpmtrace-kernel`. Recording only happens on
# boots with `tpmtrace.kernel` on the kernel command line
# (docs/record-boot.md).

check() {
	require_binaries tpmtrace || return 1
	# Only when asked for (--add tpmtrace-kernel).
	return 255
}

depends() {
	echo systemd
}

installkernel() {
	instmods tpm tpm_tis tpm_crb
}

# A part that cannot be installed fails the module: an initramfs without it
# would boot and never record.
install() {
	# The eBPF object is inside the binary; inst_binary brings its libraries.
	inst_binary tpmtrace || return 1
	inst_multiple mkdir sleep || return 1
	inst_script "$moddir/tpmtrace-kernel-initrd.sh" /usr/libexec/tpmtrace/tpmtrace-kernel-initrd ||
		return 1
	inst_simple "$moddir/tpmtrace-kernel-initrd.service" \
		"$systemdsystemunitdir/tpmtrace-kernel-initrd.service" || return 1
	$SYSTEMCTL -q --root "$initdir" enable tpmtrace-kernel-initrd.service
}
