#!/bin/bash
# A real Debian 12 boot with its root on LUKS2 unlocked by the TPM in an
# initramfs made by dracut (systemd in the initrd; the key enrolled with systemd-cryptenroll --tpm2-device=auto --tpm2-pcrs=7, unlocked by systemd-cryptsetup),
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
luks_boot_main dracut
