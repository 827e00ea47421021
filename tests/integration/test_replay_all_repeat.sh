#!/usr/bin/env bash
# replay --policy all --repeat 3: every preset of model/policy.c, three runs
# each, each run stored as its own trace (counted by SQL), and one line per
# policy with mean +- standard deviation of TPM and wall time, in the manner
# of perf stat -r. The TPM-time figures equal the mean and sample standard
# deviation of the stored runs' latencies computed from the database
# (tpmtrace's own commands, flag 32, left out: docs/schema.md, "Figures");
# --json gives the same summary. One run has no standard deviation: "-" and
# null, not 0. The output is the summary alone (bounded, whatever the trace),
# each run's report with --runs; every policy's TPM time against password
# carries the noise verdict of model/run_stats.h (Welch's 95% interval of the
# difference of means, recomputed here with t from the t distribution's
# density, not from tpmtrace's table), and single runs say they are.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_startup sqlite3 python3

PRESETS="as-recorded password linux-6.10 linux-6.12 linux-6.12-no-pcr-integrity linux-6.18"
db=$T/demo.db
"$TPMTRACE" record --spawn-swtpm --db "$db" --name demo -- "$TPMTRACE_SRC/tools/demo-workload" 5 >/dev/null 2>"$T/rec.err"
expect_eq "demo workload recorded" "$?" 0

"$TPMTRACE" replay "$db" --trace 1 --policy all --repeat 3 >"$T/out.txt" 2>"$T/err.txt"
expect_eq "replay --policy all --repeat 3: exit status" "$?" 0
expect_eq "18 runs stored, complete" \
	"$(sqlite3 "$db" "SELECT count(*) FROM trace WHERE kind='replay' AND parent_id=1 AND status='complete'")" 18
for p in $PRESETS; do
	expect_eq "$p: 3 runs stored" \
		"$(sqlite3 "$db" "SELECT count(*) FROM trace WHERE kind='replay' AND parent_id=1 AND policy='$p'")" 3
	line=$(grep -E "^  $p +3 " "$T/out.txt")
	check "$p: a summary line" [ -n "$line" ]
	# The mean and sample sd of the runs' TPM time (ms), from SQL.
	want=$(sqlite3 "$db" "WITH r AS (SELECT sum(c.latency_ns) / 1e6 AS ms FROM trace t JOIN command c
		ON c.trace_id = t.id WHERE t.kind='replay' AND t.parent_id=1 AND t.policy='$p' AND NOT c.flags & 32 GROUP BY t.id)
		SELECT printf('%.3f +- %.3f', avg(ms),
			sqrt((sum(ms * ms) - count(*) * avg(ms) * avg(ms)) / (count(*) - 1))) FROM r" 2>"$T/sqlerr")
	if [ -s "$T/sqlerr" ]; then # sqlite3 without sqrt(): the same in awk
		want=$(sqlite3 "$db" "SELECT sum(c.latency_ns) / 1e6 FROM trace t JOIN command c ON c.trace_id = t.id
			WHERE t.kind='replay' AND t.parent_id=1 AND t.policy='$p' AND NOT c.flags & 32 GROUP BY t.id" |
			awk '{ x[NR] = $1; s += $1 } END { m = s / NR; for (i = 1; i <= NR; i++) v += (x[i] - m) ^ 2; printf "%.3f +- %.3f", m, sqrt(v / (NR - 1)) }')
	fi
	tpm=$(sed -E 's/^ *[^ ]+ +3 +[0-9]+-[0-9]+ +([0-9.]+ \+- [0-9.]+) .*/\1/' <<<"$line")
	expect_eq "$p: TPM time mean +- sd equals SQL's" "$tpm" "$want"
	check "$p: wall time mean +- sd" grep -qE "^  $p +3 .*\) +[0-9.]+ \+- [0-9.]+ \([0-9.]+%\)$" <<<"$line"
done
expect_eq "one summary line per preset" "$(grep -cE '^  [a-z0-9.-]+ +3 +[0-9]+-[0-9]+ ' "$T/out.txt")" 6
check "the summary is measured TPM time" grep -q '^per policy over 3 runs each: TPM time measured ' "$T/out.txt"
check "the summary alone: no run's report" bash -c "! grep -q '^replay of trace' '$T/out.txt'"
check "the summary alone: at most 24 lines ($(wc -l <"$T/out.txt"))" [ "$(wc -l <"$T/out.txt")" -le 24 ]
for p in $PRESETS; do
	[ "$p" = password ] && continue
	check "$p: its TPM time against password with a noise verdict" \
		grep -qE "^  $p +[0-9.]+x, (within noise|higher|lower) \([+-][0-9.]+ \+- [0-9.]+\)$" "$T/out.txt"
done

# --runs: each run's report before the table.
"$TPMTRACE" replay "$db" --trace 1 --policy password --repeat 2 --runs >"$T/runs.txt" 2>/dev/null
expect_eq "--runs: exit status" "$?" 0
expect_eq "--runs: both runs' reports" "$(grep -c '^replay of trace 1, policy password' "$T/runs.txt")" 2
expect_eq "--runs: each run measured, n=1" "$(grep -c '^  figures: measured, one run (n=1: no spread known' "$T/runs.txt")" 2
check "--runs: and the table" grep -qE '^  password +2 ' "$T/runs.txt"

