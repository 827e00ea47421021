"""Rewrites the TPM a trace's stored GetCapability(TPM_PROPERTIES) answers
name: swtpm cannot claim to be another chip, so a test that needs a trace of
an SLB9670 rewrites the property values of the answers it recorded.

Usage: set_chip.py DB MANUFACTURER FW1 FW2 [VENDOR]
  MANUFACTURER: four characters at most ("IFX"); FW1, FW2: the two 32-bit
  TPM_PT_FIRMWARE_VERSION values (7.85.17.51968: 0x00070055 0x0011CB00);
  VENDOR: TPM_PT_VENDOR_STRING_1..4 (16 characters at most; those the
  answers hold are rewritten).
SET_CHIP_TRACE=ID in the environment: the answers of that trace only.
Exits 1 when an answer lacked one of the properties."""
import os
import sqlite3
import struct
import sys

db = sqlite3.connect(sys.argv[1])
want = {0x105: int.from_bytes(sys.argv[2].encode()[:4].ljust(4, b"\0"), "big"),
        0x10B: int(sys.argv[3], 0), 0x10C: int(sys.argv[4], 0)}
if len(sys.argv) > 5:
    v = sys.argv[5].encode()[:16].ljust(16, b"\0")
    for i in range(4):
        want[0x106 + i] = int.from_bytes(v[4 * i:4 * i + 4], "big")
done = set()
only = os.environ.get("SET_CHIP_TRACE")
for rid, rsp in db.execute("SELECT id, rsp FROM command WHERE cc = 0x17A AND rsp IS NOT NULL"
                           " AND (?1 IS NULL OR trace_id = ?1)", (only,)).fetchall():
    b = bytearray(rsp)
    tag, = struct.unpack(">H", b[0:2])
    off = 10 + (4 if tag == 0x8002 else 0) + 1
    cap, count = struct.unpack(">II", b[off:off + 8])
    if cap != 6:
        continue
    off += 8
    for i in range(count):
        pt, = struct.unpack(">I", b[off + 8 * i:off + 8 * i + 4])
        if pt in want:
            b[off + 8 * i + 4:off + 8 * i + 8] = struct.pack(">I", want[pt])
            done.add(pt)
    db.execute("UPDATE command SET rsp = ? WHERE id = ?", (bytes(b), rid))
db.commit()
sys.exit(0 if done == set(want) else 1)
