#!/usr/bin/env bash
# One figure, one definition (docs/schema.md, "Figures"): for the same trace,
# stats (text and --json), diff (text and --json), report --json, predict
# --json, replay --json and the trace_summary and command_stats views read
# from the stock sqlite3 shell give the same command count, TPM time and span.
# The trace is recorded with --spawn-swtpm (tpmtrace's own Startup) and --rm
# (the resource manager's flushes), so that tpmtrace's own commands (flag 32)
# are there to be left out; the figures including them are shown under their
# own name and must equal the sums over every row.
# Then its faithful as-recorded replay: the replay marks the copies of the
# source's own commands as its own, so diff shows no difference in the
# trace's commands (no FlushContext +12, no Startup +1), and the replay's own
# figures agree across replay --json, stats and the views as well. A writer
# brings an earlier tpmtrace's views to the current definitions.
# The messages of record, verify, replay and strip give the same command
# count (the clients'), tpmtrace's own under their own name.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_startup sqlite3 python3

db=$T/fig.db
"$TPMTRACE" record --spawn-swtpm --rm --db "$db" --name fig -- "$TPMTRACE_SRC/tools/demo-workload" 10 \
	>"$T/rec.out" 2>"$T/rec.err"
expect_eq "demo workload recorded (--spawn-swtpm --rm)" "$?" 0
read -r rec_fwd rec_kept rec_drop _ <<<"$(record_summary "$T/rec.err")"
expect_eq "tpmtrace's own Startup is in the trace" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=1 AND cc = (SELECT cc FROM tpm_cc WHERE name = 'Startup') AND flags & 32")" 1
check "tpmtrace's own resource-manager flushes are in the trace" \
	[ "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=1 AND cc = (SELECT cc FROM tpm_cc WHERE name = 'FlushContext') AND flags & 32")" -gt 0 ]

"$TPMTRACE" replay "$db" --trace 1 --policy as-recorded --json >"$T/replay.json" 2>"$T/replay.err"
expect_eq "as-recorded replay" "$?" 0

# Everything the commands print about traces 1 and 2.
for id in 1 2; do
	"$TPMTRACE" stats "$db" --trace $id >"$T/stats$id.txt" 2>&1
	expect_eq "stats, trace $id" "$?" 0
	"$TPMTRACE" stats "$db" --trace $id --json >"$T/stats$id.json" 2>&1
	expect_eq "stats --json, trace $id" "$?" 0
	sqlite3 -json "$db" "SELECT commands, tpm_ns, span_ns, tpmtrace_commands, tpm_ns_incl_tpmtrace,
		span_ns_incl_tpmtrace FROM trace_summary WHERE trace_id=$id" >"$T/view$id.json"
	expect_eq "trace_summary view, trace $id" "$?" 0
	sqlite3 -json "$db" "SELECT sum(count) AS n, sum(total_ns) AS tpm FROM command_stats WHERE trace_id=$id" \
		>"$T/cstats$id.json"
	expect_eq "command_stats view, trace $id" "$?" 0
	# The raw rows, every one of them and the clients' alone: the reference.
	sqlite3 -json "$db" "SELECT
		(SELECT count(*) FROM command WHERE trace_id=$id AND NOT flags & 32) AS n,
		(SELECT sum(latency_ns) FROM command WHERE trace_id=$id AND NOT flags & 32) AS tpm,
		(SELECT max(t_done_ns) - min(t_submit_ns) FROM command WHERE trace_id=$id AND NOT flags & 32) AS span,
		(SELECT count(*) FROM command WHERE trace_id=$id AND flags & 32) AS own,
		(SELECT sum(latency_ns) FROM command WHERE trace_id=$id) AS tpm_all,
		(SELECT max(t_done_ns) - min(t_submit_ns) FROM command WHERE trace_id=$id) AS span_all" \
		>"$T/raw$id.json"
