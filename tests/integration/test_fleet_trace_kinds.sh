#!/usr/bin/env bash
# push and fleet by the trace kinds (docs/schema.md "Trace kinds", issue 31
# item 6): a file holding a recording, its session-per-command rewrite
# (derived), a replay and an IMA list (an import without timing). push sends
# the recording and the replay and says the other two are not boots;
# fleet stats counts one boot of the recording's TPM time (no 0 ms boot of
# the IMA list, no rewrite among the recorded traces), the replay a group of
# its policy with no boot.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/pg.sh"
. "$(dirname "$0")/../lib/kinds.sh"
need swtpm tpm2_createprimary sqlite3 python3
D=$TPMTRACE_SHARED_DATA
[ -d "$D/ima" ] || skip "no shared test data at $D"
cd "$T" || exit 1

check "a PostgreSQL 15 server starts in the test directory" pg_start pg
[ -n "${PGURL:-}" ] || finish

kinds_db f.db 5
"$TPMTRACE" import ima "$D/ima/ima-evm-utils/test_ascii_runtime_measurements" --db f.db >/dev/null 2>&1
expect_eq "setup: the kinds" \
	"$(sqlite3 f.db "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM trace_kind ORDER BY trace_id)")" \
	"record derived replay import-untimed"

"$TPMTRACE" push f.db "$PGURL" >"$T/push.out" 2>"$T/push.err"
expect_eq "push: exit status" "$?" 0
check "push: the recording and the replay sent" grep -q "^pushed 2 traces " "$T/push.out"
check "push: the rewrite and the IMA list are not boots" grep -qx \
	"not pushed: 2 derived, untimed or failed traces (not boots)" "$T/push.out"
"$TPMTRACE" push f.db "$PGURL" --json >"$T/push.json" 2>>"$T/push.err"
check "push --json: not_pushed 2, the other two present" python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
assert (d["pushed"], d["present"], d["not_pushed"]) == (0, 2, 2), d' "$T/push.json"

tpm=$(sqlite3 f.db "SELECT sum(latency_ns) FROM command WHERE trace_id = 1 AND flags & 32 = 0")
"$TPMTRACE" fleet "$PGURL" stats --json >"$T/fleet.json" 2>"$T/fleet.err"
expect_eq "fleet stats: exit status" "$?" 0
check "fleet stats: one boot, the recording's TPM time; the replay no boot" python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))["groups"]
rec = [x for x in g if x["policy"] == "recorded"]
rep = [x for x in g if x["policy"] == "linux-6.10"]
assert len(rec) == 1 and len(rep) == 1 and len(g) == 2, g
r = rec[0]
assert (r["boots"], r["traces"]) == (1, 1), r
assert r["p50_ns"] == r["p95_ns"] == int(sys.argv[2]), (r, sys.argv[2])
assert rep[0]["boots"] == 0 and rep[0]["traces"] == 1, rep' "$T/fleet.json" "$tpm"
"$TPMTRACE" fleet "$PGURL" list --json >"$T/hosts.json" 2>>"$T/fleet.err"
check "fleet list: one boot on the host" python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["hosts"]
assert len(h) == 1 and h[0]["boots"] == 1 and h[0]["traces"] == 2, h' "$T/hosts.json"

finish
