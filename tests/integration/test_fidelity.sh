#!/usr/bin/env bash
# docs/fidelity.md: every published real-chip figure beside what tpmtrace gives
# for it, computed here from the shipped profiles and predict, and the table in
# the document checked against the computation (published, tpmtrace, error of
# each row by its id), so that the document cannot drift from the tool:
#  - the SLB9670's session commands (linux-integrity thread) against the rules
#    that derive them from TPMScan's operations (fw 7.85.17.51968);
#  - wolfTPM's ECC key generation and signature on the SLB9670 and the NPCT750
#    against TPMScan (the NPCT75x over its firmwares: a range);
#  - the seed: 12,313 IMA extends with 1.99 ms between them on the
#    slb9670-linux-integrity profile: linux-6.10 within 5% of 1,941.7 s, the
#    lazy flush (linux-6.12) against 404.4 s;
#  - systemd's "created primary key on TPM in 251ms" (chip not said): inside
#    the population of CreatePrimary ECC P-256 over the TPMScan profiles.
# Each row also has a bound it must stay within (the errors documented).
. "$(dirname "$0")/../lib/common.sh"
need python3

for p in ifx-slb9670-fw7.85.17.51968 ntc-npct75-fw7.2.0.1 ntc-npct75-fw7.2.0.2 \
	ntc-npct75-fw7.2.1.0 ntc-npct75-fw7.2.2.0 ntc-npct75-fw7.2.3.1; do
	"$TPMTRACE" profile export $p >"$T/$p.profile" 2>"$T/err"
	expect_eq "profile export $p" "$?" 0
done
mkdir -p "$T/all"
"$TPMTRACE" profile list >"$T/list.txt"
for p in $(awk 'NR > 1 && $1 ~ /-fw[0-9]/ { print $1 }' "$T/list.txt"); do
	"$TPMTRACE" profile export $p >"$T/all/$p.profile" || echo "export $p failed" >>"$T/err.all"
done
check "every TPMScan profile exported" test ! -s "$T/err.all"
"$TPMTRACE" predict --synthetic pcr-extend:12313 --gap-ms 1.99 --profile slb9670-linux-integrity \
	--host-crypto estimate --json >"$T/seed.json" 2>/dev/null
expect_eq "predict the seed" "$?" 0

python3 - "$T" "$TPMTRACE_SRC/docs/fidelity.md" <<'PY' >"$T/py.out" 2>&1
import glob, json, os, re, sys
T, doc = sys.argv[1], sys.argv[2]

def entries(path):
    rows = {}
    for l in open(path):
        m = re.match(r"^(\S+) +(none|password|hmac|\*) +(\S+) +(.*?)(  # .*)?$", l.rstrip("\n"))
        if m and "mean=" in m.group(4):
            rows[(m.group(1), m.group(2), m.group(3))] = {
                k: v for k, v in (kv.split("=") for kv in m.group(4).split())}
    return rows

def mean(rows, *k): return float(rows[k]["mean"])
def ms(v): return "%.2f ms" % v
def sec(v): return "%.1f s" % (v / 1000)
def err(got, pub): return "%+.1f%%" % (100 * (got / pub - 1))

ifx = entries(os.path.join(T, "ifx-slb9670-fw7.85.17.51968.profile"))
sas = mean(ifx, "StartAuthSession", "none", "salted-ecc")
cl = mean(ifx, "ContextLoad", "none", "-")
fl = mean(ifx, "FlushContext", "none", "-")
xh = mean(ifx, "PCR_Extend", "hmac", "-")
xp = mean(ifx, "PCR_Extend", "password", "-")
# Each derived row must be said derived in the profile.
for k in [("StartAuthSession", "none", "salted-ecc"), ("ContextLoad", "none", "-"),
          ("FlushContext", "none", "-"), ("PCR_Extend", "hmac", "-"), ("PCR_Extend", "password", "-"),
          ("CreatePrimary", "password", "ecc-p256")]:
    assert "derived" in ifx[k], k
