#!/usr/bin/env python3
"""Synthetic inputs for `tools/bench import` (tools/bench): an ascii IMA list
(ima-ng), a crypto-agile TCG event log (SHA-1 and SHA-256 banks) and a pcap of
one TCP connection to a TPM on port 2321 (raw IPv4), N entries each, laid out
as the formats say (tests' and ../shared/data's real files are the models).

usage: bench_import_gen.py ima|tcglog|pcap N OUT"""
import hashlib
import struct
import sys


def ima(n, out):
    with open(out, "w") as f:
        for i in range(n):
            path = "/usr/lib/bench/%06d/file-%d.so" % (i // 1000, i)
            d = hashlib.sha256(path.encode()).hexdigest()
            name = path.encode() + b"\0"
            # ima-ng template data: u32 len, "sha256:\0" + digest; u32 len, name.
            dig = b"sha256:\0" + bytes.fromhex(d)
            data = struct.pack("<I", len(dig)) + dig + struct.pack("<I", len(name)) + name
            th = hashlib.sha1(data).hexdigest()
            f.write("10 %s ima-ng sha256:%s %s\n" % (th, d, path))


def tcglog(n, out):
    algs = [(0x0004, 20), (0x000B, 32)]
    spec = b"Spec ID Event03\0" + struct.pack("<IBBBBI", 0, 0, 2, 2, 2, len(algs))
    for a, s in algs:
        spec += struct.pack("<HH", a, s)
    spec += b"\0"
    with open(out, "wb") as f:
        f.write(struct.pack("<II", 0, 3) + b"\0" * 20 + struct.pack("<I", len(spec)) + spec)
        for i in range(n):
            ev = ("bench event %d: /EFI/boot/grub-module-%d.mod" % (i, i)).encode()
            pcr = 8 + i % 2
            rec = struct.pack("<III", pcr, 0x0D, len(algs))  # EV_IPL
            rec += struct.pack("<H", 0x0004) + hashlib.sha1(ev).digest()
            rec += struct.pack("<H", 0x000B) + hashlib.sha256(ev).digest()
            f.write(rec + struct.pack("<I", len(ev)) + ev)


def pcap(n, out):
    cli, srv = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
    cport, sport = 40000, 2321
    state = {"t": 1_700_000_000_000_000, "c": 1000, "s": 5000}

    def pkt(f, frm_cli, flags, payload=b""):
        src, dst = (cli, srv) if frm_cli else (srv, cli)
        sp, dp = (cport, sport) if frm_cli else (sport, cport)
        seq = state["c"] if frm_cli else state["s"]
        ack = state["s"] if frm_cli else state["c"]
        tcp = struct.pack(">HHIIBBHHH", sp, dp, seq, ack, 5 << 4, flags, 65535, 0, 0)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40 + len(payload), 0, 0x4000, 64, 6, 0,
                         src, dst)
        frame = ip + tcp + payload
        t = state["t"]
        state["t"] += 37
        f.write(struct.pack("<IIII", t // 1_000_000, t % 1_000_000, len(frame), len(frame)))
        f.write(frame)
        adv = len(payload) + (1 if flags & 0x03 else 0)  # SYN, FIN take a number
        state["c" if frm_cli else "s"] = (seq + adv) & 0xFFFFFFFF

    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 101))
        pkt(f, True, 0x02)
        pkt(f, False, 0x12)
        for i in range(n):
            cmd = struct.pack(">HII", 0x8001, 12, 0x17B) + struct.pack(">H", 16)  # GetRandom
            rnd = hashlib.sha256(i.to_bytes(4, "little")).digest()[:16]
            rsp = struct.pack(">HIIH", 0x8001, 28, 0, 16) + rnd
            pkt(f, True, 0x18, cmd)
            pkt(f, False, 0x18, rsp)
        pkt(f, True, 0x11)
        pkt(f, False, 0x11)


if __name__ == "__main__":
    {"ima": ima, "tcglog": tcglog, "pcap": pcap}[sys.argv[1]](int(sys.argv[2]), sys.argv[3])
