#!/usr/bin/env bash
# Trace kinds (docs/schema.md "Trace kinds", docs/cli.md "Which trace"): a
# recording of the demo workload, its session-per-command rewrite (advise
# --rewrite, kind derived, as advise --prove and tools/demo make one) and a
# replay of it; then
#  - every read command without --trace is about the recording, not the
#    rewrite nor the replay (issue 31, item 1): the same output as --trace 1;
#  - a file holding only replays and derived traces has no default, and the
#    error says why and what to do;
#  - an untimed import (an IMA list) is the default only where nothing better
#    is, and a pcap import (timed) is;
#  - list (issue 31, item 8) shows per trace its kind, status, policy,
#    command count and TPM time (the clients', as stats prints them; "no
#    timing" for an untimed import, never 0) in 100 columns, --wide the rest,
#    --json the same fields; its --help names every kind;
#  - profile learn (issue 31, item 9) learns the clients' commands that
#    succeeded: not tpmtrace's own Startup and resource-manager flushes
#    (flag 32), not the client's failed Startup.
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/kinds.sh"
need swtpm tpm2_createprimary sqlite3 python3 sha256sum
cd "$T" || exit 1
D=$TPMTRACE_SHARED_DATA
[ -d "$D/ima" ] || skip "no shared test data at $D"

kinds_db demo.db 20
expect_eq "setup: recording, rewrite, replay" \
	"$(sqlite3 demo.db "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM trace ORDER BY id)")" \
	"record derived replay"

# ---- the default trace is the recording ----
for s in stats show pcrs predict report export "profile learn" advise; do
	case $s in
	predict) extra=(--profile slb9670-linux-integrity --host-crypto estimate) ;;
	report) extra=(-o -) ;;
	export) extra=(--csv -) ;;
	"profile learn") extra=(--output -) ;;
	*) extra=() ;;
	esac
	# shellcheck disable=SC2086
	a=$("$TPMTRACE" $s demo.db "${extra[@]}" 2>&1 | sha256sum)
	# shellcheck disable=SC2086
	b=$("$TPMTRACE" $s demo.db --trace 1 "${extra[@]}" 2>&1 | sha256sum)
	expect_eq "default: $s without --trace reads the recording, not the rewrite" "$a" "$b"
done
check "default: report's advice is about the recording" bash -c \
	"'$TPMTRACE' report demo.db -o - 2>/dev/null | grep -q session-per-command"

# ---- no default among replays and derived traces ----
cp demo.db only.db
sqlite3 only.db "UPDATE trace SET status='recording' WHERE id=1"
"$TPMTRACE" stats only.db >/dev/null 2>"$T/err"
expect_eq "no default: stats exits 1" "$?" 1
check "no default: the error says what the file holds and what to do" grep -q \
	"holds no recording or import, only replays, derived or unfinished traces: pick one with --trace ID (tpmtrace list)" \
	"$T/err"
"$TPMTRACE" stats only.db --trace 2 >/dev/null 2>"$T/err"
expect_eq "no default: --trace 2 still reads the rewrite" "$?" 0

# ---- imports: timed ones are the default, untimed ones only alone ----
"$TPMTRACE" import ima "$D/ima/ima-evm-utils/test_ascii_runtime_measurements" --db imp.db >/dev/null 2>&1
expect_eq "imports: IMA list imported" $? 0
expect_eq "imports: an IMA list alone is the default" \
	"$("$TPMTRACE" pcrs imp.db --json 2>/dev/null | sha256sum)" \
	"$("$TPMTRACE" pcrs imp.db --trace 1 --json 2>/dev/null | sha256sum)"
"$TPMTRACE" import pcap "$D/pcap/esys-get-random.int.pcap" --db imp.db >/dev/null 2>&1
"$TPMTRACE" import ima "$D/ima/ima-evm-utils/test_ascii_runtime_measurements" --db imp.db >/dev/null 2>&1
expect_eq "imports: the pcap, not the newer IMA list, is the default" \
	"$("$TPMTRACE" stats imp.db --json 2>/dev/null | sha256sum)" \
	"$("$TPMTRACE" stats imp.db --trace 2 --json 2>/dev/null | sha256sum)"
expect_eq "imports: the trace_kind view" \
	"$(sqlite3 imp.db "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM trace_kind ORDER BY trace_id)")" \
	"import-untimed import-timed import-untimed"

# ---- list ----
"$TPMTRACE" import ima "$D/ima/ima-evm-utils/test_ascii_runtime_measurements" --db demo.db >/dev/null 2>&1
"$TPMTRACE" list demo.db >"$T/list" 2>"$T/err"
expect_eq "list: exit status" "$?" 0
expect_eq "list: every line fits 100 columns" "$(awk 'length($0) > 100' "$T/list" | wc -l)" 0
check "list: the header names kind, status, commands, TPM time, policy" \
	grep -Eq '^ +id +kind +status +commands +TPM time +policy +name$' "$T/list"
