#!/bin/sh
# /init of the tpmtrace test guest (busybox sh, PID 1). Copied into the
# initramfs by tests/vm/harness.sh. Runs /guest.sh, then writes a tar of /out
# (with .guest-rc and guest.log) to the virtio disk whose serial is "results"
# and powers off. Any failure here still powers off, so QEMU never hangs.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts 2>/dev/null
. /etc/vm.conf

say() { echo "vm-guest: $*"; }
halt() {
	sync
	poweroff -f
	sleep 5
	echo o >/proc/sysrq-trigger
}
trap halt EXIT

for m in $VM_LOAD_MODULES; do
	modprobe "$m" || say "modprobe $m failed"
done

# Block devices appear asynchronously after the virtio driver binds.
disk_by_serial() {
	for b in /sys/block/vd*; do
		[ -e "$b/serial" ] && [ "$(cat "$b/serial")" = "$1" ] && { echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}
i=0
while ! RES=$(disk_by_serial results) && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -n "$RES" ] || say "results disk not found; results will be lost"

export VM_EXT4=
if [ -n "$VM_HAVE_EXT4" ]; then
	i=0
	while ! E=$(disk_by_serial ext4) && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ -n "$E" ] && mount -t ext4 -o ro "$E" /mnt/ext4; then
		VM_EXT4=/mnt/ext4
	else
		say "cannot mount ext4 image ${E:-(disk not found)}"
	fi
fi

export VM_OUT=/out TPM2TOOLS_TCTI=device:/dev/tpmrm0
say "running guest script"
{
	(cd /tmp && /guest.sh)
	echo $? >/out/.guest-rc
} 2>&1 | tee /out/guest.log
say "guest script exited $(cat /out/.guest-rc)"

if [ -n "$RES" ]; then
	tar -c -f "$RES" -C /out . || say "writing results to $RES failed"
fi
halt
