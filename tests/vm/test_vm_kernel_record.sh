#!/bin/bash
# record --kernel, proof 1: two independent recorders agree. One boot of the
# harness's guest (Debian's kernel) under `tpmtrace vm-record` on the host;
# in the guest, `tpmtrace record --kernel` (eBPF on tpm_transmit) records
# while IMA (ima_policy=tcb) measures KERNEL_PROGRAMS programs run from ext4,
# with tpm2-tools through /dev/tpmrm0 and /dev/tpm0 and hwrng reads between
# them. Every command the host's interposer relayed from the guest
# recorder's first command to its last is in the guest trace, in order,
# byte-identical command and response (--payloads full on both sides); the
# origins are the call path's: IMA's extends `ima`, hwrng reads `hwrng`,
# tpm2-tools `userspace` with pid, program and node, the resource manager's
# swaps `rm-swap`; a trusted key sealed and loaded with keyctl, its commands
# `trusted-keys`, where the kernel has the trusted key type (else "not
# checked" and why); nothing dropped; detaching removes every kprobe. Then
# a second recording with no caller probe (TPMTRACE_KERNEL_CALLERS=0): every
# origin from the kernel stack, as for a call under way at attach. The
# probes are BPF trampolines where the kernel has BTF (Debian's), kprobes
# where it has none (the recipe's 6.12); a third short recording on a BTF
# kernel keeps the CO-RE object on kprobes (TPMTRACE_KERNEL_FENTRY=0).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"
# shellcheck source=kernel-lib.sh
. "$HERE/kernel-lib.sh"

# KERNEL_VARIANT=hmac (test_vm_kernel_hmac.sh): the same boot on Linux 6.12
# built with CONFIG_TCG_TPM2_HMAC (no BTF: the object without CO-RE), and
# the kernel's session commands checked too.
KERNEL_VARIANT=${KERNEL_VARIANT:-}
[ -z "$KERNEL_VARIANT" ] || VM_KERNEL_BUILD=$KERNEL_VARIANT
kernel_setup
# Trusted keys (keyctl from keyutils): sealed and loaded in the workload
# where the guest kernel has the trusted key type (CONFIG_TRUSTED_KEYS).
KCONFIG=$(find "$VM_KROOT/boot" -name 'config-*' 2>/dev/null | head -n1)
if [ "${VM_ARCH:-amd64}" = arm64 ] || vm_need keyctl keyutils; then
	vm_add_tool keyctl || exit 1
	VM_MODULES="${VM_MODULES:-} $(find "$VM_KROOT/lib/modules" -name 'trusted.ko*' 2>/dev/null | grep -q . && echo trusted)"
fi
# Four more programs for the recording whose origins come from the kernel
# stack alone (TPMTRACE_KERNEL_CALLERS=0), each measured once by IMA.
for i in 1 2 3 4; do
	printf '#!/bin/sh\n: stack program %s %s\n' "$i" "$$" >"$VM_WORK/ext4src/s$i.sh"
done
chmod 755 "$VM_WORK/ext4src"/s*.sh
vm_ext4_image "$VM_WORK/ext4src" || exit 1
VM_APPEND="ima_policy=tcb"
HOSTDB=$VM_WORK/host.db
VM_SWTPM=0
VM_TPM_ARGS=()
VM_QEMU_PREFIX=("$TPMTRACE" vm-record --db "$HOSTDB" --payloads full --name host --)

cat >"$VM_WORK/guest.sh" <<'EOF'
#!/bin/sh
. /lib/vm-guest.sh
kv uname "$(uname -r)"
kv btf "$([ -e /sys/kernel/btf/vmlinux ] && echo yes || echo no)"
mount -t debugfs none /sys/kernel/debug 2>/dev/null
# TPM2_StartAuthSession (HMAC, SHA-256, no salt, no bind), sent raw by
# tpm2_send, which neither saves nor flushes the session it starts.
printf '\200\001\000\000\000\053\000\000\001\166\100\000\000\007\100\000\000\007\000\020' >/tmp/sas.bin
printf '\021\021\021\021\021\021\021\021\021\021\021\021\021\021\021\021' >>/tmp/sas.bin
printf '\000\000\000\000\020\000\013' >>/tmp/sas.bin
cat >/tmp/work.sh <<'W'
#!/bin/sh
i=0
. /lib/vm-guest.sh
tx_probes >$VM_OUT/kprobes_during
for p in $VM_EXT4/p*.sh; do
	"$p" || exit 1
	i=$((i + 1))
	if [ $((i % 60)) = 0 ]; then
		TPM2TOOLS_TCTI=device:/dev/tpmrm0 tpm2_createprimary -C o -G ecc256 -c /tmp/p.ctx >/dev/null || exit 2
		TPM2TOOLS_TCTI=device:/dev/tpmrm0 tpm2_getcap properties-fixed >/dev/null || exit 3
		TPM2TOOLS_TCTI=device:/dev/tpm0 tpm2_pcrread sha256:10 >/dev/null || exit 4
		head -c 32 /dev/hwrng >/dev/null || exit 5
	fi
