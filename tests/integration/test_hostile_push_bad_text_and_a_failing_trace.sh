#!/usr/bin/env bash
# One trace never blocks the others' push (issue 36 item 10), on a real
# PostgreSQL 15 (tests/lib/pg.sh). Text that PostgreSQL refuses - an IMA
# file name with bytes of no UTF-8 character (the probe's
# "/usr/bin/\xff\xfe bad"), a NUL, a file, trace, client and host name alike -
# is sent converted as docs/fleet.md says (such bytes as \xhh, '\' doubled;
# valid text unchanged), in COPY's text columns and in the trace row's
# parameters alike, and the server holds exactly that (tests/lib/fleet_check.py
# computes it from the files). A trace the server still refuses (a UUID that
# is no UUID, a command whose latency is no integer) is reported with its id
# and rolled back; the traces after it are pushed, and push exits 1 at the
# end. Pushed again, nothing is sent twice and the same two fail. (Before:
# the first bad trace stopped every push, "invalid byte sequence for encoding
# UTF8", and no later trace was ever pushed.)
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3
. "$(dirname "$0")/../lib/pg.sh"
CHECK=$TPMTRACE_SRC/tests/lib/fleet_check.py
check "a PostgreSQL 15 server starts in the test directory" pg_start pg
[ -n "${PGURL:-}" ] || finish
cd "$T" || exit 1

H=$'\xff\xfe bad\\x41' # bytes of no UTF-8 character, then a backslash
HC='\xff\xfe bad\\x41' # as the server must hold them

ima_list() { # ima_list FILE NAME...: a binary IMA list (ima-ng, sha1) of these file names
	python3 - "$@" <<'EOF'
import hashlib, os, struct, sys
data = b''
for n in [os.fsencode(a) for a in sys.argv[2:]]:
    dd = b'sha1:\x00' + hashlib.sha1(n).digest()
    td = struct.pack('<I', len(dd)) + dd + struct.pack('<I', len(n) + 1) + n + b'\x00'
    data += struct.pack('<I', 10) + hashlib.sha1(td).digest() + struct.pack('<I', 6) + b'ima-ng'
    data += struct.pack('<I', len(td)) + td
open(os.fsencode(sys.argv[1]), 'wb').write(data)
EOF
}
ima_list "bin$H.ima" boot_aggregate "/usr/bin/$H" /ok/$'\xc3\xa9t\xc3\xa9' /usr/bin/nul
ima_list plain.ima boot_aggregate /usr/bin/a /usr/bin/b
# trace 1: the hostile IMA list; 2: a UUID that is no UUID; 3: a latency that
# is no integer; 4: a recording whose client, name and host are hostile.
check "trace 1: the IMA list with hostile file names is imported" \
	"$TPMTRACE" import ima "bin$H.ima" --db h.db --quiet
for k in 2 3; do
	check "trace $k: a plain IMA list is imported" "$TPMTRACE" import ima plain.ima --db h.db --quiet
done
C=$'c\xff\\\xc3(' # a client's comm
cp "$TPMCLIENT" "$T/$C"
TPMTRACE_HOST_ID_HOSTNAME="host$H" TPMTRACE_HOST_ID_MACHINE_ID=machine-1 \
	TPMTRACE_HOST_ID_KERNEL_RELEASE="6.12$H" TPMTRACE_HOST_ID_KERNEL_CMDLINE='root=/a\b' \
	TPMTRACE_HOST_ID_BOOT_ID=b00710d0-0000-4000-8000-000000000004 \
	"$TPMTRACE" record --spawn-swtpm --no-startup --db h.db --quiet --name "rec$H" -- \
	sh -c "'$T/$C' --connect \"\$TPMTRACE_TCTI\" --cmd startup --quiet" >rec.out 2>&1
rc=$?
check "trace 4: recorded by a client named with hostile bytes ($(head -c 300 rec.out))" \
	test $rc -eq 0
# (An IMA list has no timing and an untimed import is no boot, not pushed:
# docs/schema.md, "Trace kinds". Its commands are given latencies here, as a
# timed import's, so that its text goes to the server.)
sqlite3 h.db "UPDATE command SET latency_ns = 1000 WHERE trace_id IN (1, 2, 3);
	UPDATE trace SET uuid = 'not-a-uuid' WHERE id = 2;
	UPDATE command SET latency_ns = 'x' WHERE trace_id = 3 AND seq = (SELECT max(seq)
	FROM command WHERE trace_id = 3);
	UPDATE event SET detail = CAST(X'2F7573722F62696E2F006E756C00FF' AS TEXT)
	WHERE trace_id = 1 AND instr(detail, '/usr/bin/nul') > 0;
	UPDATE trace SET notes = CAST(X'6E6F746500FF' AS TEXT) WHERE id = 4"
expect_eq "the file holds the four traces, the NULs in place" \
	"$(sqlite3 h.db "SELECT count(*) FROM trace; SELECT count(*) FROM event
		WHERE instr(hex(detail), '006E756C00FF') > 0")" "4
1"
uuid() { sqlite3 h.db "SELECT uuid FROM trace WHERE id = $1"; }

