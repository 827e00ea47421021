#!/usr/bin/env bash
# tpmtrace push when things go wrong, on a real PostgreSQL 15
# (tests/lib/pg.sh): a push SIGKILLed mid-COPY and one whose server is
# stopped mid-COPY (held there by the TPMTRACE_FAULT_PUSH_STALL_FILE hook)
# leave no part of their trace on the server and the file as it was; the
# retry sends it whole. Bad inputs - a wrong password, an unreachable server,
# a foreign, older or newer schema, a URL with a password - exit 1 with a
# clear message and never print the password. The least-privilege role
# (INSERT and SELECT) pushes and cannot delete; a schema version 1 file is
# migrated and given UUIDs by its first push. Without libpq installed,
# push and fleet say which package to install and the rest runs.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pg.sh"
need swtpm tpm2_getcap tpm2_getrandom sqlite3 python3 sha256sum
CHECK=$TPMTRACE_SRC/tests/lib/fleet_check.py
PW=Pw-$RANDOM-only-in-pgpass
WRONG=Wrong-$RANDOM-pw

PG_HBA="local all pusher scram-sha-256"
check "a PostgreSQL 15 server starts in the test directory" pg_start pg
[ -n "${PGURL:-}" ] || finish
PUSHURL="postgresql:///postgres?host=$PGSOCK&user=pusher"

rec() { # rec NAME N: a recorded trace with N GetRandoms
	"$TPMTRACE" record --spawn-swtpm --db "$T/$1.db" --quiet -- sh -c \
		"tpm2_getcap properties-fixed >/dev/null && for k in \$(seq $2); do
		tpm2_getrandom 8 >/dev/null; done" >"$T/$1.rec" 2>&1
}
for f in z:1 a:40 b:30 c:2; do
	check "a trace recorded (${f%%:*})" rec "${f%%:*}" "${f#*:}"
done
uuid() { sqlite3 "$T/$1.db" "SELECT uuid FROM trace"; }
on_server() { psql_q -c "SELECT count(*) FROM trace WHERE uuid = '$(uuid "$1")'"; }
"$TPMTRACE" push "$T/z.db" "$PGURL" >"$T/z.out" 2>&1
rc=$?
check "the owner's first push creates the schema ($(cat "$T/z.out"))" test $rc -eq 0

# The least-privilege role of docs/fleet.md, word for word from there.
python3 - "$TPMTRACE_SRC/docs/fleet.md" >"$T/role.sql" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
print(re.search(r"<!-- role -->\n```sql\n(.*?)```", s, re.S).group(1))
PY
sed -i "s/CHANGE-ME/$PW/" "$T/role.sql"
psql_q -f "$T/role.sql" >"$T/role.out" 2>&1
rc=$?
check "the role of docs/fleet.md is created ($(head -c 200 "$T/role.out"))" test $rc -eq 0
printf '*:*:*:pusher:%s\n' "$PW" >"$T/pgpass"
printf '*:*:*:pusher:%s\n' "$WRONG" >"$T/pgpass.wrong"
chmod 600 "$T/pgpass" "$T/pgpass.wrong"

# ---- SIGKILL mid-COPY ----
sum_a=$(sha256sum <"$T/a.db")
TPMTRACE_FAULT_PUSH_STALL_FILE=$T/stall PGPASSFILE=$T/pgpass \
	"$TPMTRACE" push "$T/a.db" "$PUSHURL" >"$T/kill.out" 2>&1 &
pid=$!
check "the push reaches its COPY" wait_until "[ -e '$T/stall' ]"
expect_eq "the server is inside the COPY of command rows" \
	"$(psql_q -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY command%'")" 1
kill -9 $pid
wait $pid 2>/dev/null
rm -f "$T/stall"
check "the server ends the killed push's transaction" wait_until \
	"[ \"\$(psql_q -c \"SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY%'\")\" = 0 ]"
expect_eq "SIGKILL mid-COPY: no trace row on the server" "$(on_server a)" 0
expect_eq "SIGKILL mid-COPY: no command row without its trace" \
	"$(psql_q -c "SELECT count(*) FROM command WHERE trace_id NOT IN (SELECT id FROM trace)")" 0
expect_eq "SIGKILL mid-COPY: the file is byte for byte as it was" "$(sha256sum <"$T/a.db")" "$sum_a"
expect_eq "SIGKILL mid-COPY: the file's integrity_check" \
	"$(sqlite3 "$T/a.db" "PRAGMA integrity_check")" ok
