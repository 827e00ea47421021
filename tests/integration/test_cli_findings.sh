#!/usr/bin/env bash
# The eight findings of "a CLI a user can trust", each a named case: what a
# new user following README.md, docs/ and --help ran into, and what holds now.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_createprimary tpm2_getcap sqlite3 python3 sha256sum
cd "$T" || exit 1
sum() { sha256sum <"$1" | cut -d' ' -f1; }

# A demo database: the workload, then a linux-6.10 replay of it.
"$TPMTRACE" record --spawn-swtpm --db demo.db --quiet -- "$TPMTRACE_SRC/tools/demo-workload" 20 >/dev/null 2>"$T/rec.err"
expect_eq "setup: demo recorded" $? 0
"$TPMTRACE" replay demo.db --policy linux-6.10 >/dev/null 2>&1
expect_eq "setup: demo replayed" $? 0

# ---- 1. Output over input never destroys the database ----
cp demo.db d.db
h=$(sum d.db)
ln -s d.db dlink.db
for args in "report d.db -o d.db" "export d.db --trace 1 --csv d.db" "export d.db --trace 1 --pcapng d.db" \
	"profile learn d.db --trace 1 --output d.db" "report d.db -o dlink.db" "export d.db --jsonl dlink.db" \
	"pcrs d.db -o d.db-wal"; do
	# shellcheck disable=SC2086
	"$TPMTRACE" $args >/dev/null 2>"$T/err"
	expect_eq "finding 1: '$args' is refused" "$?" 2
	check "finding 1: '$args' says why" grep -q "would overwrite the input" "$T/err"
	expect_eq "finding 1: '$args' leaves d.db as it was" "$(sum d.db)" "$h"
done
check "finding 1: the symlink is still a symlink" test -L dlink.db
"$TPMTRACE" report demo.db -o out.html 2>/dev/null
h=$(sum out.html)
"$TPMTRACE" report demo.db --profile nosuch -o out.html >/dev/null 2>"$T/err"
expect_eq "finding 1: report with an unknown profile fails" "$?" 1
expect_eq "finding 1: ...and leaves the previous report as it was" "$(sum out.html)" "$h"
expect_eq "finding 1: ...and no temporary file" "$(ls -A | grep -c '^\.out\.html')" 0
expect_eq "finding 1: outputs are 0600" "$(stat -c %a out.html)" 600

# ---- 2. The README's first record example, and tools that leave objects ----
"$TPMTRACE" record --spawn-swtpm --db boot.db -- tpm2_pcrread sha256:0,1 >/dev/null 2>"$T/err"
expect_eq "finding 2: record --spawn-swtpm -- tpm2_pcrread exits 0" "$?" 0
expect_eq "finding 2: its Startup is tpmtrace's own, first" \
	"$(sqlite3 boot.db "SELECT c.cc || ' ' || c.flags || ' ' || cl.comm FROM command c JOIN client cl ON cl.id=c.client_id AND cl.trace_id=c.trace_id ORDER BY c.seq LIMIT 1")" \
	"324 32 tpmtrace"
"$TPMTRACE" record --spawn-swtpm --no-startup --db nostart.db -- tpm2_pcrread sha256:0 >/dev/null 2>&1
expect_eq "finding 2: --no-startup keeps the swtpm not started" "$?" 1
expect_eq "finding 2: ...and sends nothing itself" "$(sqlite3 nostart.db 'SELECT count(*) FROM command WHERE flags & 32')" 0
"$TPMTRACE" record --spawn-swtpm --db seal.db -- sh -c 'tpm2_createprimary -Q -c p.ctx &&
	echo secret | tpm2_create -Q -C p.ctx -u k.pub -r k.priv -i- &&
	tpm2_load -Q -C p.ctx -u k.pub -r k.priv -c k.ctx && tpm2_unseal -c k.ctx' >"$T/unseal.out" 2>"$T/err"
expect_eq "finding 2: createprimary/create/load/unseal through record exits 0" "$?" 0
expect_eq "finding 2: the secret comes back" "$(cat "$T/unseal.out")" secret
"$TPMTRACE" stats seal.db >"$T/stats.txt"
check "finding 2: stats shows the resource manager's flushes apart" \
	grep -qE '^FlushContext .*' <(sed -n '/^sent by tpmtrace itself/,$p' "$T/stats.txt")
