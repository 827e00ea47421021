#!/usr/bin/env bash
# TPMScan runs imported from their original files (the shared data and tests/data/tpmscan: two runs of an
# SLB9670, firmware 7.85.17.51968, each its performance.yaml and six of its
# detail/Perf_*.csv), every figure checked against an independent computation here:
#  - one run's directory: an entry with its CSV has n, mean, stdev, min, max and the
#    nearest-rank p50/p90/p95/p99 of the CSV's successful samples (duration, seconds);
#    an entry without one has the yaml's avg/min/max and no quantile;
#  - the firmware's directory: the two runs merged, each entry's samples pooled;
#  - the figures survive a database (p90_ns, p99_ns) and a file of schema version 3
#    (read as before; migrated when written);
#  - bad input: a malformed sample names its file and line, runs of two firmwares do
#    not merge, nothing is written;
#  - the shipped TPMScan profiles: one per chip and firmware (>= 59), each with its
#    spread, listed by vendor;
#  - derived entries: CreatePrimary from Create of each key type, PCR_Extend from Hash
#    SHA-256 (docs/profiles.md, "Derived entries"), each said derived.
. "$(dirname "$0")/../lib/common.sh"
need python3 sqlite3
# The firmware's directory as the dataset lays it out: the first run's yaml is the
# shared data's (read there, not copied into the tree), its CSVs and the second run
# are tests/data's.
Y1=${TPMTRACE_SHARED_DATA:-}/profiles/tpmscan/IFX_7.85.17.51968_08836af27dda9f32.performance.yaml
[ -f "$Y1" ] || skip "no TPMScan data at $Y1"
S=$TPMTRACE_SRC/tests/data/tpmscan/IFX/7.85.17.51968
D=$T/dataset/IFX/7.85.17.51968
mkdir -p "$D"
cp -r "$S/08836af27dda9f32" "$S/54e216f55af9dce9" "$D/"
cp "$Y1" "$D/08836af27dda9f32/performance.yaml"
R1=$D/08836af27dda9f32
R2=$D/54e216f55af9dce9

# check_import PROFILE RUN...: every entry of PROFILE against the runs' files.
cat >"$T/expect.py" <<'EOF'
import csv, math, os, re, sys

prof, runs = sys.argv[1], sys.argv[2:]
entries = {}
for line in open(prof):
    m = re.match(r'^(\w+) +(\S+) +(\S+) +(n=.*?)(?:  # (.*))?$', line)
    if m and not line.startswith(('tpmtrace-profile', '#')) and ':' not in line.split()[0]:
        f = dict(kv.split('=') for kv in m.group(4).split())
        entries[(m.group(1), m.group(3))] = (f, m.group(5) or '')

def rank(v, p):  # nearest rank: the smallest value with at least p% at or below it
    return v[max(1, math.ceil(len(v) * p / 100)) - 1]

def close(a, b):
    return abs(float(a) - b) <= 1e-6 * max(1.0, abs(b))

def yaml_items(path):
    """(op, CSV name, avg, min, max, successful) of each measurement, read plainly."""
    out, op, it = [], None, None
    for line in open(path):
        if re.match(r'^TPM2_\w+:', line):
            op = line.split(':')[0][5:]
            continue
        m = re.match(r'^ +(avg op|min op|max op|successful): (\S+)', line)
        if it is not None and m:
            it[m.group(1)] = float(m.group(2))
            continue
        m = re.match(r'^(- |  )(\w[^:]*): (.*)$', line)
        if op and m:
            if m.group(1) == '- ':
                it = {'op': op, 'params': []}
                out.append(it)
            k, v = m.group(2), m.group(3).strip().strip('"')
            if k in ('key parameters', 'hash algorithm', 'algorithm', 'key length', 'mode',
                     'encrypt/decrypt?', 'scheme'):
                it['params'].append(v.replace(' ', '_'))
            continue
    return out

