#!/usr/bin/env python3
"""Static lint of the shell tests' checks (tests/README.md, "Checks").

Flags, in each FILE given:
  compound   a check statement continued by && or || outside quotes:
             `check "..." [ A ] && [ B ]` checks only A (the shell runs
             `(check "..." [ A ]) && [ B ]` and B's verdict is lost);
  status     a check or expect_eq whose description holds a command
             substitution while the statement reads $?: the substitution
             runs first and resets $? to its own status.
Heredoc bodies are skipped. Prints FILE:LINE: KIND: STATEMENT per finding;
exit status 1 when there is one, 0 otherwise.
"""
import re
import sys

CHECKERS = ("check", "expect_eq")


def statements(lines):
    """(first line number, text) of each logical line: backslash-newline
    continuations joined, heredoc bodies left out."""
    i, n = 0, len(lines)
    while i < n:
        start = i
        text = lines[i].rstrip("\n")
        while text.endswith("\\") and i + 1 < n:
            i += 1
            text = text[:-1] + " " + lines[i].rstrip("\n").lstrip()
        i += 1
        yield start + 1, text
        for m in re.finditer(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1", text):
            end = m.group(2)
            while i < n and lines[i].strip() != end:
                i += 1
            i += 1


def scan(text):
    """[(position, char, quoted)] of text read with shell quoting (single and
    double quotes; $( ... ) and backticks nest), up to a comment (a # outside
    quotes that starts a word)."""
    out, stack, k = [], [], 0
    while k < len(text):
        c = text[k]
        top = stack[-1] if stack else None
        if top == "'":
            if c == "'":
                stack.pop()
        elif c == "\\":
            out.append((k, c, bool(stack)))
            k += 2
            continue
        elif top == "`":
            if c == "`":
                stack.pop()
        elif c == "$" and text[k + 1:k + 2] == "(":
            stack.append(")")
            out.append((k, c, True))
            k += 2
            continue
        elif top == ")" and c == ")":
            stack.pop()
            out.append((k, c, True))
            k += 1
            continue
        elif top == '"':
            if c == '"':
                stack.pop()
        elif c == "'":
            stack.append("'")
        elif c == '"':
            stack.append('"')
        elif c == "`":
            stack.append("`")
        elif c == "#" and not stack and (k == 0 or text[k - 1] in " \t;"):
            break
        out.append((k, c, bool(stack) or c in "'\"`"))
        k += 1
    return out


def strip_comment(text):
    chars = scan(text)
    if not chars:
        return ""
    k, c, _ = chars[-1]
    return text[:k + (2 if c == "\\" else 1)]


def first_word_end(text):
    """End of the shell word at the start of text (quotes included)."""
    for k, c, quoted in scan(text):
        if not quoted and c in " \t":
            return k
    return len(text)


def lint(path):
    found = []
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    for lineno, text in statements(lines):
        text = strip_comment(text)
        # Every place a checker is called in this logical line: at its start
        # or after ; && || | { ( then do else.
        for m in re.finditer(r"(?:^|[;&|{(]\s*|\b(?:then|do|else)\s+)\s*(check|expect_eq)\s+", text):
            at = m.end()
            rest = text[at:]
            # 1. compound: && or || after the check, outside quotes, up to
            # the end of its statement (; or a closing } ends it).
            if m.group(1) == "check":
                prev = ""
                for k, c, quoted in scan(rest):
                    if quoted:
                        prev = ""
                        continue
                    if c == ";":
                        break
                    if c in "&|" and prev == c:
                        found.append((lineno, "compound", text.strip()))
                        break
                    prev = c
            # 2. status: a description with $( ... ) and $? in the statement.
            desc_end = first_word_end(rest)
            desc = rest[:desc_end]
            if "$(" in desc and "$?" in rest[desc_end:].split(";")[0]:
                found.append((lineno, "status", text.strip()))
    return found


def main(argv):
    bad = 0
    for path in argv[1:]:
        for lineno, kind, text in lint(path):
            print("%s:%d: %s: %s" % (path, lineno, kind, text))
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
