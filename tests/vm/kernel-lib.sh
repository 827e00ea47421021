# shellcheck shell=bash
# shellcheck disable=SC2034 # VM_* knobs are read by harness.sh
# tests/vm/kernel-lib.sh -- what the `record --kernel` VM tests share
# (sourced by test_vm_kernel_*.sh after harness.sh): tpmtrace in the guest,
# IMA programs on an ext4 image, and the comparison of the guest's
# `record --kernel` trace with the host's vm-record trace of the same boot.
#
#   kernel_setup                 vm_setup + tpmtrace in the guest + ext4 programs
#   kernel_compare HOSTDB GUESTDB  python check: the guest trace is a
#                                contiguous run of the host's, byte for byte
#   kernel_compare_handover HOSTDB INITDB UNITDB  the same for the two traces
#                                of a hand-over: no command between them

KERNEL_PROGRAMS=${KERNEL_PROGRAMS:-240}

kernel_setup() {
	[ -x "$TPMTRACE" ] || { echo "tpmtrace binary not found at $TPMTRACE" >&2; exit 1; }
	vm_setup
	vm_add_tpmtrace "$TPMTRACE" || exit 1
	local i
	mkdir -p "$VM_WORK/ext4src"
	for i in $(seq -w 1 "$KERNEL_PROGRAMS"); do
		printf '#!/bin/sh\n: program %s %s\n' "$i" "$$" >"$VM_WORK/ext4src/p$i.sh"
	done
	chmod 755 "$VM_WORK/ext4src"/*
	vm_ext4_image "$VM_WORK/ext4src" || exit 1
}

# kernel_compare HOSTDB GUESTDB: prints what it found; exit 0 when every
# guest command is the host's, in order, none missing between the first and
# the last, byte-identical command and response; the per-command latency
# difference (guest - host) printed.
kernel_compare() {
	python3 - "$1" "$2" <<'PY'
import sqlite3, sys
h = sqlite3.connect(sys.argv[1]).execute(
    "SELECT cc, cmd, rsp, latency_ns FROM command ORDER BY trace_id, seq").fetchall()
g = sqlite3.connect(sys.argv[2]).execute(
    "SELECT cc, cmd, rsp, latency_ns FROM command ORDER BY seq").fetchall()
print(f"host: {len(h)} commands, guest: {len(g)} commands")
# A command the TPM answers TPM_RC_RETRY, YIELDED or TESTING is sent again by
# the kernel inside one tpm_transmit() call (tpm-interface.c): the guest
# recorder sees that call once, with the last answer. Such host transmissions
# followed by the same command are set aside, and counted.
def rc(r):
    return int.from_bytes(r[6:10], "big") if r and len(r) >= 10 else None
resent = [i for i in range(len(h) - 1)
          if rc(h[i][2]) in (0x922, 0x908, 0x90A) and h[i + 1][1] == h[i][1]]
if resent:
    print(f"{len(resent)} host transmissions answered "
          + ", ".join(sorted({f"0x{rc(h[i][2]):x}" for i in resent}))
          + " and sent again within one tpm_transmit() call: set aside")
    drop = set(resent)
    h = [x for i, x in enumerate(h) if i not in drop]
if not g:
    print("the guest recorded nothing"); sys.exit(1)
# The guest's first command in the host trace, then every one after it.
starts = [i for i in range(len(h)) if h[i][1] == g[0][1] and h[i][2] == g[0][2]]
best = None
for s in starts:
    n = 0
    while n < len(g) and s + n < len(h) and h[s + n][1] == g[n][1] and h[s + n][2] == g[n][2]:
        n += 1
    if best is None or n > best[1]:
        best = (s, n)
if best is None:
    print("the guest's first command is nowhere in the host trace"); sys.exit(1)
s, n = best
print(f"aligned at host command {s}: {n} of {len(g)} guest commands match in order, byte for byte")
if n < len(g):
    hh = h[s + n] if s + n < len(h) else None
    print(f"first difference at guest command {n}: guest cc 0x{g[n][0]:x}, host "
          + (f"cc 0x{hh[0]:x}" if hh else "none"))
    sys.exit(1)
slower = [(gi[3] or 0) - (hi[3] or 0) for gi, hi in zip(g, h[s:s + n])]
neg = [d for d in slower if d < 0]
slower.sort()
print(f"guest latency - host latency per command: median {slower[len(slower)//2]/1e3:.1f} us, "
      f"min {slower[0]/1e3:.1f} us, max {slower[-1]/1e3:.1f} us (the driver's own cost)")
if neg:
    print(f"{len(neg)} commands shorter in the guest than on the host"); sys.exit(2)
PY
}

# kernel_compare_handover HOSTDB INITDB UNITDB: the initramfs recorder's trace
# is a contiguous run of the host's trace from its first command, the unit's
# trace another, starting no later than the first one ends (no command
# between them; the overlap counted), byte for byte where the guest kept the
# bytes (not redacted). Exit 0 when so.
kernel_compare_handover() {
	python3 - "$1" "$2" "$3" <<'PY'
import sqlite3, sys
Q = "SELECT cc, rc, cmd_size, rsp_size, flags, cmd, rsp FROM command ORDER BY trace_id, seq"
h, a, b = (sqlite3.connect(p).execute(Q).fetchall() for p in sys.argv[1:4])
print(f"host: {len(h)} commands; initramfs trace: {len(a)}; unit's trace: {len(b)}")
# As in kernel_compare: a command answered TPM_RC_RETRY, YIELDED or TESTING
# and sent again within one tpm_transmit() call is one guest record.
resent = [i for i in range(len(h) - 1) if h[i][1] in (0x922, 0x908, 0x90A) and h[i + 1][5] == h[i][5]]
if resent:
    print(f"{len(resent)} host transmissions answered "
          + ", ".join(sorted({f"0x{h[i][1]:x}" for i in resent}))
          + " and sent again within one tpm_transmit() call: set aside")
    h = [x for i, x in enumerate(h) if i not in set(resent)]
def same(hr, gr):
    if hr[:4] != gr[:4]:
        return False
    return bool(gr[4] & 1) or (hr[5] == gr[5] and hr[6] == gr[6])
def align(g, lo):
    best = None
    for s in range(lo, len(h)):
        n = 0
        while n < len(g) and s + n < len(h) and same(h[s + n], g[n]):
            n += 1
        if best is None or n > best[1]:
            best = (s, n)
        if n == len(g):
            break
    return best
if not a or not b:
    print("a guest trace is empty"); sys.exit(1)
sa, na = align(a, 0)
print(f"initramfs trace at host command {sa}: {na} of {len(a)} in order")
sb, nb = align(b, sa)
print(f"unit's trace at host command {sb}: {nb} of {len(b)} in order")
for g, s0, n, what in ((a, sa, na, "initramfs"), (b, sb, nb, "unit's")):
    if n < len(g):
        hh = h[s0 + n] if s0 + n < len(h) else None
        print(f"{what} trace: first difference at its command {n}: cc 0x{g[n][0]:x} rc 0x{g[n][1]:x}"
              f" {g[n][2]}/{g[n][3]} bytes; host " + (f"cc 0x{hh[0]:x} rc 0x{hh[1]:x} {hh[2]}/{hh[3]} bytes"
              if hh else "none"))
if na != len(a) or nb != len(b):
    sys.exit(1)
end_a = sa + na
if sb > end_a:
    print(f"gap: host commands {end_a}..{sb - 1} are in neither trace"); sys.exit(1)
print(f"overlap at the hand-over: {end_a - sb} commands in both traces; none in neither")
PY
}
