#!/bin/bash
# The boot glue of `record --kernel` (docs/record-boot.md) as the initramfs
# generators and systemd see it, without booting (the boot itself:
# tests/vm/test_vm_kernel_bootglue.sh):
# - the dracut module's module-setup.sh, sourced by bash as dracut does, with
#   dracut's install functions stubbed to copy into an initramfs tree: check()
#   asks to be added by name when tpmtrace is there and refuses without it;
#   install() puts in what it lists, every source file exists, the unit it
#   enables is the one it installed and runs the script it installed;
# - the initramfs-tools hook with hook-functions stubbed: it copies the
#   tpmtrace binary, and stops the build (status 1, saying why) without it;
# - `cmake --install` puts every file the units name where they name it.
. "$(dirname "$0")/../lib/common.sh"
SRC=$TPMTRACE_SRC
MOD=$SRC/tools/initramfs/dracut/90tpmtrace-kernel

# ---- dracut ----
mkdir -p "$T/initrd" "$T/bin"
ln -s "$TPMTRACE" "$T/bin/tpmtrace"
cat >"$T/dracut-stubs.sh" <<'EOF'
# What dracut's dracut-functions.sh offers a module, reduced to copying into
# $initdir and logging each call.
log() { echo "$*" >>"$T/calls.txt"; }
require_binaries() { for b; do command -v "$b" >/dev/null || return 1; done; }
inst_binary() { log "inst_binary $*"; p=$(command -v "$1") || return 1; mkdir -p "$initdir/usr/bin" && cp "$p" "$initdir/usr/bin/"; }
inst_multiple() { log "inst_multiple $*"; for b; do command -v "$b" >/dev/null || return 1; done; }
inst_script() { log "inst_script $*"; [ -f "$1" ] || return 1; mkdir -p "$initdir$(dirname "$2")" && cp "$1" "$initdir$2" && chmod 755 "$initdir$2"; }
inst_simple() { log "inst_simple $*"; [ -f "$1" ] || return 1; mkdir -p "$initdir$(dirname "$2")" && cp "$1" "$initdir$2"; }
instmods() { log "instmods $*"; }
systemctl_stub() {
	log "systemctl $*"
	[ "$3" = "$initdir" ] && [ "$4" = enable ] || return 1
	u=$initdir$systemdsystemunitdir/$5
	[ -f "$u" ] || return 1
	w=$(sed -n 's/^WantedBy=//p' "$u")
	mkdir -p "$initdir/etc/systemd/system/$w.wants" && ln -s "$systemdsystemunitdir/$5" "$initdir/etc/systemd/system/$w.wants/$5"
}
SYSTEMCTL=systemctl_stub
systemdsystemunitdir=/usr/lib/systemd/system
EOF
dracut_call() { # FUNCTION [PATH]: runs it in a bash as dracut does; prints its status
	T=$T PATH=${2:-$T/bin:$PATH} initdir=$T/initrd moddir=$MOD bash -c \
		". \"\$T/dracut-stubs.sh\" && . \"\$moddir/module-setup.sh\" && $1; echo \$?"
}
check "module-setup.sh parses (bash -n)" bash -n "$MOD/module-setup.sh"
expect_eq "check(): with tpmtrace in PATH, only when asked for (255)" "$(dracut_call check)" 255
expect_eq "check(): without tpmtrace, refused (1)" "$(dracut_call check /usr/bin:/bin)" 1
expect_eq "depends(): systemd" "$(dracut_call depends | head -n1)" systemd
expect_eq "installkernel() succeeds" "$(dracut_call installkernel | tail -n1)" 0
check "installkernel(): the TPM core and drivers" grep -q '^instmods tpm tpm_tis tpm_crb$' "$T/calls.txt"
expect_eq "install() succeeds" "$(dracut_call install)" 0
cat "$T/calls.txt"
check "install(): tpmtrace in the initramfs" [ -x "$T/initrd/usr/bin/tpmtrace" ]
# Every file of the module that install() names is one it has.
for f in $(sed -n 's/.*"\$moddir\/\([^"]*\)".*/\1/p' "$MOD/module-setup.sh"); do
	check "install() names $f, which the module has" [ -f "$MOD/$f" ]
done
UNIT=$T/initrd/usr/lib/systemd/system/tpmtrace-kernel-initrd.service
check "install(): the initrd unit" [ -f "$UNIT" ]
check "... enabled (sysinit.target.wants)" [ -L "$T/initrd/etc/systemd/system/sysinit.target.wants/tpmtrace-kernel-initrd.service" ]
EXEC=$(sed -n 's/^ExecStart=//p' "$UNIT")
check "... its ExecStart ($EXEC) is the script install() put in" [ -x "$T/initrd$EXEC" ]
check "... the script parses (sh -n)" sh -n "$T/initrd$EXEC"
check "... the script starts record --kernel --initrd with a pid file" \
	grep -q 'tpmtrace record --kernel --initrd --db /run/tpmtrace/initramfs-kernel.db' "$T/initrd$EXEC"
check "... and the unit leaves the recorder running at the switch of root (KillMode=none)" \
	grep -q '^KillMode=none$' "$UNIT"
