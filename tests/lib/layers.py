#!/usr/bin/env python3
"""The rooms of the tree and their order, checked.

CMakeLists.txt declares each room with tpmtrace_room(NAME DIR DEPS...): a
folder of C files built into one static library that links only the rooms
it names. This reads those declarations (the only place the order is
written), then every quoted #include of the tree, and fails when
  - a room's library links a room declared after it (the order is the
    declaration order: lower rooms first),
  - a file includes a header of a room that its own room does not reach
    through the links (an upward or sideways include),
  - the rooms' include graph has a cycle.
  - a folder of the library tops (model/ db/ recorder/ replayer/) holds C
    files but is no room, or a room includes the front ends (tools/).
Files under tools/ (the front ends) may include any room; tests/ and build
trees are not read.

Usage: layers.py SOURCE_DIR [--graph]   (exit 0 ok, 1 violation)"""
import os
import re
import sys

ROOM = re.compile(r"^\s*tpmtrace_room\(\s*(\w+)\s+(\S+)((?:\s+\w+)*)\s*\)", re.M)
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def rooms_of(src):
    text = open(os.path.join(src, "CMakeLists.txt")).read()
    rooms = []
    for m in ROOM.finditer(text):
        rooms.append((m.group(1), m.group(2).rstrip("/"), m.group(3).split()))
    return rooms


def main():
    src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    rooms = rooms_of(src)
    bad = []
    if not rooms:
        print("layers: no tpmtrace_room() declarations in CMakeLists.txt")
        return 1
    index = {name: i for i, (name, _, _) in enumerate(rooms)}
    by_dir = {d: name for name, d, _ in rooms}
    # What each room may reach: itself and, through its links, the rooms
    # below it.
    reach = {}
    for i, (name, d, deps) in enumerate(rooms):
        r = {name}
        for dep in deps:
            if dep not in index:
                bad.append(f"room {name} links {dep}, which is no room")
            elif index[dep] >= i:
                bad.append(f"room {name} links {dep}, which is declared after it (upward)")
            else:
                r |= reach[dep]
        reach[name] = r

    for top in ("model", "db", "recorder", "replayer"):
        for d, _, files in os.walk(os.path.join(src, top)):
            rel = os.path.relpath(d, src)
            if any(f.endswith(".c") for f in files) and rel not in by_dir:
                bad.append(f"{rel}/ holds C files but is no room (tpmtrace_room in CMakeLists.txt)")

    def room_of(path):
        d = os.path.dirname(path)
        return by_dir.get(d)

    edges = {}
    for name, d, _ in rooms:
        top = os.path.join(src, d)
        for f in sorted(os.listdir(top)) if os.path.isdir(top) else []:
            if not f.endswith((".c", ".h", ".def")):
                continue
            rel = os.path.join(d, f)
            for inc in INC.findall(open(os.path.join(src, rel), errors="replace").read()):
                if inc.startswith("tools/"):
                    bad.append(f"{rel} includes {inc}: a room may not use the front ends")
                    continue
                tgt = room_of(inc) if "/" in inc else room_of(os.path.join(d, inc))
                if not tgt or tgt == name:
                    continue
                edges.setdefault((name, tgt), []).append(f"{rel} -> {inc}")
                if tgt not in reach[name]:
                    why = "upward" if index[tgt] > index[name] else "not linked"
                    bad.append(f"{rel} includes {inc}: room {name} may not use room {tgt} ({why})")
    # Rooms only reach down, so a cycle means an upward edge, already
    # reported; look for one all the same.
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    seen, stack = set(), []

    def dfs(n):
        if n in stack:
            bad.append("cycle: " + " -> ".join(stack[stack.index(n):] + [n]))
            return
        if n in seen:
            return
        seen.add(n)
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            dfs(m)
        stack.pop()

    for n in list(graph):
        dfs(n)
    if "--graph" in sys.argv:
        for (a, b), where in sorted(edges.items(), key=lambda e: (index[e[0][0]], index[e[0][1]])):
            print(f"{a} -> {b} ({len(where)})")
    for b in bad:
        print("layers:", b)
    if not bad:
        print(f"layers: {len(rooms)} rooms, {len(edges)} room edges, every include downward, no cycle")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
