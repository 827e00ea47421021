#!/usr/bin/env bash
# Latency injection checked against prediction: a 2,000-command mixed trace
# (PCR_Extend, GetRandom, GetCapability, PCR_Read from tpmclient) is recorded
# through the proxy, then replayed under every preset against a private swtpm
# with --emulate of a profile; the replay's measured TPM time must be within 3%
# of `tpmtrace predict` for the same trace, policy and profile.
#
# The profile is the shipped SLB9670 one scaled down 16 times (PCR_Extend 0.40 /
# 1.52 ms, ContextLoad 2.31, StartAuthSession 5.30, CreatePrimary 14.4 ms), with
# 0.4 ms for the commands it lacks: slow enough that swtpm's own time (20-500 us)
# is covered by the emulated latency, fast enough that the five replays (about
# 16,000 commands, 18 s of them under linux-6.10) stay within ~30 s.
#
# The trace is recorded over TCP so that its client has no pid: predict treats
# commands of clients with a pid as userspace (sent as recorded by the kernel
# policies), while replay sends every command as the kernel's; a client without
# a pid is "unknown" to both, so both expand the same sequence.
#
# Then bad input: a corrupt profile, a profile with a negative latency, a
# missing one, given to record and replay --emulate: a message naming the
# file:line, exit status 1, nothing written (no database, no new trace).
. "$TPMTRACE_TEST_LIB/common.sh"
need swtpm sqlite3 python3

PROF=$T/scaled.profile
cat >"$PROF" <<'EOF'
tpmtrace-profile 1
# The shipped slb9670-linux-integrity profile with every figure divided by 16
# (tests/integration/test_emulate.sh), plus 0.4 ms for what it lacks.
name: slb9670-scaled-16
chip: SLB9670 (figures / 16)
source: model/profiles/slb9670-linux-integrity.profile, every figure divided by 16
transport-ms: 0
PCR_Extend         password  -           mean=0.4
PCR_Extend         hmac      -           mean=1.52
ContextLoad        none      -           mean=2.31
StartAuthSession   none      salted-ecc  mean=5.3
FlushContext       none      -           mean=0.4
CreatePrimary      password  ecc-p256    mean=14.4
GetRandom          *         -           mean=0.4  n=100 stdev=0.05
GetCapability      none      -           mean=0.4
PCR_Read           none      -           mean=0.4
Startup            none      -           mean=0.4
ContextSave        none      -           mean=0.4
EOF

# ---- a 2,000-command mixed trace, recorded over TCP -------------------------
port=$((20000 + RANDOM % 20000))
db=$T/mix.db
"$TPMTRACE" record --spawn-swtpm --no-startup --db "$db" --name mix --listen "tcp:127.0.0.1:$port" --quiet -- bash -c "
set -e
c() { '$TPMCLIENT' --connect tcp:127.0.0.1:$port --quiet \"\$@\" >/dev/null; }
c --cmd startup
for r in \$(seq 50); do
	c --cmd pcrextend --count 36
	c --cmd getrandom --count 2
	c --cmd getcap --count 1
	c --cmd pcrread --count 1
done" 2>"$T/rec.err"
expect_eq "mixed trace recorded" "$?" 0
expect_eq "2,001 commands (Startup + 2,000)" "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=1 AND rc=0")" 2001

# ---- predicted vs replayed TPM time per preset --------------------------------
"$TPMTRACE" predict "$db" --trace 1 --profile "$PROF" --policy all --json >"$T/pred.json" 2>"$T/pred.err"
expect_eq "predict" "$?" 0
check "predict: the profile covers every command (no fallback warning)" [ ! -s "$T/pred.err" ]
pred() { python3 -c "import json,sys; print([p for p in json.load(open(sys.argv[1]))['policies'] if p['name']==sys.argv[2]][0]['tpm_ms'])" "$T/pred.json" "$1"; }
seed=1
for p in as-recorded password linux-6.10 linux-6.12 linux-6.12-no-pcr-integrity; do
	"$TPMTRACE" replay "$db" --trace 1 --policy "$p" --emulate "$PROF" --emulate-seed $seed --json >"$T/r-$p.json" 2>"$T/r-$p.err"
	expect_eq "$p: replay with --emulate" "$?" 0
	seed=$((seed + 1))
	rep=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['runs'][0]['tpm_ns'] / 1e6)" "$T/r-$p.json")
	id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['runs'][0]['trace'])" "$T/r-$p.json")
	want=$(pred "$p")
	printf '%-28s predicted %10.1f ms  replayed %10.1f ms  (%+.2f%%)\n' "$p" "$want" "$rep" \
		"$(awk -v a="$want" -v b="$rep" 'BEGIN { print 100 * (b - a) / a }')"
	check "$p: replayed TPM time within 3% of predict" \
		awk -v a="$want" -v b="$rep" 'BEGIN { d = (b - a) / a; exit !(d > -0.03 && d < 0.03) }'
	expect_eq "$p: the run names the profile it emulated" "$(sqlite3 "$db" "SELECT emulated FROM trace WHERE id=$id")" slb9670-scaled-16
	expect_eq "$p: every stored latency is flagged emulated" \
		"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$id AND (flags & 4) = 0")" 0
	expect_eq "$p: the seed is stored" "$(sqlite3 "$db" "SELECT count(*) FROM event WHERE trace_id=$id AND kind='emulate' AND detail LIKE '%seed=$((seed - 1))'")" 1