done
"$TPMTRACE" verify "$db" >"$T/verify.txt" 2>&1
expect_eq "verify" "$?" 0
"$TPMTRACE" verify "$db" --json >"$T/verify.json" 2>&1
expect_eq "verify --json" "$?" 0
"$TPMTRACE" replay "$db" --trace 1 --policy as-recorded >"$T/replay.txt" 2>&1
expect_eq "as-recorded replay, text" "$?" 0
"$TPMTRACE" strip "$db" --trace 1 --json >"$T/strip.json" 2>"$T/strip.err"
expect_eq "strip --json" "$?" 0
"$TPMTRACE" strip "$db" --trace 1 >"$T/strip.txt" 2>&1
expect_eq "strip" "$?" 0
printf '%s %s %s\n' "${rec_fwd:-none}" "${rec_kept:-none}" "${rec_drop:-none}" >"$T/record.figs"
"$TPMTRACE" diff "$db" 1 2 >"$T/diff.txt" 2>&1
expect_eq "diff 1 2" "$?" 0
"$TPMTRACE" diff "$db" 1 2 --json >"$T/diff.json" 2>&1
expect_eq "diff 1 2 --json" "$?" 0
"$TPMTRACE" report "$db" --trace 1 --host-crypto estimate --json -o "$T/report.json" 2>"$T/report.err"
expect_eq "report --json" "$?" 0
"$TPMTRACE" predict "$db" --trace 1 --profile slb9670-linux-integrity --policy as-recorded \
	--host-crypto estimate --json >"$T/predict.json" 2>"$T/predict.err"
expect_eq "predict --json" "$?" 0

python3 - "$T" >"$T/cmp.out" 2>&1 <<'PY'
import json, re, sys
T = sys.argv[1]
def load(n):
    try:
        return json.load(open(f"{T}/{n}"))
    except Exception as e:
        return {"unreadable": str(e)}
bad = []
def same(what, got, want, tol=0.0):
    try:
        ok = abs(float(got) - float(want)) <= tol * max(1.0, abs(float(want)))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        bad.append(f"{what}: {got!r}, expected {want!r}")
def text_figs(path, pat):
    m = re.search(pat, open(path).read(), re.S)
    return m.groups() if m else (None, None, None)
ms = lambda ns: "%.3f" % (ns / 1e6)
first = lambda x: x[0] if isinstance(x, list) and x else {}
raw = {i: first(load(f"raw{i}.json")) for i in (1, 2)}
for i in (1, 2):
    r = raw[i]
    # stats, text: "N commands, ... TPM time X ms, span Y ms" and the figures incl. tpmtrace's own
    n, tpm, span = text_figs(f"{T}/stats{i}.txt", r"\): (\d+) commands,.*?TPM time ([\d.]+) ms, span ([\d.]+) ms")
    same(f"trace {i} stats text: commands", n, r["n"])
    if tpm != ms(r["tpm"]): bad.append(f"trace {i} stats text: TPM time {tpm}, expected {ms(r['tpm'])}")
    if span != ms(r["span"]): bad.append(f"trace {i} stats text: span {span}, expected {ms(r['span'])}")
    m = re.search(r"and (\d+) sent by tpmtrace; incl\. tpmtrace's own: TPM time ([\d.]+) ms, span ([\d.]+) ms",
                  open(f"{T}/stats{i}.txt").read())
    if not m or m.groups() != (str(r["own"]), ms(r["tpm_all"]), ms(r["span_all"])):
        bad.append(f"trace {i} stats text: incl. tpmtrace's own {m.groups() if m else None}")
    s = load(f"stats{i}.json").get("trace", {})
    same(f"trace {i} stats --json: commands", s.get("commands"), r["n"])
    same(f"trace {i} stats --json: tpm_ns", s.get("tpm_ns"), r["tpm"])
    same(f"trace {i} stats --json: span_ns", s.get("span_ns"), r["span"])
    same(f"trace {i} stats --json: tpmtrace_commands", s.get("tpmtrace_commands"), r["own"])
    same(f"trace {i} stats --json: tpm_ns_incl_tpmtrace", s.get("tpm_ns_incl_tpmtrace"), r["tpm_all"])
    v = first(load(f"view{i}.json"))
    same(f"trace {i} trace_summary: commands", v.get("commands"), r["n"])
    same(f"trace {i} trace_summary: tpm_ns", v.get("tpm_ns"), r["tpm"])
    same(f"trace {i} trace_summary: span_ns", v.get("span_ns"), r["span"])
    same(f"trace {i} trace_summary: tpmtrace_commands", v.get("tpmtrace_commands"), r["own"])
    same(f"trace {i} trace_summary: tpm_ns_incl_tpmtrace", v.get("tpm_ns_incl_tpmtrace"), r["tpm_all"])
    same(f"trace {i} trace_summary: span_ns_incl_tpmtrace", v.get("span_ns_incl_tpmtrace"), r["span_all"])
    c = first(load(f"cstats{i}.json"))
    same(f"trace {i} command_stats: count", c.get("n"), r["n"])
    same(f"trace {i} command_stats: total_ns", c.get("tpm"), r["tpm"])