"$TPMTRACE" stats seal.db --json >"$T/stats.json"
[ "$(python3 - "$T/stats.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
own = {c['name']: c['count'] for c in s['tpmtrace_commands']}
mine = {c['name'] for c in s['commands']}
print(int(own.get('FlushContext', 0) > 0 and own.get('Startup') == 1 and 'Unseal' in mine and 'Startup' not in mine))
EOF
)" = 1 ] && ok || bad "finding 2: stats --json keeps tpmtrace's commands apart"
"$TPMTRACE" record --spawn-swtpm --no-rm --db norm.db -- sh -c 'tpm2_createprimary -Q -c p2.ctx &&
	echo s | tpm2_create -Q -C p2.ctx -u k2.pub -r k2.priv -i- &&
	tpm2_load -Q -C p2.ctx -u k2.pub -r k2.priv -c k2.ctx' >/dev/null 2>"$T/err"
check "finding 2: without the resource manager the TPM runs out of object slots" grep -q "out of memory for object contexts" "$T/err"

# ---- 3. One rule for which trace ----
p=$("$TPMTRACE" predict demo.db --profile slb9670-linux-integrity --policy password --host-crypto estimate --json 2>"$T/err")
check "finding 3: predict without --trace predicts the recording" grep -q '"trace":"demo.db trace 1:' <<<"$p"
check "finding 3: ...with no warning" bash -c "! grep -q replay '$T/err'"
"$TPMTRACE" predict demo.db --trace latest-replay --profile slb9670-linux-integrity --host-crypto estimate >/dev/null 2>"$T/err"
check "finding 3: predicting a replay warns, naming its policy" grep -q "trace 2 is a replay under policy linux-6.10" "$T/err"
for s in stats pcrs "profile learn" export report show; do
	case $s in
	export) extra=(--csv -) ;;
	report) extra=(-o -) ;;
	"profile learn") extra=(--output -) ;;
	*) extra=() ;;
	esac
	# shellcheck disable=SC2086
	a=$("$TPMTRACE" $s demo.db "${extra[@]}" 2>/dev/null | sha256sum)
	# shellcheck disable=SC2086
	b=$("$TPMTRACE" $s demo.db --trace 1 "${extra[@]}" 2>/dev/null | sha256sum)
	expect_eq "finding 3: $s defaults to the newest recording, not the replay" "$a" "$b"
done
"$TPMTRACE" stats demo.db --trace=latest --json | grep -q '"id":2,' && ok || bad "finding 3: --trace=latest is the replay"

# ---- 4. Imports are all or nothing ----
printf 'hello\nworld\n' >x.txt
for k in ima tcglog pcap swtpm-log ftrace; do
	"$TPMTRACE" import "$k" x.txt --db imp.db >/dev/null 2>"$T/err"
	expect_eq "finding 4: import $k of a text file fails" "$?" 1
	check "finding 4: ...saying it is not that kind" grep -q "^tpmtrace import: x.txt: not " "$T/err"
	check "finding 4: ...and creates no database" test ! -e imp.db
done
check "finding 4: the TCG message names the header" grep -q "x.txt: not a TCG event log (no Spec ID Event03 header" <("$TPMTRACE" import tcglog x.txt --db imp.db 2>&1)
head -c 4096 /dev/urandom >rand.bin
"$TPMTRACE" import ima rand.bin --db imp.db >/dev/null 2>&1
expect_eq "finding 4: a random binary as ima fails" "$?" 1
check "finding 4: ...and keeps no trace (no database)" test ! -e imp.db
"$TPMTRACE" import pcap nosuch.pcap --db n.db >/dev/null 2>&1
expect_eq "finding 4: a missing capture fails" "$?" 1
check "finding 4: ...and creates no n.db" test ! -e n.db
# Part-way failure: a truncated IMA list under --strict.
# (sml-ima-ng-sha1.bin: six entries, then stray bytes: a truncated record)
f=$TPMTRACE_SHARED_DATA/ima/tpm2-tss/sml-ima-ng-sha1.bin
if [ -f "$f" ]; then
	"$TPMTRACE" import ima "$f" --db part.db --strict >/dev/null 2>&1
	expect_eq "finding 4: a list that fails part-way (--strict) fails" "$?" 1
	check "finding 4: ...and leaves no database" test ! -e part.db
	"$TPMTRACE" import ima "$f" --db part.db --strict --keep-partial >/dev/null 2>"$T/err"
	expect_eq "finding 4: --keep-partial keeps it as incomplete" \
		"$(sqlite3 part.db "SELECT status FROM trace")" incomplete
