# shellcheck shell=bash
# tests/vm/luks-boot.sh -- the body of test_vm_boot_luks_dracut.sh and
# test_vm_boot_luks_initramfs_tools.sh: a real Debian 12 boot (tests/vm/image.sh)
# whose LUKS root the TPM unlocks in the initramfs, recorded by tpm-cuse-proxy
# from the initramfs through switch-root into the running system, and by
# `tpmtrace vm-record` around the same boot.
#
#   luks_boot_main VARIANT
#
# Boot 1 (tpmtrace.record): the unlock's commands are in the initramfs trace,
# by process, in order, with latencies; the initramfs and real-root traces
# together hold every user-space command the vm-record trace shows (matched
# by bytes, the kernel resource manager's own context commands aside);
# /dev/tpmrm0 is the proxy's node after the hand-over and serves
# tpm2_getrandom; the recorded unlock replays through /dev/tpmrm0 under every
# preset with every response HMAC verified and the TPM's handles as found;
# after the shutdown `tpmtrace verify` accepts the databases. On the host the
# unlock replays against swtpm under every preset and `predict` prices it.
# Boot 2 (same machine): the initramfs proxy crashes during the unlock
# (TPMTRACE_FAULT_CUSE_CRASH) and /var/lib/tpmtrace is full at the hand-over:
# the root is unlocked by the TPM all the same, the guardian restored the
# kernel's node, recording stops with the reason in the journal, the TPM
# path works.
# Boot 3 (tpmtrace.kernel, same machine): `record --kernel` from the
# initramfs (the package's initramfs-tools hook or dracut module) through
# switch-root into tpmtrace-kernel-record.service's hand-over: the unlock's
# Unseal in the initramfs trace, user space's later commands in the unit's,
# and the two together every command the host's vm-record relayed from the
# initramfs recorder's first on, in order, no gap.
# Before any boot: without tpm-cuse-proxy the documented initramfs build fails
# with a message and keeps the initramfs it had.

LUKS_PRESETS="as-recorded password linux-6.10 linux-6.12 linux-6.12-no-pcr-integrity"

# The test's own files in the guest (not part of the documented install).
luks_guest_files() { # DIR
	local d=$1
	mkdir -p "$d/usr/local/lib/tpmtrace-vmtest" "$d/etc/systemd/system/multi-user.target.wants" \
		"$d/etc/systemd/system/sysinit.target.wants" "$d/usr/lib/systemd/system-shutdown"
	cat >"$d/etc/systemd/system/tpmtrace-vmtest.service" <<-'EOF'
		[Unit]
		Description=tpmtrace VM test: checks once the system is up (tests/vm/luks-boot.sh)
		After=multi-user.target
		[Service]
		Type=oneshot
		ExecStart=/usr/local/lib/tpmtrace-vmtest/check.sh
		StandardOutput=journal+console
		StandardError=journal+console
		TimeoutStartSec=infinity
		[Install]
		WantedBy=multi-user.target
	EOF
	ln -sfn /etc/systemd/system/tpmtrace-vmtest.service \
		"$d/etc/systemd/system/multi-user.target.wants/tpmtrace-vmtest.service"
	# A full /var/lib/tpmtrace at the hand-over: a small tmpfs filled up.
	cat >"$d/etc/systemd/system/tpmtrace-vmtest-fullvar.service" <<-'EOF'
		[Unit]
		Description=tpmtrace VM test: /var/lib/tpmtrace full before the hand-over
		DefaultDependencies=no
		ConditionKernelCommandLine=tpmtrace.test.fullvar
		After=local-fs.target
		Before=tpm-cuse-proxy.service sysinit.target
		[Service]
		Type=oneshot
		RemainAfterExit=yes
		ExecStart=/bin/sh -c 'mkdir -p /var/lib/tpmtrace && mount -t tmpfs -o size=64k,mode=0700 tpmtrace-full /var/lib/tpmtrace && { dd if=/dev/zero of=/var/lib/tpmtrace/fill bs=4k 2>/dev/null; true; }'
		[Install]
		WantedBy=sysinit.target
	EOF
	ln -sfn /etc/systemd/system/tpmtrace-vmtest-fullvar.service \
		"$d/etc/systemd/system/sysinit.target.wants/tpmtrace-vmtest-fullvar.service"
	# After every service stopped and the file systems went read-only: the
	# results and /var/lib/tpmtrace as the shutdown left them, as a tar on
	# the harness's results disk.
	cat >"$d/usr/lib/systemd/system-shutdown/tpmtrace-vmtest" <<-'EOF'
		#!/bin/sh
		O=/var/lib/tpmtrace-vmtest/out
		[ -e $O/.guest-rc ] || exit 0
		for b in /sys/block/vd*; do
			[ "$(cat $b/serial 2>/dev/null)" = results ] && dev=/dev/${b##*/}
		done
		[ -n "$dev" ] || exit 0
		tar -c -f "$dev" -C $O . -C /var/lib tpmtrace
		sync
	EOF
	chmod 755 "$d/usr/lib/systemd/system-shutdown/tpmtrace-vmtest"
	cat >"$d/usr/local/lib/tpmtrace-vmtest/check.sh" <<-EOF
		#!/bin/sh
		PRESETS="$LUKS_PRESETS"
	EOF
	cat >>"$d/usr/local/lib/tpmtrace-vmtest/check.sh" <<-'EOF'
		# In the booted system (tpmtrace-vmtest.service): what the host cannot
		# see from outside, into /var/lib/tpmtrace-vmtest/out.
		O=/var/lib/tpmtrace-vmtest/out
		rm -rf $O && mkdir -p $O
		export TPM2TOOLS_TCTI=device:/dev/tpmrm0
		kv() { echo "$1=$2" >>$O/results; }
		node() { if [ -c "$1" ]; then stat -c '%t:%T' "$1"; else echo missing; fi; }
		hexdev() { printf '%x:%x' "${1%%:*}" "${1##*:}"; }
		mode=
		for a in $(cat /proc/cmdline); do case $a in tpmtrace.test=*) mode=${a#tpmtrace.test=} ;; esac; done
		kv mode "$mode"
		kv uptime "$(cut -d' ' -f1 /proc/uptime)"
		systemctl show -p FirmwareTimestampMonotonic -p LoaderTimestampMonotonic -p KernelTimestampMonotonic \
			-p InitRDTimestampMonotonic -p UserspaceTimestampMonotonic >$O/timestamps.txt
		kv kernel_node "$(hexdev "$(cat /sys/class/tpmrm/tpmrm0/dev)")"
		kv node_tpmrm0 "$(node /dev/tpmrm0)"
		kv node_tpmrm0_real "$(node /dev/tpmrm0.real)"
		kv unit "$(systemctl is-active tpm-cuse-proxy.service)"
		kv unit_result "$(systemctl show -p Result --value tpm-cuse-proxy.service)"
		kv proxies "$(pgrep -c -x tpm-cuse-proxy)"
		kv guards "$(pgrep -c -x tpm-cuse-guard)"
		kv root_dev "$(findmnt -n -o SOURCE /)"
		cryptsetup status root >$O/cryptsetup-status.txt 2>&1
		kv root_luks $?
		cryptsetup luksDump "$(cryptsetup status root | sed -n 's/^ *device: *//p')" >$O/luksdump.txt 2>&1
		ls -la /var/lib/tpmtrace /run/tpmtrace >$O/ls.txt 2>&1
		cp /run/tpmtrace/initrd.log $O/initrd.log 2>/dev/null
		systemctl status --no-pager -l tpm-cuse-proxy.service >$O/unit-status.txt 2>&1
		journalctl -b --no-pager -o short-monotonic >$O/journal.txt 2>&1
		journalctl -b --no-pager -o cat -u tpm-cuse-proxy.service >$O/unit-journal.txt 2>&1
		# A later user of /dev/tpmrm0, after the hand-over.
		tpm2_getrandom --hex 8 >$O/getrandom.txt 2>&1
		kv getrandom $?
		# The end of what the host compares with vm-record: GetRandom of 41
		# bytes, which nothing else sends (after it /dev/tpm0 is read
		# directly, which no proxy records).
		tpm2_getrandom 41 >/dev/null 2>&1
		kv marker $?
		case $mode in
		record)
			db=$(ls /var/lib/tpmtrace/initrd-tpmrm0-*.db | head -n1)
			kv unlock_db "$db"
			cp "$db" /tmp/unlock.db
			[ ! -e "$db-wal" ] || cp "$db-wal" /tmp/unlock.db-wal
			# The TPM's own view (/dev/tpm0: no resource manager) of what
			# is loaded, before and after the replays.
			handles() {
				for c in handles-transient handles-persistent handles-loaded-session handles-saved-session; do
					echo "# $c"
					TPM2TOOLS_TCTI=device:/dev/tpm0 tpm2_getcap $c 2>&1
				done
			}
			handles >$O/handles-before.txt
			for p in $PRESETS; do
				tpmtrace replay /tmp/unlock.db --target device:/dev/tpmrm0 --policy $p --json \
					>$O/replay-$p.json 2>$O/replay-$p.err
				kv replay_$p $?
				handles >$O/handles-after-$p.txt
			done
			tpmtrace verify /tmp/unlock.db >$O/verify-replayed.txt 2>&1
			kv verify_replayed $?
			cp /tmp/unlock.db $O/unlock-replayed.db
			tpm2_getrandom --hex 8 >>$O/getrandom.txt 2>&1
			kv getrandom_after_replays $?
			# docs/record-boot.md's worked example, as a user types it.
			(cd / && sh -e /usr/local/lib/tpmtrace-vmtest/example.sh) >$O/example.txt 2>&1
			kv example $?
			;;
		crash)
			kv fullvar "$(findmnt -n -o FSTYPE /var/lib/tpmtrace)"
			kv initrd_db_kept "$(ls /run/tpmtrace/initrd-tpmrm0.db 2>/dev/null)"
			for x in '' -wal; do
				[ ! -e /run/tpmtrace/initrd-tpmrm0.db$x ] || cp /run/tpmtrace/initrd-tpmrm0.db$x $O/crash-initrd.db$x
			done
			;;
		kernel)
			# record --kernel: the unit's recorder after the hand-over,
			# stopped (SIGINT finalizes its trace) before the shutdown
			# copies /var/lib/tpmtrace.
			kv kunit "$(systemctl is-active tpmtrace-kernel-record.service)"
			kv krecorders "$(pgrep -c -x tpmtrace)"
			cp /var/lib/tpmtrace/initramfs-kernel-*.log $O/ 2>/dev/null
			systemctl status --no-pager -l tpmtrace-kernel-record.service >$O/kunit-status.txt 2>&1
			systemctl stop tpmtrace-kernel-record.service
			kv kstop $?
			kv krecorders_after "$(pgrep -c -x tpmtrace)"
			;;
		esac
		kv checks_done 1
		echo 0 >$O/.guest-rc
		sync
		systemctl poweroff --no-block
	EOF
	chmod 755 "$d/usr/local/lib/tpmtrace-vmtest/check.sh"
	vm_image_doc_block record-boot-example >"$d/usr/local/lib/tpmtrace-vmtest/example.sh"
}

