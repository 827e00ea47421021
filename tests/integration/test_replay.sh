#!/usr/bin/env bash
# Replay: (a) the demo workload (real tpm2-tools) and (b) 2,000 PCR_Extend
# (tpmclient), each replayed under every preset on a private swtpm. Every
# command must succeed, every response HMAC verify, the final PCRs be the same
# under every policy (and equal the software replay of the recording, from
# `tpmtrace pcrs`), and the per-command counts equal the documented expansion
# exactly. Then bad input: a damaged trace, a target that goes away mid-run,
# a file that is not a tpmtrace database, a trace without payloads, and a
# destructive command against a target that is not the spawned swtpm.
. "$(dirname "$0")/../lib/common.sh"
need swtpm tpm2_startup sqlite3 python3

PRESETS="as-recorded password linux-6.10 linux-6.12 linux-6.12-no-pcr-integrity linux-6.18 one-session"
N=2000

# field JSON KEY: a top-level field of the first run
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['runs'][0][sys.argv[2]])" "$1" "$2"; }
pcr16() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['runs'][0]['pcrs']['sha256']['16'])" "$1"; }
count() { sqlite3 "$1" "SELECT count(*) FROM command WHERE trace_id=$2 AND cc=$3"; }

# ---- (a) the demo workload --------------------------------------------------
db=$T/demo.db
"$TPMTRACE" record --spawn-swtpm --db "$db" -- "$TPMTRACE_SRC/tools/demo-workload" 20 >/dev/null 2>"$T/rec.err"
expect_eq "demo workload recorded" "$?" 0
want=$("$TPMTRACE" pcrs "$db" --trace 1 --pcrs 16 | awk '/16:/ {print substr($2, 3)}')
check "software PCR 16 of the recording" [ ${#want} -eq 64 ]
for p in $PRESETS; do
	"$TPMTRACE" replay "$db" --trace 1 --policy "$p" --json >"$T/demo-$p.json" 2>"$T/demo-$p.err"
	expect_eq "demo $p: exit status" "$?" 0
	id=$(field "$T/demo-$p.json" trace)
	expect_eq "demo $p: stored complete" "$(sqlite3 "$db" "SELECT status||','||kind||','||parent_id||','||policy FROM trace WHERE id=$id")" "complete,replay,1,$p"
	expect_eq "demo $p: no TPM error where the recording succeeded" "$(field "$T/demo-$p.json" failed)" 0
	expect_eq "demo $p: nothing refused" "$(field "$T/demo-$p.json" refused)" 0
	# tpm2-tools retry TPM_RC_RETRY (0x922), which the recording holds too;
	# the workload's tpm2_startup finds the TPM started by tpmtrace, in the
	# recording as in the replay (TPM_RC_INITIALIZE, 0x100)
	expect_eq "demo $p: every replayed command succeeded" \
		"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$id AND (rc IS NULL OR rc NOT IN (0, 0x922)) AND NOT (cc = (SELECT cc FROM tpm_cc WHERE name = 'Startup') AND rc=0x100)")" 0
	expect_eq "demo $p: every source command handled" "$(field "$T/demo-$p.json" processed)" "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=1")"
	expect_eq "demo $p: PCR 16 equals the recording's" "$(pcr16 "$T/demo-$p.json")" "$want"
	expect_eq "demo $p: stored rows = commands sent" "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$id")" "$(field "$T/demo-$p.json" sent)"
	# predict and replay expand the trace alike (the workload's Create
	# answered TPM_RC_RETRY and sent again included): the replay sends what
	# predict counts, and the same few commands of its own under every policy
	pred=$("$TPMTRACE" predict "$db" --trace 1 --policy "$p" --profile slb9670-linux-integrity --json 2>/dev/null |
		python3 -c "import json,sys; print(json.load(sys.stdin)['policies'][0]['commands'])")
	own=$(($(field "$T/demo-$p.json" sent) - pred))
	[ "$p" = as-recorded ] && own0=$own
	expect_eq "demo $p: replayed = predicted commands + the replay's own ($own0)" "$own" "$own0"
