#!/usr/bin/env python3
"""Strict check of a JSON output (tests/integration/test_json_*.sh).

json_strict.py FILE [--lines] [--contains JSON_STRING]...

FILE must be valid UTF-8 (decoded strictly, nothing replaced), hold no raw
control byte but the line ends, and parse with the json module: as one
document, or with --lines as one document per line (JSON lines, export
--jsonl). Each --contains names a string, written as a JSON string literal
(e.g. '"a\\u001b\\ufffd"'), that must be a substring of some key or string
value in the output: it shows how a name with control bytes or invalid UTF-8
came out. Prints what it checked; exits 1 with the reason otherwise."""
import json
import sys


def strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    path, lines, wanted = args[0], False, []
    i = 1
    while i < len(args):
        if args[i] == "--lines":
            lines = True
        elif args[i] == "--contains" and i + 1 < len(args):
            i += 1
            wanted.append(json.loads(args[i]))
        else:
            print("unknown argument %r" % args[i], file=sys.stderr)
            return 2
        i += 1
    raw = open(path, "rb").read()
    try:
        text = raw.decode("utf-8")  # strict: invalid UTF-8 is an error
    except UnicodeDecodeError as e:
        print("%s: not UTF-8: %s (bytes %r)" % (path, e, raw[max(0, e.start - 20):e.end + 5]))
        return 1
    ctl = [c for c in text if ord(c) < 0x20 and c != "\n"]
    if ctl:
        print("%s: %d raw control characters, first %r" % (path, len(ctl), ctl[0]))
        return 1
    docs = []
    try:
        if lines:
            for n, line in enumerate(text.split("\n")[:-1] if text.endswith("\n") else
                                     text.split("\n")):
                try:
                    docs.append(json.loads(line))
                except ValueError as e:
                    print("%s: line %d: %s" % (path, n + 1, e))
                    return 1
        else:
            docs.append(json.loads(text))
    except ValueError as e:
        print("%s: %s" % (path, e))
        return 1
    if not docs:
        print("%s: no JSON document" % path)
        return 1
    seen = [s for d in docs for s in strings(d)]
    for w in wanted:
        if not any(w in s for s in seen):
            print("%s: no string contains %r" % (path, w))
            return 1
    print("%s: %d document(s), %d strings, %d expected found" %
          (path, len(docs), len(seen), len(wanted)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
