#!/bin/bash
# The importer on other encapsulations and framings, made from real captured
# commands: text2pcap (Wireshark's tool) writes Ethernet/IPv4 and Ethernet/IPv6
# captures from hex dumps of the real messages, split into small TCP segments,
# and in MS simulator framing with platform-port codes; pcap_fixture.py swaps
# the Ethernet header for Linux cooked (SLL, SLL2) and BSD loopback headers.
# Every variant must give the commands and response codes that tshark reads
# from the original capture, with the original timestamps. Also: several
# sections with different link types in one file, and two interleaved clients.
. "$(dirname "$0")/../lib/common.sh"
F=$TPMTRACE_SHARED_DATA/pcap/esys-create-session-auth-ecc.int.pcap
FIX=$TPMTRACE_SRC/tests/integration/pcap_fixture.py
need tshark text2pcap mergecap editcap sqlite3 python3
[ -r "$F" ] || skip "$F missing"
W=$T
export TZ=UTC

# Ground truth from the original: "cc rc" per command, and the request times.
tshark -r "$F" -T fields -e tpm.req.cc 2>/dev/null | grep . >"$W/cc"
tshark -r "$F" -T fields -e tpm.resp.rc 2>/dev/null | grep . >"$W/rc"
paste -d ' ' "$W/cc" "$W/rc" >"$W/want"
tshark -r "$F" -Y tpm.req.cc -T fields -e frame.time_epoch 2>/dev/null |
	sed 's/\.//; s/^0*//' >"$W/want_t"
ncmd=$(wc -l <"$W/want")
[ "$ncmd" -gt 10 ] && ok || bad "tshark found only $ncmd commands in $F"

tshark -r "$F" -T fields -e frame.time_epoch -e tcp.srcport -e tcp.payload 2>/dev/null >"$W/fields"
t2p() { text2pcap -q -D -t "%Y-%m-%d %H:%M:%S.%f" "$@" 2>"$W/t2p.err" || bad "text2pcap $*: $(cat "$W/t2p.err")"; }

# import_cmp NAME FILE: import FILE as its own database and compare it with the
# original (its own checks, counted with ok/bad); 0 when the import worked.
import_cmp() {
	local name=$1 file=$2 db=$W/$1.db
	if ! "$TPMTRACE" import pcap "$file" --db "$db" >"$W/out" 2>"$W/err"; then
		bad "$name: import failed: $(cat "$W/err")"
		return 1
	fi
	sqlite3 -separator ' ' "$db" "SELECT printf('0x%08x', cc), printf('0x%08x', rc) FROM command
		WHERE client_id = (SELECT min(client_id) FROM command) ORDER BY seq" >"$W/got"
	if diff -q "$W/want" "$W/got" >/dev/null; then ok; else
		bad "$name: commands/responses differ from the original"; diff "$W/want" "$W/got" | head -4; fi
	local mal
	mal=$(sqlite3 "$db" "SELECT count(*) FROM command WHERE flags & 10")
	[ "$mal" = 0 ] && ok || bad "$name: $mal malformed or unanswered commands"
	return 0
}
check_times() {
	sqlite3 "$W/$1.db" "SELECT t_submit_ns FROM command ORDER BY seq" >"$W/got_t"
	# A split command is stamped with its last segment (1 ns per segment later).
	python3 - "$W/want_t" "$W/got_t" "$2" <<'PY' && ok || bad "$1: submit times differ from the capture's"
import sys
w = [int(x) for x in open(sys.argv[1])]
g = [int(x) for x in open(sys.argv[2])]
slack = int(sys.argv[3])
sys.exit(0 if len(w) == len(g) and all(0 <= b - a <= slack for a, b in zip(w, g)) else 1)
PY
}

# Ethernet + IPv4, and Ethernet + IPv6.
python3 "$FIX" dump <"$W/fields" >"$W/plain.txt"
t2p -4 10.1.1.1,10.2.2.2 -T 50001,2321 "$W/plain.txt" "$W/eth4.pcapng"
import_cmp eth4 "$W/eth4.pcapng" && check_times eth4 0
enc=$(capinfos -E "$W/eth4.pcapng" | awk -F': *' '/encapsulation/ { print $2 }')
[ "$enc" = Ethernet ] && ok || bad "text2pcap wrote '$enc', not Ethernet"
t2p -6 fd00::1,fd00::2 -T 50001,2321 "$W/plain.txt" "$W/eth6.pcapng"
import_cmp eth6 "$W/eth6.pcapng" && check_times eth6 0
peer=$(sqlite3 "$W/eth6.db" "SELECT peer FROM client")
[ "$peer" = "[fd00::1]:50001" ] && ok || bad "IPv6 client peer '$peer'"

# Without timestamps text2pcap makes them up, 1 us apart: flagged synthetic.
sed 's/^\([IO]\) .*/\1/' "$W/plain.txt" >"$W/notime.txt"
text2pcap -q -D -4 10.1.1.1,10.2.2.2 -T 50001,2321 "$W/notime.txt" "$W/notime.pcapng" 2>/dev/null
if import_cmp notime "$W/notime.pcapng"; then
	n=$(sqlite3 "$W/notime.db" "SELECT count(*) FROM command WHERE NOT flags & 16")
	[ "$n" = 0 ] && ok || bad "$n commands with made-up times not flagged synthetic"
	sqlite3 "$W/notime.db" "SELECT notes FROM trace" | grep -q "synthetic" && ok || bad "no synthetic note"
fi
n=$(sqlite3 "$W/eth4.db" "SELECT count(*) FROM command WHERE flags & 16")
[ "$n" = 0 ] && ok || bad "$n commands with real times flagged synthetic"

