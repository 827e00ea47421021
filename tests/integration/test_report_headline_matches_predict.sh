#!/usr/bin/env bash
# The report's answer is the model's: for the same trace and profile, the
# headline table of the HTML page, `report --json` and `predict --json` give
# the same TPM time, total, factors and fallback counts per policy; the
# measured rows equal the database's sums; the "mostly fallback" mark is set
# exactly where the fallback share exceeds the documented threshold (25%),
# in the report and in predict alike.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_startup sqlite3 python3
DB=$T/demo.db
"$TPMTRACE" record --spawn-swtpm --db "$DB" -- "$TPMTRACE_SRC/tools/demo-workload" 20 \
	>"$T/rec.out" 2>&1 || {
	cat "$T/rec.out"
	echo "record failed"
	exit 1
}
check "replay password" "$TPMTRACE" replay "$DB" --trace 1 --policy password --json
P=slb9670-linux-integrity
check "report --json" "$TPMTRACE" report "$DB" --trace 1 --profile $P --host-crypto estimate \
	--json -o "$T/report.json"
check "report html" "$TPMTRACE" report "$DB" --trace 1 --profile $P --host-crypto estimate \
	-o "$T/report.html"
"$TPMTRACE" predict "$DB" --trace 1 --profile $P --host-crypto estimate --json \
	>"$T/predict.json" 2>/dev/null
expect_eq "predict --json exits 0" $? 0
# TPM time: the clients' commands, tpmtrace's own (flag 32) left out
# (docs/schema.md, "Figures").
rec_sum=$(sqlite3 "$DB" "SELECT sum(latency_ns) FROM command WHERE trace_id=1 AND NOT flags & 32")
rep_sum=$(sqlite3 "$DB" "SELECT sum(latency_ns) FROM command WHERE trace_id=(SELECT id FROM trace WHERE parent_id=1 AND kind='replay') AND NOT flags & 32")

python3 - "$T/report.json" "$T/predict.json" "$T/report.html" "$rec_sum" "$rep_sum" >"$T/cmp.out" <<'PY'
import json, sys, re
r = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
html = open(sys.argv[3]).read()
rec_sum, rep_sum = float(sys.argv[4]), float(sys.argv[5])
bad = []
def same(what, a, b, tol=1e-6):
    if a is None and b is None and what.endswith(('_low_ms', '_high_ms')):
        return  # no range: a prediction mostly priced at the fallback
    if a is None or b is None or abs(a - b) > tol * max(1, abs(b)):
        bad.append(f"{what}: {a} != {b}")
pp = {x['name']: x for x in p['policies']}
rows = r['predicted'][0]['policies']
same("policies", len(rows), len(pp))
same("non-TPM time", r['non_tpm_ms'], p['non_tpm_ms'])
same("recorded TPM time", r['recorded_tpm_ms'], p['recorded_tpm_ms'])
for x in rows:
    q = pp.get(x['policy'], {})
    for k in ('tpm_ms', 'total_ms', 'tpm_low_ms', 'tpm_high_ms', 'factor_vs_password',
              'factor_vs_recorded', 'priced_at_fallback', 'commands'):
        same(f"{x['policy']} {k}", x.get(k), q.get(k))
    if x['mostly_fallback'] != (x['fallback_share'] > r['fallback_threshold']):
        bad.append(f"{x['policy']}: mark disagrees with share")
    same(f"{x['policy']} fallback share (predict)", x.get('fallback_share'), q.get('fallback_share'), 1e-5)
    same(f"{x['policy']} derived share (predict)", x.get('derived_share'), q.get('derived_share'), 1e-5)
    if x['mostly_fallback'] != q.get('mostly_fallback'):
        bad.append(f"{x['policy']}: report and predict mark it differently")
meas = {x['policy']: x for x in r['measured']}
same("as recorded = sum of latencies", meas['as recorded']['tpm_ms'], rec_sum / 1e6)
same("password replay = its sum", meas['password']['tpm_ms'], rep_sum / 1e6)
same("recorded factor vs password", meas['as recorded']['factor_vs_password_tpm'],
     rec_sum / rep_sum)
# The page's headline rows carry the same numbers.
seen = 0
for m in re.finditer(r'<tr class="headline-row[^"]*" data-kind="(\w+)" data-tpm-ms="([\d.]+)" '
                     r'data-total-ms="([\d.]+)" data-x-password="([\d.]+)" '
                     r'data-fallback-share="([\d.]+)" data-mostly-fallback="(\d)" '
                     r'data-policy="([^"]+)"', html):
    kind, tpm, tot, xpw, share, mf, pol = m.groups()
    src = {x['policy']: x for x in (rows if kind == 'predicted' else r['measured'])}[pol]
    same(f"html {pol} tpm", float(tpm), src['tpm_ms'])
    same(f"html {pol} total", float(tot), src['total_ms'])
    same(f"html {pol} x password", float(xpw), src['factor_vs_password'], 1e-5)
    same(f"html {pol} share", float(share), src['fallback_share'], 1e-3)
    if int(mf) != int(src['mostly_fallback']):
        bad.append(f"html {pol} mark")
    seen += 1
same("html headline rows", seen, len(rows) + len(r['measured']))
print("\n".join(bad) if bad else "same")
PY
expect_eq "report page, report --json and predict --json agree" "$(cat "$T/cmp.out")" same
check "some policy is priced partly at the fallback (the check can see it)" \
	python3 -c "import json,sys;d=json.load(open(sys.argv[1]));sys.exit(0 if any(p['priced_at_fallback'] for p in d['predicted'][0]['policies']) else 1)" "$T/report.json"
finish
