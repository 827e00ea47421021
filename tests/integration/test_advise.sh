#!/usr/bin/env bash
# tpmtrace advise: each pattern in a trace recorded through tpmtrace with
# real clients (tpm2-tools, tpmclient) is found with the right counts, and
# not found where it is not:
#  - repeated-primary: three tpm2_createprimary of the same template (and one
#    of another): two re-creations of one template, their recorded time the
#    saving; priced on a profile, two thirds of the three;
#  - policy-rebuilt: three tpm2_unseal of a PCR-sealed object, each in a
#    policy session of its own with the same PolicyPCR: two rebuilds; the
#    same trace's tpm2-tools processes each start an HMAC session of their own
#    (session-per-command of an application). Both rewrites (--rewrite) drop
#    what the findings say goes, and with --prove the trace and each rewrite
#    replayed on swtpm emulating the SLB9670 profile give savings within 5%
#    of the predicted ones;
#  - session-per-command: a recording of PCR extends and a GetRandom replayed
#    under linux-6.10 (a session per command): as many sessions as strip
#    finds set-ups, those linux-6.12 would still make kept; with --prove the
#    source replayed under linux-6.10 and with reuse=lazy on swtpm emulating a
#    profile gives a saving within 5% of the predicted one;
#  - user-interleave and hwrng-session: the same traffic with its clients
#    named as `tpmtrace attribute` names them (the kernel's tpmclient, its
#    hwrng read, tpm2_pcrread in user space between them) replayed under
#    linux-6.12: the kernel's session re-created after each of the two user
#    commands, the hwrng read ending it once; both proved within 5% (the
#    source replayed with user-flush=off, and with hwrng=off);
#  - --target: an unlock of an object sealed before the trace, recorded
#    against an external swtpm: unproved on a fresh swtpm (its Load fails),
#    proved within 5% on the recording's TPM, which is left as it was;
#  - the demo workload's session-per-command (every tpm2-tools process
#    starts its own HMAC session) proved within 5%, its only finding.
# None of them in the recordings themselves, in their password replays (whose
# only pattern was the kernel's sessions) or in the demo workload's trace
# (two primaries of different templates, no policy session, no kernel). A
# trace with nothing to find says so. --json parses and carries every number
# the text shows. Then bad input: no such trace, a missing profile.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3 tpm2_createprimary tpm2_unseal tpm2_pcrread tpm2_getcap

PROF=slb9670-linux-integrity
cd "$T" # the tools write their context files here
advise_json() { "$TPMTRACE" advise "$@" --json; }
# field JSON KIND FIELD: a finding's field ("-" when there is no such finding)
field() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["kind"] == sys.argv[2]]
print(f[0][sys.argv[3]] if f else "-")' "$@"
}
kinds() { python3 -c 'import json,sys; print(" ".join(x["kind"] for x in json.load(open(sys.argv[1]))["findings"]))' "$1"; }
# text_matches_json DB ARGS...: every number of each finding's text is in the JSON.
text_matches_json() {
	"$TPMTRACE" advise "$@" >"$T/tm.txt" && "$TPMTRACE" advise "$@" --json >"$T/tm.json" &&
		python3 - "$T/tm.txt" "$T/tm.json" <<-'PY'
	import json, re, sys
	txt = open(sys.argv[1]).read()
	d = json.load(open(sys.argv[2]))
	def ms(s):
	    v, u = s.split()
	    return float(v) * (1000 if u == "s" else 1)
	blocks = re.split(r"\n\n(?=\d+\. )", txt)[1:]
	assert len(blocks) == len(d["findings"]), (len(blocks), len(d["findings"]))
	for b, f in zip(blocks, d["findings"]):
	    assert b.split()[1] == f["kind"], (b.split()[1], f["kind"])
	    w = " ".join(b.split())
	    m = re.search(r"seq (\d+)-(\d+); (\d+) occurrences?, (\d+) commands", w)
	    assert m and [int(x) for x in m.groups()] == [f["first_seq"], f["last_seq"], f["count"], f["commands"]], w
	    m = re.search(r"(\d+) of the (\d+) commands go", w)
	    assert m and [int(m[1]), int(m[2])] == [f["removed"], f["commands"]], w
	    for k, v in f["origins"].items():
	        assert f"{k} {v}" in w, (k, v, w)
	    for c in f["clients"]:
	        assert c["pid"] is None or f"(pid {c['pid']})" in w, c
	    m = re.search(r"now: ([\d.]+ m?s) recorded", w)
	    assert m and abs(ms(m[1]) - f["recorded_ms"]) <= 0.006 + 1e-3 * f["recorded_ms"], (m and m[1], f["recorded_ms"])
	    m = re.search(r"saves ([\d.]+ m?s)", w)
	    assert m and abs(ms(m[1]) - f["saving_ms"]) <= 0.006 + 1e-3 * f["saving_ms"], (m and m[1], f["saving_ms"])
	    if f["priced_ms"] is not None and f["kind"] != "outliers":
	        m = re.search(r"recorded \(measured\); ([\d.]+ m?s) predicted on", w)
	        assert m and abs(ms(m[1]) - f["priced_ms"]) <= 0.006 + 1e-3 * f["priced_ms"], w
	        m = re.search(r"go; ([\d.]+ m?s) predicted on", w)
	        assert m and abs(ms(m[1]) - f["priced_after_ms"]) <= 0.006 + 1e-3 * f["priced_after_ms"], w
	PY
}

