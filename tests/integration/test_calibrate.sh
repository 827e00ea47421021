#!/usr/bin/env bash
# tpmtrace calibrate against a real swtpm: every kind measured, the profile
# reads back and carries its provenance, no handle is left behind (transient,
# loaded and saved sessions, persistent, NV: tpm2_getcap on the same swtpm),
# and the profile predicts a replay of the demo trace (tools/demo-workload 20)
# on that same swtpm within 10% (issue #5). The profile must price every
# command of the trace from a measured entry of the same authorisation kind
# and key variant (only Startup, which cannot be repeated on a started TPM, is
# priced at the fallback).
#
# Noise: this machine has 2 CPUs shared with other jobs, and the trace's TPM
# time is mostly one RSA-2048 CreatePrimary, a CPU-bound prime search in
# swtpm. Measured here, the same key on the same swtpm takes from 34 to 59 ms
# in calibrations half a second apart: the host's speed moves by +-25% over
# about a second. One calibration against replays made a few seconds later
# was therefore off by up to 20-30% in either direction although the model
# was right. So the check is paired: ROUNDS times, a calibration immediately
# followed by replays of the trace, each round's replays predicted with that
# round's profile; the median round's error is checked (a round whose
# calibration or replays a burst of load hit is an outlier either way: in one
# clean-clone run two rounds predicted 91 and 93 ms for replays of 51 and 56 ms
# and moved the summed error to -14%, the median round's to -5%); the summed
# error is printed too. When the test may raise priorities (root), swtpm and tpmtrace run
# at nice -20, so that other jobs' CPU time is not counted either; otherwise
# the figure is printed and the 10% check is reported as not made.
# Then bad input and refusals.
. "$TPMTRACE_TEST_LIB/common.sh"
need swtpm tpm2_getcap sqlite3 python3

# The demo trace, recorded on a spawned swtpm (another seed: its own
# latencies are not what is compared).
"$TPMTRACE" record --spawn-swtpm --db "$T/demo.db" -- "$TPMTRACE_SRC/tools/demo-workload" 20 >/dev/null 2>"$T/rec.err"
expect_eq "demo recorded" "$?" 0

D=$T/tpm
start_swtpm "$D"
TCTI=swtpm:path=$D/s.sock
PRIO=()
if renice -n -20 -p "$SWTPM_PID" >/dev/null 2>&1 && nice -n -20 true 2>/dev/null; then
	PRIO=(nice -n -20)
fi
ROUNDS=12
# Round 1's profile is the one whose entries and provenance are checked.
"${PRIO[@]}" "$TPMTRACE" calibrate --tcti "$TCTI" --iterations 5 -o "$T/cal.profile" --db "$T/prof.db" \
	--name swtpm-here 2>"$T/cal.err"
expect_eq "calibrate: exit status" "$?" 0
cat "$T/cal.err"
"${PRIO[@]}" "$TPMTRACE" replay "$T/demo.db" --trace 1 --target "$TCTI" --allow-destructive --repeat 2 --json >"$T/rep1.json" 2>"$T/rep.err"
expect_eq "round 1: demo replayed twice on the calibrated swtpm" "$?" 0
cp "$T/cal.profile" "$T/cal1.profile"
for r in $(seq 2 $ROUNDS); do
	"${PRIO[@]}" "$TPMTRACE" calibrate --tcti "$TCTI" --iterations 5 --quiet -o "$T/cal$r.profile" &&
		"${PRIO[@]}" "$TPMTRACE" replay "$T/demo.db" --trace 1 --target "$TCTI" --allow-destructive --repeat 2 --json >"$T/rep$r.json" 2>"$T/rep.err"
	expect_eq "round $r: calibrated and replayed" "$?" 0
done
check "profile written 0600" [ "$(stat -c %a "$T/cal.profile")" = 600 ]
"$TPMTRACE" profile show "$T/cal.profile" >/dev/null 2>&1 || "$TPMTRACE" predict --synthetic pcr-extend:1 --profile "$T/cal.profile" >/dev/null 2>&1
expect_eq "the profile reads back" "$?" 0
KINDS=("GetCapability none -" "GetRandom none -" "GetRandom hmac+enc -" "PCR_Read none -"
	"PCR_Extend password -" "PCR_Extend hmac -" "StartAuthSession none salted-ecc"
	"StartAuthSession none unsalted" "ContextSave none -" "ContextLoad none -" "FlushContext none -"
	"CreatePrimary password ecc-p256" "CreatePrimary hmac ecc-p256" "CreatePrimary hmac+enc ecc-p256"
	"CreatePrimary password rsa-2048" "CreatePrimary hmac rsa-2048" "CreatePrimary hmac+enc rsa-2048"
	"ReadPublic none -" "Create password -" "Create hmac -" "Create hmac+enc -"
	"Create password ecc-p256" "Create hmac ecc-p256" "Create hmac+enc ecc-p256"
	"Load password -" "Load hmac -" "Load hmac+enc -" "Unseal password -" "Unseal hmac -"
	"Unseal hmac+enc -" "PolicyPCR none -" "PolicyGetDigest none -" "NV_DefineSpace password -"
	"NV_DefineSpace hmac -" "NV_DefineSpace hmac+enc -" "NV_UndefineSpace password -"
	"NV_UndefineSpace hmac -" "NV_Write password -" "NV_Write hmac -" "NV_Write hmac+enc -"
	"NV_Read password -" "NV_Read hmac -" "NV_Read hmac+enc -" "NV_ReadPublic none -"
	"Sign password -" "Sign hmac -" "Sign hmac+enc -" "Quote password -" "Quote hmac -"
	"Quote hmac+enc -")