lq() { "$TPMTRACE" sql "$1" --no-header "$2"; }

# One command a line, "cc key": the command's bytes with transient handles
# masked where the kernel's resource manager replaces the virtual handles a
# /dev/tpmrm0 client uses by the TPM's: in the handle area, and in
# FlushContext's parameter (Part 3, 28.4: flushHandle is not in the handle
# area). Recorded traces only (a replay stored in the same file is not).
luks_cmd_keys() { # DB [MORE SQL CONDITIONS]
	lq "$1" "SELECT c.cc, ifnull(t.handles_in, 0), lower(hex(c.cmd)) FROM command c
		LEFT JOIN tpm_cc t ON t.cc = c.cc WHERE c.flags & 2 = 0
		AND c.trace_id IN (SELECT id FROM trace WHERE kind = 'record') ${2:-} ORDER BY c.trace_id, c.seq" |
		awk -F'|' '{
			h = $3
			n = $1 == 357 ? 1 : $2
			for (i = 0; i < n; i++) {
				p = 21 + 8 * i
				if (substr(h, p, 2) == "80") h = substr(h, 1, p + 1) "xxxxxx" substr(h, p + 8)
			}
			print $1, h
		}'
}

luks_boot_main() {
	local v=$1 t0 t1 rc b
	[ -x "$TPMTRACE" ] || { echo "tpmtrace binary not found at $TPMTRACE" >&2; exit 1; }
	vm_need_proxy || exit 1
	vm_init
	rc=$?
	[ $rc = 0 ] || exit $rc
	trap 'luks_host_swtpm_stop; vm_cleanup' EXIT
	# shellcheck source=image.sh
	. "$VM_HARNESS_DIR/image.sh"
	# shellcheck source=kernel-lib.sh
	. "$VM_HARNESS_DIR/kernel-lib.sh"
	VM_TIMEOUT=${VM_TIMEOUT_LUKS:-900}
	t0=$(vm_image_now)
	vm_image_build "$v"
	rc=$?
	[ $rc = 0 ] || exit $rc
	t1=$(vm_image_now)
	echo "image: $IMG ($(vm_image_secs "$t0" "$t1")s; built in $(sed -n 's/^t_total=//p' "$IMG/meta")s when cold)"
	check "image built (or cached) with a kernel" [ -n "$VM_IMAGE_KVER" ]

	# ---- the documented install, and the test's own units ----
	t0=$(vm_image_now)
	luks_guest_files "$VM_WORK/extra"
	vm_image_install "$v" "$VM_WORK/extra" || exit 1
	t1=$(vm_image_now)
	echo "install (docs/record-boot.md blocks, initramfs, the no-proxy trial, into the volume): $(vm_image_secs "$t0" "$t1")s"
	# The commands the install ran are the documentation's, in order.
	sed -n 's/^+ //p' "$VM_IMAGE_INSTALL_LOG" >"$VM_WORK/ran.txt"
	for b in $(vm_image_install_blocks "$v"); do vm_image_doc_block "$b"; done >"$VM_WORK/doc.txt"
	check "the image build ran docs/record-boot.md's install blocks, word for word ($(wc -l <"$VM_WORK/ran.txt") commands)" \
		cmp -s "$VM_WORK/doc.txt" "$VM_WORK/ran.txt"
	cmp -s "$VM_WORK/doc.txt" "$VM_WORK/ran.txt" || diff "$VM_WORK/doc.txt" "$VM_WORK/ran.txt" >&2
	local U=$VM_WORK/image/upper
	check "cmake --install put tpm-cuse-proxy in /usr/bin" [ -x "$U/usr/bin/tpm-cuse-proxy" ]
	check "... the hand-over script in /usr/libexec/tpmtrace" [ -x "$U/usr/libexec/tpmtrace/tpm-cuse-proxy-handover" ]
	check "... the unit, enabled" [ -L "$U/etc/systemd/system/sysinit.target.wants/tpm-cuse-proxy.service" ]
	case $v in
	dracut) check "... the dracut module" [ -x "$U/usr/lib/dracut/modules.d/90tpm-cuse-proxy/module-setup.sh" ] ;;
	initramfs-tools) check "... the initramfs-tools hook" [ -x "$U/usr/share/initramfs-tools/hooks/tpm-cuse-proxy" ] ;;
	esac
	check "... record --kernel's unit, enabled" \
		[ -L "$U/etc/systemd/system/sysinit.target.wants/tpmtrace-kernel-record.service" ]
	check "the initramfs holds tpmtrace (record --kernel's part)" \
		grep -q -E '(^|[ /])usr/bin/tpmtrace$' "$VM_IMAGE_INITRD_LIST"
	check "the initramfs ($(du -h "$VM_INITRD" | cut -f1)) holds tpm-cuse-proxy" luks_initrd_has_proxy

	# The proxy binary missing (tried on a layer over the installed image).
	check "without tpm-cuse-proxy the $v initramfs build fails (status $VM_IMAGE_NOPROXY_RC)" \
		[ "$VM_IMAGE_NOPROXY_RC" != 0 ]
	check "... saying that tpm-cuse-proxy is missing" grep -q -E \
		"tpm-cuse-proxy is not installed|module 'tpm-cuse-proxy' cannot be found or installed" \
		"$VM_IMAGE_NOPROXY_LOG"
	check "... and the initramfs it had is kept" [ "$VM_IMAGE_NOPROXY_KEPT" = 1 ]
	[ "$fail" = 0 ] || tail -n 20 "$VM_IMAGE_NOPROXY_LOG" >&2

	# ---- boot 1: recorded, under vm-record ----
	vm_image_tpmstate || exit 1
	VM_SWTPM=0
	VM_TPM_ARGS=()
	local VMREC=$VM_WORK/vmrecord.db
	luks_boot 1 "$VMREC" "luks boot $v" "tpmtrace.record tpmtrace.test=record" "$v, recorded"
	echo "boot 1: QEMU start to power-off ${VM_ELAPSED}s; guest uptime at the check $(vm_get uptime)s"
	luks_check_boot1 "$v"

	# ---- boot 2: the proxy crashes in the unlock, /var is full at the hand-over ----
	case $v in
	# systemd-cryptsetup falls back to a passphrase on any TPM error of its
	# session (and does not try the TPM again): the crash comes once the
	# Unseal is answered, while its session (flushes) is still going on.
	dracut) b="systemd.setenv=TPMTRACE_FAULT_CUSE_CRASH=0x15e:after" ;;
	# clevis runs one tpm2-tools process per step and retries the whole
	# sequence: the crash comes when the Unseal arrives, before it is sent.
	initramfs-tools) b="TPMTRACE_FAULT_CUSE_CRASH=0x15e" ;;
	esac
	luks_boot 2 "$VM_WORK/vmrecord2.db" "luks boot $v crash" "$b tpmtrace.record tpmtrace.test=crash tpmtrace.test.fullvar" \
		"$v, proxy crash in the unlock, full /var"
	echo "boot 2: QEMU start to power-off ${VM_ELAPSED}s"
	luks_check_boot2 "$v"

	# ---- boot 3: record --kernel from the initramfs across switch-root ----
	local VM_KERNEL_REC=$VM_WORK/vmrecord3.db
	luks_boot 3 "$VM_KERNEL_REC" "luks boot $v kernel" "tpmtrace.kernel tpmtrace.test=kernel" "$v, tpmtrace.kernel"
	echo "boot 3: QEMU start to power-off ${VM_ELAPSED}s"
	luks_check_boot3
	finish
}