# ---- repeated-primary: tpm2-tools, one template three times, another once ----
# (ECC keys: swtpm makes them in well under the emulated figure, so that the
# proof below measures the profile, not swtpm's prime search)
db=$T/prim.db
"$TPMTRACE" record --spawn-swtpm --rm --db "$db" --payloads redacted --quiet -- sh -c \
	'tpm2_createprimary -C o -G ecc384 -c e.ctx >/dev/null && for i in 1 2 3; do
	 tpm2_createprimary -C o -G ecc256 -c p$i.ctx >/dev/null || exit 1; done' 2>"$T/prim.err"
expect_eq "recorded four tpm2_createprimary" "$?" 0
advise_json "$db" >"$T/prim.json"
expect_eq "advise exit status" "$?" 0
expect_eq "repeated-primary: two re-creations" "$(field "$T/prim.json" repeated-primary count)" 2
expect_eq "repeated-primary: one template" "$(field "$T/prim.json" repeated-primary groups)" 1
expect_eq "repeated-primary: three CreatePrimary, two removed" \
	"$(field "$T/prim.json" repeated-primary commands),$(field "$T/prim.json" repeated-primary removed)" "3,2"
# The saving is the recorded time of the two re-creations: the rows after the
# first of the P-256 template (the P-384 one came first).
want=$(sqlite3 "$db" "SELECT printf('%.3f', sum(latency_ns) / 1e6) FROM (SELECT latency_ns FROM command
	WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'CreatePrimary') AND flags & 32 = 0 ORDER BY seq LIMIT -1 OFFSET 2)")
expect_eq "repeated-primary: saving = recorded time of the re-creations" \
	"$(python3 -c 'import sys; print("%.3f" % float(sys.argv[1]))' "$(field "$T/prim.json" repeated-primary saving_ms)")" "$want"
advise_json "$db" --profile "$PROF" >"$T/prim-p.json"
check "priced: the saving is two of the three CreatePrimary" python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "repeated-primary"][0]
assert f["priced_ms"] > 0 and abs(f["saving_ms"] - f["priced_ms"] * 2 / 3) < 1e-6 * f["priced_ms"], f
assert abs(f["priced_after_ms"] - f["priced_ms"] / 3) < 1e-6 * f["priced_ms"], f' "$T/prim-p.json"
check "repeated-primary: the change is the application's, a persistent handle" python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "repeated-primary"][0]
assert f["who"] == "application" and "tpm2_evictcontrol" in f["change"], f' "$T/prim-p.json"
check "the text carries the JSON's numbers (prim)" text_matches_json "$db" --profile "$PROF"
# The named rewrite: the two re-creations and the resource manager's flushes
# of the first one before them (flag 32) dropped; the P-384 primary and its
# flush kept.
"$TPMTRACE" advise "$db" --trace 1 --rewrite repeated-primary --json >"$T/rw.json" 2>"$T/rw.err"
expect_eq "--rewrite repeated-primary: exit status" "$?" 0
rw=$(json_get "$T/rw.json" trace)
expect_eq "--rewrite: two CreatePrimary and two flushes dropped" \
	"$(json_get "$T/rw.json" dropped)" 4
