#!/usr/bin/env bash
# record --forward-only: a proxy that records nothing. It writes no database,
# forwards every command, and the answers its clients get are the backend's,
# byte for byte (the same PCR value read through it and directly). record
# --swtpm-state DIR: the spawned swtpm keeps its state in DIR, so an NV index
# defined in one recording is there in the next one on the same DIR, and not
# on a fresh swtpm.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 tpm2_startup tpm2_nvdefine tpm2_nvwrite tpm2_nvread xxd

# ---- --forward-only --------------------------------------------------------
start_swtpm "$T/sw"
(cd "$T" && exec "$TPMTRACE" record --forward-only --backend "swtpm:path=$T/sw/s.sock" \
	--listen "unix:$T/fo.sock" --db "$T/fo.db") 2>"$T/fo.err" &
FO=$!
PIDS+=($FO)
wait_for_socket "$T/fo.sock"
check "forward-only: startup through the proxy" \
	"$TPMCLIENT" --connect "unix:$T/fo.sock" --cmd startup --quiet
check "forward-only: 20 extends through the proxy, each answered with success" \
	"$TPMCLIENT" --connect "unix:$T/fo.sock" --cmd pcrextend --count 20 --quiet
"$TPMCLIENT" --connect "unix:$T/fo.sock" --cmd pcrread --log "$T/via.log" --quiet >/dev/null
kill -TERM $FO
wait $FO
expect_eq "forward-only: exits 0 on SIGTERM" "$?" 0
# swtpm serves one connection at a time: read directly once the proxy is gone.
"$TPMCLIENT" --connect "unix:$T/sw/s.sock" --cmd pcrread --log "$T/direct.log" --quiet >/dev/null
check "forward-only: PCR 16 read through the proxy = read directly (the backend's answer)" \
	cmp -s "$T/via.log" "$T/direct.log"
check "forward-only: the answer is a PCR_Read success" grep -q ' 80010000003[0-9A-F]00000000' "$T/via.log"
check "forward-only: no database written (--db ignored)" [ ! -e "$T/fo.db" ]
check "forward-only: nor the default one" [ ! -e "$T/tpmtrace.db" ]
check "forward-only: says it records nothing" grep -q "recording into nothing (--forward-only)" "$T/fo.err"
check "forward-only: counts what it forwarded (22 commands, none recorded)" \
	grep -q "22 commands forwarded, 0 recorded" "$T/fo.err"

# ---- --swtpm-state -----------------------------------------------------------
ST=$T/state
IDX=0x1500016
"$TPMTRACE" record --spawn-swtpm --swtpm-state "$ST" --db "$T/s1.db" --quiet -- sh -c \
	"tpm2_startup -c && tpm2_nvdefine $IDX -C o -s 8 -a 'ownerread|ownerwrite' >/dev/null &&
	 printf tpmtrace | tpm2_nvwrite $IDX -C o -i -" 2>"$T/s1.err"
expect_eq "state: first recording (NV index defined and written)" "$?" 0
check "state: swtpm's state file is in DIR" test -s "$ST/tpm2-00.permall"
"$TPMTRACE" record --spawn-swtpm --swtpm-state "$ST" --db "$T/s2.db" --quiet -- sh -c \
	"tpm2_startup -c && tpm2_nvread $IDX -C o -s 8 -o '$T/nv.bin'" 2>"$T/s2.err"
expect_eq "state: second recording on the same DIR reads the index" "$?" 0
expect_eq "state: with the bytes written in the first" "$(cat "$T/nv.bin" 2>/dev/null)" tpmtrace
expect_eq "state: the second trace holds the NV_Read, answered with success" \
	"$(sqlite3 "$T/s2.db" "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'NV_Read') AND rc=0")" 1
"$TPMTRACE" record --spawn-swtpm --db "$T/s3.db" --quiet -- sh -c \
	"tpm2_startup -c && tpm2_nvread $IDX -C o -s 8" >/dev/null 2>"$T/s3.err"
rc=$?
check "state: a fresh swtpm (no --swtpm-state) has no such index (exit $rc)" [ "$rc" -ne 0 ]
"$TPMTRACE" record --backend "swtpm:path=$T/sw/s.sock" --swtpm-state "$ST" --db "$T/s4.db" -- true \
	>/dev/null 2>&1
expect_eq "state: --swtpm-state without --spawn-swtpm is a usage error" "$?" 2
check "state: ... that writes no database" [ ! -e "$T/s4.db" ]
finish
