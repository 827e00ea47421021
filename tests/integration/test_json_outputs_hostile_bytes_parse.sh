#!/usr/bin/env bash
# Every --json output of every subcommand, export --jsonl and --events-jsonl,
# run on traces whose names, file names, client names and event data hold
# control bytes, invalid UTF-8 (stray continuation bytes, 0xff, a truncated
# sequence, an encoded surrogate), a quote and a backslash, is valid UTF-8
# and parses with Python's json module (db/json.h: one writer; invalid UTF-8
# replaced by U+FFFD per byte, control bytes as \u00xx). The hostile names
# are found in the output, so escaped (before: json_str passed 0xff through
# and the output was not UTF-8). The subcommands whose --help shows --json
# are listed from `tpmtrace --help`: one without a case here fails the test
# (push and fleet: test_json_fleet_outputs_hostile_bytes_parse.sh).
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3
D=$TPMTRACE_SHARED_DATA
[ -d "$D/ima" ] && [ -d "$D/tcg" ] || skip "no shared data at $D"
J=$TPMTRACE_TEST_LIB/json_strict.py

# The bytes, and what they must become (inside a JSON string literal).
H=$'\e[2J\a\x01\xff\xfe\xc3(\x80\xed\xa0\x80"\\'
HJ='\u001b[2J\u0007\u0001\ufffd\ufffd\ufffd(\ufffd\ufffd\ufffd\ufffd\"\\'
C=$'c\e\xff\xc3('	      # a client's comm (15 bytes at most)
CJ='c\u001b\ufffd\ufffd('
cd "$T" || exit 1
DB="db$H.db" # every output that names its database carries H

# ---- traces: a recording, IMA lists (ascii, binary), a TCG event log ----
cp "$TPMCLIENT" "$T/$C"
"$TPMTRACE" record --spawn-swtpm --no-startup --db "$DB" --quiet --name "rec$H" -- sh -c \
	"'$T/$C' --connect \"\$TPMTRACE_TCTI\" --cmd startup --quiet >/dev/null &&
	 '$T/$C' --connect \"\$TPMTRACE_TCTI\" --cmd pcrextend --count 3 --quiet >/dev/null"
rc=$?
expect_eq "trace 1 recorded by client $(printf %q "$C")" "$rc" 0
check "the client's comm is stored with its bytes" \
	[ "$(sqlite3 "$DB" "SELECT hex(comm) FROM client LIMIT 1")" = "$(printf %s "$C" | xxd -p -u)" ]
python3 - "$D/ima/ima-evm-utils/test_ascii_runtime_measurements" "$H" "ascii$H.list" <<'EOF'
import sys, os
src, h, out = sys.argv[1], os.fsencode(sys.argv[2]), os.fsencode(sys.argv[3])
data = open(src, 'rb').read().replace(b'boot_aggregate', b'/etc/' + h + b'x', 1)
open(out, 'wb').write(data)
EOF
python3 - "$H" "bin$H.ima" <<'EOF'
import hashlib, os, struct, sys
h, out = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
data = b''
for n in (b'boot_aggregate', b'/usr/' + h, b'/ok/\xc3\xa9t\xc3\xa9'):
    dd = b'sha1:\x00' + hashlib.sha1(n).digest()
    td = struct.pack('<I', len(dd)) + dd + struct.pack('<I', len(n) + 1) + n + b'\x00'
    data += struct.pack('<I', 10) + hashlib.sha1(td).digest() + struct.pack('<I', 6) + b'ima-ng'
    data += struct.pack('<I', len(td)) + td
open(out, 'wb').write(data)
EOF
# A TCG log whose EV_EFI_ACTION text holds a quote and a backslash.
python3 - "$D/tcg/tpm2-tools/event-bootorder.bin" "tcg$H.bin" <<'EOF'
import os, sys
a = b'Calling EFI Application from Boot Option'
b = b'Calling "EFI" Applic\\tion from Boot Opt.'
data = open(sys.argv[1], 'rb').read()
assert a in data and len(a) == len(b)
open(os.fsencode(sys.argv[2]), 'wb').write(data.replace(a, b))
EOF
"$TPMTRACE" import ima "ascii$H.list" --db "$DB" --name "ima$H" --json >import-ascii.json \
	2>import.err
