#!/usr/bin/env bash
# tpmtrace advise, pattern outliers, on traces recorded through the proxy with
# real clients in front of a real swtpm:
#  - a stall: swtpm stopped (SIGSTOP) for 400 ms amid 30,000 PCR extends of
#    tpmclient: the one command the stop held (by its recorded latency) is
#    found, and the finding is the rule computed here from the stored
#    latencies (a loaded machine's scheduler may hold others past it: they
#    count, none is assumed away): its count, and its saving, their time
#    above their kinds' medians; --prove says the finding unproved (a replay
#    cannot have the recording TPM's stall) and exits 0; the text gives the
#    count;
#  - the TPM's record of dictionary-attack use: swtpm answers the first
#    authorization of a DA-protected object after Startup TPM_RC_RETRY (it
#    writes that DA was used to NV first), once per start-up cycle: a trace
#    of tpm2_pcrread, tpm2_createprimary and two tpm2_create holds that
#    retry (the first Create's) and has no outliers finding.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3 tpm2_pcrread tpm2_createprimary tpm2_create tpm2_startup

cd "$T"
field() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == sys.argv[2]]
print(f[0][sys.argv[3]] if f else "-")' "$@"
}

# ---- a stall ------------------------------------------------------------
# tpmclient sends one command at a time; once the trace holds 200 extends
# swtpm is stopped for 400 ms: the command in flight, or the next one sent,
# waits for it; every other is answered at once.
start_swtpm "$T/sw"
tcti=swtpm:path=$T/sw/s.sock
tpm2_startup -c -T "$tcti"
db=$T/stall.db
"$TPMTRACE" record --backend "$tcti" --db "$db" --quiet -- sh -c \
	"'$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd pcrextend --count 30000 --quiet >/dev/null" \
	2>"$T/rec.err" &
rp=$!
PIDS+=($rp)
for _ in $(seq 600); do
	# (not before the recorder made the file: sqlite3 would make an empty one)
	[ -s "$db" ] && [ "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend')" 2>/dev/null)" -ge 200 ] 2>/dev/null && break
	sleep 0.05