checked = quantiles = 0
for op_csv in sorted({(it['op'], 'Perf_%s%s.csv' % (it['op'], ':' + '_'.join(it['params']) if it['params'] else ''))
                      for it in yaml_items(os.path.join(runs[0], 'performance.yaml'))}):
    op, name = op_csv
    if op == 'HMAC':
        name = 'Perf_HMAC.csv'  # measured once, its CSV named by the operation only
    samples, have_all, ys = [], True, []
    for r in runs:
        its = [it for it in yaml_items(os.path.join(r, 'performance.yaml')) if it['op'] == op and
               ('Perf_%s%s.csv' % (op, ':' + '_'.join(it['params']) if it['params'] else '') == op_csv[1])]
        ys += its
        p = os.path.join(r, 'detail', name)
        if not os.path.exists(p):
            have_all = False
            continue
        with open(p) as f:
            for row in csv.DictReader(f):
                if int(row['return_code'], 16) == 0:
                    samples.append(float(row['duration']) * 1000)
    ys = [y for y in ys if y.get('successful', 0) > 0]
    if not ys:
        continue
    # the profile's entry citing this CSV or this measurement
    cands = [(k, v) for k, v in entries.items() if name in v[1]] if have_all else []
    if have_all:
        assert len(cands) == 1, (name, cands)
        (cc, var), (f, _) = cands[0]
        v = sorted(samples)
        mean = sum(v) / len(v)
        sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (len(v) - 1))
        want = {'n': len(v), 'mean': mean, 'p50': rank(v, 50), 'p90': rank(v, 90), 'p95': rank(v, 95),
                'p99': rank(v, 99), 'stdev': sd, 'min': v[0], 'max': v[-1]}
        for k, w in want.items():
            assert k in f and close(f[k], w), (name, k, f.get(k), w)
        quantiles += 1
    checked += 1
    if not have_all:
        n = sum(y['successful'] for y in ys)
        avg = sum(y['avg op'] * y['successful'] for y in ys) / n
        hit = [v for v in entries.values() if 'n' in v[0] and int(v[0]['n']) == n and close(v[0]['mean'], avg)
               and close(v[0]['min'], min(y['min op'] for y in ys)) and close(v[0]['max'], max(y['max op'] for y in ys))
               and not any(q in v[0] for q in ('p50', 'p90', 'p95', 'p99'))]
        assert hit, (name, n, avg)
print(checked, quantiles)
EOF

"$TPMTRACE" profile import tpmscan "$R1" --output "$T/r1.profile" 2>"$T/r1.err"
expect_eq "import of one run's directory" "$?" 0
expect_eq "its name says chip and firmware" "$(sed -n 's/^name: //p' "$T/r1.profile")" \
	ifx-slb9670-fw7.85.17.51968
expect_eq "every entry as the run's files give it (measurements, with quantiles from a CSV)" \
	"$(python3 "$T/expect.py" "$T/r1.profile" "$R1" 2>&1)" "34 6"
check "the note says where the quantiles come from" \
	grep -q '^note: n, mean, p50/p90/p95/p99 (nearest rank)' "$T/r1.profile"
check "CreatePrimary derived from Create: the same figures, said derived" python3 -c 'import re,sys
rows = {}
for l in open(sys.argv[1]):
    m = re.match(r"^(Create|CreatePrimary) +password +(\S+) +(.*?)  # (.*)$", l)
    if m:
        rows[(m.group(1), m.group(2))] = (m.group(3), m.group(4))
creates = [v for (c, v) in rows if c == "Create"]
assert creates and all(("CreatePrimary", v) in rows for v in creates), rows
for v in creates:
    f, why = rows[("CreatePrimary", v)]
    assert f == "derived=Create " + rows[("Create", v)][0], (v, f)
    assert why == "derived: the figures of Create %s (same key type)" % v, why
