#!/bin/bash
# `tpmtrace record --pcap-live lo`: swtpm on TCP, tpm2-tools reaching it
# through tpm2-tss's pcap TCTI (the client's own log of what it sent and got).
# The live capture must hold the same commands and responses byte for byte in
# the same order, one client per TCP connection, and latencies no longer than
# the client's own round trips (the wire sees the command after the client
# stamped it and the response before the client stamped it). Also: capture
# until SIGINT without a command, and the command's exit status is returned.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_getrandom tshark sqlite3 python3
ls /usr/lib/*/libtss2-tcti-pcap.so* >/dev/null 2>&1 || skip "tpm2-tss pcap TCTI is not installed"
# Capturing needs CAP_NET_RAW (bit 13 of the effective set; root has it).
# Without it the test cannot run; with it, a failed capture is ours to fix.
cap_eff=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
[ $(((0x${cap_eff:-0} >> 13) & 1)) = 1 ] || skip "this process may not capture packets (no CAP_NET_RAW)"

# A free TCP port pair.
P=$(python3 -c 'import socket
for p in range(21000 + __import__("os").getpid() % 20000, 65000, 2):
    try:
        a = socket.socket(); a.bind(("127.0.0.1", p)); b = socket.socket(); b.bind(("127.0.0.1", p + 1))
        a.close(); b.close(); print(p); break
    except OSError: pass')
D=$T/tpm
mkdir -p "$D"
swtpm socket --tpm2 --tpmstate dir="$D" --server type=tcp,port="$P" --ctrl type=tcp,port=$((P + 1)) \
	--flags not-need-init,startup-clear --pid file="$D/pid" &
PIDS+=($!)
for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$P") 2>/dev/null && break; sleep 0.025; done

# A first capture with nothing to see.
"$TPMTRACE" record --pcap-live lo --port "$P" --db "$T/probe.db" --quiet -- true 2>"$T/err"
rc=$?
expect_eq "record --pcap-live lo captures ($(cat "$T/err"))" "$rc" 0

DB=$T/t.db
TCTI="pcap:swtpm:host=127.0.0.1,port=$P"
cat >"$T/work.sh" <<EOF
export TPM2TOOLS_TCTI='$TCTI' TCTI_PCAP_FILE='$T/client.pcap'
tpm2_getrandom 16 --hex >/dev/null &&
tpm2_pcrextend 16:sha256=$(printf '%064d' 42) &&
tpm2_createprimary -C o -G ecc -c '$T/p.ctx' >/dev/null &&
tpm2_flushcontext -t &&
tpm2_pcrread sha256:16 >/dev/null &&
exit 7
EOF
"$TPMTRACE" record --pcap-live lo --port "$P" --db "$DB" --payloads full --name live \
	-- sh "$T/work.sh" 2>"$T/err"
rc=$?
expect_eq "record returns the command's exit status ($(cat "$T/err"))" "$rc" 7
id=$(sqlite3 "$DB" "SELECT id FROM trace WHERE name='live'")
expect_eq "trace kind, status, source" "$(sqlite3 "$DB" "SELECT kind, status, source FROM trace WHERE id=$id")" \
	"record|complete|pcap-live:lo tcp port $P"

tshark -r "$T/client.pcap" -T fields -e tcp.srcport -e tcp.payload 2>/dev/null |
	awk '$2 != "" { gsub(":", "", $2); print ($1 == 2321 ? "R" : "C"), tolower($2) }' >"$T/want"
n=$(grep -c '^C' "$T/want")
check "the client's log holds commands ($n)" test "$n" -ge 8
sqlite3 "$DB" "SELECT 'C', lower(hex(cmd)), 'R', lower(hex(rsp)) FROM command WHERE trace_id=$id ORDER BY seq" |
	awk -F'|' '{ print $1, $2; print $3, $4 }' >"$T/got"
if diff -q "$T/want" "$T/got" >/dev/null; then PASS=$((PASS + 1)); else
	FAIL=$((FAIL + 1)); echo "FAILED: captured messages differ from the client's log:" >&2
	diff "$T/want" "$T/got" | head -10 >&2; fi
expect_eq "codes equal tshark's reading of the client's log" \
	"$(sqlite3 "$DB" "SELECT printf('0x%08x 0x%08x', cc, rc) FROM command WHERE trace_id=$id ORDER BY seq" | tr '\n' ' ')" \
	"$(tshark -r "$T/client.pcap" -T fields -e tpm.req.cc -e tpm.resp.rc 2>/dev/null | tr -d '\t' | grep . | paste -d' ' - - | tr '\n' ' ')"
expect_eq "nothing malformed, every command answered" \
	"$(sqlite3 "$DB" "SELECT count(*) FROM command WHERE trace_id=$id AND (flags & 10 OR rc IS NULL)")" 0
# The swtpm TCTI opens a connection per command: each its own client (peer addr:port).
expect_eq "every command's client is a distinct 127.0.0.1 connection" \
	"$(sqlite3 "$DB" "SELECT count(DISTINCT c.client_id) = count(*), min(k.peer LIKE '127.0.0.1:%') FROM command c
		JOIN client k ON k.trace_id=c.trace_id AND k.id=c.client_id WHERE c.trace_id=$id")" "1|1"
# Latency on the wire vs. the client's round trip (pcap TCTI stamps, us).
tshark -r "$T/client.pcap" -T fields -e frame.time_epoch -e tcp.srcport 2>/dev/null >"$T/times"
sqlite3 "$DB" "SELECT latency_ns FROM command WHERE trace_id=$id ORDER BY seq" >"$T/lat"
python3 - "$T/times" "$T/lat" <<'EOF'
import sys
from decimal import Decimal
t = [l.split('\t') for l in open(sys.argv[1]) if l.strip()]
rtt, pend = [], None
for ts, port in t:
    ts = Decimal(ts)
    if port.strip() != '2321':
        pend = ts
    else:
        rtt.append(int((ts - pend) * 10**9))
lat = [int(l) for l in open(sys.argv[2])]
assert len(lat) == len(rtt), (len(lat), len(rtt))
for a, b in zip(lat, rtt):
    assert 0 < a <= b + 2000, (a, b)
print("wire latency / client round trip (us):", " ".join("%d/%d" % (a // 1000, b // 1000) for a, b in zip(lat, rtt)))
EOF
check "0 < wire latency <= client round trip" test $? -eq 0

# Without a command: capture until SIGINT.
"$TPMTRACE" record --pcap-live lo --port "$P" --db "$DB" --name bg --quiet 2>"$T/bg.err" &
BG=$!
PIDS+=($BG)
sleep 0.5
export TCTI_PCAP_FILE="$T/bg.pcap"
TPM2TOOLS_TCTI="$TCTI" tpm2_getrandom 4 >/dev/null
TPM2TOOLS_TCTI="$TCTI" tpm2_pcrread sha1:0 >/dev/null
unset TCTI_PCAP_FILE
sleep 0.3
kill -INT $BG
wait $BG
rc=$?
expect_eq "SIGINT ends the capture with status 0 ($(cat "$T/bg.err"))" "$rc" 0
expect_eq "its trace holds the commands of the client's log" \
	"$(sqlite3 "$DB" "SELECT printf('0x%08x', cc) FROM command WHERE trace_id=(SELECT id FROM trace WHERE name='bg') ORDER BY seq" | tr '\n' ' ')" \
	"$(tshark -r "$T/bg.pcap" -T fields -e tpm.req.cc 2>/dev/null | grep . | tr '\n' ' ')"
expect_eq "default payloads are redacted" \
	"$(sqlite3 "$DB" "SELECT payloads, status FROM trace WHERE name='bg'")" "redacted|complete"
finish
