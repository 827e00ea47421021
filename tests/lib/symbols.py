#!/usr/bin/env python3
"""Every external symbol of a room's library carries one of its room's prefixes.

The rooms are the tpmtrace_room() declarations of CMakeLists.txt (read as
tests/lib/layers.py reads them); the prefixes are the table of the section
"Symbol prefixes" of docs/architecture.md, one row per room:
    | `db` | `db_` `json_` | ... |
This reads `nm -g --defined-only` of each BUILD/libtpmtrace_NAME.a (or of the
archive given with --lib NAME=PATH) and fails, naming each offender with its
object file, on a defined external symbol that starts with none of its
room's prefixes. Names that begin with "__" (the compiler's and the
sanitizers') are not ours and are left out. It also fails when a room has
no row or no archive, and when one room's prefix starts with another room's
(a symbol could then belong to both).

The symbols of the rooms that are still to be renamed after branches in
flight merge (tpm and replayer, issue 23) are allowed by
tests/lib/symbols_pending_rename.txt, lines "ROOM SYMBOL": they are counted
as pending, not as offenders; /work/symbols/rename-tpm-replayer.sh renames
them and empties that file.

Usage: symbols.py SOURCE_DIR BUILD_DIR [--lib NAME=PATH]... [--pending FILE]
(exit 0 ok, 1 offenders or a bad table, 2 usage or nm error)"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from layers import rooms_of  # noqa: E402

ROW = re.compile(r"^\|\s*`(\w+)`\s*\|([^|]*)\|")
PREFIX = re.compile(r"`(\w+)`")


def prefix_table(src):
    """{room: [prefix, ...]} from the "Symbol prefixes" section."""
    table = {}
    section = False
    for line in open(os.path.join(src, "docs", "architecture.md")):
        if line.startswith("## "):
            section = line.strip() == "## Symbol prefixes"
            continue
        m = ROW.match(line) if section else None
        if m:
            table[m.group(1)] = PREFIX.findall(m.group(2))
    return table


def defined_symbols(archive):
    """[(object, type, name)] of the archive's defined external symbols."""
    out = subprocess.run(["nm", "-g", "--defined-only", archive], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"nm {archive}: {out.stderr.strip()}")
    syms, obj = [], "?"
    for line in out.stdout.splitlines():
        if line.endswith(":"):
            obj = line[:-1]
            continue
        f = line.split()
        if len(f) == 3 and not f[2].startswith("__"):
            syms.append((obj, f[1], f[2]))
    return syms


def main(argv):
    args, libs, pending_file = [], {}, None
    i = 0
    while i < len(argv):
        if argv[i] == "--lib" and i + 1 < len(argv):
            name, _, path = argv[i + 1].partition("=")
            libs[name] = path
            i += 2
        elif argv[i] == "--pending" and i + 1 < len(argv):
            pending_file = argv[i + 1]
            i += 2
        else:
            args.append(argv[i])
            i += 1
    if len(args) != 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    src, build = (os.path.abspath(a) for a in args)
    if pending_file is None:
        pending_file = os.path.join(src, "tests", "lib", "symbols_pending_rename.txt")
    pending = set()
    if os.path.exists(pending_file):
        for line in open(pending_file):
            f = line.split("#", 1)[0].split()
            if len(f) == 2:
                pending.add((f[0], f[1]))

    rooms = [name for name, _, _ in rooms_of(src)]
    table = prefix_table(src)
    bad = []
    for room in rooms:
        if not table.get(room):
            bad.append(f"room {room} has no row in docs/architecture.md \"Symbol prefixes\"")
    for a in table:
        for b in table:
            for pa in table[a]:
                for pb in table[b]:
                    if a != b and pa.startswith(pb):
                        bad.append(f"prefix {pa} of room {a} starts with {pb} of room {b}")

    total = npending = 0
    seen_pending = set()
    for room in rooms:
        archive = libs.get(room, os.path.join(build, f"libtpmtrace_{room}.a"))
        if not os.path.exists(archive):
            bad.append(f"room {room}: no library {archive}")
            continue
        try:
            syms = defined_symbols(archive)
        except RuntimeError as e:
            print(f"symbols: {e}", file=sys.stderr)
            return 2
        prefixes = tuple(table.get(room, []))
        for obj, kind, name in syms:
            total += 1
            if prefixes and name.startswith(prefixes):
                continue
            if (room, name) in pending:
                npending += 1
                seen_pending.add((room, name))
                continue
            bad.append(f"{room}: {obj}: {kind} {name} (room prefixes: {' '.join(prefixes)})")
    stale = sorted(pending - seen_pending)
    for room, name in stale:
        print(f"symbols: note: pending {room} {name} is no longer an offender")
    for b in bad:
        print(f"symbols: {b}")
    print(f"symbols: {len(rooms)} rooms, {total} external symbols, "
          f"{len(bad)} offenders, {npending} pending rename")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