"$TPMTRACE" import ima "bin$H.ima" "missing$H" --db "$DB" --json >import-ima.json 2>>import.err
check "import ima: two lists imported, the missing one failed" \
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM trace WHERE kind = 'import'")" = 2 ]
"$TPMTRACE" import tcglog "tcg$H.bin" --db "$DB" --json >import-tcg.json 2>>import.err
"$TPMTRACE" import ftrace "missing$H" --db "$DB" --json >import-ftrace.json 2>>import.err
ima=$(sqlite3 "$DB" "SELECT id FROM trace WHERE source LIKE '%bin%ima' LIMIT 1")
ascii=$(sqlite3 "$DB" "SELECT id FROM trace WHERE source LIKE '%ascii%' LIMIT 1")
tcg=$(sqlite3 "$DB" "SELECT id FROM trace WHERE source LIKE '%tcg%' LIMIT 1")
check "the binary list's event holds the raw bytes" \
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM event WHERE trace_id = $ima AND
		instr(detail, CAST(X'FFFEC328' AS TEXT)) > 0")" = 1 ]

# ---- every --json output ----
run() { # run NAME CMD...: the output in NAME.json, its exit status in NAME.rc
	local n=$1
	shift
	"$TPMTRACE" "$@" >"$n.json" 2>"$n.err"
	echo $? >"$n.rc"
	COVERED+=" $1"
}
COVERED=""
run list list "$DB" --json
run stats stats "$DB" --trace 1 --json
run stats-origin stats "$DB" --trace 1 --by origin --json
run stats-ima stats "$DB" --trace "$ima" --json
run show show "$DB" --trace "$ima" --json
run show-ascii show "$DB" --trace "$ascii" --json
run show-tcg show "$DB" --trace "$tcg" --json
run show-V show "$DB" --trace 1 -V --json
run diff diff "$DB:1" "$DB:$ima" --json
run sql sql "$DB" "SELECT t.name, c.comm, (SELECT group_concat(detail) FROM event) d,
	CAST(X'00FF1B' AS TEXT) x FROM trace t, client c" --json
run sql-error sql "$DB" "SELECT * FROM [no_table_$H]" --json
run verify verify "$DB" --json
run verify-missing verify "missing$H.db" --json
run pcrs pcrs "$DB" --trace 1 --json
run pcrs-ima pcrs "$DB" --trace "$ima" --json
run replay replay "$DB" --trace 1 --policy password --policy linux-6.12 --json
# strip of the linux-6.12 run: the recording itself has nothing to strip.
run strip strip "$DB" --trace latest-replay --name "strip$H" --json
run predict predict "$DB" --trace 1 --profile slb9670-linux-integrity --host-crypto estimate \
	--json
run report report "$DB" --trace 1 --profile slb9670-linux-integrity --host-crypto estimate \
	--json
# attribute: an ftrace of four transmissions through /dev/tpm0 lines up with
# trace 1's four commands.
python3 -c '
for i in range(4):
    t = 100 + i / 100
    print("%12.6f |  0)               |  tpm_dev_transmit() {" % t)
    print("%12.6f |  0) + 50.000 us   |    tpm_transmit_cmd();" % (t + 1e-5))
    print("%12.6f |  0) + 60.000 us   |  }" % (t + 1e-4))' >"ftrace$H.txt"
run advise advise "$DB" --trace 1 --profile slb9670-linux-integrity --json
run attribute attribute "$DB" --trace 1 --ftrace "ftrace$H.txt" --json
run export export "$DB" --trace 1 --jsonl cmd.jsonl --events-jsonl ev.jsonl
"$TPMTRACE" export "$DB" --trace "$ima" --jsonl ima-cmd.jsonl --events-jsonl ima-ev.jsonl \
	2>export-ima.err
rc=$?
expect_eq "export of the IMA trace: exit 0 ($(head -c 200 export-ima.err))" "$rc" 0
cp import-ima.json import.json
echo 1 >import.rc
COVERED+=" import"

