#!/bin/bash
# Golden test: every real capture in $TPMTRACE_SHARED_DATA/pcap imports with no
# malformed command, and the command codes, response codes, message sizes and
# timestamps equal what Wireshark's TPM 2.0 dissector (tshark) reads from the
# same file.
. "$(dirname "$0")/../lib/common.sh"
. "$TPMTRACE_TEST_LIB/tshark.sh"
DATA=$TPMTRACE_SHARED_DATA/pcap
need tshark sqlite3
ls "$DATA"/*.pcap >/dev/null 2>&1 || skip "no captures in $DATA"
W=$T

db_msgs() {
	sqlite3 -separator ' ' "$1" "SELECT 'C', printf('0x%08x', cc), cmd_size, t_submit_ns,
		'R', printf('0x%08x', rc), rsp_size, t_done_ns FROM command WHERE trace_id = $2
		ORDER BY seq" | awk '{ print $1, $2, $3, $4; print $5, $6, $7, $8 }'
}

files=("$DATA"/*.pcap)
t0=$(date +%s%N)
"$TPMTRACE" import pcap "${files[@]}" --db "$W/t.db" --json >"$W/sum.json" 2>"$W/err"
rc=$?
t1=$(date +%s%N)
echo "imported ${#files[@]} captures in $(((t1 - t0) / 1000000)) ms"
[ $rc -eq 0 ] && ok || bad "import exited $rc: $(cat "$W/err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["failed"] == 0 and d["malformed"] == 0, d' \
	"$W/sum.json" && ok || bad "JSON summary: $(cat "$W/sum.json")"
n_json=$(json_get "$W/sum.json" commands)
n_db=$(sqlite3 "$W/t.db" "SELECT count(*) FROM command")
[ "$n_json" = "$n_db" ] && ok || bad "summary says $n_json commands, database holds $n_db"

for f in "${files[@]}"; do
	id=$(sqlite3 "$W/t.db" "SELECT id FROM trace WHERE source = '$f' AND kind = 'import'")
	if [ -z "$id" ]; then
		bad "$f: no trace"
		continue
	fi
	mal=$(sqlite3 "$W/t.db" "SELECT count(*) FROM command WHERE trace_id = $id AND (flags & 2 OR malformed IS NOT NULL)")
	[ "$mal" = 0 ] && ok || bad "$f: $mal malformed commands"
	norsp=$(sqlite3 "$W/t.db" "SELECT count(*) FROM command WHERE trace_id = $id AND rc IS NULL")
	[ "$norsp" = 0 ] && ok || bad "$f: $norsp commands without response"
	tshark_msgs "$f" >"$W/want"
	db_msgs "$W/t.db" "$id" >"$W/got"
	[ -s "$W/want" ] || bad "$f: tshark found no TPM messages"
	# Command codes alone, then codes, sizes and times together.
	if diff <(awk '$1 == "C" { print $2 }' "$W/want") <(awk '$1 == "C" { print $2 }' "$W/got") >/dev/null; then ok; else
		bad "$f: command codes differ from tshark's tpm.req.cc"; fi
	if diff <(awk '$1 == "R" { print $2 }' "$W/want") <(awk '$1 == "R" { print $2 }' "$W/got") >/dev/null; then ok; else
		bad "$f: response codes differ from tshark's tpm.resp.rc"; fi
	if diff "$W/want" "$W/got" >"$W/diff"; then ok; else
		bad "$f: sizes or times differ:"; head -5 "$W/diff"; fi
done
# The same captures as classic pcap files, micro- and nanosecond (editcap):
# a classic file is read straight from its bytes, pcapng through libpcap
# (recorder/import/pcap_import.c, struct reader). Every column of every
# command the same as from the pcapng original.
cols=$(sqlite3 "$W/t.db" "SELECT group_concat(name, ', ') FROM pragma_table_info('command')
	WHERE name NOT IN ('id', 'trace_id')")
rows() { sqlite3 "$1" "SELECT $cols FROM command WHERE trace_id =
	(SELECT id FROM trace WHERE source = '$2' AND kind = 'import') ORDER BY seq" | md5sum; }
# big-endian: the nanosecond files with every header field byte-swapped.
to_be() {
	python3 - "$1" "$2" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
m, ma, mi, z, sf, snap, lt = struct.unpack_from("<IHHiIII", d)
out = [struct.pack(">IHHiIII", m, ma, mi, z, sf, snap, lt)]
o = 24
while o < len(d):
    s, f, cl, ol = struct.unpack_from("<IIII", d, o)
    out.append(struct.pack(">IIII", s, f, cl, ol) + d[o + 16:o + 16 + cl])
    o += 16 + cl
open(sys.argv[2], "wb").write(b"".join(out))
PY
}
for fmt in pcap nsecpcap bigendian; do
	mkdir -p "$W/$fmt"
	for f in "${files[@]}"; do
		b=$(basename "$f")
		if [ $fmt = bigendian ]; then to_be "$W/nsecpcap/$b" "$W/$fmt/$b"; else
			editcap -F $fmt "$f" "$W/$fmt/$b"; fi || bad "$fmt: $f"
	done
	check "classic $fmt: imported" "$TPMTRACE" import pcap "$W/$fmt"/*.pcap --db "$W/$fmt.db" --quiet
	same=0
	for f in "${files[@]}"; do
		[ "$(rows "$W/t.db" "$f")" = "$(rows "$W/$fmt.db" "$W/$fmt/$(basename "$f")")" ] &&
			same=$((same + 1))
	done
	expect_eq "classic $fmt: captures whose commands equal the pcapng's in every column" \
		"$same" "${#files[@]}"
done
# The tpm2-tss pcap TCTI stamps in microseconds with real clocks.
notes=$(sqlite3 "$W/t.db" "SELECT count(*) FROM trace WHERE notes LIKE '%resolution 1000 ns%' AND notes NOT LIKE '%synthetic%'")
[ "$notes" = "${#files[@]}" ] && ok || bad "resolution/synthetic notes: $notes of ${#files[@]}"
synth=$(sqlite3 "$W/t.db" "SELECT count(*) FROM command WHERE flags & 16")
[ "$synth" = 0 ] && ok || bad "$synth commands flagged synthetic time"
finish
