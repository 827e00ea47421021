#!/usr/bin/env python3
"""secret_search.py NEEDLES FILE...

Searches the files for every needle in every form it could take: its raw
bytes, hex text (either case), base64 at each of the three alignments (edge
characters dropped) and UTF-16LE. NEEDLES holds one needle a line, "secret HEX"
or "public HEX" (a bare HEX is a secret; other lines are ignored). Prints

    secret N BYTES
    public M

N secret needles found (BYTES their total length), M public needles found
(raw bytes only: the control that shows the search finds what is there); each
secret found is named on stderr with the file and form.
"""
import base64
import sys


def forms(b):
    yield "raw", b
    yield "hex", b.hex().encode()
    yield "HEX", b.hex().upper().encode()
    for skip in range(3):
        e = base64.b64encode(b[skip:])
        e = e[1:-3]  # the edge characters depend on the neighbours
        if len(e) >= 8:
            yield "base64", e
    yield "utf-16", b.decode("latin-1").encode("utf-16-le")


def main():
    needles = []
    for line in open(sys.argv[1]):
        w = line.split()
        if not w or w[0] not in ("secret", "public") and len(w) > 1:
            continue
        kind, h = ("secret", w[0]) if len(w) == 1 else (w[0], w[1])
        needles.append((kind, bytes.fromhex(h)))
    files = {}
    for f in sys.argv[2:]:
        try:
            files[f] = open(f, "rb").read()
        except OSError:
            pass
    secret = secret_bytes = public = 0
    for kind, b in needles:
        if kind == "public":
            public += any(b in data for data in files.values())
            continue
        hit = None
        for name, data in files.items():
            for form, x in forms(b):
                if x in data:
                    hit = (name, form)
                    break
            if hit:
                break
        if hit:
            secret += 1
            secret_bytes += len(b)
            print("found %s in %s (%s)" % (b.hex(), hit[0], hit[1]), file=sys.stderr)
    print("secret %d %d" % (secret, secret_bytes))
    print("public %d" % public)


if __name__ == "__main__":
    main()
