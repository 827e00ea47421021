#!/bin/sh
# Started by tpm-cuse-proxy-initrd.service: one proxy per node named by
# tpmtrace.record[=tpmrm0,tpm0] (default tpmrm0); databases in /run/tpmtrace/.
nodes=
for arg in $(cat /proc/cmdline); do
	case $arg in
	tpmtrace.record) nodes=tpmrm0 ;;
	tpmtrace.record=*) nodes=$(echo "${arg#tpmtrace.record=}" | tr ',' ' ') ;;
	esac
done
[ -n "$nodes" ] || exit 0
modprobe -q cuse
mkdir -p /run/tpmtrace
chmod 0700 /run/tpmtrace
rc=0
for n in $nodes; do
	i=0
	while [ ! -c "/dev/$n" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -c "/dev/$n" ] || { echo "tpm-cuse-proxy: /dev/$n did not appear" >&2; rc=1; continue; }
	tpm-cuse-proxy --backend "/dev/$n" --name "$n" --takeover --initrd \
		--db "/run/tpmtrace/initrd-$n.db" --trace-name "boot (initramfs) $n" \
		--pidfile "/run/tpmtrace/initrd-$n.pid" 2>>/run/tpmtrace/initrd.log || rc=1
done
exit $rc
