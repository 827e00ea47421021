#!/usr/bin/env bash
# advise: work lost to failures (docs/advise.md, "failed-redone"). tpm2-tools on a
# swtpm unseal a PCR-sealed object through a policy session while another client
# extends a PCR between the session's PolicyPCR and its use: the unseal is answered
# TPM_RC_PCR_CHANGED and the session is rebuilt (systemd #42615); an NV index is
# defined twice, the second answered TPM_RC_NV_DEFINED (systemd #41268). advise finds
# the pattern: two occurrences, the failed session's StartAuthSession, Policy
# commands, use and FlushContext and the failed NV_DefineSpace, all removed by the
# change, priced on the profile as the sum of those commands; --prove says why it
# is not proved; report shows it.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_unseal tpm2_policypcr tpm2_nvdefine python3 sqlite3

cat >"$T/wl.sh" <<'EOF'
set -e
tpm2_createprimary -Q -C o -c prim.ctx
tpm2_pcrread -Q -o pcr.bin sha256:0
tpm2_createpolicy -Q --policy-pcr -l sha256:0 -f pcr.bin -L pol.bin
echo secret | tpm2_create -Q -C prim.ctx -L pol.bin -i- -u k.pub -r k.priv
tpm2_load -Q -C prim.ctx -u k.pub -r k.priv -c k.ctx
tpm2_startauthsession --policy-session -S s.ctx
tpm2_policypcr -Q -S s.ctx -l sha256:0
tpm2_pcrextend 10:sha256=0000000000000000000000000000000000000000000000000000000000000001
if tpm2_unseal -p session:s.ctx -c k.ctx 2>/dev/null; then echo "the unseal did not fail" >&2; exit 1; fi
tpm2_flushcontext s.ctx
tpm2_startauthsession --policy-session -S s2.ctx
tpm2_policypcr -Q -S s2.ctx -l sha256:0
[ "$(tpm2_unseal -p session:s2.ctx -c k.ctx)" = secret ]
tpm2_flushcontext s2.ctx
tpm2_nvdefine -Q 0x1500016 -C o -s 8
if tpm2_nvdefine -Q 0x1500016 -C o -s 8 2>/dev/null; then echo "defined twice" >&2; exit 1; fi
EOF
db=$T/f.db
(cd "$T" && "$TPMTRACE" record --spawn-swtpm --db "$db" --quiet -- sh wl.sh) 2>"$T/rec.err"
expect_eq "recorded: the unseal failed on PCR_CHANGED, rebuilt, the index defined twice" "$?" 0
expect_eq "the trace holds one PCR_CHANGED unseal and one NV_DEFINED define" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE rc = 0x128 AND cc = (SELECT cc FROM tpm_cc WHERE name = 'Unseal');
	SELECT count(*) FROM command WHERE rc = 0x14C AND cc = (SELECT cc FROM tpm_cc WHERE name = 'NV_DefineSpace')")" "1
1"

PROF=slb9670-linux-integrity
"$TPMTRACE" advise "$db" --profile $PROF --json >"$T/a.json" 2>"$T/a.err"
expect_eq "advise --json: exit status" "$?" 0
# What the finding must hold, read from the trace here: the failed session's
# StartAuthSession .. FlushContext (its handle, as the unseal used it) and the failed
# define.
sqlite3 -separator ' ' "$db" "SELECT seq, cc, coalesce(rsp_handle, 0), coalesce(handle1, 0),
	coalesce(sess_handle, 0), coalesce(rc, -1), hex(cmd) FROM command WHERE trace_id = 1
	AND flags & 32 = 0 ORDER BY seq" >"$T/cmds.txt"
check "failed-redone: 2 occurrences, the failed session's commands and the failed define" \
	python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "failed-redone"]
assert len(f) == 1, [x["kind"] for x in json.load(open(sys.argv[1]))["findings"]]
f = f[0]
rows = [l.split() for l in open(sys.argv[2])]
seq = lambda r: int(r[0]); cc = lambda r: int(r[1])
fail = [r for r in rows if cc(r) == 0x15E and int(r[5]) == 0x128][0]
h = int(fail[4])
sas = [r for r in rows if cc(r) == 0x176 and int(r[2]) == h and seq(r) < seq(fail)][-1]
pol = [r for r in rows if seq(sas) < seq(r) < seq(fail) and 0x16A <= cc(r) <= 0x19F and cc(r) != 0x17E
       and int(r[3]) == h]
flush = [r for r in rows if cc(r) == 0x165 and seq(r) > seq(fail) and r[6][20:28] == "%08X" % h][0]
nvd = [r for r in rows if cc(r) == 0x12A and int(r[5]) == 0x14C][0]
want = 1 + len(pol) + 1 + 1 + 1
assert (f["count"], f["commands"], f["removed"]) == (2, want, want), (f["count"], f["commands"], want)
assert (f["first_seq"], f["last_seq"]) == (seq(sas), seq(nvd)), (f["first_seq"], f["last_seq"])
assert f["saving_ms"] == f["priced_ms"] > 0 and f["priced_after_ms"] == 0, f' "$T/a.json" "$T/cmds.txt"
check "all of its recorded time goes, and it is the application's change" \
	python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "failed-redone"][0]
assert f["recorded_ms"] > 0 and f["recorded_after_ms"] == 0, f
assert f["who"] == "application" and "PolicyPCR" in f["what"] and "systemd #42615" in f["change"], f' \
	"$T/a.json"
"$TPMTRACE" advise "$db" --profile $PROF >"$T/a.txt" 2>/dev/null
check "the text names it, with the change" grep -q "build the policy session after the PCR extends" \
	<(unwrap "$T/a.txt" | tr -s ' ')
"$TPMTRACE" advise "$db" --profile $PROF --prove --json >"$T/p.json" 2>"$T/p.err"
check "--prove: not proved, and why" python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "failed-redone"][0]
assert f["proof"] is None and "order of the recording" in f["unproved"], f' "$T/p.json"
"$TPMTRACE" report "$db" --profile $PROF --json >"$T/r.json" 2>"$T/r.err"
check "report: the finding, with its saving" python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["advise"][0]["findings"]
f = [x for x in r if x["kind"] == "failed-redone"][0]
assert f["saving_ms"] > 0, f' "$T/r.json"
finish