PGPASSFILE=$T/pgpass "$TPMTRACE" push "$T/a.db" "$PUSHURL" >"$T/retry.out" 2>&1
rc=$?
check "the retry after SIGKILL exits 0 ($(cat "$T/retry.out"))" test $rc -eq 0
check "the retry sends the trace" grep -q '^pushed 1 traces' "$T/retry.out"

# ---- the server stopped mid-COPY ----
TPMTRACE_FAULT_PUSH_STALL_FILE=$T/stall PGPASSFILE=$T/pgpass \
	"$TPMTRACE" push "$T/b.db" "$PUSHURL" >"$T/stop.out" 2>&1 &
pid=$!
check "the second push reaches its COPY" wait_until "[ -e '$T/stall' ]"
check "the server stops (fast shutdown) while the push is in its COPY" pg_stop pg fast
rm -f "$T/stall"
wait $pid
rc=$?
cat "$T/stop.out"
expect_eq "server stopped mid-push: exit 1" "$rc" 1
check "server stopped mid-push: the message names the trace and says nothing of it stayed" \
	grep -q "trace 1 ($(uuid b)): .*none of its rows are stored" "$T/stop.out"
check "server stopped mid-push: the server's own text is shown" \
	grep -qi 'terminating connection\|server closed the connection' "$T/stop.out"
check "the server starts again" pg_ctl_start pg
expect_eq "server stopped mid-push: no trace row on the server" "$(on_server b)" 0
expect_eq "server stopped mid-push: the file's integrity_check" \
	"$(sqlite3 "$T/b.db" "PRAGMA integrity_check")" ok
PGPASSFILE=$T/pgpass "$TPMTRACE" push "$T/b.db" "$PUSHURL" >"$T/retry2.out" 2>&1
rc=$?
check "the retry after the stop exits 0 ($(cat "$T/retry2.out"))" test $rc -eq 0
python3 "$CHECK" rows "$PGURL" "$T/z.db" "$T/a.db" "$T/b.db" >"$T/rows.out" 2>&1
rc=$?
cat "$T/rows.out"
check "after the retries every row on the server equals the files'" test $rc -eq 0

# ---- least privilege ----
expect_eq "the pushing role may not delete" \
	"$(PGPASSFILE=$T/pgpass psql "$PUSHURL" -X -At -c "DELETE FROM command" 2>&1 |
		grep -c 'permission denied')" 1

# ---- bad inputs: exit 1, a clear message, never the password ----
bad_input() { # bad_input NAME PATTERN ENV... -- ARGS...: runs push, expects exit 1 and PATTERN
	local name=$1 pat=$2 envs=()
	shift 2
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	env "${envs[@]}" "$TPMTRACE" push "$@" >"$T/$name.out" 2>&1
	local st=$?
	expect_eq "$name: exit 1 ($(head -c 300 "$T/$name.out"))" "$st" 1
	check "$name: the message says what is wrong" grep -qi "$pat" "$T/$name.out"
}
bad_input wrong-password 'password authentication failed' PGPASSFILE="$T/pgpass.wrong" -- \
	"$T/c.db" "$PUSHURL"
bad_input unreachable 'cannot connect to the server (host 127.0.0.1, port 1, database postgres' \
	PGCONNECT_TIMEOUT=5 -- \
	"$T/c.db" "postgresql://127.0.0.1:1/postgres"
bad_input url-password 'holds a password.*pgpass' -- \
	"$T/c.db" "postgresql://pusher:$PW@/postgres?host=$PGSOCK"
bad_input url-password-query 'holds a password.*pgpass' -- \
	"$T/c.db" "postgresql:///postgres?host=$PGSOCK&user=pusher&password=$PW"
check "a URL with a password: the server named by its parts, not the URL" \
	grep -qF "(host $PGSOCK, port 5432, database postgres, user pusher) holds a password" \
	"$T/url-password.out"
"$TPMTRACE" fleet "postgresql://pusher:$PW@/postgres?host=$PGSOCK" stats >"$T/fleet-pw.out" 2>&1
rc=$?
expect_eq "fleet with a password in the URL: exit 1 ($(head -c 200 "$T/fleet-pw.out"))" "$rc" 1
PGHOST=$PGSOCK "$TPMTRACE" fleet "postgresql:///no_such_db?user=tpmtrace" stats >"$T/fleet-nodb.out" 2>&1
rc=$?
expect_eq "fleet on a database that does not exist: exit 1" "$rc" 1
check "fleet on a database that does not exist: the server says so" \
	grep -q 'database "no_such_db" does not exist' "$T/fleet-nodb.out"
