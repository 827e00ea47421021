#!/usr/bin/env python3
"""The guest's `record --kernel` traces against the host's vm-record trace of
the same boot (tests/vm/kernel-lib.sh: kernel_compare, kernel_compare_handover).

  kernel_compare.py HOSTDB GUESTDB
      the guest trace is a contiguous run of the host's, byte for byte; the
      per-command latency difference (guest - host) printed. Exit 0; 1 when a
      command is missing or differs; 2 when one is shorter in the guest.
  kernel_compare.py HOSTDB INITDB UNITDB
      the initramfs recorder's trace and the unit's after the hand-over: each
      a contiguous run of the host's, the second starting no later than the
      first ends (no command between them; the overlap counted). Exit 0 or 1.

A guest command matches a host one with the same code, rc and sizes, and the
same bytes unless the guest redacted them (flag 1).
"""
import sqlite3
import sys

COLS = "cc, rc, cmd_size, rsp_size, flags, cmd, rsp, latency_ns"


def rows(path, order):
    return sqlite3.connect(path).execute(f"SELECT {COLS} FROM command ORDER BY {order}").fetchall()


def set_aside_resent(h):
    """A command the TPM answers TPM_RC_RETRY, YIELDED or TESTING is sent again
    by the kernel inside one tpm_transmit() call (tpm-interface.c): the guest
    recorder sees that call once, with the last answer. Such host
    transmissions followed by the same command are set aside, and counted."""
    resent = {i for i in range(len(h) - 1) if h[i][1] in (0x922, 0x908, 0x90A) and h[i + 1][5] == h[i][5]}
    if resent:
        print(f"{len(resent)} host transmissions answered "
              + ", ".join(sorted({f"0x{h[i][1]:x}" for i in resent}))
              + " and sent again within one tpm_transmit() call: set aside")
    return [x for i, x in enumerate(h) if i not in resent]


def same(hr, gr):
    return hr[:4] == gr[:4] and (bool(gr[4] & 1) or (hr[5] == gr[5] and hr[6] == gr[6]))


def align(h, g, lo):
    """(start, n): where in h from lo the longest run of g's first commands lies."""
    best = (lo, 0)
    for s in range(lo, len(h)):
        n = 0
        while n < len(g) and s + n < len(h) and same(h[s + n], g[n]):
            n += 1
        if n > best[1]:
            best = (s, n)
        if n == len(g):
            break
    return best


def first_difference(what, h, g, s, n):
    hh = h[s + n] if s + n < len(h) else None
    print(f"{what}: first difference at its command {n}: cc 0x{g[n][0]:x} rc 0x{g[n][1]:x}"
          f" {g[n][2]}/{g[n][3]} bytes; host "
          + (f"cc 0x{hh[0]:x} rc 0x{hh[1]:x} {hh[2]}/{hh[3]} bytes" if hh else "none"))


def one(h, g):
    print(f"host: {len(h)} commands, guest: {len(g)} commands")
    h = set_aside_resent(h)
    if not g:
        print("the guest recorded nothing")
        return 1
    s, n = align(h, g, 0)
    if n == 0:
        print("the guest's first command is nowhere in the host trace")
        return 1
    print(f"aligned at host command {s}: {n} of {len(g)} guest commands match in order, byte for byte")
    if n < len(g):
        first_difference("the guest trace", h, g, s, n)
        return 1
    slower = sorted((gi[7] or 0) - (hi[7] or 0) for gi, hi in zip(g, h[s:s + n]))
    print(f"guest latency - host latency per command: median {slower[len(slower) // 2] / 1e3:.1f} us, "
          f"min {slower[0] / 1e3:.1f} us, max {slower[-1] / 1e3:.1f} us (the driver's own cost)")
    neg = [d for d in slower if d < 0]
    if neg:
        print(f"{len(neg)} commands shorter in the guest than on the host")
        return 2
    return 0


def handover(h, a, b):
    print(f"host: {len(h)} commands; initramfs trace: {len(a)}; unit's trace: {len(b)}")
    h = set_aside_resent(h)
    if not a or not b:
        print("a guest trace is empty")
        return 1
    sa, na = align(h, a, 0)
    print(f"initramfs trace at host command {sa}: {na} of {len(a)} in order")
    sb, nb = align(h, b, sa)
    print(f"unit's trace at host command {sb}: {nb} of {len(b)} in order")
    for g, s, n, what in ((a, sa, na, "initramfs trace"), (b, sb, nb, "unit's trace")):
        if n < len(g):
            first_difference(what, h, g, s, n)
    if na != len(a) or nb != len(b):
        return 1
    if sb > sa + na:
        print(f"gap: host commands {sa + na}..{sb - 1} are in neither trace")
        return 1
    print(f"overlap at the hand-over: {sa + na - sb} commands in both traces; none in neither")
    return 0


if __name__ == "__main__":
    host = rows(sys.argv[1], "trace_id, seq")
    guests = [rows(p, "trace_id, seq") for p in sys.argv[2:]]
    sys.exit(one(host, *guests) if len(guests) == 1 else handover(host, *guests))
