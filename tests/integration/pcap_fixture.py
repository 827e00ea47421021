#!/usr/bin/env python3
"""Test fixtures made from real captures, for the pcap importer tests.

  pcap_fixture.py dump [--split N] [--mssim] [--locality L] < FIELDS > HEXDUMP
      FIELDS: lines of `tshark -T fields -e frame.time_epoch -e tcp.srcport
      -e tcp.payload` (TPM port 2321). Writes text2pcap input with direction
      markers (-D; text2pcap puts "I" packets from its -4/-T source). --split
      cuts every message into N-byte segments; --mssim wraps messages in the
      MS simulator framing (command: u32 8, u8 locality, u32 size; response
      sent as u32 size, response, u32 0 in three segments).
  pcap_fixture.py platform T0 CODE... > HEXDUMP
      Simulator platform-port requests (u32 codes), 1 ms apart from epoch
      time T0, without replies.
  pcap_fixture.py relink KIND IN.pcap OUT.pcap
      Rewrites a classic Ethernet pcap (as text2pcap/editcap write it) to
      KIND = sll | sll2 | null: the Ethernet header is replaced by the other
      link-layer header, packets are otherwise unchanged.
  pcap_fixture.py many N OUT.pcap [--no-fin]
      A classic pcap (raw IPv4) of N TCP connections to port 2321, one command
      each as tpm2-tss's swtpm TCTI makes them: GetRandom(16), its answer, FIN
      both ways (carried by the data segments); client ports cycle from 10000,
      a new client address every 50000 connections, 100 us between
      connections. --no-fin: no FIN (connections end only by the importer's
      idle gap).
"""
import struct
import sys
import time


def stamp(t):
    sec, _, frac = t.partition(".")
    frac = (frac + "000000000")[:9]
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(int(sec))) + "." + frac


def add_ns(t, ns):
    sec, _, frac = t.partition(".")
    total = int(sec) * 10**9 + int((frac + "000000000")[:9]) + ns
    return "%d.%09d" % (total // 10**9, total % 10**9)


def hexdump(out, d, t, data):
    out.write("%s %s\n" % (d, stamp(t)))
    for o in range(0, len(data), 16):
        out.write("%06x %s\n" % (o, " ".join("%02x" % x for x in data[o:o + 16])))


def dump(args):
    split = 0
    mssim = False
    locality = 0
    i = 0
    while i < len(args):
        if args[i] == "--split":
            split = int(args[i + 1])
            i += 1
        elif args[i] == "--mssim":
            mssim = True
        elif args[i] == "--locality":
            locality = int(args[i + 1])
            i += 1
        i += 1
    out = sys.stdout
    for line in sys.stdin:
        f = line.split()
        if len(f) < 3:
            continue
        t, sport, payload = f[0], f[1], bytes.fromhex(f[2].replace(":", ""))
        to_tpm = sport != "2321"
        d = "I" if to_tpm else "O"
        if mssim:
            if to_tpm:
                parts = [struct.pack(">IBI", 8, locality, len(payload)) + payload]
            else:
                parts = [struct.pack(">I", len(payload)), payload, struct.pack(">I", 0)]
        else:
            parts = [payload]
        segs = []
        for p in parts:
            if split:
                segs += [p[o:o + split] for o in range(0, len(p), split)]
            else:
                segs.append(p)
        for k, s in enumerate(segs):
            hexdump(out, d, add_ns(t, k), s)


def platform(args):
    t0 = args[0]
    for k, code in enumerate(args[1:]):
        hexdump(sys.stdout, "I", add_ns(t0, k * 1000000), struct.pack(">I", int(code)))


def relink(args):
    kind, src, dst = args
    data = open(src, "rb").read()
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        e = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        e = ">"
    else:
        sys.exit("%s: not a classic pcap file" % src)
    vmaj, vmin, zone, sig, snap, link = struct.unpack_from(e + "HHiIII", data, 4)
    if link != 1:
        sys.exit("%s: link type %d, expected Ethernet (1)" % (src, link))
    new_link = {"sll": 113, "sll2": 276, "null": 0}[kind]
    out = [struct.pack(e + "IHHiIII", magic, vmaj, vmin, zone, sig, snap, new_link)]
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack_from(e + "IIII", data, off)
        pkt = data[off + 16:off + 16 + incl]
        off += 16 + incl
        etype = struct.unpack_from(">H", pkt, 12)[0]
        body = pkt[14:]
        # Packets from the client (source MAC of text2pcap's first address) are
        # "outgoing" (4) in the SLL packet type, replies "to us" (0).
        if kind == "sll":
            hdr = struct.pack(">HHH8sH", 0, 1, 6, pkt[6:12] + b"\0\0", etype)
        elif kind == "sll2":
            hdr = struct.pack(">HHIHBB8s", etype, 0, 1, 1, 0, 6, pkt[6:12] + b"\0\0")
        else:
            # DLT_NULL: the address family in the capturing host's byte order
            # (little-endian here); AF_INET6 as on FreeBSD (28).
            hdr = struct.pack("<I", 2 if etype == 0x0800 else 28)
        new = hdr + body
        delta = len(new) - len(pkt)
        out.append(struct.pack(e + "IIII", sec, frac, len(new), orig + delta) + new)
    open(dst, "wb").write(b"".join(out))


def many(args):
    n, dst = int(args[0]), args[1]
    fin = "--no-fin" not in args
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 228)]
    cmd = struct.pack(">HIIH", 0x8001, 12, 0x17B, 16)
    rsp = struct.pack(">HIIH", 0x8001, 28, 0, 16) + bytes(range(16))
    lo = bytes([127, 0, 0, 1])

    def packet(t_us, sport, dport, seq, flags, payload, client):
        tcp = struct.pack(">HHIIBBHHH", sport, dport, seq, 0, 5 << 4, flags, 65535, 0, 0)
        src, dst = (client, lo) if dport == 2321 else (lo, client)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40 + len(payload), 0, 0x4000, 64, 6, 0, src, dst)
        d = ip + tcp + payload
        return struct.pack("<IIII", t_us // 10**6, t_us % 10**6, len(d), len(d)) + d

    for i in range(n):
        port = 10000 + i % 50000  # never the TPM ports
        t = 1700000000 * 10**6 + i * 100
        f = 0x18 | (0x01 if fin else 0)  # PSH ACK (FIN)
        seq = (i * 4096) & 0xFFFFFFFF  # a new connection on a reused port starts afresh
        client = bytes([127, 1, i // 50000 % 256, 1])  # a new address every 50000
        out.append(packet(t, port, 2321, seq, f, cmd, client))
        out.append(packet(t + 50, 2321, port, seq, f, rsp, client))
    open(dst, "wb").write(b"".join(out))


if __name__ == "__main__":
    cmds = {"dump": dump, "platform": platform, "relink": relink, "many": many}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[sys.argv[1]](sys.argv[2:])