done
echo $i >/tmp/ran
# A session left open: /dev/tpmrm0's close flushes it (tpm2_del_space).
TPM2TOOLS_TCTI=device:/dev/tpmrm0 tpm2_send -o /tmp/sas.rsp </tmp/sas.bin || exit 6
# A trusted key: sealed under the persistent key made before recording
# (tpm2_seal_trusted: Create), its blob read, loaded again
# (tpm2_unseal_trusted: Load, Unseal, FlushContext).
if [ -x /usr/bin/keyctl ]; then
	if id=$(keyctl add trusted kmk "new 32 keyhandle=0x81000001" @u 2>$VM_OUT/trusted.err); then
		keyctl pipe "$id" >/tmp/kmk.blob &&
			keyctl unlink "$id" @u >/dev/null &&
			keyctl add trusted kmk2 "load $(cat /tmp/kmk.blob) keyhandle=0x81000001" @u \
				>/dev/null 2>>$VM_OUT/trusted.err &&
			echo ok >$VM_OUT/trusted
	fi
	[ -e $VM_OUT/trusted ] || echo failed >$VM_OUT/trusted
fi
W
# The trusted key's parent, made before recording (the guest trace's check
# counts tpm2_createprimary within it).
if [ -x /usr/bin/keyctl ]; then
	TPM2TOOLS_TCTI=device:/dev/tpmrm0 tpm2_createprimary -C o -G rsa2048 -c /tmp/srk.ctx >/dev/null &&
		TPM2TOOLS_TCTI=device:/dev/tpmrm0 tpm2_evictcontrol -C o -c /tmp/srk.ctx 0x81000001 >/dev/null
	kv srk $?
fi
tpmtrace record --kernel --db $O/kernel.db --payloads full --name guest -- sh /tmp/work.sh >$O/rec.log 2>&1
kv rec_rc $?
kv ran "$(cat /tmp/ran)"
kv trusted "$(cat $O/trusted 2>/dev/null || echo nokeyctl)"
kv kprobes_during "$(cat $O/kprobes_during)"
kv kprobes_after "$(tx_probes)"
cat /sys/kernel/security/ima/ascii_runtime_measurements >$O/ima.txt
# IMA takes the TPM at its init or never: a TPM driver loaded later as a
# module (the arm64 guest's tpm_tis) leaves it measuring without the TPM.
kv ima_bypass "$(dmesg | grep -c 'TPM-bypass')"
# Origins from the kernel stack alone: no caller probe pushes one, as for a
# call under way when the recorder attaches.
cat >/tmp/stack.sh <<'W'
#!/bin/sh
for p in $VM_EXT4/s*.sh; do "$p" || exit 1; done
TPM2TOOLS_TCTI=device:/dev/tpm0 tpm2_pcrread sha256:10 >/dev/null || exit 2
TPM2TOOLS_TCTI=device:/dev/tpmrm0 tpm2_createprimary -C o -G ecc256 -c /tmp/s.ctx >/dev/null || exit 3
head -c 32 /dev/hwrng >/dev/null || exit 4
TPM2TOOLS_TCTI=device:/dev/tpmrm0 tpm2_send -o /tmp/sas.rsp </tmp/sas.bin || exit 5
W
TPMTRACE_KERNEL_CALLERS=0 tpmtrace record --kernel --db $O/stack.db --name stack -- sh /tmp/stack.sh >$O/rec-stack.log 2>&1
kv stack_rc $?
# Where the kernel has BTF, the CO-RE object on kprobes too (the way when it
# refuses a trampoline; TPMTRACE_KERNEL_FENTRY=0).
if [ -e /sys/kernel/btf/vmlinux ]; then
	cat >/tmp/kp.sh <<'W'
