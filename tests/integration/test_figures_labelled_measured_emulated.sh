#!/usr/bin/env bash
# Every time figure says what it is (issue 31, item 3): measured, emulated
# (latency from profile NAME) or predicted, in diff and advise (replay and
# report: test_replay_all_repeat, test_report_measured_emulated_noise).
#  - diff of the recording and a real replay: both sides measured, one run
#    each, the ratios marked as between single runs; against an emulated
#    replay that side names its profile and the note says it is not measured;
#  - advise --profile: the recorded figures measured, the priced ones
#    predicted; --prove: each proof emulated on the profile, one run each;
#  - report after advise --prove (the demo's case): the proof's replays are
#    emulated rows, none in the measured rows or chart, and the proof says
#    what advise said: its change runs, its time is the profile's;
#  - --prove --target --measure: the runs timed on the target, no profile
#    emulated, said "measured on TCTI" in advise's text and JSON and report.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_startup sqlite3 python3

db=$T/labels.db
record_demo "$db"
expect_eq "demo workload recorded" "$?" 0
# A replay on a real target (spawned swtpm), one emulating a shipped profile.
PROF=slb9670-linux-integrity
"$TPMTRACE" replay "$db" --trace 1 --policy password >/dev/null 2>"$T/rep.err"
expect_eq "a password replay (trace 2)" "$?" 0
"$TPMTRACE" replay "$db" --trace 1 --policy password --emulate "$PROF" --emulate-seed 3 >/dev/null 2>"$T/emu.err"
expect_eq "an emulated password replay (trace 3)" "$?" 0

# ---- diff ----
"$TPMTRACE" diff "$db" 1 2 >"$T/d12.txt" 2>"$T/d12.err"
expect_eq "diff 1 2: exit status" "$?" 0
expect_eq "diff 1 2: both sides measured, one run" \
	"$(grep -c '^   figures: measured, one run (n=1)$' "$T/d12.txt")" 2
check "diff 1 2: the ratios are between single runs" grep -q '^ratios between single runs (n=1 each' "$T/d12.txt"
check "diff 1 2: no side emulated" bash -c "! grep -q 'emulated' '$T/d12.txt'"
"$TPMTRACE" diff "$db" 2 3 >"$T/d23.txt" 2>"$T/d23.err"
expect_eq "diff 2 3: exit status" "$?" 0
check "diff 2 3: B emulated, its profile named" \
	grep -q "^   figures: emulated (latency from profile $PROF), one run (n=1)$" "$T/d23.txt"
check "diff 2 3: the note says one side is not measured" grep -q 'one side is emulated' "$T/d23.txt"
"$TPMTRACE" diff "$db" 2 3 --json >"$T/d23.json" 2>/dev/null
expect_eq "diff --json: figures, profile, runs, ratios" \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["a"]["figures"], j["a"]["emulated"], j["a"]["runs"], j["b"]["figures"], j["b"]["emulated"], j["b"]["runs"], j["ratios"])' "$T/d23.json")" \
	"measured None 1 emulated $PROF 1 single runs"

# ---- advise ----
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" >"$T/a.txt" 2>"$T/a.err"
expect_eq "advise: exit status" "$?" 0
# The headline wraps at 100 columns: read it joined.
check "advise: the record's figures measured, the profile's predicted" \
	grep -qE "^$db trace 1: [0-9]+ commands, [0-9.]+ m?s recorded \(measured\), [0-9.]+ m?s predicted on $PROF" \
	<(sed -n '1,3p' "$T/a.txt" | sed -E 's/^ +//' | tr '\n' ' ')
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --json >"$T/a.json" 2>/dev/null
expect_eq "advise --json: what the figures are" \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["recorded_figures"], j["priced_figures"])' "$T/a.json")" \
	"measured predicted"
# advise on the emulated replay (trace 3): its own figures are the profile's
"$TPMTRACE" advise "$db" --trace 3 >"$T/a3.txt" 2>/dev/null
check "advise on an emulated replay: its figures emulated, with the profile" \
	grep -qE "^$db trace 3: [0-9]+ commands, [0-9.]+ m?s recorded \(emulated: latency from profile $PROF\)" \
	<(sed -n '1,3p' "$T/a3.txt" | sed -E 's/^ +//' | tr '\n' ' ')
"$TPMTRACE" advise "$db" --trace 3 --json >"$T/a3.json" 2>/dev/null
expect_eq "advise --json on an emulated replay: recorded_figures emulated" \
	"$(json_get "$T/a3.json" recorded_figures)" \
	emulated