# --json: the runs and the same summary.
"$TPMTRACE" replay "$db" --trace 1 --policy all --repeat 2 --json >"$T/j.json" 2>/dev/null
expect_eq "--json: exit status" "$?" 0
python3 - "$T/j.json" <<'PY' >"$T/py.out" 2>&1
import json, statistics, sys
j = json.load(open(sys.argv[1]))
assert j['version'] == 1 and len(j['runs']) == 12, len(j['runs'])
assert [s['policy'] for s in j['summary']] == ['as-recorded', 'password', 'linux-6.10', 'linux-6.12',
                                              'linux-6.12-no-pcr-integrity', 'linux-6.18'], j['summary']
for s in j['summary']:
    runs = [r for r in j['runs'] if r['policy'] == s['policy']]
    assert s['runs'] == len(runs) == 2, s
    tpm = [r['tpm_ns'] / 1e6 for r in runs]
    wall = [r['wall_ns'] / 1e6 for r in runs]
    assert abs(s['tpm_ms_mean'] - statistics.mean(tpm)) < 1e-5, s
    assert abs(s['tpm_ms_sd'] - statistics.stdev(tpm)) < 1e-5, s
    assert abs(s['wall_ms_mean'] - statistics.mean(wall)) < 1e-5, s
    assert abs(s['wall_ms_sd'] - statistics.stdev(wall)) < 1e-5, s
    assert s['first_trace'] == runs[0]['trace'] and s['last_trace'] == runs[-1]['trace'], s
    assert s['figures'] == 'measured' and all(r['figures'] == 'measured' for r in runs), s

# The noise rule, recomputed: t(0.975, floor(df)) by integrating the density.
import math
def t95(df):
    df = math.floor(df)
    pdf = lambda x: math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2)) * (1 + x * x / df) ** (-(df + 1) / 2)
    def cdf(x, n=4000):
        h = x / n
        return 0.5 + h / 3 * sum((1 if i in (0, n) else 4 if i % 2 else 2) * pdf(i * h) for i in range(n + 1))
    lo, hi = 0.0, 50.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < 0.975 else (lo, mid)
    return lo
pw = [r['tpm_ns'] / 1e6 for r in j['runs'] if r['policy'] == 'password']
for s in j['summary']:
    if s['policy'] == 'password':
        assert 'vs_password' not in s, s
        continue
    x = [r['tpm_ns'] / 1e6 for r in j['runs'] if r['policy'] == s['policy']]
    v = s['vs_password']
    d = statistics.mean(x) - statistics.mean(pw)
    vb, vx = statistics.variance(pw) / len(pw), statistics.variance(x) / len(x)
    df = (vb + vx) ** 2 / (vb * vb / (len(pw) - 1) + vx * vx / (len(x) - 1)) if vb + vx else 1e9
    half = t95(min(df, 1000)) * math.sqrt(vb + vx)
    assert abs(v['diff_ms'] - d) < 1e-5, (s, d)
    assert abs(v['diff_ms_ci95'] - half) < 2e-3 * half + 1e-6, (s, half)
    assert abs(v['ratio'] - statistics.mean(x) / statistics.mean(pw)) < 1e-5, s
    want = 'within noise' if abs(d) <= half else 'higher' if d > 0 else 'lower'
    assert v['verdict'] == want, (s, want)
print('ok')
PY
expect_eq "--json summary equals the runs' mean and sd" "$?" 0
grep -q '^ok' "$T/py.out" || cat "$T/py.out" >&2
expect_eq "32 runs stored in all (18, --runs' 2, 12)" \
	"$(sqlite3 "$db" "SELECT count(*) FROM trace WHERE kind='replay' AND parent_id=1")" 32

# --policy all, one run each: a mean, and no standard deviation ("-", null).
"$TPMTRACE" replay "$db" --trace 1 --policy all --json >"$T/one-all.json" 2>/dev/null
expect_eq "--policy all, one run: exit status" "$?" 0
expect_eq "one run: sd null in the JSON summary" \
	"$(python3 -c 'import json,sys; print(sorted({(s["tpm_ms_sd"], s["wall_ms_sd"]) for s in json.load(open(sys.argv[1]))["summary"]}))' "$T/one-all.json")" \
	"[(None, None)]"
"$TPMTRACE" replay "$db" --trace 1 --policy all >"$T/one-all.txt" 2>/dev/null
expect_eq "--policy all, one run: text exit status" "$?" 0
expect_eq "one run: '+- -' on every summary line, no 0.000" \
	"$(grep -cE '^  [a-z0-9.-]+ +1 +[0-9]+-[0-9]+ +[0-9.]+ \+- - +[0-9.]+ \+- -$' "$T/one-all.txt")" 6
expect_eq "one run each: every ratio to password marked as between single runs" \
	"$(grep -cE '^  [a-z0-9.-]+ +[0-9.]+x, single runs \(no spread known\)$' "$T/one-all.txt")" 5
expect_eq "one run each: the JSON verdicts say single runs" \
	"$(python3 -c 'import json,sys; print(sorted({s["vs_password"]["verdict"] for s in json.load(open(sys.argv[1]))["summary"] if "vs_password" in s}))' "$T/one-all.json")" \
	"['single runs']"

# One policy, one run: no summary table (the output of before).
"$TPMTRACE" replay "$db" --trace 1 --policy password >"$T/one.txt" 2>/dev/null
expect_eq "one run: exit status" "$?" 0
check "one run: no summary" bash -c "! grep -q 'per policy over' '$T/one.txt'"
check "one run: its figures measured, n=1" grep -q '^  figures: measured, one run (n=1: no spread known' "$T/one.txt"
"$TPMTRACE" replay "$db" --trace 1 --policy everything 2>"$T/e"
expect_eq "unknown policy: usage error" "$?" 2
finish
