#!/bin/bash
# record --kernel, proof 5: refusals in a guest whose kernel has the TPM
# driver and BPF (Debian's): as a non-root user, and with the probed function
# absent (TPMTRACE_KERNEL_TRANSMIT_SYMBOL names one the kernel lacks, as a
# kernel without tpm_transmit would): exit 1, the message names the cause
# and the kernel release, no database file. And the control: as root with the
# real function, the same command records.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"
[ -x "$TPMTRACE" ] || { echo "tpmtrace binary not found at $TPMTRACE" >&2; exit 1; }
vm_setup
vm_add_bin "$TPMTRACE" /usr/bin/tpmtrace || exit 1

cat >"$VM_WORK/guest.sh" <<'EOF2'
#!/bin/sh
. /lib/vm-guest.sh
kv uname "$(uname -r)"
there() { if [ -e "$1" ]; then echo present; else echo absent; fi; }
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
echo 'nogroup:x:65534:' >>/etc/group
mkdir -p /tmp/u && chmod 1777 /tmp/u
su -s /bin/sh nobody -c 'tpmtrace record --kernel --db /tmp/u/user.db' >$O/user.out 2>&1
kv user_rc $?
kv user_db "$(there /tmp/u/user.db)"
TPMTRACE_KERNEL_TRANSMIT_SYMBOL=tpm_transmit_absent tpmtrace record --kernel --db /tmp/absent.db >$O/absent.out 2>&1
kv absent_rc $?
kv absent_db "$(there /tmp/absent.db)"
tpmtrace record --kernel --db /tmp/ok.db --quiet -- tpm2_getrandom 4 --hex >$O/ok.out 2>&1
kv ok_rc $?
kv ok_db "$(there /tmp/ok.db)"
kv ok_getrandom "$(tpmtrace sql /tmp/ok.db --no-header "SELECT count(*) FROM command c JOIN client k ON k.id=c.client_id WHERE c.cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND k.comm='tpm2_getrandom'")"
EOF2

t0=$(date +%s)
vm_run_checked "$VM_WORK/guest.sh" "guest"
echo "boot: $(($(date +%s) - t0)) s"
check "guest script exit status 0 (got $VM_GUEST_RC)" [ "$VM_GUEST_RC" = 0 ]
REL=$(vm_get uname)
cat "$O/user.out" "$O/absent.out"
check "non-root: exit 1" [ "$(vm_get user_rc)" = 1 ]
check "non-root: the message names the privileges needed" grep -q 'needs root, or the capabilities CAP_BPF and CAP_PERFMON' "$O/user.out"
check "non-root: no database file" [ "$(vm_get user_db)" = absent ]
check "no probe point: exit 1" [ "$(vm_get absent_rc)" = 1 ]
check "no probe point: the message names the kernel and the function tried" \
	grep -q "Linux $REL has no tpm_transmit_absent (not in /proc/kallsyms" "$O/absent.out"
check "no probe point: no database file" [ "$(vm_get absent_db)" = absent ]
check "control, as root with tpm_transmit: exit 0" [ "$(vm_get ok_rc)" = 0 ]
check "control: the database is there" [ "$(vm_get ok_db)" = present ]
check "control: tpm2_getrandom's GetRandom recorded (got $(vm_get ok_getrandom))" [ "$(vm_get ok_getrandom)" -ge 1 ]
finish
