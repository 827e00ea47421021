#!/usr/bin/env bash
# predict: x password on totals as well as on TPM time, both labelled, when
# the non-TPM time is known (--gap-ms for a synthetic trace, the gaps of a
# recorded one). The seed case: 12,313 IMA extends with 1.99 ms between them
# on the SLB9670 profile give 102.8 s for password (measured: 102.8 s) and a
# linux-6.10 total to compare with the measured 1,941.7 s (18.9x).
. "$(dirname "$0")/../lib/common.sh"
need sqlite3 python3

"$TPMTRACE" predict --synthetic pcr-extend:12313 --gap-ms 1.99 --profile slb9670-linux-integrity \
	--host-crypto estimate --json >"$T/s.json" 2>/dev/null
expect_eq "predict --gap-ms --json" "$?" 0
python3 - "$T/s.json" <<'PY' >"$T/py.out" 2>&1
import json, sys
j = json.load(open(sys.argv[1]))
assert j['non_tpm_known'] is True, j['non_tpm_known']
assert abs(j['non_tpm_ms'] - 1.99 * 12312) < 1e-3, j['non_tpm_ms']
p = {x['name']: x for x in j['policies']}
pw, k10 = p['password'], p['linux-6.10']
# 102.8 s for password, as measured.
assert f"{pw['total_ms'] / 1000:.1f}" == '102.8', pw['total_ms']
# Both factors, each the ratio of its own measure.
for x in p.values():
    assert abs(x['factor_vs_password_tpm'] - x['tpm_ms'] / pw['tpm_ms']) < 1e-5, x['name']
    assert abs(x['factor_vs_password_total'] - x['total_ms'] / pw['total_ms']) < 1e-5, x['name']
    assert x['factor_vs_password'] == x['factor_vs_password_total'], x['name']
# linux-6.10 against the measured boot: 1,941.7 s, 18.9x password, within 10%.
assert abs(k10['total_ms'] / 1000 - 1941.7) < 0.1 * 1941.7, k10['total_ms']
assert abs(k10['factor_vs_password_total'] - 18.9) < 0.1 * 18.9, k10['factor_vs_password_total']
# The totals factor is smaller than the TPM one: the non-TPM time is the same under each.
assert k10['factor_vs_password_total'] < k10['factor_vs_password_tpm'], k10
print(f"ok linux-6.10 total {k10['total_ms'] / 1000:.1f} s (measured 1941.7 s), "
      f"x password total {k10['factor_vs_password_total']:.2f} (measured 18.9), TPM {k10['factor_vs_password_tpm']:.2f}")
PY
expect_eq "totals and both factors" "$?" 0
cat "$T/py.out"

# Text: both factors under one labelled heading.
"$TPMTRACE" predict --synthetic pcr-extend:12313 --gap-ms 1.99 --profile slb9670-linux-integrity \
	--host-crypto estimate >"$T/s.txt" 2>/dev/null
check "text: an 'x password' heading" grep -qE '^ +x password$' "$T/s.txt"
check "text: TPM and total columns" grep -qE '^policy .* total +TPM +total$' "$T/s.txt"
check "text: the TPM range apart" grep -qE '^TPM range +\(low\.\.high\) +notes$' "$T/s.txt"
check "text: password 102.8 s, factors 1.00 and 1.00" grep -qE '^password .* 102\.8 s +1\.00 +1\.00$' "$T/s.txt"
tpmf=$(python3 -c 'import json,sys; p=[x for x in json.load(open(sys.argv[1]))["policies"] if x["name"]=="linux-6.10"][0]; print("%.2f %.2f" % (p["factor_vs_password_tpm"], p["factor_vs_password_total"]))' "$T/s.json")
check "text: linux-6.10's factors as in the JSON ($tpmf)" grep -qE "^linux-6\.10 .* ${tpmf% *} +${tpmf#* }\$" "$T/s.txt"

# Without --gap-ms the non-TPM time is unknown: no factor on totals.
"$TPMTRACE" predict --synthetic pcr-extend:100 --profile slb9670-linux-integrity --policy linux-6.10 \
	--host-crypto estimate --json >"$T/u.json" 2>/dev/null
expect_eq "predict without --gap-ms" "$?" 0
check "unknown non-TPM time in JSON" grep -q '"non_tpm_known":false' "$T/u.json"
check "no total factor in JSON" grep -q '"factor_vs_password_total":null' "$T/u.json"
"$TPMTRACE" predict --synthetic pcr-extend:100 --profile slb9670-linux-integrity --policy linux-6.10 \
	--host-crypto estimate >"$T/u.txt" 2>/dev/null
check "text says the non-TPM time is unknown" grep -q '^non-TPM time: unknown (--gap-ms gives it)' "$T/u.txt"
check "text: '-' for the total factor" grep -qE '^linux-6\.10 .* [0-9.]+ +-$' "$T/u.txt"

# A recorded trace: its gaps are the non-TPM time; x recorded on both too.
DB=$T/t.db
"$TPMTRACE" profile import profile "$TPMTRACE_SRC/model/profiles/slb9670-linux-integrity.profile" "$DB" --name mine 2>/dev/null
expect_eq "create db" "$?" 0
sqlite3 "$DB" "INSERT INTO trace (id, kind, status) VALUES (1, 'import', 'complete');
INSERT INTO command (trace_id, seq, t_submit_ns, t_done_ns, latency_ns, cc, rc, handle1, auth_kind)
VALUES (1, 1, 0, 7000000, 7000000, 386, 0, 10, 1), (1, 2, 9000000, 16000000, 7000000, 386, 0, 10, 1),
       (1, 3, 18000000, 25000000, 7000000, 386, 0, 10, 1);"
"$TPMTRACE" predict "$DB" --trace 1 --profile mine --host-crypto estimate --json >"$T/d.json" 2>/dev/null
expect_eq "predict a recorded trace" "$?" 0
python3 - "$T/d.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j['non_tpm_known'] is True and abs(j['non_tpm_ms'] - 4.0) < 1e-9, j
for x in j['policies']:
    assert abs(x['factor_vs_recorded_tpm'] - x['tpm_ms'] / 21.0) < 1e-5, x['name']
    assert abs(x['factor_vs_recorded_total'] - x['total_ms'] / 25.0) < 1e-5, x['name']
    assert x['factor_vs_password_total'] is not None, x['name']
PY
expect_eq "recorded trace: factors on TPM time and totals" "$?" 0
"$TPMTRACE" predict "$DB" --trace 1 --profile mine --host-crypto estimate >"$T/d.txt" 2>/dev/null
check "text: an 'x recorded' heading too" grep -qE '^ +x password +x recorded$' "$T/d.txt"
finish
