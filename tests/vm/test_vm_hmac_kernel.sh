#!/bin/bash
# Ground truth from a real HMAC kernel (docs/policies.md, "Checked against a
# real kernel"): Linux 6.12 built from Debian's linux-source-6.12 with
# CONFIG_TCG_TPM2_HMAC=y (tests/vm/linux-6.12.recipe; built once and cached,
# see tests/vm/README.md) boots under `tpmtrace vm-record` with IMA measuring
# 240 programs from ext4 and tpm2-tools commands in between.
#
# 1. The boot's origins: `tpmtrace attribute` lines the guest kernel's ftrace
#    up with the trace (every transmission whose function names its command
#    meets that command); `stats --by origin` shows the firmware's, the
#    kernel's and user space's commands; the kernel's session is really on
#    (its null key's Name is in sysfs, the trace holds its CreatePrimary under
#    TPM_RH_NULL and salted StartAuthSessions).
# 2. Strip and re-expand: `tpmtrace strip` makes the password-equivalent of
#    the real trace; `replay --policy linux-6.12` of it on a fresh swtpm sends
#    what the kernel sent, command for command: codes and order, handles (the
#    replay's handles mapped one to one onto the recording's), command and
#    response sizes, session attributes, response codes. The same for a second
#    boot with tpm.disable_pcr_integrity=1 against
#    linux-6.12-no-pcr-integrity. Nothing here compares timings.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"
# shellcheck source=hmac-lib.sh
. "$HERE/hmac-lib.sh"

command -v python3 >/dev/null || { echo "python3 is needed to compare the traces" >&2; exit 1; }
hmac_setup
DB=$VM_WORK/hmac.db
q() { "$TPMTRACE" sql "$DB" --no-header "$1"; }

# same DB REAL REPLAY: the replay sends what the real kernel sent. Prints the
# first differences; exit status 0 when there are none. Response codes are
# compared too, but for commands recorded before the TPM was powered on
# (QEMU's own probe, before ctrl:INIT: a TPM not powered answers
# TPM_RC_FAILURE, the replay's powered one TPM_RC_INITIALIZE).
same() {
	python3 - "$@" <<'PY'
import sqlite3, sys
db, real, rep = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c = sqlite3.connect(db)
cols = "cc, tag, cmd_size, rsp_size, rc, n_sessions, sess_attrs, handle1, handle2, handle3, rsp_handle, sess_handle"
a = c.execute(f"SELECT {cols}, seq FROM command WHERE trace_id=? ORDER BY seq", (real,)).fetchall()
b = c.execute(f"SELECT {cols}, seq FROM command WHERE trace_id=? ORDER BY seq", (rep,)).fetchall()
power_on = c.execute("SELECT min(seq) FROM event WHERE trace_id=? AND kind='ctrl:INIT'", (real,)).fetchone()[0] or 0
# Transient objects, sessions and loaded contexts get handles of the TPM's
# choosing: they must map one to one; every other handle must be equal.
fwd, back, bad = {}, {}, []
def mapped(x, y):
    if x is None or y is None or (x >> 24) not in (0x80, 0x02, 0x03):
        return x == y
    if fwd.setdefault(x, y) != y or back.setdefault(y, x) != x:
        return False
    return True
names = cols.split(", ")
for i in range(max(len(a), len(b))):
    if i >= len(a) or i >= len(b):
        bad.append(f"command {i + 1}: only in the {'replay' if i >= len(a) else 'recording'}")
        break
    for k, (x, y) in enumerate(zip(a[i][:-1], b[i][:-1])):
        if names[k] == "rc" and a[i][-1] < power_on:
            continue
        ok = mapped(x, y) if names[k].startswith(("handle", "rsp_handle", "sess_handle")) else x == y
        if not ok:
            bad.append(f"command {i + 1} ({a[i][0]:#x}): {names[k]} recorded {x}, replayed {y}")
for l in bad[:10]:
    print("  " + l, file=sys.stderr)
print(f"{len(a)} recorded, {len(b)} replayed, {len(bad)} differences, {len(fwd)} handles mapped")
sys.exit(1 if bad else 0)
PY
}

# strip_and_reexpand NAME POLICY: the test's second part for one boot.
strip_and_reexpand() {
	local name=$1 pol=$2 real stripped rep out
	real=$(hmac_trace "$DB" "$name")
	out=$("$TPMTRACE" strip "$DB" --trace "$real" --json)
	check "$name: strip exit status" [ $? = 0 ]
	stripped=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["trace"])' <<<"$out")
	echo "$name: strip: $out"
	check "$name: the password-equivalent holds no session set-up" \
		[ "$(q "SELECT count(*) FROM command WHERE trace_id=$stripped AND cc IN (SELECT cc FROM tpm_cc WHERE name IN ('ContextLoad', 'StartAuthSession'))")" = 0 ]
	check "$name: the password-equivalent holds no HMAC authorization" \
		[ "$(q "SELECT count(*) FROM command WHERE trace_id=$stripped AND auth_kind >= 2")" = 0 ]
	check "$name: the password-equivalent keeps every PCR_Extend" \
		[ "$(q "SELECT count(*) FROM command WHERE trace_id=$stripped AND cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend')")" = \
		"$(q "SELECT count(*) FROM command WHERE trace_id=$real AND cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend')")" ]
	"$TPMTRACE" replay "$DB" --trace "$stripped" --policy "$pol" --json >"$VM_WORK/$name.replay.json" \
		2>"$VM_WORK/$name.replay.err"
	check "$name: replay --policy $pol of the password-equivalent: exit status" [ $? = 0 ]
	rep=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["trace"])' \
		"$VM_WORK/$name.replay.json" 2>/dev/null)
	echo "$name: re-expanded with $pol (trace $rep):"
	same "$DB" "$real" "${rep:-0}"
	check "$name: the re-expansion equals the real kernel's trace command for command" [ $? = 0 ]
}

