#!/usr/bin/env bash
# Quiet wrong results made loud (issue 15, finding 11; the others of it are in
# test_hostile_smuggling_desync_one_row_per_executed_command.sh (locality
# 255), test_importers_terminate_bounded_memory.sh (0-byte logs),
# test_export_report_empty_trace_extreme_values.sh (export accounting, stats
# overflow), test_db_modes_enforced_group_reader_after_recording.sh (dangling
# link) and tests/unit/test_db.c (percentile, tpm_cc_name)):
#  - PCR indices 24, 999 and 0xFFFFFFFF in IMA lists are reported and not
#    extended (before: imported without comment), and `pcrs` reports commands
#    naming such an index (before: skipped silently);
#  - ftrace CPU numbers of 256 and more are CPUs of their own, negative or
#    huge ones and an abstime of 18446744073.7 s are errors (before: folded
#    into CPU 0, "nested deeper than 64"; a negative submit time);
#  - a Spec ID event too short for its header says so (before: "bad digest
#    size 0").
. "$(dirname "$0")/../lib/common.sh"
need sqlite3 python3
D=$TPMTRACE_SHARED_DATA
[ -d "$D/ima" ] || skip "no shared data at $D"

# ---- PCR indices beyond 23 ----
awk 'NR == 2 {$1 = "24"} NR == 3 {$1 = "999"} {print}' \
	"$D/ima/ima-evm-utils/test_ascii_runtime_measurements" >"$T/pcr.ascii"
"$TPMTRACE" import ima "$T/pcr.ascii" --db "$T/p.db" >"$T/out" 2>"$T/err"
check "finding 11: PCR 24 reported" grep -q "PCR index 24 is not a PCR (0-23)" "$T/err"
check "finding 11: PCR 999 reported" grep -q "PCR index 999 is not a PCR" "$T/err"
check "... and counted in the summary" grep -q "2 for PCRs beyond 23 not extended" "$T/out"
expect_eq "... not extended; their entries kept as events" \
	"$(sqlite3 "$T/p.db" "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend')")|$(sqlite3 "$T/p.db" "SELECT count(*) FROM event WHERE kind='ima'")" "1|3"
python3 - "$D/ima/tpm2-tss/sml-ima-ng-sha1.bin" "$T/pcr.bin" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
# The second record: pcr, 20-byte digest, name, template data (all LE).
o = 0
for _ in range(1):
    nl = struct.unpack_from("<I", b, o + 24)[0]
    tl = struct.unpack_from("<I", b, o + 28 + nl)[0]
    o += 32 + nl + tl
struct.pack_into("<I", b, o, 0xFFFFFFFF)
open(sys.argv[2], "wb").write(b)
EOF
"$TPMTRACE" import ima "$T/pcr.bin" --db "$T/b.db" >"$T/out" 2>"$T/err"
check "finding 11: PCR 0xFFFFFFFF in a binary list reported" \
	grep -q "PCR index 4294967295 is not a PCR" "$T/err"
# pcrs, given a command that names PCR 1000 (a crafted or damaged file).
sqlite3 "$T/p.db" "UPDATE command SET cmd = substr(cmd, 1, 10) || x'000003E8' || substr(cmd, 15) WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend')"
"$TPMTRACE" pcrs "$T/p.db" >/dev/null 2>"$T/err"
check "finding 11: pcrs reports a command naming PCR 1000" \
	grep -q "1 PCR commands name an index beyond 23 (1000)" "$T/err"
check "... and says that no PCR 0-23 is left to show" grep -q "extends no PCR 0-23" "$T/err"
expect_eq "... in --json too (the reset sha1 bank shown)" \
	"$("$TPMTRACE" pcrs "$T/p.db" --banks sha1 --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["beyond_pcr23"])')" 1

# ---- ftrace CPUs and abstime ----
cat >"$T/cpus.txt" <<'EOF'
# tracer: function_graph
   0)               |  tpm2_pcr_extend() {
 256)               |  tpm2_get_random() {
 256) # 1968.117 us |    tpm_transmit_cmd();
   0) * 24356.46 us |    tpm_transmit_cmd();
 256) # 2001.9 us   |  }
   0) @ 151171.0 us |  }
EOF
check "finding 11: CPU 256 is a CPU of its own" "$TPMTRACE" import ftrace "$T/cpus.txt" --db "$T/f.db"
expect_eq "... each command from its own CPU's nesting" \
	"$(sqlite3 "$T/f.db" "SELECT group_concat(cc) FROM (SELECT cc FROM command ORDER BY seq)")" \
	"379,386"
sed 's/^ 256)/  -3)/' "$T/cpus.txt" >"$T/neg.txt"
"$TPMTRACE" import ftrace "$T/neg.txt" --db "$T/f.db" 2>"$T/err"
check "finding 11: CPU -3 is an error" grep -q "CPU -3 is not one" "$T/err"
sed 's/^ 256)/ 99999999999)/' "$T/cpus.txt" >"$T/huge.txt"
"$TPMTRACE" import ftrace "$T/huge.txt" --db "$T/f.db" 2>"$T/err"
check "finding 11: CPU 99999999999 is an error" grep -q "CPU 99999999999 is not one" "$T/err"
printf '# tracer: function_graph\n 18446744073.700000 |   1) * 24356.46 us |  tpm_transmit_cmd();\n' >"$T/abs.txt"
"$TPMTRACE" import ftrace "$T/abs.txt" --db "$T/f.db" 2>"$T/err"
check "finding 11: abstime 18446744073.7 s is an error" grep -q "timestamp 18446744073.700000 is beyond" "$T/err"
expect_eq "no negative time was stored" "$(sqlite3 "$T/f.db" 'SELECT count(*) FROM command WHERE t_submit_ns < 0')" 0

# ---- a short Spec ID event ----
python3 - "$T/short.bin" <<'EOF'
import struct, sys
data = b"Spec ID Event03\0" + b"\0\0\0\0"  # 20 bytes: no room for the header
ev = struct.pack("<II", 0, 3) + bytes(20) + struct.pack("<I", len(data)) + data
open(sys.argv[1], "wb").write(ev)
EOF
"$TPMTRACE" import tcglog "$T/short.bin" --db "$T/t.db" 2>"$T/err"
check "finding 11: a short Spec ID event says so (not 'bad digest size 0')" \
	grep -q "Spec ID event of 20 bytes, too short for its 28-byte header" "$T/err"
finish