expect_eq "list: the kinds" "$(awk 'NR > 1 { printf "%s ", $2 }' "$T/list")" \
	"record derived replay import-untimed "
check "list: the replay's policy" grep -Eq '^ +3 +replay +complete .* linux-6\.10 ' "$T/list"
check "list: the IMA list has no timing" grep -Eq '^ +4 +import-untimed +complete +3 +no timing ' "$T/list"
"$TPMTRACE" list demo.db --json >"$T/list.json"
for id in 1 2 3; do
	"$TPMTRACE" stats demo.db --trace $id --json >"$T/stats$id.json"
	check "list: trace $id's command count and TPM time are stats'" python3 -c '
import json, sys
t = [x for x in json.load(open(sys.argv[1]))["traces"] if x["id"] == int(sys.argv[3])][0]
s = json.load(open(sys.argv[2]))["trace"]
assert (t["commands"], t["tpm_ns"]) == (s["commands"], s["tpm_ns"]), (t, s)
ms = "%.2f ms" % (t["tpm_ns"] / 1e6)
line = [l for l in open(sys.argv[4]) if l.split()[0] == sys.argv[3]][0]
assert " %d  %s " % (t["commands"], ms) in line, (line, ms)' \
		"$T/list.json" "$T/stats$id.json" $id "$T/list"
done
check "list --json: kinds, policy, no timing as null" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["traces"]
assert [x["trace_kind"] for x in t] == ["record", "derived", "replay", "import-untimed"], t
assert [x["policy"] for x in t] == [None, None, "linux-6.10", None], t
assert t[3]["tpm_ns"] is None and t[3]["commands"] == 3, t[3]
assert all(x["tpm_ns"] > 0 for x in t[:3]), t' "$T/list.json"
"$TPMTRACE" list demo.db --wide >"$T/wide"
check "list --wide: the source and the parent" grep -Eq \
	'^ +2 +derived .* 1  session-per-command rewrite of 1 / advise --rewrite session-per-command of trace 1$' \
	"$T/wide"
"$TPMTRACE" list --help >"$T/help"
for k in record replay replay-emulated derived import-timed import-untimed unfinished; do
	check "list --help names the kind $k" grep -q "$k" "$T/help"
done

# ---- one rule for "unfinished": a replay that stopped part-way (status
# incomplete) is kind unfinished, so --trace latest-replay passes it over and
# given by id it is named (db_trace_finished reads the kinds) ----
cp demo.db inc.db
sqlite3 inc.db "UPDATE trace SET status = 'incomplete' WHERE id = 3"
expect_eq "an incomplete replay is kind unfinished" \
	"$(sqlite3 inc.db "SELECT kind FROM trace_kind WHERE trace_id = 3")" unfinished
"$TPMTRACE" stats inc.db --trace latest-replay >/dev/null 2>"$T/inc.err"
expect_eq "--trace latest-replay: no finished replay, exit 1" "$?" 1
check "...naming the unfinished one" grep -q "trace 3 is unfinished" "$T/inc.err"
"$TPMTRACE" stats inc.db --trace 3 >/dev/null 2>"$T/inc3.err"
expect_eq "given by id: used (exit 0)" "$?" 0
check "...with the warning, its status named" grep -q "warning: trace 3 is unfinished (status 'incomplete'" \
	<(unwrap "$T/inc3.err")

# ---- profile learn: the clients' commands that succeeded ----
"$TPMTRACE" profile learn demo.db --trace 1 --output - >"$T/learned" 2>"$T/err"
expect_eq "learn: exit status" "$?" 0
check "setup: the recording holds tpmtrace's own commands and a failed one" [ \
	"$(sqlite3 demo.db "SELECT count(*) FROM command WHERE trace_id = 1 AND flags & 32")" -gt 0 -a \
	"$(sqlite3 demo.db "SELECT count(*) FROM command WHERE trace_id = 1 AND rc <> 0")" -gt 0 ]
expect_eq "learn: no Startup (tpmtrace's, and the client's that failed)" \
	"$(grep -c '^Startup ' "$T/learned")" 0
expect_eq "learn: per command, the samples are the clients' successful commands" \
	"$(awk '!/^#/ && / n=[0-9]+/ { for (i = 1; i <= NF; i++) if ($i ~ /^n=/) n[$1] += substr($i, 3) }
		END { for (c in n) print c, n[c] }' "$T/learned" | sort)" \
	"$(sqlite3 -separator ' ' demo.db "SELECT n.name, count(*) FROM command c JOIN tpm_cc n ON n.cc = c.cc
		WHERE c.trace_id = 1 AND c.flags & 42 = 0 AND c.rc = 0 AND c.latency_ns IS NOT NULL
		GROUP BY n.name" | sort)"

finish
