#!/usr/bin/env python3
# tests/vm/luks_advise.py -- for tests/vm/luks-boot.sh: what `tpmtrace advise`
# should find in an unlock trace, counted here from the stored command bytes
# (sqlite3, TPM 2.0 Part 3 layouts) without tpmtrace; and a summary of
# advise's JSON, one finding a line.
#
#   luks_advise.py counts DB TRACE   key=value lines (below)
#   luks_advise.py findings JSON     "kind count commands removed saving_ms proof"
#                                    (proof: replayed_ms:difference, or "-")
#
# counts: primaries (successful CreatePrimary), templates (distinct hierarchy
# and inPublic), hmac_sessions, hmac_single (HMAC sessions that authorized one
# command), hmac_single_flushed (their FlushContexts), policy_sessions,
# policies (distinct assertion lists), retries (TPM_RC_RETRY, YIELDED,
# TESTING; not the TPM's once-per-cycle retry of its first dictionary-attack
# protected authorization), kernel (commands of origin kernel: the client named "kernel").
# A session is followed by (client, handle): through /dev/tpmrm0 each client
# has its own handle space; it ends at its FlushContext, at a use without
# continueSession, when its handle is started again, or with its client; a
# session saved (ContextSave) and loaded by another client is followed there.
import json
import sqlite3
import sys

CC_START_AUTH = 0x176
CC_CREATE_PRIMARY = 0x131
CC_FLUSH = 0x165
CC_CONTEXT_SAVE = 0x162
CC_CONTEXT_LOAD = 0x161

def u16(b, p):
    return int.from_bytes(b[p:p + 2], "big")


def u32(b, p):
    return int.from_bytes(b[p:p + 4], "big")


def params(cmd, nh):
    """Where a command's parameters start: after its handles and, with tag
    TPM_ST_SESSIONS, its authorization area (Part 1, 18.2)."""
    p = 10 + 4 * nh
    return p + 4 + u32(cmd, p) if u16(cmd, 0) == 0x8002 else p


def sessions(cmd, nh):
    """The session handles and attributes of a command's authorization area."""
    if len(cmd) < 10 or u16(cmd, 0) != 0x8002:
        return []
    p = 10 + 4 * nh
    end = p + 4 + u32(cmd, p)
    p += 4
    out = []
    while p + 4 <= end:
        h = u32(cmd, p)
        p += 4
        p += 2 + u16(cmd, p)  # nonceCaller
        attrs = cmd[p]
        p += 1
        p += 2 + u16(cmd, p)  # hmac
        out.append((h, attrs))
    return out


