#!/bin/bash
# A real Debian 12 boot with its root on LUKS2 unlocked by the TPM in an
# initramfs made by initramfs-tools (clevis with the tpm2 pin on PCR 7, clevis-initramfs),
# recorded by tpm-cuse-proxy from the initramfs through switch-root into the
# running system and by tpmtrace vm-record around the same boot. What is
# checked: tests/vm/luks-boot.sh. The image is built once and cached
# (tests/vm/image.sh, tests/vm/README.md).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"
# shellcheck source=luks-boot.sh
. "$HERE/luks-boot.sh"
luks_boot_main initramfs-tools
