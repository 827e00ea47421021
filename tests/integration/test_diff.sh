#!/usr/bin/env bash
# tpmtrace diff: the demo workload (real tpm2-tools through the proxy) against
# its linux-6.10 replay on a private swtpm. The commands the policy adds come
# first, by default (the time the count change accounts for) also against a
# replay emulating a slower TPM, and with --sort count; their count deltas
# equal what `tpmtrace sql` counts in each trace; every number of --json
# equals its SQL computation (count, total, nearest-rank p50/p95 by
# percentile()); --sort time orders by the time difference; one database or two (DB1:A DB2:B); bad
# operands are usage errors and missing traces errors naming them.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_startup sqlite3 python3

db=$T/demo.db
"$TPMTRACE" record --spawn-swtpm --db "$db" --name demo -- "$TPMTRACE_SRC/tools/demo-workload" 20 >/dev/null 2>"$T/rec.err"
expect_eq "demo workload recorded" "$?" 0
"$TPMTRACE" replay "$db" --trace 1 --policy linux-6.10 >/dev/null 2>"$T/rep.err"
expect_eq "linux-6.10 replay" "$?" 0

# The counts by SQL, the clients' commands only (as command_stats).
n_sql() { "$TPMTRACE" sql "$db" --no-header "SELECT count(*) FROM command WHERE trace_id=$1 AND flags & 32 = 0 AND tpm_cc_name(cc)='$2'"; }

"$TPMTRACE" diff "$db" 1 2 --sort count >"$T/count.txt" 2>"$T/e"
expect_eq "diff --sort count" "$?" 0
first3=$(awk 'f && NF { print $1 } /^command / { f = 1 }' "$T/count.txt" | head -3 | sort | tr '\n' ' ')
expect_eq "the commands linux-6.10 adds come first" "$first3" "ContextLoad FlushContext StartAuthSession "
for c in StartAuthSession ContextLoad FlushContext; do
	want=$(($(n_sql 2 $c) - $(n_sql 1 $c)))
	got=$(awk -v c=$c '$1 == c { print $4 }' "$T/count.txt")
	check "$c: the replay adds some" [ "$want" -gt 0 ]
	expect_eq "$c: count delta equals SQL's" "$got" "+$want"
done

# --json: every number against SQL (percentile() is the nearest rank).
"$TPMTRACE" diff "$db" 1 2 --json >"$T/d.json" 2>"$T/e"
expect_eq "diff --json" "$?" 0
"$TPMTRACE" sql "$db" --no-header "SELECT t.id, c.cc, count(*), count(latency_ns), coalesce(sum(latency_ns), 0),
	coalesce(percentile(latency_ns, 50), -1), coalesce(percentile(latency_ns, 95), -1)
	FROM trace t JOIN command c ON c.trace_id = t.id WHERE t.id IN (1, 2) AND c.flags & 32 = 0
	GROUP BY t.id, c.cc" >"$T/sql.txt"
check "sql per trace and code" test -s "$T/sql.txt"
python3 - "$T/d.json" "$T/sql.txt" <<'PY' >"$T/py.out" 2>&1
import json, math, re, sys
j = json.load(open(sys.argv[1]))
want = {}
for line in open(sys.argv[2]):
    v = [int(x) for x in re.split(r'[|\s]+', line.strip())]
    want[(v[0], v[1])] = v[2:]
assert j['version'] == 1 and j['a']['trace'] == 1 and j['b']['trace'] == 2, j['a']
assert j['b']['policy'] == 'linux-6.10', j['b']
codes = {cc for (_, cc) in want}
assert {c['cc'] for c in j['commands']} == codes, 'codes differ'
for c in j['commands']:
    for side, tid in (('a', 1), ('b', 2)):
        w = want.get((tid, c['cc']), [0, 0, 0, -1, -1])
        s = c[side]
        got = [s['count'], s['timed'], s['total_ns'],
               -1 if s.get('p50_ns') is None else s['p50_ns'],
               -1 if s.get('p95_ns') is None else s['p95_ns']]
        assert got == w, (c['name'], side, got, w)
    assert c['count_delta'] == c['b']['count'] - c['a']['count'], c
    assert c['total_delta_ns'] == c['b']['total_ns'] - c['a']['total_ns'], c
    if c['a']['total_ns']:
        assert abs(c['total_ratio'] - c['b']['total_ns'] / c['a']['total_ns']) < 1e-5 * max(1, c['total_ratio']), c
    else:
        assert c['total_ratio'] is None, c
for side, tid in (('a', 1), ('b', 2)):
    assert j[side]['commands'] == sum(v[0] for (t, _), v in want.items() if t == tid), side
    assert j[side]['total_ns'] == sum(v[2] for (t, _), v in want.items() if t == tid), side
