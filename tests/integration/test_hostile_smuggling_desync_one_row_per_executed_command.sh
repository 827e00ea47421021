#!/usr/bin/env bash
# Hostile clients and a backend out of step (issue 15, findings 1 and 11):
#  - smuggling: 4105 bytes in one write, a 4040-byte command and a PCR_Extend
#    behind it: two commands, both answered and both recorded (before, the
#    proxy forwarded all it had buffered as one message: swtpm ran both, the
#    database held one "larger than 4096 bytes" row and PCR 16 moved without a
#    recorded extend); a command declaring 4105 bytes (over the maximum) with a
#    PCR_Extend behind it is refused with TPM_RC_COMMAND_SIZE and never reaches
#    swtpm, nor does the extend;
#  - two commands in one write are two commands, answered in order; a command
#    in three writes is one;
#  - MS-simulator framing: a frame whose command says fewer bytes than the
#    frame (a PCR_Extend hidden in the rest) is refused, the next frame served;
#    locality 255 is answered TPM_RC_LOCALITY, not TPM_RC_FAILURE with a fake
#    backend-lost/backend-back pair;
#  - meanwhile honest clients get only answers to their own commands, and the
#    database holds one row per command swtpm executed: swtpm's own PCRs equal
#    `tpmtrace pcrs --expect` of the recording;
#  - desync: a backend that answers more bytes than its header declares (in
#    the same write, or later) never has those bytes handed to the next client;
#  - the QEMU interposer's data channel frames by the same rule (a fake QEMU
#    hands over a socketpair with SET_DATAFD).
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3 tpm2_pcrread tpm2_createprimary
H=(python3 "$TPMTRACE_TEST_LIB/hostile.py")

start_swtpm "$T/sw"
# The object the mix clients' ReadPublic asks for.
swtpm_primary "$T/sw/s.sock" || { echo "cannot prepare swtpm" >&2; exit 1; }
db=$T/h.db
record_bg "$db" --backend "swtpm:path=$T/sw/s.sock" --listen "unix:$T/p.sock" \
	--listen-mssim "tcp:127.0.0.1:0" --payloads full
port=$(listen_port mssim)
check "proxy is listening" [ -S "$T/p.sock" -a -n "$port" ]

# Honest clients throughout: every answer is checked against the command sent
# (an answer to another client's command counts as wrong).
goods=()
for tag in 1 2 3 4; do
	"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd mix --tag $tag --count 400 --quiet &
	goods+=($!)
done
"$TPMCLIENT" --connect "tcp:127.0.0.1:$port" --mssim --cmd mix --tag 5 --count 200 --quiet &
goods+=($!)

refused=80010000000a00000142
out=$("${H[@]}" smuggle "unix:$T/p.sock")
check "finding 1: 4105 bytes, a Hash and a PCR_Extend: the Hash answered first ($out)" \
	[ "$(head -c 4 <<<"$out")" = 8001 -a "$(sed -n 2p <<<"$out" | head -c 20)" = 80020000001300000000 ]
out=$("${H[@]}" oversize "unix:$T/p.sock")
expect_eq "finding 1: over-maximum command with a PCR_Extend behind it: refused, closed" \
	"$out" "$refused"$'\n'eof
out=$("${H[@]}" pipeline "unix:$T/p.sock")
second=$(sed -n 2p <<<"$out")
check "two commands in one write: GetRandom(8) answered first ($out)" \
	[ "$(head -c 24 <<<"$out")" = 800100000014000000000008 ]
check "... then the PCR_Extend" [ "${second:0:20}" = 80020000001300000000 ]
out=$("${H[@]}" split "unix:$T/p.sock")
check "a command in three writes is one command ($out)" [ "${out:0:20}" = 80020000001300000000 ]
out=$("${H[@]}" mssim-smuggle "127.0.0.1:$port")
check "simulator frame disagreeing with its command: refused, next frame served ($out)" \
	[ "$(sed -n 1p <<<"$out")" = "$refused" -a "$(sed -n 2p <<<"$out" | head -c 24)" = \
		800100000010000000000004 -a "$(sed -n 3p <<<"$out")" = open ]
out=$("${H[@]}" mssim-locality "127.0.0.1:$port" 255)
expect_eq "finding 11: locality 255 answered TPM_RC_LOCALITY" "$out" 80010000000a00000907$'\n'open

for p in "${goods[@]}"; do
	check "honest client $p got only its own answers" wait "$p"
done
kill -TERM $RECORD_PID
check "recorder exits 0" wait $RECORD_PID

q() { sqlite3 "$db" "$1"; }
has() { # FILL: rows whose command holds 32 bytes of FILL (a PCR_Extend digest)
	q "SELECT count(*) FROM command WHERE instr(cmd, x'$(printf "$1%.0s" $(seq 32))') > 0"
}
expect_eq "the extend behind the over-maximum command was never recorded" "$(has AA)" 0
expect_eq "the extend behind the 4040-byte Hash recorded once" "$(has EE)" 1
expect_eq "the 4040-byte Hash recorded as itself" \
	"$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'Hash') AND cmd_size=4040 AND malformed IS NULL")" 1
expect_eq "the extend hidden in a simulator frame was never recorded as sent" \
	"$(q "SELECT count(*) FROM command WHERE instr(cmd, x'$(printf "DD%.0s" $(seq 32))') > 0 AND rc IS NOT NULL")" 0