assert len(rows) == 2 * len(creates), rows' "$T/r1.profile"
check "PCR_Extend derived from Hash sha256.256b: the same figures, said derived" python3 -c 'import re,sys
rows = {}
for l in open(sys.argv[1]):
    m = re.match(r"^(Hash|PCR_Extend) +(none|password) +(\S+) +(.*?)  # (.*)$", l)
    if m:
        rows[(m.group(1), m.group(3))] = (m.group(4), m.group(5))
f, why = rows[("PCR_Extend", "-")]
assert f == "derived=Hash " + rows[("Hash", "sha256.256b")][0], f
assert why == "derived: Hash sha256.256b; one digest in the TPM and a small command each way", why' "$T/r1.profile"
check "the session and context commands derived by the rules, figures as the rules say" python3 -c '
import math, re, sys
rows = {}
for l in open(sys.argv[1]):
    m = re.match(r"^(\S+) +(none|password|hmac) +(\S+) +(.*?)  # (.*)$", l)
    if m:
        f = dict(kv.split("=") for kv in m.group(4).split())
        rows[(m.group(1), m.group(2), m.group(3))] = (f, m.group(5))
def fig(k, name): return float(rows[k][0].get(name, "nan"))
sign, hmac = ("Sign", "password", "ecc-p256.ecdsa"), ("HMAC", "password", "sha256.256b")
rnd, hsh = ("GetRandom", "none", "32b"), ("Hash", "none", "sha256.256b")
quantiles = 0
# (derived entry, its sources, times the first counts, derived=, the rule named in the comment)
want = [(("StartAuthSession", "none", "salted-ecc"), [sign, hmac], 1, "Sign", "Sign ecc-p256.ecdsa + HMAC sha256.256b;"),
        (("StartAuthSession", "none", "salted"), [("RSA_Decrypt", "password", "rsa-2048.oaep"), hmac], 1, "RSA_Decrypt", "RSA_Decrypt rsa-2048.oaep + HMAC"),
        (("StartAuthSession", "none", "unsalted"), [rnd], 1, "GetRandom", "GetRandom 32b;"),
        (("ContextLoad", "none", "-"), [hmac], 2, "HMAC", "2 x HMAC sha256.256b;"),
        (("ContextSave", "none", "-"), [hmac], 2, "HMAC", "2 x HMAC sha256.256b;"),
        (("Load", "password", "-"), [hmac], 2, "HMAC", "2 x HMAC sha256.256b;"),
        (("PCR_Extend", "hmac", "-"), [hsh, hmac], 1, "Hash", "Hash sha256.256b + HMAC sha256.256b;"),
        (("Quote", "password", "-"), [sign], 1, "Sign", "Sign ecc-p256.ecdsa;"),
        (("FlushContext", "none", "-"), [rnd], 1, "GetRandom", "GetRandom 32b; no key operation"),
        (("GetCapability", "none", "-"), [rnd], 1, "GetRandom", "GetRandom 32b; no key operation"),
        (("Unseal", "password", "-"), [rnd], 1, "GetRandom", "GetRandom 32b; no key operation")]
for k, srcs, times, frm, rule in want:
    f, why = rows[k]
    assert f["derived"] == frm and why.startswith("derived: " + rule), (k, f, why)
    for q in ("mean", "p50", "p90", "p95", "p99", "min", "max"):
        w = times * fig(srcs[0], q) + sum(fig(s, q) for s in srcs[1:])
        # A figure a source lacks (no CSV in this run) the derived entry lacks too.
        assert math.isclose(float(f[q]), w, rel_tol=1e-5) if q in f else math.isnan(w), (k, q, f.get(q), w)
    sd = math.hypot(times * fig(srcs[0], "stdev"), *[fig(s, "stdev") for s in srcs[1:]])
    assert math.isclose(float(f["stdev"]), sd, rel_tol=1e-5) if "stdev" in f else math.isnan(sd), (k, sd)
    quantiles += "p99" in f
