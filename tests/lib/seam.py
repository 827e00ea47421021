#!/usr/bin/env python3
"""The seam tier's matrix (tests/seam/README.md): every read command on every
trace of the corpus (tests/seam/corpus.sh), with the checks that hold for all
of them:

- the command exits 0, or 1 with a message naming the trace (a refusal);
- every line it prints fits 100 columns (text mode);
- every --json it prints is one strict JSON object;
- a trace without timing never gets a time: "no timing" where one would be,
  never 0, and its JSON figures are null;
- the command count and TPM time of a trace agree across list, stats, verify,
  report, predict and the trace_summary view (docs/schema.md, "Figures");
- predict's hwrng_reads is the trace's GetRandom from the kernel's hwrng
  client, and its text says so (an "hwrng:" line) exactly when there are some;
- predict on a population (--vendor) gives each profile the TPM time predict
  --profile gives it, and report --population the figures predict --vendor gives;
- an unfinished trace is named as such by every command pointed at it.

Usage: seam.py CORPUS_DIR TPMTRACE WORK_DIR [PGURL]
Prints one line per failed check, the matrix (kinds x commands: the number of
checks passed, "F" where one failed), and "N passed, N failed"; exits 1 on any
failure.
"""
import json
import os
import re
import sqlite3
import subprocess
import sys

CORPUS, TPMTRACE, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
PGURL = sys.argv[4] if len(sys.argv) > 4 else ""
DB = os.path.join(CORPUS, "corpus.db")
PROFILE = "slb9670-linux-integrity"
WIDTH = 100
os.makedirs(WORK, exist_ok=True)

passed = failed = 0
cells = {}  # (kind, command) -> [passed, failed]
TIME_RE = re.compile(r"(?<![\w.])\d[\d,.]*\s?(ns|µs|us|ms|s)\b")


def strict_json(text):
    def no_const(c):
        raise ValueError("non-standard constant " + c)

    return json.loads(text, parse_constant=no_const)


def check(kind, cmd, what, cond, detail=""):
    global passed, failed
    cell = cells.setdefault((kind, cmd), [0, 0])
    if cond:
        passed += 1
        cell[0] += 1
    else:
        failed += 1
        cell[1] += 1
        print(f"FAILED: {cmd} on {kind}: {what}" + (f" ({detail})" if detail else ""))


def run(args, timeout=300):
    p = subprocess.run([TPMTRACE] + args, capture_output=True, timeout=timeout, cwd=WORK)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def traces():
    out = []
    for line in open(os.path.join(CORPUS, "corpus.txt")):
        tid, kind = line.split()
        out.append((int(tid), kind))
    return out


def view_figures(tid):
    con = sqlite3.connect(f"file:{DB}?mode=ro", uri=True)
    row = con.execute(
        "SELECT commands, tpm_ns FROM trace_summary WHERE trace_id=?", (tid,)
    ).fetchone()
    timed = con.execute(
        "SELECT count(*) FROM command WHERE trace_id=? AND latency_ns IS NOT NULL", (tid,)
    ).fetchone()[0]
    con.close()
    return row, timed > 0


GET_RANDOM = 0x17B  # TPM_CC_GetRandom (model/tpm/tpm_cc.def)


def hwrng_reads(tid):
    """The reads of the kernel's TPM hwrng in trace tid: its client's GetRandom."""
    con = sqlite3.connect(f"file:{DB}?mode=ro", uri=True)
    n = con.execute(
        "SELECT count(*) FROM command c JOIN client l ON l.trace_id=c.trace_id"
        " AND l.id=c.client_id WHERE c.trace_id=? AND c.cc=? AND l.peer='hwrng'",
        (tid, GET_RANDOM)).fetchone()[0]
    con.close()
    return n


def common(kind, cmd, tid, rc, out, err, unfinished, json_out=False):
    """The checks every cell makes."""
    text = out + err
    check(kind, cmd, "exits 0, or 1 naming the trace", rc == 0 or (rc == 1 and str(tid) in err),
          f"exit {rc}: {err.strip()[-200:]}")
    if not json_out:
        # (a line may pass 100 columns only by one word, such as a long path,
        # with at most a label before it: everything else must wrap)
        wide = [l for l in text.splitlines() if len(l) > WIDTH and len(l.split()) > 2]
        check(kind, cmd, f"fits {WIDTH} columns", not wide, wide[0][:120] if wide else "")
    if unfinished and rc in (0, 1):
        check(kind, cmd, "names the trace unfinished", "unfinished" in err, err.strip()[-200:])


def json_of(kind, cmd, rc, out):
    if rc != 0:
        return None
    try:
        return strict_json(out)
    except ValueError as e:
        check(kind, cmd, "--json is one strict JSON object", False, str(e)[:120])
        return None


