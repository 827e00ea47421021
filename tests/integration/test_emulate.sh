#!/usr/bin/env bash
# Latency injection, asserted as the mechanism that makes the emulated TPM
# answer with the profile's latencies (no wall-clock comparison: tests/
# README.md). A 2,000-command mixed trace (PCR_Extend, GetRandom,
# GetCapability, PCR_Read from tpmclient) is recorded through the proxy, then
# replayed under every preset against a private swtpm with --emulate of a
# profile, and `tpmtrace predict` prices the same trace, policy and profile.
# For each run, from the stored rows alone (emucheck below):
#   - every response was held until its drawn latency had passed, less the
#     lateness of earlier responses that the emulator carries over (never
#     before: the replay of the emulator's own bookkeeping, row by row, finds
#     no response released early), and the lateness left at the end equals
#     the emulator's own account (emulate_owed_ns);
#   - the draws are the profile's prices: every command priced from an entry
#     of its kind (no approximation, no fallback), and per command code the
#     replay sent as many commands as predict expanded, their draws adding up
#     to what predict priced (to the nanosecond a command).
# The profile has no spread (stdev), so a draw is its entry's mean. How close
# the replayed TPM time comes to predict on a loaded machine is printed here
# and measured by `tools/bench emulate`. An emulation that releases responses
# early (TPMTRACE_FAULT_EMULATE_EARLY, faultproof/emulate_releases_early)
# must fail this test.
#
# The profile (slb9670-scaled-16.profile, beside this test; tools/bench emulate
# uses it too) is the shipped SLB9670 one scaled down 16 times (PCR_Extend 0.40 /
# 1.52 ms, ContextLoad 2.31, StartAuthSession 5.30, CreatePrimary 14.4 ms), with
# 0.4 ms for the commands it lacks.
#
# The trace is recorded over TCP so that its client has no pid: predict treats
# commands of clients with a pid as userspace (sent as recorded by the kernel
# policies), while replay sends every command as the kernel's; a client without
# a pid is "unknown" to both, so both expand the same sequence.
#
# Then bad input: a corrupt profile, a profile with a negative latency, a
# missing one, given to record and replay --emulate: a message naming the
# file:line, exit status 1, nothing written (no database, no new trace).
#   EMULATE_POLICIES="as-recorded ..." replays under those presets only.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3

PROF=$TPMTRACE_SRC/tests/integration/slb9670-scaled-16.profile