expect_eq "the pipelined extend recorded once" "$(has BB)" 1
expect_eq "the split extend recorded once" "$(has CC)" 1
expect_eq "refused: header and declared size kept" \
	"$(q "SELECT hex(substr(cmd,1,10)), cmd_size, malformed, rc IS NULL FROM command WHERE cmd_size=4105")" \
	"8001000010090000017D|4105|larger than 4096 bytes|1"
expect_eq "locality 255: a backend-refused event, no backend outage" \
	"$(q "SELECT count(*) FROM event WHERE kind='backend-refused'")|$(q "SELECT count(*) FROM event WHERE kind LIKE 'backend-lost%' OR kind='backend-back'")" "1|0"
expect_eq "locality 255: its row says what the client got" \
	"$(q "SELECT rc, locality FROM command WHERE locality=255")" "2311|255"

# One row per command swtpm executed: its PCRs are those of the recording.
check "swtpm's PCRs read directly" tpm2_pcrread -T "swtpm:path=$T/sw/s.sock" sha256 -o /dev/null \
	>"$T/swtpm-pcrs.txt"
check "PCR 16 was extended" [ "$(grep -c ' 16: 0x0000000000000000' "$T/swtpm-pcrs.txt")" -eq 0 ]
check "finding 1: swtpm's PCRs = the recorded commands' (pcrs --expect)" \
	"$TPMTRACE" pcrs "$db" --banks sha256 --expect "$T/swtpm-pcrs.txt"

# A backend out of step (once): desync_proxy WHEN NAME: a recorder into
# $T/NAME.db, listening on $T/NAME.sock, in front of a backend that answers
# more bytes than its header declares (tpmclient --extra WHEN).
desync_proxy() {
	"$TPMCLIENT" --extra "$1" --serve "unix:$T/$1.sock" &
	PIDS+=($!)
	wait_for_socket "$T/$1.sock"
	record_bg "$T/$2.db" --backend "swtpm:path=$T/$1.sock" --listen "unix:$T/$2.sock"
	wait_for_socket "$T/$2.sock"
}
# Same write: the command's client gets TPM_RC_FAILURE, the next one its own
# answer.
desync_proxy same d1
expect_eq "desync in the same write: that client gets TPM_RC_FAILURE" \
	"$("$TPMCLIENT" --connect "unix:$T/d1.sock" --hex 80010000000c0000017b0008)" 80010000000a00000101
expect_eq "... the next client its own answer" \
	"$("$TPMCLIENT" --connect "unix:$T/d1.sock" --hex 80010000000c0000017b0008)" 80010000000a00000000
kill -TERM $RECORD_PID
wait $RECORD_PID
expect_eq "... recorded as a backend error" \
	"$(sqlite3 "$T/d1.db" "SELECT count(*) FROM event WHERE kind='backend-lost' AND detail LIKE '%more bytes than its response header declares%'")" 1

# Later: the extra bytes are waiting when the next command is to go out.
desync_proxy late d2
expect_eq "desync later: the first client's answer" \
	"$("$TPMCLIENT" --connect "unix:$T/d2.sock" --hex 80010000000c0000017b0008)" 80010000000a00000000
sleep 0.3 # the unasked answer arrives
expect_eq "... the next client gets its own answer, not the unasked 0xBAD" \
	"$("$TPMCLIENT" --connect "unix:$T/d2.sock" --hex 80010000000c0000017b0008)" 80010000000a00000000
kill -TERM $RECORD_PID
wait $RECORD_PID
expect_eq "... a backend-desync event" \
	"$(sqlite3 "$T/d2.db" "SELECT count(*) FROM event WHERE kind='backend-desync' AND detail LIKE '%10 bytes%'")" 1
expect_eq "... no stored response holds 0xBAD" \
	"$(sqlite3 "$T/d2.db" "SELECT count(*) FROM command WHERE rc=2989")" 0

# The QEMU interposer: pipelined commands, and an over-maximum one with an
# extend behind it, on the data channel.
"$TPMTRACE" record --qemu-ctrl "$T/qemu.ctrl" --spawn-swtpm --db "$T/q.db" --payloads full \
	--quiet 2>"$T/q.err" &
qrec=$!
PIDS+=($qrec)
wait_for_socket "$T/qemu.ctrl"
out=$("${H[@]}" qemu "$T/qemu.ctrl")
expect_eq "interposer: INIT and SET_DATAFD answered" "$(grep -c '^init 00000000\|^datafd 00000000' <<<"$out")" 2
check "interposer: two commands in one write, two answers in order ($out)" \
	[ "$(grep -c '^800100000014000000000008' <<<"$out")" -eq 1 -a "$(grep -c '^80020000001300000000' <<<"$out")" -eq 1 ]
check "interposer: over the maximum: refused" grep -q "^$refused" <<<"$out"
wait $qrec
q2() { sqlite3 "$T/q.db" "$1"; }
expect_eq "interposer: the pipelined extend recorded once, the one behind the refused command never" \
	"$(q2 "SELECT count(*) FROM command WHERE instr(cmd, x'$(printf "BB%.0s" $(seq 32))') > 0")|$(q2 "SELECT count(*) FROM command WHERE instr(cmd, x'$(printf "AA%.0s" $(seq 32))') > 0")" \
	"1|0"
expect_eq "interposer: the refused command recorded with its declared size" \
	"$(q2 "SELECT cmd_size, malformed FROM command WHERE cmd_size = 4105")" "4105|larger than 4096 bytes"
finish