expect_eq "--rewrite: a derived trace of the recording, 4 commands fewer" \
	"$(sqlite3 "$db" "SELECT kind || ',' || parent_id || ',' || commands FROM trace WHERE id=$rw")" \
	"derived,1,$(($(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=1") - 4))"
expect_eq "--rewrite: one CreatePrimary per template left" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$rw AND cc = (SELECT cc FROM tpm_cc WHERE name = 'CreatePrimary')")" 2
expect_eq "--rewrite: no repeated-primary finding in the rewrite" \
	"$(advise_json "$db" --trace "$rw" | python3 -c 'import json,sys
print(sum(f["kind"] == "repeated-primary" for f in json.load(sys.stdin)["findings"]))')" 0
# --prove: the recording and its rewrite replayed as recorded on swtpm
# emulating the SLB9670 profile (itself: on the profile scaled down 16 times
# swtpm's own time comes close to the emulated figures, and a loaded machine
# moved this saving of 29 ms by more than 5%); the saving within 5% of the
# predicted.
EPROF=$TPMTRACE_SRC/tests/integration/slb9670-scaled-16.profile
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --prove --json >"$T/pprove.json" 2>"$T/pprove.err"
expect_eq "repeated-primary --prove: exit status" "$?" 0
# The replayed saving is a difference of two emulated runs: on a loaded
# machine one run's sleeps can overrun. A proof outside 5% is run once more
# (said on the output); the second must be within.
prove_again() { # JSON ADVISE-ARGS...: --prove once more into JSON
	local out=$1
	shift
	echo "note: the first --prove of this finding was outside 5%; proving once more" >&2
	"$TPMTRACE" advise "$@" --prove --json >"$out" 2>>"$T/prove-again.err"
}
# proof_check JSON KIND: the finding's proof is there, its predicted saving
# the finding's, and the replayed one within 5% of it.
proof_check() {
	python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == sys.argv[2]][0]
p = f["proof"]
assert p and p["predicted_saving_ms"] == f["saving_ms"] > 0, (f, p)
assert abs(p["replayed_saving_ms"] - (p["replayed_before_ms"] - p["replayed_after_ms"])) < 1e-6, p
assert abs(p["difference"]) < 0.05, p' "$1" "$2"
}
# proof_check_twice JSON KIND ADVISE-ARGS...: proved once more when outside 5%
proof_check_twice() {
	local out=$1 kind=$2
	shift 2
	proof_check "$out" "$kind" && return 0
	prove_again "$out" "$@" && proof_check "$out" "$kind"
}
pp_check() {
	python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "repeated-primary"][0]
p = f["proof"]
assert p and p["predicted_saving_ms"] == f["saving_ms"] > 0 and abs(p["difference"]) < 0.05, (f, p)' \
		"$T/pprove.json"
}
pp_check_twice() {
	pp_check && return 0
	prove_again "$T/pprove.json" "$db" --trace 1 --profile "$PROF" && pp_check
}
check "--prove: repeated-primary replayed within 5% of predicted" pp_check_twice

# ---- policy-rebuilt: a PCR-sealed object unsealed three times ----
db=$T/pol.db
cat >"$T/pol.sh" <<-'EOF'
	set -e
	cd "$1"
	tpm2_createprimary -C o -G ecc256 -c prim.ctx >/dev/null
	tpm2_pcrread -o pcr.bin sha256:0 >/dev/null
	tpm2_createpolicy --policy-pcr -l sha256:0 -f pcr.bin -L pol.bin >/dev/null
	printf secret | tpm2_create -C prim.ctx -L pol.bin -i- -u k.pub -r k.priv >/dev/null
	tpm2_load -C prim.ctx -u k.pub -r k.priv -c k.ctx >/dev/null
	for i in 1 2 3; do [ "$(tpm2_unseal -c k.ctx -p pcr:sha256:0)" = secret ]; done
EOF
mkdir -p "$T/polwd"
"$TPMTRACE" record --spawn-swtpm --rm --db "$db" --payloads redacted --quiet -- sh "$T/pol.sh" "$T/polwd" 2>"$T/pol.err"
expect_eq "recorded the sealing and three unseals" "$?" 0
advise_json "$db" >"$T/pol.json"
expect_eq "policy-rebuilt: two rebuilds of one policy" \
	"$(field "$T/pol.json" policy-rebuilt count),$(field "$T/pol.json" policy-rebuilt groups)" "2,1"
