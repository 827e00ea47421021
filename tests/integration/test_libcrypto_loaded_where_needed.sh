#!/usr/bin/env bash
# libcrypto is loaded by what needs it (model/tpm/crypto_lib.h), not by every
# tpmtrace process: the binaries do not link it; a recording proxy never maps
# it, its trace's machine id digest still being SHA-256 of the id (computed by
# a short-lived child, db/host_id.h); a replay under a session policy loads
# it and checks every response HMAC. Without libcrypto installed, a recorder
# still records (the digest left unknown), and what needs it (a session
# replay, pcrs) exits non-zero naming the library and its package.
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 sha256sum
CUSE=$TPMTRACE_TEST_BUILD/bin/tpm-cuse-proxy

check "tpmtrace does not link libcrypto" sh -c "! ldd '$TPMTRACE' | grep -q libcrypto"
[ -x "$CUSE" ] && check "tpm-cuse-proxy does not link libcrypto" sh -c "! ldd '$CUSE' | grep -q libcrypto"

# ---- a recording proxy: no libcrypto mapped, the machine id's digest stored ----
export TPMTRACE_HOST_ID_MACHINE_ID="tpmtrace test machine $$"
want=$(printf %s "$TPMTRACE_HOST_ID_MACHINE_ID" | sha256sum | cut -d' ' -f1)
db=$T/r.db
record_bg "$db" --spawn-swtpm --listen "unix:$T/p.sock"
wait_for_socket "$T/p.sock"
"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd pcrextend --count 50 --quiet >/dev/null
expect_eq "50 extends through the recorder" "$?" 0
maps=$(grep -c libcrypto "/proc/$RECORD_PID/maps")
expect_eq "the recorder maps no libcrypto" "$maps" 0
kill -INT "$RECORD_PID"
check "recorder exits 0" wait "$RECORD_PID"
expect_eq "the machine id's SHA-256 stored" \
	"$(sqlite3 "$db" "SELECT machine_id_sha256 FROM trace_host")" "$want"

# ---- a session replay loads it: every response HMAC checked ----
"$TPMTRACE" replay "$db" --trace 1 --policy linux-6.10 --json >"$T/rp.json" 2>"$T/rp.err"
expect_eq "replay under linux-6.10" "$?" 0
expect_eq "its 50 extends' response HMACs checked" \
	"$(json_get "$T/rp.json" runs.0.hmac_verified)" 50
expect_eq "the replay's trace has the same machine id digest" \
	"$(sqlite3 "$db" "SELECT machine_id_sha256 FROM trace_host WHERE trace_id = 2")" "$want"

# ---- without libcrypto: recording goes on, what needs it says so ----
# (the swtpm outside: it needs libcrypto itself)
start_swtpm "$T/sw"
without_lib libcrypto.so.3 "$TPMTRACE" record --backend "swtpm:path=$T/sw/s.sock" \
	--db "$T/n.db" --quiet -- true 2>"$T/nrec.err"
expect_eq "a recorder without libcrypto runs" "$?" 0
expect_eq "... and says once that it is missing" \
	"$(grep -c "libcrypto.so.3.*apt-get install libssl3" "$T/nrec.err")" 1
"$TPMTRACE" sql "$T/n.db" --no-header "SELECT count(*) FROM trace" >"$T/n.count" 2>&1
expect_eq "a recorder without libcrypto still stores its trace" "$(cat "$T/n.count")" 1
expect_eq "... its machine id digest unknown" \
	"$(sqlite3 "$T/n.db" "SELECT machine_id_sha256 IS NULL OR machine_id_sha256 = '' FROM trace_host")" 1
without_lib libcrypto.so.3 "$TPMTRACE" replay "$db" --trace 1 --policy linux-6.10 \
	--target "swtpm:path=$T/sw/s.sock" >/dev/null 2>"$T/nrp.err"
rc=$?
check "a session replay without libcrypto fails (rc $rc)" [ "$rc" -ne 0 ]
check "... naming the library and its package" \
	grep -q "libcrypto.so.3.*apt-get install libssl3" "$T/nrp.err"
without_lib libcrypto.so.3 "$TPMTRACE" pcrs "$db" >/dev/null 2>"$T/npcrs.err"
rc=$?
check "pcrs without libcrypto fails (rc $rc)" [ "$rc" -ne 0 ]
check "... naming the library and its package" \
	grep -q "libcrypto.so.3.*apt-get install libssl3" "$T/npcrs.err"
without_lib libcrypto.so.3 "$TPMTRACE" stats "$db" >/dev/null 2>&1
expect_eq "stats does not need it" "$?" 0
finish