n_find=$(python3 -c 'import json,sys; print(len([f for f in json.load(open(sys.argv[1]))["findings"] if f["kind"] != "outliers"]))' "$T/a.json")
check "advise: a finding to prove ($n_find)" [ "$n_find" -ge 1 ]
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --prove --json >"$T/p.json" 2>"$T/p.err"
prc=$?
check "advise --prove: exit status 0 or 1 (an unprovable finding) ($prc)" [ "$prc" -le 1 ]
expect_eq "advise --prove --json: every proof emulated, one run each" \
	"$(python3 -c 'import json,sys; print(sorted({(f["proof"]["figures"], f["proof"]["runs"]) for f in json.load(open(sys.argv[1]))["findings"] if f.get("proof")}))' "$T/p.json")" \
	"[('emulated', 1)]"
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --prove >"$T/p.txt" 2>/dev/null
# The proof wraps at 100 columns: read it joined.
check "advise --prove: the proof says the change runs, its time is the profile's, one run each" \
	grep -qE "proof: replayed on swtpm \(spawned\): (rewrite|policy change) valid, time from the profile \(emulated, latency from profile $PROF\); one run each \(n=1: no spread known\):.* saves [0-9.]+ m?s replayed, " \
	<(unwrap "$T/p.txt" | tr -s " ")
expect_eq "advise --prove --json: the same words, the target a spawned swtpm" \
	"$(python3 -c 'import json,sys; print(sorted({(f["proof"]["basis"].split(":")[0], "time from the profile" in f["proof"]["basis"], f["proof"]["target"]) for f in json.load(open(sys.argv[1]))["findings"] if f.get("proof")}))' "$T/p.json")" \
	"[('replayed on swtpm (spawned)', True, 'swtpm (spawned)')]"
n_emu=$(sqlite3 "$db" "SELECT count(*) FROM trace WHERE kind = 'replay' AND parent_id = 1 AND emulated = '$PROF'")
check "the proofs' replays of trace 1 are stored, emulated ($n_emu)" [ "$n_emu" -ge 2 ]

# ---- report after --prove ----
"$TPMTRACE" report "$db" --trace 1 --json >"$T/r.json" 2>"$T/r.err"
expect_eq "report --json: exit status" "$?" 0
expect_eq "report: measured rows are the recording and the real replay only" \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print([(r["policy"], r["figures"], r["runs"]) for r in j["measured"]])' "$T/r.json")" \
	"[('as recorded', 'measured', 1), ('password', 'measured', 1)]"
expect_eq "report: the emulated rows hold every emulated run of trace 1" \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(sum(r["runs"] for r in j["emulated"]), {r["figures"] for r in j["emulated"]})' "$T/r.json")" \
	"$n_emu {'emulated'}"
# report says what advise --prove said
"$TPMTRACE" report "$db" --trace 1 --profile "$PROF" --json >"$T/rp.json" 2>"$T/rp.err"
expect_eq "report --profile --json: the stored proofs emulated, the same words as advise's" \
	"$(python3 -c 'import json,sys; print(sorted({(f["proof"]["figures"], f["proof"]["basis"].split(":")[0], "time from the profile" in f["proof"]["basis"]) for r in json.load(open(sys.argv[1]))["advise"] for f in r["findings"] if f.get("proof")}))' "$T/rp.json")" \
	"[('emulated', 'replayed on swtpm (spawned)', True)]"

# ---- --prove --target --measure: timed on the target, said measured ----
start_swtpm "$T/tgt"
tcti=swtpm:path=$T/tgt/s.sock
tpm2_startup -T "$tcti" -c
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --prove --measure >/dev/null 2>"$T/m0.err"
expect_eq "--measure without --target: a usage error" "$?" 2
check "--measure without --target: why said" grep -q -- '--measure needs --target' "$T/m0.err"
n_before=$(sqlite3 "$db" "SELECT count(*) FROM trace")
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --prove --target "$tcti" --measure --json \
	>"$T/m.json" 2>"$T/m.err"
mrc=$?
check "--prove --measure: exit status 0 or 1 (an unprovable finding) ($mrc)" [ "$mrc" -le 1 ]
expect_eq "--prove --measure --json: every proof measured on the target, not from the profile" \
	"$(python3 -c 'import json,sys; print(sorted({(f["proof"]["figures"], f["proof"]["basis"], f["proof"]["target"], "profile" in f["proof"]["basis"]) for f in json.load(open(sys.argv[1]))["findings"] if f.get("proof")}))' "$T/m.json")" \
	"[('measured', 'measured on $tcti', '$tcti', False)]"
expect_eq "--prove --measure: its runs stored unemulated, on the target" \
	"$(sqlite3 "$db" "SELECT DISTINCT coalesce(emulated, 'measured'), source FROM trace WHERE id > $n_before AND kind = 'replay'")" \
	"measured|$tcti"
"$TPMTRACE" report "$db" --trace 1 --profile "$PROF" --json >"$T/rm.json" 2>"$T/rm.err"
expect_eq "report after --measure: the newest proof measured, the same words" \
	"$(python3 -c 'import json,sys; print(sorted({(f["proof"]["figures"], f["proof"]["basis"]) for r in json.load(open(sys.argv[1]))["advise"] for f in r["findings"] if f.get("proof")}))' "$T/rm.json")" \
	"[('measured', 'measured on $tcti')]"
"$TPMTRACE" report "$db" --trace 1 --profile "$PROF" -o "$T/rm.html" 2>/dev/null
check "report's page: the proof measured on the target, its saving measured" \
	grep -qE "measured on $tcti; one run each\): saves <b>-?[0-9.]+ (µs|ms|s) measured</b>" "$T/rm.html"
finish
