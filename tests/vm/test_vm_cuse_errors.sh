#!/bin/bash
# tpm-cuse-proxy under bad input and a failing backend, in a real kernel.
# - `tpm-cuse-proxy --probe` (short write, size field beyond the write, 4097
#   and 65536 bytes, second write before read, partial reads, O_NONBLOCK and
#   poll, a non-blocking read while the command is in flight (waits, as the
#   kernel does), size field 0, unknown command code, a second open) gives the same
#   answers on the CUSE node as on the kernel's own node, for /dev/tpmrm0
#   (many opens) and for /dev/tpm0 taken over (one open at a time).
# - A client that writes garbage or leaves a response unread does not keep
#   other opens from working.
# - A backend that dies (swtpm in the guest, killed) gives EIO at once, not a
#   hang; the proxy stays up, works again when the backend is back, and its
#   database is intact (tpmtrace verify) with the bad writes and the outage.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"

vm_setup_cuse
vm_add_bin "$(command -v swtpm)" || exit 1

cat >"$VM_WORK/guest.sh" <<'EOF'
#!/bin/sh
. /lib/vm-guest.sh
P=tpm-cuse-proxy

# 1. The kernel's answers, then the CUSE node's, for tpmrm0 and tpm0.
$P --probe /dev/tpmrm0 >$O/probe-rm-kernel.txt 2>&1
$P --probe /dev/tpm0 >$O/probe-t0-kernel.txt 2>&1
$P --backend /dev/tpmrm0 --name tpmrmproxy0 --db $O/rm.db --payloads full 2>$O/proxy.log; kv rm_start $?
$P --probe /dev/tpmrmproxy0 >$O/probe-rm-cuse.txt 2>&1
# 2. A client with garbage and an unread response; others keep working.
exec 3<>/dev/tpmrmproxy0
printf '\200\001\000' >&3 2>/dev/null; kv garbage_write $?
printf '\200\001\000\000\000\014\000\000\001\173\000\010' >&3; kv held_write $?
TPM2TOOLS_TCTI=device:/dev/tpmrmproxy0 tpm2_getrandom 8 >/dev/null; kv other_open_works $?
TPM2TOOLS_TCTI=device:/dev/tpmrmproxy0 tpm2_pcrread sha256:0 >/dev/null; kv other_open_works2 $?
exec 3<&-
kill -TERM $(pid_of $P); gone $P; kv rm_exit $?

$P --backend /dev/tpm0 --name tpm0 --takeover --db $O/t0.db 2>>$O/proxy.log; kv t0_start $?
$P --probe /dev/tpm0 >$O/probe-t0-cuse.txt 2>&1
kill -TERM $(pid_of $P); gone $P; kv t0_exit $?
gone tpm-cuse-guard

# 3. A backend that dies: swtpm on a unix socket, killed under the proxy.
mkdir -p /tmp/sw
swtpm socket --tpm2 --tpmstate dir=/tmp/sw --server type=unixio,path=/tmp/sw/s \
	--ctrl type=unixio,path=/tmp/sw/s.ctrl --flags not-need-init,startup-clear >/dev/null 2>&1 &
