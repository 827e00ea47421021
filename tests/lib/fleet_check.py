#!/usr/bin/env python3
"""The fleet server against the local files it was pushed from, computed
here independently of tpmtrace (sqlite3 for the files, psql for the server).

usage: fleet_check.py rows URL DB...    every command, event and client row of
                                        every trace: count and checksum equal
       fleet_check.py traces URL DB...  every trace's row and its host's: the
                                        text columns equal
       fleet_check.py stats URL DB...   command_stats on the server = the
                                        union of the files' command_stats
       fleet_check.py groups JSON DB... `fleet stats --json` per model,
                                        firmware, kernel, policy: hosts,
                                        boots, traces, p50/p95/max of TPM time
Text is compared as push converts it (docs/fleet.md, pg_text below, written
here from the rule, not from the C). Prints one line per finding; exit 0 when
all agree, 1 otherwise."""
import hashlib
import json
import math
import sqlite3
import struct
import subprocess
import sys

COLS = {
    "command": "seq, t_submit_ns, t_done_ns, latency_ns, cc, locality, tag, cmd_size,"
               " rsp_size, rc, handle1, handle2, handle3, rsp_handle, n_sessions,"
               " sess_handle, sess_attrs, auth_kind, pcr, client_id, flags, malformed",
    "event": "seq, t_ns, kind, detail, client_id",
    "client": "id, pid, uid, comm, peer, first_ns",
}
ORDER = {"command": "seq", "event": "seq", "client": "id"}
BLOBS = {"command": ("cmd", "rsp")}


