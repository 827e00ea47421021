#!/usr/bin/env python3
"""Hostile clients of the recording proxy, for tests/integration/test_hostile_*.sh.

  hostile.py smuggle SPEC             4105 bytes in one write: a 4040-byte TPM2_Hash
                                      (within the 4096-byte maximum) and a
                                      PCR_Extend(16) after it
  hostile.py oversize SPEC            a command declaring 4105 bytes (over the
                                      maximum) and a PCR_Extend(16) after it, in one
                                      write
  hostile.py understate SPEC HEX      a HierarchyChangeAuth(owner) with a password
                                      session and newAuth HEX whose size field says
                                      20 bytes fewer than it has, in one write
  hostile.py pipeline SPEC            GetRandom(8) and PCR_Extend(16) in one write
  hostile.py split SPEC               a PCR_Extend(16) in three writes, 50 ms apart
  hostile.py mssim-smuggle HOST:PORT  a simulator frame of 12 + 41 bytes whose
                                      command says 12 (a PCR_Extend(16) hidden in the
                                      frame), then a GetRandom(4) frame
  hostile.py mssim-locality HOST:PORT LOC   GetRandom(4) at locality LOC
  hostile.py idle SPEC N SECONDS      opens N connections and holds them; prints
                                      how many the proxy closed within SECONDS
  hostile.py qemu CTRLPATH            QEMU's side of the interposer: INIT, then a data
                                      channel by SET_DATAFD carrying Startup, then
                                      GetRandom(8) and PCR_Extend(16) in one write,
                                      then a command declaring 4105 bytes with a
                                      PCR_Extend behind it

Each exchange prints the answers it got (hex, one per line, framed by their
headers) and then "eof" if the proxy closed the connection, or "open".
SPEC is unix:PATH or tcp:HOST:PORT.
"""
import select
import socket
import struct
import sys
import time


def connect(spec):
    if spec.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(spec[5:])
        return s
    host, port = spec[4:].rsplit(":", 1) if spec.startswith("tcp:") else spec.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def getrandom(n):
    return struct.pack(">HIIH", 0x8001, 12, 0x17B, n)


def pcr_extend(pcr, fill):
    """TPM2_PCR_Extend(pcr) with an empty password session, one sha256 digest."""
    body = struct.pack(">I", pcr) + struct.pack(">IIHBH", 9, 0x40000009, 0, 0, 0)
    body += struct.pack(">IH", 1, 0x000B) + bytes([fill]) * 32
    return struct.pack(">HII", 0x8002, 10 + len(body), 0x182) + body


def answers(s, mssim=False, timeout=2.0):
    """Reads answers until EOF or until nothing comes for timeout seconds."""
    buf = b""
    out = []
    eof = False
    s.setblocking(False)
    while True:
        r, _, _ = select.select([s], [], [], timeout)
        if not r:
            break
        try:
            d = s.recv(65536)
        except ConnectionResetError:
            d = b""
        if not d:
            eof = True
            break
        buf += d
        while True:
            if mssim:
                if len(buf) < 4:
                    break
                n = struct.unpack(">I", buf[:4])[0]
                if len(buf) < 4 + n + 4:
                    break
                out.append(buf[4 : 4 + n].hex())
                buf = buf[8 + n :]
            else:
                if len(buf) < 6:
                    break
                n = struct.unpack(">I", buf[2:6])[0]
                if n < 10 or len(buf) < n:
                    break
                out.append(buf[:n].hex())
                buf = buf[n:]
    for a in out:
        print(a)
    if buf:
        print("partial " + buf.hex())
    print("eof" if eof else "open")
    sys.stdout.flush()


def ms_frame(loc, cmd, size=None):
    return struct.pack(">IBI", 8, loc, len(cmd) if size is None else size) + cmd


def main():
    what = sys.argv[1]
    if what == "smuggle":
        s = connect(sys.argv[2])
        ext = pcr_extend(16, 0xEE)
        n = 4105 - len(ext)
        # TPM2_Hash: TPM2B data, hashAlg, hierarchy (Part 3 15.4)
        body = struct.pack(">H", n - 18) + bytes(n - 18) + struct.pack(">HI", 0x000B, 0x40000007)
        s.sendall(struct.pack(">HII", 0x8001, n, 0x17D) + body + ext)
        answers(s)
    elif what == "oversize":
        s = connect(sys.argv[2])
        big = struct.pack(">HII", 0x8001, 4105, 0x17D) + bytes(4105 - 10)
        s.sendall(big + pcr_extend(16, 0xAA))
        answers(s)
    elif what == "understate":
        s = connect(sys.argv[2])
        auth = bytes.fromhex(sys.argv[3])
        body = struct.pack(">I", 0x40000001) + struct.pack(">IIHBH", 9, 0x40000009, 0, 0, 0)
        body += struct.pack(">H", len(auth)) + auth
        s.sendall(struct.pack(">HII", 0x8002, 10 + len(body) - 20, 0x129) + body)
        answers(s)
    elif what == "pipeline":
        s = connect(sys.argv[2])
        s.sendall(getrandom(8) + pcr_extend(16, 0xBB))
        answers(s)
    elif what == "split":
        s = connect(sys.argv[2])
        c = pcr_extend(16, 0xCC)
        for part in (c[:3], c[3:20], c[20:]):
            s.sendall(part)
            time.sleep(0.05)
        answers(s)
    elif what == "mssim-smuggle":
        s = connect(sys.argv[2])
        hidden = getrandom(8) + pcr_extend(16, 0xDD)
        s.sendall(ms_frame(0, hidden) + ms_frame(0, getrandom(4)))
        answers(s, mssim=True)
    elif what == "mssim-locality":
        s = connect(sys.argv[2])
        s.sendall(ms_frame(int(sys.argv[3]), getrandom(4)))
        answers(s, mssim=True)
    elif what == "qemu":
        ctrl = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ctrl.connect(sys.argv[2])
        ctrl.sendall(struct.pack(">II", 2, 0))  # CMD_INIT, flags 0
        print("init " + ctrl.recv(4).hex())
        mine, theirs = socket.socketpair()
        socket.send_fds(ctrl, [struct.pack(">I", 0x10)], [theirs.fileno()])  # SET_DATAFD
        print("datafd " + ctrl.recv(4).hex())
        theirs.close()
        mine.sendall(struct.pack(">HIIH", 0x8001, 12, 0x144, 0))  # Startup(CLEAR)
        answers(mine, timeout=2.0)
        mine.sendall(getrandom(8) + pcr_extend(16, 0xBB))
        answers(mine, timeout=2.0)
        big = struct.pack(">HII", 0x8001, 4105, 0x17D) + bytes(4105 - 10)
        mine.sendall(big + pcr_extend(16, 0xAA))
        answers(mine, timeout=2.0)
        ctrl.close()
    elif what == "idle":
        n, secs = int(sys.argv[3]), float(sys.argv[4])
        socks = []
        for _ in range(n):
            socks.append(connect(sys.argv[2]))
        print("opened %d" % len(socks))
        sys.stdout.flush()
        closed = set()
        end = time.time() + secs
        p = select.poll()  # select() stops at descriptor 1024
        for s in socks:
            p.register(s, select.POLLIN)
        byfd = {s.fileno(): s for s in socks}
        while len(closed) < n and time.time() < end:
            for fd, _ in p.poll(200):
                try:
                    d = byfd[fd].recv(16)
                except OSError:
                    d = b""
                if not d:
                    closed.add(fd)
                    p.unregister(fd)
        print("closed %d" % len(closed))
    else:
        sys.exit("unknown: " + what)


if __name__ == "__main__":
    main()
