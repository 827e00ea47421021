#!/usr/bin/env python3
"""A fake TPM backend, for fault injection the real swtpm cannot produce
(tests/README.md: a fake only for that). Used by
tests/integration/test_redaction_unknown_and_malformed_responses_header_only.sh.

  fake_tpm.py serve SOCK SECRET_HEX    raw TPM commands on the unix socket SOCK;
                                       answers the vendor code 0x20000001 and
                                       any TPM2_Unseal (however malformed) with
                                       success responses that carry SECRET, any
                                       other command with a bare success header
  fake_tpm.py client SOCK              sends through the proxy at SOCK: the
                                       vendor command, then an Unseal whose
                                       handle area runs past its end (the
                                       decoder calls it malformed); prints each
                                       response in hex
"""
import os
import socket
import struct
import sys


def read_msg(s):
    hdr = b""
    while len(hdr) < 10:
        b = s.recv(10 - len(hdr))
        if not b:
            return None
        hdr += b
    size = struct.unpack(">I", hdr[2:6])[0]
    body = b""
    while len(body) < size - 10:
        b = s.recv(size - 10 - len(body))
        if not b:
            return None
        body += b
    return hdr + body


def rsp(params):
    return struct.pack(">HII", 0x8001, 10 + len(params), 0) + params


def serve(path, secret):
    if os.path.exists(path):
        os.unlink(path)
    # Bound and listening under another name, then renamed: a client that
    # finds the socket file is never refused (between bind and listen it was,
    # once, on a loaded machine).
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path + ".tmp")
    srv.listen(4)
    os.rename(path + ".tmp", path)
    while True:
        c, _ = srv.accept()
        while True:
            m = read_msg(c)
            if m is None:
                break
            cc = struct.unpack(">I", m[6:10])[0]
            if cc == 0x20000001:
                out = rsp(secret)  # a vendor response: its layout is unknown
            elif cc == 0x15E:
                out = rsp(struct.pack(">H", len(secret)) + secret)  # TPM2B outData
            else:
                out = rsp(b"")
            c.sendall(out)
        c.close()


def client(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    vendor = struct.pack(">HII", 0x8001, 14, 0x20000001) + b"\x00\x00\x00\x01"
    # TPM2_Unseal with two bytes of its four-byte handle: malformed (handles)
    unseal = struct.pack(">HII", 0x8001, 12, 0x15E) + b"\x80\x00"
    for m in (vendor, unseal):
        s.sendall(m)
        r = read_msg(s)
        print(r.hex() if r else "eof")
    s.close()


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2], bytes.fromhex(sys.argv[3]))
    else:
        client(sys.argv[2])