psql_q -c "CREATE DATABASE foreign_app" -c "CREATE DATABASE old_fleet" -c "CREATE DATABASE new_fleet" \
	-c "CREATE DATABASE v1_fleet" >/dev/null
psql "postgresql:///foreign_app?host=$PGSOCK&user=tpmtrace" -X -q -c "CREATE TABLE trace (x int)"
bad_input foreign-schema "another application's schema" -- \
	"$T/c.db" "postgresql:///foreign_app?host=$PGSOCK&user=tpmtrace"
for v in old:0 new:3; do
	u="postgresql:///${v%%:*}_fleet?host=$PGSOCK&user=tpmtrace"
	"$TPMTRACE" push "$T/z.db" "$u" >/dev/null 2>&1
	psql "$u" -X -q -c "UPDATE tpmtrace_meta SET value = '${v#*:}' WHERE key = 'schema_version'"
done
bad_input older-schema 'schema is version 0.*no migration' -- \
	"$T/c.db" "postgresql:///old_fleet?host=$PGSOCK&user=tpmtrace"
bad_input newer-schema 'schema is version 3.*use a newer tpmtrace' -- \
	"$T/c.db" "postgresql:///new_fleet?host=$PGSOCK&user=tpmtrace"
expect_eq "no output of any push shows a password" \
	"$(cat "$T"/*.out | grep -c -e "$PW" -e "$WRONG")" 0
expect_eq "the bad inputs left trace c off the server" "$(on_server c)" 0

# ---- a fleet server of schema version 1: migrated to 2 by the next tpmtrace that connects ----
# Version 1 held the firmware as hex "XXXXXXXX.XXXXXXXX" and no tpm_profile:
# the server is made so from one that version 2 filled.
V1URL="postgresql:///v1_fleet?host=$PGSOCK&user=tpmtrace"
"$TPMTRACE" push "$T/z.db" "$V1URL" >/dev/null 2>&1
fw=$(psql "$V1URL" -X -At -c "SELECT tpm_firmware FROM trace_host")
check "version 2 stores the firmware as TPMScan writes it ($fw)" \
	bash -c "[[ '$fw' =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]]"
expect_eq "swtpm's chip has no shipped profile: tpm_profile NULL" \
	"$(psql "$V1URL" -X -At -c "SELECT count(*) FROM trace_host WHERE tpm_profile IS NULL")" 1
psql "$V1URL" -X -q -c "DROP VIEW fleet_trace; ALTER TABLE trace_host DROP COLUMN tpm_profile;
	UPDATE trace_host SET tpm_firmware = (SELECT string_agg(lpad(to_hex(x::int), 4, '0'), '')
		FROM unnest(string_to_array(tpm_firmware, '.')) WITH ORDINALITY AS u(x, i)
		WHERE i <= 2) || '.' || (SELECT string_agg(lpad(to_hex(x::int), 4, '0'), '')
		FROM unnest(string_to_array(tpm_firmware, '.')) WITH ORDINALITY AS u(x, i) WHERE i > 2);
	UPDATE tpmtrace_meta SET value = '1' WHERE key = 'schema_version'"
check "... made a version 1 server (hex firmware)" \
	test "$(psql "$V1URL" -X -At -c "SELECT tpm_firmware ~ '^[0-9a-f]{8}[.][0-9a-f]{8}$' FROM trace_host")" = t
"$TPMTRACE" fleet "$V1URL" stats --json >"$T/v1s.json" 2>"$T/v1s.err"
rc=$?
expect_eq "fleet stats on a version 1 server: exit 0 ($(head -c 200 "$T/v1s.err"))" "$rc" 0
expect_eq "... migrated: version 2, the firmware as before hex, tpm_profile and the view's column" \
	"$(psql "$V1URL" -X -At -c "SELECT value FROM tpmtrace_meta WHERE key = 'schema_version'" \
		-c "SELECT tpm_firmware FROM trace_host" -c "SELECT count(tpm_profile) FROM fleet_trace")" "2
$fw
0"
check "... fleet groups by that firmware" python3 -c 'import json,sys
g = json.load(open(sys.argv[1]))["groups"]
assert [x["firmware"] for x in g] == [sys.argv[2]] and g[0]["profile"] is None, g' "$T/v1s.json" "$fw"

