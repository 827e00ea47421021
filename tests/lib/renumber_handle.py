"""Gives an object of a recorded trace another handle from one row on, as a
TPM may hand out any free slot: from row FROM_SEQ of trace TRACE, every
OLD handle becomes NEW in the handle area (handle1..3 and the command
bytes), FlushContext's parameter and the response handle (rsp_handle and the
response bytes). The trace stays one a TPM could have answered; a test makes
with it what a recording rarely shows on a given day (a context coming back
under another handle).

Usage: renumber_handle.py DB TRACE FROM_SEQ OLD NEW   (handles as 0x...)
Prints how many rows changed."""
import sqlite3
import struct
import sys

db = sqlite3.connect(sys.argv[1])
trace, first = int(sys.argv[2]), int(sys.argv[3])
old, new = int(sys.argv[4], 0), int(sys.argv[5], 0)
ob, nb = struct.pack(">I", old), struct.pack(">I", new)
changed = 0
for rid, cc, cmd, rsp, h1, h2, h3, rh in db.execute(
        "SELECT id, cc, cmd, rsp, handle1, handle2, handle3, rsp_handle FROM command"
        " WHERE trace_id=? AND seq>=? ORDER BY seq", (trace, first)).fetchall():
    c, r, hs, hit = bytearray(cmd or b""), bytearray(rsp or b""), [h1, h2, h3], False
    for i in range(3):
        if hs[i] == old and len(c) >= 14 + 4 * i:
            c[10 + 4 * i:14 + 4 * i] = nb
            hs[i] = new
            hit = True
    if cc == 0x165 and c[10:14] == ob:  # FlushContext's flushHandle
        c[10:14] = nb
        hit = True
    if rh == old:
        if r[10:14] == ob:
            r[10:14] = nb
        rh, hit = new, True
    if hit:
        db.execute("UPDATE command SET cmd=?, rsp=?, handle1=?, handle2=?, handle3=?,"
                   " rsp_handle=? WHERE id=?",
                   (bytes(c) if cmd is not None else None, bytes(r) if rsp is not None else None,
                    hs[0], hs[1], hs[2], rh, rid))
        changed += 1
db.commit()
print(changed)