check "the recorder options the script uses exist" grep -q -- '--pidfile FILE.*--initrd' <("$TPMTRACE" record --help 2>&1)

# ---- initramfs-tools ----
HOOK=$SRC/tools/initramfs/initramfs-tools/hooks/tpmtrace-kernel
cat >"$T/hook-functions" <<'EOF'
copy_exec() { echo "copy_exec $*" >>"$DESTDIR.calls"; mkdir -p "$DESTDIR$(dirname "$2")" && cp "$1" "$DESTDIR$2"; }
manual_add_modules() { echo "manual_add_modules $*" >>"$DESTDIR.calls"; }
EOF
sed "s|/usr/share/initramfs-tools/hook-functions|$T/hook-functions|" "$HOOK" >"$T/hook"
check "the hook sources hook-functions (the stub replaced it)" grep -q "^\. $T/hook-functions\$" "$T/hook"
expect_eq "hook prereqs: none" "$(sh "$T/hook" prereqs)" ""
DESTDIR=$T/itools PATH=$T/bin:$PATH sh "$T/hook"
expect_eq "hook with tpmtrace: exit 0" "$?" 0
check "... tpmtrace copied to /usr/bin in the initramfs" [ -x "$T/itools/usr/bin/tpmtrace" ]
check "... with the TPM modules" grep -q '^manual_add_modules tpm tpm_tis tpm_crb$' "$T/itools.calls"
# Without tpmtrace (PATH without it; /usr/local/bin/tpmtrace must not exist).
if [ -e /usr/local/bin/tpmtrace ]; then
	echo "not checked: the hook without tpmtrace (/usr/local/bin/tpmtrace exists here)"
else
	DESTDIR=$T/itools2 PATH=/usr/bin:/bin sh "$T/hook" 2>"$T/hook.err"
	expect_eq "hook without tpmtrace: exit 1 (the build stops)" "$?" 1
	check "... saying that tpmtrace is not installed" grep -q 'tpmtrace is not installed' "$T/hook.err"
	check "... nothing copied" [ ! -e "$T/itools2/usr/bin/tpmtrace" ]
fi
check "the init-top script parses (sh -n)" sh -n "$SRC/tools/initramfs/initramfs-tools/scripts/init-top/tpmtrace-kernel"
check "the hand-over parses (sh -n)" sh -n "$SRC/tools/systemd/tpmtrace-kernel-handover"

# ---- docs/record-boot.md's install blocks name what exists ----
DOC=$SRC/docs/record-boot.md
block() { awk -v t="$1" '{ l = $0; sub(/^ */, "", l) } l == "```sh " t { on = 1; next } on && l == "```" { exit } on { print l }' "$DOC"; }
unit=$(block record-kernel-boot-install | sed -n 's/^systemctl enable //p')
check "the docs enable a unit ($unit) that tools/systemd has" [ -n "$unit" -a -f "$SRC/tools/systemd/$unit" ]
mod=$(block record-kernel-boot-dracut | sed -n 's/.*add_dracutmodules+=" \([^ ]*\) ".*/\1/p')
check "the docs add the dracut module '$mod', whose directory is 90$mod" [ -n "$mod" -a -d "$SRC/tools/initramfs/dracut/90$mod" ]
check "the docs' kernel command-line word is the scripts' (tpmtrace.kernel)" \
	grep -q '^	tpmtrace.kernel) want=1 ;;$' "$SRC/tools/initramfs/initramfs-tools/scripts/init-top/tpmtrace-kernel"
check "... and the units' (ConditionKernelCommandLine=tpmtrace.kernel)" \
	[ "$(grep -h '^ConditionKernelCommandLine=' "$SRC/tools/systemd/tpmtrace-kernel-record.service" "$MOD/tpmtrace-kernel-initrd.service" | sort -u)" = ConditionKernelCommandLine=tpmtrace.kernel ]
check "the docs name tpmtrace.kernel" grep -q '`tpmtrace.kernel`' "$DOC"

# ---- cmake --install: what the units name is where they name it ----
if DESTDIR=$T/inst cmake --install "$TPMTRACE_TEST_BUILD" --prefix /usr >"$T/install.log" 2>&1; then
	U=$T/inst/usr/lib/systemd/system/tpmtrace-kernel-record.service
	check "installed: tpmtrace-kernel-record.service" [ -f "$U" ]
	for key in ExecStart ExecStartPost; do
		bin=$(sed -n "s/^$key=\([^ ]*\).*/\1/p" "$U")
		check "installed: the unit's $key program $bin" [ -x "$T/inst$bin" ]
	done
	check "installed: the dracut module" [ -x "$T/inst/usr/lib/dracut/modules.d/90tpmtrace-kernel/module-setup.sh" ]
	check "installed: the initramfs-tools hook and script" [ -x "$T/inst/usr/share/initramfs-tools/hooks/tpmtrace-kernel" ]
	check "... and the init-top script" [ -x "$T/inst/usr/share/initramfs-tools/scripts/init-top/tpmtrace-kernel" ]
else
	cat "$T/install.log"
	check "cmake --install into a staging directory" false
fi
finish
