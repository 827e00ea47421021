#!/bin/bash
# record --kernel, proof 4: the whole loop. The same guest workload (IMA's
# tcb policy measuring 240 programs from ext4, tpm2-tools commands between
# them) boots on Linux 6.12 built without and with CONFIG_TCG_TPM2_HMAC, both
# under `tpmtrace vm-record --emulate slb9670-linux-integrity --emulate-seed
# 17` (the guest waits for each response as long as on an SLB9670), with
# `record --kernel` in the guest recording the workload. Then `predict
# --policy linux-6.12` of the stock boot's guest-side trace alone gives the
# TPM time of the HMAC boot's guest-side trace (priced as recorded by the
# same profile) within 5%, and its sessions, by the bounds of
# test_vm_hmac_predict.sh (tests/vm/predict_compare.py: the hwrng's reads
# move and add sessions). No timing is compared: both figures are the
# profile's prices of command lists.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"
# shellcheck source=kernel-lib.sh
. "$HERE/kernel-lib.sh"

PROFILE=slb9670-linux-integrity
VM_KERNEL_BUILD=stock
kernel_setup
VM_APPEND="ima_policy=tcb"
VM_SWTPM=0
VM_TPM_ARGS=()
cat >"$VM_WORK/guest.sh" <<'EOF2'
#!/bin/sh
. /lib/vm-guest.sh
kv uname "$(uname -r)"
cat >/tmp/work.sh <<'W'
#!/bin/sh
i=0
for p in $VM_EXT4/p*.sh; do
	"$p" || exit 1
	i=$((i + 1))
	if [ $((i % 60)) = 0 ]; then
		tpm2_getcap properties-fixed >/dev/null || exit 2
		tpm2_pcrread sha256:10 >/dev/null || exit 3
	fi
done
echo $i >/tmp/ran
W
tpmtrace record --kernel --db $O/kernel.db --payloads full --name guest -- sh /tmp/work.sh >$O/rec.log 2>&1
kv rec_rc $?
kv ran "$(cat /tmp/ran)"
EOF2

boot() { # VARIANT
	vm_kernel_build_use "$1" || exit 1
	VM_QEMU_PREFIX=("$TPMTRACE" vm-record --db "$VM_WORK/$1-host.db" --payloads full --name "$1"
		--emulate "$PROFILE" --emulate-seed 17 --)
	rm -rf "$VM_OUT" && mkdir -p "$VM_OUT"
	local t0
	t0=$(date +%s)
	vm_run_checked "$VM_WORK/guest.sh" "$1 kernel (through vm-record)"
	echo "$1 boot: $(($(date +%s) - t0)) s"
	cat "$O/rec.log"
	check "$1: guest script exit status 0 (got $VM_GUEST_RC)" [ "$VM_GUEST_RC" = 0 ]
	check "$1: the guest runs the kernel built ($(vm_get uname))" [ "$(vm_get uname)" = "$VM_KVER" ]
	check "$1: record --kernel and the workload exit 0 (got $(vm_get rec_rc))" [ "$(vm_get rec_rc)" = 0 ]
	check "$1: all $KERNEL_PROGRAMS programs ran" [ "$(vm_get ran)" = "$KERNEL_PROGRAMS" ]
	cp "$O/kernel.db" "$VM_WORK/$1.db"
}
boot stock
boot hmac
sq() { "$TPMTRACE" sql "$VM_WORK/$1.db" --no-header "$2"; }
check "stock guest trace: no session commands" [ "$(sq stock "SELECT count(*) FROM command WHERE cc IN (SELECT cc FROM tpm_cc WHERE name IN ('ContextLoad', 'StartAuthSession'))")" = 0 ]
check "HMAC guest trace: the kernel's sessions" [ "$(sq hmac "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'StartAuthSession')")" -ge 1 ]
"$TPMTRACE" predict "$VM_WORK/stock.db" --profile "$PROFILE" --policy linux-6.12 --host-crypto estimate \
	--json >"$VM_WORK/pred.json" 2>"$VM_WORK/pred.err"
check "predict the stock guest trace under linux-6.12: exit status" [ $? = 0 ]
"$TPMTRACE" predict "$VM_WORK/hmac.db" --profile "$PROFILE" --policy as-recorded --host-crypto estimate \
	--json >"$VM_WORK/real.json" 2>"$VM_WORK/real.err"
check "price the HMAC guest trace as recorded: exit status" [ $? = 0 ]
# The hwrng's reads in each guest trace: they fall on the kernel's clock, not
# the workload's (tests/vm/predict_compare.py says what that allows).
reads() { sq "$1" "SELECT count(*) FROM command c JOIN client l ON l.trace_id=c.trace_id AND l.id=c.client_id WHERE c.cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND l.peer='hwrng'"; }
hw_s=$(reads stock)
hw_h=$(reads hmac)
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hwrng_reads"])' "$VM_WORK/pred.json")
check "predict --json: hwrng_reads is the stock guest trace's $hw_s (got $n)" [ "$n" = "$hw_s" ]
python3 "$HERE/predict_compare.py" "$VM_WORK/pred.json" "$VM_WORK/real.json" "$hw_s" "$hw_h" >"$VM_WORK/compare.txt"
rc=$?
cat "$VM_WORK/compare.txt" "$VM_WORK/pred.err"
check "predicted TPM time from the stock guest trace within 5% (adjusted) of the HMAC guest trace's" [ "$rc" = 0 ]
finish
