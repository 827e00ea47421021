# Helpers of the advise tests (sourced after common.sh): advise's JSON, a
# finding's field, how many of a kind, the kinds found, the checks of a named
# rewrite, the text against the JSON, and the checks of a proof
# (docs/advise.md). PROF is the profile the findings are priced on,
# EPROF the one the proofs' replays emulate.
PROF=slb9670-linux-integrity
# The SLB9670 profile scaled down 16 times: swtpm's own time comes close to
# its emulated figures, and a loaded machine moved a saving of 29 ms by more
# than 5% on the full one.
EPROF=$TPMTRACE_SRC/tests/integration/slb9670-scaled-16.profile
advise_json() { "$TPMTRACE" advise "$@" --json; }
# field JSON KIND FIELD: a finding's field ("-" when there is no such finding)
field() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == sys.argv[2]]
print(f[0][sys.argv[3]] if f else "-")' "$@"
}
# finding_count KIND ADVISE-ARGS...: how many findings of KIND advise finds
finding_count() {
	local kind=$1
	shift
	advise_json "$@" 2>/dev/null | python3 -c 'import json,sys
print(sum(f["kind"] == sys.argv[1] for f in json.load(sys.stdin)["findings"]))' "$kind"
}
# rewrite_check DB FINDINGS-JSON KIND: `advise DB --trace 1 --rewrite KIND`
# exits 0, drops what the finding (in FINDINGS-JSON) removes, and leaves no
# KIND finding in the rewrite; the rewrite's trace id in REWRITE.
rewrite_check() {
	local db=$1 found=$2 kind=$3
	"$TPMTRACE" advise "$db" --trace 1 --rewrite "$kind" --json >"$T/rw-$kind.json" \
		2>"$T/rw-$kind.err"
	expect_eq "--rewrite $kind: exit status" "$?" 0
	REWRITE=$(json_get "$T/rw-$kind.json" trace)
	expect_eq "--rewrite $kind: what the finding removes is dropped" \
		"$(json_get "$T/rw-$kind.json" dropped)" "$(field "$found" "$kind" removed)"
	expect_eq "--rewrite $kind: no $kind finding in the rewrite" \
		"$(finding_count "$kind" "$db" --trace "$REWRITE")" 0
}
kinds() { python3 -c 'import json,sys; print(" ".join(x["kind"] for x in json.load(open(sys.argv[1]))["findings"]))' "$1"; }
# text_matches_json DB ARGS...: every number of each finding's text is in the JSON.
text_matches_json() {
	"$TPMTRACE" advise "$@" >"$T/tm.txt" && "$TPMTRACE" advise "$@" --json >"$T/tm.json" &&
		python3 - "$T/tm.txt" "$T/tm.json" <<-'PY'
	import json, re, sys
	txt = open(sys.argv[1]).read()
	d = json.load(open(sys.argv[2]))
	def ms(s):
	    v, u = s.split()
	    return float(v) * (1000 if u == "s" else 1)
	blocks = re.split(r"\n\n(?=\d+\. )", txt)[1:]
	assert len(blocks) == len(d["findings"]), (len(blocks), len(d["findings"]))
	for b, f in zip(blocks, d["findings"]):
	    assert b.split()[1] == f["kind"], (b.split()[1], f["kind"])
	    w = " ".join(b.split())
	    m = re.search(r"seq (\d+)-(\d+); (\d+) occurrences?, (\d+) commands", w)
	    assert m and [int(x) for x in m.groups()] == [f["first_seq"], f["last_seq"], f["count"], f["commands"]], w
	    m = re.search(r"(\d+) of the (\d+) commands go", w)
	    assert m and [int(m[1]), int(m[2])] == [f["removed"], f["commands"]], w
	    for k, v in f["origins"].items():
	        assert f"{k} {v}" in w, (k, v, w)
	    for c in f["clients"]:
	        assert c["pid"] is None or f"(pid {c['pid']})" in w, c
	    m = re.search(r"now: ([\d.]+ m?s) recorded", w)
	    assert m and abs(ms(m[1]) - f["recorded_ms"]) <= 0.006 + 1e-3 * f["recorded_ms"], (m and m[1], f["recorded_ms"])
	    m = re.search(r"saves ([\d.]+ m?s)", w)
	    assert m and abs(ms(m[1]) - f["saving_ms"]) <= 0.006 + 1e-3 * f["saving_ms"], (m and m[1], f["saving_ms"])
	    if f["priced_ms"] is not None and f["kind"] != "outliers":
	        m = re.search(r"recorded \(measured\); ([\d.]+ m?s) predicted on", w)
	        assert m and abs(ms(m[1]) - f["priced_ms"]) <= 0.006 + 1e-3 * f["priced_ms"], w
	        m = re.search(r"go; ([\d.]+ m?s) predicted on", w)
	        assert m and abs(ms(m[1]) - f["priced_after_ms"]) <= 0.006 + 1e-3 * f["priced_after_ms"], w
	PY
}

# c ARGS...: a tpmclient command line on the recorder's TCTI, for bash -c.
c() { echo "'$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --quiet $* >/dev/null"; }

# The replayed saving is a difference of two emulated runs: on a loaded
# machine one run's sleeps can overrun. A proof outside 5% is run once more
# (said on the output); the second must be within.
prove_again() { # JSON ADVISE-ARGS...: --prove once more into JSON
	local out=$1
	shift
	echo "note: the first --prove of this finding was outside 5%; proving once more" >&2
	"$TPMTRACE" advise "$@" --prove --json >"$out" 2>>"$T/prove-again.err"
}
# proof_check JSON KIND: the finding's proof is there, its predicted saving
# the finding's, and the replayed one within 5% of it.
proof_check() {
	python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == sys.argv[2]][0]
p = f["proof"]
assert p and p["predicted_saving_ms"] == f["saving_ms"] > 0, (f, p)
assert abs(p["replayed_saving_ms"] - (p["replayed_before_ms"] - p["replayed_after_ms"])) < 1e-6, p
assert abs(p["difference"]) < 0.05, p' "$1" "$2"
}
# proof_check_twice JSON KIND ADVISE-ARGS...: proved once more when outside 5%
proof_check_twice() {
	local out=$1 kind=$2
	shift 2
	proof_check "$out" "$kind" && return 0
	prove_again "$out" "$@" && proof_check "$out" "$kind"
}
