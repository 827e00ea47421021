#!/usr/bin/env bash
# Recording: the demo workload (real tpm2-tools) through the proxy against a
# fresh swtpm. The clients log their own view with tpm2-tss's pcap TCTI; the
# test checks that every command was recorded exactly once, that the responses
# the tools saw are byte for byte those the backend sent, that every tool
# exited 0, and that each latency is positive and at most the round trip the
# client observed. tpmtrace's own commands (flag 32: the TPM2_Startup it sends
# the swtpm it spawned, the resource manager's flushes of what each tool left
# loaded) are recorded apart, under a client of their own. Then the statistics
# views are read from the stock sqlite3 shell and checked against the raw rows.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_startup tshark sqlite3

db=$T/demo.db
pcap=$T/client.pcap
"$TPMTRACE" record --spawn-swtpm --payloads full --db "$db" -- \
	bash -c "export TCTI_PCAP_FILE='$pcap' TPM2TOOLS_TCTI=\"pcap:\$TPM2TOOLS_TCTI\"; exec '$TPMTRACE_SRC/tools/demo-workload' 200" \
	>"$T/out" 2>"$T/err"
rc=$?
expect_eq "workload exit status" "$rc" 0
[ $rc -eq 0 ] || cat "$T/err" >&2

# The client's view: requests (source port above 2321) and responses in order.
tshark -r "$pcap" -T fields -e frame.time_epoch -e tcp.srcport -e tcp.payload 2>/dev/null |
	awk -F'\t' '$2 > 2321 { printf "C %s %s\n", $1, toupper($3) } $2 == 2321 { printf "R %s %s\n", $1, toupper($3) }' >"$T/client.txt"
grep '^C ' "$T/client.txt" | cut -d' ' -f3 >"$T/client-cmds"
grep '^R ' "$T/client.txt" | cut -d' ' -f3 >"$T/client-rsps"
n_client=$(wc -l <"$T/client-cmds")
check "the client log has commands" [ "$n_client" -gt 250 ]

# The recorder's view of the clients' commands.
sqlite3 "$db" "SELECT hex(cmd) FROM command WHERE trace_id=1 AND NOT flags & 32 ORDER BY seq" >"$T/rec-cmds"
sqlite3 "$db" "SELECT hex(rsp) FROM command WHERE trace_id=1 AND NOT flags & 32 ORDER BY seq" >"$T/rec-rsps"
expect_eq "commands recorded" "$(wc -l <"$T/rec-cmds")" "$n_client"
check "every command recorded exactly once, in order" cmp -s "$T/client-cmds" "$T/rec-cmds"
check "responses seen by the tools equal those the backend sent" cmp -s "$T/client-rsps" "$T/rec-rsps"
expect_eq "PCR_Extend commands" "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend')")" 200
expect_eq "malformed or unanswered" "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE flags & 10")" 0
# tpmtrace started the spawned swtpm before the first client: the first
# command, its own (flag 32, client comm 'tpmtrace'), answered with success;
# the workload's own tpm2_startup then gets TPM_RC_INITIALIZE (0x100), which
# it accepts.
expect_eq "the first command is tpmtrace's Startup" \
	"$(sqlite3 "$db" "SELECT c.cc, c.rc, c.flags & 32, cl.comm FROM command c JOIN client cl ON cl.trace_id=c.trace_id AND cl.id=c.client_id WHERE c.trace_id=1 ORDER BY c.seq LIMIT 1")" \
	"324|0|32|tpmtrace"
expect_eq "the workload's Startup: already started" \
	"$(sqlite3 "$db" "SELECT rc FROM command WHERE trace_id=1 AND cc = (SELECT cc FROM tpm_cc WHERE name = 'Startup') AND NOT flags & 32")" 256
expect_eq "tpmtrace's own commands: the Startup and FlushContexts only" \
	"$(sqlite3 "$db" "SELECT group_concat(DISTINCT cc) FROM command WHERE trace_id=1 AND flags & 32 ORDER BY cc")" \
	"324,357"
