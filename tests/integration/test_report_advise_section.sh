#!/usr/bin/env bash
# tpmtrace report's "What to change" in a real browser (headless Chromium, the
# DOM it built from the file on disk), checked against `advise --json`:
#  - three tpm2_createprimary of one template recorded through record
#    --spawn-swtpm: the section comes right after the headline, with the
#    repeated-primary finding, its now/after/saving equal to advise --json's
#    on the same profile (and on the record without --profile), every bar of
#    the chart on one axis (its width the same share of the axis for its
#    figure), the same numbers in report --json;
#  - after advise --prove: the proof stored (table advise_proof) and shown,
#    its replayed saving beside the predicted one and a bar for it, equal to
#    what advise --prove printed;
#  - a trace with nothing to find (one tpm2_pcrread): the "nothing to change"
#    line and no finding;
#  - text from the database and a profile's name escaped (a profile named
#    with markup, a stored proof whose policy is a script): no element made
#    of them;
#  - a schema version 2 file (before advise_proof): report reads it and leaves
#    it at version 2; opened for writing it is migrated to version 5 (through 3 and 4) and
#    keeps its traces.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3 tpm2_createprimary tpm2_pcrread
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip "chromium is not installed (apt-get install chromium)"
EPROF=$TPMTRACE_SRC/tests/integration/slb9670-scaled-16.profile
cd "$T" # tpm2_createprimary writes its context files here

dom() { # dom HTML OUT: the DOM Chromium builds from the file
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$(mktemp -d "$T/chromium.XXXXXX")" --dump-dom "file://$1" >"$2" 2>/dev/null
}

# facts DOM: the section as JSON (runs, findings, bars, items, the order of
# the sections, the elements inside the section).
cat >"$T/facts.py" <<'PY'
import json, sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.sections = []; s.runs = []; s.tags = {}; s.depth = 0
        s.bar = None; s.text = None; s.cur = None
    def handle_starttag(s, tag, a):
        a = dict(a); cls = (a.get("class") or "").split()
        if tag == "section":
            s.sections.append(a.get("id"))
            s.inside = a.get("id") == "advise-section"
        if getattr(s, "inside", False):
            s.tags[tag] = s.tags.get(tag, 0) + 1
        if tag == "div" and "advise-run" in cls:
            s.runs.append({"profile": a.get("data-profile"), "n": int(a["data-findings"]),
                           "findings": [], "items": [], "nothing": None, "axis": None})
        if tag == "svg" and "advise-chart" in cls:
            s.runs[-1]["axis"] = float(a["data-axis-ms"])
        if tag == "g" and "advise-finding" in cls:
            s.runs[-1]["findings"].append({k[5:]: v for k, v in a.items() if k.startswith("data-")} | {"bars": []})
        if tag == "g" and "advise-bar" in cls:
            s.bar = {"what": cls[1], "ms": float(a["data-ms"])}
            s.runs[-1]["findings"][-1]["bars"].append(s.bar)
        if tag == "rect" and s.bar is not None:
            s.bar["width"] = float(a["width"])
        if tag == "li" and "advise-item" in cls:
            s.text = ""; s.cur = "items"
        if tag == "p" and "advise-nothing" in cls:
            s.text = ""; s.cur = "nothing"
    def handle_endtag(s, tag):
        if tag == "g":
            s.bar = None
        if tag == "section":
            s.inside = False
        if (tag == "li" and s.cur == "items") or (tag == "p" and s.cur == "nothing"):
            r = s.runs[-1]
            if s.cur == "items": r["items"].append(" ".join(s.text.split()))
            else: r["nothing"] = " ".join(s.text.split())
            s.text = s.cur = None
    def handle_data(s, d):
        if s.text is not None: s.text += d
p = P(); p.feed(open(sys.argv[1]).read())
print(json.dumps({"sections": p.sections, "runs": p.runs, "tags": p.tags}))
PY
facts() { python3 "$T/facts.py" "$1"; }

