#!/usr/bin/env python3
"""The size rules of the tree (docs/architecture.md): every C file of the
rooms and the front ends (model/ db/ recorder/ replayer/ tools/) is at most
MAX_FILE lines, and no function in them is longer than MAX_FUNC lines; the
command line (tools/tpmtrace) holds at most MAX_CLI lines of C files and
headers together. Every
C file of those and of tests/ opens with a comment (its first line that is
not blank starts with "/*"): what the file is for, before the first #include.
Generated tables (*.def) are not C files here. A function is counted from
the line of its name (a definition at column 0 followed by "{" at column 0,
the project's .clang-format style) to its closing "}" at column 0.

Usage: sizes.py SOURCE_DIR [--list N]   (exit 0 ok, 1 a rule broken)"""
import os
import re
import sys

MAX_FILE = 1000
MAX_FUNC = 150
# The replayer's functions take at most this many parameters (issue 32: a
# request struct instead, struct rp_auth_cmd, rp_sess_start, rp_sent).
MAX_PARAMS = {"replayer": 8}
# The command line is thin (issue 32): its C files together at most this many
# lines; what a test of a room would need is in the room.
CLI_DIR = os.path.join("tools", "tpmtrace")
MAX_CLI = 8000
TOPS = ("model", "db", "recorder", "replayer", "tools")
COMMENTED = TOPS + ("tests",)
DEF = re.compile(r"^[A-Za-z_].*\)\s*$")


def params(lines, at):
    """How many parameters the signature starting at line index at takes."""
    sig = " ".join(l.strip() for l in lines[at:at + 12])
    m = re.search(r"\w+\s*\((.*)", sig)
    if not m:
        return 0
    depth, cur, n = 1, "", 0
    for ch in m.group(1):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                break
        if ch == "," and depth == 1:
            n += 1
            cur = ""
        else:
            cur += ch
    last = cur.strip()
    return 0 if n == 0 and last in ("", "void") else n + 1


def functions(lines):
    """(name, first line, length) of each function: its body opens with "{"
    alone at column 0 (the project's style; struct initialisers do not),
    its signature runs back to the line at column 0 above (continuation
    lines are indented), its body ends at the next "}" at column 0."""
    i = 0
    while i < len(lines):
        if lines[i] == "{" and i > 0:
            j = i - 1
            while j > 0 and lines[j][:1] in (" ", "\t"):
                j -= 1
            sig = " ".join(l.strip() for l in lines[j:i])
            m = re.search(r"(\w+)\s*\(", sig)
            k = i + 1
            while k < len(lines) and not lines[k].startswith("}"):
                k += 1
            if DEF.match(lines[j]) or m:
                yield (m.group(1) if m else sig), j + 1, k - j + 1
            i = k
        i += 1


def opens_with_comment(lines):
    """Whether the first line that is not blank starts a comment."""
    for l in lines:
        if l.strip():
            return l.lstrip().startswith("/*")
    return False


def c_files(src, tops):
    """(path, path relative to src) of every .c file under the tops, in order;
    build directories left out."""
    for top in tops:
        for d, dirs, files in os.walk(os.path.join(src, top)):
            dirs[:] = sorted(x for x in dirs if not x.startswith("build"))
            for f in sorted(files):
                if f.endswith(".c"):
                    path = os.path.join(d, f)
                    yield path, os.path.relpath(path, src)


def main():
    src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    listing = int(sys.argv[sys.argv.index("--list") + 1]) if "--list" in sys.argv else 0
    bad, funcs, n_files, n_commented, n_cli = [], [], 0, 0, 0
    for path, rel in c_files(src, TOPS):
        lines = open(path, errors="replace").read().split("\n")
        n = len(lines) - (lines[-1] == "")
        n_files += 1
        if os.path.dirname(rel) == CLI_DIR:
            n_cli += n
        if n > MAX_FILE:
            bad.append(f"{rel}: {n} lines (at most {MAX_FILE})")
        limit = MAX_PARAMS.get(rel.split(os.sep)[0])
        for name, at, length in functions(lines):
            funcs.append((length, f"{rel}:{at}", name))
            if length > MAX_FUNC:
                bad.append(f"{rel}:{at}: {name}() is {length} lines (at most {MAX_FUNC})")
            if limit and params(lines, at - 1) > limit:
                bad.append(f"{rel}:{at}: {name}() takes {params(lines, at - 1)} parameters "
                           f"(at most {limit} in {rel.split(os.sep)[0]}/)")
    for path, rel in c_files(src, COMMENTED):
        n_commented += 1
        if not opens_with_comment(open(path, errors="replace").read().split("\n")):
            bad.append(f"{rel}: no opening comment (what the file is for, before its first line"
                       " of code)")
    cli = os.path.join(src, CLI_DIR)
    for f in sorted(os.listdir(cli)) if os.path.isdir(cli) else []:
        if f.endswith(".h"):
            n_cli += len(open(os.path.join(cli, f), errors="replace").read().split("\n")) - 1
    if n_cli > MAX_CLI:
        bad.append(f"{CLI_DIR}: {n_cli} lines of C and headers (at most {MAX_CLI}: the command line is "
                   "thin, its logic in the rooms)")
    for length, where, name in sorted(funcs, reverse=True)[:listing]:
        print(f"{length:5d} {where} {name}")
    for b in bad:
        print("sizes:", b)
    if not bad:
        longest = max(funcs) if funcs else (0, "-", "-")
        print(f"sizes: {n_files} C files, each at most {MAX_FILE} lines; {len(funcs)} functions, "
              f"the longest {longest[2]}() at {longest[1]} with {longest[0]} lines")
        print(f"sizes: {n_commented} C files with tests/, each opening with a comment")
        print("sizes: no function in replayer/ takes more than %d parameters" % MAX_PARAMS["replayer"])
        print(f"sizes: {CLI_DIR} holds {n_cli} lines of C and headers (at most {MAX_CLI})")
    return 1 if bad else 0


sys.exit(main())