def main():
    ts = traces()
    rc, out, err = run(["list", DB, "--json"])
    listed = {}
    try:
        for t in strict_json(out)["traces"]:
            listed[t["id"]] = t
    except (ValueError, KeyError) as e:
        check("-", "list", "list --json parses", False, str(e))
    for tid, kind in ts:
        unfinished = kind == "unfinished"
        (vcount, vtpm), timed = view_figures(tid)
        tr = ["--trace", str(tid)]
        lt = listed.get(tid)
        check(kind, "list", "lists the trace", lt is not None)
        if lt:
            check(kind, "list", "count = the view's commands (the clients')",
                  lt.get("commands") == vcount, f"{lt.get('commands')} vs {vcount}")
            want = "derived" if kind.startswith("derived") else kind
            check(kind, "list", "the trace's kind is the corpus's", lt.get("trace_kind") == want,
                  f"{lt.get('trace_kind')} vs {want}")
            check(kind, "list", "TPM time null exactly when untimed",
                  (lt.get("tpm_ns") is None) == (not timed), f"{lt.get('tpm_ns')}")

        # stats
        rc, out, err = run(["stats", DB] + tr)
        common(kind, "stats", tid, rc, out, err, unfinished)
        if not timed and rc == 0:
            check(kind, "stats", "an untimed trace says 'no timing'", "no timing" in out + err)
            check(kind, "stats", "an untimed trace prints no time", not TIME_RE.search(out),
                  (TIME_RE.search(out) or [""])[0])
        rc, out, err = run(["stats", DB, "--json"] + tr)
        common(kind, "stats", tid, rc, out, err, unfinished, True)
        j = json_of(kind, "stats", rc, out)
        if j is not None:
            n = sum(c.get("count", 0) for c in j.get("commands", []))
            check(kind, "stats", "--json count = the view's", n == vcount or not timed,
                  f"{n} vs {vcount}")

        # show
        rc, out, err = run(["show", DB] + tr)
        common(kind, "show", tid, rc, out, err, unfinished)

        # pcrs
        rc, out, err = run(["pcrs", DB] + tr)
        common(kind, "pcrs", tid, rc, out, err, unfinished)
        rc, out, err = run(["pcrs", DB, "--json"] + tr)
        common(kind, "pcrs", tid, rc, out, err, unfinished, True)
        json_of(kind, "pcrs", rc, out)

        # predict
        rc, out, err = run(["predict", DB, "--profile", PROFILE] + tr)
        common(kind, "predict", tid, rc, out, err, unfinished)
        if not timed and rc == 0:
            check(kind, "predict", "an untimed trace: no gaps line",
                  "non-TPM time (gaps between commands): 0" not in out)
        hw = hwrng_reads(tid)
        if rc == 0:
            check(kind, "predict", "an 'hwrng:' line exactly when the trace has hwrng reads",
                  (re.search(r"^hwrng: %d reads? of the kernel's TPM hwrng" % hw, out, re.M)
                   is not None) == (hw > 0), f"{hw} reads")
        rc, out, err = run(["predict", DB, "--profile", PROFILE, "--json"] + tr)
        common(kind, "predict", tid, rc, out, err, unfinished, True)
        j = json_of(kind, "predict", rc, out)
        if j is not None:
            check(kind, "predict", "--json hwrng_reads = the hwrng client's GetRandom",
                  j.get("hwrng_reads") == hw, f"{j.get('hwrng_reads')} vs {hw}")

        # predict on a population (--vendor): the same figures per profile
        # as a prediction on that profile alone
        rc, out, err = run(["predict", DB, "--vendor", "ifx", "--policy", "password"] + tr)
        common(kind, "pred-v", tid, rc, out, err, unfinished)
        rc, out, err = run(["predict", DB, "--vendor", "ifx", "--policy", "password",
                            "--json"] + tr)
        common(kind, "pred-v", tid, rc, out, err, unfinished, True)
        pj = json_of(kind, "pred-v", rc, out)
        if pj is not None and j is not None:
            rows = {r["profile"]: r for p in pj.get("population", []) for r in p["profiles"]}
            one = [p for p in j.get("policies", []) if p.get("name") == "password"]
            got = rows.get(PROFILE, {}).get("tpm_ms")
            want = one[0]["tpm_ms"] if one else None
            check(kind, "pred-v", "the profile's row = predict --profile's TPM time",
                  got is not None and want is not None and abs(got - want) < 1e-6,
                  f"{got} vs {want}")

        # advise
        rc, out, err = run(["advise", DB] + tr)
        common(kind, "advise", tid, rc, out, err, unfinished)
        rc, out, err = run(["advise", DB, "--json"] + tr)
        common(kind, "advise", tid, rc, out, err, unfinished, True)
        json_of(kind, "advise", rc, out)

        # report
        html = os.path.join(WORK, f"r{tid}.html")
        rc, out, err = run(["report", DB, "-o", html] + tr)
        common(kind, "report", tid, rc, out, err, unfinished)
        if rc == 0:
            check(kind, "report", "writes the HTML", os.path.getsize(html) > 0)
        rc, out, err = run(["report", DB, "--json", "-o", "-"] + tr)
        common(kind, "report", tid, rc, out, err, unfinished, True)
        j = json_of(kind, "report", rc, out)
        if j is not None:
            check(kind, "report", "--json says whether the trace is timed",
                  j.get("timed") == timed, f"{j.get('timed')} vs {timed}")
            if timed:
                check(kind, "report", "--json count = the view's",
                      j.get("recorded_commands") == vcount,
                      f"{j.get('recorded_commands')} vs {vcount}")
            else:
                check(kind, "report", "--json: no TPM time for an untimed trace",
                      j.get("recorded_tpm_ms") in (None, 0) and "0 ns" not in out)

        # report on a population (--population): its rows as predict gives them
        rc, out, err = run(["report", DB, "--population", "ifx", "--host-crypto", "estimate",
                            "--json", "-o", "-"] + tr)
        common(kind, "r-pop", tid, rc, out, err, unfinished, True)
        rj = json_of(kind, "r-pop", rc, out)
        if rj is not None and pj is not None:
            pop = rj.get("population", {})
            rows = {r["profile"]: r for p in pop.get("policies", []) if p["policy"] == "password"
                    for r in p["profiles"]}
            prows = {r["profile"]: r for p in pj.get("population", []) for r in p["profiles"]}
            check(kind, "r-pop", "every vendor profile, as predict --vendor has them",
                  pop.get("profiles") == len(prows) and set(rows) == set(prows),
                  f"{pop.get('profiles')} vs {len(prows)}")
            same = all(abs(rows[n]["tpm_ms"] - prows[n]["tpm_ms"]) <= 1e-6 * prows[n]["tpm_ms"]
                       and rows[n]["p50_ms"] == prows[n]["p50_ms"] for n in rows if n in prows)
            check(kind, "r-pop", "the same figures as predict --vendor (seed 1, 1000 boots)",
                  same)

        # diff against the recording
        rc, out, err = run(["diff", DB, "1", str(tid)])
        common(kind, "diff", tid, rc, out, err, unfinished)
        rc, out, err = run(["diff", DB, "1", str(tid), "--json"])
        common(kind, "diff", tid, rc, out, err, unfinished, True)
        json_of(kind, "diff", rc, out)

        # export
        for fmt, ext in (("--csv", "csv"), ("--jsonl", "jsonl"), ("--pcapng", "pcapng")):
            path = os.path.join(WORK, f"e{tid}.{ext}")
            rc, out, err = run(["export", DB, fmt, path] + tr)
            common(kind, "export", tid, rc, out, err, unfinished)
            if rc == 0 and ext == "jsonl":
                bad = 0
                for line in open(path, encoding="utf-8"):
                    try:
                        strict_json(line)
                    except ValueError:
                        bad += 1
                check(kind, "export", "every JSON line parses", bad == 0, f"{bad} bad")

        # sql
        rc, out, err = run(["sql", DB, f"SELECT count(*) AS n FROM command WHERE trace_id={tid}",
                            "--json"])
        common(kind, "sql", tid, rc, out, err, False, True)
        json_of(kind, "sql", rc, out)

    # verify (the whole database) and its JSON
    rc, out, err = run(["verify", DB])
    common("-", "verify", 0, rc if rc != 1 else 0, out, err, False)
    rc, out, err = run(["verify", DB, "--json"])
    j = json_of("-", "verify", rc if rc != 1 else 0, out)

    # the matrix
    kinds = []
    for _, k in ts:
        if k not in kinds:
            kinds.append(k)
    cmds = ["list", "stats", "show", "pcrs", "predict", "pred-v", "advise", "report", "r-pop",
            "diff", "export", "sql"]
    # 100 columns: the kind as wide as the longest, 7 per command
    kw = max([len(k) for k in kinds] + [4]) + 1
    lines = ["seam matrix (checks passed per kind and command; F: a check failed)",
             "(pred: predict; pred-v: predict --vendor, a population; r-pop: report"
             " --population)",
             "%-*s" % (kw, "kind") + "".join("%7s" % {"predict": "pred"}.get(c, c) for c in cmds)]
    for k in kinds:
        row = "%-*s" % (kw, k)
        for c in cmds:
            p, f = cells.get((k, c), [0, 0])
            row += "%7s" % (("F%d" % f) if f else str(p))
        lines.append(row)
    print("\n" + "\n".join(lines))
    print(f"{passed} passed, {failed} failed")
    # The matrix also beside the corpus, for tools/test to print after the run.
    with open(os.path.join(CORPUS, "matrix.txt"), "w") as f:
        f.write("\n".join(lines) + f"\nseam matrix: {passed} checks passed, {failed} failed\n")
    return 1 if failed else 0


sys.exit(main())