# emucheck DB TRACE [PREDICT_JSON POLICY]: replays the emulator's bookkeeping
# over the stored rows of TRACE (seq order), each drawn latency being the
# profile's mean for the row's command and authorization (transport-ms 0);
# with a prediction (a replay), its own rows and RETRY answers held apart.
# Prints key=value facts: rows, unpriced (no entry), unflagged (flag 4 not
# set), early (released before due - carried lateness), owed (lateness left,
# ns), drawn_ms, held_ms; with a prediction: cc_counts (command codes whose
# count differs from predict's), drawn_off_ns (largest difference between the
# draws and predict's price of a command code, ns) and pred_ms.
emucheck() {
	python3 - "$PROF" "$@" <<'PY'
import json, sqlite3, sys
prof, db, trace = sys.argv[1:4]
price = {}
for line in open(prof):
    w = line.split()
    if len(w) >= 4 and w[3].startswith('mean='):
        price[(w[0], w[1])] = int(float(w[3][5:]) * 1e6 + 0.5)  # as emulate_latency_ns
auths = ['none', 'password', 'hmac', 'hmac+enc', 'policy', 'policy+enc']
rows = sqlite3.connect(db).execute(
    'SELECT n.name, c.auth_kind, c.t_submit_ns, c.t_done_ns, c.flags, c.rc FROM command c'
    ' JOIN tpm_cc n ON n.cc = c.cc WHERE c.trace_id = ? ORDER BY c.seq', (trace,)).fetchall()
f = dict(rows=len(rows), unpriced=0, unflagged=0, early=0)
debt = drawn_sum = held_sum = 0
by_cc = {}
replay = len(sys.argv) > 5
for name, auth, t0, t1, flags, rc in rows:
    d = price.get((name, auths[auth]), price.get((name, '*')))
    if d is None:
        f['unpriced'] += 1
        continue
    f['unflagged'] += not flags & 4
    # a replay's own command (flag 32) and an answer RETRY, YIELDED or
    # TESTING are held apart: no credit, their lateness not owed
    apart = replay and (flags & 32 or rc in (0x922, 0x908, 0x90A))
    due = t0 + d
    credit = 0 if apart else min(debt, d)
    if t1 < due - credit:
        f['early'] += 1
    if apart:
        pass
    elif t1 >= due:
        debt += t1 - due
    else:
        debt -= min(due - t1, debt)
    drawn_sum += d
    held_sum += t1 - t0
    n, s = by_cc.get(name, (0, 0))
    by_cc[name] = (n + 1, s + d)
f['owed'] = debt
f['drawn_ms'] = '%.3f' % (drawn_sum / 1e6)
f['held_ms'] = '%.3f' % (held_sum / 1e6)
if len(sys.argv) > 5:
    pol = [p for p in json.load(open(sys.argv[4]))['policies'] if p['name'] == sys.argv[5]][0]
    names = set(by_cc) | set(pol['by_command'])
    f['cc_counts'] = sum(by_cc.get(c, (0, 0))[0] != pol['by_command'].get(c, 0) for c in names)
    f['drawn_off_ns'] = max(abs(by_cc.get(c, (0, 0))[1] - round(pol['tpm_ms_by_command'].get(c, 0) * 1e6))
                            for c in names)
    f['pred_ms'] = '%.3f' % pol['tpm_ms']
print(' '.join('%s=%s' % kv for kv in f.items()))
PY
}
fact() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }

# ---- a 2,000-command mixed trace, recorded over TCP -------------------------
db=$T/mix.db
"$TPMTRACE" record --spawn-swtpm --no-startup --db "$db" --name mix --listen "tcp:127.0.0.1:0" --quiet -- bash -c "
set -e
c() { '$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --quiet \"\$@\" >/dev/null; }
c --cmd startup
for r in \$(seq 50); do
	c --cmd pcrextend --count 36
	c --cmd getrandom --count 2
	c --cmd getcap --count 1
	c --cmd pcrread --count 1
done" 2>"$T/rec.err"
expect_eq "mixed trace recorded" "$?" 0
expect_eq "2,001 commands (Startup + 2,000)" "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=1 AND rc=0")" 2001

