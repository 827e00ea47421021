#!/bin/bash
# tpm-cuse-proxy in a real kernel: the demo workload (real tpm2-tools, through
# tpm2-tss's pcap TCTI over the device TCTI so that every command a tool sends
# is known) runs against the CUSE node in front of /dev/tpmrm0, and again with
# --takeover of /dev/tpm0. Every tool exits 0, every command is recorded
# exactly once (byte for byte, in order), and deterministic responses
# (PCR_Read, GetCapability, ReadPublic) are byte-identical to a direct run.
# The kernel's /dev/tpm0 is back after the proxy exits (SIGTERM), after it is
# SIGKILLed (the guardian) and after proxy and guardian are both SIGKILLed
# (tpm-cuse-proxy --restore).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"

command -v tshark >/dev/null || { echo "tshark is needed to read the pcap captures" >&2; exit 1; }
vm_setup_cuse
vm_add_tool bash || exit 1
vm_add_file "$SRC/tools/demo-workload" /usr/bin/demo-workload || exit 1

cat >"$VM_WORK/guest.sh" <<'EOF'
#!/bin/sh
. /lib/vm-guest.sh
# The kernel already ran TPM2_Startup: the workload's tpm2_startup still goes
# through (and is recorded), its TPM_RC_INITIALIZE answer counts as success.
mkdir -p /tmp/shim
cat >/tmp/shim/tpm2_startup <<'SH'
#!/bin/sh
/usr/bin/tpm2_startup "$@" 2>/tmp/startup.err && exit 0
grep -q -i -e 'initialize' -e '0x100' /tmp/startup.err && exit 0
cat /tmp/startup.err >&2; exit 1
SH
chmod 755 /tmp/shim/tpm2_startup
export PATH=/tmp/shim:$PATH
# Deterministic reads: PCRs, fixed properties, PCR banks, a persistent key.
det() { # DEVICE PCAP
	export TPM2TOOLS_TCTI="pcap:device:$1" TCTI_PCAP_FILE=$2
	tpm2_pcrread sha1:0,16+sha256:0,16 >/dev/null && tpm2_getcap properties-fixed >/dev/null &&
		tpm2_getcap pcrs >/dev/null && tpm2_readpublic -c 0x81000001 >/dev/null
	r=$?; unset TCTI_PCAP_FILE; export TPM2TOOLS_TCTI=device:/dev/tpmrm0; return $r
}
cd /tmp
tpm2_createprimary -C o -G ecc256 -c prim.ctx >/dev/null && tpm2_evictcontrol -C o -c prim.ctx 0x81000001 >/dev/null
kv persistent $?
kv tpm0_before "$(node /dev/tpm0)"

# 1. In front of /dev/tpmrm0.
det /dev/tpmrm0 $O/direct.pcap; kv det_direct $?
tpm-cuse-proxy --backend /dev/tpmrm0 --name tpmrmproxy0 --db $O/rm.db --payloads full 2>$O/proxy-rm.log
kv proxy_rm_start $?
kv proxy_rm_node "$(node /dev/tpmrmproxy0)"
det /dev/tpmrmproxy0 $O/rm-det.pcap; kv det_rm $?
TPM2TOOLS_TCTI=pcap:device:/dev/tpmrmproxy0 TCTI_PCAP_FILE=$O/rm-workload.pcap demo-workload >$O/rm-workload.log 2>&1
kv workload_rm $?
kill -TERM $(pid_of tpm-cuse-proxy); gone tpm-cuse-proxy; kv proxy_rm_exit $?
kv proxy_rm_node_after "$(node /dev/tpmrmproxy0)"

# 2. --takeover of /dev/tpm0 (one open at a time, no resource manager).
det /dev/tpm0 $O/direct0.pcap; kv det_direct0 $?
tpm-cuse-proxy --backend /dev/tpm0 --name tpm0 --takeover --db $O/t0.db --payloads full 2>$O/proxy-t0.log
kv proxy_t0_start $?
kv t0_node "$(node /dev/tpm0)"
kv t0_real "$(node /dev/tpm0.real)"
kv t0_guardian "$(pid_of tpm-cuse-guard | wc -w)"
det /dev/tpm0 $O/t0-det.pcap; kv det_t0 $?
TPM2TOOLS_TCTI=pcap:device:/dev/tpm0 TCTI_PCAP_FILE=$O/t0-workload.pcap demo-workload 20 >$O/t0-workload.log 2>&1
kv workload_t0 $?
kill -TERM $(pid_of tpm-cuse-proxy); gone tpm-cuse-proxy; kv t0_exit $?
gone tpm-cuse-guard; kv t0_guard_exit $?
kv t0_after_term "$(node /dev/tpm0)"
kv t0_real_after_term "$(node /dev/tpm0.real)"
TPM2TOOLS_TCTI=device:/dev/tpm0 tpm2_getrandom 4 >/dev/null; kv direct_after_term $?

