#!/bin/bash
# record --kernel, proof 2: early boot. The HMAC kernel (Linux 6.12,
# CONFIG_TCG_TPM2_HMAC=y) boots under `tpmtrace vm-record` with the words
# `record --kernel --cmdline` prints (kprobe events on tpm_transmit from
# boot on); in the guest, `record --kernel --early /sys/kernel/tracing/trace`
# merges what they saw before it attached ahead of its eBPF part. The
# merged trace is the host's from the kernel's first command on: the same
# commands in the same order, the early ones (flag 64, partial) by their
# leading bytes, the eBPF ones byte for byte; the early part holds the
# kernel's probe, start-up and null key (CreatePrimary, ContextSave,
# FlushContext) before IMA's first extend.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"
[ -x "$TPMTRACE" ] || { echo "tpmtrace binary not found at $TPMTRACE" >&2; exit 1; }
VM_KERNEL_BUILD=hmac
vm_setup
vm_add_bin "$TPMTRACE" /usr/bin/tpmtrace || exit 1
words=$("$TPMTRACE" record --kernel --cmdline)
check "record --kernel --cmdline prints the kprobe_event words" [ -n "$words" ]
VM_APPEND=$words
HOSTDB=$VM_WORK/host.db
VM_SWTPM=0
VM_TPM_ARGS=()
VM_QEMU_PREFIX=("$TPMTRACE" vm-record --db "$HOSTDB" --payloads full --name host --)
cat >"$VM_WORK/guest.sh" <<'EOF2'
#!/bin/sh
. /lib/vm-guest.sh
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
kv clock "$(cat /sys/kernel/tracing/trace_clock)"
tpmtrace record --kernel --early /sys/kernel/tracing/trace --db $O/kernel.db --payloads full \
	-- sh -c 'tpm2_getrandom 8 >/dev/null && tpm2_pcrread sha256:0 >/dev/null' >$O/rec.log 2>&1
kv rec_rc $?
EOF2
t0=$(date +%s)
vm_run_checked "$VM_WORK/guest.sh" "HMAC kernel (through vm-record)"
echo "boot: $(($(date +%s) - t0)) s"
cat "$O/rec.log"
check "guest script exit status 0 (got $VM_GUEST_RC)" [ "$VM_GUEST_RC" = 0 ]
check "the trace clock is CLOCK_MONOTONIC (trace_clock=mono)" grep -q '\[mono\]' <(vm_get clock)
check "record --kernel --early exits 0 (got $(vm_get rec_rc))" [ "$(vm_get rec_rc)" = 0 ]
python3 - "$HOSTDB" "$O/kernel.db" >"$VM_WORK/early.txt" <<'PY'
import sqlite3, sys
h = sqlite3.connect(sys.argv[1]).execute(
    "SELECT c.cc, c.cmd, c.rsp FROM command c JOIN client k ON k.trace_id=c.trace_id AND k.id=c.client_id"
    " WHERE k.peer IS NOT 'firmware' ORDER BY c.seq").fetchall()
g = sqlite3.connect(sys.argv[2]).execute(
    "SELECT cc, cmd, rsp, flags FROM command ORDER BY seq").fetchall()
early = [r for r in g if r[3] & 64]
print(f"host: {len(h)} commands from the kernel's first; guest: {len(early)} early (partial) + {len(g) - len(early)} eBPF")
bad = 0
for i, r in enumerate(g):
    if i >= len(h):
        print(f"guest command {i} beyond the host's"); bad = 1; break
    hc, hcmd, hrsp = h[i]
    if r[0] != hc:
        print(f"command {i}: guest cc 0x{r[0]:x}, host 0x{hc:x}"); bad = 1; break
    if r[3] & 64:
        if not r[1] or not hcmd.startswith(r[1]):
            print(f"command {i} (early): its leading bytes are not the host's"); bad = 1; break
    elif r[1] != hcmd or r[2] != hrsp:
        print(f"command {i} (eBPF): bytes differ"); bad = 1; break
if not bad:
    print(f"all {len(g)} in the host's order from its first kernel command"
          + ("" if len(g) == len(h) else f" (the host has {len(h) - len(g)} more: the power-off's)"))
ccs = [r[0] for r in early]
first_ext = ccs.index(0x182) if 0x182 in ccs else len(ccs)
print("early commands:", " ".join(f"0x{c:x}" for c in ccs[:16]), "..." if len(ccs) > 16 else "")
need = [0x143, 0x131, 0x162, 0x165]
missing = [f"0x{c:x}" for c in need if c not in ccs[:first_ext]]
if missing:
    print("not in the early part before IMA's first extend:", " ".join(missing)); bad = 1
else:
    print("before IMA's first extend, the early part has SelfTest, CreatePrimary, ContextSave, FlushContext")
sys.exit(bad)
PY
rc=$?
cat "$VM_WORK/early.txt"
check "the merged trace is the host's from the kernel's first command, in order (early by prefix, eBPF byte for byte)" [ "$rc" = 0 ]
check "the early part: SelfTest and the null key's CreatePrimary/ContextSave/FlushContext before IMA's first extend" \
	grep -q 'the early part has SelfTest, CreatePrimary, ContextSave, FlushContext' "$VM_WORK/early.txt"
n=$("$TPMTRACE" sql "$O/kernel.db" --no-header "SELECT count(*) FROM command WHERE flags & 64 AND rc IS NULL AND latency_ns > 0")
check "early commands: partial, no response code, with their latency (got $n)" [ "$n" -ge 8 ]
finish