# tpm2-tools retry on TPM_RC_RETRY (0x922); nothing else may fail.
expect_eq "failed responses" "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE rc NOT IN (0, 0x922) AND NOT (cc = (SELECT cc FROM tpm_cc WHERE name = 'Startup') AND rc=0x100)")" 0

# Latency: positive, and at most the client's round trip (pcap timestamps have
# microsecond resolution: allow 1 us).
awk '$1=="C"{t=$2} $1=="R"{printf "%d\n", ($2 - t) * 1e6 + 0.5}' "$T/client.txt" >"$T/client-rtt-us"
sqlite3 "$db" "SELECT latency_ns FROM command WHERE trace_id=1 AND NOT flags & 32 ORDER BY seq" >"$T/rec-lat"
bad=$(paste "$T/rec-lat" "$T/client-rtt-us" | awk '$1 <= 0 || $1 > ($2 + 1) * 1000 {n++} END {print n+0}')
expect_eq "latencies positive and within the client round trip" "$bad" 0

# Statistics from the stock sqlite3 shell (no tpmtrace functions) against
# the raw rows: the clients' commands.
view=$(sqlite3 "$db" "SELECT name, count, total_ns, min_ns, max_ns FROM command_stats WHERE trace_id=1 ORDER BY cc")
raw=$(sqlite3 "$db" "SELECT n.name, count(*), sum(latency_ns), min(latency_ns), max(latency_ns) FROM command c JOIN tpm_cc n USING (cc) WHERE trace_id=1 AND NOT flags & 32 GROUP BY cc ORDER BY cc")
expect_eq "command_stats view in the stock shell" "$view" "$raw"
"$TPMTRACE" stats "$db" --json >"$T/stats.json"
check "stats --json has the PCR_Extend row" grep -q '"name":"PCR_Extend","cc":386,"count":200' "$T/stats.json"
check "verify passes" "$TPMTRACE" verify "$db" >/dev/null
expect_eq "integrity_check" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
expect_eq "database mode" "$(stat -c %a "$db")" 600
"$TPMTRACE" stats "$db" >"$T/stats.txt"
check "stats shows tpmtrace's own commands apart" grep -q '^sent by tpmtrace itself' "$T/stats.txt"
n_own=$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=1 AND flags & 32")
check "show prints every command" [ "$("$TPMTRACE" show "$db" | grep -vc ' -- ')" -eq $((n_client + n_own)) ]

# The same workload with default (redacted) payloads never stores the secret
# the workload seals and unseals, nor the random bytes.
db2=$T/redacted.db
"$TPMTRACE" record --spawn-swtpm --db "$db2" -- "$TPMTRACE_SRC/tools/demo-workload" 5 >/dev/null 2>&1
expect_eq "redacted run exit status" "$?" 0
check "unsealed secret not in the database" bash -c "! grep -c 'tpmtrace demo secret' '$db2'* >/dev/null"
# randomBytes: after the header (and parameterSize when there are sessions).
random_leaks() { # DB: GetRandom responses whose random bytes are not all zero
	local leaked=0 h off n
	while read -r h; do
		off=$([ "${h:0:4}" = 8002 ] && echo 28 || echo 20)
		n=$((16#${h:off:4}))
		[[ "${h:off+4:2*n}" =~ [1-9A-F] ]] && leaked=$((leaked + 1))
	done < <(sqlite3 "$1" "SELECT hex(rsp) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND rc=0")
	echo $leaked
}
check "GetRandom responses recorded" [ "$(sqlite3 "$db2" "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'GetRandom') AND rc=0")" -ge 2 ]
expect_eq "GetRandom outputs zeroed" "$(random_leaks "$db2")" 0
check "full payloads do hold random bytes (the check works)" [ "$(random_leaks "$db")" -ge 2 ]
check "full payloads do hold the secret (the search works)" grep -q 'tpmtrace demo secret' "$db" "$db-wal" 2>/dev/null
finish
