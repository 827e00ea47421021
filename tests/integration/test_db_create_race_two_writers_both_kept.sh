#!/usr/bin/env bash
# Two processes creating one new database (issue 22, item 2): 20 rounds of two
# `record --db r.db` started together and 20 rounds of two `import pcap --db
# j.db` started together. Each time both exit 0, the file exists and verify
# sees both traces (the schema is created in one write transaction, after
# looking again; nobody removes a file another process may be using).
. "$(dirname "$0")/../lib/common.sh"
need swtpm
PCAP=$TPMTRACE_SHARED_DATA/pcap/esys-clockset.int.pcap
[ -f "$PCAP" ] || skip "shared test data missing ($PCAP)"
ROUNDS=${RACE_ROUNDS:-20}

# one_round KIND N: two writers of KIND on $T/KIND-N.db at once; prints
# "rc1 rc2 exists traces verify-rc" ("-" for the last two without a file).
one_round() {
	local kind=$1 n=$2 db="$T/$1-$2.db" p1 p2 r1 r2 traces=- vrc=-
	if [ "$kind" = record ]; then
		"$TPMTRACE" record --spawn-swtpm --quiet --db "$db" -- true 2>"$T/e1.$n" &
		p1=$!
		"$TPMTRACE" record --spawn-swtpm --quiet --db "$db" -- true 2>"$T/e2.$n" &
		p2=$!
	else
		"$TPMTRACE" import pcap "$PCAP" --quiet --db "$db" >/dev/null 2>"$T/e1.$n" &
		p1=$!
		"$TPMTRACE" import pcap "$PCAP" --quiet --db "$db" >/dev/null 2>"$T/e2.$n" &
		p2=$!
	fi
	wait "$p1"
	r1=$?
	wait "$p2"
	r2=$?
	if [ -f "$db" ]; then
		"$TPMTRACE" verify "$db" >"$T/v.$n" 2>&1
		vrc=$?
		traces=$(grep -c '^trace [0-9]* (complete): .*: ok$' "$T/v.$n")
	fi
	[ "$r1$r2" = 00 ] || sed "s/^/  $kind round $n: /" "$T/e1.$n" "$T/e2.$n" >&2
	echo "$r1 $r2 $([ -f "$db" ] && echo yes || echo no) $traces $vrc"
}

for kind in record import; do
	good=0
	for n in $(seq "$ROUNDS"); do
		got=$(one_round "$kind" "$n")
		if [ "$got" = "0 0 yes 2 0" ]; then
			good=$((good + 1))
		else
			echo "$kind round $n: rc1 rc2 file traces verify = $got" >&2
		fi
	done
	expect_eq "$kind: rounds where both exit 0, the file exists, verify sees both traces" \
		"$good" "$ROUNDS"
done
finish