push_all() { # push_all NAME SUMMARY: every trace pushed, exit 1, the summary line
	"$TPMTRACE" push h.db "$PGURL" >"$1.out" 2>"$1.err"
	local st=$?
	cat "$1.out" "$1.err"
	expect_eq "$1: exit 1, two traces failed" "$st" 1
	check "$1: the summary line counts them" grep -qx -- "$2" "$1.out"
}
push_all push1 'pushed 2 traces (.*); 0 already on the server; 0 unfinished left; 2 failed'
check "trace 2 is reported by its id, with the server's reason, rolled back" \
	grep -q '^tpmtrace push: trace 2 (not-a-uuid): .*invalid input syntax for type uuid.*none of its rows are stored$' push1.err
check "trace 3 is reported by its id and UUID, with the reason, rolled back" \
	grep -q "^tpmtrace push: trace 3 ($(uuid 3)): COPY command: the file's column latency_ns holds no integer.*none of its rows are stored\$" push1.err
check "the end says how many failed" \
	grep -q '^tpmtrace push: 2 traces could not be pushed' push1.err
expect_eq "traces 1 and 4, before and after the failed ones, are on the server" \
	"$(psql_q -c "SELECT string_agg(uuid::text, ' ' ORDER BY local_id) FROM trace")" \
	"$(uuid 1) $(uuid 4)"
expect_eq "nothing of the failed traces is on the server" \
	"$(psql_q -c "SELECT count(*) FROM command WHERE trace_id NOT IN (SELECT id FROM trace)
		UNION ALL SELECT count(*) FROM trace WHERE local_id IN (2, 3)")" "0
0"

# What the server holds, spelled out for the probe's name, then every value.
expect_eq "the IMA file name: its bad bytes as \\xhh, its backslash doubled" \
	"$(psql_q -c "SELECT substr(detail, strpos(detail, ' /usr/bin/') + 1) FROM event
		WHERE detail LIKE '% /usr/bin/%bad%'")" "/usr/bin/$HC"
expect_eq "a NUL as \\x00" \
	"$(psql_q -c "SELECT detail FROM event WHERE detail LIKE '/usr/bin/%nul%'")" \
	'/usr/bin/\x00nul\x00\xff'
expect_eq "the trace's name and source, converted" \
	"$(psql_q -c "SELECT name || ' ' || source FROM trace WHERE local_id = 1")" \
	"bin$HC.ima ima:bin$HC.ima"
expect_eq "the recording's name, notes, host name and kernel, converted" \
	"$(psql_q -c "SELECT t.name || ' ' || t.notes || ' ' || h.hostname || ' ' ||
		h.kernel_release FROM trace t JOIN trace_host h ON h.trace_id = t.id
		WHERE local_id = 4")" "rec$HC note\x00\xff host$HC 6.12$HC"
expect_eq "valid text is sent unchanged (a backslash stays single)" \
	"$(psql_q -c "SELECT h.kernel_cmdline FROM trace_host h JOIN trace t
		ON t.id = h.trace_id WHERE t.local_id = 4")" 'root=/a\b'
expect_eq "the client's name, converted" "$(psql_q -c "SELECT c.comm FROM client c
	JOIN trace t ON t.id = c.trace_id WHERE t.local_id = 4 AND c.comm LIKE 'c%'")" \
	'c\xff\\\xc3('
cp h.db pushed.db
sqlite3 pushed.db "DELETE FROM command WHERE trace_id IN (2, 3);
	DELETE FROM event WHERE trace_id IN (2, 3); DELETE FROM trace WHERE id IN (2, 3)"
python3 "$CHECK" rows "$PGURL" pushed.db >rows.out 2>&1
rc=$?
cat rows.out
check "every client, command and event row equals the file's, text converted" test $rc -eq 0
python3 "$CHECK" traces "$PGURL" pushed.db >traces.out 2>&1
rc=$?
cat traces.out
check "every trace's and host's text equals the file's, converted" test $rc -eq 0

# Pushed again: nothing sent twice, the same two fail.
push_all push2 'pushed 0 traces (0 commands, 0 events); 2 already on the server; 0 unfinished left; 2 failed'
expect_eq "pushed again: each failed trace reported again" \
	"$(grep -c -e '^tpmtrace push: trace 2 ' -e '^tpmtrace push: trace 3 ' push2.err)" 2
expect_eq "pushed again: still two traces on the server" "$(psql_q -c "SELECT count(*) FROM trace")" 2
one() { # one TRACE STATUS PUSHED PRESENT FAILED: push --trace TRACE --json
	"$TPMTRACE" push h.db --trace "$1" --json "$PGURL" >"push-$1.json" 2>"push-$1.err"
	local st=$?
	expect_eq "trace $1 on its own: exit $2 ($(head -c 300 "push-$1.err"))" "$st" "$2"
	check "trace $1 on its own: --json counts $3 pushed, $4 present, $5 failed" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert (j["pushed"], j["present"], j["failed"]) == tuple(map(int, sys.argv[2:])), j' \
		"push-$1.json" "$3" "$4" "$5"
}
one 4 0 0 1 0
one 3 1 0 0 1
finish
