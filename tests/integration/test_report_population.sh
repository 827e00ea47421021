#!/usr/bin/env bash
# report --population (docs/profiles.md, "The population"): the trace on every
# shipped profile drawn as one strip per policy (each profile's p50 to p95), its
# table, and "population" in --json with the very figures 'predict --profile
# all --json' gives (same seed and boots); a vendor of no profile is an error
# that writes nothing.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_getrandom python3

db=$T/t.db
(cd "$T" && "$TPMTRACE" record --spawn-swtpm --db "$db" --quiet -- \
	sh -c 'tpm2_getrandom 8 >/dev/null && tpm2_pcrextend 16:sha256=0000000000000000000000000000000000000000000000000000000000000000' 2>"$T/rec.err")
expect_eq "recorded a trace" "$?" 0
n_prof=$("$TPMTRACE" profile list | awk 'NR > 1 && $2 == "shipped"' | wc -l)

"$TPMTRACE" report "$db" --population all --host-crypto estimate -o "$T/r.html" 2>"$T/r.err"
expect_eq "report --population all: exit status" "$?" 0
check "the population section, one strip per preset, one dot per profile in each" python3 -c '
import re, sys
h = open(sys.argv[1]).read()
n = int(sys.argv[2])
s = h[h.index("<section id=\"population-section\">"):]
s = s[:s.index("</section>")]
svg = re.search(r"<svg id=\"population-chart\"[^>]*data-profiles=\"(\d+)\" data-policies=\"(\d+)\"", s)
assert svg and int(svg.group(1)) == n and int(svg.group(2)) == 6, svg and svg.groups()
pols = re.findall(r"<g class=\"pop-policy\" data-policy=\"([^\"]+)\"", s)
assert pols == ["as-recorded", "password", "linux-6.10", "linux-6.12",
                "linux-6.12-no-pcr-integrity", "linux-6.18"], pols
dots = re.findall(r"<g class=\"pop-dot\" data-profile=\"([^\"]+)\" data-p50-ms=\"([0-9.]+)\" data-p95-ms=\"([0-9.]+)\"", s)
assert len(dots) == 6 * n, len(dots)
assert all(0 < float(a) <= float(b) for _, a, b in dots)
assert len(re.findall(r"<tr><td class=\"l\">", s)) == n
assert "Predicted, not measured" in s' "$T/r.html" "$n_prof"

"$TPMTRACE" report "$db" --population all --host-crypto estimate --json >"$T/r.json" 2>/dev/null
expect_eq "report --population all --json: exit status" "$?" 0
"$TPMTRACE" predict "$db" --profile all --host-crypto estimate --json >"$T/p.json" 2>/dev/null
expect_eq "predict --profile all --json: exit status" "$?" 0
check "report's population = predict's, policy by policy and profile by profile" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["population"]
p = json.load(open(sys.argv[2]))
assert r["profiles"] == p["profiles"] and (r["boots"], r["seed"]) == (p["boots"], p["seed"]), r
for a, b in zip(r["policies"], p["population"]):
    assert a["policy"] == b["policy"], (a["policy"], b["policy"])
    assert a["profiles"] == b["profiles"], a["policy"]
assert len(r["policies"]) == len(p["population"]) == 6' "$T/r.json" "$T/p.json"

"$TPMTRACE" report "$db" --population nosuch --host-crypto estimate -o "$T/n.html" 2>"$T/n.err"
expect_eq "--population of no vendor: exit 1" "$?" 1
check "... said" grep -q "population nosuch: no shipped profile of vendor 'nosuch'" "$T/n.err"
check "... nothing written" test ! -e "$T/n.html"
finish
