#!/usr/bin/env bash
# The figures of imported traces (docs/schema.md, "Figures"), the companion of
# test_figures_one_definition_everywhere (which covers recordings and replays):
#  - an import's summary line adds up the per-file lines, and both agree with
#    list and the trace_summary view (IMA lists, TCG logs);
#  - predict wraps the kernel's commands only: a firmware log's commands pass
#    through every policy as they are, an IMA list's extends are the
#    kernel's; a trace without timing is priced with no gaps and no totals,
#    and says so in one line;
#  - stats and report of a trace without timing say so, give the counts it
#    has and print no time as 0 (tpm_ns, span_ns null);
#  - an imported file (a 2022 pcap, a foreign firmware log, an IMA list) is
#    not stamped with this host's identity: none of them carries one, so
#    host and trace_host are unknown (NULL).
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
	expect_eq "predict $x: the TPM range without spread is one figure, not X..X" \
		"$(awk '/^TPM range/ {t = 1; next} t && /^linux-6\.10/ {print ($0 ~ /\.\./) ? "range" : "one figure"; exit}' "$T/$x.pred")" \
		"one figure"
	expect_eq "predict $x --json: no timing, no gaps, no totals" \
		"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); p=j["policies"][0]; print(j["timing"], j["non_tpm_ms"], p["total_ms"], p["factor_vs_password_total"])' "$T/$x.pred.json")" \
		"False None None None"
done

# 6. stats and report of untimed traces: "no timing", the counts, never 0.
for x in fw imal; do
	"$TPMTRACE" stats "$T/$x.db" >"$T/$x.stats" 2>&1
	expect_eq "stats $x" "$?" 0
	"$TPMTRACE" stats "$T/$x.db" --json >"$T/$x.stats.json" 2>&1
	expect_eq "stats $x --json" "$?" 0
	expect_eq "stats $x: one line says the trace has no timing" \
		"$(grep -c '^no timing in this trace' "$T/$x.stats")" 1
	expect_eq "stats $x: the counts per command add up to the trace's commands" \
		"$(awk '/^command +count$/ {t = 1; next} t && NF == 2 && $2 ~ /^[0-9]+$/ {n += $2} /^trace / {t = 0} END {print n + 0}' "$T/$x.stats")" \
		"$(sqlite3 "$T/$x.db" "SELECT commands FROM trace_summary WHERE trace_id=1")"
	check "stats $x: the summary says no timing, no time of 0" \
		bash -c "grep -q '; no timing\$' '$T/$x.stats' && ! grep -qE 'TPM time 0|span 0' '$T/$x.stats'"
	expect_eq "stats $x --json: counts, no timing, no times" \
		"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); t=j["trace"]; print(j["timing"], sum(c["count"] for c in j["commands"]) == t["commands"] > 0, t["timing"], t["tpm_ns"], t["span_ns"])' "$T/$x.stats.json")" \
		"False True False None None"
	expect_eq "trace_summary $x: no timed command, times NULL" \
		"$(sqlite3 "$T/$x.db" "SELECT timed_commands, quote(tpm_ns), quote(span_ns) FROM trace_summary WHERE trace_id=1")" \
		"0|NULL|NULL"
	"$TPMTRACE" report "$T/$x.db" --profile slb9670-linux-integrity -o "$T/$x.html" 2>"$T/$x.rep.err"
	expect_eq "report $x" "$?" 0
	"$TPMTRACE" report "$T/$x.db" --profile slb9670-linux-integrity --json -o "$T/$x.rep.json" 2>"$T/$x.rep.err"
	expect_eq "report $x --json" "$?" 0
	check "report $x: says it has no timing, and no time of 0 beside it" \
		python3 -c 'import re,sys; t=open(sys.argv[1]).read()
rec = re.search(r"<tr class=\"headline-row\" data-kind=\"recorded\".*?</tr>", t)
fam = re.search(r"<table id=\"family-table\">.*?</table>", t, re.S)
note = re.search(r"<p class=\"note\">TPM time is the sum.*?</p>", t, re.S)
pred = re.findall(r"<td class=\"l\">predicted</td><td>\d+</td><td>[^<]*</td><td>\d+</td><td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td><td>([^<]*)</td>", t)
sys.exit(not ("id=\"no-timing\"" in t and rec and rec[0].count("<td>no timing</td>") == 2 and fam and "0 ns" not in fam[0]
              and note and "0 ns" not in note[0] and pred and all(p == ("no timing", "no timing") for p in pred)))' "$T/$x.html"
	expect_eq "report $x --json: no recorded time, no gaps, no totals" \
		"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); r=[x for x in j["measured"] if x["kind"] == "recorded"]; print(j["timed"], j["recorded_tpm_ms"], j["non_tpm_ms"], j["recorded_total_ms"], j["recorded_span_ms"], r[0]["tpm_ms"] if r else "-", {p["total_ms"] for x in j["predicted"] for p in x["policies"]})' "$T/$x.rep.json")" \
		"False None None None None None {None}"
done

# 6. Foreign files keep no identity of this host.
export TPMTRACE_HOST_ID_HOSTNAME=this-host-marker TPMTRACE_HOST_ID_MACHINE_ID=this-machine \
	TPMTRACE_HOST_ID_KERNEL_RELEASE=this-kernel TPMTRACE_HOST_ID_KERNEL_CMDLINE=this-cmdline \
	TPMTRACE_HOST_ID_BOOT_ID=b00710d0-0000-4000-8000-000000000001
pcap=$(ls "$S"/pcap/*.pcap | head -1)
"$TPMTRACE" import pcap "$pcap" --db "$T/host.db" >/dev/null 2>"$T/host.err"
expect_eq "import pcap" "$?" 0
"$TPMTRACE" import tcglog "$fw" --db "$T/host.db" >/dev/null 2>>"$T/host.err"
expect_eq "import tcglog" "$?" 0
"$TPMTRACE" import ima "$S"/ima/tpm2-tss/sml-ima-sha1.bin --db "$T/host.db" >/dev/null 2>>"$T/host.err"
expect_eq "import ima" "$?" 0
expect_eq "imports: no host, no identity of this machine (host, trace_host all NULL)" \
	"$(sqlite3 "$T/host.db" "SELECT group_concat(t.id || ':' || quote(t.host) || quote(h.hostname) ||
		quote(h.machine_id_sha256) || quote(h.kernel_release) || quote(h.kernel_cmdline) || quote(h.boot_id), ' ')
		FROM trace t LEFT JOIN trace_host h ON h.trace_id = t.id")" \
	"1:NULLNULLNULLNULLNULLNULL 2:NULLNULLNULLNULLNULLNULL 3:NULLNULLNULLNULLNULLNULL"
finish