#!/bin/sh
TPM2TOOLS_TCTI=device:/dev/tpmrm0 tpm2_createprimary -C o -G ecc256 -c /tmp/k.ctx >/dev/null || exit 1
TPM2TOOLS_TCTI=device:/dev/tpm0 tpm2_pcrread sha256:10 >/dev/null || exit 2
W
	TPMTRACE_KERNEL_FENTRY=0 tpmtrace record --kernel --db $O/kp.db --name kp -- sh /tmp/kp.sh >$O/rec-kp.log 2>&1
	kv kp_rc $?
fi
EOF

t0=$(date +%s)
vm_run_checked "$VM_WORK/guest.sh" "guest (through vm-record)"
echo "boot: $(($(date +%s) - t0)) s"
cat "$O/rec.log"
check "guest script exit status 0 (got $VM_GUEST_RC)" [ "$VM_GUEST_RC" = 0 ]
check "record --kernel and the workload exit 0 (got $(vm_get rec_rc))" [ "$(vm_get rec_rc)" = 0 ]
check "all $KERNEL_PROGRAMS programs ran" [ "$(vm_get ran)" = "$KERNEL_PROGRAMS" ]
n=$(grep -c ' /mnt/ext4/p[0-9]*\.sh *$' "$O/ima.txt")
check "IMA measured the $KERNEL_PROGRAMS programs (got $n)" [ "$n" = "$KERNEL_PROGRAMS" ]
if [ "$(vm_get kprobes_after)" = nodebugfs ]; then
	echo "not checked: the kprobes while recording and after (this kernel has no debugfs)"
else
	check "the probe on tpm_transmit was there while recording" [ "$(vm_get kprobes_during)" -ge 1 ]
	check "and gone after record --kernel exited" [ "$(vm_get kprobes_after)" = 0 ]
fi

G=$O/kernel.db
q() { "$TPMTRACE" sql "$G" --no-header "$1"; }
# How it attached (the record-start event): BPF trampolines where the kernel
# has BTF (Debian's), kprobes where it has none (the recipe's 6.12).
attached=$(q "SELECT detail FROM event WHERE kind='record-start'")
echo "attached: $attached" | fold -s -w 100
if [ "$(vm_get btf)" = no ]; then
	check "probes: kprobe on Linux $(vm_get uname) (no BTF)" grep -q "probes: kprobe on " <<<"$attached"
elif [ "${VM_ARCH:-amd64}" = arm64 ] && grep -q "probes: kprobe on .*fentry refused" <<<"$attached"; then
	# Debian's arm64 6.1 has BTF but no BPF trampolines (no ftrace direct
	# calls on arm64 there): every probe falls back to a kprobe.
	echo "not checked: probes: fentry (Linux $(vm_get uname) refuses BPF trampolines: kprobes)"
else
	check "probes: fentry on Linux $(vm_get uname) (BTF)" grep -q "probes: fentry on " <<<"$attached"
fi
check "guest trace complete" [ "$(q "SELECT status FROM trace")" = complete ]
check "nothing dropped (ring buffer + writer: $(q "SELECT dropped FROM trace"))" [ "$(q "SELECT dropped FROM trace")" = 0 ]

kernel_compare "$HOSTDB" "$G" >"$VM_WORK/compare.txt" 2>&1
rc=$?
cat "$VM_WORK/compare.txt"
check "every host command from the guest recorder's first to its last is in the guest trace, in order, byte for byte" [ "$rc" != 1 ]
check "no command is shorter in the guest than on the wire (host)" [ "$rc" = 0 ]

# Origins, from the call path.
by() { q "SELECT count(*) FROM command c JOIN client k ON k.trace_id=c.trace_id AND k.id=c.client_id WHERE $1"; }
echo "guest trace by client:"
q "SELECT k.comm || ' | ' || k.peer || ' | pid ' || coalesce(k.pid,'-') || ' | ' || count(*) FROM command c JOIN client k ON k.trace_id=c.trace_id AND k.id=c.client_id GROUP BY k.id ORDER BY min(c.seq)" | head -40
n_ext=$(by "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND c.pcr=10")
# Only the arm64 guest on Debian's kernel may lack IMA's extends, and only
# for that reason: its TIS driver is a module (tests/vm/arm64.sh), IMA says
# "TPM-bypass". The recipe's arm64 kernel has it built in: checked there
# (test_vm_arm64_builtin_kernel_record.sh).
ima_extends=1
if [ "${VM_ARCH:-amd64}" = arm64 ] && [ -z "${VM_KERNEL_BUILD:-}" ] && [ "$(vm_get ima_bypass)" != 0 ] &&
	[ "$n_ext" = 0 ]; then
	ima_extends=0
	echo "not checked: IMA's extends (Linux $(vm_get uname): IMA started before the TPM driver," \
		"a module on Debian's arm64 kernel, and measures in TPM-bypass: no PCR 10 extend is sent)"
