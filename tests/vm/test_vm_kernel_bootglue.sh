#!/bin/bash
# The boot glue around `tpmtrace record --kernel`, in a real kernel, under
# `tpmtrace vm-record` on the host (the reference):
# - the initramfs-tools init-top script starts `record --kernel --initrd` in
#   the background when `tpmtrace.kernel` is on the kernel command line; it
#   returns once the recorder is attached (its pid file);
# - tpm2-tools on /dev/tpmrm0 and /dev/tpm0, hwrng reads and IMA-measured
#   programs are sent;
# - a switch of root is simulated as run-init leaves a process that keeps the
#   old root: a new root (a tmpfs with the guest's /usr and /etc bound in) gets
#   /dev, /proc, /sys and /run moved under it, and the rest runs chrooted
#   there; the initramfs recorder's database path leads nowhere for it now;
# - tpmtrace-kernel-record.service is started as systemd would: its
#   ExecStartPre, ExecStart and ExecStartPost lines, taken from the unit file
#   (the hand-over waits for the unit's recorder to attach, stops the
#   initramfs's with SIGINT, moves its database and -wal to /var/lib/tpmtrace);
# - more commands, then the unit's stop (KillSignal=SIGINT).
# Checked: both traces complete and sound (PRAGMA integrity_check), the
# initramfs trace has the early commands, the unit's the later ones, and
# together they hold every command the host's interposer relayed from the
# initramfs recorder's first on, in order (no gap at the hand-over, the
# overlap printed); origins right; the kprobes gone at the end.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"
# shellcheck source=kernel-lib.sh
. "$HERE/kernel-lib.sh"

KERNEL_PROGRAMS=${KERNEL_PROGRAMS:-40}
kernel_setup
UNIT=$SRC/tools/systemd/tpmtrace-kernel-record.service
vm_add_file "$SRC/tools/initramfs/initramfs-tools/scripts/init-top/tpmtrace-kernel" /scripts/init-top/tpmtrace-kernel || exit 1
vm_add_file "$SRC/tools/systemd/tpmtrace-kernel-handover" /usr/libexec/tpmtrace/tpmtrace-kernel-handover || exit 1
# initramfs-tools' message helpers, as the init-top script expects them.
mkdir -p "$VM_WORK/stub"
printf 'log_begin_msg() { echo "begin: $*"; }\nlog_end_msg() { echo end; }\nlog_warning_msg() { echo "warning: $*"; }\n' >"$VM_WORK/stub/functions"
vm_add_file "$VM_WORK/stub/functions" /scripts/functions || exit 1

# The unit's Exec lines, as systemd runs them (continuation lines joined):
# ExecStartPre, ExecStart in the background ($MAINPID), ExecStartPost.
unit_line() { sed -e ':a' -e '/\\$/N; s/\\\n[[:space:]]*/ /; ta' "$UNIT" | sed -n "s/^$1=//p"; }
{
	echo '#!/bin/sh'
	unit_line ExecStartPre
	echo "$(unit_line ExecStart) 2>>\$VM_OUT/unit-record.log &"
	echo 'MAINPID=$!'
	echo 'echo $MAINPID >/tmp/mainpid'
	unit_line ExecStartPost | sed 's/\$MAINPID/"$MAINPID"/'
} >"$VM_WORK/unit-start.sh"
check "the unit has ExecStartPre, ExecStart and ExecStartPost lines" [ "$(grep -c . "$VM_WORK/unit-start.sh")" = 6 ]
check "the unit stops its recorder with SIGINT" [ "$(unit_line KillSignal)" = SIGINT ]
vm_add_file "$VM_WORK/unit-start.sh" /usr/lib/tpmtrace-test/unit-start.sh || exit 1

VM_APPEND="tpmtrace.kernel ima_policy=tcb"
HOSTDB=$VM_WORK/host.db
VM_SWTPM=0
VM_TPM_ARGS=()
VM_QEMU_PREFIX=("$TPMTRACE" vm-record --db "$HOSTDB" --payloads full --name host --)

