#!/usr/bin/env bash
# The seam tier's corpus (tests/seam/README.md), made once per run: one
# database holding a trace of every kind, in an order that puts kinds that
# must never be the default after the ones that may be, and a second database
# shaped as ./tools/demo leaves it (a recording, its replays, advise's
# rewrite). The matrix tests (test_seam_*.sh) read both, never write them:
# each copies what it changes.
#   corpus.db  1 recording (tpmtrace's own Startup, resource-manager flushes)
#              2.. one replay per preset (--policy all), an emulated replay,
#              an advise rewrite, a strip, imports: IMA list, TCG log and
#              swtpm log (no timing), ftrace (timing, its callers named by
#              attribute: one kernel extend, one hwrng read) and pcap (pcapng
#              and classic), and last a recording killed with SIGKILL
#              (unfinished)
#   demo.db    a recording, a replay, advise --prove's traces
# corpus.txt names each trace: "ID KIND-IN-THIS-CORPUS".
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 python3 tpm2_startup
C=${TPMTRACE_SEAM_CORPUS:-$TPMTRACE_TEST_BUILD/seam-corpus}
DATA=$TPMTRACE_SHARED_DATA
[ -d "$DATA/pcap" ] || skip "the shared data is not at $DATA"
rm -rf "$C"
mkdir -p "$C"
db=$C/corpus.db
names=()
step() { # step "KIND" COMMAND...: runs it, names the trace it made
	local kind=$1 before after
	shift
	before=0
	# (not before a tpmtrace made the file: sqlite3 would make an empty one)
	[ -s "$db" ] && before=$(sqlite3 "$db" "SELECT coalesce(max(id),0) FROM trace")
	"$@" >"$T/step.out" 2>"$T/step.err"
	local rc=$?
	expect_eq "corpus: $kind ($*)" "$rc" 0
	[ "$rc" -eq 0 ] || tail -5 "$T/step.err" >&2
	after=$(sqlite3 "$db" "SELECT coalesce(max(id),0) FROM trace")
	for ((i = before + 1; i <= after; i++)); do
		names+=("$i $kind")
	done
}

# ---- a recording, its replays and what is derived from it ----
step record "$TPMTRACE" record --spawn-swtpm --rm --db "$db" --name seam-rec -- \
	"$TPMTRACE_SRC/tools/demo-workload" 8
step replay "$TPMTRACE" replay "$db" --trace 1 --policy all
step replay-emulated "$TPMTRACE" replay "$db" --trace 1 --policy as-recorded \
	--emulate slb9670-linux-integrity
step derived-rewrite "$TPMTRACE" advise "$db" --trace 1 --rewrite session-per-command
l610=$(sqlite3 "$db" "SELECT max(id) FROM trace WHERE kind='replay' AND policy='linux-6.10'")
step derived-strip "$TPMTRACE" strip "$db" --trace "$l610"

# ---- imports ----
step import-untimed "$TPMTRACE" import ima "$DATA/ima/tpm2-tss/sml-ima-ng-sha1.bin" --db "$db" --quiet
step import-untimed "$TPMTRACE" import tcglog \
	"$DATA/ima/ima-evm-utils/sample-binary_bios_measurements-pcrs-8-9" --db "$db" --quiet
printf '%s\n' '# tracer: function_graph' '#' \
	'  100.000100 | 0)               |  tpm2_pcr_extend() {' \
	'  100.000200 | 0) # 6400.123 us |    tpm_transmit_cmd();' \
	'  100.006700 | 0) # 6410.456 us |  }' \
	'  100.010000 | 1)               |  tpm_hwrng_read() {' \
	'  100.010050 | 1)               |    tpm2_get_random() {' \
	'  100.010100 | 1) + 35.000 us   |      tpm_transmit_cmd();' \
	'  100.010200 | 1) + 40.000 us   |    }' \
	'  100.010300 | 1) + 50.000 us   |  }' >"$C/pcr_extend.trace"
step import-timed "$TPMTRACE" import ftrace "$C/pcr_extend.trace" --db "$db" --quiet
# The same ftrace names the import's callers: the kernel's extend and a read
# of its TPM hwrng (a trace with hwrng reads, as record --kernel makes them).
fid=$(sqlite3 "$db" "SELECT max(id) FROM trace")
check "corpus: attribute the ftrace import by its own ftrace (an hwrng read)" \
	"$TPMTRACE" attribute "$db" --trace "$fid" --ftrace "$C/pcr_extend.trace"
check "corpus: a swtpm log" swtpm_log "$C/swtpm.log"
step import-untimed "$TPMTRACE" import swtpm-log "$C/swtpm.log" --db "$db" --quiet
step import-timed "$TPMTRACE" import pcap "$DATA/pcap/esys-create-session-auth-ecc.int.pcap" \
	--db "$db" --quiet
# A classic pcap file too: read straight from its bytes, not through libpcap.
check "corpus: a classic pcap" python3 "$TPMTRACE_SRC/tests/integration/pcap_fixture.py" many 20 \
	"$C/classic.pcap"
step import-timed "$TPMTRACE" import pcap "$C/classic.pcap" --db "$db" --quiet

# ---- unfinished: a recording killed mid-way (last, so newest) ----
"$TPMTRACE" record --spawn-swtpm --db "$db" --name seam-killed --quiet -- \
	sh -c "exec '$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd getrandom --count 1000000 --quiet >/dev/null" 2>"$T/killed.err" &
kp=$!
PIDS+=($kp)
kid=$(($(sqlite3 "$db" "SELECT max(id) FROM trace") + 1))
wait_until "[ \"\$(sqlite3 '$db' \"SELECT count(*) FROM command WHERE trace_id=$kid\" 2>/dev/null)\" -ge 500 ]"
kill -KILL "$kp"
wait "$kp" 2>/dev/null
names+=("$kid unfinished")
check "corpus: the killed recording left its rows" \
	[ "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$kid")" -ge 500 ]

printf '%s\n' "${names[@]}" >"$C/corpus.txt"
expect_eq "corpus: every trace named" "$(wc -l <"$C/corpus.txt")" "$(sqlite3 "$db" "SELECT count(*) FROM trace")"

# ---- the demo's database: a recording, then replays and advise's traces ----
demo=$C/demo.db
"$TPMTRACE" record --spawn-swtpm --db "$demo" --name demo --quiet -- \
	"$TPMTRACE_SRC/tools/demo-workload" 8 >/dev/null 2>"$T/demo.err"
expect_eq "demo: recorded" "$?" 0
"$TPMTRACE" replay "$demo" --policy linux-6.10 >/dev/null 2>>"$T/demo.err"
expect_eq "demo: replayed" "$?" 0
"$TPMTRACE" advise "$demo" --profile slb9670-linux-integrity --prove >/dev/null 2>>"$T/demo.err"
expect_eq "demo: advise --prove" "$?" 0
check "demo: advise --prove stored traces after the recording" \
	[ "$(sqlite3 "$demo" "SELECT count(*) FROM trace WHERE id > 1")" -ge 2 ]
cat "$C/corpus.txt"
sqlite3 "$db" "SELECT id, kind, status, coalesce(policy,''), coalesce(emulated,''), name FROM trace"
finish