expect_eq "policy-rebuilt: a StartAuthSession and a FlushContext removed per rebuild" \
	"$(field "$T/pol.json" policy-rebuilt removed)" 4
expect_eq "no repeated-primary in it (one CreatePrimary)" "$(field "$T/pol.json" repeated-primary count)" "-"
check "the text carries the JSON's numbers (pol)" text_matches_json "$db" --profile "$PROF"
# tpm2-tools 5 authorize with an HMAC session of their own: the processes
# that authorize an object (createprimary, create, load) start one each, used
# once and flushed; two set-ups and two ends go (one session kept, flushed
# where the last one was).
expect_eq "session-per-command: three application sessions, two set-ups and two ends removed" \
	"$(field "$T/pol.json" session-per-command count),$(field "$T/pol.json" session-per-command removed)" "3,4"
# The named rewrites of the two findings.
"$TPMTRACE" advise "$db" --trace 1 --rewrite policy-rebuilt --json >"$T/prw.json" 2>"$T/prw.err"
expect_eq "--rewrite policy-rebuilt: exit status" "$?" 0
prw=$(json_get "$T/prw.json" trace)
expect_eq "--rewrite policy-rebuilt: what the finding removes is dropped" \
	"$(json_get "$T/prw.json" dropped)" \
	"$(field "$T/pol.json" policy-rebuilt removed)"
expect_eq "--rewrite policy-rebuilt: the trial session and one policy session for the unseals" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$prw AND cc = (SELECT cc FROM tpm_cc WHERE name = 'StartAuthSession') AND rsp_handle >= 0x03000000")" 2
expect_eq "--rewrite policy-rebuilt: every PolicyPCR stays, the policy session is flushed once" \
	"$(sqlite3 "$db" "SELECT sum(cc = (SELECT cc FROM tpm_cc WHERE name = 'PolicyPCR')) || ',' || sum(cc = (SELECT cc FROM tpm_cc WHERE name = 'FlushContext') AND flags & 32 = 0 AND
	hex(substr(cmd, 11, 4)) LIKE '03%') FROM command WHERE trace_id=$prw")" "4,1"
expect_eq "--rewrite policy-rebuilt: no policy-rebuilt finding in the rewrite" \
	"$(advise_json "$db" --trace "$prw" | python3 -c 'import json,sys
print(sum(f["kind"] == "policy-rebuilt" for f in json.load(sys.stdin)["findings"]))')" 0
"$TPMTRACE" advise "$db" --trace 1 --rewrite session-per-command --json >"$T/srw.json" 2>"$T/srw.err"
expect_eq "--rewrite session-per-command: exit status" "$?" 0
srw=$(json_get "$T/srw.json" trace)
expect_eq "--rewrite session-per-command: what the finding removes is dropped" \
	"$(json_get "$T/srw.json" dropped)" \
	"$(field "$T/pol.json" session-per-command removed)"
expect_eq "--rewrite session-per-command: one HMAC session, flushed once" \
	"$(sqlite3 "$db" "SELECT sum(cc = (SELECT cc FROM tpm_cc WHERE name = 'StartAuthSession') AND rsp_handle BETWEEN 0x02000000 AND 0x02ffffff) || ',' ||
	sum(cc = (SELECT cc FROM tpm_cc WHERE name = 'FlushContext') AND hex(substr(cmd, 11, 4)) LIKE '02%') FROM command WHERE trace_id=$srw")" "1,1"
expect_eq "--rewrite session-per-command: no session-per-command finding in the rewrite" \
	"$(advise_json "$db" --trace "$srw" | python3 -c 'import json,sys
print(sum(f["kind"] == "session-per-command" for f in json.load(sys.stdin)["findings"]))')" 0
# --prove on the SLB9670 profile itself (swtpm answers well inside its
# figures, so that the emulated runs keep the profile's pace): the trace and
# each rewrite replayed as recorded.
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --prove --json >"$T/polprove.json" 2>"$T/polprove.err"
expect_eq "--prove (pol): exit status" "$?" 0
check "--prove: policy-rebuilt replayed within 5% of predicted" \
	proof_check_twice "$T/polprove.json" policy-rebuilt "$db" --trace 1 --profile "$PROF"
check "--prove: the application's session-per-command replayed within 5% of predicted" \
	proof_check_twice "$T/polprove.json" session-per-command "$db" --trace 1 --profile "$PROF"