else
	check "IMA's extends: at least $KERNEL_PROGRAMS PCR 10 extends (got $n_ext)" [ "$n_ext" -ge "$KERNEL_PROGRAMS" ]
fi
check "every PCR 10 extend has origin ima" [ "$(by "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND c.pcr=10 AND NOT (k.comm='kernel' AND k.peer='ima')")" = 0 ]
check "hwrng reads: GetRandom with origin hwrng (got $(by "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND k.peer='hwrng'"))" [ "$(by "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND k.peer='hwrng'")" -ge 4 ]
n_rm=$(by "k.peer LIKE 'userspace /dev/tpmrm_' AND k.comm='tpm2_createprimary' AND k.pid > 1 AND c.cc = (SELECT cc FROM tpm_cc WHERE name = 'CreatePrimary')")
check "tpm2_createprimary (its full name, not the 15-byte comm) through /dev/tpmrm0: userspace with pid and program (got $n_rm)" [ "$n_rm" = 4 ]
n_t0=$(by "k.peer LIKE 'userspace /dev/tpm_' AND k.comm='tpm2_pcrread' AND k.pid > 1 AND c.cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Read')")
check "tpm2_pcrread through /dev/tpm0: userspace with pid and program (got $n_t0)" [ "$n_t0" -ge 4 ]
n_sw=$(by "k.peer LIKE 'rm-swap /dev/tpmrm_' AND c.cc IN (SELECT cc FROM tpm_cc WHERE name IN ('ContextSave', 'FlushContext'))")
check "the resource manager's ContextSave/FlushContext: rm-swap (got $n_sw)" [ "$n_sw" -ge 8 ]
# FlushContext of a session handle (0x02/0x03) by the program that left it.
closed="c.cc = (SELECT cc FROM tpm_cc WHERE name = 'FlushContext') AND k.peer LIKE 'rm-swap%' AND k.comm = 'tpm2_send' AND hex(substr(c.cmd, 11, 1)) IN ('02', '03')"
check "a session left open: the close's FlushContext is rm-swap, by its program (got $(by "$closed"))" [ "$(by "$closed")" -ge 1 ]
check "no user-space command under a kernel origin" [ "$(by "k.comm='kernel' AND c.cc IN (SELECT cc FROM tpm_cc WHERE name IN ('CreatePrimary', 'PCR_Read', 'GetCapability'))")" = 0 ]
check "no command of an unknown kernel caller" [ "$(by "k.comm='kernel' AND k.peer='kernel'")" = 0 ]
if [ "$KERNEL_VARIANT" = hmac ]; then
	# The kernel's HMAC sessions (tpm2-sessions.c): the null key's ContextLoad,
	# StartAuthSession and the FlushContext of the key, and the flush of the
	# session before each user-space command (tpm_dev_transmit).
	n_sas=$(by "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'StartAuthSession') AND k.comm='kernel'")
	check "the kernel's StartAuthSession sent (got $n_sas)" [ "$n_sas" -ge 1 ]
	check "every StartAuthSession of the kernel's has origin kernel-session" [ "$(by "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'StartAuthSession') AND k.comm='kernel' AND k.peer<>'kernel-session'")" = 0 ]
	check "every ContextLoad of the kernel's is kernel-session (none under ima/hwrng)" [ "$(by "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'ContextLoad') AND k.comm='kernel' AND k.peer<>'kernel-session'")" = 0 ]
	check "the kernel's ContextLoads are there" [ "$(by "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'ContextLoad') AND k.peer='kernel-session'")" -ge 1 ]
	check "IMA's extends carry the kernel's HMAC session (auth_kind 2)" [ "$(by "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND c.pcr=10 AND c.auth_kind=2")" -ge 1 ]
	# Lazy flush (6.12): tpm2_start_auth_session runs before every protected
	# command and returns at once while a session is live; the calls that
	# start one transmit (ContextLoad, StartAuthSession, FlushContext).
	n_calls=$(q "SELECT count(*) FROM event WHERE kind='kernel-span' AND detail GLOB 'tpm2_start_auth_session *'")
	n_span=$(q "SELECT count(*) FROM event WHERE kind='kernel-span' AND detail GLOB 'tpm2_start_auth_session *' AND detail NOT GLOB '* 0 transmissions *'")
	# Each of the kernel's StartAuthSession inside a span that transmitted;
	# only at an edge may one have none: the hwrng's thread reads the TPM on
	# its own, and a session it began before the probes attached has no span,
	# nor one still open when they detach (docs/record-boot.md).
	cover=$(python3 - "$G" <<'PY'
import re, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
spans = []
for t0, d in db.execute("SELECT t_ns, detail FROM event WHERE kind='kernel-span'"):
    m = re.match(r"tpm2_start_auth_session ([0-9.]+) ms: ([0-9]+) transmissions", d)
    if m and int(m.group(2)) > 0:
        spans.append((t0, t0 + int(float(m.group(1)) * 1e6) + 1000))
sas = [t for (t,) in db.execute(
    "SELECT c.t_submit_ns FROM command c JOIN client k ON k.trace_id=c.trace_id AND"
    " k.id=c.client_id WHERE c.cc = (SELECT cc FROM tpm_cc WHERE name = 'StartAuthSession') AND k.comm='kernel'")]
inside = [t for t in sas if any(a <= t <= b for a, b in spans)]
out = [t for t in sas if t not in inside]
edge = [t for t in out if spans and (t < min(a for a, _ in spans) or t > max(b for _, b in spans))]
print(len(spans), len(inside), len(out), len(edge))
PY
)
	read -r n_tx_spans n_in n_out n_edge <<<"$cover"
	echo "StartAuthSession: $n_sas, in a span $n_in, outside $n_out (at an edge $n_edge)"
	check "tpm2_start_auth_session timed: $n_calls calls, $n_tx_spans that transmitted, each holding one StartAuthSession ($n_in)" \
		[ "$n_tx_spans" = "$n_in" ]
	check "every StartAuthSession of the kernel's in a span, but for one at an edge ($n_out outside, $n_edge at an edge)" \
		[ "$n_out" = "$n_edge" -a "$n_edge" -le 2 ]
	check "fill/check of the HMAC timed as spans" [ "$(q "SELECT count(*) FROM event WHERE kind='kernel-span' AND detail GLOB 'tpm_buf_fill_hmac_session *'")" -ge "$KERNEL_PROGRAMS" ]
	q "SELECT detail FROM event WHERE kind='kernel-span' AND detail NOT GLOB '* 0 transmissions *'" | head -4
