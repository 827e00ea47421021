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

# What the harness asked for and the guest does not have is an error of the
# boot, not of the guest script: it goes to /out/.vm-error and vm_boot fails.
vm_error() {
	say "error: $*"
	echo "$*" >>/out/.vm-error
}

# A kernel without module support (built from source, everything built in)
# has no /proc/modules.
if [ -e /proc/modules ]; then
	for m in $VM_LOAD_MODULES; do
		modprobe "$m" || say "modprobe $m failed"
	done
fi

# The kernel under test is the one claimed: with CONFIG_TCG_TPM2_HMAC the TPM
# driver exports the Name of its null key (tpm2-sessions.c).
if [ "${VM_EXPECT_NULL_NAME:-}" = 1 ] && [ ! -e /sys/class/tpm/tpm0/null_name ]; then
	vm_error "kernel built with HMAC sessions, but /sys/class/tpm/tpm0/null_name is missing"
elif [ "${VM_EXPECT_NULL_NAME:-}" = 0 ] && [ -e /sys/class/tpm/tpm0/null_name ]; then
	vm_error "kernel built without HMAC sessions, but /sys/class/tpm/tpm0/null_name exists"
fi

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
		vm_error "cannot mount the ext4 image ${E:-(disk not found)} (ext4 driver missing?)"
	fi
fi

export VM_OUT=/out TPM2TOOLS_TCTI=device:/dev/tpmrm0
if [ -e /out/.vm-error ]; then
	say "not running the guest script"
	echo 125 >/out/.guest-rc
else
	say "running guest script"
	{
		(cd /tmp && /guest.sh)
		echo $? >/out/.guest-rc
	} 2>&1 | tee /out/guest.log
	say "guest script exited $(cat /out/.guest-rc)"
fi

if [ -n "$RES" ]; then
	tar -c -f "$RES" -C /out . || say "writing results to $RES failed"
fi
halt