assert quantiles >= 3, quantiles  # Sign, Hash and GetRandom have their CSVs in this run
# NV writes have no rule: not in the profile, and said so.
assert not [k for k in rows if k[0] in ("NV_Write", "NV_DefineSpace", "Startup")], rows.keys()
' "$T/r1.profile"
check "the lacks line names what no rule derives" grep -q '^lacks: NV writes (NV_DefineSpace' "$T/r1.profile"
check "... and a boot's commands whose rules' sources were not timed (an AMD fTPM without HMAC)" \
	grep -q '^lacks: NV writes .*; and of a boot.s sessions: ContextLoad ContextSave (their rules. sources not timed)$' \
	"$TPMTRACE_SRC/model/profiles/amd-fw3.37.0.5.profile"
check "RSA-2048 Create: the tail a mean hides (p99 and max over 30 s)" \
	python3 -c 'import re,sys
l = [x for x in open(sys.argv[1]) if x.startswith("Create ") and " rsa-2048 " in x][0]
f = dict(kv.split("=") for kv in l.split("#")[0].split()[3:])
assert float(f["p99"]) > 30000 and float(f["max"]) > float(f["p99"]) > float(f["p50"]), f' "$T/r1.profile"

"$TPMTRACE" profile import tpmscan "$D" --output "$T/fw.profile" 2>"$T/fw.err"
expect_eq "import of the firmware's directory (two runs)" "$?" 0
expect_eq "the two runs merged, samples pooled" \
	"$(python3 "$T/expect.py" "$T/fw.profile" "$R1" "$R2" 2>&1)" "34 6"
check "the note says two runs merged" grep -q '^note: 2 runs of this chip and firmware merged' "$T/fw.profile"
check "the source names both runs" grep -q '^source: .*08836af27dda9f32 54e216f55af9dce9' "$T/fw.profile"

# ---- through a database, and a file of schema version 3 ----
"$TPMTRACE" profile import tpmscan "$D" "$T/p.db" 2>"$T/db.err"
expect_eq "stored in a database" "$?" 0
"$TPMTRACE" profile export ifx-slb9670-fw7.85.17.51968 "$T/p.db" >"$T/db.profile"
check "the database gives the same profile back, p90 and p99 included" cmp "$T/fw.profile" "$T/db.profile"
expect_eq "p90_ns, p99_ns and derived_from stored, as many as the file has" \
	"$(sqlite3 "$T/p.db" "SELECT count(p90_ns), count(p99_ns), count(derived_from) FROM profile_entry")" \
	"$(grep -c ' p90=' "$T/fw.profile")|$(grep -c ' p99=' "$T/fw.profile")|$(grep -c ' derived=' "$T/fw.profile")"
cp "$T/p.db" "$T/v3.db"
sqlite3 "$T/v3.db" "ALTER TABLE profile_entry DROP COLUMN p90_ns; ALTER TABLE profile_entry DROP COLUMN p99_ns;
	ALTER TABLE profile_entry DROP COLUMN derived_from;
	UPDATE meta SET value = '3' WHERE key = 'schema_version'; PRAGMA user_version = 3"
"$TPMTRACE" profile export ifx-slb9670-fw7.85.17.51968 "$T/v3.db" >"$T/v3.profile" 2>"$T/v3.err"
expect_eq "a version 3 file is read" "$?" 0
check "... its profile without p90 and p99" bash -c "! grep -q 'p90=\|p99=' '$T/v3.profile' &&
	grep -c ' p95=' '$T/v3.profile' | grep -qx $(grep -c ' p95=' "$T/fw.profile")"
expect_eq "... and left at version 3" "$(sqlite3 "$T/v3.db" "PRAGMA user_version")" 3
"$TPMTRACE" profile import tpmscan "$R1" "$T/v3.db" --name one-run 2>"$T/v3w.err"
expect_eq "written to: migrated to version 5, the profile stored" \
	"$(sqlite3 "$T/v3.db" "PRAGMA user_version; SELECT count(p99_ns) FROM profile_entry e
	JOIN profile p ON p.id = e.profile_id WHERE p.name = 'one-run'")" "5