def unescape(s):
    if s == "\\N":
        return None
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            out.append({"n": "\n", "t": "\t", "r": "\r"}.get(s[i + 1], s[i + 1]))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def server_rows(url, sql):
    """Rows of a query as tuples of str/None (COPY's text format)."""
    out = subprocess.run(["psql", url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                          f"COPY ({sql}) TO STDOUT"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"psql failed: {out.stderr.strip()}")
    return [tuple(unescape(v) for v in line.split("\t"))
            for line in out.stdout.split("\n") if line]


def pg_text(b):
    """A file's text value as push sends it: unchanged when it is UTF-8
    without NUL (Python's strict decoder refuses what PostgreSQL does:
    overlong forms, surrogates, code points above U+10FFFF); else each byte
    that begins no UTF-8 character, and NUL, as \\xhh, each backslash
    doubled, every character kept."""
    if b"\0" not in b:
        try:
            return b.decode("utf-8")
        except UnicodeDecodeError:
            pass
    out, i = [], 0
    while i < len(b):
        ch = None
        for k in (1, 2, 3, 4):
            try:
                ch = b[i:i + k].decode("utf-8")
                break
            except UnicodeDecodeError:
                continue
        if ch is None or ch == "\0":
            out.append("\\x%02x" % b[i])
            i += 1
        else:
            out.append("\\\\" if ch == "\\" else ch)
            i += len(ch.encode("utf-8"))
    return "".join(out)


def norm(v):
    if v is None:
        return None
    if isinstance(v, bytes):
        return pg_text(v)
    if isinstance(v, float) and v == int(v):
        return str(int(v))
    return str(v)


def digest(rows):
    h = hashlib.sha256()
    for r in rows:
        h.update(repr(r).encode())
    return len(rows), h.hexdigest()


def per_trace(rows):
    d = {}
    for r in rows:
        d.setdefault(r[0], []).append(r[1:])
    return d


def rows(url, dbs):
    bad = 0
    for table, cols in COLS.items():
        blobs = BLOBS.get(table, ())
        scols = ", ".join("x." + c.strip() for c in cols.split(","))
        scols += "".join(", encode(x.%s, 'hex')" % b for b in blobs)
        srv = per_trace(server_rows(
            url, "SELECT t.uuid, %s FROM %s x JOIN trace t ON t.id = x.trace_id"
                 " ORDER BY t.uuid, x.%s" % (scols, table, ORDER[table])))
        loc = {}
        for db in dbs:
            c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            c.text_factory = bytes
            lcols = ", ".join("x." + c_.strip() for c_ in cols.split(","))
            lblobs = "".join(f", CASE WHEN x.{b} IS NULL THEN NULL ELSE lower(hex(x.{b})) END"
                             for b in blobs)
            for r in c.execute(f"SELECT t.uuid, {lcols}{lblobs} FROM {table} x JOIN trace t"
                               f" ON t.id = x.trace_id ORDER BY t.uuid, x.{ORDER[table]}"):
                loc.setdefault(norm(r[0]), []).append(tuple(norm(v) for v in r[1:]))
            c.close()
        for u in sorted(set(loc) | set(srv)):
            a, b = digest(loc.get(u, [])), digest(srv.get(u, []))
            if a != b:
                print(f"{table} of trace {u}: local {a[0]} rows {a[1][:12]}, server {b[0]}"
                      f" rows {b[1][:12]}")
                bad += 1
        print(f"{table}: {sum(len(v) for v in loc.values())} local rows in {len(loc)} traces,"
              f" {sum(len(v) for v in srv.values())} on the server")
    return bad


TRACE_COLS = ("t.name, t.kind, t.source, t.started_at, t.payloads, t.host, t.tool_version,"
              " t.policy, t.status, t.notes, h.hostname, h.machine_id_sha256,"
              " h.kernel_release, h.kernel_cmdline, h.boot_id")


def traces(url, dbs):
    """The text columns of each trace on the server and of its host against
    the file's, for the traces the server has."""
    q = (f"SELECT t.uuid, {TRACE_COLS} FROM trace t"
         " LEFT JOIN trace_host h ON h.trace_id = t.id")
    srv = {r[0]: r[1:] for r in server_rows(url, q)}
    bad = n = 0
    for db in dbs:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        c.text_factory = bytes
        for r in c.execute(q):
            u = norm(r[0])
            if u not in srv:
                continue
            n += 1
            loc = tuple(norm(v) for v in r[1:])
            for name, a, b in zip(TRACE_COLS.split(","), loc, srv[u]):
                if a != b:
                    print(f"trace {u} {name.strip()}: local {a!r}, server {b!r}")
                    bad += 1
        c.close()
    print(f"traces: {n} of the files' on the server, {len(srv)} there")
    return bad + (n != len(srv))


STATS = ("s.cc, s.name, s.count, s.total_ns, s.min_ns, s.p50_ns, s.p95_ns, s.p99_ns,"
         " s.max_ns, s.first_ns")


def stats(url, dbs):
    srv = {}
    for r in server_rows(url, f"SELECT t.uuid, {STATS}, round(s.mean_ns, 3) FROM command_stats s"
                              " JOIN trace t ON t.id = s.trace_id"):
        srv[(r[0], r[1])] = r[2:-1] + ("%.3f" % float(r[-1]),)
    loc = {}
    for db in dbs:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        for r in c.execute(f"SELECT t.uuid, {STATS}, s.mean_ns FROM command_stats s"
                           " JOIN trace t ON t.id = s.trace_id"):
            loc[(r[0], str(r[1]))] = tuple(norm(v) for v in r[2:-1]) + ("%.3f" % r[-1],)
        c.close()
    bad = 0
    for k in sorted(set(loc) | set(srv)):
        if loc.get(k) != srv.get(k):
            print(f"command_stats {k}: local {loc.get(k)}, server {srv.get(k)}")
            bad += 1
    print(f"command_stats: {len(loc)} local rows, {len(srv)} on the server")
    return bad


def nearest_rank(vals, p):
    """The smallest value whose 1-based rank r has r*100 >= p*n."""
    v = sorted(vals)
    r = max(1, math.ceil(p * len(v) / 100))
    return v[min(r, len(v)) - 1]


def tpm_identity(c, trace_id):
    """Manufacturer + vendor strings and firmware from the trace's own
    GetCapability(TPM_PROPERTIES) answers (TPM 2.0 Part 2, 6.13)."""
    props = {}
    for (rsp,) in c.execute("SELECT rsp FROM command WHERE trace_id=? AND cc=378 AND rc=0"
                            " AND rsp IS NOT NULL ORDER BY seq", (trace_id,)):
        tag = struct.unpack(">H", rsp[:2])[0]
        off = 10 + (4 if tag == 0x8002 else 0) + 1
        cap, n = struct.unpack(">II", rsp[off:off + 8])
        if cap != 6:
            continue
        for i in range(n):
            p, v = struct.unpack(">II", rsp[off + 8 + 8 * i:off + 16 + 8 * i])
            props[p] = v
    # NULs dropped, an unprintable byte a blank (model/trace_chip.c)
    chars = lambda v: "".join(chr(b) if 0x20 <= b < 0x7f else " "
                              for b in struct.pack(">I", v) if b)
    man = chars(props[0x105]).rstrip() if 0x105 in props else ""
    ven = "".join(chars(props[p]) for p in range(0x106, 0x10A) if p in props).rstrip()
    # As TPMScan and the profiles write it: four 16-bit numbers.
    fw = ("%d.%d.%d.%d" % (props[0x10B] >> 16, props[0x10B] & 0xffff, props[0x10C] >> 16,
                           props[0x10C] & 0xffff)
          if 0x10B in props and 0x10C in props else "unknown")
    return " ".join(x for x in (man, ven) if x), fw


def groups(js, dbs):
    want = {}
    for db in dbs:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        for tid, emulated, policy, host, boot, kernel in c.execute(
                "SELECT t.id, t.emulated, t.policy, coalesce(h.machine_id_sha256, h.hostname),"
                " h.boot_id, h.kernel_release FROM trace t LEFT JOIN trace_host h"
                " ON h.trace_id = t.id WHERE t.status != 'recording'"):
            tpm_ns = c.execute("SELECT coalesce(sum(latency_ns), 0) FROM command"
                               " WHERE trace_id=? AND flags & 32 = 0", (tid,)).fetchone()[0]
            ident, fw = tpm_identity(c, tid)
            key = (emulated or ident or "unknown", fw, kernel or "unknown", policy or "recorded")
            g = want.setdefault(key, {"hosts": set(), "boots": set(), "t": []})
            g["hosts"].add(host)
            g["boots"].add(boot)
            g["t"].append(tpm_ns)
        c.close()
    got = {(g["model"], g["firmware"], g["kernel"], g["policy"]): g
           for g in json.load(open(js))["groups"]}
    bad = 0
    for k in sorted(set(want) | set(got)):
        w, g = want.get(k), got.get(k)
        if not w or not g:
            print(f"group {k}: {'only on the server' if g else 'missing on the server'}")
            bad += 1
            continue
        exp = (len(w["hosts"]), len(w["boots"]), len(w["t"]), nearest_rank(w["t"], 50),
               nearest_rank(w["t"], 95), max(w["t"]))
        have = (g["hosts"], g["boots"], g["traces"], g["p50_ns"], g["p95_ns"], g["max_ns"])
        line = (f"{k[0]} / {k[2]} / {k[3]}: hosts, boots, traces, p50, p95, max"
                f" computed {exp}, fleet {have}")
        print(("" if exp == have else "MISMATCH ") + line)
        bad += exp != have
    return bad


def main():
    what, arg, dbs = sys.argv[1], sys.argv[2], sys.argv[3:]
    bad = {"rows": rows, "traces": traces, "stats": stats, "groups": groups}[what](arg, dbs)
    print(f"{what}: {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
