#!/usr/bin/env bash
# The figures of imported traces (docs/schema.md, "Figures"), the companion of
# test_figures_one_definition_everywhere (which covers recordings and replays):
#  - an import's summary line adds up the per-file lines, and both agree with
#    list and the trace_summary view (IMA lists, TCG logs);
#  - predict wraps the kernel's commands only: a firmware log's commands pass
#    through every policy as they are, an IMA list's extends are the
#    kernel's; a trace without timing is priced with no gaps and no totals,
#    and says so in one line;
. "$(dirname "$0")/../lib/common.sh"
[ -d "$TPMTRACE_SHARED_DATA" ] || skip "the shared test data is not at $TPMTRACE_SHARED_DATA"
need sqlite3 python3
S=$TPMTRACE_SHARED_DATA

# 1. Summaries that add up: per-file lines "FILE: trace N: C commands, E
#    events", the last line "K files (F failed): C commands, M malformed, E
#    events", and the database.
adds_up() { # adds_up KIND DB OUT: prints "agree" or what differs
	python3 - "$2" "$3" <<'PY'
import re, sqlite3, sys
db, out = sys.argv[1], open(sys.argv[2]).read()
per = re.findall(r"^\S.*: trace (\d+): (\d+) commands, (\d+) events$", out, re.M)
tot = re.search(r"^\d+ files \(\d+ failed\): (\d+) commands, \d+ malformed, (\d+) events", out, re.M)
rows = {str(i): (str(c), str(e)) for i, c, e in sqlite3.connect(db).execute(
    "SELECT trace_id, commands, events FROM trace_summary")}
bad = []
if not per: bad.append("no per-file line")
if not tot: bad.append("no summary line")
for i, c, e in per:
    if rows.get(i) != (c, e): bad.append(f"trace {i}: line {c} commands {e} events, view {rows.get(i)}")
if set(i for i, _, _ in per) != set(rows): bad.append(f"lines for {sorted(i for i, _, _ in per)}, traces {sorted(rows)}")
if tot and (int(tot[1]), int(tot[2])) != (sum(int(c) for _, c, _ in per), sum(int(e) for _, _, e in per)):
    bad.append(f"summary {tot.groups()} is not the sum of the per-file lines")
list_n = sum(int(c) for c, _ in rows.values())
if tot and int(tot[1]) != list_n: bad.append(f"summary {tot[1]} commands, the traces hold {list_n}")
print("; ".join(bad) or "agree")
PY
}
"$TPMTRACE" import ima "$S"/ima/tpm2-tss/*.bin --db "$T/ima.db" >"$T/ima.out" 2>"$T/ima.err"
expect_eq "import ima of tpm2-tss's lists: one is not a list (exit 1)" "$?" 1
expect_eq "import ima: the summary adds up the files and matches the traces" "$(adds_up ima "$T/ima.db" "$T/ima.out")" agree
check "list shows the traces' commands" grep -q " 12 " <("$TPMTRACE" list "$T/ima.db")
"$TPMTRACE" import tcglog "$S"/tcg/tpm2-tools/*.bin "$S"/ima/ima-evm-utils/*binary_bios_measurements* \
	--db "$T/tcg.db" >"$T/tcg.out" 2>"$T/tcg.err"
expect_eq "import tcglog of 7 logs" "$?" 0
expect_eq "import tcglog: the summary adds up the files and matches the traces" "$(adds_up tcglog "$T/tcg.db" "$T/tcg.out")" agree
"$TPMTRACE" import tcglog "$S"/tcg/tpm2-tools/event.bin "$S"/tcg/tpm2-tools/event-postcode.bin \
	--db "$T/tcg2.db" --json >"$T/tcg2.json" 2>"$T/tcg2.err"
expect_eq "import tcglog --json" "$?" 0
expect_eq "import --json: the totals are the files' sums and the traces'" "$(python3 - "$T/tcg2.json" "$T/tcg2.db" <<'PY'
import json, sqlite3, sys
j = json.load(open(sys.argv[1]))
c = sum(x["commands"] for x in j["imports"]); e = sum(x["events"] for x in j["imports"])
db = sqlite3.connect(sys.argv[2]).execute("SELECT sum(commands), sum(events) FROM trace").fetchone()
print("agree" if (j["commands"], j["events"]) == (c, e) == tuple(db) and c > 0 else f"{j['commands']} {j['events']} / {c} {e} / {db}")
PY
)" agree

# 2. Firmware logs are not priced as the kernel's; untimed traces have no
#    gaps and no totals.
fw=$S/ima/ima-evm-utils/sample-binary_bios_measurements-pcrs-8-9
"$TPMTRACE" import tcglog "$fw" --db "$T/fw.db" >/dev/null 2>"$T/fw.err"
expect_eq "import tcglog of the ima-evm-utils firmware log" "$?" 0
"$TPMTRACE" import ima "$S"/ima/tpm2-tss/sml-ima-sha1.bin --db "$T/imal.db" >/dev/null 2>"$T/imal.err"
expect_eq "import ima of an IMA list" "$?" 0
for x in fw imal; do
	"$TPMTRACE" predict "$T/$x.db" --policy linux-6.10 --profile slb9670-linux-integrity \
		--host-crypto estimate >"$T/$x.pred" 2>"$T/$x.pred.err"
	expect_eq "predict $x (text)" "$?" 0
	"$TPMTRACE" predict "$T/$x.db" --policy linux-6.10 --profile slb9670-linux-integrity \
		--host-crypto estimate --json >"$T/$x.pred.json" 2>"$T/$x.pred.err"
	expect_eq "predict $x --json" "$?" 0
done
expect_eq "predict: linux-6.10 sends the firmware log's commands as they are (no session, no flush)" \
	"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); p=j["policies"][0]; print(p["commands"] == j["input_commands"] > 0, p["by_role"].get("session-setup"))' "$T/fw.pred.json")" \
	"True 0"
check "predict: linux-6.10 wraps an IMA list's extends (the kernel's) in its sessions" \
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); p=j["policies"][0]; sys.exit(not p["by_role"]["session-setup"] > 0)' "$T/imal.pred.json"
for x in fw imal; do
	expect_eq "predict $x: says in one line that the trace has no timing" \
		"$(grep -c '^no timing in this trace: TPM time priced from the profile, no gaps, no boot total$' "$T/$x.pred")" 1
	check "predict $x: no line of gaps" bash -c "! grep -q 'non-TPM time' '$T/$x.pred'"
	check "predict $x: no total, no x password on totals (text)" \
		python3 -c 'import re,sys; t=open(sys.argv[1]).read(); sys.exit(not re.search(r"^linux-6\.10 +\d+ +\d+ .* ms +- +[\d.]+ +-$", t, re.M))' "$T/$x.pred"
	expect_eq "predict $x --json: no timing, no gaps, no totals" \
		"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); p=j["policies"][0]; print(j["timing"], j["non_tpm_ms"], p["total_ms"], p["factor_vs_password_total"])' "$T/$x.pred.json")" \
		"False None None None"
done
finish