for n in list stats stats-origin stats-ima show show-ascii show-tcg show-V diff sql verify \
	pcrs pcrs-ima replay strip predict report advise attribute export; do
	expect_eq "$n: exit 0 ($(head -c 300 "$n.err"))" "$(cat "$n.rc")" 0
done
for n in sql-error verify-missing; do
	expect_eq "$n: exit 1" "$(cat "$n.rc")" 1
done

strict() { # strict DESCRIPTION FILE ARGS...
	local d=$1 f=$2
	shift 2
	python3 "$J" "$f" "$@" >"$f.check" 2>&1
	local rc=$?
	cat "$f.check"
	check "$d: valid UTF-8 JSON ($(head -c 300 "$f.check"))" [ $rc -eq 0 ]
}
strict "import ima --json: the file's name, escaped" import-ascii.json --contains "\"ascii$HJ\""
strict "import ima --json: the files' names, escaped" import-ima.json \
	--contains "\"bin$HJ\"" --contains "\"missing$HJ\""
check "import ima --json: the missing file is an error in it" python3 -c '
import json, sys
i = json.load(open(sys.argv[1]))["imports"]
assert [x.get("error") is not None for x in i] == [False, True], i' import-ima.json
strict "import tcglog --json" import-tcg.json --contains "\"tcg$HJ\""
strict "import ftrace --json (a missing file)" import-ftrace.json --contains "\"missing$HJ\""
strict "list --json: trace names and sources" list.json --contains "\"rec$HJ\"" \
	--contains "\"ima$HJ\"" --contains "\"bin$HJ\""
strict "stats --json: the trace's name" stats.json --contains "\"rec$HJ\""
strict "stats --by origin --json" stats-origin.json
strict "stats --json of the IMA trace: its name" stats-ima.json --contains "\"bin$HJ.ima\""
strict "show --json: the binary list's file name in the event" show.json \
	--contains "\"/usr/$HJ\"" --contains '"/ok/\u00e9t\u00e9"'
strict "show --json: the ascii list's file name" show-ascii.json --contains "\"/etc/$HJ\""
strict "show --json: a TCG event's quote and backslash" show-tcg.json \
	--contains '"\"Calling \"EFI\" Applic\\tion from Boot Opt.\""'
strict "show -V --json" show-V.json
strict "diff --json: the database's name" diff.json --contains "\"db$HJ\""
strict "sql --json: names, comm, details and bytes as TEXT" sql.json --contains "\"rec$HJ\"" \
	--contains "\"$CJ\"" --contains "\"/usr/$HJ\"" --contains '"\u0000\ufffd\u001b"'
strict "sql --json: the error names the table" sql-error.json --contains "\"no_table_$HJ\""
strict "verify --json" verify.json
strict "verify --json of a missing file: its name in the error" verify-missing.json \
	--contains "\"missing$HJ\""
strict "pcrs --json: the database's name" pcrs.json --contains "\"db$HJ\""
strict "pcrs --json of the IMA trace" pcrs-ima.json
strict "replay --json (two runs and their summary)" replay.json
strict "strip --json" strip.json
strict "predict --json: the trace's description names the database" predict.json \
	--contains "\"db$HJ\""
strict "report --json" report.json
strict "advise --json" advise.json
strict "attribute --json" attribute.json
strict "export --jsonl" cmd.jsonl --lines
strict "export --events-jsonl" ev.jsonl --lines
strict "export --jsonl of the IMA trace" ima-cmd.jsonl --lines
strict "export --events-jsonl: the IMA file names" ima-ev.jsonl --lines \
	--contains "\"/usr/$HJ\""
check "list --json: the stripped trace's name" python3 "$J" list.json --contains "\"rec$HJ\""
"$TPMTRACE" list "$DB" --json >list2.json 2>/dev/null
strict "list --json after strip: its name" list2.json --contains "\"strip$HJ\""

# ---- every subcommand that has --json has a case here ----
for c in $("$TPMTRACE" --help | awk '/^  [a-z]/ {print $1}'); do
	"$TPMTRACE" "$c" --help 2>/dev/null | grep -qE -- '--(json|jsonl|events-jsonl)\b' || continue
	case " $COVERED push fleet " in
	*" $c "*) ok ;;
	*) bad "$c has --json but no case in this test" ;;
	esac
done
finish