def counts(db, trace):
    c = sqlite3.connect(db)
    handles_in = dict(c.execute("SELECT cc, ifnull(handles_in, 0) FROM tpm_cc"))
    # The Policy commands (Part 3, 23): the policy session is handle 1.
    policy_ccs = {cc for (cc,) in c.execute("SELECT cc FROM tpm_cc WHERE name LIKE 'Policy%'")}
    rows = c.execute(
        "SELECT c.seq, c.cc, ifnull(c.rc, -1), c.cmd, c.rsp, c.rsp_handle, c.client_id, ifnull(cl.comm, '')"
        " FROM command c LEFT JOIN client cl ON cl.trace_id = c.trace_id AND cl.id = c.client_id"
        " WHERE c.trace_id = ? AND c.flags & 32 = 0 ORDER BY c.seq", (trace,)).fetchall()
    r = dict(primaries=0, hmac_sessions=0, hmac_single=0, hmac_single_flushed=0,
             policy_sessions=0, retries=0, kernel=0)
    templates = set()
    live = {}  # (client, handle) -> session record
    saved = {}  # a session's saved context (ContextSave's response) -> its record
    done = []

    def end(key):
        s = live.pop(key, None)
        if s:
            done.append(s)
            for k in [k for k, v in saved.items() if v is s]:
                del saved[k]

    def use(client, cmd, cc):
        for h, attrs in sessions(cmd, handles_in.get(cc, 0)):
            s = live.get((client, h))
            if s:
                s["uses"] += 1
                if not attrs & 1:
                    end((client, h))

    da_seen = False  # this start-up cycle's first TPM_RC_RETRY was seen
    for i, (seq, cc, rc, cmd, rsp, rsp_h, client, comm) in enumerate(rows):
        cmd, rsp = cmd or b"", rsp or b""
        r["kernel"] += comm == "kernel"
        if cc == 0x144 and rc == 0:  # Startup
            da_seen = False
        if rc in (0x922, 0x908, 0x90A):
            # The TPM's record of dictionary-attack use is no retry to
            # count: the cycle's first TPM_RC_RETRY, to a command with an
            # authorization area (tag TPM_ST_SESSIONS), sent again at once
            # by the same client and answered success.
            nxt = rows[i + 1] if i + 1 < len(rows) else None
            if rc == 0x922 and not da_seen:
                da_seen = True
                if cmd[:2] == b"\x80\x02" and nxt and nxt[1] == cc and nxt[6] == client and nxt[2] == 0:
                    continue
            r["retries"] += 1
            continue
        if cc == CC_CREATE_PRIMARY and rc == 0:
            r["primaries"] += 1
            p = params(cmd, 1)
            p += 2 + u16(cmd, p)  # inSensitive
            n = u16(cmd, p)
            templates.add((u32(cmd, 10), cmd[p:p + 2 + n]))
        if cc == CC_START_AUTH and rc == 0:
            p = params(cmd, 2)  # tpmKey, bind
            p += 2 + u16(cmd, p)  # nonceCaller
            p += 2 + u16(cmd, p)  # encryptedSalt
            use(client, cmd, cc)  # a session that encrypts the nonce
            end((client, rsp_h))
            live[(client, rsp_h)] = dict(type=cmd[p], uses=0, flushed=0, policy=[])
            continue
        if cc == CC_FLUSH and len(cmd) >= 14:
            s = live.get((client, u32(cmd, 10)))
            if s:
                s["flushed"] = 1
                end((client, u32(cmd, 10)))
            continue
        # A session saved by one client and loaded by another (tpm2-tools
        # -S session.ctx) is the same session: matched by its context bytes.
        if cc == CC_CONTEXT_SAVE and rc == 0 and (client, u32(cmd, 10)) in live:
            saved[rsp[10:]] = live.pop((client, u32(cmd, 10)))
            continue
        if cc == CC_CONTEXT_LOAD and rc == 0 and cmd[10:] in saved:
            live[(client, rsp_h)] = saved[cmd[10:]]
            continue
        if cc in policy_ccs and len(cmd) >= 14 and (client, u32(cmd, 10)) in live:
            live[(client, u32(cmd, 10))]["policy"].append((cc, cmd[params(cmd, handles_in.get(cc, 1)):]))
            continue
        use(client, cmd, cc)
    uniq = {id(s): s for s in done + list(live.values()) + list(saved.values())}
    policies = set()
    for s in uniq.values():
        if s["type"] == 0:
            r["hmac_sessions"] += 1
            if s["uses"] == 1:
                r["hmac_single"] += 1
                r["hmac_single_flushed"] += s["flushed"]
        elif s["type"] == 1:
            r["policy_sessions"] += 1
            policies.add(tuple(s["policy"]))
    r["templates"] = len(templates)
    r["policies"] = len(policies)
    for k, v in r.items():
        print(f"{k}={v}")


def findings(path):
    d = json.load(open(path))
    for f in d["findings"]:
        p = f.get("proof")
        proof = "%.3f:%.6f" % (p["replayed_saving_ms"], p["difference"]) if p else "-"
        print(f["kind"], f["count"], f["commands"], f["removed"], "%.3f" % f["saving_ms"], proof)


if __name__ == "__main__":
    if sys.argv[1] == "counts":
        counts(sys.argv[2], int(sys.argv[3]))
    else:
        findings(sys.argv[2])