# same DOM_FACTS ADVISE_JSON [PROOF 0|1]: the page's finding figures are
# advise --json's, the bars share one axis, the text carries the numbers.
cat >"$T/same.py" <<'PY'
import json, sys
fa = json.load(open(sys.argv[1])); ad = json.load(open(sys.argv[2])); proof = sys.argv[3] == "1"
def ms(v):
    return "%.1f s" % (v / 1000) if abs(v) >= 10000 else "%.3f s" % (v / 1000) if abs(v) >= 1000 else "%.2f ms" % v
i = fa["sections"].index("advise-section")
assert fa["sections"][i - 1] == "headline", fa["sections"]
assert len(fa["runs"]) == 1, fa["runs"]
run = fa["runs"][0]
assert run["profile"] == (ad["profile"] or ""), (run["profile"], ad["profile"])
assert run["n"] == len(ad["findings"]) == len(run["findings"]) == len(run["items"]), run
for g, f, li in zip(run["findings"], ad["findings"], run["items"]):
    assert g["kind"] == f["kind"], (g["kind"], f["kind"])
    before = f["priced_ms"] if f["priced_ms"] is not None else f["recorded_ms"]
    after = f["priced_after_ms"] if f["priced_ms"] is not None else f["recorded_after_ms"]
    for k, v in (("before-ms", before), ("after-ms", after), ("saving-ms", f["saving_ms"])):
        assert abs(float(g[k]) - v) <= 1e-6, (k, g[k], v)
    assert ("seq %d-%d; %d occurrence" % (f["first_seq"], f["last_seq"], f["count"])) in li, li
    assert ("%d commands, %d of them go" % (f["commands"], f["removed"])) in li, li
    assert ("saves %s" % ms(f["saving_ms"])) in li, li
    assert f["change"][:40] in li, (f["change"], li)
    assert g["proved"] == ("1" if proof and f.get("proof") else "0"), (g["proved"], f.get("proof"))
    want = ["now", "after"] + (["replayed"] if g["proved"] == "1" else [])
    assert [b["what"] for b in g["bars"]] == want, g["bars"]
    if g["proved"] == "1":
        p = f["proof"]
        assert abs(float(g["replayed-saving-ms"]) - p["replayed_saving_ms"]) <= 1e-6, (g, p)
        assert abs(float(g["proof-predicted-saving-ms"]) - p["predicted_saving_ms"]) <= 1e-6, (g, p)
        assert abs(g["bars"][2]["ms"] - (before - p["replayed_saving_ms"])) <= 1e-6, (g, p)
        assert ("saves %s replayed, %s predicted (%+.1f%%)" % (ms(p["replayed_saving_ms"]),
                ms(p["predicted_saving_ms"]), 100 * p["difference"])) in li, li
    # one axis: every bar's width is its figure's share of the same top
    for b in g["bars"]:
        assert b["ms"] <= run["axis"] * 1.000001, (b, run["axis"])
        assert abs(b["width"] - 520 * max(b["ms"], 0) / run["axis"]) < 0.02, (b, run["axis"])
PY
same() { python3 "$T/same.py" "$@"; }

# rjson REPORT_JSON ADVISE_JSON: report --json's "advise" carries advise --json's numbers.
cat >"$T/rjson.py" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["advise"]; ad = json.load(open(sys.argv[2]))
assert len(r) == 1 and r[0]["profile"] == ad["profile"], r
assert abs(r[0]["recorded_ms"] - ad["recorded_ms"]) <= 1e-6 and r[0]["commands"] == ad["commands"], r
assert len(r[0]["findings"]) == len(ad["findings"]), r
for x, f in zip(r[0]["findings"], ad["findings"]):
    for k in ("kind", "count", "groups", "commands", "removed", "first_seq", "last_seq", "who", "change"):
        assert x[k] == f[k], (k, x[k], f[k])
    for k in ("recorded_ms", "recorded_after_ms", "priced_ms", "priced_after_ms", "saving_ms"):
        assert (x[k] is None and f[k] is None) or abs(x[k] - f[k]) <= 1e-6, (k, x[k], f[k])
    p, q = x["proof"], f.get("proof")
    assert (p is None) == (q is None), (p, q)
    if p:
        for k in ("before_policy", "after_policy", "before_trace", "after_trace"):
            assert p[k] == q[k], (k, p[k], q[k])
        for k in ("replayed_before_ms", "replayed_after_ms", "replayed_saving_ms", "predicted_saving_ms", "difference"):
            assert abs(p[k] - q[k]) <= 1e-6, (k, p[k], q[k])
