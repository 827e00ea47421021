#!/usr/bin/env bash
# Issue 22 item 3: SIGINT, SIGTERM or SIGHUP while export writes a large
# trace leaves no .NAME.XXXXXXXX.tmp behind, the previous output as it was,
# and the exit status says which signal ended the process (128 + N).
# The trace is the demo recording with its commands copied by SQL until the
# CSV takes a few seconds to write, so that the signal comes mid-write (the
# test waits until the temporary file has data before it sends it).
. "$(dirname "$0")/../lib/common.sh"
need swtpm sqlite3 env
env --default-signal=INT true 2>/dev/null || skip "env --default-signal (coreutils >= 8.31) is missing"
cd "$T" || exit 1

"$TPMTRACE" record --spawn-swtpm --db demo.db --quiet -- "$TPMTRACE_SRC/tools/demo-workload" 10 >/dev/null 2>rec.err
expect_eq "setup: demo recorded" $? 0
cp demo.db big.db
sqlite3 big.db "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM k WHERE i<${SIGNAL_COPIES:-6000})
	INSERT INTO command (trace_id, seq, t_submit_ns, t_done_ns, latency_ns, cc, locality, tag,
	cmd_size, rsp_size, rc, client_id, flags)
	SELECT trace_id, seq + i*1000, t_submit_ns, t_done_ns, latency_ns, cc, locality, tag,
	cmd_size, rsp_size, rc, client_id, flags FROM command, k WHERE trace_id=1"
expect_eq "setup: a large trace" $? 0
echo "the previous export" >out.csv

has_tmp_data() { [ -n "$(find . -maxdepth 1 -name '.out.csv.*.tmp' -size +0)" ]; }
for sig in INT TERM HUP; do
	# A background job of a non-interactive shell ignores SIGINT: the
	# default action restored, as a terminal's foreground job has it.
	env --default-signal=INT "$TPMTRACE" export big.db --csv out.csv 2>"err.$sig" &
	pid=$!
	check "SIG$sig: the export is writing its temporary file" wait_until has_tmp_data
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	expect_eq "SIG$sig: the exit status says killed by SIG$sig" $rc $((128 + $(kill -l "$sig")))
	expect_eq "SIG$sig: no temporary file left" "$(find . -maxdepth 1 -name '*.tmp' | wc -l)" 0
	expect_eq "SIG$sig: the previous output is as it was" "$(cat out.csv)" "the previous export"
	rm -f .out.csv.*.tmp # a leftover would be taken for the next round's
done

# Without a signal the same export completes and replaces the output.
"$TPMTRACE" export big.db --csv out.csv 2>err
rc=$?
expect_eq "the export without a signal exits 0" $rc 0
expect_eq "...and writes every row" "$(($(wc -l <out.csv) - 1))" "$(sqlite3 big.db 'SELECT count(*) FROM command')"
finish