for k in "${KINDS[@]}"; do
	set -- $k
	check "entry $k with n=5 and a cold call" \
		grep -Eq "^$1 +${2//+/\\+} +$3 +n=5 mean=[0-9.e-]+ .*# cold \(first call\) [0-9.]+ ms" "$T/cal.profile"
done
check "provenance: measured-by" grep -q '^measured-by: tpmtrace calibrate' "$T/cal.profile"
check "provenance: the target" grep -q "^bus: $TCTI" "$T/cal.profile"
check "provenance: host and date" grep -q "^source: measured by tpmtrace calibrate on host $(hostname)" "$T/cal.profile"
check "provenance: the TPM's vendor (swtpm: IBM)" grep -q '^vendor: IBM' "$T/cal.profile"
expect_eq "stored in the database" "$(sqlite3 "$T/prof.db" "SELECT count(*) FROM profile_entry e JOIN profile p ON p.id = e.profile_id WHERE p.name='swtpm-here'" 2>/dev/null || sqlite3 "$T/prof.db" "SELECT count(*) FROM profile_entry")" "${#KINDS[@]}"

# No handle left behind on the same swtpm, by calibrate and the replays.
export TPM2TOOLS_TCTI=$TCTI
for h in handles-transient handles-loaded-session handles-saved-session handles-persistent handles-nv-index; do
	out=$(tpm2_getcap "$h" 2>&1)
	expect_eq "after calibrate and replay: $h empty" "$?:$out" "0:"
done

for r in $(seq $ROUNDS); do
	"$TPMTRACE" predict "$T/demo.db" --trace 1 --profile "$T/cal$r.profile" --policy as-recorded --json \
		>"$T/pred$r.json" 2>"$T/pred$r.err"
	expect_eq "round $r: predict with the calibrated profile" "$?" 0
	check "round $r: every command of the demo trace but Startup priced from a measured entry of its kind" \
		[ "$(grep -vc 'lacks Startup (none)' "$T/pred$r.err")" -eq 0 ]
done
cat "$T/pred1.err"
read -r pred rep med rounds < <(python3 -c "
import json, sys
T, n = sys.argv[1], int(sys.argv[2])
P, R = [], []
for r in range(1, n + 1):
    P.append(json.load(open('%s/pred%d.json' % (T, r)))['policies'][0]['tpm_ms'])
    runs = json.load(open('%s/rep%d.json' % (T, r)))['runs']
    R.append(sum(x['tpm_ns'] for x in runs) / len(runs) / 1e6)
E = sorted(100 * (b - a) / b for a, b in zip(P, R))
med = (E[(n - 1) // 2] + E[n // 2]) / 2
print(sum(P), sum(R), '%+.1f' % med, ' '.join('%.1f/%.1f' % pr for pr in zip(P, R)))" "$T" "$ROUNDS")
err=$(awk -v a="$pred" -v b="$rep" 'BEGIN { printf "%+.1f", 100 * (b - a) / b }')
echo "demo trace on the calibrated swtpm, predicted/replayed ms per round: $rounds"
printf 'demo trace on the calibrated swtpm, %d rounds: median error of a round %s%%; summed: predicted %.2f ms, replayed %.2f ms, %s%%\n' \
	"$ROUNDS" "$med" "$pred" "$rep" "$err"
if [ ${#PRIO[@]} -gt 0 ]; then
	check "prediction within 10% of the replayed TPM time, median round (issue #5; $med%)" \
		awk -v e="$med" 'BEGIN { exit !(e >= -10 && e <= 10) }'
else
	echo "NOT CHECKED: the 10% target (cannot raise swtpm's priority; the figure depends on the machine's load)"
	check "the calibrated profile priced the demo trace and the replays measured it" \
		awk -v a="$pred" -v b="$rep" 'BEGIN { exit !(a > 0 && b > 0) }'
fi

# ---- refusals and bad input -----------------------------------------------------
"$TPMTRACE" calibrate --tcti device:/dev/nonexistent-tpm -o "$T/hw.profile" 2>"$T/hw.err"
expect_eq "calibrate on a missing device: exit 1" "$?" 1
check "missing device: nothing written" [ ! -e "$T/hw.profile" ]
check "missing device: the target is named" grep -q "nonexistent-tpm" "$T/hw.err"
"$TPMTRACE" calibrate --iterations 0 2>/dev/null
expect_eq "--iterations 0: usage error" "$?" 2
"$TPMTRACE" calibrate --replace 2>/dev/null
expect_eq "--replace without --db: usage error" "$?" 2
# Spawned swtpm (the default), stdout.
"$TPMTRACE" calibrate --iterations 2 --warmup 0 --quiet >"$T/spawn.profile" 2>"$T/spawn.err"
expect_eq "calibrate --tcti spawn (default) to stdout" "$?" 0
check "spawned: every kind" [ "$(grep -c ' n=2 mean=' "$T/spawn.profile")" -eq "${#KINDS[@]}" ]
finish