# A trace of an SLB9670 (its answers rewritten: tests/lib/set_chip.py): pushed
# with the identity predict uses, the shipped profile of that chip included.
cp "$T/a.db" "$T/ifx.db"
sqlite3 "$T/ifx.db" "UPDATE trace SET uuid = lower(hex(randomblob(16)))"
python3 "$TPMTRACE_TEST_LIB/set_chip.py" "$T/ifx.db" IFX 0x00070055 0x0011CB00 SLB9670
expect_eq "a trace whose answers name an SLB9670 of firmware 7.85.17.51968" "$?" 0
"$TPMTRACE" push "$T/ifx.db" "$V1URL" >"$T/ifx.out" 2>&1
expect_eq "... pushed" "$?" 0
expect_eq "... on the server: IFX, SLB9670, 7.85.17.51968 and its profile" \
	"$(psql "$V1URL" -X -At -c "SELECT tpm_manufacturer, tpm_vendor, tpm_firmware, tpm_profile
		FROM trace_host WHERE tpm_profile IS NOT NULL")" \
	"IFX|SLB9670|7.85.17.51968|ifx-slb9670-fw7.85.17.51968"
"$TPMTRACE" fleet "$V1URL" stats >"$T/ifx-stats.txt" 2>&1
check "fleet stats names the profile under that chip's group" \
	grep -qx '  profile: ifx-slb9670-fw7.85.17.51968 (predict --profile)' "$T/ifx-stats.txt"

# ---- a schema version 1 file: migrated and given UUIDs by its first push ----
cp "$T/c.db" "$T/v1.db"
sqlite3 "$T/v1.db" "DROP INDEX trace_uuid; ALTER TABLE trace DROP COLUMN uuid;
	DROP TABLE trace_host; DROP TABLE advise_proof;
	ALTER TABLE profile_entry DROP COLUMN p90_ns; ALTER TABLE profile_entry DROP COLUMN p99_ns;
	ALTER TABLE profile_entry DROP COLUMN derived_from;
	UPDATE meta SET value = '1' WHERE key = 'schema_version';
	PRAGMA user_version = 1"
check "tpmtrace verify reads the version 1 file" "$TPMTRACE" verify "$T/v1.db"
PGPASSFILE=$T/pgpass "$TPMTRACE" push "$T/v1.db" "$PUSHURL" >"$T/v1.out" 2>&1
rc=$?
check "push of a version 1 file exits 0 ($(cat "$T/v1.out"))" test $rc -eq 0
expect_eq "the file is at version 5 (through 2, 3 and 4) and its trace has a UUID" \
	"$(sqlite3 "$T/v1.db" "PRAGMA user_version; SELECT length(uuid) FROM trace;
	SELECT count(*) FROM sqlite_schema WHERE name IN ('trace_host', 'advise_proof')")" "5
36
2"
expect_eq "the version 1 trace is on the server" "$(on_server v1)" 1
PGPASSFILE=$T/pgpass "$TPMTRACE" push "$T/v1.db" "$PUSHURL" >"$T/v1b.out" 2>&1
check "its second push sends nothing" grep -q '^pushed 0 traces.*1 already on the server' "$T/v1b.out"
check "tpmtrace verify accepts the migrated file" "$TPMTRACE" verify "$T/v1.db"

# ---- no URL: the PG* environment, or a service file ----
rec env 1 && rec svc 1
PGHOST=$PGSOCK PGUSER=pusher PGDATABASE=postgres PGPASSFILE=$T/pgpass \
	"$TPMTRACE" push "$T/env.db" >"$T/env.out" 2>&1
check "push without a URL reads PGHOST, PGUSER, PGDATABASE, PGPASSFILE" \
	grep -q '^pushed 1 traces' "$T/env.out"
printf '[fleet]\nhost=%s\nuser=pusher\ndbname=postgres\n' "$PGSOCK" >"$T/pg_service.conf"
PGSERVICEFILE=$T/pg_service.conf PGSERVICE=fleet PGPASSFILE=$T/pgpass \
	"$TPMTRACE" push "$T/svc.db" >"$T/svc.out" 2>&1
check "push without a URL reads a service file (PGSERVICE)" grep -q '^pushed 1 traces' "$T/svc.out"
expect_eq "both are on the server" "$(( $(on_server env) + $(on_server svc) ))" 2

# ---- a replay is a trace: pushed with its link to the trace it ran from ----
"$TPMTRACE" replay "$T/c.db" --policy linux-6.10 >"$T/replay.out" 2>&1
rc=$?
check "a replay of c under linux-6.10 ($(tail -c 200 "$T/replay.out"))" test $rc -eq 0
PGPASSFILE=$T/pgpass "$TPMTRACE" push "$T/c.db" "$PUSHURL" >"$T/c.out" 2>&1
check "c and its replay are pushed" grep -q '^pushed 2 traces' "$T/c.out"
expect_eq "the replay on the server names its source by UUID, and its policy" \
	"$(psql_q -c "SELECT r.policy, r.parent_id = s.id FROM trace r JOIN trace s
		ON s.uuid = r.parent_uuid WHERE r.kind = 'replay'")" "linux-6.10|t"