fi
# record: nothing before it listens.
# a port that something else listens on (bound to port 0: one the kernel gave)
python3 -c 'import os,socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
open(sys.argv[1] + ".tmp", "w").write("%d" % s.getsockname()[1]); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(60)' "$T/held" &
HOLD=$!
PIDS+=($HOLD)
wait_until "[ -s '$T/held' ]"
PORT=$(cat "$T/held")
check "finding 4: a port is held" test -n "$PORT"
timeout 60 "$TPMTRACE" record --spawn-swtpm --listen tcp:127.0.0.1:$PORT --db busy.db >/dev/null 2>"$T/err"
expect_eq "finding 4: record on a port in use fails" "$?" 1
check "finding 4: ...names the listener" grep -q -- "--listen" "$T/err"
check "finding 4: ...and creates no database" test ! -e busy.db
kill $HOLD
"$TPMTRACE" record --spawn-swtpm --listen bogus --db bad.db >/dev/null 2>&1
expect_eq "finding 4: a bad --listen is a usage error" "$?" 2
check "finding 4: ...creating no database" test ! -e bad.db
"$TPMTRACE" record --spawn-swtpm --db "$T/nonexistent/x.db" -- true >/dev/null 2>&1
expect_eq "finding 4: --db in a missing directory fails" "$?" 1
check "finding 4: ...and does not create the directory" test ! -e "$T/nonexistent"

# ---- 5. One convention ----
for s in stats show replay report predict pcrs export "profile learn"; do
	# shellcheck disable=SC2086
	"$TPMTRACE" $s demo.db --trace abc >/dev/null 2>&1
	expect_eq "finding 5: $s --trace abc is a usage error" "$?" 2
done
"$TPMTRACE" show demo.db --limit abc >/dev/null 2>&1
expect_eq "finding 5: show --limit abc" "$?" 2
"$TPMTRACE" show demo.db --limit -3 >/dev/null 2>&1
expect_eq "finding 5: show --limit -3" "$?" 2
expect_eq "finding 5: show --limit=2 prints 2 lines" "$("$TPMTRACE" show demo.db --limit=2 | wc -l)" 2
for s in predict report stats; do
	case $s in
	predict) extra=(--profile=slb9670-linux-integrity --host-crypto=estimate) ;;
	report) extra=(-o "$T/r.html") ;;
	*) extra=() ;;
	esac
	"$TPMTRACE" $s demo.db --trace=1 "${extra[@]}" >/dev/null 2>&1
	expect_eq "finding 5: $s --trace=1 is accepted" "$?" 0
done
"$TPMTRACE" stats demo.db --bogus >/dev/null 2>"$T/err"
expect_eq "finding 5: an unknown option is two lines" "$(wc -l <"$T/err")" 2
"$TPMTRACE" pcrs demo.db --json | python3 -c 'import json,sys; assert json.load(sys.stdin)["version"] == 1'
expect_eq "finding 5: pcrs --json has version 1" "$?" 0
"$TPMTRACE" sql demo.db 'SELECT cmd, rsp FROM command LIMIT 3' --json >"$T/sql.json"
python3 - "$T/sql.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 1 and len(d["rows"]) == 3
assert all(len(r["cmd"]) >= 20 and int(r["cmd"], 16) >= 0 for r in d["rows"])
EOF
expect_eq "finding 5: sql --json is valid JSON, version 1, BLOBs as hex" "$?" 0
TCG=$TPMTRACE_SHARED_DATA/ima/ima-evm-utils/sample-binary_bios_measurements-pcrs-8-9
"$TPMTRACE" import tcglog "$TCG" --db logs.db --json >"$T/tcg.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"]==1 and d["imports"][0]["extends"]>0' "$T/tcg.json"
expect_eq "finding 5: import tcglog --json" "$?" 0
"$TPMTRACE" import ima "$TPMTRACE_SHARED_DATA/ima/ima-evm-utils/sample-ascii_runtime_measurements-pcrs-8-9" --db logs.db --json >"$T/ima.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"]==1 and d["imports"][0]["entries"]==1' "$T/ima.json"
expect_eq "finding 5: import ima --json" "$?" 0
"$TPMTRACE" calibrate --iterations 1 --warmup 0 --quiet -o cal.profile >/dev/null 2>&1
expect_eq "finding 5: calibrate -o" "$?" 0
check "finding 5: ...wrote the profile" grep -q '^tpmtrace-profile' cal.profile