got = {}  # id -> (published, tpmtrace, error, bound on |error| in %)
got["slb9670-sas"] = (ms(84.75), ms(sas), err(sas, 84.75), 5)
got["slb9670-contextload"] = (ms(36.98), ms(cl), err(cl, 36.98), 25)
got["slb9670-flush"] = (ms(3.20), ms(fl), err(fl, 3.20), 35)
got["slb9670-extend-hmac"] = (ms(24.36), ms(xh), err(xh, 24.36), 25)
got["slb9670-extend"] = (ms(6.36), ms(xp), err(xp, 6.36), 20)
four, pub4 = sas + cl + fl + xh, 84.75 + 36.98 + 3.20 + 24.36
got["slb9670-extend-6.10"] = (ms(pub4), ms(four), err(four, pub4), 10)
kg = mean(ifx, "CreatePrimary", "password", "ecc-p256")
sg = mean(ifx, "Sign", "password", "ecc-p256.ecdsa")
got["slb9670-keygen"] = (ms(231), ms(kg), err(kg, 231), 10)
got["slb9670-sign"] = (ms(68.9), ms(sg), err(sg, 68.9), 10)

def npct(cmd, var, pub):
    v = [mean(entries(p), cmd, "password", var)
         for p in sorted(glob.glob(os.path.join(T, "ntc-npct75-fw7.2.*.profile")))]
    assert len(v) == 5, v
    lo, hi = min(v), max(v)
    return ms(pub), "%.2f..%.2f ms" % (lo, hi), "%s..%s" % (err(lo, pub), err(hi, pub)), None
got["npct750-keygen"] = npct("CreatePrimary", "ecc-p256", 84)
got["npct750-sign"] = npct("Sign", "ecc-p256.ecdsa", 56.4)

seed = {p["name"]: p for p in json.load(open(os.path.join(T, "seed.json")))["policies"]}
for name, pub, bound, key in [("password", 102.8, 0.5, "seed-password"),
                              ("linux-6.10", 1941.7, 5, "seed-6.10"),
                              ("linux-6.12", 404.4, 25, "seed-6.12")]:
    t = seed[name]["total_ms"]
    got[key] = (sec(pub * 1000), sec(t), err(t, pub * 1000), bound)
# The ratio of the session increments over password (Berger: 36 - 28 s over
# 29 - 28 s, whole seconds: at least (35.5 - 28.5) / (29.5 - 27.5) = 3.5).
inc = lambda n: seed[n]["total_ms"] - seed["password"]["total_ms"]
r = inc("linux-6.10") / inc("linux-6.12")
got["berger-ratio"] = ("8 (3.5 or more)", "%.1f" % r, "consistent" if r >= 3.5 else "not", None)
assert r >= 3.5, r

# systemd #40485: 251 ms for a primary key, chip not said: where it falls among
# the TPMScan chips' CreatePrimary ECC P-256 (derived from Create).
pop = []
for p in glob.glob(os.path.join(T, "all", "*.profile")):
    e = entries(p)
    if ("CreatePrimary", "password", "ecc-p256") in e:
        pop.append(mean(e, "CreatePrimary", "password", "ecc-p256"))
pop.sort()
assert len(pop) >= 40, len(pop)
below = sum(v < 251 for v in pop)
got["systemd-primary"] = (ms(251), "%.2f..%.2f ms over %d chips" % (pop[0], pop[-1], len(pop)),
                          "inside, %d%% of chips faster" % round(100 * below / len(pop)), None)
assert pop[0] < 251 < pop[-1], (pop[0], pop[-1])

for k, (pub, t, e, bound) in got.items():
    if bound is not None:
        assert abs(float(e.rstrip("%"))) <= bound, (k, e, bound)

# The document's table: | `id` | figure | published | tpmtrace | error | inputs |
table = {}
for l in open(doc):
    m = re.match(r"^\| `([a-z0-9.-]+)` \|", l)
    if m:
        cells = [c.strip() for c in l.strip().strip("|").split("|")]
        table[m.group(1)] = (cells[2], cells[3], cells[4])
missing = sorted(set(got) - set(table))
for k, v in got.items():
    print("%-22s %-20s %-34s %s" % (k, v[0], v[1], v[2]))
assert not missing, ("rows missing from docs/fidelity.md", missing)
bad = [(k, table[k], got[k][:3]) for k in got if table[k] != got[k][:3]]
assert not bad, ("docs/fidelity.md differs from the computation", bad)
PY
expect_eq "every figure within its bound, docs/fidelity.md's table as computed" "$?" 0
cat "$T/py.out"
finish