done
# Per command kind, the held latencies follow the profile. Lateness of one
# response is made up by shorter holds of the following ones, whatever their
# kind, so on a loaded machine (or under ASan) a kind's mean can move by a few
# percent while the run's total stays within the 3% checked above.
id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['runs'][0]['trace'])" "$T/r-linux-6.10.json")
m=$(sqlite3 "$db" "SELECT avg(latency_ns) / 1e6 FROM command WHERE trace_id=$id AND cc=0x176")
check "linux-6.10: mean StartAuthSession $m ms within 10% of the profile's 5.3 ms" \
	awk -v m="$m" 'BEGIN { exit !(m > 0.90 * 5.3 && m < 1.10 * 5.3) }'

# ---- record --emulate: the proxy holds the responses ----------------------------
db2=$T/rec.db
"$TPMTRACE" record --spawn-swtpm --no-startup --db "$db2" --emulate "$PROF" --emulate-seed 7 -- bash -c \
	"'$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd startup --quiet >/dev/null && '$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd pcrextend --count 50 --quiet >/dev/null" 2>"$T/rec2.err"
expect_eq "record --emulate" "$?" 0
expect_eq "record --emulate: trace.emulated" "$(sqlite3 "$db2" "SELECT emulated FROM trace WHERE id=1")" slb9670-scaled-16
expect_eq "record --emulate: 50 extends flagged emulated" \
	"$(sqlite3 "$db2" "SELECT count(*) FROM command WHERE trace_id=1 AND cc=0x182 AND flags & 4")" 50
# Startup and the extends are all 0.4 ms in the profile: their mean stays there
# (swtpm's slower Startup is made up by the extends that follow), above by no
# more than the lateness the recorder reports as not made up (a response that
# came late near the end, on a loaded machine or under ASan).
mean=$(sqlite3 "$db2" "SELECT avg(latency_ns) / 1e6 FROM command WHERE trace_id=1")
n2=$(sqlite3 "$db2" "SELECT count(*) FROM command WHERE trace_id=1")
owed=$(sed -n 's/.*ms in all, \([0-9.]*\) ms not made up.*/\1/p' "$T/rec2.err")
check "record --emulate: reports its lateness (${owed:-none} ms not made up)" [ -n "$owed" ]
check "record --emulate: mean latency near 0.4 ms ($mean; ${owed:-?} ms owed over $n2 commands)" \
	awk -v m="$mean" -v o="${owed:-0}" -v n="$n2" 'BEGIN { exit !(m > 0.39 && m < 0.42 + o / n) }'

# ---- bad input ------------------------------------------------------------------
printf 'tpmtrace-profile 1\nname: bad\nPCR_Extend password - mean=6.36\nPCR_Extend  hmac - mean=oops\n' >"$T/corrupt.profile"
printf 'tpmtrace-profile 1\nname: neg\nPCR_Extend password - mean=-1\n' >"$T/negative.profile"
n_before=$(sqlite3 "$db" "SELECT count(*) FROM trace")
for f in corrupt:4 negative:3; do
	name=${f%%:*} line=${f##*:}
	"$TPMTRACE" replay "$db" --trace 1 --emulate "$T/$name.profile" >/dev/null 2>"$T/bad.err"
	expect_eq "replay --emulate $name profile: exit 1" "$?" 1
	check "replay --emulate $name profile: message names $name.profile:$line" grep -q "$name.profile:$line" "$T/bad.err"
	expect_eq "replay --emulate $name profile: no trace added" "$(sqlite3 "$db" "SELECT count(*) FROM trace")" "$n_before"
	"$TPMTRACE" record --spawn-swtpm --db "$T/new-$name.db" --emulate "$T/$name.profile" -- true 2>"$T/bad.err"
	expect_eq "record --emulate $name profile: exit 1" "$?" 1
	check "record --emulate $name profile: message names $name.profile:$line" grep -q "$name.profile:$line" "$T/bad.err"
	check "record --emulate $name profile: no database written" [ ! -e "$T/new-$name.db" ]
done
"$TPMTRACE" replay "$db" --trace 1 --emulate "$T/missing.profile" >/dev/null 2>"$T/bad.err"
expect_eq "replay --emulate missing file: exit 1" "$?" 1
check "replay --emulate missing file: named" grep -q "missing.profile" "$T/bad.err"
"$TPMTRACE" replay "$db" --trace 1 --emulate-seed 3 >/dev/null 2>&1
expect_eq "--emulate-seed without --emulate: usage error" "$?" 2
"$TPMTRACE" record --spawn-swtpm --db "$T/x.db" --emulate "$PROF" --emulate-seed -4 -- true >/dev/null 2>&1
expect_eq "--emulate-seed -4: usage error" "$?" 2
check "usage error: no database written" [ ! -e "$T/x.db" ]
finish