PY
rjson() { python3 "$T/rjson.py" "$@"; }

# ---- a finding: one template created three times ----
db=$T/prim.db
"$TPMTRACE" record --spawn-swtpm --rm --db "$db" --payloads redacted --quiet -- sh -c \
	'for i in 1 2 3; do tpm2_createprimary -C o -G ecc256 -c p$i.ctx >/dev/null || exit 1; done' \
	2>"$T/prim.err"
expect_eq "recorded three tpm2_createprimary" "$?" 0
expect_eq "a new file is at schema version 5" "$(sqlite3 "$db" "PRAGMA user_version")" 5
"$TPMTRACE" advise "$db" --trace 1 --profile "$EPROF" --json >"$T/a.json"
expect_eq "advise --json exit status" "$?" 0
expect_eq "advise finds the two re-creations" "$(python3 -c 'import json,sys
print(" ".join("%s:%d" % (f["kind"], f["count"]) for f in json.load(open(sys.argv[1]))["findings"]
      if f["kind"] == "repeated-primary"))' "$T/a.json")" "repeated-primary:2"
check "report --profile exits 0" "$TPMTRACE" report "$db" --trace 1 --profile "$EPROF" -o "$T/p.html"
dom "$T/p.html" "$T/p.dom"
facts "$T/p.dom" >"$T/p.facts"
check "the section after the headline, advise --json's figures on one axis" same "$T/p.facts" "$T/a.json" 0
check "report --json carries advise --json's numbers" bash -c \
	"'$TPMTRACE' report '$db' --trace 1 --profile '$EPROF' --json >'$T/p.json' && python3 '$T/rjson.py' '$T/p.json' '$T/a.json'"
# without --profile: on the record, as advise without one
"$TPMTRACE" advise "$db" --trace 1 --json >"$T/a0.json"
check "report without --profile" "$TPMTRACE" report "$db" --trace 1 -o "$T/p0.html"
dom "$T/p0.html" "$T/p0.dom"
facts "$T/p0.dom" >"$T/p0.facts"
check "without --profile: the recorded figures of advise --json" same "$T/p0.facts" "$T/a0.json" 0

# ---- the proof: stored by advise --prove, shown by report ----
"$TPMTRACE" advise "$db" --trace 1 --profile "$EPROF" --prove --json >"$T/pr.json" 2>"$T/pr.err"
expect_eq "advise --prove exit status" "$?" 0
# (each tpm2_createprimary starts an HMAC session of its own: that
# session-per-command is proved and stored too, a row of its own)
expect_eq "the proof is stored: one row for repeated-primary, advise --prove's figures" \
	"$(sqlite3 "$db" "SELECT kind, profile, before_trace, after_trace, printf('%.6f', replayed_saving_ms),
	printf('%.6f', predicted_saving_ms) FROM advise_proof WHERE trace_id = 1 AND kind = 'repeated-primary'")" \
	"$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); f = [x for x in d["findings"] if x["kind"] == "repeated-primary"][0]; p = f["proof"]
print("%s|%s|%d|%d|%.6f|%.6f" % (f["kind"], d["profile"], p["before_trace"], p["after_trace"],
      p["replayed_saving_ms"], p["predicted_saving_ms"]))' "$T/pr.json")"
check "report after --prove" "$TPMTRACE" report "$db" --trace 1 --profile "$EPROF" -o "$T/pp.html"
dom "$T/pp.html" "$T/pp.dom"
facts "$T/pp.dom" >"$T/pp.facts"
check "the replayed saving beside the predicted one, as advise --prove gave it" \
	same "$T/pp.facts" "$T/pr.json" 1
check "report --json carries the proof" bash -c \
	"'$TPMTRACE' report '$db' --trace 1 --profile '$EPROF' --json >'$T/pp.json' && python3 '$T/rjson.py' '$T/pp.json' '$T/pr.json'"

