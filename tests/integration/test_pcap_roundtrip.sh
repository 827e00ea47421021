#!/bin/bash
# Round trip: import the real captures, export each trace as pcapng (raw IPv4
# and Ethernet), check with tshark that command codes, response codes, sizes
# and times survive, import the exports again and compare every stored column
# with sqlite3. Also checks the CSV and JSON lines exports against the rows.
. "$(dirname "$0")/../lib/common.sh"
. "$TPMTRACE_TEST_LIB/tshark.sh"
DATA=$TPMTRACE_SHARED_DATA/pcap
need tshark sqlite3
ls "$DATA"/*.pcap >/dev/null 2>&1 || skip "no captures in $DATA"
W=$T


files=("$DATA"/*.pcap)
"$TPMTRACE" import pcap "${files[@]}" --db "$W/a.db" >/dev/null 2>"$W/err" && ok ||
	bad "import: $(cat "$W/err")"
exports=()
i=0
for f in "${files[@]}"; do
	i=$((i + 1))
	link=raw
	[ $((i % 2)) -eq 0 ] && link=ether
	out=$W/$i.pcapng
	if ! "$TPMTRACE" export "$W/a.db" --trace "$i" --pcapng "$out" --link $link 2>"$W/err"; then
		bad "export trace $i: $(cat "$W/err")"
		continue
	fi
	exports+=("$out")
	perm=$(stat -c %a "$out")
	[ "$perm" = 600 ] && ok || bad "$out has mode $perm"
	# tshark reads the export with default preferences like the original.
	if diff <(tshark_msgs "$f") <(tshark_msgs "$out") >"$W/diff"; then ok; else
		bad "$f -> $link export: tshark sees other codes/sizes/times"; head -4 "$W/diff"; fi
	enc=$(capinfos -E "$out" 2>/dev/null | awk -F': *' '/encapsulation/ { print $2 }')
	case $link in
	raw) [ "$enc" = "Raw IPv4" ] && ok || bad "$out encapsulation '$enc'" ;;
	ether) [ "$enc" = "Ethernet" ] && ok || bad "$out encapsulation '$enc'" ;;
	esac
done
res=$(capinfos "$W/1.pcapng" 2>/dev/null | grep -c "precision: *nanoseconds")
[ "$res" -ge 1 ] && ok || bad "export does not declare nanosecond timestamps"
tshark -r "$W/1.pcapng" -T fields -e frame.comment 2>/dev/null | head -1 | grep -q 'locality 0 latency' &&
	ok || bad "no locality/latency packet comment"

"$TPMTRACE" import pcap "${exports[@]}" --db "$W/b.db" >/dev/null 2>"$W/err" && ok ||
	bad "re-import: $(cat "$W/err")"
cols="seq, t_submit_ns, t_done_ns, latency_ns, cc, locality, tag, cmd_size, rsp_size, rc,
	handle1, handle2, handle3, rsp_handle, n_sessions, sess_handle, sess_attrs, auth_kind,
	pcr, client_id, flags, malformed, hex(cmd), hex(rsp)"
for t in $(seq 1 ${#exports[@]}); do
	d=$(sqlite3 "$W/a.db" "ATTACH '$W/b.db' AS b;
		SELECT count(*) FROM (SELECT $cols FROM main.command WHERE trace_id = $t
			EXCEPT SELECT $cols FROM b.command WHERE trace_id = $t);
		SELECT count(*) FROM (SELECT $cols FROM b.command WHERE trace_id = $t
			EXCEPT SELECT $cols FROM main.command WHERE trace_id = $t);
		SELECT count(*) FROM (SELECT id, peer FROM main.client WHERE trace_id = $t
			EXCEPT SELECT id, peer FROM b.client WHERE trace_id = $t);" | tr '\n' ' ')
	n=$(sqlite3 "$W/b.db" "SELECT count(*) FROM command WHERE trace_id = $t")
	[ "$d" = "0 0 0 " ] && [ "$n" -gt 0 ] && ok || bad "trace $t: rows differ after round trip ($d; $n rows)"
done

# CSV and JSON lines: one row per command, same codes in the same order.
"$TPMTRACE" export "$W/a.db" --trace 5 --csv "$W/5.csv" --jsonl "$W/5.jsonl" 2>/dev/null && ok || bad "csv/jsonl export"
want=$(sqlite3 "$W/a.db" "SELECT cc || ':' || rc || ':' || coalesce(handle1, '') FROM command WHERE trace_id = 5 ORDER BY seq")
got_csv=$(python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])): print(r["cc"] + ":" + r["rc"] + ":" + r["handle1"])' "$W/5.csv")
got_json=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l); print("%d:%d:%s" % (r["cc"], r["rc"], "" if r["handle1"] is None else r["handle1"]))' "$W/5.jsonl")
[ -n "$want" ] && [ "$want" = "$got_csv" ] && ok || bad "CSV rows differ from the database"
[ -n "$want" ] && [ "$want" = "$got_json" ] && ok || bad "JSON lines differ from the database"
finish