# ---- each preset: the replay's holds and draws against predict -----------------
"$TPMTRACE" predict "$db" --trace 1 --profile "$PROF" --policy all --json >"$T/pred.json" 2>"$T/pred.err"
expect_eq "predict" "$?" 0
check "predict: the profile covers every command (no fallback warning)" [ ! -s "$T/pred.err" ]
jq1() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['runs'][0]; print(r[sys.argv[2]])" "$@"; }
seed=1
for p in ${EMULATE_POLICIES:-as-recorded password linux-6.10 linux-6.12 linux-6.12-no-pcr-integrity}; do
	"$TPMTRACE" replay "$db" --trace 1 --policy "$p" --emulate "$PROF" --emulate-seed $seed --json >"$T/r-$p.json" 2>"$T/r-$p.err"
	expect_eq "$p: replay with --emulate" "$?" 0
	seed=$((seed + 1))
	id=$(jq1 "$T/r-$p.json" trace)
	f=$(emucheck "$db" "$id" "$T/pred.json" "$p")
	echo "$p: $f"
	printf '%-28s predicted %10s ms  drawn %10s ms  held (stored) %10s ms  replayed %10.1f ms  (figures: tools/bench emulate)\n' \
		"$p" "$(fact pred_ms "$f")" "$(fact drawn_ms "$f")" "$(fact held_ms "$f")" \
		"$(awk -v n="$(jq1 "$T/r-$p.json" tpm_ns)" 'BEGIN { print n / 1e6 }')"
	expect_eq "$p: every response held at least its drawn latency less the lateness carried over (released early)" \
		"$(fact early "$f")" 0
	expect_eq "$p: the lateness not made up, replayed from the rows, is the emulator's account" \
		"$(fact owed "$f")" "$(jq1 "$T/r-$p.json" emulate_owed_ns)"
	expect_eq "$p: every stored row priced by the profile" "$(fact unpriced "$f")" 0
	expect_eq "$p: the emulator priced every command from an entry of its kind (approximated, fallback)" \
		"$(jq1 "$T/r-$p.json" emulate_approximated) $(jq1 "$T/r-$p.json" emulate_fallback)" "0 0"
	expect_eq "$p: per command code, as many commands as predict expanded (codes that differ)" \
		"$(fact cc_counts "$f")" 0
	check "$p: per command code, the draws add up to predict's price ($(fact drawn_off_ns "$f") ns off at most)" \
		[ "$(fact drawn_off_ns "$f")" -le 100 ]
	expect_eq "$p: the run names the profile it emulated" "$(sqlite3 "$db" "SELECT emulated FROM trace WHERE id=$id")" slb9670-scaled-16
	expect_eq "$p: every stored latency is flagged emulated" "$(fact unflagged "$f")" 0
	expect_eq "$p: the replay-stop event says the lateness not made up" \
		"$(sqlite3 "$db" "SELECT substr(detail, instr(detail, ' owed_ns=') + 9) FROM event
			WHERE trace_id=$id AND kind='replay-stop'")" "$(fact owed "$f")"
	expect_eq "$p: the seed is stored" "$(sqlite3 "$db" "SELECT count(*) FROM event WHERE trace_id=$id AND kind='emulate' AND detail LIKE '%seed=$((seed - 1))'")" 1
done

# ---- record --emulate: the proxy holds the responses ----------------------------
# 50 extends at 20 ms each: long beside swtpm's own answer even on a loaded
# machine, so that a response released early (the fault halves the hold) is
# seen as early, not hidden by a late answer.
PROF=$T/record.profile
printf 'tpmtrace-profile 1\nname: slb9670-scaled-16\ntransport-ms: 0\nPCR_Extend password - mean=20\nStartup none - mean=0.4\n' >"$PROF"
db2=$T/rec.db
record_client "$db2" pcrextend 50 --emulate "$PROF" --emulate-seed 7 2>"$T/rec2.err"
expect_eq "record --emulate" "$?" 0
expect_eq "record --emulate: trace.emulated" "$(sqlite3 "$db2" "SELECT emulated FROM trace WHERE id=1")" slb9670-scaled-16
expect_eq "record --emulate: 50 extends flagged emulated" \
	"$(sqlite3 "$db2" "SELECT count(*) FROM command WHERE trace_id=1 AND cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND flags & 4")" 50
f=$(emucheck "$db2" 1)
echo "record --emulate: $f"
owed=$(sed -n 's/.*ms in all, \([0-9.]*\) ms not made up.*/\1/p' "$T/rec2.err")
check "record --emulate: reports its lateness (${owed:-none} ms not made up)" [ -n "$owed" ]
expect_eq "record --emulate: every response held at least its drawn latency less the lateness carried over (released early)" \
	"$(fact early "$f")" 0
expect_eq "record --emulate: every row priced and flagged (unpriced, unflagged)" \
	"$(fact unpriced "$f") $(fact unflagged "$f")" "0 0"
expect_eq "record --emulate: the lateness not made up, replayed from the rows, is the one reported (ms)" \
	"$(awk -v n="$(fact owed "$f")" 'BEGIN { printf "%.3f", n / 1e6 }')" "$owed"

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