# diff: both sides
d = load("diff.json")
for i, k in ((1, "a"), (2, "b")):
    x, r = d.get(k, {}), raw[i]
    same(f"diff --json {k}: commands", x.get("commands"), r["n"])
    same(f"diff --json {k}: tpm_ns", x.get("tpm_ns"), r["tpm"])
    same(f"diff --json {k}: span_ns", x.get("span_ns"), r["span"])
txt = open(f"{T}/diff.txt").read()
for i, k in ((1, "A"), (2, "B")):
    m = re.search(rf"^{k}: .*\n +(\d+) commands.*?, TPM time ([\d.]+) ms, span ([\d.]+) ms", txt, re.M)
    r = raw[i]
    if not m or m.groups() != (str(r["n"]), ms(r["tpm"]), ms(r["span"])):
        bad.append(f"diff text {k}: {m.groups() if m else None}, expected {(r['n'], ms(r['tpm']), ms(r['span']))}")
# report --json, predict --json: trace 1
r1, rep, pre = raw[1], load("report.json"), load("predict.json")
same("report --json: recorded_commands", rep.get("recorded_commands"), r1["n"])
same("report --json: recorded_tpm_ms", rep.get("recorded_tpm_ms"), r1["tpm"] / 1e6, 1e-9)
same("report --json: recorded_span_ms", rep.get("recorded_span_ms"), r1["span"] / 1e6, 1e-9)
same("report --json: recorded_total_ms = span", rep.get("recorded_total_ms"), r1["span"] / 1e6, 1e-6)
same("report --json: tpmtrace_commands", rep.get("tpmtrace_commands"), r1["own"])
same("report --json: recorded_tpm_ms_incl_tpmtrace", rep.get("recorded_tpm_ms_incl_tpmtrace"), r1["tpm_all"] / 1e6, 1e-9)
rec = [x for x in rep.get("measured", []) if x.get("kind") == "recorded"]
same("report --json: the recorded row's commands", rec[0].get("commands") if rec else None, r1["n"])
same("report --json: the recorded row's tpm_ms", rec[0].get("tpm_ms") if rec else None, r1["tpm"] / 1e6, 1e-9)
same("predict --json: input_commands", pre.get("input_commands"), r1["n"])
same("predict --json: recorded_tpm_ms", pre.get("recorded_tpm_ms"), r1["tpm"] / 1e6, 1e-9)
same("predict --json: recorded_total_ms = span", pre.get("recorded_total_ms"), r1["span"] / 1e6, 1e-6)
pol = first(pre.get("policies"))
same("predict --json: as-recorded expands to the trace's commands", pol.get("commands"), r1["n"])
# replay --json: the run (trace 2) and its source (trace 1)
run = first(load("replay.json").get("runs"))
same("replay --json: trace", run.get("trace"), 2)
same("replay --json: trace_commands", run.get("trace_commands"), raw[2]["n"])
same("replay --json: tpm_ns", run.get("tpm_ns"), raw[2]["tpm"])
same("replay --json: span_ns", run.get("span_ns"), raw[2]["span"])
same("replay --json: tpmtrace_commands", run.get("tpmtrace_commands"), raw[2]["own"])
same("replay --json: source_tpm_ns", run.get("source_tpm_ns"), r1["tpm"])
# The faithful replay: the same commands of the trace's own, and tpmtrace's own marked as such.
same("replay: as many of the trace's commands as the source", raw[2]["n"], r1["n"])
same("replay: tpmtrace's own marked in the run as in the source", raw[2]["own"], r1["own"])
moved = [f"{x.get('name')} {x.get('count_delta'):+d}" for x in d.get("commands", []) if x.get("count_delta")]
if moved or not d.get("commands"):
    bad.append(f"diff of the trace and its as-recorded replay: count differences {moved}")
# record's exit line: the clients' commands forwarded, recorded, dropped;
# its own on a line of their own
fwd, kept, drop = open(f"{T}/record.figs").read().split()
same("record: commands forwarded", fwd, r1["n"])
same("record: commands recorded", kept, r1["n"])
m = re.search(r"tpmtrace record: (\d+) own commands \(Startup, resource-manager flushes\)", open(f"{T}/rec.err").read())
same("record: own commands", m and m[1], r1["own"])
# verify: each trace's commands, and its own apart
v = load("verify.json").get("traces", [])
for i in (1, 2):
    t = [x for x in v if x.get("id") == i]
    same(f"verify --json trace {i}: commands", t[0].get("commands") if t else None, raw[i]["n"])
    same(f"verify --json trace {i}: tpmtrace_commands", t[0].get("tpmtrace_commands") if t else None, raw[i]["own"])
    m = re.search(rf"^trace {i} \(complete\): (\d+) commands \(and (\d+) own\)", open(f"{T}/verify.txt").read(), re.M)
    if not m or m.groups() != (str(raw[i]["n"]), str(raw[i]["own"])):
        bad.append(f"verify text trace {i}: {m.groups() if m else None}")