# ---- 6. Error paths say the right thing, and only that ----
"$TPMTRACE" profile export slb9670-linux-integrity -o p.profile
"$TPMTRACE" profile import profile p.profile fresh.db >/dev/null 2>&1
"$TPMTRACE" replay fresh.db >"$T/out" 2>"$T/err"
expect_eq "finding 6: replay of a database without a trace fails" "$?" 1
expect_eq "finding 6: ...with no bogus summary" "$(cat "$T/out")" ""
expect_eq "finding 6: ...one line" "$(cat "$T/err")" "tpmtrace replay: the database holds no trace"
"$TPMTRACE" replay demo.db --target bogus >"$T/out" 2>"$T/err"
expect_eq "finding 6: replay --target bogus fails" "$?" 1
expect_eq "finding 6: ...with no summary" "$(cat "$T/out")" ""
expect_eq "finding 6: ...one line" "$(wc -l <"$T/err")" 1
"$TPMTRACE" export fresh.db --csv - >"$T/out" 2>"$T/err"
expect_eq "finding 6: export of a database without a trace" "$(cat "$T/err")" "tpmtrace export: the database holds no trace"
"$TPMTRACE" profile learn demo.db --trace 99 2>"$T/err"
check "finding 6: profile learn --trace 99 says no trace 99" grep -q "no trace 99" "$T/err"
"$TPMTRACE" record --spawn-swtpm --db noext.db -- tpm2_getrandom 8 >/dev/null 2>&1
"$TPMTRACE" pcrs noext.db >"$T/out" 2>"$T/err"
expect_eq "finding 6: pcrs of a trace without extends fails" "$?" 1
check "finding 6: ...and says so" grep -q "extends no PCR" "$T/err"
"$TPMTRACE" import tcglog "$TCG" --db ev.db >/dev/null
nev=$(sqlite3 ev.db 'SELECT count(*) FROM event')
"$TPMTRACE" predict ev.db --profile slb9670-linux-integrity --host-crypto estimate >"$T/out" 2>/dev/null
check "finding 6: predict counts the trace's $nev events" grep -q ", $nev events" "$T/out"
# A recording killed before it closed its trace: stats and verify agree.
"$TPMTRACE" record --spawn-swtpm --no-startup --db killed.db -- bash -c \
	"'$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd startup >/dev/null; exec '$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd pcrextend --count 100000000 --quiet" \
	>/dev/null 2>&1 &
RP=$!
PIDS+=($RP)
# The poll opens the file read-only once it is there: a poll that created
# it would leave an empty file, which the recorder refuses.
nk=0
for _ in $(seq 600); do
	nk=0
	[ -s killed.db ] && nk=$(sqlite3 -readonly killed.db 'SELECT count(*) FROM command' 2>/dev/null)
	[ "${nk:-0}" -gt 200 ] && break
	sleep 0.1
done
kill -KILL $RP
wait $RP 2>/dev/null
check "finding 6: the recording stored over 200 commands before it was killed (got $nk)" [ "${nk:-0}" -gt 200 ]
ev_stats=$("$TPMTRACE" stats killed.db --trace 1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["trace"]["events"])')
ev_verify=$("$TPMTRACE" verify killed.db --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["traces"][0]["events"])')
check "finding 6: stats --json of the killed recording counts its events (got '$ev_stats')" \
	[ -n "$ev_stats" -a "$ev_stats" = "${ev_stats//[^0-9]/}" ]
expect_eq "finding 6: stats and verify agree on the events of a killed recording" "$ev_stats" "$ev_verify"
head -c 5000 demo.db >damaged.db
"$TPMTRACE" verify damaged.db --json >"$T/out" 2>/dev/null
expect_eq "finding 6: verify --json of a damaged file fails" "$?" 1
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"]==1 and d["problems"]>0' "$T/out"
expect_eq "finding 6: ...printing one JSON object" "$?" 0