fi
# Trusted keys: where the kernel has them, their commands are trusted-keys.
trusted_cfg=$(grep -h 'CONFIG_TRUSTED_KEYS[= ]' "$KCONFIG" 2>/dev/null)
case $(vm_get trusted) in
nokeyctl) echo "not checked: trusted keys (no keyctl: package keyutils could not be installed on the host)" ;;
failed)
	if grep -q 'No such device' "$O/trusted.err" 2>/dev/null; then
		echo "not checked: trusted keys (Linux $(vm_get uname) has no trusted key type: ${trusted_cfg:-CONFIG_TRUSTED_KEYS not in its config})"
	elif grep -q 'Function not implemented' "$O/trusted.err" 2>/dev/null; then
		echo "not checked: trusted keys (Linux $(vm_get uname) has no add_key(): no CONFIG_KEYS, so no CONFIG_TRUSTED_KEYS)"
	else
		cat "$O/trusted.err" >&2
		check "the parent key 0x81000001 was made (status $(vm_get srk))" [ "$(vm_get srk)" = 0 ]
		check "keyctl sealed and loaded a trusted key (${trusted_cfg:-config not found})" false
	fi
	;;
ok)
	for cc in 0x153 0x157 0x15E; do
		check "trusted key: command $cc with origin trusted-keys (got $(by "c.cc=$cc AND k.peer='trusted-keys'"))" [ "$(by "c.cc=$cc AND k.peer='trusted-keys'")" -ge 1 ]
		check "... none of the kernel's $cc under another origin" [ "$(by "c.cc=$cc AND k.comm='kernel' AND k.peer<>'trusted-keys'")" = 0 ]
	done
	;;
*) check "the trusted-key part of the workload reported ($(vm_get trusted))" false ;;
esac
# The recording without caller probes: every origin from the kernel stack.
cat "$O/rec-stack.log"
check "record --kernel without caller probes exits 0 (got $(vm_get stack_rc))" [ "$(vm_get stack_rc)" = 0 ]
S=$O/stack.db
sby() { "$TPMTRACE" sql "$S" --no-header "SELECT count(*) FROM command c JOIN client k ON k.trace_id=c.trace_id AND k.id=c.client_id WHERE $1"; }
if [ "$ima_extends" = 1 ]; then
	check "from the stack: IMA's 4 extends of PCR 10 are ima (got $(sby "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND c.pcr=10 AND k.peer='ima'"))" \
		[ "$(sby "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND c.pcr=10 AND k.peer='ima'")" = 4 ]
