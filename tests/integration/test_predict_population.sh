#!/usr/bin/env bash
# predict on the population of shipped profiles (docs/profiles.md, "The population"):
#  - --synthetic pcr-extend:12313 --profile all: one row per shipped profile, sorted
#    by p50, p50 <= p95, --over counted as the rows say, text and JSON alike;
#  - a recorded trace read once for all profiles gives each profile the figures a
#    prediction on that profile alone gives;
#  - --vendor keeps one vendor's profiles; bad combinations are usage errors.
. "$(dirname "$0")/../lib/common.sh"
need swtpm python3

n_prof=$("$TPMTRACE" profile list | awk 'NR > 1' | wc -l)
check "shipped profiles: at least the 59 TPMScan ones and the hand-written ($n_prof)" [ "$n_prof" -ge 68 ]

"$TPMTRACE" predict --synthetic pcr-extend:12313 --profile all --policy linux-6.10 --policy password \
	--over 20s --host-crypto estimate --json >"$T/p.json" 2>"$T/p.err"
expect_eq "--profile all --json: exit status" "$?" 0
check "one table per policy, one row per shipped profile, sorted by p50, counts as the rows say" \
	python3 -c 'import json,sys
j = json.load(open(sys.argv[1])); n = int(sys.argv[2])
assert j["profiles"] == n and j["over_ms"] == 20000.0, j["profiles"]
pols = [p["policy"] for p in j["population"]]
assert pols == ["password", "linux-6.10"] or sorted(pols) == ["linux-6.10", "password"], pols
for p in j["population"]:
    rows = p["profiles"]
    assert len(rows) == n and len({r["profile"] for r in rows}) == n, len(rows)
    assert [r["p50_ms"] for r in rows] == sorted(r["p50_ms"] for r in rows)
    assert all(0 < r["p50_ms"] <= r["p95_ms"] <= r["max_ms"] for r in rows)
    assert p["above_p50"] == sum(r["p50_ms"] > 20000 for r in rows), p["above_p50"]
    assert p["above_p95"] == sum(r["p95_ms"] > 20000 for r in rows), p["above_p95"]
    assert all(r["mostly_fallback"] == (r["fallback_share"] > 0.25) for r in rows)
    assert all(0 <= r["derived_share"] <= 1 - r["fallback_share"] + 1e-9 for r in rows)
pw = [p for p in j["population"] if p["policy"] == "password"][0]["profiles"]
slb = [r for r in pw if r["profile"] == "ifx-slb9670-fw7.85.17.51968"][0]
assert slb["fallback_share"] == 0 and slb["sampled_share"] > 0.99, slb
# Its extends derived from Hash (no TPMScan chip times PCR_Extend); the published one measured.
assert slb["derived_share"] > 0.99, slb
pub = [r for r in pw if r["profile"] == "slb9670-linux-integrity"][0]
assert pub["derived_share"] == 0 and pub["fallback_share"] == 0, pub' "$T/p.json" "$n_prof"
"$TPMTRACE" predict --synthetic pcr-extend:12313 --profile all --policy password \
	--over 20s --host-crypto estimate >"$T/p.txt" 2>/dev/null
expect_eq "the text's count above 20 s is the JSON's" \
	"$(sed -nE 's/^  above 20.0 s: ([0-9]+) of ([0-9]+) profiles at p50 .*, ([0-9]+) at p95 .*/\1 \2 \3/p' "$T/p.txt")" \
	"$(python3 -c 'import json,sys
p = [p for p in json.load(open(sys.argv[1]))["population"] if p["policy"] == "password"][0]
print(p["above_p50"], len(p["profiles"]), p["above_p95"])' "$T/p.json")"
expect_eq "the text: one row per profile" \
	"$(grep -cE '^  [^ ]+ +[^ ]+ +[0-9.]+ (ms|s) +[0-9.]+ (ms|s) +[0-9]+%' "$T/p.txt")" "$n_prof"

# ---- a recorded trace, read once for every profile ----
db=$T/demo.db
record_demo "$db" 2
expect_eq "demo workload recorded" "$?" 0
"$TPMTRACE" predict "$db" --vendor amd --policy password --host-crypto estimate --json \
	>"$T/amd.json" 2>"$T/amd.err"
expect_eq "--vendor amd: exit status" "$?" 0
expect_eq "--vendor amd: the AMD profiles only" \
	"$(python3 -c 'import json,sys; print(sorted({r["vendor"] for p in json.load(open(sys.argv[1]))["population"] for r in p["profiles"]}))' "$T/amd.json")" \
	"['AMD']"
for prof in amd-fw3.37.0.5 amd-ftpm-tpmscan; do
	"$TPMTRACE" predict "$db" --profile $prof --policy password --host-crypto estimate --json \
		>"$T/one.json" 2>/dev/null
	check "$prof: the population's figures are those of a prediction on it alone" \
		python3 -c 'import json,sys
one = json.load(open(sys.argv[1]))["policies"][0]
pop = [r for p in json.load(open(sys.argv[2]))["population"] for r in p["profiles"] if r["profile"] == sys.argv[3]][0]
assert abs(one["tpm_ms"] - pop["tpm_ms"]) < 1e-6, (one["tpm_ms"], pop["tpm_ms"])
s = one["tpm_sampled"]
assert (s["p50_ms"], s["p95_ms"], s["max_ms"]) == (pop["p50_ms"], pop["p95_ms"], pop["max_ms"]), (s, pop)' \
		"$T/one.json" "$T/amd.json" $prof
done

# ---- usage ----
"$TPMTRACE" predict "$db" --profile amd-fw3.37.0.5 --over 10s >/dev/null 2>"$T/u1.err"
expect_eq "--over with one profile: a usage error" "$?" 2
"$TPMTRACE" predict "$db" --profile amd-fw3.37.0.5 --vendor amd >/dev/null 2>"$T/u2.err"
expect_eq "--vendor with a named profile: a usage error" "$?" 2
"$TPMTRACE" predict "$db" --profile all --over '10 parsecs' >/dev/null 2>"$T/u3.err"
expect_eq "--over without a time unit it knows: a usage error" "$?" 2
"$TPMTRACE" predict "$db" --vendor nosuch >/dev/null 2>"$T/u4.err"
expect_eq "--vendor of no shipped profile: exit 1" "$?" 1
check "... said" grep -q "no shipped profile of vendor 'nosuch'" "$T/u4.err"
finish
