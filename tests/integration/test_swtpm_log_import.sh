#!/bin/bash
# `tpmtrace import swtpm-log`: a real swtpm logs at level 20 while tpm2-tools
# talk to it through tpm2-tss's pcap TCTI. The imported commands and responses
# must equal, byte for byte and in order, what the client's own capture holds
# (read with tshark); control messages become events and SET_LOCALITY (sent
# with swtpm_ioctl) sets the locality of the next command. A log cut inside a
# dump imports what is complete and says so; a dump that disagrees with its
# header is an error naming file and line; a file without dumps leaves no trace.
. "$(dirname "$0")/../lib/common.sh"
need swtpm swtpm_ioctl tpm2_getrandom tshark sqlite3
[ -e /usr/lib/x86_64-linux-gnu/libtss2-tcti-pcap.so.0 ] || ls /usr/lib/*/libtss2-tcti-pcap.so* >/dev/null 2>&1 ||
	skip "tpm2-tss pcap TCTI (libtss2-tcti-pcap) is not installed"

D=$T/tpm
mkdir -p "$D"
swtpm socket --tpm2 --tpmstate dir="$D" --server type=unixio,path="$D/s.sock" \
	--ctrl type=unixio,path="$D/s.sock.ctrl" --flags not-need-init,startup-clear \
	--pid file="$D/pid" --log file="$D/swtpm.log",level=20 &
PIDS+=($!)
wait_for_listener "$D/s.sock"

# The workload, captured by the client side (pcap TCTI in front of swtpm).
export TPM2TOOLS_TCTI="pcap:swtpm:path=$D/s.sock" TCTI_PCAP_FILE="$T/client.pcap"
tpm2_getrandom 16 --hex >/dev/null &&
	tpm2_pcrextend 16:sha1=00112233445566778899aabbccddeeff00112233,sha256=$(printf '%064d' 7) &&
	tpm2_createprimary -C o -G ecc -c "$T/p.ctx" >/dev/null &&
	tpm2_readpublic -c "$T/p.ctx" >/dev/null &&
	tpm2_flushcontext -t &&
	tpm2_pcrread sha1:16+sha256:16 >/dev/null &&
	tpm2_getcap properties-fixed >/dev/null
check "tpm2-tools workload ran" test $? -eq 0
unset TCTI_PCAP_FILE
# Locality 3 through the control channel, then one raw command outside the
# client capture.
swtpm_ioctl --unix "$D/s.sock.ctrl" -l 3 >/dev/null
check "swtpm_ioctl -l 3" test $? -eq 0
"$TPMCLIENT" --connect "unix:$D/s.sock" --cmd getrandom --quiet
check "tpmclient getrandom at locality 3" test $? -eq 0
kill "$(cat "$D/pid")"
for _ in $(seq 100); do kill -0 "$(cat "$D/pid")" 2>/dev/null || break; sleep 0.05; done

DB=$T/t.db
# --payloads full: the bytes are compared with the client's (redacted, the
# random bytes of GetRandom would be zeros: test_hostile_imports_redact_...).
"$TPMTRACE" import swtpm-log "$D/swtpm.log" --db "$DB" --json --payloads full >"$T/sum.json" \
	2>"$T/err"
rc=$?
expect_eq "import exits 0" "$rc" 0
check "the warning of --payloads full, and no other message ($(cat "$T/err"))" \
	[ "$(grep -vc 'payloads full: secrets' "$T/err")" -eq 0 ]
id=$(sqlite3 "$DB" "SELECT id FROM trace WHERE kind='import' AND source='$D/swtpm.log'")
check "one trace for the log" test -n "$id"

# What the client saw, one message per line: C <hex> / R <hex>.
tshark -r "$T/client.pcap" -T fields -e tcp.srcport -e tcp.payload 2>/dev/null |
	awk '$2 != "" { gsub(":", "", $2); print ($1 == 2321 ? "R" : "C"), tolower($2) }' >"$T/want"
n_want=$(grep -c '^C' "$T/want")
check "the client capture holds commands ($n_want)" test "$n_want" -ge 10
# What the log import holds, minus the last command (tpmclient's).
sqlite3 "$DB" "SELECT 'C', lower(hex(cmd)), 'R', lower(hex(rsp)) FROM command WHERE trace_id=$id
	ORDER BY seq LIMIT $n_want" | awk -F'|' '{ print $1, $2; print $3, $4 }' >"$T/got"
if diff -q "$T/want" "$T/got" >/dev/null; then
	PASS=$((PASS + 1))
else
	FAIL=$((FAIL + 1))
	echo "FAILED: imported bytes differ from the client's capture:" >&2
	diff "$T/want" "$T/got" | head -10 >&2
fi
# Command and response codes through the decoder equal tshark's dissector.
expect_eq "command codes equal tshark's tpm.req.cc" \
	"$(sqlite3 "$DB" "SELECT printf('0x%08x', cc) FROM command WHERE trace_id=$id ORDER BY seq LIMIT $n_want" | tr '\n' ' ')" \
	"$(tshark -r "$T/client.pcap" -T fields -e tpm.req.cc 2>/dev/null | grep . | tr '\n' ' ')"
expect_eq "response codes equal tshark's tpm.resp.rc" \
	"$(sqlite3 "$DB" "SELECT printf('0x%08x', rc) FROM command WHERE trace_id=$id ORDER BY seq LIMIT $n_want" | tr '\n' ' ')" \
	"$(tshark -r "$T/client.pcap" -T fields -e tpm.resp.rc 2>/dev/null | grep . | tr '\n' ' ')"
expect_eq "one more command (tpmclient's GetRandom)" \
	"$(sqlite3 "$DB" "SELECT count(*) FROM command WHERE trace_id=$id")" "$((n_want + 1))"
expect_eq "its locality is 3 (from SET_LOCALITY), its code GetRandom" \
	"$(sqlite3 "$DB" "SELECT locality, printf('0x%x', cc) FROM command WHERE trace_id=$id ORDER BY seq DESC LIMIT 1")" \
	"3|0x17b"
expect_eq "all earlier commands at locality 0" \
	"$(sqlite3 "$DB" "SELECT count(*) FROM command WHERE trace_id=$id AND locality != 0")" 1
expect_eq "no latency, synthetic time flag on every row" \
	"$(sqlite3 "$DB" "SELECT count(*) FROM command WHERE trace_id=$id AND (latency_ns IS NOT NULL OR flags & 16 = 0)")" 0
expect_eq "nothing malformed" \
	"$(sqlite3 "$DB" "SELECT count(*) FROM command WHERE trace_id=$id AND flags & 2")" 0
# The tpm2-tools swtpm TCTI sends SET_LOCALITY(0) once per tool: 7 tools, plus ours.
expect_eq "control messages as events" \
	"$(sqlite3 "$DB" "SELECT group_concat(detail, ',') FROM (SELECT detail FROM event WHERE trace_id=$id AND kind='ctrl:SET_LOCALITY' ORDER BY seq)")" \
	"0,0,0,0,0,0,0,3"
expect_eq "events and commands interleave in log order (SET_LOCALITY 3 right before the last command)" \
	"$(sqlite3 "$DB" "SELECT (SELECT max(seq) FROM command WHERE trace_id=$id) - (SELECT max(seq) FROM event WHERE trace_id=$id)")" 1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); i=d["imports"][0]; assert i["synthetic_time"] and i["commands"] == int(sys.argv[2]) and d["failed"] == 0, d' \
	"$T/sum.json" "$((n_want + 1))"
check "JSON summary" test $? -eq 0

# A log cut inside a dump (copied while swtpm was writing).
hdr=$(grep -n 'SWTPM_IO_Write: length 387\|SWTPM_IO_Write: length [0-9][0-9][0-9]' "$D/swtpm.log" | head -1 | cut -d: -f1)
head -n $((hdr + 3)) "$D/swtpm.log" >"$T/cut.log"
"$TPMTRACE" import swtpm-log "$T/cut.log" --db "$DB" >"$T/out" 2>"$T/err"
rc=$?
expect_eq "a cut log imports ($(cat "$T/err"))" "$rc" 0
cid=$(sqlite3 "$DB" "SELECT id FROM trace WHERE source='$T/cut.log'")
expect_eq "its last command has no response" \
	"$(sqlite3 "$DB" "SELECT flags & 8, rc IS NULL FROM command WHERE trace_id=$cid ORDER BY seq DESC LIMIT 1")" "8|1"
check "the note names the cut dump's line" \
	grep -q "line $hdr is cut short" <(sqlite3 "$DB" "SELECT notes FROM trace WHERE id=$cid")

# A header that disagrees with its dump.
before=$(sqlite3 "$DB" "SELECT count(*) FROM trace")
awk 'done == 0 && /SWTPM_IO_Read: length 12/ { sub(/length 12/, "length 13"); done = NR } { print }' \
	"$D/swtpm.log" >"$T/bad.log"
bad_line=$(grep -n 'SWTPM_IO_Read: length 13' "$T/bad.log" | head -1 | cut -d: -f1)
"$TPMTRACE" import swtpm-log "$T/bad.log" --db "$DB" >/dev/null 2>"$T/err"
check "a wrong length fails" test $? -eq 1
check "the message names file and line ($(cat "$T/err"))" grep -q "bad.log:$bad_line: the header announces 13 bytes, the dump holds 12" "$T/err"

# Not a swtpm log.
printf 'hello\nworld\n' >"$T/none.log"
"$TPMTRACE" import swtpm-log "$T/none.log" --db "$DB" >/dev/null 2>"$T/err"
check "a file without dumps fails" test $? -eq 1
check "and says why ($(cat "$T/err"))" grep -q "level=20" "$T/err"
expect_eq "failed imports leave no trace row" "$(sqlite3 "$DB" "SELECT count(*) FROM trace")" "$before"
finish
