#!/usr/bin/env bash
# repeated-primary on the everyday tpm2-tools flow (docs/advise.md, "Rewrites"):
# tpm2_createprimary saves the primary's context to a file and exits, tpm2_load
# loads a copy of it back (ContextLoad) into the slot the primary had, and
# tpm2_unseal loads the sealed object there too; the primary is created again
# before each load. The rewrite keeps the first primary loaded under a handle
# of its own (0x80fff000: the recorded 0x80000000 is other objects' meanwhile)
# instead of refusing the trace:
#  - 3 of the 4 CreatePrimary go, with the resource manager's flushes of the
#    primary before its last creation; the kept one answers 0x80fff000 and
#    every command that named the primary while it was the primary names it;
#  - the rewrite replays with every answer as recorded (no TPM error where the
#    recording succeeded, no response code changed) and no repeated-primary
#    finding is left in it;
#  - advise --prove proves the finding on swtpm emulating the SLB9670 profile,
#    says the time is the profile's, the saving within 5% of the predicted.
. "$(dirname "$0")/../lib/common.sh"
. "$TPMTRACE_TEST_LIB/advise.sh"
need swtpm tpm2_createprimary tpm2_create tpm2_load tpm2_unseal python3 sqlite3

db=$T/t.db
cat >"$T/wl.sh" <<'WL'
set -e
tpm2_createprimary -C o -c p.ctx -Q
echo secret | tpm2_create -C p.ctx -i- -u k.pub -r k.priv -Q
for i in 1 2 3; do
	tpm2_createprimary -C o -c p.ctx -Q
	tpm2_load -C p.ctx -u k.pub -r k.priv -c k.ctx -Q
	tpm2_unseal -c k.ctx >/dev/null
done
WL
(cd "$T" && "$TPMTRACE" record --spawn-swtpm --db "$db" --quiet -- sh wl.sh 2>"$T/rec.err")
expect_eq "recorded the tpm2-tools flow" "$?" 0
expect_eq "... 4 CreatePrimary, each answered 0x80000000, the handle later loads took too" \
	"$(sqlite3 "$db" "SELECT count(*), min(rsp_handle) = max(rsp_handle) FROM command
		WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'CreatePrimary') AND rc = 0;
		SELECT count(*) > 0 FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'ContextLoad') AND rsp_handle = 2147483648")" "4|1
1"

"$TPMTRACE" advise "$db" --trace 1 --rewrite repeated-primary --json >"$T/rw.json" 2>"$T/rw.err"
rc=$?
expect_eq "--rewrite repeated-primary: exit 0 ($(head -c 200 "$T/rw.err"))" "$rc" 0
rw=$(json_get "$T/rw.json" trace)
expect_eq "one CreatePrimary left, answering the kept primary's own handle" \
	"$(sqlite3 "$db" "SELECT count(*), printf('0x%08x', rsp_handle) FROM command
		WHERE trace_id = $rw AND cc = (SELECT cc FROM tpm_cc WHERE name = 'CreatePrimary')")" "1|0x80fff000"
check "every command that named the primary names 0x80fff000; the loads' objects keep 0x80000000" \
	python3 - "$db" 1 "$rw" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
src, rw = int(sys.argv[2]), int(sys.argv[3])
def rows(t):
    return {s: (cc, h1, rh) for s, cc, h1, rh in db.execute(
        "SELECT seq, cc, handle1, rsp_handle FROM command WHERE trace_id=? ORDER BY seq", (t,))}
a, b = rows(src), rows(rw)
prim = False
renamed = kept = 0
for s in sorted(a):
    cc, h1, rh = a[s]
    if cc == 0x131:
        prim = True  # from a creation on, 0x80000000 is the primary
    elif cc in (0x161, 0x157) and rh == 0x80000000:
        prim = False  # another object loaded into that slot
    if s not in b:
        continue
    if prim and h1 == 0x80000000 and cc in (0x162, 0x153):  # ContextSave, Create
        assert b[s][1] == 0x80fff000, (s, a[s], b[s])
        renamed += 1
    if not prim and h1 == 0x80000000:
        assert b[s][1] == 0x80000000, (s, a[s], b[s])
        kept += 1
assert renamed >= 4 and kept >= 3, (renamed, kept)
PY
expect_eq "no repeated-primary finding in the rewrite" \
	"$(finding_count repeated-primary "$db" --trace "$rw")" 0

"$TPMTRACE" replay "$db" --trace "$rw" --policy as-recorded --json >"$T/rp.json" 2>"$T/rp.err"
rc=$?
expect_eq "the rewrite replays: exit 0 ($(tail -c 300 "$T/rp.err"))" "$rc" 0
check "... every answer as recorded: no TPM error where the recording succeeded, no code changed" \
	python3 -c 'import json,sys
j = json.load(open(sys.argv[1])); r = j["runs"][0] if "runs" in j else j
assert r["status"] == "complete" and r["failed"] == 0 and r["refused"] == 0, r
assert sum(c.get("rc_differs", 0) for c in r["commands"]) == 0, r["commands"]
assert r["faithful"] + r["substituted"] == r["processed"], r' "$T/rp.json"

# The saving is 3 x 231 ms of emulated CreatePrimary; a loaded machine may
# move one run by more than 5%: proved once more then (said; tests/lib/advise.sh).
"$TPMTRACE" advise "$db" --trace 1 --profile "$PROF" --prove --json >"$T/pv.json" 2>"$T/pv.err"
expect_eq "advise --prove: exit status" "$?" 0
check "advise --prove proves repeated-primary within 5%" \
	proof_check_twice "$T/pv.json" repeated-primary "$db" --trace 1 --profile "$PROF"
check "... its figures emulated, the time from the profile" python3 -c 'import json,sys
f = [x for x in json.load(open(sys.argv[1]))["findings"] if x["kind"] == "repeated-primary"][0]
p = f["proof"]
assert p and p["figures"] == "emulated" and "time from the profile" in p["basis"], (f, p)' "$T/pv.json"
finish