# The same traffic as tpm-cuse-proxy records it in front of /dev/tpmrm0 (a
# resource-manager space per client; the kernel flushes what a closing
# client held, unseen: tpmtrace's own flushes taken out). The replays of the
# trace and of its rewrites flush each client's space after its last command
# (docs/replay.md); the session kept for several processes is its last
# user's, and the proofs hold.
db=$T/polrm.db
mkdir -p "$T/polrmwd"
"$TPMTRACE" record --spawn-swtpm --rm --db "$db" --payloads redacted --quiet -- sh "$T/pol.sh" "$T/polrmwd" 2>"$T/polrm.err"
expect_eq "recorded the unseals again" "$?" 0
sqlite3 "$db" "UPDATE trace SET source = 'cuse:/dev/tpmtrace0 <- /dev/tpmrm0' WHERE id = 1;
	DELETE FROM command WHERE trace_id = 1 AND flags & 32 AND cc = (SELECT cc FROM tpm_cc WHERE name = 'FlushContext')"
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --prove --json >"$T/rmprove.json" 2>"$T/rmprove.err"
expect_eq "--prove (per-client spaces): exit status" "$?" 0
check "--prove (per-client spaces): policy-rebuilt within 5%" \
	proof_check_twice "$T/rmprove.json" policy-rebuilt "$db" --trace 1 --profile "$PROF"
check "--prove (per-client spaces): session-per-command within 5%" \
	proof_check_twice "$T/rmprove.json" session-per-command "$db" --trace 1 --profile "$PROF"
after=$(python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "session-per-command"][0]
print(f["proof"]["after_trace"])' "$T/rmprove.json")
expect_eq "--prove (per-client spaces): the rewrite's replay flushed the clients' spaces, nothing failed" \
	"$(sqlite3 "$db" "SELECT (SELECT count(*) > 0 FROM command WHERE trace_id = $after AND flags & 32
	AND cc = (SELECT cc FROM tpm_cc WHERE name = 'FlushContext')) || ',' || (SELECT count(*) FROM command WHERE trace_id = $after AND rc NOT IN (0, 0x922))")" "1,0"

# ---- --target: a trace whose replay needs its own TPM ----
# As a LUKS unlock: the sealed object was made before the trace, under the
# TPM's seeds, so that its Load fails on a fresh swtpm (an integrity check)
# and the proof with it; replayed on the recording's TPM (--target), the
# unlock's session-per-command (one HMAC session per tpm2-tools process) is
# proved within 5%, and the TPM is left as it was found.
start_swtpm "$T/ext"
etcti=swtpm:path=$T/ext/s.sock
mkdir -p "$T/extwd"
(cd "$T/extwd" && tpm2_startup -T "$etcti" -c && tpm2_createprimary -T "$etcti" -Q -C o -G ecc256 -c prim.ctx &&
	printf secret | tpm2_create -T "$etcti" -Q -C prim.ctx -i- -u k.pub -r k.priv &&
	tpm2_flushcontext -T "$etcti" -t)
expect_eq "sealed an object on the external swtpm" "$?" 0
db=$T/ext.db
(cd "$T/extwd" && "$TPMTRACE" record --backend "$etcti" --rm --db "$db" --payloads redacted --quiet -- sh -c \
	'tpm2_createprimary -Q -C o -G ecc256 -c p.ctx && tpm2_load -Q -C p.ctx -u k.pub -r k.priv -c k.ctx &&
	 [ "$(tpm2_unseal -c k.ctx)" = secret ]') 2>"$T/ext.err"
expect_eq "recorded the unlock against it" "$?" 0
advise_json "$db" --trace 1 --profile "$PROF" --prove >"$T/ext-spawn.json" 2>"$T/ext-spawn.err"
expect_eq "--prove on a fresh swtpm: a proof that failed exits 1" "$?" 1
check "--prove on a fresh swtpm: the sealed key does not load there, no proof claimed, why said" \
	python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "session-per-command"][0]
assert f["proof"] is None and "failed" in f["unproved"] and "--target" in f["unproved"], f' \
	"$T/ext-spawn.json"
before=$(tpm2_getcap -T "$etcti" handles-transient; tpm2_getcap -T "$etcti" handles-loaded-session)
advise_json "$db" --trace 1 --profile "$PROF" --prove --target "$etcti" >"$T/ext.json" 2>"$T/ext-prove.err"
expect_eq "--prove --target: exit status" "$?" 0
check "--prove --target: session-per-command replayed within 5% of predicted" \
	proof_check_twice "$T/ext.json" session-per-command "$db" --trace 1 --profile "$PROF" --target "$etcti"