fi
check "from the stack: tpm2_pcrread's PCR_Read is userspace" \
	[ "$(sby "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Read') AND k.comm='tpm2_pcrread' AND k.peer LIKE 'userspace%'")" -ge 1 ]
check "from the stack: tpm2_createprimary's CreatePrimary is userspace" \
	[ "$(sby "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'CreatePrimary') AND k.comm='tpm2_createprimary' AND k.peer LIKE 'userspace%'")" = 1 ]
check "from the stack: the resource manager's swaps are rm-swap (got $(sby "k.peer LIKE 'rm-swap%'"))" \
	[ "$(sby "k.peer LIKE 'rm-swap%' AND c.cc IN (SELECT cc FROM tpm_cc WHERE name IN ('ContextSave', 'FlushContext'))")" -ge 1 ]
check "from the stack: the hwrng read is hwrng (got $(sby "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND k.peer='hwrng'"))" \
	[ "$(sby "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND k.peer='hwrng'")" -ge 1 ]
check "from the stack: a session left open, the close's FlushContext is rm-swap (got $(sby "$closed"))" \
	[ "$(sby "$closed")" -ge 1 ]
check "from the stack: no command of an unknown kernel caller" \
	[ "$(sby "k.comm='kernel' AND k.peer='kernel'")" = 0 ]
if [ "$KERNEL_VARIANT" = hmac ]; then
	check "from the stack: the kernel's StartAuthSession is kernel-session" \
		[ "$(sby "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'StartAuthSession') AND k.peer='kernel-session'")" -ge 1 -a "$(sby "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'StartAuthSession') AND k.comm='kernel' AND k.peer<>'kernel-session'")" = 0 ]
fi
"$TPMTRACE" stats "$S" --by origin
if [ "$(vm_get btf)" = yes ]; then
	K=$O/kp.db
	kq() { "$TPMTRACE" sql "$K" --no-header "$1"; }
	kby() { kq "SELECT count(*) FROM command c JOIN client k ON k.trace_id=c.trace_id AND k.id=c.client_id WHERE $1"; }
	check "TPMTRACE_KERNEL_FENTRY=0: record --kernel exits 0 (got $(vm_get kp_rc))" [ "$(vm_get kp_rc)" = 0 ]
	check "TPMTRACE_KERNEL_FENTRY=0: probes: kprobe" grep -q "probes: kprobe on " \
		<<<"$(kq "SELECT detail FROM event WHERE kind='record-start'")"
	check "TPMTRACE_KERNEL_FENTRY=0: nothing dropped" [ "$(kq "SELECT dropped FROM trace")" = 0 ]
	check "TPMTRACE_KERNEL_FENTRY=0: CreatePrimary by tpm2_createprimary through /dev/tpmrm0, userspace with its pid" \
		[ "$(kby "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'CreatePrimary') AND k.comm='tpm2_createprimary' AND k.pid > 1 AND k.peer LIKE 'userspace /dev/tpmrm_'")" = 1 ]
	check "TPMTRACE_KERNEL_FENTRY=0: the resource manager's swaps are rm-swap" \
		[ "$(kby "k.peer LIKE 'rm-swap /dev/tpmrm_' AND k.comm='tpm2_createprimary' AND c.cc IN (SELECT cc FROM tpm_cc WHERE name IN ('ContextSave', 'FlushContext'))")" -ge 1 ]
	check "TPMTRACE_KERNEL_FENTRY=0: tpm2_pcrread through /dev/tpm0 is userspace" \
		[ "$(kby "c.cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Read') AND k.comm='tpm2_pcrread' AND k.peer LIKE 'userspace /dev/tpm_'")" -ge 1 ]
	check "TPMTRACE_KERNEL_FENTRY=0: no command of an unknown kernel caller" [ "$(kby "k.comm='kernel' AND k.peer='kernel'")" = 0 ]
fi
"$TPMTRACE" stats "$G" --by origin >"$VM_WORK/stats.txt" 2>&1
check "stats --by origin reads the guest trace" [ $? = 0 ]
cat "$VM_WORK/stats.txt"
finish
