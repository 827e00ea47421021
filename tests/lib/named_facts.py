#!/usr/bin/env python3
"""Protocol facts by name (issue 32, docs/architecture.md): no hex literal in
an SQL string of the C sources outside model/tpm (the tables) and db's view
texts, where a command code, response code or handle type is said by name
(tpm_cc('CreatePrimary'), tpm_rc_is_retry(rc), tpm_ht_of(h), db/db.c) or by
a named constant (DB_CLIENT_CMDS, db/stats.h).

usage: named_facts.py SRC [--string TEXT]
  SRC            the source tree (reads model, replayer, recorder, db, tools)
  --string TEXT  check TEXT as one C file's contents instead (the self-test's
                 fixture), reported as <string>
Prints one line per SQL string with a hex literal (FILE:LINE: the literal and
the string) and the count of command-code comparisons in C outside model/tpm
(case TPM_CC_..., TPM_CC_... == / !=), at most CC_CMP_MAX (15, issue 32):
a fact about a command belongs in a column of model/tpm's tables
(tpm_cc_effects.def's flags), so a count over it fails, naming the files.
Exit 0 when there is no such SQL string and the count is within the bound, 1
otherwise, 2 on bad usage.
"""
import os
import re
import sys

ROOTS = ("model", "replayer", "recorder", "db", "tools")
# The tables themselves, and db's view texts (the schema as earlier versions
# wrote it, compared byte for byte: they keep what they said).
EXEMPT_DIRS = ("model/tpm/",)
EXEMPT_FILES = ("db/schema_check.c",)

SQL_WORD = re.compile(r"\b(SELECT|WHERE|UPDATE|INSERT\s+INTO|DELETE\s+FROM|CASE\s+WHEN)\b")
HEX = re.compile(r"(?<![\w%])0[xX][0-9A-Fa-f]+\b")
CC_CMP = re.compile(r"case\s+TPM_CC_|TPM_CC_[A-Za-z_0-9]*\s*[=!]=")
CC_CMP_MAX = 15
# What may stand between two literals of one string: a macro (DB_CLIENT_CMDS).
GLUE = re.compile(r"\s*([A-Z_][A-Z0-9_]*\s*)?$")


def literals(text):
    """The C string literals of text as (line, contents, end offset), comments
    and character constants skipped."""
    out, i, n, line = [], 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == "'":
            j = i + 1
            while j < n and text[j] != "'" and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif c == '"':
            j, start = i + 1, line
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append((start, text[i + 1 : j], i, j + 1))
            i = j + 1
        else:
            i += 1
    return out


def strings(text):
    """Adjacent literals joined into the one string the compiler makes."""
    groups = []
    for line, s, start, end in literals(text):
        if groups and GLUE.match(text[groups[-1][2] : start]):
            groups[-1] = (groups[-1][0], groups[-1][1] + s, end)
        else:
            groups.append((line, s, end))
    return [(line, s) for line, s, _ in groups]


def check_text(name, text):
    bad = []
    for line, s in strings(text):
        if SQL_WORD.search(s):
            for m in HEX.finditer(s):
                bad.append("%s:%d: %s in SQL: \"%s\"" % (name, line, m.group(0), s.strip()[:120]))
    return bad


def main(argv):
    if len(argv) == 4 and argv[2] == "--string":
        bad = check_text("<string>", argv[3])
        for b in bad:
            print(b)
        return 1 if bad else 0
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    src = argv[1]
    bad, ncmp, nfiles, byfile = [], 0, 0, {}
    for root in ROOTS:
        for d, _, files in os.walk(os.path.join(src, root)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, src)
                if rel.startswith(EXEMPT_DIRS):
                    continue
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                nfiles += 1
                k = len(CC_CMP.findall(text))
                ncmp += k
                if k:
                    byfile[rel] = k
                if rel not in EXEMPT_FILES:
                    bad += check_text(rel, text)
    for b in sorted(bad):
        print(b)
    print("named_facts: %d files; %d hex literals in SQL strings; %d command-code "
          "comparisons in C outside model/tpm (at most %d)" % (nfiles, len(bad), ncmp, CC_CMP_MAX))
    if ncmp > CC_CMP_MAX:
        print("named_facts: %d command-code comparisons, over %d: %s (a column of "
              "model/tpm's tables says it by name)" % (ncmp, CC_CMP_MAX, ", ".join(
                  "%s %d" % (f, byfile[f]) for f in sorted(byfile))))
    return 1 if bad or ncmp > CC_CMP_MAX else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