done
# The workload's own salted and unsalted HMAC sessions are re-created and
# their response HMACs checked; the kernel policies add their own.
check "demo as-recorded: response HMACs verified" [ "$(field "$T/demo-as-recorded.json" hmac_verified)" -ge 10 ]
check "demo linux-6.10: more HMACs than as-recorded" [ "$(field "$T/demo-linux-6.10.json" hmac_verified)" -gt "$(field "$T/demo-as-recorded.json" hmac_verified)" ]
check "demo: the redacted sealed data is reported as substituted" grep -q 'sensitive area redacted' "$T/demo-as-recorded.json"
# The source's counts (one pass over its rows, replayer/replay.c source_check):
# the clients' commands, and tpmtrace's own (the spawned swtpm's Startup) apart.
expect_eq "demo: the source's clients' commands" "$(field "$T/demo-password.json" source_commands)" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=1 AND flags & 32 = 0")"
expect_eq "demo: the source's own commands" "$(field "$T/demo-password.json" source_tpmtrace_commands)" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=1 AND flags & 32")"
check "demo: ... of which there is one at least" \
	[ "$(field "$T/demo-password.json" source_tpmtrace_commands)" -ge 1 ]
check "demo linux-6.10: per-protected-command sessions stored" [ "$(count "$db" "$(field "$T/demo-linux-6.10.json" trace)" 0x176)" -gt "$(count "$db" "$(field "$T/demo-linux-6.12.json" trace)" 0x176)" ]

# ---- (b) 2,000 PCR_Extend ----------------------------------------------------
db=$T/ext.db
record_client "$db" pcrextend $N 2>"$T/rec2.err"
expect_eq "extends recorded" "$?" 0
expect_eq "PCR_Extend in the recording" "$(count "$db" 1 0x182)" $N
want=$("$TPMTRACE" pcrs "$db" --trace 1 --pcrs 16 | awk '/16:/ {print substr($2, 3)}')
for p in $PRESETS; do
	"$TPMTRACE" replay "$db" --trace 1 --policy "$p" --json >"$T/ext-$p.json" 2>"$T/ext-$p.err"
	expect_eq "extends $p: exit status" "$?" 0
	id=$(field "$T/ext-$p.json" trace)
	expect_eq "extends $p: complete" "$(sqlite3 "$db" "SELECT status FROM trace WHERE id=$id")" complete
	expect_eq "extends $p: every command succeeded" "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$id AND (rc IS NULL OR rc <> 0)")" 0
	expect_eq "extends $p: PCR 16 equals the recording's" "$(pcr16 "$T/ext-$p.json")" "$want"
	# counts per command code: Startup, CreatePrimary, ContextSave, ContextLoad,
	# StartAuthSession, FlushContext, PCR_Extend, ReadPublic
	got=$(sqlite3 "$db" "SELECT group_concat(n, ' ') FROM (SELECT (SELECT count(*) FROM command WHERE trace_id=$id AND cc=v.cc) AS n FROM (SELECT 0x144 AS cc UNION ALL SELECT 0x131 UNION ALL SELECT 0x162 UNION ALL SELECT 0x161 UNION ALL SELECT 0x176 UNION ALL SELECT 0x165 UNION ALL SELECT 0x182 UNION ALL SELECT 0x173) v)")
	case $p in
	# linux-6.18 (no kernel sessions): the password replay's sequence
	as-recorded | password | linux-6.18) exp="1 0 0 0 0 0 $N 0" ;;
	linux-6.10) exp="1 1 1 $N $N $((N + 1)) $N 0" ;;
	linux-6.12) exp="1 1 1 1 1 2 $N 0" ;;
	linux-6.12-no-pcr-integrity) exp="1 1 1 0 0 1 $N 0" ;;
	# one session kept: saved after each extend, loaded before the next
	# (the null key's save and load once, for the one set-up)
	one-session) exp="1 1 $((N + 1)) $N 1 2 $N 0" ;;
	esac
	expect_eq "extends $p: counts per command code" "$got" "$exp"
	expect_eq "extends $p: total rows" "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$id")" "$(echo $exp | awk '{for (i = 1; i <= NF; i++) s += $i; print s}')"
