#!/usr/bin/env bash
# replay --policy all --repeat 3: every preset of model/policy.c, three runs
# each, each run stored as its own trace (counted by SQL), and one line per
# policy with mean +- standard deviation of TPM and wall time, in the manner
# of perf stat -r. The TPM-time figures equal the mean and sample standard
# deviation of the stored runs' latencies computed from the database
# (tpmtrace's own commands, flag 32, left out: docs/schema.md, "Figures");
# --json gives the same summary. One run has no standard deviation: "-" and
# null, not 0.
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
print('ok')
PY
expect_eq "--json summary equals the runs' mean and sd" "$?" 0
grep -q '^ok' "$T/py.out" || cat "$T/py.out" >&2
expect_eq "30 runs stored in all" \
	"$(sqlite3 "$db" "SELECT count(*) FROM trace WHERE kind='replay' AND parent_id=1")" 30

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

# One policy, one run: no summary table (the output of before).
"$TPMTRACE" replay "$db" --trace 1 --policy password >"$T/one.txt" 2>/dev/null
expect_eq "one run: exit status" "$?" 0
check "one run: no summary" bash -c "! grep -q 'per policy over' '$T/one.txt'"
"$TPMTRACE" replay "$db" --trace 1 --policy everything 2>"$T/e"
expect_eq "unknown policy: usage error" "$?" 2
finish
