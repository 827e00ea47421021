#!/usr/bin/env bash
# Every check can fail (tests/README.md). (1) The helpers: a condition that
# escapes `check` (`check "…" [ A ] && [ B ]`) is counted as a failure at run
# time, in tests/lib/common.sh and in the VM harness alike; a check without a
# command fails; a skip after checks ran fails instead of discarding them.
# (2) Each VM check that used to be written `[ A ] && [ B ]` (only A was
# checked): its statement is taken from the test file as it stands and run
# against a deliberately broken fixture (the guest's results file, the files
# and query answers it reads) in which A holds and a later part does not; it
# must fail there, and pass on the same fixture with every part true.
. "$(dirname "$0")/../lib/common.sh"
need python3
S=$TPMTRACE_SRC/tests

# ---- (1) the helpers, on fixture scripts --------------------------------------
fixture() { # NAME BODY: a test script sourcing common.sh; prints "STATUS LAST-LINES"
	printf '. "%s/common.sh"\n%s\n' "$TPMTRACE_TEST_LIB" "$2" >"$T/$1.sh"
	bash "$T/$1.sh" >"$T/$1.out" 2>&1
	echo "$?"
}
expect_eq "compound escaping check: counted as failed" \
	"$(fixture esc1 'check "x" [ 1 = 1 ] && [ 1 = 2 ]
finish')" 1
check "... naming the place" grep -q 'FAILED: a condition outside the check "x" (.*esc1.sh:2: \[ 1 = 2 \])' "$T/esc1.out"
expect_eq "compound escaping a check over two lines: counted as failed" \
	"$(fixture esc2 'check "x" \
	[ 1 = 1 ] && \
	[ 1 = 2 ]
finish')" 1
expect_eq "the same written as one condition: fails as a check" \
	"$(fixture esc3 'check "x" [ 1 = 1 -a 1 = 2 ]
finish')" 1
check "... as that check" grep -q '^FAILED: x$' "$T/esc3.out"
expect_eq "a true compound condition inside one command passes" \
	"$(fixture esc4 'both() { [ 1 = 1 ] && [ 2 = 2 ]; }
check "x" both
[ 1 = 2 ] && echo no
finish')" 0
expect_eq "a check without a command fails" "$(fixture nocmd 'check "nothing"
finish')" 1
expect_eq "skip before any check: skipped" "$(fixture skip0 'skip "no tool"
check "x" true
finish')" 77
expect_eq "skip after a failed check: failed, not skipped" "$(fixture skip1 'check "x" false
skip "no tool"')" 1
expect_eq "need after a passed check: failed, not skipped" "$(fixture skip2 'check "x" true
need no-such-tool-anywhere')" 1
check "... saying why" grep -q 'FAILED: skipped after 1 checks' "$T/skip2.out"
cat >"$T/vmesc.sh" <<VMEOF
. "$S/vm/harness.sh"
check "x" [ 1 = 1 ] && [ 1 = 2 ]
finish
VMEOF
bash "$T/vmesc.sh" >"$T/vmesc.out" 2>&1
expect_eq "VM harness: compound escaping check counted as failed" "$?" 1
check "... naming the place" grep -q 'FAIL: a condition outside the check "x"' "$T/vmesc.out"

# ---- (2) the VM checks that were [ A ] && [ B ] -------------------------------
# statement FILE START: the check statement of FILE whose description starts
# with START (continuation lines joined); fails unless exactly one.
statement() {
	python3 - "$TPMTRACE_TEST_LIB" "$1" "$2" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from lint_checks import statements
lines = open(sys.argv[2]).readlines()
hits = [t.strip() for n, t in statements(lines) if t.strip().startswith('check "' + sys.argv[3])]
if len(hits) != 1:
    sys.exit(1)
print(hits[0])
PY
}
# run_vm_check STATEMENT HELPERS SETUP: "passed failed" of the statement run
# with the VM harness's check against the fixture SETUP makes.
run_vm_check() {
	(
		VM_OUT=$T/vm.out
		rm -rf "$VM_OUT" "$T/vm.work"
		mkdir -p "$VM_OUT" "$T/vm.work"
		: >"$VM_OUT/results"
		. "$S/vm/harness.sh"
		O=$VM_OUT VM_WORK=$T/vm.work
		res() { printf '%s\n' "$@" >>"$VM_OUT/results"; }
		eval "$2"
		eval "$3"
		eval "$1"
		echo "$pass $fail"
	) 2>/dev/null
}
n_vm=0
# vm_case FILE 'DESCRIPTION START' 'FIXTURE, ALL TRUE' 'FIXTURE, A LATER PART FALSE' [HELPER...]
vm_case() {
	local file=$S/vm/$1 start=$2 good=$3 broken=$4 helpers="" stmt h
	shift 4
	for h in "$@"; do helpers+=$(grep "^$h() {" "$file")$'\n'; done
	if ! stmt=$(statement "$file" "$start"); then
		bad "$(basename "$file"): no single check starting \"$start\""
		return
	fi
	n_vm=$((n_vm + 1))
	expect_eq "$(basename "$file" .sh): \"$start…\" passes on a fixture where it holds" \
		"$(run_vm_check "$stmt" "$helpers" "$good")" "1 0"
	expect_eq "$(basename "$file" .sh): \"$start…\" fails on a fixture where a later part is false" \
		"$(run_vm_check "$stmt" "$helpers" "$broken")" "0 1"
}
B=test_vm_boot_record.sh
vm_case $B "power-on comes before TPM2_Startup" 'init_seq=3 first_startup=5' 'init_seq=7 first_startup=5' before
vm_case $B "shutdown comes after the last command" 'last_cmd=9 shut_seq=10' 'last_cmd=12 shut_seq=10' before
vm_case $B "IMA list has entries" 'n_lines=6' 'n_lines=3'
vm_case $B "IMA list has the ext4 programs" 'echo "10 x ima-ng sha1:00 /mnt/ext4/p3.sh" >"$O/ima.txt"' \
	'echo "10 x ima-ng sha1:00 /mnt/ext4/p1.sh" >"$O/ima.txt"'