# luks_boot N DB NAME APPEND WHAT: boot N of the machine (variant $v) under
# vm-record into DB (trace NAME), with APPEND on the kernel command line, its
# results in $VM_WORK/outN; a boot that does not reach the system ends the
# test, with the console's lines about the unlock.
luks_boot() {
	local rc
	VM_QEMU_PREFIX=("$TPMTRACE" vm-record --db "$2" --swtpm-state "$VM_IMAGE_TPMSTATE" --name "$3" --)
	VM_IMAGE_APPEND=$4
	VM_OUT=$VM_WORK/out$1
	vm_image_boot "$v"
	rc=$?
	check "boot $1 ($5) reached the system and reported results" [ "$rc" = 0 ]
	if [ "$rc" != 0 ]; then
		grep -a -i -E "tpm|crypt|clevis|luks|emergency|failed|passphrase" "$VM_CONSOLE" | tail -n 40 >&2
		finish
	fi
}

# luks_check_boot3: record --kernel's two traces of boot 3 (copies of
# /var/lib/tpmtrace as the shutdown left it) against the host's.
luks_check_boot3() {
	local O=$VM_OUT I S db rc
	check "boot 3: guest checks ran to the end" [ "$(vm_get checks_done)" = 1 ]
	check "boot 3: the root is the LUKS2 volume, unlocked by the TPM" [ "$(vm_get root_luks)" = 0 ]
	check "tpmtrace-kernel-record.service active after the hand-over (got $(vm_get kunit))" \
		[ "$(vm_get kunit)" = active ]
	check "one recorder left after the hand-over, the unit's (got $(vm_get krecorders))" \
		[ "$(vm_get krecorders)" = 1 ]
	check "stopping the unit stopped it (status $(vm_get kstop), $(vm_get krecorders_after) left)" \
		[ "$(vm_get kstop)/$(vm_get krecorders_after)" = 0/0 ]
	I=$(ls "$O"/tpmtrace/initramfs-kernel-*.db 2>/dev/null | head -n1)
	S=$O/tpmtrace/kernel.db
	check "/var/lib/tpmtrace holds the initramfs's trace (initramfs-kernel-TIME.db) and kernel.db" \
		[ -n "$I" -a -s "$S" ]
	[ -n "$I" ] && [ -s "$S" ] || { cat "$O/results" "$O/kunit-status.txt" >&2; return; }
	for db in "$I" "$S"; do
		check "$(basename "$db"): complete, nothing dropped, integrity ok" \
			[ "$(lq "$db" "SELECT status || '/' || dropped FROM trace")/$(lq "$db" "PRAGMA integrity_check")" = complete/0/ok ]
	done
	kby() { lq "$1" "SELECT count(*) FROM command c JOIN client k ON k.trace_id=c.trace_id AND k.id=c.client_id WHERE $2"; }
	local unseal="c.cc = (SELECT cc FROM tpm_cc WHERE name = 'Unseal')"
	check "the unlock's Unseal is in the initramfs trace, from user space ($(kby "$I" "$unseal AND k.peer LIKE 'userspace /dev/tpm%'"))" \
		[ "$(kby "$I" "$unseal AND k.peer LIKE 'userspace /dev/tpm%'")" -ge 1 ]
	check "and not in the unit's trace" [ "$(kby "$S" "$unseal")" = 0 ]
	check "the unit's trace holds the later tpm2_getrandom 41 (userspace, /dev/tpmrm0)" \
		[ "$(kby "$S" "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND k.comm = 'tpm2_getrandom' AND k.peer LIKE 'userspace /dev/tpmrm_' AND hex(substr(c.cmd, 11, 2)) = '0029'")" = 1 ]
	check "no command of an unknown kernel caller" \
		[ "$(kby "$I" "k.comm='kernel' AND k.peer='kernel'")/$(kby "$S" "k.comm='kernel' AND k.peer='kernel'")" = 0/0 ]
	"$TPMTRACE" stats "$I" --by origin
	kernel_compare_handover "$VM_KERNEL_REC" "$I" "$S" >"$VM_WORK/compare3.txt" 2>&1
	rc=$?
	cat "$VM_WORK/compare3.txt"
	check "the two traces hold every command vm-record relayed from the initramfs recorder's first on, in order, no gap" \
		[ "$rc" = 0 ]
}