$(grep -c ' p99=' "$T/r1.profile")"

# ---- bad input ----
mkdir -p "$T/bad/IFX/7.85.17.51968"
cp -r "$R1" "$T/bad/IFX/7.85.17.51968/"
bad_csv="$T/bad/IFX/7.85.17.51968/08836af27dda9f32/detail/Perf_GetRandom.csv"
sed -i '5s/.*/0.004,x,zz/' "$bad_csv"
"$TPMTRACE" profile import tpmscan "$T/bad/IFX/7.85.17.51968" --output "$T/bad.profile" 2>"$T/bad.err"
expect_eq "a malformed sample: exit 1" "$?" 1
check "... the message names the file and line" grep -q "Perf_GetRandom.csv:5: " "$T/bad.err"
check "... nothing written" test ! -e "$T/bad.profile"
mkdir -p "$T/mix"
cp -r "$R1" "$T/mix/a"
cp -r "$R2" "$T/mix/b"
sed -i 's/^Firmware version: .*/Firmware version: "7.62.12.13824"/' "$T/mix/b/performance.yaml"
"$TPMTRACE" profile import tpmscan "$T/mix" --output "$T/mix.profile" 2>"$T/mix.err"
expect_eq "runs of two firmwares: exit 1" "$?" 1
check "... said: only runs of one chip and firmware merge" grep -q 'only runs of one chip and firmware merge' "$T/mix.err"
"$TPMTRACE" profile import tpmscan "$T" --output "$T/none.profile" 2>"$T/none.err"
expect_eq "a directory without runs: exit 1" "$?" 1
check "... said" grep -q 'no performance.yaml in it nor in a directory under it' "$T/none.err"

# ---- the shipped TPMScan profiles ----
"$TPMTRACE" profile list >"$T/list.txt"
n_ts=$(grep -cE '^[a-z]+(-[a-z0-9]+)?-fw[0-9.]+ +shipped ' "$T/list.txt")
check "one shipped profile per TPMScan chip and firmware with measurements ($n_ts >= 59)" [ "$n_ts" -ge 59 ]
expect_eq "every one with a spread for each entry" \
	"$(grep -E '^[a-z]+(-[a-z0-9]+)?-fw[0-9.]+ +shipped ' "$T/list.txt" | awk '$8 != "100%"' | wc -l)" 0
expect_eq "the SLB9670 fw 7.85: GetRandom of a boot's 7 commands measured, the 6 others derived" \
	"$(awk '$1 == "ifx-slb9670-fw7.85.17.51968" { print $6, $7 }' "$T/list.txt")" "$(grep -c ' derived=' \
	"$TPMTRACE_SRC/model/profiles/ifx-slb9670-fw7.85.17.51968.profile") 1+6/7"
"$TPMTRACE" profile list --vendor ntc >"$T/ntc.txt"
expect_eq "--vendor ntc: the Nuvoton ones only" \
	"$(awk 'NR > 1 { print $3 }' "$T/ntc.txt" | sort -u)" NTC
check "--vendor ntc: its firmwares 1.3 and 7.2" grep -q '^ntc-npct75-fw7.2.3.1 ' "$T/ntc.txt"
"$TPMTRACE" profile list --vendor nosuch >/dev/null 2>"$T/nov.err"
expect_eq "--vendor of no profile: exit 1" "$?" 1
check "... said" grep -q "no profile of vendor 'nosuch'" "$T/nov.err"
"$TPMTRACE" profile show ifx-slb9670-fw7.85.17.51968 >"$T/show.txt"
check "show: the quantiles table" grep -qE '^Create +password +rsa-2048 +7000 ' "$T/show.txt"
finish
