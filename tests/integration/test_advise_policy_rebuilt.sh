#!/usr/bin/env bash
# advise finds policy-rebuilt: three tpm2_unseal of a PCR-sealed object,
# each in a policy session of its own with the same PolicyPCR, are two
# rebuilds; the same trace's tpm2-tools processes each start an HMAC session
# of their own (session-per-command of an application). Both rewrites
# (--rewrite) drop what the findings say goes, and with --prove the trace and
# each rewrite replayed on swtpm emulating the SLB9670 profile give savings
# within 5% of the predicted ones.
. "$(dirname "$0")/../lib/common.sh"
. "$TPMTRACE_TEST_LIB/advise.sh"
need swtpm sqlite3 python3 tpm2_createprimary tpm2_unseal tpm2_pcrread tpm2_getcap
cd "$T" # the tools write their context files here

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
rewrite_check "$db" "$T/pol.json" policy-rebuilt
prw=$REWRITE
expect_eq "--rewrite policy-rebuilt: the trial session and one policy session for the unseals" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$prw AND cc = (SELECT cc FROM tpm_cc WHERE name = 'StartAuthSession') AND rsp_handle >= 0x03000000")" 2
expect_eq "--rewrite policy-rebuilt: every PolicyPCR stays, the policy session is flushed once" \
	"$(sqlite3 "$db" "SELECT sum(cc = (SELECT cc FROM tpm_cc WHERE name = 'PolicyPCR')) || ',' || sum(cc = (SELECT cc FROM tpm_cc WHERE name = 'FlushContext') AND flags & 32 = 0 AND
	hex(substr(cmd, 11, 4)) LIKE '03%') FROM command WHERE trace_id=$prw")" "4,1"
rewrite_check "$db" "$T/pol.json" session-per-command
srw=$REWRITE
expect_eq "--rewrite session-per-command: one HMAC session, flushed once" \
	"$(sqlite3 "$db" "SELECT sum(cc = (SELECT cc FROM tpm_cc WHERE name = 'StartAuthSession') AND rsp_handle BETWEEN 0x02000000 AND 0x02ffffff) || ',' ||
	sum(cc = (SELECT cc FROM tpm_cc WHERE name = 'FlushContext') AND hex(substr(cmd, 11, 4)) LIKE '02%') FROM command WHERE trace_id=$srw")" "1,1"
# --prove on the SLB9670 profile itself (swtpm answers well inside its
# figures, so that the emulated runs keep the profile's pace): the trace and
# each rewrite replayed as recorded.
# prove_both WHAT OUT: --prove of trace 1 of $db into OUT exits 0, and both
# findings' replayed savings are within 5% of the predicted ones.
prove_both() {
	"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --prove --json >"$2" 2>"$2.err"
	expect_eq "--prove ($1): exit status" "$?" 0
	local k
	for k in policy-rebuilt session-per-command; do
		check "--prove ($1): $k replayed within 5% of predicted" \
			proof_check_twice "$2" "$k" "$db" --trace 1 --profile "$PROF"
	done
}
prove_both pol "$T/polprove.json"
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
prove_both "per-client spaces" "$T/rmprove.json"
after=$(python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "session-per-command"][0]
print(f["proof"]["after_trace"])' "$T/rmprove.json")
expect_eq "--prove (per-client spaces): the rewrite's replay flushed the clients' spaces, nothing failed" \
	"$(sqlite3 "$db" "SELECT (SELECT count(*) > 0 FROM command WHERE trace_id = $after AND flags & 32
	AND cc = (SELECT cc FROM tpm_cc WHERE name = 'FlushContext')) || ',' || (SELECT count(*) FROM command WHERE trace_id = $after AND rc NOT IN (0, 0x922))")" "1,0"
finish