SW=$!
i=0; while [ ! -S /tmp/sw/s ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
$P --backend swtpm:path=/tmp/sw/s --name tpmrmproxy1 --db $O/sw.db --payloads full 2>>$O/proxy.log; kv sw_start $?
TPM2TOOLS_TCTI=device:/dev/tpmrmproxy1 tpm2_getrandom 8 >/dev/null; kv sw_works $?
kill -KILL $SW; wait $SW 2>/dev/null
t0=$(date +%s)
timeout 30 $P --probe /dev/tpmrmproxy1 >$O/probe-dead.txt 2>&1; kv dead_probe_rc $?
timeout 30 env TPM2TOOLS_TCTI=device:/dev/tpmrmproxy1 tpm2_getrandom 8 >/dev/null 2>&1; kv dead_tool_rc $?
kv dead_seconds $(( $(date +%s) - t0 ))
kv proxy_alive_after_death "$(pid_of $P | wc -w)"
# The backend comes back: so does the device.
swtpm socket --tpm2 --tpmstate dir=/tmp/sw --server type=unixio,path=/tmp/sw/s \
	--ctrl type=unixio,path=/tmp/sw/s.ctrl --flags not-need-init,startup-clear >/dev/null 2>&1 &
SW=$!
i=0; while ! TPM2TOOLS_TCTI=device:/dev/tpmrmproxy1 tpm2_getrandom 8 >/dev/null 2>&1 && [ $i -lt 30 ]; do sleep 0.2; i=$((i+1)); done
TPM2TOOLS_TCTI=device:/dev/tpmrmproxy1 tpm2_getrandom 8 >/dev/null; kv sw_back $?
kill -TERM $(pid_of $P); gone $P; kv sw_exit $?
kill $SW
exit 0
EOF

vm_run_checked "$VM_WORK/guest.sh"
pr() { sed -n "s/^$2=//p" "$O/probe-$1.txt" | head -n1; }
q() { "$TPMTRACE" sql "$1" --no-header "$2"; }

check "proxies started and exited cleanly" [ "$(vm_get rm_start)$(vm_get rm_exit)$(vm_get t0_start)$(vm_get t0_exit)" = 0000 ]
for k in rm t0; do
	check "$k: the kernel's answers are the expected ones (short: $(pr $k-kernel write_5_bytes), 4097: $(pr $k-kernel write_4097_bytes))" \
		[ "$(pr $k-kernel write_5_bytes)$(pr $k-kernel write_size_field_over)$(pr $k-kernel write_4097_bytes)$(pr $k-kernel second_write_before_read)" = EINVALEINVALE2BIGEBUSY ]
	check "$k: the CUSE node answers every probe as the kernel does" cmp -s "$O/probe-$k-kernel.txt" "$O/probe-$k-cuse.txt"
	cmp -s "$O/probe-$k-kernel.txt" "$O/probe-$k-cuse.txt" || diff "$O/probe-$k-kernel.txt" "$O/probe-$k-cuse.txt" >&2
done
check "tpmrm: many opens (second_open=ok)" [ "$(pr rm-cuse second_open)" = ok ]
check "tpm0: one open at a time (second_open=EBUSY)" [ "$(pr t0-cuse second_open)" = EBUSY ]
check "partial reads return the response in pieces" [ "$(pr rm-cuse partial_read)" = "4+16,sizefield_ok:1" ]
check "O_NONBLOCK: poll reports the response" [ "$(pr rm-cuse nonblock_poll_in)" = IN ]

check "garbage write refused" [ "$(vm_get garbage_write)" != 0 ]
check "held command written" [ "$(vm_get held_write)" = 0 ]
check "other opens keep working beside a bad client" [ "$(vm_get other_open_works)$(vm_get other_open_works2)" = 00 ]
check "bad writes recorded as malformed (short, oversize, size over)" \
	[ "$(q "$O/rm.db" "SELECT count(*) FROM command WHERE flags & 2")" -ge 4 ]
check "the held command was forwarded and recorded" \
	[ "$(q "$O/rm.db" "SELECT count(*) FROM command WHERE hex(cmd)='80010000000C0000017B0008' AND rc=0")" -ge 1 ]

check "swtpm backend: proxy started, worked" [ "$(vm_get sw_start)$(vm_get sw_works)" = 00 ]
check "backend dead: probe finished (no hang, rc $(vm_get dead_probe_rc))" [ "$(vm_get dead_probe_rc)" = 0 ]
check "backend dead: blocking write gets EIO (got $(pr dead write_getrandom))" [ "$(pr dead write_getrandom)" = EIO ]
check "backend dead: O_NONBLOCK read gets EIO (got $(pr dead nonblock_response))" [ "$(pr dead nonblock_response)" = EIO ]
check "backend dead: local checks still answered (short write EINVAL)" [ "$(pr dead write_5_bytes)" = EINVAL ]
check "backend dead: tpm2-tools fail instead of hanging (rc $(vm_get dead_tool_rc))" [ "$(vm_get dead_tool_rc)" != 0 -a "$(vm_get dead_tool_rc)" != 124 ]
echo "backend dead: the probe and the tool took $(vm_get dead_seconds)s (a figure)"
check "proxy still running after the backend died" [ "$(vm_get proxy_alive_after_death)" = 1 ]
check "backend back: device works again" [ "$(vm_get sw_back)" = 0 ]
check "backend outage recorded (backend-lost, backend-back)" \
	[ "$(q "$O/sw.db" "SELECT count(DISTINCT kind) FROM event WHERE kind IN ('backend-lost','backend-back')")" = 2 ]
check "failed commands recorded without response" [ "$(q "$O/sw.db" "SELECT count(*) FROM command WHERE flags & 8")" -ge 1 ]
# What ended the wait for the dead backend: its closed socket, not a timeout.
lost=$(q "$O/sw.db" "SELECT detail FROM event WHERE kind='backend-lost' ORDER BY seq LIMIT 1")
not_timeout() { [ -n "$1" ] && [[ $1 != *"timed out"* ]]; }
check "backend dead: the closed connection ended the wait, not a timeout ($lost)" not_timeout "$lost"
for db in rm t0 sw; do
	check "$db.db: tpmtrace verify" "$TPMTRACE" verify "$O/$db.db" >/dev/null
	check "$db.db: trace complete" [ "$(q "$O/$db.db" "SELECT status FROM trace")" = complete ]
done

if [ "$fail" != 0 ]; then
	cat "$O/results" "$O/proxy.log" >&2
fi
echo "boot-to-result: ${VM_ELAPSED}s"
finish
