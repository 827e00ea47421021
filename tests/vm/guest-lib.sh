# shellcheck shell=sh
# tests/vm/guest-lib.sh -- helpers for guest scripts, put at /lib/vm-guest.sh
# in the initramfs by harness.sh (vm_initramfs). A guest script sources it:
#   . /lib/vm-guest.sh
# and then has O (= $VM_OUT) and:
#   kv KEY VALUE   a KEY=VALUE line in $O/results (vm_get reads it on the host)
#   pid_of COMM    the pids of processes named COMM (under $VM_PROC, default /proc)
#   gone COMM      waits up to 10 s until no process is named COMM; fails if one is
#   node PATH      MAJOR:MINOR (hex) of a character device, or "missing"
#   tx_probes      record --kernel's probes on tpm_transmit: kprobes (debugfs's list)
#                  and BPF trampolines (its fentry program fe_tpm_transmit in
#                  /proc/kallsyms), or "nodebugfs"
O=$VM_OUT
VM_PROC=${VM_PROC:-/proc}
kv() { echo "$1=$2" >>"$O/results"; }
pid_of() { for p in "$VM_PROC"/[0-9]*; do [ "$(cat "$p/comm" 2>/dev/null)" = "$1" ] && echo "${p#"$VM_PROC"/}"; done; }
gone() {
	i=0
	while [ -n "$(pid_of "$1")" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	[ -z "$(pid_of "$1")" ]
}
node() { if [ -c "$1" ]; then stat -c '%t:%T' "$1"; else echo missing; fi; }
tx_probes() {
	[ -r /sys/kernel/debug/kprobes/list ] || { echo nodebugfs; return; }
	echo $(($(grep -c tpm_transmit /sys/kernel/debug/kprobes/list) + $(grep -c '_fe_tpm_transmit' /proc/kallsyms)))
}
