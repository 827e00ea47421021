#!/usr/bin/env bash
# advise --prove --target: an unlock of an object sealed before the trace,
# recorded against an external swtpm, is unproved on a fresh swtpm (its Load
# fails) and proved within 5% on the recording's TPM, which is left as it
# was.
. "$(dirname "$0")/../lib/common.sh"
. "$TPMTRACE_TEST_LIB/advise.sh"
need swtpm sqlite3 python3 tpm2_createprimary tpm2_unseal tpm2_pcrread tpm2_getcap
cd "$T" # the tools write their context files here

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
finish