vm_case $B "ftrace: one PCR_Extend per IMA line" 'n_ft=5 n0=10 n1=15' 'n_ft=3 n0=10 n1=13'
vm_case $B "ftrace: the window's extends took no less in the guest" 'ip_ns=100 ft_ns=150' 'ip_ns=100 ft_ns=50'
C=test_vm_cuse.sh
det='run=rm; printf "00000173 x\n" >"$VM_WORK/rm.det.direct"; cp "$VM_WORK/rm.det.direct" "$VM_WORK/rm.det.got"'
vm_case $C '$run: the direct run gave' "$det" 'run=rm; : >"$VM_WORK/rm.det.direct"'
vm_case $C '$run: those responses identical' "$det" "$det"'; echo "00000173 y" >"$VM_WORK/rm.det.got"'
vm_case $C "during takeover /dev/tpm0 is the CUSE node" 't0=a:f0' 't0=missing'
vm_case $C "SIGTERM: /dev/tpm0 back" 'res t0_after_term=a:e0 t0_real_after_term=missing' \
	'res t0_after_term=a:e0 t0_real_after_term=a:e0'
vm_case $C "SIGKILL: takeover had happened" 'res kill_start=0 kill_node_during=a:f0' \
	'res kill_start=0 kill_node_during=a:e0'
vm_case $C "SIGKILL: guardian restored /dev/tpm0" \
	'res kill_guard_exit=0 t0_after_kill=a:e0 t0_real_after_kill=missing' \
	'res kill_guard_exit=0 t0_after_kill=a:e0 t0_real_after_kill=a:e0'
vm_case $C "both killed: /dev/tpm0 is a dead CUSE node" \
	'res kill2_start=0 t0_real_stale=a:e0 t0_stale=a:f0 stale_open=1' \
	'res kill2_start=0 t0_real_stale=a:e0 t0_stale=a:f0 stale_open=0'
vm_case $C "--restore: /dev/tpm0 back" 'res t0_after_restore=a:e0 t0_real_after_restore=missing' \
	'res t0_after_restore=a:e0 t0_real_after_restore=a:e0'
G=test_vm_cuse_bootglue.sh
vm_case $G "during: /dev/tpmrm0 is the CUSE node" 'K=a:e0; res node_during=a:f0 real_during=a:e0' \
	'K=a:e0; res node_during=a:f0 real_during=missing'
vm_case $G "after the move, SIGTERM restores" 'K=a:e0; res term_exit=0 node_after_term=a:e0 real_after_term=missing' \
	'K=a:e0; res term_exit=0 node_after_term=a:e0 real_after_term=a:e0'
vm_case $G "after the move, SIGKILL: the guardian restores it" \
	'K=a:e0; res inittop2=0 kill_guard_gone=0 node_after_kill=a:e0 real_after_kill=missing' \
	'K=a:e0; res inittop2=0 kill_guard_gone=0 node_after_kill=a:f0 real_after_kill=missing'
vm_case $G "handover: proxy stopped, node back" \
	'K=a:e0; res inittop3=0 tool_before_handover=0 handover=0 initrd_proxy_gone=0 node_after_handover=a:e0' \
	'K=a:e0; res inittop3=0 tool_before_handover=0 handover=0 initrd_proxy_gone=0 node_after_handover=missing'
vm_case $G "handed-over trace complete" \
	'q() { case $2 in *status*) echo complete ;; *) echo 3 ;; esac; }' \
	'q() { case $2 in *status*) echo complete ;; *) echo 1 ;; esac; }'
vm_case $G "unit's proxy recorded, stopped" \
	'K=a:e0; res unit_start=0 tool_unit=0 unit_exit=0 stoppost=0 node_end=a:e0' \
	'K=a:e0; res unit_start=0 tool_unit=0 unit_exit=0 stoppost=0 node_end=missing'
vm_case test_vm_cuse_errors.sh "backend dead: tpm2-tools fail instead of hanging" \
	'res dead_tool_rc=1' 'res dead_tool_rc=124'
L=test_vm_cuse_load.sh
vm_case $L "proxy recorded every command, dropped none" 'TOTAL=8000 rec_cmds=8000 rec_drop=0' \
	'TOTAL=8000 rec_cmds=8000 rec_drop=3'
vm_case $L "proxy memory sampled before, under load" 'rss0=1 rss_mid=2 rss1=3 n_load=5' \
	'rss0=1 rss_mid=2 rss1= n_load=5'
expect_eq "VM checks proven" "$n_vm" 23
finish