cat >"$VM_WORK/guest.sh" <<'EOF'
#!/bin/sh
. /lib/vm-guest.sh
mount -t debugfs none /sys/kernel/debug 2>/dev/null
# Programs from ext4 (measured by IMA): FROM TO.
progs() { for p in $VM_EXT4/p*.sh; do n=${p##*/p}; n=${n%.sh}; n=${n#0}; n=${n#0}; [ "$n" -ge $1 ] && [ "$n" -le $2 ] && { "$p" || return 1; }; done; return 0; }
# Tools, each marked by its GetRandom size N: tpmrm0 and tpm0, and the hwrng.
tools() {
	TPM2TOOLS_TCTI=device:/dev/tpmrm0 tpm2_getrandom $1 >/dev/null || return 1
	TPM2TOOLS_TCTI=device:/dev/tpm0 tpm2_getrandom $1 >/dev/null || return 2
	TPM2TOOLS_TCTI=device:/dev/tpm0 tpm2_pcrread sha256:10 >/dev/null || return 3
	TPM2TOOLS_TCTI=device:/dev/tpmrm0 tpm2_createprimary -C o -G ecc256 -c /tmp/p.ctx >/dev/null || return 4
	head -c 32 /dev/hwrng >/dev/null || return 5
}

# 1. The initramfs-tools init-top script.
sh /scripts/init-top/tpmtrace-kernel >$O/inittop.log 2>&1; kv inittop $?
pid=$(cat /run/tpmtrace/initramfs-kernel.pid 2>/dev/null)
kv init_pid "$pid"
kv pidfile_matches "$([ -n "$pid" ] && [ "$pid" = "$(pid_of tpmtrace)" ] && echo yes)"
kv argv0 "$(head -c 1 /proc/$pid/cmdline 2>/dev/null)"
kv kprobes_init "$(tx_probes)"
tools 11; kv tools_early $?
progs 1 20; kv progs_early $?

# 2. A switch of root: a new root with the guest's /usr and /etc, /dev /proc
# /sys /run moved under it; the initramfs recorder keeps the old root.
N=/newroot
mkdir -p $N && mount -t tmpfs none $N
for d in usr etc out mnt/ext4 dev proc sys run tmp var; do mkdir -p $N/$d; done
for d in bin sbin lib lib64; do ln -s usr/$d $N/$d; done
for d in usr etc out; do mount --bind /$d $N/$d; done
[ -z "$VM_EXT4" ] || mount --bind $VM_EXT4 $N/mnt/ext4
for m in dev proc sys run; do mount --move /$m $N/$m; done
kv old_root_db_gone "$([ -e /run/tpmtrace/initramfs-kernel.db ] && echo no || echo yes)"
kv moved_db_there "$([ -e $N/run/tpmtrace/initramfs-kernel.db ] && echo yes)"
cat >$N/tmp/phase2.sh <<'P2'
#!/bin/sh
. /lib/vm-guest.sh
. /tmp/funcs.sh
tools 12; kv tools_middle $?
# tpmtrace-kernel-record.service: ExecStartPre, ExecStart, ExecStartPost.
sh /usr/lib/tpmtrace-test/unit-start.sh >$O/handover.log 2>&1; kv handover $?
mainpid=$(cat /tmp/mainpid)
kv unit_pidfile "$([ "$(cat /run/tpmtrace/kernel-record.pid 2>/dev/null)" = "$mainpid" ] && echo yes)"
kv init_rec_gone "$([ -e /proc/$INIT_PID ] && echo no || echo yes)"
kv rec_count "$(pid_of tpmtrace | wc -w)"
ls -a /run/tpmtrace >$O/run-after.txt
ls -a /var/lib/tpmtrace >$O/varlib.txt
tools 13; kv tools_late $?
progs 21 40; kv progs_late $?
# The unit's stop: KillSignal=SIGINT.
kill -INT $mainpid
gone tpmtrace; kv unit_stopped $?
kv unit_pidfile_removed "$([ -e /run/tpmtrace/kernel-record.pid ] && echo no || echo yes)"
kv kprobes_end "$(tx_probes)"
for f in /var/lib/tpmtrace/*; do cp "$f" $O/; done
P2
{ echo "VM_EXT4=/mnt/ext4"; echo "INIT_PID=$pid"; sed -n '/^progs()/p' /guest.sh; sed -n '/^tools()/,/^}/p' /guest.sh; } >$N/tmp/funcs.sh
chroot $N /bin/sh /tmp/phase2.sh; kv phase2 $?
for m in dev proc sys run; do mount --move $N/$m /$m; done
exit 0
EOF

t0=$(date +%s)
vm_run_checked "$VM_WORK/guest.sh" "guest (through vm-record)"
echo "boot: $(($(date +%s) - t0)) s"
cat "$O/inittop.log" "$O/handover.log"
check "init-top script ran (status $(vm_get inittop))" [ "$(vm_get inittop)" = 0 ]
check "its pid file names the running recorder" [ "$(vm_get pidfile_matches)" = yes ]
check "argv[0] starts with '@' (--initrd)" [ "$(vm_get argv0)" = @ ]
check "tools and programs in the initramfs ran" [ "$(vm_get tools_early)$(vm_get progs_early)" = 00 ]
check "after the move, the old root has no /run/tpmtrace/initramfs-kernel.db" [ "$(vm_get old_root_db_gone)" = yes ]
check "... the new root has it" [ "$(vm_get moved_db_there)" = yes ]
check "the new root's part ran (status $(vm_get phase2))" [ "$(vm_get phase2)" = 0 ]
check "tools before the unit ran" [ "$(vm_get tools_middle)" = 0 ]
check "the unit's ExecStartPre/ExecStart/ExecStartPost succeeded" [ "$(vm_get handover)" = 0 ]
check "the unit's recorder wrote its pid file" [ "$(vm_get unit_pidfile)" = yes ]
check "the hand-over stopped the initramfs's recorder (SIGINT)" [ "$(vm_get init_rec_gone)" = yes ]
check "one recorder left: the unit's" [ "$(vm_get rec_count)" = 1 ]
check "/run/tpmtrace keeps neither the initramfs database nor its pid file" [ "$(grep -c '^initramfs-kernel\.\(db\|pid\)' "$O/run-after.txt")" = 0 ]
check "/var/lib/tpmtrace: kernel.db and initramfs-kernel-TIME.db" grep -q '^initramfs-kernel-[0-9T]*\.db$' "$O/varlib.txt"
check "tools and programs after the hand-over ran" [ "$(vm_get tools_late)$(vm_get progs_late)" = 00 ]
check "SIGINT stopped the unit's recorder, its pid file removed" [ "$(vm_get unit_stopped)$(vm_get unit_pidfile_removed)" = 0yes ]
if [ "$(vm_get kprobes_end)" = nodebugfs ]; then
	echo "not checked: the kprobes after both recorders exited (this kernel has no debugfs)"
else
	kprobes_ok() { [ "$(vm_get kprobes_init)" -ge 1 ] && [ "$(vm_get kprobes_end)" = 0 ]; }
	check "probes on tpm_transmit while recording ($(vm_get kprobes_init)), none after both exited" kprobes_ok
fi
cat "$O/varlib.txt"

# The two traces: copies of /var/lib/tpmtrace (the -wal beside the moved one).
I=$(ls "$O"/initramfs-kernel-*.db 2>/dev/null | head -n1)
S=$O/kernel.db
both_there() { [ -n "$I" ] && [ -s "$S" ]; }
check "both traces are there" both_there
both_there || finish
for db in "$I" "$S"; do
	check "$(basename "$db"): PRAGMA integrity_check ok" [ "$("$TPMTRACE" sql "$db" --no-header "PRAGMA integrity_check")" = ok ]
	check "$(basename "$db"): trace complete" [ "$("$TPMTRACE" sql "$db" --no-header "SELECT status FROM trace")" = complete ]
	check "$(basename "$db"): nothing dropped" [ "$("$TPMTRACE" sql "$db" --no-header "SELECT dropped FROM trace")" = 0 ]
done
# GetRandom of N bytes, by program and node: N marks the phase.
n_rand() { "$TPMTRACE" sql "$1" --no-header "SELECT count(*) FROM command c JOIN client k ON k.trace_id=c.trace_id AND k.id=c.client_id WHERE c.cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND k.comm='tpm2_getrandom' AND k.pid > 1 AND k.peer LIKE 'userspace /dev/$2%' AND hex(substr(c.cmd, 11, 2))=printf('%04X', $3)"; }
for n in 11 12; do
	check "initramfs trace: tpm2_getrandom $n through /dev/tpmrm0 and /dev/tpm0 (userspace)" [ "$(n_rand "$I" tpmrm "$n")$(n_rand "$I" tpm0 "$n")" = 11 ]
	check "unit's trace: no tpm2_getrandom $n (sent before it started)" [ "$(n_rand "$S" tpmrm "$n")$(n_rand "$S" tpm0 "$n")" = 00 ]
done
check "unit's trace: tpm2_getrandom 13 through /dev/tpmrm0 and /dev/tpm0 (userspace)" [ "$(n_rand "$S" tpmrm 13)$(n_rand "$S" tpm0 13)" = 11 ]
check "initramfs trace: no tpm2_getrandom 13 (sent after it stopped)" [ "$(n_rand "$I" tpmrm 13)$(n_rand "$I" tpm0 13)" = 00 ]
by() { "$TPMTRACE" sql "$1" --no-header "SELECT count(*) FROM command c JOIN client k ON k.trace_id=c.trace_id AND k.id=c.client_id WHERE $2"; }
for db in "$I" "$S"; do
	b=$(basename "$db")
	check "$b: IMA's PCR 10 extends, at least 20 ($(by "$db" "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND c.pcr=10"))" [ "$(by "$db" "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND c.pcr=10")" -ge 20 ]
	check "$b: every PCR 10 extend has origin ima" [ "$(by "$db" "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND c.pcr=10 AND NOT (k.comm='kernel' AND k.peer='ima')")" = 0 ]
	check "$b: hwrng reads with origin hwrng" [ "$(by "$db" "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND k.comm='kernel' AND k.peer='hwrng'")" -ge 1 ]
	check "$b: tpm2_createprimary through /dev/tpmrm0: userspace" [ "$(by "$db" "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'CreatePrimary') AND k.comm='tpm2_createprimary' AND k.peer LIKE 'userspace /dev/tpmrm_'")" -ge 1 ]
	check "$b: the resource manager's swaps: rm-swap" [ "$(by "$db" "k.peer LIKE 'rm-swap /dev/tpmrm_' AND c.cc IN (SELECT cc FROM tpm_cc WHERE name IN ('ContextSave', 'FlushContext'))")" -ge 1 ]
	check "$b: no command of an unknown kernel caller" [ "$(by "$db" "k.comm='kernel' AND k.peer='kernel'")" = 0 ]
	"$TPMTRACE" stats "$db" --by origin >"$VM_WORK/stats.txt" 2>&1
	check "$b: stats --by origin reads it" [ $? = 0 ]
	cat "$VM_WORK/stats.txt"
done

# Against the host's trace: the initramfs trace is a contiguous run of it
# from the recorder's first command, the unit's trace another starting no
# later than the first one ends (no command between them), byte for byte
# where the guest kept the bytes (not redacted).
kernel_compare_handover "$HOSTDB" "$I" "$S" >"$VM_WORK/compare.txt" 2>&1
rc=$?
cat "$VM_WORK/compare.txt"
check "the two traces hold every host command from the initramfs recorder's first on, in order, no gap" [ "$rc" = 0 ]
echo "boot-to-result: ${VM_ELAPSED}s"
finish
