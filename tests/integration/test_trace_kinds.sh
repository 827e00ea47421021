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

. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_createprimary sqlite3 python3 sha256sum
cd "$T" || exit 1
D=$TPMTRACE_SHARED_DATA
[ -d "$D/ima" ] || skip "no shared test data at $D"

"$TPMTRACE" record --spawn-swtpm --db demo.db --quiet -- "$TPMTRACE_SRC/tools/demo-workload" 20 \
	>/dev/null 2>"$T/rec.err"
expect_eq "setup: demo recorded" $? 0
"$TPMTRACE" advise demo.db --trace 1 --rewrite session-per-command >/dev/null 2>"$T/err"
expect_eq "setup: the session-per-command rewrite made" $? 0
"$TPMTRACE" replay demo.db --trace 1 --policy linux-6.10 >/dev/null 2>"$T/err"
expect_eq "setup: a replay made" $? 0
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

finish