# ---- 7. --listen-mssim alone listens there only ----
"$TPMTRACE" record --spawn-swtpm --listen-mssim tcp:127.0.0.1:0 --db mssim.db 2>"$T/mssim.err" &
RP=$!
PIDS+=($RP)
M=$(listen_port mssim "$T/mssim.err")
check "finding 7: the banner names the mssim TCTI (port 0: a free pair bound)" \
	grep -q "TPM2TOOLS_TCTI=mssim:host=127.0.0.1,port=$M" "$T/mssim.err"
ports=$(python3 - $RP <<'EOF'
import os, sys
pid = sys.argv[1]
inodes = set()
for fd in os.listdir('/proc/%s/fd' % pid):
    try:
        t = os.readlink('/proc/%s/fd/%s' % (pid, fd))
    except OSError:
        continue
    if t.startswith('socket:['):
        inodes.add(t[8:-1])
ports = set()
for line in open('/proc/net/tcp').readlines()[1:] + open('/proc/net/tcp6').readlines()[1:]:
    f = line.split()
    if f[3] == '0A' and f[9] in inodes:
        ports.add(int(f[1].split(':')[1], 16))
print(' '.join(str(p) for p in sorted(ports)))
EOF
)
expect_eq "finding 7: it listens on the mssim ports only (not 2321)" "$ports" "$M $((M + 1))"
TPM2TOOLS_TCTI=mssim:host=127.0.0.1,port=$M tpm2_getrandom 4 >/dev/null 2>&1
expect_eq "finding 7: the mssim TCTI works" "$?" 0
kill -INT $RP
wait $RP
expect_eq "finding 7: record exits 0 on Ctrl-C" "$?" 0

# ---- 8. A replay leaves an external target as it found it ----
start_swtpm "$T/ext"
X="swtpm:path=$T/ext/s.sock"
tpm2_startup -c -T "$X" 2>/dev/null
handles() { for h in nv-index persistent transient loaded-session saved-session; do echo "$h: $(tpm2_getcap handles-$h -T "$X" | tr '\n' ' ')"; done; }
before=$(handles)
fids=()
for i in 1 2 3; do
	"$TPMTRACE" replay demo.db --trace 1 --policy linux-6.12 --target "$X" --json >"$T/ext$i.json" 2>"$T/ext$i.err"
	expect_eq "finding 8: run $i exits 0" "$?" 0
	fids+=("$(sed -nE 's/.*"fidelity":([0-9.]+).*/\1/p' "$T/ext$i.json")")
	expect_eq "finding 8: run $i left nothing it could not remove" "$(sed -nE 's/.*"cleanup_left":([0-9]+).*/\1/p' "$T/ext$i.json")" 0
done
expect_eq "finding 8: three runs, one fidelity" "${fids[1]} ${fids[2]}" "${fids[0]} ${fids[0]}"
check "finding 8: the fidelity is at least 95%" awk -v f="${fids[0]}" 'BEGIN { exit !(f >= 0.95) }'
expect_eq "finding 8: NV indices, persistent and transient handles, sessions as before" "$(handles)" "$before"
# Something left by the run itself (an index it defines and the trace does
# not undefine) is removed at the end.
"$TPMTRACE" record --spawn-swtpm --db nv.db -- tpm2_nvdefine 0x1500019 -C o -s 8 -a "ownerread|ownerwrite" >/dev/null 2>&1
"$TPMTRACE" replay nv.db --target "$X" --min-fidelity 0 --json >"$T/nv.json" 2>/dev/null
expect_eq "finding 8: a replay that defines an index exits 0" "$?" 0
check "finding 8: ...and removes it at the end" grep -q '"cleaned":1' "$T/nv.json"
expect_eq "finding 8: ...the target as before" "$(handles)" "$before"
# A run below --min-fidelity exits 1 naming the failing commands.
"$TPMTRACE" replay demo.db --trace 1 --min-fidelity 99.9 >/dev/null 2>"$T/err"
expect_eq "finding 8: below --min-fidelity exits 1" "$?" 1
check "finding 8: ...naming what failed and why" grep -qE "fidelity [0-9.]+% is below 99.9% \(--min-fidelity\): substituted|refused|failed" "$T/err"
finish
