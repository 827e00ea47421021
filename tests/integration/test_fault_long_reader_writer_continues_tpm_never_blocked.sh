#!/usr/bin/env bash
# Fault: the database is held by a long reader (a stock sqlite3 shell inside
# BEGIN; SELECT ...; until the test is done) while 30,000 commands pass
# through the proxy.
# With WAL the writer keeps committing (a fresh reader sees the rows grow and
# then all of them, while the long reader still holds its transaction),
# nothing is warned about, the TPM path never waits for the writer (its wait
# count is 0), what is stored is counted exactly, and the long reader's
# snapshot stays the same throughout (it really held a transaction).
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3

N=30000
start_swtpm "$T/sw"
db=$T/locked.db
record_bg "$db" --backend "swtpm:path=$T/sw/s.sock" --listen "unix:$T/p.sock"
wait_for_socket "$T/p.sock"
"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd startup >/dev/null
sleep 0.2
expect_eq "journal mode" "$(sqlite3 "$db" "PRAGMA journal_mode")" wal

{
	echo "BEGIN;"
	echo "SELECT count(*) FROM command;"
	while [ ! -e "$T/done" ]; do sleep 0.1; done
	echo "SELECT count(*) FROM command;"
	echo "COMMIT;"
} | sqlite3 "$db" >"$T/reader.out" &
reader=$!
PIDS+=($reader)
sleep 0.5

"$TPMCLIENT" --connect "unix:$T/p.sock" --cmd pcrextend --count $N --rtt "$T/rtt" >"$T/client.out" &
client=$!
# Rows a fresh reader sees, sampled while the client runs: they must grow.
samples=()
while kill -0 $client 2>/dev/null; do
	samples+=("$(sqlite3 "$db" "SELECT count(*) FROM command")")
	sleep 0.1
done
check "every command answered" wait $client
samples+=("$(sqlite3 "$db" "SELECT count(*) FROM command")")
distinct=$(printf '%s\n' "${samples[@]}" | sort -u | wc -l)
check "the writer keeps committing during the read (${#samples[@]} samples, $distinct distinct counts)" \
	[ "$distinct" -ge 2 ]
check "the long reader still holds its transaction" kill -0 $reader
echo "client: $(cat "$T/client.out") (figures only)"
# Every recorded command gets committed while the reader holds its snapshot:
# a writer held off by the reader would stay below that until the reader ends.
# (The queue may drop under load: then `trace.dropped` tells how many.)
check "rows keep being committed while the reader holds its snapshot" \
	wait_until "[ \"\$(sqlite3 '$db' 'SELECT count(*) FROM command')\" -ge $((N / 2)) ]"
check "the long reader still holds its transaction, after" kill -0 $reader
kill -TERM $RECORD_PID
check "recorder exits 0 (reader still open)" wait $RECORD_PID
read -r fwd rec drop waits <<<"$(record_summary)"
expect_eq "the TPM path never waited for the writer" "${waits:-none}" 0
expect_eq "commands forwarded" "${fwd:-none}" $((N + 1))
expect_eq "rows stored (with the reader still open) = recorded" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command")" "${rec:-none}"
expect_eq "recorded + dropped = forwarded" "$((${rec:-0} + ${drop:-0}))" $((N + 1))
touch "$T/done"
wait $reader
read -r before after <<<"$(tr '\n' ' ' <"$T/reader.out")"
expect_eq "the long reader's snapshot did not move" "$after" "$before"
check "no write failure reported" bash -c "! grep -q 'cannot write' '$T/record.err'"
expect_eq "trace.dropped = the drops" "$(sqlite3 "$db" "SELECT dropped FROM trace")" "${drop:-none}"
expect_eq "trace closed" "$(sqlite3 "$db" "SELECT status FROM trace")" complete
expect_eq "integrity" "$(sqlite3 "$db" 'PRAGMA integrity_check')" ok
finish