# Linux cooked v1/v2 and BSD loopback, from a classic pcap of the Ethernet one.
editcap -F pcap "$W/eth4.pcapng" "$W/eth4.pcap"
for k in sll sll2 null; do
	python3 "$FIX" relink $k "$W/eth4.pcap" "$W/$k.pcap" || { bad "relink $k"; continue; }
	# tshark must read the fixture as we do, or the fixture is wrong.
	tshark -r "$W/$k.pcap" -T fields -e tpm.req.cc 2>/dev/null | grep . >"$W/k_cc"
	diff -q "$W/cc" "$W/k_cc" >/dev/null && ok || bad "$k fixture: tshark does not decode it"
	import_cmp $k "$W/$k.pcap"
done
t2p -6 fd00::1,fd00::2 -T 50001,2321 -F pcap "$W/plain.txt" "$W/eth6.pcap"
python3 "$FIX" relink sll2 "$W/eth6.pcap" "$W/sll2v6.pcap" && import_cmp sll2v6 "$W/sll2v6.pcap"

# Reassembly: every message cut into 7-byte segments.
python3 "$FIX" dump --split 7 <"$W/fields" >"$W/split.txt"
t2p -4 10.1.1.1,10.2.2.2 -T 50001,2321 "$W/split.txt" "$W/split.pcapng"
nseg=$(capinfos -c -M "$W/split.pcapng" | awk '/Number of packets/ { print $NF }')
[ "$nseg" -gt $((ncmd * 4)) ] && ok || bad "split capture has only $nseg packets"
import_cmp split "$W/split.pcapng" && check_times split 1000

# MS simulator framing at locality 3, responses in three segments, and
# POWER_ON, NV_ON on the platform port a second before the first command.
python3 "$FIX" dump --mssim --locality 3 <"$W/fields" >"$W/mssim.txt"
t2p -4 10.1.1.1,10.2.2.2 -T 50001,2321 "$W/mssim.txt" "$W/mssim-cmd.pcapng"
t0=$(head -1 "$W/fields" | cut -f1)
python3 "$FIX" platform "$((${t0%.*} - 1)).${t0#*.}" 1 11 >"$W/plat.txt"
t2p -4 10.1.1.1,10.2.2.2 -T 50002,2322 "$W/plat.txt" "$W/mssim-plat.pcapng"
mergecap -w "$W/mssim.pcapng" "$W/mssim-plat.pcapng" "$W/mssim-cmd.pcapng"
import_cmp mssim "$W/mssim.pcapng" && check_times mssim 2
loc=$(sqlite3 "$W/mssim.db" "SELECT group_concat(DISTINCT locality) FROM command")
[ "$loc" = 3 ] && ok || bad "mssim localities '$loc', want 3"
ev=$(sqlite3 "$W/mssim.db" "SELECT group_concat(kind, ',') FROM (SELECT kind FROM event ORDER BY seq)")
[ "$ev" = "POWER_ON,NV_ON" ] && ok || bad "mssim events '$ev'"
q="SELECT cmd_size, rsp_size, length(cmd), length(rsp) FROM command ORDER BY seq"
if diff -q <(sqlite3 "$W/mssim.db" "$q") <(sqlite3 "$W/eth4.db" "$q") >/dev/null; then ok; else
	bad "mssim framing not stripped: sizes differ from the raw capture's"; fi

# Several sections, each with its own link type (raw IPv4 then Ethernet).
cat "$F" "$W/eth4.pcapng" >"$W/sections.pcapng"
if "$TPMTRACE" import pcap "$W/sections.pcapng" --db "$W/sections.db" >/dev/null 2>"$W/err"; then
	n=$(sqlite3 "$W/sections.db" "SELECT count(*) || ' ' || count(DISTINCT client_id) FROM command")
	[ "$n" = "$((ncmd * 2)) 2" ] && ok || bad "two sections gave '$n' (commands, clients)"
	notes=$(sqlite3 "$W/sections.db" "SELECT notes FROM trace")
	case $notes in *"2 section(s)"*) ok ;; *) bad "notes: $notes" ;; esac
else
	bad "two sections: $(cat "$W/err")"
fi

# The same capture twice: the second section reuses addresses, ports and
# sequence numbers (as the pcap TCTI does on every initialisation); it must
# not be taken for retransmitted data.
cat "$F" "$F" >"$W/twice.pcapng"
if "$TPMTRACE" import pcap "$W/twice.pcapng" --db "$W/twice.db" >/dev/null 2>"$W/err"; then
	n=$(sqlite3 "$W/twice.db" "SELECT count(*) || ' ' || count(DISTINCT client_id) || ' ' || sum(flags & 10 != 0) FROM command")
	[ "$n" = "$((ncmd * 2)) 2 0" ] && ok || bad "same section twice gave '$n' (commands, clients, bad)"
else
	bad "same section twice: $(cat "$W/err")"
fi

# Two clients interleaved packet by packet (same timestamps): each connection
# keeps its own commands and responses.
t2p -4 10.7.7.7,10.2.2.2 -T 50009,2321 "$W/plain.txt" "$W/eth4b.pcapng"
mergecap -w "$W/two.pcapng" "$W/eth4.pcapng" "$W/eth4b.pcapng"
if "$TPMTRACE" import pcap "$W/two.pcapng" --db "$W/two.db" >/dev/null 2>"$W/err"; then
	for c in 1 2; do
		sqlite3 -separator ' ' "$W/two.db" "SELECT printf('0x%08x', cc), printf('0x%08x', rc)
			FROM command WHERE client_id = $c ORDER BY seq" >"$W/got"
		diff -q "$W/want" "$W/got" >/dev/null && ok || bad "interleaved client $c differs"
	done
else
	bad "interleaved: $(cat "$W/err")"
fi
finish
