#!/usr/bin/env bash
# Terminal output fits 100 columns: every subcommand's usual output (stdout and
# stderr) on a demo trace - recorded as tools/demo records it (the demo
# workload through record --spawn-swtpm), replayed, predicted on a shipped
# profile - with COLUMNS=100, and every subcommand's --help. A line longer
# than 100 characters fails, named with its command. --wide (stats, diff,
# show, predict) is the way to the longer lines and is not checked here.
# record's exit lines (and those of record --emulate) are checked from the
# recording of the demo trace and one more. Not covered: sql (its columns
# are the query's), calibrate and vm-record (a TPM's worth of time, a VM).
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_startup python3
PCAP=$TPMTRACE_SHARED_DATA/pcap/esys-create-session-auth-ecc.int.pcap
[ -f "$PCAP" ] || skip "$PCAP missing (the shared test data)"

export COLUMNS=100
db=$T/demo.db
"$TPMTRACE" record --spawn-swtpm --db "$db" --name demo -- "$TPMTRACE_SRC/tools/demo-workload" 20 \
	>"$T/rec.out" 2>"$T/rec.err"
expect_eq "demo trace recorded" "$?" 0

# out NAME CMD...: the command's stdout and stderr into $T/out/NAME; it must
# succeed (exit 0).
mkdir -p "$T/out"
out() {
	local name=$1
	shift
	"$@" >"$T/out/$name" 2>&1
	local rc=$?
	expect_eq "$name: exit status" "$rc" 0
}
out replay "$TPMTRACE" replay "$db" --trace 1 --policy linux-6.10
out replay-all "$TPMTRACE" replay "$db" --trace 1 --policy all --repeat 2
out list "$TPMTRACE" list "$db"
out stats "$TPMTRACE" stats "$db" --trace 1
out stats-replay "$TPMTRACE" stats "$db" --trace 2
out stats-origin "$TPMTRACE" stats "$db" --trace 1 --by origin
out show "$TPMTRACE" show "$db" --trace 1
out show-replay "$TPMTRACE" show "$db" --trace 2
out show-V "$TPMTRACE" show "$db" --trace 1 -V
out diff "$TPMTRACE" diff "$db" 1 2
out verify "$TPMTRACE" verify "$db"
out pcrs "$TPMTRACE" pcrs "$db" --trace 1
out predict "$TPMTRACE" predict "$db" --trace 1 --profile slb9670-linux-integrity
out predict-synthetic "$TPMTRACE" predict --synthetic pcr-extend:12313 --gap-ms 1.99 \
	--profile slb9670-linux-integrity
out profile-list "$TPMTRACE" profile list
for p in $("$TPMTRACE" profile list | awk 'NR > 1 { print $1 }'); do
	out "profile-show-$p" "$TPMTRACE" profile show "$p"
done
out report "$TPMTRACE" report "$db" --trace 1 --profile slb9670-linux-integrity -o "$T/r.html"
out export "$TPMTRACE" export "$db" --trace 1 --csv "$T/c.csv"
cp "$T/rec.err" "$T/out/record"
out record-emulate "$TPMTRACE" record --spawn-swtpm --emulate slb9670-linux-integrity \
	--db "$T/emu.db" -- "$TPMTRACE_SRC/tools/demo-workload" 2
check "record's exit lines are there" grep -q "commands forwarded" "$T/out/record"
check "record --emulate's account is there" grep -q "responses" "$T/out/record-emulate"
out strip "$TPMTRACE" strip "$db" --trace 1
out import "$TPMTRACE" import pcap "$PCAP" --db "$T/imp.db"
out help "$TPMTRACE" --help
for c in $("$TPMTRACE" --help | awk '/^  [a-z-]+  / { print $1 }'); do
	out "help-$c" "$TPMTRACE" $c --help
done
check "the help of every subcommand was read" [ "$(ls "$T/out" | grep -c '^help-')" -ge 15 ]
check "every shipped profile was shown" [ "$(ls "$T/out" | grep -c '^profile-show-')" -ge 4 ]

python3 - "$T/out" >"$T/long.txt" <<'PY'
import os, sys
d = sys.argv[1]
for name in sorted(os.listdir(d)):
    for n, line in enumerate(open(os.path.join(d, name), encoding='utf-8', errors='replace'), 1):
        line = line.rstrip('\n')
        if len(line) > 100:
            print(f"{name}:{n}: {len(line)} columns: {line[:60]}...")
PY
expect_eq "the width checker ran" "$?" 0
check "the outputs are there ($(ls "$T/out" | wc -l) files)" [ "$(cat "$T"/out/* | wc -l)" -gt 500 ]
expect_eq "lines longer than 100 columns" "$(head -20 "$T/long.txt")" ""
finish
