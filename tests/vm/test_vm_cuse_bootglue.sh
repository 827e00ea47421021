#!/bin/bash
# The early-boot glue around tpm-cuse-proxy, in a real kernel:
# - the initramfs-tools init-top script starts a proxy with --takeover of
#   /dev/tpmrm0 when `tpmtrace.record` is on the kernel command line, marked
#   as a root storage daemon (argv[0] starts with '@');
# - a switch of root is simulated by moving /dev, /proc, /sys and /run away
#   from under the proxy (as run-init leaves a process that keeps the old
#   root): new opens still reach the TPM, SIGTERM still puts the kernel's node
#   back, and so does the guardian after SIGKILL;
# - the systemd unit's handover script stops the initramfs proxy, moves its
#   database to /var/lib/tpmtrace/, and the unit's own proxy records on.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"

vm_setup_cuse
vm_add_file "$SRC/tools/initramfs/initramfs-tools/scripts/init-top/tpm-cuse-proxy" /scripts/init-top/tpm-cuse-proxy || exit 1
vm_add_file "$SRC/tools/systemd/tpm-cuse-proxy-handover" /usr/bin/tpm-cuse-proxy-handover || exit 1
# initramfs-tools' message helpers, as the init-top script expects them.
mkdir -p "$VM_WORK/stub"
printf 'log_begin_msg() { echo "begin: $*"; }\nlog_end_msg() { echo end; }\nlog_warning_msg() { echo "warning: $*"; }\n' >"$VM_WORK/stub/functions"
vm_add_file "$VM_WORK/stub/functions" /scripts/functions || exit 1
VM_APPEND="tpmtrace.record"

cat >"$VM_WORK/guest.sh" <<'EOF'
#!/bin/sh
. /lib/vm-guest.sh
move_away() { mkdir -p /newroot; mount -t tmpfs none /newroot; for m in dev proc sys run; do mkdir -p /newroot/$m; mount --move /$m /newroot/$m; done; VM_PROC=/newroot/proc; }
move_back() { for m in dev proc sys run; do mount --move /newroot/$m /$m; done; umount /newroot; P=/proc; }
kv kernel_node "$(node /dev/tpmrm0)"

# 1. The initramfs-tools script.
sh /scripts/init-top/tpm-cuse-proxy >$O/inittop.log 2>&1; kv inittop $?
kv node_during "$(node /dev/tpmrm0)"
kv real_during "$(node /dev/tpmrm0.real)"
pid=$(cat /run/tpmtrace/initrd-tpmrm0.pid)
kv pidfile_matches "$([ "$pid" = "$(pid_of tpm-cuse-proxy)" ] && echo yes)"
kv argv0 "$(head -c 1 /proc/$pid/cmdline)"
tpm2_getrandom 8 >/dev/null; kv tool_initrd $?

# 2. A switch of root under the running proxy.
move_away
kv old_root_dev_empty "$([ -e /dev/tpmrm0 ] && echo no || echo yes)"
TPM2TOOLS_TCTI=device:/newroot/dev/tpmrm0 tpm2_getrandom 8 >/dev/null; kv tool_after_move $?
kill -TERM $pid; gone tpm-cuse-proxy; kv term_exit $?
gone tpm-cuse-guard
kv node_after_term "$(node /newroot/dev/tpmrm0)"
kv real_after_term "$(node /newroot/dev/tpmrm0.real)"
move_back
kv db_after_term "$([ -s /run/tpmtrace/initrd-tpmrm0.db ] && echo yes)"
# After a switch of root SQLite cannot checkpoint a file whose path is gone
# from its root: the last records stay in the -wal beside it (the handover
# moves both).
ls /run/tpmtrace >$O/run-after-term.txt
for x in '' -wal; do cp /run/tpmtrace/initrd-tpmrm0.db$x $O/first.db$x 2>/dev/null; done
rm -f /run/tpmtrace/initrd-tpmrm0.db*
# SIGKILL while moved away: the guardian restores.
sh /scripts/init-top/tpm-cuse-proxy >>$O/inittop.log 2>&1; kv inittop2 $?
move_away
kill -KILL $(pid_of tpm-cuse-proxy); gone tpm-cuse-proxy; gone tpm-cuse-guard; kv kill_guard_gone $?
kv node_after_kill "$(node /newroot/dev/tpmrm0)"
kv real_after_kill "$(node /newroot/dev/tpmrm0.real)"
move_back
rm -f /run/tpmtrace/initrd-tpmrm0.db* /run/tpmtrace/initrd-tpmrm0.pid