# replay: the source's commands
same("replay --json: source_commands", run.get("source_commands"), r1["n"])
same("replay --json: source_tpmtrace_commands", run.get("source_tpmtrace_commands"), r1["own"])
m = re.search(r"^  source commands (\d+), and (\d+) own commands", open(f"{T}/replay.txt").read(), re.M)
if not m or m.groups() != (str(r1["n"]), str(r1["own"])):
    bad.append(f"replay text: source commands {m.groups() if m else None}")
# strip: the source's commands of the clients, its own apart
st = load("strip.json")
same("strip --json: source_commands", st.get("source_commands"), r1["n"])
same("strip --json: source_tpmtrace_commands", st.get("source_tpmtrace_commands"), r1["own"])
# (a recording without kernel HMAC sessions: nothing to strip, no trace made)
m = re.search(r"nothing to strip .*\n.* among its (\d+) commands\); no trace made", open(f"{T}/strip.txt").read())
if not m or m[1] != str(r1["n"]) or st.get("trace") is not None:
    bad.append(f"strip text: {m.groups() if m else None}")
print("\n".join(bad) if bad else "agree")
PY
expect_eq "every command, JSON and view agree on the figures" "$(cat "$T/cmp.out")" agree
# A database made by an earlier tpmtrace keeps the views of its day: the next
# writer brings them to this schema's text (here: an old-style trace_summary
# that counted tpmtrace's own commands, as tpmtrace wrote it before, put back
# by hand; a view of any other text would be refused as a foreign schema).
sqlite3 "$db" "DROP VIEW trace_summary; CREATE VIEW trace_summary AS
SELECT t.id AS trace_id, t.name, t.kind, t.status, t.commands, t.events, t.dropped,
       (SELECT count(*) FROM command c WHERE c.trace_id = t.id) AS stored,
       (SELECT sum(latency_ns) FROM command c WHERE c.trace_id = t.id) AS tpm_ns,
       (SELECT max(t_done_ns) - min(t_submit_ns) FROM command c WHERE c.trace_id = t.id) AS span_ns,
       (SELECT count(*) FROM command c WHERE c.trace_id = t.id AND c.flags & 2) AS malformed
FROM trace t"
check "an old trace_summary in place" [ "$(sqlite3 "$db" "SELECT tpm_ns FROM trace_summary WHERE trace_id=1")" = "$(sqlite3 "$db" "SELECT sum(latency_ns) FROM command WHERE trace_id=1")" ]
"$TPMTRACE" replay "$db" --trace 1 --policy password --json >/dev/null 2>"$T/replay2.err"
expect_eq "a writer (replay) on the old database" "$?" 0
expect_eq "the writer brought trace_summary to this schema's definition" \
	"$(sqlite3 "$db" "SELECT commands || ' ' || tpm_ns FROM trace_summary WHERE trace_id=1")" \
	"$(sqlite3 "$db" "SELECT count(*) || ' ' || sum(latency_ns) FROM command WHERE trace_id=1 AND NOT flags & 32")"
# README's sql percentile example answers for one trace: run on this file
# (a recording and its replays), it gives trace 1's p99 per command, as the
# command_stats view does, not a p99 over every trace.
ex=$(grep -m1 "^build/bin/tpmtrace sql boot.db '.*percentile(latency_ns, 99)" "$TPMTRACE_SRC/README.md")
check "README has the sql percentile example" test -n "$ex"
q=${ex#*boot.db \'}
q=${q%%\'*}
"$TPMTRACE" sql "$db" "$q" --no-header >"$T/readme-p99.txt" 2>&1
expect_eq "README's sql percentile example runs" "$?" 0
expect_eq "README's sql percentile example: one trace's p99 per command (command_stats, trace 1)" \
	"$(sort "$T/readme-p99.txt")" \
	"$(sqlite3 "$db" "SELECT name || '|' || p99_ns FROM command_stats WHERE trace_id = 1" | sort)"
check "the diff text shows no count difference" \
	python3 -c "import re,sys; sys.exit(1 if re.search(r'^\S+ +\d+ +\d+ +[+-][1-9]', open(sys.argv[1]).read(), re.M) else 0)" "$T/diff.txt"
finish
