#!/usr/bin/env bash
# Real traffic the decoder rejected (issue 15, finding 12): a StartAuthSession
# whose symmetric definition is TPM_ALG_XOR (keyBits then holds a hash
# algorithm and there is no mode field) was read as malformed, and the replay
# ended there: "StartAuthSession does not parse". Now it parses, the replayer
# refuses it with its reason (XOR obfuscation is not done here) and goes on:
# the commands after it are replayed and the run is complete.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 tpm2_startup
db=$T/x.db
# tag, size 45, StartAuthSession, tpmKey and bind TPM_RH_NULL, a 16-byte
# nonceCaller, no salt, an HMAC session, symmetric XOR with SHA-256, SHA-256.
sas=80010000002d0000017640000007400000070010$(printf '11%.0s' $(seq 16))000000000a000b000b
cat >"$T/w.sh" <<EOF
set -e
tpm2_startup -c
sock=\${TPMTRACE_TCTI#swtpm:path=}
"$TPMCLIENT" --connect "unix:\$sock" --hex $sas >"$T/sas.out"
"$TPMCLIENT" --connect "unix:\$sock" --cmd pcrextend --count 3 --quiet
"$TPMCLIENT" --connect "unix:\$sock" --cmd getrandom --count 2 --quiet
EOF
check "recorded: an XOR session among other commands" \
	"$TPMTRACE" record --spawn-swtpm --db "$db" --quiet -- bash "$T/w.sh"
check "swtpm started the XOR session" grep -q '^80010000....00000000' "$T/sas.out"
# One refused command of a few is below the default --min-fidelity (95%),
# which is what ends such a run with exit 1: here the run itself is checked.
"$TPMTRACE" replay "$db" --trace 1 --min-fidelity 0 >"$T/out" 2>"$T/err"
expect_eq "finding 12: the replay goes on past the XOR session (exit status)" "$?" 0
check "finding 12: the session refused with its reason" grep -q "symmetric XOR" "$T/out" "$T/err"
check "... not 'does not parse'" bash -c "! grep -q 'does not parse' '$T/out' '$T/err'"
id=$(sqlite3 "$db" "SELECT max(id) FROM trace")
expect_eq "the run is complete" "$(sqlite3 "$db" "SELECT status FROM trace WHERE id=$id")" complete
expect_eq "the commands after it were replayed" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$id AND cc IN (SELECT cc FROM tpm_cc WHERE name IN ('PCR_Extend', 'GetRandom'))")" 5
finish