done
expect_eq "linux-6.10: every extend's response HMAC verified" "$(field "$T/ext-linux-6.10.json" hmac_verified)" $N
expect_eq "linux-6.12: every extend's response HMAC verified" "$(field "$T/ext-linux-6.12.json" hmac_verified)" $N
expect_eq "linux-6.10: stored with the HMAC session attributes 0" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$(field "$T/ext-linux-6.10.json" trace) AND cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND auth_kind=2 AND sess_attrs=0")" $N
expect_eq "linux-6.12: continueSession on every extend" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$(field "$T/ext-linux-6.12.json" trace) AND cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND auth_kind=2 AND sess_attrs=1")" $N
expect_eq "one-session: every extend's response HMAC verified (across the saves and loads)" "$(field "$T/ext-one-session.json" hmac_verified)" $N
expect_eq "one-session: continueSession on every extend" \
	"$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id=$(field "$T/ext-one-session.json" trace) AND cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND auth_kind=2 AND sess_attrs=1")" $N
# recorded vs replayed from the stock views
check "command_stats compares recorded and replayed PCR_Extend" \
	[ "$(sqlite3 "$db" "SELECT count(*) FROM command_stats WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND count=$N")" -eq 8 ] # the recording, a replay per preset
"$TPMTRACE" replay "$db" --trace 1 --policy linux-6.12 --repeat 2 --json >"$T/rep.json"
expect_eq "--repeat 2: two runs" "$(python3 -c "import json; print(len(json.load(open('$T/rep.json'))['runs']))")" 2

# ---- bad input -------------------------------------------------------------
# A damaged trace: the 500th command's bytes cut short. That command is
# refused with its reason and the replay goes on (issue 15, finding 12).
cp "$db" "$T/bad.db"
sqlite3 "$T/bad.db" "UPDATE command SET cmd=substr(cmd, 1, 20) WHERE trace_id=1 AND seq=(SELECT seq FROM command WHERE trace_id=1 ORDER BY seq LIMIT 1 OFFSET 500)"
before=$(sqlite3 "$T/bad.db" "SELECT hex(cmd), hex(rsp), rc FROM command WHERE trace_id=1 ORDER BY seq" | sha256sum)
traces=$(sqlite3 "$T/bad.db" "SELECT count(*) FROM trace")
"$TPMTRACE" replay "$T/bad.db" --trace 1 --policy linux-6.12 >"$T/bad.out" 2>"$T/bad.err"
expect_eq "damaged trace: the replay goes on (exit status)" "$?" 0
# (the reason lines are wrapped at 100 columns: read them joined)
check "damaged trace: the refusal names the file and the entry" \
	bash -c "cat '$T/bad.out' '$T/bad.err' | tr '\n' ' ' | grep -q 'bad.db: trace 1, seq .*does not parse'"
id=$(sqlite3 "$T/bad.db" "SELECT max(id) FROM trace")
expect_eq "damaged trace: one new trace" "$id" $((traces + 1))
expect_eq "damaged trace: the run is complete" "$(sqlite3 "$T/bad.db" "SELECT status FROM trace WHERE id=$id")" complete
check "damaged trace: the run holds the commands before and after it" [ "$(count "$T/bad.db" "$id" 0x182)" -eq $((N - 1)) ]
expect_eq "damaged trace: the source is unchanged" "$(sqlite3 "$T/bad.db" "SELECT hex(cmd), hex(rsp), rc FROM command WHERE trace_id=1 ORDER BY seq" | sha256sum)" "$before"
check "damaged trace: no error event" [ "$(sqlite3 "$T/bad.db" "SELECT count(*) FROM event WHERE trace_id=$id AND kind='replay-error'")" -eq 0 ]

# A target that goes away: an external swtpm, killed mid-run.
start_swtpm "$T/ext"
tpm2_startup -c -T "swtpm:path=$T/ext/s.sock" 2>/dev/null
# Emulating the SLB9670 (about 150 ms per extend under linux-6.10) the run
# takes minutes, so the target is killed mid-run once the replay has stored
# its first commands, whatever the machine's load.
before_id=$(sqlite3 "$db" "SELECT max(id) FROM trace")
"$TPMTRACE" replay "$db" --trace 1 --policy linux-6.10 --emulate slb9670-linux-integrity \
	--target "swtpm:path=$T/ext/s.sock" >"$T/gone.out" 2>"$T/gone.err" &