# ---- escaped: a profile named with markup, a stored proof's policy a script ----
sed 's/^name: .*/name: evil<i>x<\/i>\&"q/' "$EPROF" >"$T/evil.profile"
"$TPMTRACE" advise "$db" --trace 1 --profile "$T/evil.profile" --json >"$T/ae.json"
sqlite3 "$db" "INSERT INTO advise_proof (trace_id, kind, profile, predicted_saving_ms, replayed_saving_ms,
	replayed_before_ms, replayed_after_ms, before_trace, after_trace, before_policy, after_policy, created_at)
	SELECT 1, 'repeated-primary', 'evil<i>x</i>&\"q', 1, 1, 2, 1, 2, 3, '<script>document.title=1</script>',
	'<img src=x>', '<u>now</u>'"
check "report with the markup" "$TPMTRACE" report "$db" --trace 1 --profile "$T/evil.profile" -o "$T/e.html"
dom "$T/e.html" "$T/e.dom"
facts "$T/e.dom" >"$T/e.facts"
expect_eq "no element made of the database's or the profile's text" "$(python3 -c 'import json,sys
t = json.load(open(sys.argv[1]))["tags"]; print(sorted(k for k in t if k in ("i", "u", "script", "img")))' "$T/e.facts")" "[]"
check "the profile's name shown as text" grep -q 'Priced on evil&lt;i&gt;x&lt;/i&gt;&amp;"q' "$T/e.dom"
check "the policy shown as text" grep -q '&lt;script&gt;document.title=1&lt;/script&gt;' "$T/e.dom"

# ---- nothing to find ----
cdb=$T/clean.db
"$TPMTRACE" record --spawn-swtpm --db "$cdb" --quiet -- tpm2_pcrread sha256:0 >/dev/null 2>"$T/clean.err"
expect_eq "recorded one tpm2_pcrread" "$?" 0
expect_eq "advise: no finding" "$("$TPMTRACE" advise "$cdb" --json | python3 -c 'import json,sys
print(len(json.load(sys.stdin)["findings"]))')" 0
check "report of the clean trace" "$TPMTRACE" report "$cdb" --profile "$EPROF" -o "$T/c.html"
dom "$T/c.html" "$T/c.dom"
expect_eq "nothing to change, said in one line, no finding" "$(python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["runs"]
print(len(r), r[0]["n"], len(r[0]["findings"]), r[0]["nothing"])' <(facts "$T/c.dom"))" \
	"1 0 0 Nothing to change: none of the patterns of docs/advise.md is in this trace."

# ---- a file of schema version 2 ----
cp "$db" "$T/v2.db"
sqlite3 "$T/v2.db" "DROP TABLE advise_proof; ALTER TABLE profile_entry DROP COLUMN p90_ns;
	ALTER TABLE profile_entry DROP COLUMN p99_ns; ALTER TABLE profile_entry DROP COLUMN derived_from;
	UPDATE meta SET value = '2' WHERE key = 'schema_version';
	PRAGMA user_version = 2"
check "report reads a version 2 file" "$TPMTRACE" report "$T/v2.db" --trace 1 --profile "$EPROF" -o "$T/v2.html"
expect_eq "... shows the finding, no proof" "$(grep -o 'data-proved="[01]"' "$T/v2.html" | sort -u)" 'data-proved="0"'
expect_eq "... and leaves it at version 2" "$(sqlite3 "$T/v2.db" "PRAGMA user_version")" 2
"$TPMTRACE" advise "$T/v2.db" --trace 1 --rewrite repeated-primary >/dev/null 2>"$T/v2.err"
expect_eq "opened for writing (advise --rewrite)" "$?" 0
expect_eq "migrated to version 5 (through 3 and 4), the table made, the traces kept" \
	"$(sqlite3 "$T/v2.db" "PRAGMA user_version; SELECT value FROM meta WHERE key = 'schema_version';
	SELECT count(*) FROM advise_proof; SELECT count(*) > 2 FROM trace;
	SELECT count(*) FROM pragma_table_info('profile_entry') WHERE name IN ('p90_ns', 'p99_ns', 'derived_from');
	SELECT count(*) FROM pragma_table_info('trace') WHERE name = 'fidelity'")" "5
5
0
1
3
1"
check "tpmtrace verify accepts the migrated file" "$TPMTRACE" verify "$T/v2.db"
finish
