#!/usr/bin/env bash
# Several clients at once through every front of the proxy: raw protocol on a
# unix socket and on TCP (persistent and one connection per command), the
# MS-simulator framing, tpm2-tss's swtpm TCTI (control channel forwarded) and
# its mssim TCTI (platform port mapped onto swtpm). Every command is answered,
# serialized to the one backend and recorded exactly once with its client.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_getrandom sqlite3

start_swtpm "$T/sw"
db=$T/clients.db
record_bg "$db" --backend "swtpm:path=$T/sw/s.sock" --listen "unix:$T/p.sock" \
	--listen "tcp:127.0.0.1:0" --listen-mssim "tcp:127.0.0.1:0"
port=$(listen_port swtpm)
mport=$(listen_port mssim)
check "proxy is listening" [ -S "$T/p.sock" -a -n "$port" -a -n "$mport" ]

check "startup through the proxy" "$TPMCLIENT" --connect "unix:$T/p.sock" --cmd startup
"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd getrandom --count 500 >"$T/c1" &
c1=$!
"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd getrandom --count 500 >"$T/c2" &
c2=$!
"$TPMCLIENT" --connect "tcp:127.0.0.1:$port" --new-conn --cmd pcrextend --count 300 >"$T/c3" &
c3=$!
"$TPMCLIENT" --connect "tcp:127.0.0.1:$port" --mssim --cmd pcrread --count 300 >"$T/c4" &
c4=$!
"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd big --count 50 >"$T/c5" &
c5=$!
for p in $c1 $c2 $c3 $c4 $c5; do
	check "client $p got every answer right" wait $p
done
check "tpm2-tools over the swtpm TCTI (TCP, control at port+1)" \
	env TPM2TOOLS_TCTI="swtpm:host=127.0.0.1,port=$port" tpm2_pcrread sha256:16 -o "$T/pcr16"
check "tpm2-tools over the mssim TCTI (platform port mapped)" \
	env TPM2TOOLS_TCTI="mssim:host=127.0.0.1,port=$mport" tpm2_getrandom 8 -o "$T/rnd"
kill -TERM $RECORD_PID
check "recorder exits 0 on SIGTERM" wait $RECORD_PID
check "summary printed" grep -q "dropped" "$T/record.err"

q() { sqlite3 "$db" "$1"; }
expect_eq "GetRandom recorded" "$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom')")" 1001
expect_eq "PCR_Extend recorded" "$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend')")" 300
expect_eq "Hash (1 KiB) recorded" "$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'Hash') AND cmd_size > 1024")" 50
check "PCR_Read recorded (300 + tpm2_pcrread)" [ "$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Read')")" -ge 301 ]
expect_eq "all succeeded" "$(q "SELECT count(*) FROM command WHERE rc != 0 OR rc IS NULL")" 0
expect_eq "two unix clients with 500 GetRandom each" \
	"$(q "SELECT group_concat(n) FROM (SELECT count(*) n FROM command c JOIN client k ON k.trace_id=c.trace_id AND k.id=c.client_id WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND k.pid IS NOT NULL GROUP BY client_id HAVING n = 500)")" "500,500"
expect_eq "client processes named (unix: startup, 2 x GetRandom, Hash; TCP: 2)" "$(q "SELECT count(*) FROM client WHERE comm='tpmclient'")" 6
expect_eq "TCP clients identified by their process (test_clients_named)" "$(q "SELECT count(*) FROM client WHERE pid IN ($c3, $c4)")" 2
check "mssim platform events" [ "$(q "SELECT count(*) FROM event WHERE kind IN ('platform:POWER_ON','platform:NV_ON')")" -ge 2 ]
check "swtpm control events" [ "$(q "SELECT count(*) FROM event WHERE kind='ctrl:SET_LOCALITY'")" -ge 1 ]
expect_eq "sequence numbers unique" "$(q "SELECT count(*) - count(DISTINCT seq) FROM (SELECT seq FROM command UNION ALL SELECT seq FROM event)")" 0
expect_eq "nothing dropped" "$(q "SELECT dropped FROM trace")" 0
check "verify" "$TPMTRACE" verify "$db" >/dev/null
finish