# luks_initrd_has_proxy: the initramfs's file list (lsinitrd/lsinitramfs,
# made by vm_image_install) names tpm-cuse-proxy.
luks_initrd_has_proxy() {
	grep -q -E '(^|[ /])usr/bin/tpm-cuse-proxy$' "$VM_IMAGE_INITRD_LIST"
}

luks_check_boot1() {
	local v=$1 O=$VM_OUT K db boot
	K=$(vm_get kernel_node)
	check "guest checks ran to the end" [ "$(vm_get checks_done)" = 1 ]
	check "root is the LUKS2 volume, open (cryptsetup status)" [ "$(vm_get root_luks)" = 0 ]
	check "... with the TPM binding ($( [ "$v" = dracut ] && echo systemd-tpm2 || echo clevis) token)" \
		grep -q -E "systemd-tpm2|clevis" "$O/luksdump.txt"
	check "after the hand-over /dev/tpmrm0 is the proxy's node (got $(vm_get node_tpmrm0), kernel's $K)" \
		luks_is_proxy_node "$(vm_get node_tpmrm0)" "$K" "$(vm_get node_tpmrm0_real)"
	check "tpm-cuse-proxy.service is active, one proxy and its guardian run" \
		[ "$(vm_get unit)/$(vm_get proxies)/$(vm_get guards)" = active/1/1 ]
	check "a later tpm2_getrandom works through it" [ "$(vm_get getrandom)" = 0 ]
	db=$(ls "$O"/tpmtrace/initrd-tpmrm0-*.db 2>/dev/null | head -n1)
	boot=$O/tpmtrace/boot.db
	check "the initramfs trace was handed over to /var/lib/tpmtrace (initrd-tpmrm0-TIME.db)" [ -n "$db" ]
	check "boot.db is there after the shutdown" [ -s "$boot" ]
	[ -n "$db" ] && [ -s "$boot" ] || { cat "$O/results" >&2; finish; }
	# Copies: verify must see the files as the shutdown left them.
	cp "$db" "$VM_WORK/initrd.db" && { [ ! -e "$db-wal" ] || cp "$db-wal" "$VM_WORK/initrd.db-wal"; }
	luks_keep_traces "$v" "$db" "$boot"
	local verify_rc
	"$TPMTRACE" verify "$db" >"$VM_WORK/verify-initrd.txt" 2>&1
	verify_rc=$?
	check "after the shutdown, tpmtrace verify accepts the initramfs trace" [ "$verify_rc" = 0 ]
	"$TPMTRACE" verify "$boot" >"$VM_WORK/verify-boot.txt" 2>&1
	verify_rc=$?
	check "after the shutdown, tpmtrace verify accepts boot.db" [ "$verify_rc" = 0 ]
	check "boot.db's trace was finalized by the shutdown (complete, none dropped)" \
		[ "$(lq "$boot" "SELECT status || '/' || dropped FROM trace")" = complete/0 ]
	check "the initramfs trace is complete, none dropped" \
		[ "$(lq "$db" "SELECT status || '/' || dropped FROM trace WHERE kind = 'record'")" = complete/0 ]
	check "docs/record-boot.md's worked example ran in the guest" [ "$(vm_get example)" = 0 ]

	# The unlock: process, order, latency, success, before the switch of root.
	luks_check_unlock "$v" "$db"

	# Zero lost across switch-root and hand-over. The window: from the
	# kernel's last start-up command (IMA's boot_aggregate, the first extend
	# of PCR 10) to the guest's marker (GetRandom of 41 bytes). In it, every
	# command of the two CUSE traces is in the vm-record trace of the same
	# boot, in order, byte for byte (transient handles aside, which the
	# resource manager maps), and every other command vm-record saw is the
	# kernel's own: its resource manager's ContextLoad/ContextSave/
	# FlushContext, the hwrng's GetRandom of 64 bytes.
	check "vm-record's trace is complete" [ "$(lq "$VMREC" "SELECT status FROM trace")" = complete ]
	check "the guest sent the end marker through the proxy" [ "$(vm_get marker)" = 0 ]
	local MARK="379 80010000000c0000017b0029"
	{ luks_cmd_keys "$db"; luks_cmd_keys "$boot"; } | awk -v m="$MARK" '{ print } $0 == m { exit }' >"$VM_WORK/cuse.keys"
	# A command the TPM answered TPM_RC_RETRY (0x922), YIELDED (0x908) or
	# TESTING (0x90A) the kernel sends again by itself (tpm_transmit): the
	# client sees one command, the final answer; the attempts are the kernel's.
	local n_retry
	n_retry=$(lq "$VMREC" "SELECT count(*) FROM command WHERE rc IN (0x922, 0x908, 0x90A)")
	luks_cmd_keys "$VMREC" "AND ifnull(c.rc, 0) NOT IN (0x922, 0x908, 0x90A)" | awk -v m="$MARK" '
		on { print } $0 == m { exit }
		!on && $1 == 386 && substr($2, 21, 8) == "0000000a" { on = 1 }' >"$VM_WORK/vmrec.keys"
	awk -v out="$VM_WORK/unmatched.txt" '
		NR == FNR { a[++n] = $0; next }
		{ if (j < n && $0 == a[j + 1]) j++; else print > out }
		END { print j, n }' "$VM_WORK/cuse.keys" "$VM_WORK/vmrec.keys" >"$VM_WORK/match.txt"
	touch "$VM_WORK/unmatched.txt"
	local matched n_cuse other n_rm
	read -r matched n_cuse <"$VM_WORK/match.txt"
	check "the window ends at the marker in both views" \
		[ "$(tail -n1 "$VM_WORK/cuse.keys")" = "$MARK" -a "$(tail -n1 "$VM_WORK/vmrec.keys")" = "$MARK" ]
	check "every CUSE-recorded command ($n_cuse) is in the vm-record trace, in order, byte for byte ($matched matched)" \
		[ "$n_cuse" -ge 10 -a "$matched" = "$n_cuse" ]
	other=$(awk '$1 != 353 && $1 != 354 && $1 != 357 && $0 != "379 80010000000c0000017b0040" { print $1 }' \
		"$VM_WORK/unmatched.txt" | sort | uniq -c | awk '{ printf "%s of cc %d; ", $1, $2 }')
	n_rm=$(wc -l <"$VM_WORK/unmatched.txt")
	check "no user-space command reached the TPM unrecorded (others: ${other:-none})" [ -z "$other" ]
	echo "zero-loss window: vm-record $(wc -l <"$VM_WORK/vmrec.keys") commands = $matched recorded by the proxies" \
		"(initramfs $(lq "$db" "SELECT count(*) FROM command WHERE trace_id IN (SELECT id FROM trace WHERE kind = 'record')")," \
		"real root: the rest) + $n_rm the kernel's own; $n_retry resubmitted by the kernel after TPM_RC_RETRY (whole boot)"

	# In the guest: replay of the unlock through /dev/tpmrm0 under every preset.
	local p before
	before=$(cat "$O/handles-before.txt")
	check "the TPM's handles were read before the replays" grep -q "handles-transient" "$O/handles-before.txt"
	for p in $LUKS_PRESETS; do
		check "guest: replay --target device:/dev/tpmrm0 --policy $p exits 0" [ "$(vm_get "replay_$p")" = 0 ]
		luks_check_replay_json "$O/replay-$p.json" "guest $p"
		check "guest $p: the TPM's handles (transient, persistent, sessions) as before" \
			[ "$(cat "$O/handles-after-$p.txt")" = "$before" ]
	done
	check "guest: the unlock trace with its replays passes verify" [ "$(vm_get verify_replayed)" = 0 ]
	check "guest: /dev/tpmrm0 still serves tpm2_getrandom after the replays" [ "$(vm_get getrandom_after_replays)" = 0 ]

	# On the host: the unlock against swtpm under every preset. The swtpm
	# runs on a copy of this machine's TPM state (the seeds the sealed key
	# was made under) with PCR 7 extended as SeaBIOS did in boot 1 (its
	# extends, from the vm-record trace), so that the policy holds.
	# A fresh one per preset: on a bare swtpm (no resource manager) a
	# linux-6.12 replay leaves its kernel session loaded, as the kernel's
	# lazy flush would.
	local rec
	rec=$(lq "$VM_WORK/initrd.db" "SELECT min(id) FROM trace WHERE kind = 'record'")
	for p in $LUKS_PRESETS; do
		luks_host_swtpm "$VM_WORK/hosttpm"
		check "host $p: a swtpm on this machine's TPM state, PCR 7 as at boot ($(cat "$VM_WORK/hosttpm/pcr7.txt"))" \
			[ -n "$(cat "$VM_WORK/hosttpm/pcr7.txt")" -a "$(cat "$VM_WORK/hosttpm/pcr7.txt")" = "$(luks_guest_pcr7)" ]
		cp "$VM_WORK/initrd.db" "$VM_WORK/host-$p.db"
		[ ! -e "$VM_WORK/initrd.db-wal" ] || cp "$VM_WORK/initrd.db-wal" "$VM_WORK/host-$p.db-wal"
		"$TPMTRACE" replay "$VM_WORK/host-$p.db" --trace "$rec" --target "swtpm:path=$VM_WORK/hosttpm/s.sock" \
			--policy "$p" --json >"$VM_WORK/host-$p.json" 2>"$VM_WORK/host-$p.err"
		rc=$?
		check "host: replay against swtpm --policy $p exits 0" [ "$rc" = 0 ]
		luks_check_replay_json "$VM_WORK/host-$p.json" "host $p"
		luks_host_swtpm_stop
	done
	local prof n_prof=0
	for prof in "$SRC"/model/profiles/*.profile; do
		"$TPMTRACE" predict "$VM_WORK/initrd.db" --trace "$rec" --profile "$prof" \
			>"$VM_WORK/predict-$(basename "$prof" .profile).txt" 2>&1 && n_prof=$((n_prof + 1))
	done
	check "predict prices the unlock on every shipped profile ($n_prof)" \
		[ "$n_prof" = "$(ls "$SRC"/model/profiles/*.profile | wc -l)" ]
	luks_check_advise "$v" "$rec"
	luks_report "$v" "$db"
}

# ---- advise (issue 24): the unlock's findings, counted and proved ----
# `tpmtrace advise --prove` on the unlock trace, and for each finding the
# replayed saving beside the predicted one on LUKS_ADVISE_PROFILE, within 5%.
# The proofs replay on the swtpm of the host-side replays (this run's TPM
# state, PCR 7 as at boot: --target), since the sealed key loads only under
# its seeds. The findings' counts against luks_advise.py's, from the command
# bytes.
LUKS_ADVISE_PROFILE=slb9670-linux-integrity
# The kinds --prove proves (docs/advise.md); outliers it cannot.
LUKS_ADVISE_PROVABLE="repeated-primary session-per-command policy-rebuilt user-interleave hwrng-session"
luks_check_advise() { # VARIANT TRACE
	local v=$1 rec=$2 A=$VM_WORK/advise.db P=$LUKS_ADVISE_PROFILE rc
	cp "$VM_WORK/initrd.db" "$A" && { [ ! -e "$VM_WORK/initrd.db-wal" ] || cp "$VM_WORK/initrd.db-wal" "$A-wal"; }
	"$TPMTRACE" advise "$A" --trace "$rec" --profile "$P" --json >"$VM_WORK/advise.json" 2>"$VM_WORK/advise.err"
	rc=$?
	check "advise --trace $rec --profile $P --json exits 0" [ "$rc" = 0 ]
	luks_advise_prove "$rec" >"$VM_WORK/advise-prove.txt" 2>"$VM_WORK/advise-prove-txt.err"
	rc=$?
	check "advise --prove --target (this run's TPM) exits 0" [ "$rc" = 0 ]
	luks_advise_prove "$rec" --json >"$VM_WORK/advise-prove.json" 2>"$VM_WORK/advise-prove.err"
	rc=$?
	check "advise --prove --target --json exits 0" [ "$rc" = 0 ]
	echo "--- advise --prove ($v unlock, trace $rec)"
	cat "$VM_WORK/advise-prove.txt"
	grep '^tpmtrace advise:' "$VM_WORK/advise-prove-txt.err"
	# What advise should find, counted from the trace's bytes.
	python3 "$VM_HARNESS_DIR/luks_advise.py" counts "$A" "$rec" >"$VM_WORK/advise-counts.txt"
	python3 "$VM_HARNESS_DIR/luks_advise.py" findings "$VM_WORK/advise-prove.json" >"$VM_WORK/advise-found.txt"
	check "the findings of --json and --prove --json are the same ones" [ "$(cut -d' ' -f1-5 \
		"$VM_WORK/advise-found.txt")" = "$(python3 "$VM_HARNESS_DIR/luks_advise.py" findings "$VM_WORK/advise.json" |
		cut -d' ' -f1-5)" ]
	local want
	echo "counted from the trace: $(tr '\n' ' ' <"$VM_WORK/advise-counts.txt")" | fold -s -w 100
	want=$(($(luks_k primaries) - $(luks_k templates)))
	[ "$want" -gt 0 ] || want=-
	check "repeated-primary: $(luks_n repeated-primary) (sqlite: $(luks_k primaries) CreatePrimary of $(luks_k templates) templates)" \
		[ "$(luks_n repeated-primary)" = "$want" ]
	want=$(luks_k hmac_single)
	[ "$want" -ge 2 ] || want=-
	check "session-per-command: $(luks_n session-per-command) (sqlite: $(luks_k hmac_single) of $(luks_k hmac_sessions) HMAC sessions authorized one command)" \
		[ "$(luks_n session-per-command)" = "$want" ]
	[ "$want" = - ] || check "session-per-command: $(luks_n session-per-command 3) commands (sqlite: the set-ups and their $(luks_k hmac_single_flushed) FlushContexts)" \
		[ "$(luks_n session-per-command 3)" = "$(($(luks_k hmac_single) + $(luks_k hmac_single_flushed)))" ]
	want=$(($(luks_k policy_sessions) - $(luks_k policies)))
	[ "$want" -gt 0 ] || want=-
	check "policy-rebuilt: $(luks_n policy-rebuilt) (sqlite: $(luks_k policy_sessions) policy sessions, $(luks_k policies) policies)" \
		[ "$(luks_n policy-rebuilt)" = "$want" ]
	check "no user-interleave or hwrng-session: no command of the kernel in a CUSE trace (sqlite: $(luks_k kernel))" \
		[ "$(luks_n user-interleave)/$(luks_n hwrng-session)/$(luks_k kernel)" = "-/-/0" ]
	[ "$(luks_k retries)" = 0 ] || check "outliers: $(luks_n outliers), at least the $(luks_k retries) retries (sqlite)" \
		luks_outliers_cover
	[ -s "$VM_WORK/advise-found.txt" ] ||
		check "no finding: advise says there is nothing to change" grep -q '^nothing to change' "$VM_WORK/advise-prove.txt"
	# Each finding: predicted and replayed saving side by side. A finding of
	# a provable kind must be proved within 5% (a proof outside is run once
	# more, said here: the saving is a difference of two emulated runs);
	# outliers (a replay does not have the recording TPM's stall) is said not
	# proved, and counted neither way.
	local kind count cmds removed pred proof diff
	echo "--- advise ($v): saving predicted on $P and replayed by advise --prove"
	printf '%-20s %5s %8s %12s %12s %7s\n' finding count cmds/go predicted replayed diff
	while read -r kind count cmds removed pred proof; do
		if [ "$proof" != - ] && ! luks_within_5 "${proof#*:}"; then
			echo "note: $kind proved outside 5% (${proof#*:}); proving once more"
			luks_advise_prove "$rec" --json >"$VM_WORK/advise-prove2.json" 2>>"$VM_WORK/advise-prove.err"
			proof=$(python3 "$VM_HARNESS_DIR/luks_advise.py" findings "$VM_WORK/advise-prove2.json" |
				awk -v k="$kind" '$1 == k { print $6 }')
			proof=${proof:--}
		fi
		diff=${proof#*:}
		printf '%-20s %5s %8s %9s ms %9s ms %7s\n' "$kind" "$count" "$cmds/$removed" "$pred" "${proof%%:*}" \
			"$(awk -v d="$diff" 'BEGIN { if (d == "-") print "-"; else printf "%+.1f%%", 100 * d }')"
		if [ "$proof" != - ]; then
			check "$v $kind: replayed saving ${proof%%:*} ms within 5% of the predicted $pred ms" luks_within_5 "$diff"
		elif luks_advise_provable "$kind"; then
			check_escaped "$v $kind: not proved ($(luks_advise_why "$kind"); $VM_WORK/advise-prove.err)"
		else
			echo "not proved: $kind ($(luks_advise_why "$kind"))"
		fi
	done <"$VM_WORK/advise-found.txt"
	[ -s "$VM_WORK/advise-found.txt" ] || echo "(no finding)"
}

# luks_advise_prove TRACE [ARG]: advise --prove of the trace in advise.db on
# a fresh swtpm with this run's TPM state and PCR 7 as at boot.
luks_advise_prove() {
	local rc
	luks_host_swtpm "$VM_WORK/hosttpm"
	"$TPMTRACE" advise "$VM_WORK/advise.db" --trace "$1" --profile "$LUKS_ADVISE_PROFILE" --prove \
		--target "swtpm:path=$VM_WORK/hosttpm/s.sock" "${@:2}"
	rc=$?
	luks_host_swtpm_stop
	return $rc
}

luks_within_5() { awk -v d="$1" 'BEGIN { exit !(d != "-" && d < 0.05 && d > -0.05) }'; }
luks_advise_provable() { [[ " $LUKS_ADVISE_PROVABLE " == *" $1 "* ]]; }

# luks_k KEY: luks_advise.py's count; luks_n KIND [FIELD]: the finding's count
# (or FIELD: 3 commands, 4 removed), "-" without such a finding.
luks_k() { sed -n "s/^$1=//p" "$VM_WORK/advise-counts.txt"; }
luks_n() {
	awk -v k="$1" -v f="${2:-2}" '$1 == k { print $f; x = 1 } END { if (!x) print "-" }' "$VM_WORK/advise-found.txt"
}
luks_outliers_cover() { [ "$(luks_n outliers)" != - ] && [ "$(luks_n outliers)" -ge "$(luks_k retries)" ]; }

# luks_advise_why KIND: why advise --prove gave KIND no proof (its JSON's
# "unproved", else what it said on stderr).
luks_advise_why() {
	python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == sys.argv[2]][0]
print(f.get("unproved") or "")' "$VM_WORK/advise-prove.json" "$1" | grep . ||
		grep -m1 '^tpmtrace advise:' "$VM_WORK/advise-prove.err" || echo "no proof, nothing said"
}

# luks_pcr_extends DB PCR: "alg=hex,..." per PCR_Extend of PCR before the
# kernel's first extend of PCR 10 (the firmware's), for tpm2_pcrextend.
luks_pcr_extends() {
	lq "$1" "SELECT lower(hex(cmd)) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND pcr = $2
		AND seq < (SELECT min(seq) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND pcr = 10) ORDER BY seq" | awk '
		function h(s,   i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
		{
			# Part 3, 22.2: handle, authorization area (size first), TPML_DIGEST_VALUES.
			p = 29 + 8 + 2 * h(substr($0, 29, 8)); n = h(substr($0, p, 8)); p += 8; out = ""
			for (i = 0; i < n; i++) {
				alg = h(substr($0, p, 4)); p += 4
				name = alg == 4 ? "sha1" : alg == 11 ? "sha256" : alg == 12 ? "sha384" : alg == 13 ? "sha512" : ""
				sz = alg == 4 ? 20 : alg == 11 ? 32 : alg == 12 ? 48 : alg == 13 ? 64 : 0
				if (name == "") exit 1
				out = out (out == "" ? "" : ",") name "=" substr($0, p, 2 * sz)
				p += 2 * sz
			}
			print out
		}'
}

# luks_guest_pcr7: PCR 7 (sha256) as the guest read it when provisioning.
luks_guest_pcr7() { sed -n 's/^ *7 *: *0x//p' "$IMG/prov/pcr7.txt" | tr 'A-F' 'a-f'; }

# luks_host_swtpm DIR: swtpm on a copy of this run's TPM state, started, with
# the firmware's PCR 7 extends of boot 1; DIR/pcr7.txt is then its PCR 7.
luks_host_swtpm() {
	local d=$1 e
	rm -rf "$d" && cp -a "$VM_IMAGE_TPMSTATE" "$d" || return 1
	rm -f "$d"/.lock
	swtpm socket --tpm2 --tpmstate dir="$d" --server type=unixio,path="$d/s.sock" \
		--ctrl type=unixio,path="$d/s.sock.ctrl" --flags not-need-init,startup-clear \
		--log file="$d/swtpm.log" </dev/null >/dev/null 2>&1 &
	LUKS_SWTPM_PID=$!
	for _ in $(seq 100); do [ -S "$d/s.sock" ] && break; sleep 0.05; done
	for e in $(luks_pcr_extends "$VMREC" 7); do
		tpm2_pcrextend -T "swtpm:path=$d/s.sock" "7:$e" >>"$d/extend.log" 2>&1
	done
	tpm2_pcrread -T "swtpm:path=$d/s.sock" sha256:7 2>/dev/null | sed -n 's/^ *7 *: *0x//p' | tr 'A-F' 'a-f' >"$d/pcr7.txt"
}

luks_host_swtpm_stop() {
	[ -n "${LUKS_SWTPM_PID:-}" ] || return 0
	kill "$LUKS_SWTPM_PID" 2>/dev/null
	wait "$LUKS_SWTPM_PID" 2>/dev/null
	LUKS_SWTPM_PID=
}

luks_is_proxy_node() { # NODE KERNEL REAL
	[ "$1" != missing ] && [ "$1" != "$2" ] && [ "$3" = "$2" ]
}

# luks_check_replay_json FILE WHAT: the run was stored complete (a response
# HMAC that does not verify ends a run as an error, so complete means every
# one did); its figures go to FILE.sum: status fidelity hmac_verified failed
# refused sent tpm_ms.
luks_check_replay_json() {
	local f=$1 what=$2
	python3 - "$f" >"$f.sum" 2>/dev/null <<-'EOF'
		import json, sys
		r = json.load(open(sys.argv[1]))["runs"][0]
		print(r["status"], "%.4f" % r["fidelity"], r["hmac_verified"], r["failed"], r["refused"], r["sent"],
		      "%.1f" % (r["tpm_ns"] / 1e6), r["substituted"])
	EOF
	local status fid hmac failed refused sent tpm subst
	read -r status fid hmac failed refused sent tpm subst <"$f.sum"
	check "$what: the run is stored complete, every response HMAC verified ($hmac)" \
		[ "$status" = complete -a "${hmac:-0}" -ge 1 ]
	check "$what: the unlock reproduced: nothing refused, nothing failed (fidelity $fid, $sent commands sent, TPM ${tpm} ms)" \
		[ "$refused" = 0 -a "$failed" = 0 ]
	# systemd-cryptsetup starts its policy session under its HMAC session
	# (nonceCaller encrypted) and its Startup is refused as already done:
	# both replayed as recorded, nothing substituted.
	check "$what: nothing substituted ($subst), fidelity 100% ($fid)" [ "$subst" = 0 -a "$fid" = 1.0000 ]
}

luks_check_unlock() {
	local v=$1 db=$2 comm seqs REC
	REC=$(lq "$db" "SELECT min(id) FROM trace WHERE kind = 'record'")
	case $v in
	dracut) comm="systemd-cryptsetup" ;; # the full name, not the 15-byte comm
	initramfs-tools) comm="tpm2_unseal" ;;
	esac
	# Per command: seq cc rc latency comm.
	lq "$db" "SELECT c.seq, c.cc, ifnull(c.rc, -1), ifnull(c.latency_ns, 0), ifnull(cl.comm, '')
		FROM command c LEFT JOIN client cl ON cl.trace_id = c.trace_id AND cl.id = c.client_id
		WHERE c.trace_id = $REC ORDER BY c.seq" | tr '|' ' ' >"$VM_WORK/unlock.txt"
	check "the unseal was answered with success, sent by $comm" \
		awk -v c="$comm" '$2 == 350 && $3 == 0 && $5 == c { f = 1 } END { exit !f }' "$VM_WORK/unlock.txt"
	check "every command of the initramfs trace has a latency" \
		awk '$4 <= 0 { bad = 1 } END { exit bad }' "$VM_WORK/unlock.txt"
	case $v in
	dracut)
		# tpm2_unseal (systemd 252, src/shared/tpm2-util.c): CreatePrimary,
		# Load, StartAuthSession (HMAC, encryption), StartAuthSession
		# (policy), PolicyPCR, Unseal, all from systemd-cryptsetup.
		seqs="305:systemd-cryptsetup 343:systemd-cryptsetup 374:systemd-cryptsetup 383:systemd-cryptsetup 350:systemd-cryptsetup"
		;;
	initramfs-tools)
		# clevis-decrypt-tpm2: tpm2_createprimary, tpm2_load, then
		# tpm2_unseal with a policy session and PolicyPCR.
		seqs="305:tpm2_createprimary 343:tpm2_load 374:tpm2_unseal 383:tpm2_unseal 350:tpm2_unseal"
		;;
	esac
	check "the unlock's commands come in order from the right processes ($seqs)" \
		awk -v want="$seqs" 'BEGIN { n = split(want, w, " ") }
			i < n && $2 ":" $5 == w[i + 1] { i++ } END { exit i != n }' "$VM_WORK/unlock.txt"
	# PolicyPCR (Part 3, 23.7): policySession handle, pcrDigest (TPM2B),
	# pcrs (TPML_PCR_SELECTION): the PCRs it selects, as "bank:index".
	lq "$db" "SELECT lower(hex(cmd)) FROM command WHERE trace_id = $REC AND cc = (SELECT cc FROM tpm_cc WHERE name = 'PolicyPCR')" | awk '
		function h(s,   i, v) { v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
		{
			p = 29; p += 4 + 2 * h(substr($0, p, 4)); n = h(substr($0, p, 8)); p += 8; out = ""
			for (i = 0; i < n; i++) {
				alg = substr($0, p, 4); sz = h(substr($0, p + 4, 2)); p += 6
				for (b = 0; b < sz; b++) {
					v = h(substr($0, p + 2 * b, 2))
					for (k = 0; k < 8; k++) if (int(v / 2 ^ k) % 2) out = out " " alg ":" (8 * b + k)
				}
				p += 2 * sz
			}
			print substr(out, 2)
		}' >"$VM_WORK/policypcr.txt"
	check "PolicyPCR selected PCR 7 of the SHA-256 bank, nothing else (got: $(sort -u "$VM_WORK/policypcr.txt" | tr '\n' ' '))" \
		[ "$(sort -u "$VM_WORK/policypcr.txt")" = "000b:7" ]
	check "the unlock used PolicyPCR of PCR 7 (a policy session, auth_kind policy)" \
		[ "$(lq "$db" "SELECT count(*) FROM command WHERE trace_id = $REC AND cc = (SELECT cc FROM tpm_cc WHERE name = 'Unseal') AND auth_kind IN (4, 5) AND rc = 0")" -ge 1 ]
}

luks_check_boot2() {
	local v=$1 O=$VM_OUT K
	K=$(vm_get kernel_node)
	check "boot 2: guest checks ran" [ "$(vm_get checks_done)" = 1 ]
	check "boot 2: root unlocked (LUKS2 volume open) with no passphrase given" [ "$(vm_get root_luks)" = 0 ]
	check "boot 2: the proxy crashed in the unlock (initramfs log)" \
		grep -q "TPMTRACE_FAULT_CUSE_CRASH: crashing at command 0x15e" "$O/initrd.log"
	check "boot 2: its guardian put the kernel's node back" grep -q "guardian: proxy gone, restored tpmrm0" "$O/initrd.log"
	check "boot 2: /var/lib/tpmtrace was full at the hand-over (tmpfs)" [ "$(vm_get fullvar)" = tmpfs ]
	check "boot 2: the initramfs trace stayed in /run/tpmtrace, intact" luks_verify "$O/crash-initrd.db"
	check "boot 2: the journal says why it was not moved" grep -q "cannot move the initramfs trace" "$O/unit-journal.txt"
	check "boot 2: recording stopped with the reason logged (the unit's proxy: database)" \
		grep -q -i -E "full|no space" "$O/unit-journal.txt"
	check "boot 2: tpm-cuse-proxy.service is not running" [ "$(vm_get unit)" != active ]
	check "boot 2: /dev/tpmrm0 is the kernel's node (got $(vm_get node_tpmrm0))" [ "$(vm_get node_tpmrm0)" = "$K" ]
	check "boot 2: no proxy and no guardian left" [ "$(vm_get proxies)/$(vm_get guards)" = 0/0 ]
	check "boot 2: the TPM path works (tpm2_getrandom on the kernel's node)" [ "$(vm_get getrandom)" = 0 ]
	if [ "$fail" != 0 ]; then
		cat "$O/results" "$O/initrd.log" "$O/unit-journal.txt" >&2
	fi
}

# luks_keep_traces VARIANT INITRD_DB BOOT_DB: with TPMTRACE_VM_KEEP_TRACES=DIR,
# one-file copies (WAL folded in) of the recorded databases as soon as boot 1
# is over: DIR/luks-VARIANT-initrd.db (the unlock), DIR/luks-VARIANT-boot.db.
luks_keep_traces() {
	local d=${TPMTRACE_VM_KEEP_TRACES:-} f w=$VM_WORK/keep
	[ -n "$d" ] || return 0
	mkdir -p "$d" "$w" || return 0
	# From copies: closing the last connection checkpoints a WAL, and the
	# originals are verified as the shutdown left them.
	for f in initrd:"$2" boot:"$3"; do
		rm -f "$w"/x.db* "$d/luks-$1-${f%%:*}.db"
		cp "${f#*:}" "$w/x.db" && { [ ! -e "${f#*:}-wal" ] || cp "${f#*:}-wal" "$w/x.db-wal"; } &&
			sqlite3 "$w/x.db" ".backup '$d/luks-$1-${f%%:*}.db'" &&
			echo "kept the trace: $d/luks-$1-${f%%:*}.db"
	done
}

luks_verify() { "$TPMTRACE" verify "$1" >/dev/null 2>&1; }

# The figures of the worked example in docs/record-boot.md.
luks_report() {
	local v=$1 db=$2
	echo "--- unlock ($v): the initramfs trace"
	lq "$db" "SELECT c.seq, printf('0x%03x', c.cc), ifnull(n.name, '?'), cl.comm, printf('%.2f ms', c.latency_ns / 1e6)
		FROM command c LEFT JOIN tpm_cc n ON n.cc = c.cc
		LEFT JOIN client cl ON cl.trace_id = c.trace_id AND cl.id = c.client_id
		WHERE c.trace_id = (SELECT min(id) FROM trace WHERE kind = 'record') ORDER BY c.seq" | head -n 60
	echo "--- predict (slb9670-linux-integrity)"
	head -n 30 "$VM_WORK/predict-slb9670-linux-integrity.txt" 2>/dev/null
}
