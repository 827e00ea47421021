#!/usr/bin/env bash
# advise on the kernel's sessions: a recording of PCR extends and a GetRandom
# replayed under linux-6.10 (a session per command) has as many sessions as
# strip finds set-ups, those linux-6.12 would still make kept; with --prove
# the source replayed under linux-6.10 and with reuse=lazy gives a saving
# within 5% of the predicted one. user-interleave and hwrng-session: the same
# traffic with its clients named as `tpmtrace attribute` names them replayed
# under linux-6.12: the kernel's session re-created after each of the two user
# commands, the hwrng read ending it once; both proved within 5%. None of
# them in the recording itself or its password replay.
. "$(dirname "$0")/../lib/common.sh"
. "$TPMTRACE_TEST_LIB/advise.sh"
need swtpm sqlite3 python3 tpm2_createprimary tpm2_unseal tpm2_pcrread tpm2_getcap
cd "$T" # the tools write their context files here

# ---- the kernel's sessions: tpmclient traffic replayed under kernel presets ----
db=$T/k.db
"$TPMTRACE" record --spawn-swtpm --db "$db" --payloads redacted --quiet -- bash -c \
	"$(c --cmd pcrextend --count 10) && tpm2_pcrread sha256:0 >/dev/null && $(c --cmd pcrextend --count 10) &&
	 $(c --cmd getrandom --count 1) && $(c --cmd pcrextend --count 10) && tpm2_pcrread sha256:1 >/dev/null &&
	 $(c --cmd pcrextend --count 10)" 2>"$T/k.err"
expect_eq "recorded extends, a GetRandom and two user-space reads" "$?" 0
# Before naming the kernel: every command the kernel's (docs/policies.md, Origins).
"$TPMTRACE" replay "$db" --trace 1 --policy linux-6.10 --json >"$T/r610.json" 2>"$T/r610.err"
expect_eq "replay linux-6.10" "$?" 0
r610=$(json_get "$T/r610.json" runs.0.trace)
"$TPMTRACE" strip "$db" --trace "$r610" --json >"$T/s610.json"
expect_eq "strip of the linux-6.10 replay" "$?" 0
advise_json "$db" --trace "$r610" >"$T/a610.json"
setup=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["setup"] // 3, d["setup"] + d["ends"])' "$T/s610.json")
expect_eq "session-per-command: one session per extend and GetRandom, set-ups and ends as strip finds" \
	"$(field "$T/a610.json" session-per-command count) $(field "$T/a610.json" session-per-command commands)" "$setup"
# What goes is what Linux 6.12 does not send: every set-up but the first and
# the one after each GetRandom (whose flush stays: lazy flush ends the session
# there), and the GetRandom session's own set-up.
ngr=$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=1 AND cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom')")
expect_eq "session-per-command: all but the set-ups and flushes linux-6.12 keeps go" \
	"$(field "$T/a610.json" session-per-command removed)" \
	"$(($(field "$T/a610.json" session-per-command commands) - 3 - ngr * 4))"
expect_eq "session-per-command: the kernel's change" "$(field "$T/a610.json" session-per-command who)" kernel
check "the text carries the JSON's numbers (linux-6.10 replay)" text_matches_json "$db" --trace "$r610" --profile "$PROF"
# ---- --prove: the linux-6.10 replay's finding, replayed with reuse=lazy ----
# The source replayed under linux-6.10 and under the changed policy on swtpm
# emulating a profile (the SLB9670 scaled down 16 times, as test_emulate);
# the replayed saving within 5% of the predicted one, printed side by side.
"$TPMTRACE" advise "$db" --trace "$r610" --profile "$EPROF" --prove --json >"$T/prove.json" 2>"$T/prove.err"
expect_eq "advise --prove exit status" "$?" 0
spc_check() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == "session-per-command"][0]
p = f["proof"]
assert p and p["before_policy"] == "linux-6.10" and "reuse=lazy" in p["after_policy"], p
assert abs(p["replayed_saving_ms"] - (p["replayed_before_ms"] - p["replayed_after_ms"])) < 1e-6, p
assert p["predicted_saving_ms"] == f["saving_ms"] and p["predicted_saving_ms"] > 0, p
assert abs(p["difference"]) < 0.05, p' "$T/prove.json"
}
spc_check_twice() {
	spc_check && return 0
	prove_again "$T/prove.json" "$db" --trace "$r610" --profile "$EPROF" && spc_check
}
check "--prove: session-per-command replayed within 5% of predicted" spc_check_twice
runs=$(python3 -c 'import json,sys
p = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "session-per-command"][0]["proof"]
print(p["before_trace"], p["after_trace"])' "$T/prove.json")
expect_eq "--prove: both runs stored, replays of the source emulating the profile" \
	"$(sqlite3 "$db" "SELECT group_concat(kind || ',' || parent_id || ',' || emulated, ' ') FROM trace
	WHERE id IN (${runs/ /,})")" "replay,1,slb9670-scaled-16 replay,1,slb9670-scaled-16"
