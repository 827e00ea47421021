#!/usr/bin/env bash
# predict without --profile takes the trace's own TPM (docs/profiles.md, "The
# trace's own chip"): the manufacturer and firmware its GetCapability answers give
# (TPM_PT_MANUFACTURER, TPM_PT_FIRMWARE_VERSION_1/_2).
#  - a trace recorded on swtpm names IBM: no shipped profile is that TPM; predict
#    says so, with what the answers name, and exits 1;
#  - the same trace with its answers naming an SLB9670 of firmware 7.85.17.51968
#    (the stored response's property values rewritten: swtpm cannot claim to be
#    another chip) gets the TPMScan profile of that chip, and says why, in text
#    and JSON; its figures are those of --profile with that name.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_getcap python3

db=$T/cap.db
"$TPMTRACE" record --spawn-swtpm --db "$db" --quiet -- \
	sh -c 'tpm2_getcap properties-fixed >/dev/null && tpm2_getrandom 8 >/dev/null' 2>"$T/rec.err"
expect_eq "recorded tpm2_getcap properties-fixed and a GetRandom" "$?" 0

"$TPMTRACE" predict "$db" --host-crypto estimate >"$T/ibm.txt" 2>"$T/ibm.err"
expect_eq "swtpm's trace, no --profile: exit 1" "$?" 1
expect_eq "... it says what the answers name, in one line" \
	"$(sed -E 's/fw [0-9.]+/fw X/' "$T/ibm.err")" \
	"tpmtrace predict: no --profile, none shipped for this TPM (IBM fw X)"

# The answers rewritten to an SLB9670, firmware 7.85.17.51968.
python3 "$TPMTRACE_TEST_LIB/set_chip.py" "$db" IFX 0x00070055 0x0011CB00
expect_eq "the answers now name IFX 7.85.17.51968" "$?" 0
"$TPMTRACE" predict "$db" --host-crypto estimate >"$T/ifx.txt" 2>"$T/ifx.err"
expect_eq "no --profile: exit status" "$?" 0
expect_eq "the chip's shipped profile, chosen" "$(sed -n 1p "$T/ifx.txt")" \
	"profile: ifx-slb9670-fw7.85.17.51968 (shipped), SLB9670"
check "... and why" grep -q "chosen for the trace's TPM: its GetCapability answers name IFX firmware 7.85.17.51968" \
	<(unwrap "$T/ifx.txt" | tr -s ' ')
"$TPMTRACE" predict "$db" --host-crypto estimate --json >"$T/a.json" 2>/dev/null
"$TPMTRACE" predict "$db" --host-crypto estimate --json --profile ifx-slb9670-fw7.85.17.51968 \
	>"$T/b.json" 2>/dev/null
check "JSON: the profile, why, and the figures of --profile with that name" python3 -c 'import json,sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["profile"] == "ifx-slb9670-fw7.85.17.51968" and "IFX firmware 7.85.17.51968" in a["profile_chosen"], a
assert b["profile_chosen"] is None, b["profile_chosen"]
assert [p["tpm_ms"] for p in a["policies"]] == [p["tpm_ms"] for p in b["policies"]]' "$T/a.json" "$T/b.json"
"$TPMTRACE" predict --synthetic pcr-extend:10 >/dev/null 2>"$T/syn.err"
expect_eq "--synthetic without --profile: a usage error" "$?" 2
finish