rp=$!
for _ in $(seq 600); do
	[ "$(sqlite3 "$db" "SELECT count(*) FROM command WHERE trace_id>$before_id AND cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend')" 2>/dev/null)" -gt 0 ] 2>/dev/null && break
	sleep 0.1
done
kill "$SWTPM_PID"
wait $rp
expect_eq "target gone: exit status" "$?" 1
check "target gone: clear message" grep -q "target stopped answering" "$T/gone.err"
id=$(sqlite3 "$db" "SELECT max(id) FROM trace")
expect_eq "target gone: stored incomplete" "$(sqlite3 "$db" "SELECT status||','||source FROM trace WHERE id=$id")" "incomplete,swtpm:path=$T/ext/s.sock"
n=$(count "$db" "$id" 0x182)
check "target gone: a partial run ($n extends)" [ "$n" -gt 0 -a "$n" -lt $N ]
check "verify passes after the failed runs" "$TPMTRACE" verify "$db" >/dev/null

# Not a tpmtrace database: refused, the file untouched.
sqlite3 "$T/other.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
printf 'just text\n' >"$T/text.db"
for f in other.db text.db; do
	sum=$(sha256sum <"$T/$f")
	"$TPMTRACE" replay "$T/$f" >/dev/null 2>"$T/$f.err"
	expect_eq "$f: exit status" "$?" 1
	check "$f: message names the file" grep -q "$T/$f" "$T/$f.err"
	expect_eq "$f: unchanged" "$(sha256sum <"$T/$f")" "$sum"
done
"$TPMTRACE" replay "$T/missing.db" >/dev/null 2>&1
expect_eq "missing database: exit status" "$?" 1
check "missing database not created" [ ! -e "$T/missing.db" ]

# A trace without payloads: nothing to replay, nothing stored.
"$TPMTRACE" record --spawn-swtpm --no-startup --payloads none --db "$T/none.db" -- bash -c "'$TPMCLIENT' --connect \"\$TPMTRACE_TCTI\" --cmd startup" >/dev/null 2>&1
t0=$(sqlite3 "$T/none.db" "SELECT count(*) FROM trace")
"$TPMTRACE" replay "$T/none.db" >/dev/null 2>"$T/none.err"
expect_eq "no payloads: exit status" "$?" 1
check "no payloads: says so" grep -q "without payloads" "$T/none.err"
expect_eq "no payloads: no trace added" "$(sqlite3 "$T/none.db" "SELECT count(*) FROM trace")" "$t0"
# A trace stored with payloads but one command's bytes missing (not
# malformed): refused alike; a malformed row without bytes is not missing.
cp "$T/demo.db" "$T/hole.db"
sqlite3 "$T/hole.db" "UPDATE command SET cmd=NULL WHERE trace_id=1 AND seq=(SELECT max(seq) FROM command WHERE trace_id=1 AND cmd IS NOT NULL)"
t0=$(sqlite3 "$T/hole.db" "SELECT count(*) FROM trace")
"$TPMTRACE" replay "$T/hole.db" --trace 1 >/dev/null 2>"$T/hole.err"
expect_eq "a command's bytes missing: exit status" "$?" 1
check "a command's bytes missing: says so" grep -q "without payloads" "$T/hole.err"
expect_eq "a command's bytes missing: no trace added" "$(sqlite3 "$T/hole.db" "SELECT count(*) FROM trace")" "$t0"
sqlite3 "$T/hole.db" "UPDATE command SET flags = flags | 2 WHERE trace_id=1 AND cmd IS NULL"
"$TPMTRACE" replay "$T/hole.db" --trace 1 --policy password >/dev/null 2>"$T/hole2.err"
expect_eq "... marked malformed: not refused" "$(grep -c "without payloads" "$T/hole2.err")" 0
expect_eq "... marked malformed: its run stored" "$(sqlite3 "$T/hole.db" "SELECT count(*) FROM trace")" "$((t0 + 1))"

# Destructive commands on a target that is not the spawned swtpm: refused
# unless --allow-destructive (the demo trace undefines an NV index).
start_swtpm "$T/hw"
tpm2_startup -c -T "swtpm:path=$T/hw/s.sock" 2>/dev/null
"$TPMTRACE" replay "$T/demo.db" --trace 1 --target "swtpm:path=$T/hw/s.sock" --json >"$T/hw.json" 2>/dev/null
expect_eq "external target: run complete" "$(field "$T/hw.json" status)" complete
# The NV index the run defined itself is undefined again by the trace's own
# NV_UndefineSpace: that destroys nothing the target had.
check "external target: NV_UndefineSpace of the run's own index sent" \
	bash -c "! grep -q '\"refused\",\"command\":\"NV_UndefineSpace\"' '$T/hw.json'"
check "external target: Startup reported as already done" grep -q 'already started' "$T/hw.json"
expect_eq "external target: nothing left to clean up" "$(field "$T/hw.json" cleanup_left)" 0
# one-session on that target ends with its kept session saved (ContextSave
# after the last use): the cleanup finds it among the saved sessions and
# flushes it, so the target holds no session afterwards.
"$TPMTRACE" replay "$T/demo.db" --trace 1 --policy one-session --target "swtpm:path=$T/hw/s.sock" --json >"$T/hw1.json" 2>/dev/null
expect_eq "one-session on an external target: complete, nothing left" \
	"$(field "$T/hw1.json" status),$(field "$T/hw1.json" cleanup_left)" complete,0
expect_eq "one-session on an external target: no session saved or loaded after it" \
	"$(tpm2_getcap -T "swtpm:path=$T/hw/s.sock" handles-saved-session)$(tpm2_getcap -T "swtpm:path=$T/hw/s.sock" handles-loaded-session)" ""
# An index that was there before the run is the target's: a trace that
# undefines one it did not define has that NV_UndefineSpace refused unless
# --allow-destructive.
start_swtpm "$T/src"
tpm2_startup -c -T "swtpm:path=$T/src/s.sock" 2>/dev/null
tpm2_nvdefine 0x1500018 -C o -s 8 -a "ownerread|ownerwrite" -T "swtpm:path=$T/src/s.sock" >/dev/null
"$TPMTRACE" record --backend "swtpm:path=$T/src/s.sock" --db "$T/undef.db" --quiet -- \
	tpm2_nvundefine 0x1500018 -C o >/dev/null 2>&1
expect_eq "a trace that undefines an index made before it" "$?" 0
tpm2_nvdefine 0x1500018 -C o -s 8 -a "ownerread|ownerwrite" -T "swtpm:path=$T/hw/s.sock" >/dev/null
"$TPMTRACE" replay "$T/undef.db" --target "swtpm:path=$T/hw/s.sock" --min-fidelity 0 --json >"$T/hw3.json" 2>/dev/null
check "external target: the target's own index is not undefined" grep -q '"refused","command":"NV_UndefineSpace"' "$T/hw3.json"
check "and is still there" bash -c "tpm2_getcap handles-nv-index -T 'swtpm:path=$T/hw/s.sock' | grep -qi 0x1500018"
"$TPMTRACE" replay "$T/undef.db" --target "swtpm:path=$T/hw/s.sock" --allow-destructive --json >"$T/hw2.json" 2>/dev/null
check "--allow-destructive: NV_UndefineSpace sent" bash -c "! grep -q '\"refused\",\"command\":\"NV_UndefineSpace\"' '$T/hw2.json'"
check "--allow-destructive: the index is gone" bash -c "! tpm2_getcap handles-nv-index -T 'swtpm:path=$T/hw/s.sock' | grep -qi 0x1500018"

# Usage errors
"$TPMTRACE" replay "$db" --policy nonsense >/dev/null 2>&1
expect_eq "unknown policy: usage error" "$?" 2
"$TPMTRACE" replay "$db" --auth 0x40000001 >/dev/null 2>&1
expect_eq "--auth without a value: usage error" "$?" 2
check "--help mentions every option" bash -c "'$TPMTRACE' replay --help | grep -q -- --allow-destructive"
finish
