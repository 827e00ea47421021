#!/bin/sh
# Started by tpmtrace-kernel-initrd.service (dracut): `tpmtrace record
# --kernel` in the background into /run/tpmtrace/initramfs-kernel.db;
# returns once it is attached (its pid file is there), so that the units
# ordered after this one are recorded. tpmtrace-kernel-record.service
# takes over in the real root (docs/record-boot.md).
modprobe -q tpm 2>/dev/null
mkdir -p -m 0700 /run/tpmtrace
tpmtrace record --kernel --initrd --db /run/tpmtrace/initramfs-kernel.db \
	--name "boot (initramfs) kernel" --pidfile /run/tpmtrace/initramfs-kernel.pid \
	</dev/null >>/run/tpmtrace/initramfs-kernel.log 2>&1 &
i=0
while [ ! -e /run/tpmtrace/initramfs-kernel.pid ] && [ $i -lt 100 ]; do
	kill -0 $! 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
if [ ! -e /run/tpmtrace/initramfs-kernel.pid ]; then
	echo "tpmtrace record --kernel did not start (see /run/tpmtrace/initramfs-kernel.log)" >&2
	exit 1
fi
exit 0
