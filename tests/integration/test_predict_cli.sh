#!/bin/bash
# tpmtrace predict and profile on the command line: the synthetic SLB9670
# figure, a trace streamed from a real database, and bad input (empty trace,
# a profile lacking commands, corrupt and absurd profiles) with nothing written.
. "$(dirname "$0")/../lib/common.sh"
need sqlite3
num() { sed -nE "s/.*\"$1\":([0-9.e+-]+).*/\1/p"; }
# One line per policy object of the JSON.
pol() { sed 's/{"name":/\n{"name":/g' | grep "^{\"name\":\"$1\""; }

# Synthetic 12,313 extends on the shipped SLB9670 profile.
"$TPMTRACE" predict --synthetic pcr-extend:12313 --profile slb9670-linux-integrity \
	--policy password --policy linux-6.10 --json >"$T/p.json" 2>"$T/p.err" && ok || bad "predict --synthetic"
pw=$(pol password <"$T/p.json" | num tpm_ms)
k10=$(pol linux-6.10 <"$T/p.json" | num tpm_ms)
echo "password -> linux-6.10 TPM time increase: predicted $(awk -v a="$pw" -v b="$k10" 'BEGIN { printf "%.1f", (b - a) / 1000 }') s, measured 1838.9 s (102.8 s -> 1941.7 s)"
awk -v a="$pw" -v b="$k10" 'BEGIN { d = (b - a) / 1000; exit !(d > 0.9 * 1838.9 && d < 1.1 * 1838.9) }' && ok || bad "increase not within 10%: $pw -> $k10"
grep -q 'lacks ContextSave' "$T/p.err" && ok || bad "warning for the missing ContextSave"
pol linux-6.10 <"$T/p.json" | grep -q '"StartAuthSession":12313' && ok || bad "6.10 counts"

# Host crypto: measured on this host by default, with per-operation figures
# that the policy totals are made of; the estimate on request, the same figures
# every time.
"$TPMTRACE" predict --synthetic pcr-extend:1000 --profile slb9670-linux-integrity --policy linux-6.10 \
	--json >"$T/hm.json" 2>/dev/null && ok || bad "predict, host crypto measured"