# 3. SIGKILL: the guardian puts the node back.
tpm-cuse-proxy --backend /dev/tpm0 --name tpm0 --takeover --no-record 2>>$O/proxy-t0.log
kv kill_start $?
kv kill_node_during "$(node /dev/tpm0)"
kill -KILL $(pid_of tpm-cuse-proxy); gone tpm-cuse-proxy
gone tpm-cuse-guard; kv kill_guard_exit $?
kv t0_after_kill "$(node /dev/tpm0)"
kv t0_real_after_kill "$(node /dev/tpm0.real)"
TPM2TOOLS_TCTI=device:/dev/tpm0 tpm2_getrandom 4 >/dev/null; kv direct_after_kill $?

# 4. Proxy and guardian both SIGKILLed: --restore (ExecStopPost) repairs it.
tpm-cuse-proxy --backend /dev/tpm0 --name tpm0 --takeover --no-record 2>>$O/proxy-t0.log
kv kill2_start $?
kill -KILL $(pid_of tpm-cuse-guard) $(pid_of tpm-cuse-proxy); gone tpm-cuse-proxy; gone tpm-cuse-guard
kv t0_stale "$(node /dev/tpm0)"
kv t0_real_stale "$(node /dev/tpm0.real)"
TPM2TOOLS_TCTI=device:/dev/tpm0 tpm2_getrandom 4 >/dev/null 2>&1; kv stale_open $?
tpm-cuse-proxy --restore --name tpm0 2>>$O/proxy-t0.log; kv restore_rc $?
kv t0_after_restore "$(node /dev/tpm0)"
kv t0_real_after_restore "$(node /dev/tpm0.real)"
TPM2TOOLS_TCTI=device:/dev/tpm0 tpm2_getrandom 4 >/dev/null; kv direct_after_restore $?
tpm-cuse-proxy --restore --name tpm0 2>>$O/proxy-t0.log; kv restore_again_rc $?
exit 0
EOF

vm_run_checked "$VM_WORK/guest.sh"
q() { "$TPMTRACE" sql "$1" --no-header "$2"; }

# Commands a client sent: per pcap section (one per TCTI start), the device
# TCTI's own probe first (TPM2_GetRandom(8), sent from its init, not logged
# by the pcap TCTI), then every request the pcap TCTI logged.
PROBE=80010000000c0000017b0008
expected_cmds() { # PCAP...
	local f
	for f; do
		tshark -r "$f" -T fields -e frame.section_number -e tcp.srcport -e tcp.payload 2>/dev/null |
			awk -v probe=$PROBE '$2 == 50000 { if ($1 != s) { print probe; s = $1 } print tolower($3) }'
	done
}
responses() { # PCAP: "cc response" for every response, in order
	tshark -r "$1" -T fields -e tcp.srcport -e tcp.payload 2>/dev/null |
		awk '$1 == 50000 { cc = substr($2, 13, 8) } $1 == 2321 { print cc, tolower($2) }'
}
det_filter() { grep -E '^(0000017e|0000017a|00000173) '; }

for run in rm t0; do
	db=$O/$run.db
	if [ $run = rm ]; then wl=$O/rm-workload.pcap direct=$O/direct.pcap; else wl=$O/t0-workload.pcap direct=$O/direct0.pcap; fi
	expected_cmds "$O/$run-det.pcap" "$wl" >"$VM_WORK/$run.expected"
	q "$db" "SELECT lower(hex(cmd)) FROM command ORDER BY seq" >"$VM_WORK/$run.recorded"
	n=$(wc -l <"$VM_WORK/$run.expected")
	check "$run: commands sent ($n) were captured" [ "$n" -gt 100 ]
	check "$run: every command recorded exactly once, byte for byte, in order ($(wc -l <"$VM_WORK/$run.recorded") recorded)" \
		cmp -s "$VM_WORK/$run.expected" "$VM_WORK/$run.recorded"
	cmp -s "$VM_WORK/$run.expected" "$VM_WORK/$run.recorded" ||
		diff "$VM_WORK/$run.expected" "$VM_WORK/$run.recorded" | head -5 >&2
	check "$run: trace complete, nothing dropped" [ "$(q "$db" "SELECT status || dropped FROM trace")" = complete0 ]
	check "$run: one client per tool process (>= 20)" [ "$(q "$db" "SELECT count(*) FROM client")" -ge 20 ]
	check "$run: tpm2_startup went through and got TPM_RC_INITIALIZE" [ "$(q "$db" "SELECT count(*) FROM command WHERE cc = (SELECT cc FROM tpm_cc WHERE name = 'Startup') AND rc=0x100")" = 1 ]
	# What the clients received through the proxy is what it recorded...
	responses "$O/$run-det.pcap" | det_filter >"$VM_WORK/$run.det.got"
	q "$db" "SELECT printf('%08x', cc), lower(hex(rsp)) FROM command WHERE cc IN (SELECT cc FROM tpm_cc WHERE name IN ('PCR_Read', 'GetCapability', 'ReadPublic')) ORDER BY seq" |
		tr '|' ' ' | head -n "$(wc -l <"$VM_WORK/$run.det.got")" >"$VM_WORK/$run.det.rec"
	check "$run: recorded responses = responses the client got" cmp -s "$VM_WORK/$run.det.got" "$VM_WORK/$run.det.rec"
	# ...and byte-identical to the kernel's own device answering directly.
	responses "$direct" | det_filter >"$VM_WORK/$run.det.direct"
	check "$run: the direct run gave PCR_Read/GetCapability/ReadPublic responses" [ -s "$VM_WORK/$run.det.direct" ]
	check "$run: those responses identical to a direct run ($(wc -l <"$VM_WORK/$run.det.direct") responses)" \
		cmp -s "$VM_WORK/$run.det.direct" "$VM_WORK/$run.det.got"
	check "$run: ReadPublic among them" grep -q '^00000173 ' "$VM_WORK/$run.det.direct"
