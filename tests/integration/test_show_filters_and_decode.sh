#!/usr/bin/env bash
# `tpmtrace show` as a decoder: the demo workload (real tpm2-tools) plus a
# policy session with PolicyPCR, recorded through the proxy against a fresh
# swtpm. Every filter (--cc, --rc, --client, --seq, --slower-than) and their
# combination keeps exactly the rows an independent `tpmtrace sql` query
# counts; --json carries "version" and the same rows; `show --seq N -V`
# explains every command of the trace, and none of the codes issue 16 lists
# shows a "?" (undecoded) nor falls back to hex; in the default (redacted)
# recording the sealed secret and the random bytes read <redacted>, never zeros.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_startup tpm2_policypcr sqlite3 python3

work() {
	"$TPMTRACE_SRC/tools/demo-workload" 3 || return 1
	cd "$(mktemp -d "$T/pol.XXXXXX")" || return 1
	tpm2_startauthsession --policy-session -S s.ctx >/dev/null &&
		tpm2_policypcr -S s.ctx -l sha256:0,16 >/dev/null &&
		tpm2_flushcontext s.ctx
}
export -f work
export T TPMTRACE_SRC
db=$T/show.db
"$TPMTRACE" record --spawn-swtpm --payloads full --db "$db" -- bash -c work >"$T/out" 2>"$T/err"
rc=$?
expect_eq "workload exit status" "$rc" 0
[ $rc -eq 0 ] || cat "$T/err" >&2

n_of() { "$TPMTRACE" show "$db" "$@" | grep -vc '  -- '; }
q() { "$TPMTRACE" sql "$db" "$1" | tail -n 1; }

expect_eq "no filter: every command" "$(n_of)" "$(q 'SELECT count(*) FROM command WHERE trace_id=1')"
expect_eq "--cc PCR_Extend,pcr_read" "$(n_of --cc PCR_Extend,pcr_read)" \
	"$(q 'SELECT count(*) FROM command WHERE trace_id=1 AND cc IN (386, 382)')"
expect_eq "--cc 0x165 (hex)" "$(n_of --cc 0x165)" "$(q 'SELECT count(*) FROM command WHERE trace_id=1 AND cc=357')"
expect_eq "--rc ok" "$(n_of --rc ok)" "$(q 'SELECT count(*) FROM command WHERE trace_id=1 AND rc=0')"
expect_eq "--rc error" "$(n_of --rc error)" "$(q 'SELECT count(*) FROM command WHERE trace_id=1 AND rc<>0')"
check "the workload has an error response (Startup: already started)" [ "$(n_of --rc error)" -gt 0 ]
expect_eq "--rc 100 (hex)" "$(n_of --rc 100)" "$(q 'SELECT count(*) FROM command WHERE trace_id=1 AND rc=256')"
cid=$(q "SELECT id FROM client WHERE trace_id=1 AND comm LIKE 'tpm2_pcrread%' LIMIT 1")
comm=$(q "SELECT comm FROM client WHERE trace_id=1 AND id=$cid")
expect_eq "--client ID" "$(n_of --client "$cid")" "$(q "SELECT count(*) FROM command WHERE trace_id=1 AND client_id=$cid")"
expect_eq "--client COMM" "$(n_of --client "$comm")" \
	"$(q "SELECT count(*) FROM command c JOIN client l ON l.trace_id=1 AND l.id=c.client_id WHERE c.trace_id=1 AND l.comm='$comm'")"
expect_eq "--seq 10-40" "$(n_of --seq 10-40)" "$(q 'SELECT count(*) FROM command WHERE trace_id=1 AND seq BETWEEN 10 AND 40')"
all_seq=$(q 'SELECT count(*) FROM command WHERE trace_id=1 AND seq BETWEEN 10 AND 40')
all_ev=$(q 'SELECT count(*) FROM event WHERE trace_id=1 AND seq BETWEEN 10 AND 40')
expect_eq "--seq keeps the events of the range" "$("$TPMTRACE" show "$db" --seq 10-40 | wc -l)" $((all_seq + all_ev))
expect_eq "--seq N: one row" "$("$TPMTRACE" show "$db" --seq 12 | wc -l)" 1
ms=$(q 'SELECT percentile(latency_ns, 50) / 1e6 FROM command WHERE trace_id=1')
expect_eq "--slower-than the median" "$(n_of --slower-than "$ms")" \
	"$(q "SELECT count(*) FROM command WHERE trace_id=1 AND latency_ns > CAST($ms * 1e6 AS INTEGER)")"
expect_eq "filters combine (AND)" "$(n_of --cc PCR_Extend --rc ok --seq 1-30)" \
	"$(q 'SELECT count(*) FROM command WHERE trace_id=1 AND cc=386 AND rc=0 AND seq BETWEEN 1 AND 30')"