expect_eq "--prove --target: the TPM's transient objects and sessions as they were" \
	"$(tpm2_getcap -T "$etcti" handles-transient; tpm2_getcap -T "$etcti" handles-loaded-session)" "$before"
"$TPMTRACE" advise "$db" --trace 1 --target "$etcti" >/dev/null 2>&1
expect_eq "--target without --prove: a usage error" "$?" 2

# ---- the kernel's sessions: tpmclient traffic replayed under kernel presets ----
db=$T/k.db
c() { echo "'$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --quiet $* >/dev/null"; }
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

# ---- nothing to find: fewer than five commands of each kind, no session ----
db=$T/clean.db
"$TPMTRACE" record --spawn-swtpm --db "$db" --payloads redacted --quiet -- bash -c \
	"$(c --cmd pcrextend --count 4) && $(c --cmd getrandom --count 2)" 2>"$T/clean.err"
expect_eq "recorded a clean trace" "$?" 0
"$TPMTRACE" advise "$db" >"$T/clean.out"
expect_eq "clean: exit status 0" "$?" 0
check "clean: says there is nothing to change" grep -q '^nothing to change' "$T/clean.out"
expect_eq "clean: no finding in --json" "$(advise_json "$db" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["findings"]))')" 0

# ---- the demo workload ----
db=$T/demo.db
"$TPMTRACE" record --spawn-swtpm --db "$db" --payloads redacted --quiet -- \
	"$TPMTRACE_SRC/tools/demo-workload" 20 2>"$T/demo.err"
expect_eq "recorded the demo workload" "$?" 0
advise_json "$db" --profile "$PROF" >"$T/demo.json"
for k in repeated-primary policy-rebuilt user-interleave hwrng-session; do
	expect_eq "demo: no $k" "$(field "$T/demo.json" "$k" count)" "-"
done
check "the text carries the JSON's numbers (demo)" text_matches_json "$db" --profile "$PROF"
# --prove: the demo's session-per-command (each tpm2-tools process its own
# HMAC session) through its rewrite, its only finding: swtpm's TPM_RC_RETRY
# to the first Create (its record of dictionary-attack use, once per start-up)
# is no outlier (test_advise_outliers.sh).
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --prove --json >"$T/demo-prove.json" 2>"$T/demo-prove.err"
expect_eq "demo --prove: exit status" "$?" 0
expect_eq "demo: session-per-command of the tpm2-tools processes" \
	"$(field "$T/demo-prove.json" session-per-command who)" "application (TSS user)"
check "demo --prove: session-per-command replayed within 5% of predicted" \
	proof_check_twice "$T/demo-prove.json" session-per-command "$db" --trace 1 --profile "$PROF"
check "demo --prove: no other finding, every one proved" python3 -c 'import json,sys
fs = json.load(open(sys.argv[1]))["findings"]
assert [f["kind"] for f in fs] == ["session-per-command"] and all(f["proof"] for f in fs), fs' \
	"$T/demo-prove.json"
# (the text wraps at 100 columns: its words joined again)
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --prove 2>&1 | tr -s ' \n' '  ' >"$T/demo-prove.txt"
check "demo --prove: the text puts replayed and predicted side by side" \
	grep -qE 'saves [0-9.]+ m?s replayed, [0-9.]+ m?s predicted \([+-][0-9.]+%\)' "$T/demo-prove.txt"
check "findings are sorted by saving" python3 -c 'import json,sys
s = [f["saving_ms"] for f in json.load(open(sys.argv[1]))["findings"]]
assert s == sorted(s, reverse=True), s' "$T/demo.json"

# ---- bad input ----
"$TPMTRACE" advise "$db" --trace 99 >"$T/bad.out" 2>"$T/bad.err"
expect_eq "no such trace: exit status 1" "$?" 1
check "no such trace: a message" grep -q "trace 99" "$T/bad.err"
"$TPMTRACE" advise "$db" --profile "$T/none.profile" >"$T/bad.out" 2>"$T/bad.err"
expect_eq "a missing profile: exit status 1" "$?" 1
check "a missing profile: named" grep -q "none.profile" "$T/bad.err"
finish