# ---- 1. the HMAC boot and its origins ---------------------------------------
hmac_boot hmac "$DB" hmac
check "HMAC kernel: the null key's Name is in sysfs" [ "$(vm_get null_name)" = present ]
H=$(hmac_trace "$DB" hmac)
"$TPMTRACE" stats "$DB" --trace "$H" --by origin >"$VM_WORK/origin.txt"
check "stats --by origin: exit status" [ $? = 0 ]
cat "$VM_WORK/origin.txt"
n_of() { awk -v o="$1" '$1 == o { print $2 }' "$VM_WORK/origin.txt"; }
check "the firmware's commands (got $(n_of firmware))" [ "$(n_of firmware)" -ge 10 ]
check "the kernel's commands (got $(n_of kernel))" [ "$(n_of kernel)" -gt "$HMAC_PROGRAMS" ]
check "user space's commands (got $(n_of userspace))" [ "$(n_of userspace)" -ge 8 ]
fw_last=$(q "SELECT max(c.seq) FROM command c JOIN client l ON l.trace_id=c.trace_id AND l.id=c.client_id WHERE c.trace_id=$H AND l.peer='firmware'")
check "no session command among the firmware's" \
	[ "$(q "SELECT count(*) FROM command WHERE trace_id=$H AND seq <= $fw_last AND (cc IN (SELECT cc FROM tpm_cc WHERE name IN ('CreatePrimary', 'ContextLoad', 'StartAuthSession')) OR auth_kind >= 2)")" = 0 ]
check "the kernel created its null key (CreatePrimary under TPM_RH_NULL)" \
	[ "$(q "SELECT count(*) FROM command WHERE trace_id=$H AND cc = (SELECT cc FROM tpm_cc WHERE name = 'CreatePrimary') AND handle1=0x40000007 AND rc=0")" = 1 ]
check "the kernel's PCR 10 extends carry HMAC sessions" \
	[ "$(q "SELECT count(*) FROM command WHERE trace_id=$H AND cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND pcr=10 AND auth_kind=2")" -ge "$HMAC_PROGRAMS" ]
check "user space's commands made the kernel start sessions again" \
	[ "$(q "SELECT count(*) FROM command WHERE trace_id=$H AND cc = (SELECT cc FROM tpm_cc WHERE name = 'StartAuthSession')")" -ge 4 ]
check "tpmtrace verify accepts the database" "$TPMTRACE" verify "$DB" >/dev/null

# ---- 2. strip and re-expand -------------------------------------------------
strip_and_reexpand hmac linux-6.12

HMAC_APPEND="tpm.disable_pcr_integrity=1"
hmac_boot hmac "$DB" hmac-no-pcr-integrity
N=$(hmac_trace "$DB" hmac-no-pcr-integrity)
check "disable_pcr_integrity: PCR 10 extends with a password session" \
	[ "$(q "SELECT count(*) FROM command WHERE trace_id=$N AND cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND pcr=10 AND auth_kind=2")" = 0 ]
strip_and_reexpand hmac-no-pcr-integrity linux-6.12-no-pcr-integrity

# ---- 3. the harness's own checks fail a boot that is not what was asked ----
# A kernel that is not the variant claimed (the stock kernel booted as the
# HMAC one), and an ext4 image that does not mount (its superblock zeroed):
# vm_boot fails, naming the reason; the guest script does not run.
VM_QEMU_PREFIX=()
VM_SWTPM=1
unset VM_TPM_ARGS
HMAC_APPEND=
VM_APPEND=
printf '#!/bin/sh\necho ran >$VM_OUT/ran\n' >"$VM_WORK/plain.sh"
vm_kernel_build_use stock || exit 1
stock_kernel=$VM_KERNEL
vm_kernel_build_use hmac || exit 1
VM_KERNEL=$stock_kernel # claimed: the HMAC kernel; booted: the stock one
rm -rf "$VM_OUT" && mkdir -p "$VM_OUT"
vm_run "$VM_WORK/plain.sh" 2>"$VM_WORK/guard.err"
rc=$?
check "a kernel not the variant claimed fails the boot" [ "$rc" != 0 ]
check "the failure says why" grep -q 'null_name is missing' "$VM_WORK/guard.err"
check "the guest script did not run" [ ! -e "$VM_OUT/ran" ]

vm_kernel_build_use hmac || exit 1
dd if=/dev/zero of="$VM_EXT4_IMG" bs=1k count=4 conv=notrunc status=none
rm -rf "$VM_OUT" && mkdir -p "$VM_OUT"
vm_run "$VM_WORK/plain.sh" 2>"$VM_WORK/ext4.err"
rc=$?
check "an ext4 image that does not mount fails the boot" [ "$rc" != 0 ]
check "the failure says why" grep -q 'cannot mount the ext4 image' "$VM_WORK/ext4.err"
check "the guest script did not run" [ ! -e "$VM_OUT/ran" ]

finish