done
kill -STOP "$SWTPM_PID"
sleep 0.4
kill -CONT "$SWTPM_PID"
check "the client was still running when swtpm was stopped" kill -0 "$rp"
wait "$rp"
expect_eq "stall workload recorded" "$?" 0
# (a writer that cannot keep up on a loaded machine drops rows and counts
# them: the TPM path is never blocked)
expect_eq "30,000 extends recorded, or counted dropped" \
	"$(sqlite3 "$db" "SELECT (SELECT count(*) FROM command WHERE trace_id=1 AND cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend'))
		+ (SELECT dropped FROM trace WHERE id=1)")" 30000
# the stopped swtpm held one command: its latency, and the others' of its code
slow=$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=1 AND latency_ns > 300000000")
expect_eq "one command held by the stop (sqlite: latency > 300 ms)" "$slow" 1
read -r sseq scc <<<"$(sqlite3 -separator ' ' "$db" \
	"SELECT seq, cc FROM command WHERE trace_id=1 AND latency_ns > 300000000")"
"$TPMTRACE" advise "$db" --json >"$T/stall.json"
expect_eq "advise --json exits 0" "$?" 0
# The stall is the one command the test made slow; on a loaded machine the
# scheduler can hold others past the rule too (4 times its kind's p95 and
# 5 ms over its median), and those are findings as well. So the rule is
# computed here, independently, from the stored latencies (exact quantiles;
# advise's 2% bins put a command within 3% of a threshold either way): the
# count lies between the commands surely past it and those possibly past it,
# the held command is among them, and the saving is their time above their
# kinds' medians.
sqlite3 -separator ' ' "$db" "SELECT seq, cc, latency_ns FROM command
	WHERE trace_id=1 AND flags & 32 = 0 AND latency_ns IS NOT NULL" >"$T/lat.txt"
python3 - "$T/lat.txt" "$sseq" >"$T/rule.txt" <<'PY'
import sys
rows = [tuple(int(x) for x in l.split()) for l in open(sys.argv[1])]
by = {}
for seq, cc, ns in rows:
    by.setdefault(cc, []).append(ns / 1e6)
q = {}
for cc, v in by.items():
    v.sort()
    n = len(v)
    q[cc] = (n, v[(n + 1) // 2 - 1], v[(n * 95 + 99) // 100 - 1])
sure = possible = 0
sure_ms = possible_ms = 0.0
held = 0
for seq, cc, ns in rows:
    n, p50, p95 = q[cc]
    ms = ns / 1e6
    if n < 5:
        continue
    if ms > 4 * p95 * 1.03 and ms > p50 * 1.03 + 5:
        sure += 1
        sure_ms += ms - p50 * 1.03
        held += seq == int(sys.argv[2])
    if ms > 4 * p95 * 0.97 and ms > p50 * 0.97 + 5:
        possible += 1
        possible_ms += ms - p50 * 0.97
print(sure, possible, held, f"{sure_ms:.3f}", f"{possible_ms:.3f}")
PY
read -r nsure nposs held sure_ms poss_ms <"$T/rule.txt"
echo "the rule, from sqlite: $nsure sure, $nposs possible (held command: $held)"
check "the held command is surely past the rule (sqlite)" test "$held" = 1
got=$(field "$T/stall.json" outliers count)
check "outliers: the count is the rule's ($nsure..$nposs; got $got)" \
	test "$got" -ge "$nsure" -a "$got" -le "$nposs"
check "outliers: the held command's seq lies within the finding's" python3 -c 'import sys
a, b, s = (int(x) for x in sys.argv[1:])
assert a <= s <= b, (a, b, s)' "$(field "$T/stall.json" outliers first_seq)" \
	"$(field "$T/stall.json" outliers last_seq)" "$sseq"
# The saving: the time above their code's median of those it found (the held
# command's 400 ms among them), within advise's 2% bins.
check "outliers: saves their time above their codes' medians ($sure_ms..$poss_ms ms)" \
	python3 -c 'import sys
got, lo, hi = (float(x) for x in sys.argv[1:])
assert lo * 0.98 <= got <= hi * 1.02, (got, lo, hi)' \
	"$(field "$T/stall.json" outliers saving_ms)" "$sure_ms" "$poss_ms"
for k in repeated-primary session-per-command user-interleave policy-rebuilt hwrng-session context-churn; do
	expect_eq "stall trace: no $k" "$(field "$T/stall.json" "$k" count)" "-"
done
"$TPMTRACE" advise "$db" | tr -s ' \n' '  ' >"$T/stall.txt"
check "the text gives the occurrences ($got)" grep -qE "outliers .* $got occurrences?, $got commands" "$T/stall.txt"
"$TPMTRACE" advise "$db" --profile slb9670-linux-integrity --prove --json >"$T/prove.json" 2>"$T/prove.err"
expect_eq "--prove: exit status 0 (outliers is said unproved, not failed)" "$?" 0
check "--prove: outliers unproved, with the reason" python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "outliers"][0]
assert f["proof"] is None and "replay" in f["unproved"], f' "$T/prove.json"

# ---- the TPM's record of dictionary-attack use --------------------------
start_swtpm "$T/sw2"
tcti=swtpm:path=$T/sw2/s.sock
tpm2_startup -c -T "$tcti"
cat >"$T/da.sh" <<'WORKLOAD'
set -e
for i in 1 2 3 4 5 6; do tpm2_pcrread sha256:0 >/dev/null; done
tpm2_createprimary -Q -C o -c p.ctx
tpm2_create -Q -C p.ctx -u k.pub -r k.priv
tpm2_create -Q -C p.ctx -u k2.pub -r k2.priv
WORKLOAD
db=$T/da.db
"$TPMTRACE" record --backend "$tcti" --db "$db" --quiet -- sh "$T/da.sh" 2>"$T/rec2.err"
expect_eq "DA workload recorded" "$?" 0
n=$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=1 AND rc=0x922")
if [ "$n" = 0 ]; then
	# a libtpms that answers the first DA-protected authorization at once
	echo "note: this swtpm answers no TPM_RC_RETRY to the first authorization: only the absence is checked"
else
	expect_eq "one TPM_RC_RETRY, to the first Create (sqlite)" \
		"$(sqlite3 "$db" "SELECT count(*) || ',' || min(cc) FROM command WHERE trace_id=1 AND rc=0x922")" "1,339"
	expect_eq "the retried Create sent again at once and answered success (sqlite)" \
		"$(sqlite3 "$db" "SELECT b.cc || ',' || b.rc FROM command a JOIN command b ON b.trace_id = a.trace_id
			AND b.seq = (SELECT min(seq) FROM command WHERE trace_id = 1 AND seq > a.seq)
			WHERE a.trace_id = 1 AND a.rc = 0x922")" "339,0"
fi
"$TPMTRACE" advise "$db" --json >"$T/da.json"
expect_eq "DA trace: advise exits 0" "$?" 0
expect_eq "DA trace: no outliers finding (the TPM's once-per-cycle retry)" \
	"$(field "$T/da.json" outliers count)" "-"

finish
