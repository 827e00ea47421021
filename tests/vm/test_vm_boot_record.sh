#!/bin/bash
# Whole-boot recording: the guest boots under `tpmtrace vm-record` (QEMU <->
# interposer <-> swtpm) with ima_policy=tcb and runs programs from an ext4
# image. The trace must hold the firmware's PCR extends (PCR 0-7), the
# kernel's TPM start-up commands, exactly one PCR_Extend of PCR 10 per line of
# the guest's IMA list, in order, with SHA-1 bank digests equal to the list's
# template hashes, and control events for power-on and shutdown. The guest
# kernel's function_graph trace of the same window is imported (`import
# ftrace`, `profile import ftrace`) and checked against the IMA list and the
# interposer's timings.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"

[ -x "$TPMTRACE" ] || { echo "tpmtrace binary not found at $TPMTRACE" >&2; exit 1; }
vm_setup

# Programs on ext4 for IMA to measure: a script, a copy of busybox, and a
# script run twice (measured once: IMA keeps one entry per file version).
mkdir -p "$VM_WORK/ext4src"
for i in 1 2 3; do
	printf '#!/bin/sh\necho tpmtrace boot %s %s\n' "$i" "$$" >"$VM_WORK/ext4src/p$i.sh"
done
cp "$(command -v busybox)" "$VM_WORK/ext4src/bb"
chmod 755 "$VM_WORK/ext4src"/*
vm_ext4_image "$VM_WORK/ext4src" || exit 1
VM_APPEND="ima_policy=tcb"

DB=$VM_WORK/boot.db
# vm-record starts its own swtpm and wires the TPM into QEMU's arguments.
VM_SWTPM=0
VM_TPM_ARGS=()
VM_QEMU_PREFIX=("$TPMTRACE" vm-record --db "$DB" --payloads full --name vm-boot --)

cat >"$VM_WORK/guest.sh" <<'EOF'
#!/bin/sh
. /lib/vm-guest.sh
L=/sys/kernel/security/ima/ascii_runtime_measurements
# The kernel's own TPM functions under function_graph while the programs run
# (a real capture for `import ftrace`): only tpm2_* and the transmissions.
T=/sys/kernel/tracing
mount -t tracefs nodev $T 2>/dev/null
if echo 'tpm2_*' >$T/set_ftrace_filter && echo tpm_transmit_cmd >>$T/set_ftrace_filter &&
	echo tpm_transmit >>$T/set_ftrace_filter && echo function_graph >$T/current_tracer; then
	echo 1 >$T/tracing_on
	echo ftrace=on >>$O/results
else
	echo ftrace=unavailable >>$O/results
fi
wc -l <$L >$O/ima_before.txt
for p in p1 p2 p3 p1; do "$VM_EXT4/$p.sh" >>$O/ran.txt; done
"$VM_EXT4/bb" true
echo 0 >$T/tracing_on 2>/dev/null
wc -l <$L >$O/ima_after.txt
cat $T/trace >$O/ftrace.txt 2>/dev/null
tpm2_pcrread sha1:10 >$O/pcr10.txt 2>&1
# The list last: nothing runs from ext4 after this.
cat /sys/kernel/security/ima/ascii_runtime_measurements >$O/ima.txt
EOF

vm_run_checked "$VM_WORK/guest.sh" "guest (through vm-record)"
check "guest script exit status 0 (got $VM_GUEST_RC)" [ "$VM_GUEST_RC" = 0 ]
check "the programs on ext4 ran" [ "$(grep -c 'tpmtrace boot' "$O/ran.txt")" = 4 ]

q() { "$TPMTRACE" sql "$DB" --no-header "$1"; }
check "trace is complete" [ "$(q "SELECT status FROM trace")" = complete ]
check "no records dropped" [ "$(q "SELECT dropped FROM trace")" = 0 ]

# Control events: INIT (power-on) before the first command, SHUTDOWN after the last.
init_seq=$(q "SELECT min(seq) FROM event WHERE kind='ctrl:INIT' AND detail LIKE 'power-on%result=0x0'")
shut_seq=$(q "SELECT max(seq) FROM event WHERE kind='ctrl:SHUTDOWN'")
first_startup=$(q "SELECT min(seq) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'Startup')")
last_cmd=$(q "SELECT max(seq) FROM command")
check "a ctrl:INIT power-on event (seq ${init_seq:-none})" [ -n "$init_seq" ]
check "a ctrl:SHUTDOWN event (seq ${shut_seq:-none})" [ -n "$shut_seq" ]
# before A B: both sequence numbers known and A comes first.
before() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -lt "$2" ]; }
check "power-on comes before TPM2_Startup" before "$init_seq" "$first_startup"
check "shutdown comes after the last command" before "${last_cmd:-0}" "$shut_seq"
check "SET_DATAFD was intercepted" [ "$(q "SELECT count(*) FROM event WHERE kind='ctrl:SET_DATAFD' AND detail='result=0x0'")" -ge 1 ]

# The firmware (SeaBIOS) starts the TPM and extends PCR 0-7 (separators at least).
check "firmware sent TPM2_Startup with success" [ "$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'Startup') AND rc=0")" -ge 1 ]
fw_pcrs=$(q "SELECT count(DISTINCT pcr) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND pcr BETWEEN 0 AND 7 AND rc=0")
check "firmware extended each of PCR 0-7 (got $fw_pcrs distinct)" [ "$fw_pcrs" = 8 ]
last_fw=$(q "SELECT max(seq) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND pcr BETWEEN 0 AND 7")
# The kernel's TPM driver then runs TPM2_SelfTest and reads capabilities
# (tpm2_auto_startup, tpm2_get_pcr_allocation).
check "kernel start-up: SelfTest after the firmware's extends" [ "$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'SelfTest') AND seq > $last_fw")" -ge 1 ]
check "kernel start-up: GetCapability after the firmware's extends" [ "$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'GetCapability') AND seq > $last_fw")" -ge 1 ]
check "every command has a response" [ "$(q "SELECT count(*) FROM command WHERE rc IS NULL AND seq > $first_startup")" = 0 ]

# IMA: one PCR_Extend of PCR 10 per list line, in order, SHA-1 digest = template hash.
n_lines=$(wc -l <"$O/ima.txt")
n_ext=$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND pcr=10")
check "IMA list has entries (got $n_lines)" [ "$n_lines" -ge 5 ]
check "IMA list has the ext4 programs" grep -q '/mnt/ext4/p3.sh' "$O/ima.txt"
check "one PCR 10 extend per IMA line ($n_ext extends, $n_lines lines)" [ "$n_ext" = "$n_lines" ]
# SHA-1 digest of each extend, parsed from the raw command (TPM 2.0 Part 3,
# 22.2: handle, authorization area, TPML_DIGEST_VALUES).
q "SELECT hex(cmd) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND pcr=10 ORDER BY seq" | awk '
function h2d(s,   i, v) { v = 0; s = tolower(s); for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
{
	auth = h2d(substr($0, 29, 8)); p = (18 + auth) * 2 + 1
	n = h2d(substr($0, p, 8)); p += 8; out = "none"
	for (i = 0; i < n; i++) {
		alg = h2d(substr($0, p, 4)); p += 4
		sz = alg == 4 ? 20 : alg == 11 ? 32 : alg == 12 ? 48 : alg == 13 ? 64 : 0
		if (alg == 4) out = tolower(substr($0, p, sz * 2))
		p += sz * 2
	}
	print out
}' >"$VM_WORK/extends.txt"
# Violations are listed with a zero template hash and extended as all 0xFF.
awk '{ h = $2; if (h ~ /^0+$/) { h = ""; for (i = 0; i < 40; i++) h = h "f" } print h }' "$O/ima.txt" >"$VM_WORK/expected.txt"
check "PCR 10 extends carry the list's template hashes, in order" cmp -s "$VM_WORK/expected.txt" "$VM_WORK/extends.txt"
if ! cmp -s "$VM_WORK/expected.txt" "$VM_WORK/extends.txt"; then
	diff "$VM_WORK/expected.txt" "$VM_WORK/extends.txt" | head >&2
fi
# And the PCR the guest read back is the fold of those extends (sha1 bank).
fold=$(printf '%040d' 0)
while read -r d; do
	# shellcheck disable=SC2059 # the format is the bytes
	fold=$(printf "$(printf '%s%s' "$fold" "$d" | sed 's/../\\x&/g')" | sha1sum | cut -c1-40)
done <"$VM_WORK/extends.txt"
got=$(sed -n 's/^ *10 *: *0x\([0-9A-Fa-f]*\)$/\1/p' "$O/pcr10.txt" | tr 'A-F' 'a-f')
check "guest's PCR 10 (sha1) = fold of the recorded extends" [ "$got" = "$fold" ]
check "PCR 10 extends come from locality 0" [ "$(q "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND pcr=10 AND locality<>0")" = 0 ]
check "tpmtrace verify accepts the database" "$TPMTRACE" verify "$DB" >/dev/null

# The guest kernel's function_graph capture of the same extends: `import
# ftrace` finds one PCR_Extend per IMA line added while tracing, each timed
# in the guest (driver, TIS emulation, QEMU and swtpm) no shorter in total
# than the same extends timed at the interposer (QEMU <-> swtpm only); and
# `profile import ftrace` prices PCR_Extend from exactly those commands. The
# guest kernel (Debian's) has tracefs and function_graph: without them these
# checks fail rather than pass unrun.
check "the guest kernel traced its TPM functions (tracefs, function_graph)" grep -q '^ftrace=on' "$O/results"
{
	n0=$(tr -d ' ' <"$O/ima_before.txt" 2>/dev/null)
	n1=$(tr -d ' ' <"$O/ima_after.txt" 2>/dev/null)
	n0=${n0:-0} n1=${n1:-0}
	FT=$VM_WORK/ftrace.db
	"$TPMTRACE" import ftrace "$O/ftrace.txt" --db "$FT" >"$VM_WORK/ft.out" 2>&1
	check "import ftrace of the real capture: exit 0" [ $? = 0 ]
	fq() { "$TPMTRACE" sql "$FT" --no-header "$1"; }
	n_ft=$(fq "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend')")
	check "ftrace: one PCR_Extend per IMA line added while tracing ($n_ft extends, $((n1 - n0)) lines)" \
		[ "$n_ft" = $((n1 - n0)) -a "$n_ft" -ge 4 ]
	check "ftrace: every command has a positive latency" [ "$(fq "SELECT count(*) FROM command WHERE NOT latency_ns > 0")" = 0 ]
	ft_ns=$(fq "SELECT sum(latency_ns) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend')")
	ip_ns=$(q "SELECT sum(latency_ns) FROM (SELECT latency_ns FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'PCR_Extend') AND pcr=10 ORDER BY seq LIMIT $((n1 - n0)) OFFSET $n0)")
	check "ftrace: the window's extends took no less in the guest (${ft_ns} ns) than at the interposer (${ip_ns} ns)" \
		[ -n "$ip_ns" -a "${ft_ns:-0}" -ge "${ip_ns:-1}" ]
	"$TPMTRACE" profile import ftrace "$O/ftrace.txt" --output "$VM_WORK/ft.profile" >/dev/null 2>&1
	check "profile import ftrace: PCR_Extend priced from the $n_ft extends" \
		grep -Eq "^PCR_Extend +[a-z+]+ +[^ ]+ +n=$n_ft " "$VM_WORK/ft.profile"
	per=$((${n_ft:-0} > 0 ? ${n_ft:-0} : 1))
	echo "ftrace capture: $n_ft PCR_Extend in the guest, $((${ft_ns:-0} / per / 1000)) us each; at the interposer $((${ip_ns:-0} / per / 1000)) us"
}

echo "boot-to-result: ${VM_ELAPSED}s; trace: $(q "SELECT count(*) FROM command") commands, $(q "SELECT count(*) FROM event") events"
finish
