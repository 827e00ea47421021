#!/bin/bash
# dracut module: tpm-cuse-proxy in a systemd-based initramfs. Install the
# directory as /usr/lib/dracut/modules.d/90tpm-cuse-proxy and rebuild with
# `dracut -f --add tpm-cuse-proxy`. Recording only happens on boots with
# `tpmtrace.record` on the kernel command line (docs/record-boot.md).

check() {
	require_binaries tpm-cuse-proxy || return 1
	# Only when asked for (--add tpm-cuse-proxy).
	return 255
}

depends() {
	echo systemd
}

installkernel() {
	instmods cuse tpm_tis tpm_crb
}

install() {
	inst_binary tpm-cuse-proxy
	inst_multiple mkdir chmod sleep tr
	inst_script "$moddir/tpm-cuse-proxy-initrd.sh" /usr/libexec/tpmtrace/tpm-cuse-proxy-initrd
	inst_simple "$moddir/tpm-cuse-proxy-initrd.service" \
		"$systemdsystemunitdir/tpm-cuse-proxy-initrd.service"
	$SYSTEMCTL -q --root "$initdir" enable tpm-cuse-proxy-initrd.service
}