# 3. Handover to the real root's unit.
sh /scripts/init-top/tpm-cuse-proxy >>$O/inittop.log 2>&1; kv inittop3 $?
tpm2_getrandom 8 >/dev/null; kv tool_before_handover $?
mkdir -p /var/lib
tpm-cuse-proxy-handover tpmrm0 >$O/handover.log 2>&1; kv handover $?
kv initrd_proxy_gone "$(pid_of tpm-cuse-proxy | wc -w)"
kv node_after_handover "$(node /dev/tpmrm0)"
ls /var/lib/tpmtrace >$O/varlib.txt
for f in /var/lib/tpmtrace/initrd-tpmrm0-*.db*; do cp $f $O/handed.db${f##*.db}; done
# The unit's ExecStart, ExecStop (SIGTERM) and ExecStopPost.
tpm-cuse-proxy --backend /dev/tpmrm0 --name tpmrm0 --takeover --db /var/lib/tpmtrace/boot.db \
	--trace-name "boot tpmrm0" --pidfile /run/tpmtrace/tpm-cuse-proxy.pid 2>>$O/inittop.log; kv unit_start $?
tpm2_pcrread sha256:0 >/dev/null; kv tool_unit $?
kill -TERM $(cat /run/tpmtrace/tpm-cuse-proxy.pid); gone tpm-cuse-proxy; kv unit_exit $?
tpm-cuse-proxy --restore --name tpmrm0 2>>$O/inittop.log; kv stoppost $?
kv node_end "$(node /dev/tpmrm0)"
cp /var/lib/tpmtrace/boot.db $O/boot.db
exit 0
EOF

vm_run_checked "$VM_WORK/guest.sh"
q() { "$TPMTRACE" sql "$1" --no-header "$2"; }
K=$(vm_get kernel_node)

check "init-top script started the proxy" [ "$(vm_get inittop)" = 0 ]
check "during: /dev/tpmrm0 is the CUSE node, the kernel's is .real" [ "$(vm_get node_during)" != "$K" -a "$(vm_get real_during)" = "$K" ]
check "pid file names the proxy" [ "$(vm_get pidfile_matches)" = yes ]
check "argv[0] starts with '@' (root storage daemon)" [ "$(vm_get argv0)" = @ ]
check "tools use /dev/tpmrm0 through the proxy" [ "$(vm_get tool_initrd)" = 0 ]
check "after the move, the old root has no /dev/tpmrm0" [ "$(vm_get old_root_dev_empty)" = yes ]
check "after the move, new opens still reach the TPM" [ "$(vm_get tool_after_move)" = 0 ]
check "after the move, SIGTERM restores the kernel's node" [ "$(vm_get term_exit)" = 0 -a "$(vm_get node_after_term)" = "$K" -a "$(vm_get real_after_term)" = missing ]
check "after the move, SIGKILL: the guardian restores it" [ "$(vm_get inittop2)$(vm_get kill_guard_gone)" = 00 -a "$(vm_get node_after_kill)" = "$K" -a "$(vm_get real_after_kill)" = missing ]
check "first initramfs trace recorded the commands before and after the move" [ "$(q "$O/first.db" "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom')")" -ge 4 ]
check "first initramfs trace complete" [ "$(q "$O/first.db" "SELECT status FROM trace")" = complete ]
check "handover: proxy stopped, node back, database moved" [ "$(vm_get inittop3)$(vm_get tool_before_handover)$(vm_get handover)$(vm_get initrd_proxy_gone)" = 0000 -a "$(vm_get node_after_handover)" = "$K" ]
check "handover: /var/lib/tpmtrace/initrd-tpmrm0-TIME.db" grep -q '^initrd-tpmrm0-.*\.db$' "$O/varlib.txt"
check "handed-over trace complete with the initramfs commands" [ "$(q "$O/handed.db" "SELECT status FROM trace")" = complete -a "$(q "$O/handed.db" "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom')")" -ge 2 ]
check "unit's proxy recorded, stopped, ExecStopPost ok, node back" [ "$(vm_get unit_start)$(vm_get tool_unit)$(vm_get unit_exit)$(vm_get stoppost)" = 0000 -a "$(vm_get node_end)" = "$K" ]
check "boot.db holds the PCR_Read" [ "$(q "$O/boot.db" "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Read')")" -ge 1 ]

if [ "$fail" != 0 ]; then
	cat "$O/results" "$O/inittop.log" "$O/handover.log" >&2
fi
echo "boot-to-result: ${VM_ELAPSED}s"
finish