check "a command filter leaves the events out" [ "$("$TPMTRACE" show "$db" --rc ok | grep -c '  -- ')" -eq 0 ]

"$TPMTRACE" show "$db" --cc GetCapability --json >"$T/j.json"
expect_eq "--json: version and the rows" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["version"], len(d["rows"]), {r["name"] for r in d["rows"]} == {"GetCapability"})' "$T/j.json")" \
	"1 $(q 'SELECT count(*) FROM command WHERE trace_id=1 AND cc=378') True"

bad_usage() { "$TPMTRACE" show "$db" "$@" >/dev/null 2>&1; [ $? -eq 2 ]; }
check "--cc with an unknown name is a usage error" bad_usage --cc NoSuchCommand
check "--rc with a bad value is a usage error" bad_usage --rc maybe
check "--seq B-A is a usage error" bad_usage --seq 9-3
check "-V with --seq of an event is an error" test "$("$TPMTRACE" show "$db" --seq 1 -V >/dev/null 2>&1; echo $?)" = 1
expect_eq "-V explains each command the filters keep" "$("$TPMTRACE" show "$db" --cc Unseal,GetRandom -V | grep -c '^Command: ')" \
	"$(q 'SELECT count(*) FROM command WHERE trace_id=1 AND cc IN (350, 379)')"

# -V on every command: the listed codes decode by name, nothing shows "?".
listed="386 382 374 353 354 357 305 339 343 350 379 378 298 334 311 361 290 383 344 371"
bad=0 seen=""
while read -r seq cc; do
	"$TPMTRACE" show "$db" --seq "$seq" -V >"$T/v.txt" || { bad=$((bad + 1)); continue; }
	case " $listed " in *" $cc "*)
		if grep -q '?\|no layout here' "$T/v.txt"; then
			bad=$((bad + 1))
			echo "seq $seq (cc $cc) not fully decoded:" >&2
			grep '?\|no layout' "$T/v.txt" >&2
		fi
		seen="$seen $cc"
		;;
	esac
done < <(sqlite3 -separator ' ' "$db" "SELECT seq, cc FROM command WHERE trace_id=1 ORDER BY seq")
expect_eq "show -V: every command explained, no '?' for the listed codes" "$bad" 0
missing=""
for cc in $listed; do case "$seen " in *" $cc "*) ;; *) missing="$missing $cc" ;; esac; done
expect_eq "the workload covers every listed code" "$missing" ""
s=$(q 'SELECT min(seq) FROM command WHERE trace_id=1 AND cc=386')
"$TPMTRACE" show "$db" --seq "$s" -V --json >"$T/v.json"
check "-V --json parses, version 1" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["commands"]
assert d["version"] == 1 and len(c) == 1 and c[0]["name"] == "PCR_Extend" and c[0]["command"] and c[0]["response"]' "$T/v.json"

# Redacted (the default): the secret is shown as <redacted>, never as zeros.
db2=$T/redacted.db
"$TPMTRACE" record --spawn-swtpm --db "$db2" -- "$TPMTRACE_SRC/tools/demo-workload" 1 >/dev/null 2>&1
expect_eq "redacted run exit status" "$?" 0
s=$(sqlite3 "$db2" "SELECT seq FROM command WHERE cc=350 AND rc=0")
"$TPMTRACE" show "$db2" --seq "$s" -V >"$T/unseal.txt"
check "Unseal outData: <redacted>" grep -q 'outData: size 20 <redacted>' "$T/unseal.txt"
check "Unseal: no zeros shown for the secret" test -z "$(grep 'outData: size 20 0000' "$T/unseal.txt")"
s=$(sqlite3 "$db2" "SELECT min(seq) FROM command WHERE cc=379 AND rc=0")
check "GetRandom randomBytes: <redacted>" grep -q 'randomBytes: size 32 <redacted>' \
	<("$TPMTRACE" show "$db2" --seq "$s" -V)

# Filters that keep nothing: no row, and stderr says so (exit 0, docs/cli.md).
# (A client the trace does not have is an error: test_clients_named.)
for f in "--client $cid --cc Quote" "--seq 100000" "--cc Quote --rc 0x922"; do
	"$TPMTRACE" show "$db" $f >"$T/none.out" 2>"$T/none.err"
	rc=$?
	expect_eq "show $f: exit status" "$rc" 0
	expect_eq "show $f: no row" "$(wc -c <"$T/none.out")" 0
	check "show $f: says that nothing matched" grep -q 'nothing matches the filters' "$T/none.err"
done
"$TPMTRACE" show "$db" --client "$cid" --cc Quote --json >"$T/none.json" 2>"$T/none.err"
expect_eq "show --json of nothing: an object without rows" "$(cat "$T/none.json")" '{"version":1,"trace":1,"rows":[]}'
check "show --json of nothing: says so on stderr" grep -q 'nothing matches' "$T/none.err"
finish
