#!/usr/bin/env bash
# advise: a trace with nothing to find says so (exit status 0, no finding in
# --json); the demo workload's session-per-command (every tpm2-tools process
# starts its own HMAC session) is its only finding, proved within 5%; the
# findings are sorted by saving. Bad input: no such trace, a missing profile,
# each exit status 1 with a message naming it.
. "$(dirname "$0")/../lib/common.sh"
. "$TPMTRACE_TEST_LIB/advise.sh"
need swtpm sqlite3 python3 tpm2_createprimary tpm2_unseal tpm2_pcrread tpm2_getcap
cd "$T" # the tools write their context files here

# ---- nothing to find: fewer than five commands of each kind, no session ----
db=$T/clean.db
"$TPMTRACE" record --spawn-swtpm --db "$db" --payloads redacted --quiet -- bash -c \
	"$(c --cmd pcrextend --count 4) && $(c --cmd getrandom --count 2)" 2>"$T/clean.err"
expect_eq "recorded a clean trace" "$?" 0
"$TPMTRACE" advise "$db" >"$T/clean.out"
expect_eq "clean: exit status 0" "$?" 0
check "clean: says there is nothing to change" grep -q '^nothing to change' "$T/clean.out"
expect_eq "clean: no finding in --json" "$(advise_json "$db" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["findings"]))')" 0

# ---- the demo workload ----
db=$T/demo.db
"$TPMTRACE" record --spawn-swtpm --db "$db" --payloads redacted --quiet -- \
	"$TPMTRACE_SRC/tools/demo-workload" 20 2>"$T/demo.err"
expect_eq "recorded the demo workload" "$?" 0
advise_json "$db" --profile "$PROF" >"$T/demo.json"
for k in repeated-primary policy-rebuilt user-interleave hwrng-session; do
	expect_eq "demo: no $k" "$(field "$T/demo.json" "$k" count)" "-"
done
check "the text carries the JSON's numbers (demo)" text_matches_json "$db" --profile "$PROF"
# --prove: the demo's session-per-command (each tpm2-tools process its own
# HMAC session) through its rewrite, its only finding: swtpm's TPM_RC_RETRY
# to the first Create (its record of dictionary-attack use, once per start-up)
# is no outlier (test_advise_outliers.sh).
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --prove --json >"$T/demo-prove.json" 2>"$T/demo-prove.err"
expect_eq "demo --prove: exit status" "$?" 0
expect_eq "demo: session-per-command of the tpm2-tools processes" \
	"$(field "$T/demo-prove.json" session-per-command who)" "application (TSS user)"
check "demo --prove: session-per-command replayed within 5% of predicted" \
	proof_check_twice "$T/demo-prove.json" session-per-command "$db" --trace 1 --profile "$PROF"
check "demo --prove: no other finding, every one proved" python3 -c 'import json,sys
fs = json.load(open(sys.argv[1]))["findings"]
assert [f["kind"] for f in fs] == ["session-per-command"] and all(f["proof"] for f in fs), fs' \
	"$T/demo-prove.json"
# (the text wraps at 100 columns: its words joined again)
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --prove 2>&1 | tr -s ' \n' '  ' >"$T/demo-prove.txt"
check "demo --prove: the text puts replayed and predicted side by side" \
	grep -qE 'saves [0-9.]+ m?s replayed, [0-9.]+ m?s predicted \([+-][0-9.]+%\)' "$T/demo-prove.txt"
check "findings are sorted by saving" python3 -c 'import json,sys
s = [f["saving_ms"] for f in json.load(open(sys.argv[1]))["findings"]]
assert s == sorted(s, reverse=True), s' "$T/demo.json"

# ---- bad input ----
"$TPMTRACE" advise "$db" --trace 99 >"$T/bad.out" 2>"$T/bad.err"
expect_eq "no such trace: exit status 1" "$?" 1
check "no such trace: a message" grep -q "trace 99" "$T/bad.err"
"$TPMTRACE" advise "$db" --profile "$T/none.profile" >"$T/bad.out" 2>"$T/bad.err"
expect_eq "a missing profile: exit status 1" "$?" 1
check "a missing profile: named" grep -q "none.profile" "$T/bad.err"
finish