expect_eq "fleet groups the replay under its policy" \
	"$(psql_q -c "SELECT count(*) FROM fleet_trace WHERE policy = 'linux-6.10'")" 1
# ---- a failed standard output is a failure (issue 22 item 8; the rest of
# the subcommands: test_exit_status_stdout_full_every_subcommand) ----
"$TPMTRACE" replay "$T/c.db" --policy password >/dev/null 2>&1
PGPASSFILE=$T/pgpass "$TPMTRACE" push "$T/c.db" "$PUSHURL" >/dev/full 2>"$T/full.err"
rc=$?
check "push >/dev/full exits 1 ($rc)" test $rc -eq 1
check "push >/dev/full says why" grep -q "standard output: No space left on device" "$T/full.err"
for f in stats list; do
	"$TPMTRACE" fleet "$PGURL" $f >/dev/full 2>"$T/full.err"
	rc=$?
	check "fleet $f >/dev/full exits 1 ($rc)" test $rc -eq 1
	check "fleet $f >/dev/full says why" grep -q "standard output: No space left on device" "$T/full.err"
done
# ---- libpq not installed: push and fleet say so, the rest does not need it
# (db/pg/pq.h: libpq is loaded by them only; without_lib: tests/lib/common.sh).
# ----
check "tpmtrace does not link libpq" sh -c "! ldd '$TPMTRACE' | grep -q libpq"
for c in "push $T/c.db $PGURL" "fleet $PGURL stats"; do
	without_lib libpq.so.5 "$TPMTRACE" $c >"$T/nolibpq.out" 2>&1
	rc=$?
	expect_eq "${c%% *} without libpq exits 1" "$rc" 1
	check "${c%% *} without libpq names the library and the package" \
		grep -q "need PostgreSQL's client library (libpq.so.5).*apt-get install libpq5" \
		"$T/nolibpq.out"
done
without_lib libpq.so.5 "$TPMTRACE" stats "$T/c.db" >"$T/nolibpq.out" 2>&1
expect_eq "stats runs without libpq" "$?" 0
# ---- small traces go in batches: one transaction for up to 256 of them
# (db/pg/pg_push.c), each still whole: 260 copies of a small trace ----
python3 - "$T/z.db" "$T/many.db" <<'PY'
import shutil, sqlite3, sys, uuid
shutil.copy(sys.argv[1], sys.argv[2])
c = sqlite3.connect(sys.argv[2])
def cols(t): return [r[1] for r in c.execute("PRAGMA table_info(%s)" % t)]
tc = [x for x in cols("trace") if x not in ("id", "uuid")]
for k in range(259):
    tid = c.execute("INSERT INTO trace (uuid, %s) SELECT ?, %s FROM trace WHERE id = 1"
                    % (", ".join(tc), ", ".join(tc)), (str(uuid.uuid4()),)).lastrowid
    for t in ("trace_host", "client", "command", "event"):
        oc = [x for x in cols(t) if x not in ("trace_id", "id") or (t == "client" and x == "id")]
        c.execute("INSERT INTO %s (trace_id, %s) SELECT ?, %s FROM %s WHERE trace_id = 1"
                  % (t, ", ".join(oc), ", ".join(oc), t), (tid,))
c.commit()
PY
expect_eq "a file of 260 small traces is made" "$(sqlite3 "$T/many.db" "SELECT count(*) FROM trace")" 260
"$TPMTRACE" push "$T/many.db" "$PGURL" >"$T/many.out" 2>&1
check "push sends them all ($(head -c 300 "$T/many.out"))" grep -q '^pushed 259 traces' "$T/many.out"
uuids=$(sqlite3 "$T/many.db" "SELECT group_concat(quote(uuid)) FROM trace WHERE id > 1")
expect_eq "in two transactions (a batch of 256 with trace 1, there already, and one of 4)" \
	"$(psql_q -c "SELECT count(DISTINCT xmin::text) FROM trace WHERE uuid::text IN ($uuids)")" 2
expect_eq "with every row: $(sqlite3 "$T/many.db" "SELECT count(*) FROM command") commands" \
	"$(psql_q -c "SELECT count(*) FROM command c JOIN trace t ON t.id = c.trace_id
		WHERE t.uuid::text IN ($uuids, '$(uuid z)')")" \
	"$(sqlite3 "$T/many.db" "SELECT count(*) FROM command")"
finish