done

check "persistent key set up" [ "$(vm_get persistent)" = 0 ]
check "direct deterministic run on tpmrm0 ok" [ "$(vm_get det_direct)" = 0 ]
check "proxy in front of /dev/tpmrm0 started" [ "$(vm_get proxy_rm_start)" = 0 ]
check "CUSE node /dev/tpmrmproxy0 existed (got $(vm_get proxy_rm_node))" [ "$(vm_get proxy_rm_node)" != missing ]
check "deterministic run through tpmrmproxy0 ok" [ "$(vm_get det_rm)" = 0 ]
check "demo workload through tpmrmproxy0: every tool exited 0" [ "$(vm_get workload_rm)" = 0 ]
check "proxy exited on SIGTERM" [ "$(vm_get proxy_rm_exit)" = 0 ]
check "CUSE node gone after exit" [ "$(vm_get proxy_rm_node_after)" = missing ]

check "/dev/tpm0 is the kernel's 10:224 before (got $(vm_get tpm0_before))" [ "$(vm_get tpm0_before)" = a:e0 ]
check "--takeover started" [ "$(vm_get proxy_t0_start)" = 0 ]
t0=$(vm_get t0_node)
check "during takeover /dev/tpm0 is the CUSE node (got $t0)" [ "$t0" != a:e0 -a "$t0" != missing ]
check "during takeover /dev/tpm0.real is the kernel's (got $(vm_get t0_real))" [ "$(vm_get t0_real)" = a:e0 ]
check "a guardian runs during takeover" [ "$(vm_get t0_guardian)" = 1 ]
check "deterministic run through the taken-over /dev/tpm0 ok" [ "$(vm_get det_t0)" = 0 ]
check "demo workload through taken-over /dev/tpm0: every tool exited 0" [ "$(vm_get workload_t0)" = 0 ]
check "SIGTERM: proxy and guardian exited" [ "$(vm_get t0_exit)$(vm_get t0_guard_exit)" = 00 ]
check "SIGTERM: /dev/tpm0 back (got $(vm_get t0_after_term)), no .real left" [ "$(vm_get t0_after_term)" = a:e0 -a "$(vm_get t0_real_after_term)" = missing ]
check "SIGTERM: /dev/tpm0 works directly" [ "$(vm_get direct_after_term)" = 0 ]
check "SIGKILL: takeover had happened (got $(vm_get kill_node_during))" [ "$(vm_get kill_start)" = 0 -a "$(vm_get kill_node_during)" != a:e0 ]
check "SIGKILL: guardian restored /dev/tpm0 and exited (got $(vm_get t0_after_kill), .real $(vm_get t0_real_after_kill))" \
	[ "$(vm_get kill_guard_exit)" = 0 -a "$(vm_get t0_after_kill)" = a:e0 -a "$(vm_get t0_real_after_kill)" = missing ]
check "SIGKILL: /dev/tpm0 works directly" [ "$(vm_get direct_after_kill)" = 0 ]
check "both killed: /dev/tpm0 is a dead CUSE node, the kernel's waits as .real" \
	[ "$(vm_get kill2_start)" = 0 -a "$(vm_get t0_real_stale)" = a:e0 -a "$(vm_get t0_stale)" != a:e0 -a "$(vm_get stale_open)" != 0 ]
check "--restore succeeded" [ "$(vm_get restore_rc)" = 0 ]
check "--restore: /dev/tpm0 back (got $(vm_get t0_after_restore)), no .real left" [ "$(vm_get t0_after_restore)" = a:e0 -a "$(vm_get t0_real_after_restore)" = missing ]
check "--restore: /dev/tpm0 works directly" [ "$(vm_get direct_after_restore)" = 0 ]
check "--restore again: nothing to do, still success" [ "$(vm_get restore_again_rc)" = 0 ]
check "takeover and restore recorded as events" [ "$(q "$O/t0.db" "SELECT count(*) FROM event WHERE kind IN ('takeover','restore')")" = 2 ]

if [ "$fail" != 0 ]; then
	echo "--- results ---" >&2
	cat "$O/results" >&2
	tail -n 5 "$O"/*workload.log "$O"/proxy-*.log >&2
fi
echo "boot-to-result: ${VM_ELAPSED}s"
finish