grep -q '"host_crypto":"measured on this host"' "$T/hm.json" && ok || bad "measured: $(grep -o '"host_crypto":"[^"]*"' "$T/hm.json")"
python3 - "$T/hm.json" <<'PY' && ok || bad "measured per-operation figures and total: $(grep -o '"host_crypto_per_op_ms":{[^}]*}' "$T/hm.json")"
import json, sys
j = json.load(open(sys.argv[1]))
h, p = j['host_crypto_per_op_ms'], j['policies'][0]
# Each op is positive and below 10 ms; a salted session costs more than an HMAC.
assert all(0 < h[k] < 10 for k in ('salt_ecc', 'unsalted', 'hmac', 'enc', 'name')), h
assert h['salt_ecc'] > h['hmac'], h
# linux-6.10 per extend: one salted session (ECC) and one HMAC command (the
# figures are printed to 1e-6 ms: 1000 commands may be off by 0.002 ms).
want = 1000 * (h['salt_ecc'] + h['hmac'])
assert abs(p['host_crypto_ms'] - want) < 0.01, (want, p['host_crypto_ms'])
PY
"$TPMTRACE" predict --synthetic pcr-extend:1000 --profile slb9670-linux-integrity --policy linux-6.10 \
	>"$T/hm.txt" 2>/dev/null
grep -q '^host crypto: measured on this host (tpmtrace.s session code): salted session [0-9.]* us' "$T/hm.txt" && ok || bad "text: $(grep 'host crypto' "$T/hm.txt")"
"$TPMTRACE" predict --synthetic pcr-extend:1000 --profile slb9670-linux-integrity --policy linux-6.10 \
	--host-crypto estimate --json >"$T/he.json" 2>/dev/null && ok || bad "predict --host-crypto estimate"
grep -q '"host_crypto":"constant estimate, not measured","host_crypto_per_op_ms":{"salt_ecc":0.085000,"salt":0.085000,"unsalted":0.002000,"hmac":0.005000,"enc":0.003000,"name":0.002000}' "$T/he.json" && ok || bad "estimate: $(grep -o '"host_crypto.*per_op_ms":{[^}]*}' "$T/he.json")"
"$TPMTRACE" predict --synthetic pcr-extend:1 --profile slb9670-linux-integrity --host-crypto guess 2>"$T/e"
[ $? -eq 2 ] && grep -q "guess" "$T/e" && ok || bad "--host-crypto guess: $(cat "$T/e")"

# Text output names every preset.
"$TPMTRACE" predict --synthetic pcr-extend:100 --profile slb9670-linux-integrity >"$T/t.txt" 2>/dev/null
for p in as-recorded password linux-6.10 linux-6.12 linux-6.12-no-pcr-integrity linux-6.18; do
	grep -q "^$p " "$T/t.txt" && ok || bad "text output lacks $p"
done

# A vendor profile without PCR_Extend: warned, still predicted.
"$TPMTRACE" predict --synthetic pcr-extend:10 --profile intel-ptt-tpmscan --json >"$T/i.json" 2>"$T/i.err" && ok || bad "predict with a partial profile"
grep -q 'lacks PCR_Extend' "$T/i.err" && ok || bad "no warning for a missing PCR_Extend: $(cat "$T/i.err")"

# A trace in a database: 3 extends with 2 ms gaps.
DB="$T/t.db"
"$TPMTRACE" profile import profile "$TPMTRACE_SRC/model/profiles/slb9670-linux-integrity.profile" "$DB" --name mine 2>/dev/null && ok || bad "create db"
sqlite3 "$DB" "INSERT INTO trace (id, kind, status) VALUES (1, 'import', 'complete');
INSERT INTO command (trace_id, seq, t_submit_ns, t_done_ns, latency_ns, cc, rc, handle1, auth_kind)
VALUES (1, 1, 0, 7000000, 7000000, 386, 0, 10, 1), (1, 2, 9000000, 16000000, 7000000, 386, 0, 10, 1),
       (1, 3, 18000000, 25000000, 7000000, 386, 0, 10, 1);
INSERT INTO trace (id, kind, status) VALUES (2, 'import', 'complete');"
"$TPMTRACE" predict "$DB" --trace 1 --profile mine --json >"$T/d.json" 2>/dev/null && ok || bad "predict from db"
[ "$(num non_tpm_ms <"$T/d.json")" = "4.000000" ] && ok || bad "non-TPM time $(num non_tpm_ms <"$T/d.json")"
[ "$(num recorded_tpm_ms <"$T/d.json")" = "21.000000" ] && ok || bad "recorded TPM time"
grep -q '"factor_vs_recorded"' "$T/d.json" && ok || bad "factor against the recording"

# Empty trace, missing trace.
"$TPMTRACE" predict "$DB" --trace 2 --profile mine 2>"$T/e" && bad "empty trace accepted" || ok
grep -q "trace 2 is empty" "$T/e" && ok || bad "empty trace message: $(cat "$T/e")"
"$TPMTRACE" predict "$DB" --trace 9 --profile mine 2>"$T/e" && bad "missing trace accepted" || ok
grep -q "no trace 9" "$T/e" && ok || bad "missing trace message: $(cat "$T/e")"

# Corrupt and absurd profiles: file:line, nothing written.
printf 'tpmtrace-profile 1\nname: x\nPCR_Extend password - mean=6.36\nFlushContext none - mean=-3\n' >"$T/neg.profile"
printf 'tpmtrace-profile 1\nname: x\nPCR_Extend password - mean=1e12\n' >"$T/absurd.profile"
printf '\x00\x01garbage' >"$T/bin.profile"
for f in neg absurd; do
	"$TPMTRACE" predict --synthetic pcr-extend:1 --profile "$T/$f.profile" 2>"$T/e" && bad "$f accepted" || ok
	grep -qE "$f.profile:[34]: " "$T/e" && ok || bad "$f message lacks file:line: $(cat "$T/e")"
	"$TPMTRACE" profile import profile "$T/$f.profile" "$T/new-$f.db" --output "$T/out-$f.profile" 2>/dev/null && bad "$f imported" || ok
	[ ! -e "$T/new-$f.db" ] && [ ! -e "$T/out-$f.profile" ] && ok || bad "$f: something was written"
done
"$TPMTRACE" profile import profile "$T/bin.profile" 2>"$T/e" && bad "binary accepted" || ok
grep -q "bin.profile" "$T/e" && ok || bad "binary message: $(cat "$T/e")"
"$TPMTRACE" predict --synthetic pcr-extend:1 --profile slb9670-linux-integrity --policy 'salt=rsa' 2>"$T/e"
[ $? -eq 2 ] && grep -q "offset 5" "$T/e" && ok || bad "bad spec: $(cat "$T/e")"
"$TPMTRACE" predict --synthetic nosuch:1 --profile slb9670-linux-integrity 2>/dev/null
[ $? -eq 2 ] && ok || bad "unknown synthetic command"
"$TPMTRACE" predict --help | grep -q -- '--synthetic' && ok || bad "help"
"$TPMTRACE" profile --help | grep -q 'learn' && ok || bad "profile help"

# learn from the trace: three 7 ms extends.
"$TPMTRACE" profile learn "$DB" --trace 1 --output "$T/l.profile" 2>/dev/null && ok || bad "learn"
grep -qE '^PCR_Extend +password +- +n=3 mean=7 ' "$T/l.profile" && ok || bad "learned entry: $(grep PCR "$T/l.profile")"

finish