# The default order: the time the count change accounts for (count delta x
# the mean latency of the side with more) never grows down the list.
for c in j['commands']:
    dc = c['count_delta']
    more = c['b'] if dc >= 0 else c['a']
    want_added = int(dc * more['total_ns'] / more['timed']) if dc and more['timed'] else 0
    assert abs(c['added_ns'] - want_added) <= 1, (c['name'], c['added_ns'], want_added)
d = [abs(c['added_ns']) for c in j['commands']]
assert d == sorted(d, reverse=True), d
print('ok', len(j['commands']))
PY
expect_eq "--json equals the SQL computation" "$?" 0
grep -q '^ok' "$T/py.out" || cat "$T/py.out" >&2

# The default order, on the demo as tools/demo makes it (200 extends, the
# linux-6.10 replay on swtpm emulating the SLB9670, whose every command is
# slower): the per-command prologue linux-6.10 adds comes first, before
# PCR_Extend (in both traces, slower by more than FlushContext adds) and
# CreatePrimary (the null key, added once).
demo=$T/demo200.db
"$TPMTRACE" record --spawn-swtpm --db "$demo" --name demo -- "$TPMTRACE_SRC/tools/demo-workload" 200 >/dev/null 2>"$T/rec2.err"
expect_eq "the demo workload (200 extends) recorded" "$?" 0
"$TPMTRACE" replay "$demo" --trace 1 --policy linux-6.10 --emulate slb9670-linux-integrity --emulate-seed 1 \
	>/dev/null 2>"$T/rep2.err"
expect_eq "its linux-6.10 replay emulating the SLB9670" "$?" 0
"$TPMTRACE" diff "$demo" 1 2 >"$T/emu.txt" 2>"$T/e"
first3=$(awk 'f && NF { print $1 } /^command / { f = 1 }' "$T/emu.txt" | head -3 | tr '\n' ' ')
expect_eq "default order: the prologue linux-6.10 adds, costliest first" "$first3" "StartAuthSession ContextLoad FlushContext "
for c in StartAuthSession ContextLoad FlushContext; do
	want=$(($("$TPMTRACE" sql "$demo" --no-header "SELECT count(*) FROM command WHERE trace_id=2 AND flags & 32 = 0 AND tpm_cc_name(cc)='$c'") -
		$("$TPMTRACE" sql "$demo" --no-header "SELECT count(*) FROM command WHERE trace_id=1 AND flags & 32 = 0 AND tpm_cc_name(cc)='$c'")))
	got=$(awk -v c=$c '$1 == c { print $4 }' "$T/emu.txt")
	expect_eq "demo: $c count delta equals SQL's" "$got" "+$want"
done
"$TPMTRACE" diff "$demo" 1 2 --sort time --json >"$T/time.json" 2>"$T/e"
expect_eq "diff --sort time" "$?" 0
bytime() { python3 -c 'import json,sys; d = [abs(c["total_delta_ns"]) for c in json.load(open(sys.argv[1]))["commands"]]; exit(d != sorted(d, reverse=True))' "$1"; }
check "--sort time: the time difference never grows down the list" bytime "$T/time.json"

# Text and JSON agree on the order (the default).
text_order=$("$TPMTRACE" diff "$db" 1 2 | awk 'f && NF { print $1 } /^command / { f = 1 }' | tr '\n' ' ')
json_order=$(python3 -c 'import json,sys; print(" ".join(c["name"] for c in json.load(open(sys.argv[1]))["commands"]) + " ")' "$T/d.json")
expect_eq "text in the JSON's order" "$text_order" "$json_order"

# Two databases: DB1:A DB2:B gives the same numbers.
cp "$db" "$T/other.db"
"$TPMTRACE" diff "$db:1" "$T/other.db:2" --json >"$T/d2.json" 2>"$T/e"
expect_eq "diff DB1:A DB2:B" "$?" 0
same() { python3 -c 'import json,sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); exit(a["commands"] != b["commands"])' "$1" "$2"; }
check "two databases: the same rows" same "$T/d.json" "$T/d2.json"

# Bad operands and traces.
"$TPMTRACE" diff "$db" 1 2>"$T/e"
expect_eq "one trace only: usage error" "$?" 2
"$TPMTRACE" diff "$db" 1 9 2>"$T/e"
expect_eq "missing trace: error" "$?" 1
check "the message names trace 9" grep -q "no trace 9" "$T/e"
"$TPMTRACE" diff "$db:1" "$T/none.db:1" 2>"$T/e"
expect_eq "missing database: error" "$?" 1
check "the message names the file" grep -q "none.db" "$T/e"
"$TPMTRACE" diff "$db" 1 2 --sort size 2>"$T/e"
expect_eq "--sort size: usage error" "$?" 2
finish