"$TPMTRACE" advise "$db" --trace "$r610" --profile "$EPROF" --prove >"$T/prove.txt" 2>&1
check "--prove: the text puts replayed and predicted side by side" \
	grep -qE 'saves [0-9.]+ m?s replayed, [0-9.]+ m?s predicted \([+-][0-9.]+%\)' "$T/prove.txt"
"$TPMTRACE" advise "$db" --trace "$r610" --prove >/dev/null 2>&1
expect_eq "--prove without --profile: a usage error" "$?" 2

# Named as `tpmtrace attribute` names them: tpmclient the kernel, the
# GetRandom's client its hwrng; tpm2_pcrread (a pid) is then user space.
sqlite3 "$db" "UPDATE client SET comm='kernel' WHERE trace_id=1 AND comm='tpmclient';
	UPDATE client SET peer='hwrng' WHERE trace_id=1 AND id = (SELECT client_id FROM command
	WHERE trace_id=1 AND cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom'))"
"$TPMTRACE" replay "$db" --trace 1 --policy linux-6.12 --json >"$T/r612.json" 2>"$T/r612.err"
expect_eq "replay linux-6.12" "$?" 0
r612=$(json_get "$T/r612.json" runs.0.trace)
advise_json "$db" --trace "$r612" >"$T/a612.json"
users=$(sqlite3 "$db" "SELECT count(*) FROM client WHERE trace_id=1 AND comm='tpm2_pcrread'")
expect_eq "user-interleave: the session re-created after each user-space command" \
	"$(field "$T/a612.json" user-interleave count)" "$users"
expect_eq "user-interleave: a flush and a set-up of three each time" \
	"$(field "$T/a612.json" user-interleave commands),$(field "$T/a612.json" user-interleave removed)" \
	"$((users * 4)),$((users * 4))"
expect_eq "hwrng-session: one hwrng read" "$(field "$T/a612.json" hwrng-session count)" 1
expect_eq "no session-per-command under lazy flush" "$(field "$T/a612.json" session-per-command count)" "-"
check "the text carries the JSON's numbers (linux-6.12 replay)" text_matches_json "$db" --trace "$r612" --profile "$PROF"
# --prove: the source replayed under linux-6.12 and with the change
# (user-flush=off: the session kept across user space only; hwrng=off).
"$TPMTRACE" advise "$db" --trace "$r612" --profile "$PROF" --prove --json >"$T/p612.json" 2>"$T/p612.err"
expect_eq "--prove (linux-6.12 replay): exit status" "$?" 0
expect_eq "--prove: user-interleave's change is user-flush=off on linux-6.12's policy" \
	"$(python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "user-interleave"][0]
print(f["proof"]["after_policy"])' "$T/p612.json")" \
	"salt=null-ecc,reuse=lazy,encrypt=kernel,nullkey=context-load,pcr-integrity=on,user-flush=off"
check "--prove: user-interleave replayed within 5% of predicted" \
	proof_check_twice "$T/p612.json" user-interleave "$db" --trace "$r612" --profile "$PROF"
check "--prove: hwrng-session replayed within 5% of predicted" \
	proof_check_twice "$T/p612.json" hwrng-session "$db" --trace "$r612" --profile "$PROF"
"$TPMTRACE" replay "$db" --trace 1 --policy password --json >"$T/rpw.json" 2>"$T/rpw.err"
expect_eq "replay password" "$?" 0
rpw=$(json_get "$T/rpw.json" runs.0.trace)
for t in 1 "$rpw"; do
	advise_json "$db" --trace "$t" >"$T/a$t.json"
	expect_eq "trace $t (the recording, its password replay): no session finding" "$(kinds "$T/a$t.json" |
		tr ' ' '\n' | grep -cE 'session|interleave|primary|policy')" 0
done
finish
