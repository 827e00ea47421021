#!/bin/bash
# Load through tpm-cuse-proxy in a real kernel: 16 processes open a
# tpmrm-style CUSE node (in front of /dev/tpmrm0, each open its own resource
# manager space) at the same time and send 500 commands each (PCR_Extend,
# GetRandom, GetCapability and ReadPublic mixed, shaped per client by
# tpmclient --tag so that an answer delivered to the wrong open is detected;
# tpmclient --device: one write(2) per command, one read(2) per answer).
# Every client checks each answer against the command it sent; the database
# must hold exactly each client's commands and answers (what the client logged),
# in the client's order, none lost, none twice, nothing dropped; the 16 opens
# were served concurrently; the proxy's memory stays bounded (VmHWM, and VmRSS
# growth over the run); PRAGMA integrity_check is ok.
# CUSE_LOAD_CLIENTS and CUSE_LOAD_COUNT change the 16 x 500.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=harness.sh
. "$HERE/harness.sh"

TPMCLIENT=${TPMTRACE_TEST_BUILD:-$BIN/..}/tests/tpmclient
CLIENTS=${CUSE_LOAD_CLIENTS:-16}
N=${CUSE_LOAD_COUNT:-500}
# Bounds on the proxy (a FUSE session, its worker, the batched writer and
# SQLite). Measured at 16 x 500 (guest, kernel 6.1): VmRSS 3.1 MB before the
# clients, rising to 4.2 MB within the first half of the run as SQLite's page
# cache (2 MiB by default) and the FUSE threads fill, then flat; 4.3 MB at the
# end. So: peak RSS <= 32 MiB (the socket proxy's bound), growth over the
# whole run <= 4 MiB (page cache plus slack), and growth over the second half
# of the run <= 1.5 MiB: a leak of 512 bytes per command (2 MB over 4,000) would exceed it.
# Since the writer's queue became mapped memory handed back page by page, the
# pages at the edges of small batches stay resident until the ring comes round
# again: 1,032 kB of growth over the second half seen at 16 x 500 (end VmRSS
# 5.3 MB), bounded by the span of the ring the run touched, not by its length.
HWM_MAX_KB=32768
GROWTH_MAX_KB=4096
HALF_GROWTH_MAX_KB=1536
VM_TIMEOUT=${VM_TIMEOUT:-600}

[ -x "$TPMCLIENT" ] || { echo "tpmclient not built at $TPMCLIENT" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "sqlite3 is needed to read the database" >&2; exit 1; }
vm_setup_cuse
vm_add_bin "$TPMCLIENT" || exit 1

{
	echo '#!/bin/sh'
	echo "CLIENTS=$CLIENTS N=$N"
	cat <<'EOF'
. /lib/vm-guest.sh
uptime_s() { cut -d' ' -f1 /proc/uptime; }
mem() { # LABEL: VmRSS and VmHWM of the proxy, kB
	echo "$1 $(uptime_s) $(awk '/^VmRSS/ {r=$2} /^VmHWM/ {h=$2} END {print r, h}' /proc/$PP/status)" >>$O/mem
}
cd /tmp
# The object ReadPublic asks for: a persistent primary, made directly.
tpm2_createprimary -Q -C o -G ecc256 -c prim.ctx && tpm2_evictcontrol -Q -C o -c prim.ctx 0x81000001 >/dev/null
kv persistent $?
tpm-cuse-proxy --backend /dev/tpmrm0 --name tpmrmload0 --db $O/load.db --payloads full \
	--pidfile /run/proxy.pid 2>$O/proxy.log
kv proxy_start $?
PP=$(cat /run/proxy.pid)
kv proxy_pid $PP
mem start
t0=$(uptime_s)
pids=
for k in $(seq $CLIENTS); do
	tpmclient --device /dev/tpmrmload0 --cmd mix --tag $k --count $N --log $O/log.$k \
		>$O/out.$k 2>$O/err.$k &
	echo "$k $!" >>$O/pids
	pids="$pids $!"
done
# Sampled while the clients run (the guest has one CPU: once a second).
while kill -0 $pids 2>/dev/null; do
	mem load
	sleep 1
done
for k in $(seq $CLIENTS); do
	p=$(sed -n "s/^$k //p" $O/pids)
	wait $p
	kv client_rc_$k $?
done
kv load_seconds $(awk -v a=$t0 -v b=$(uptime_s) 'BEGIN { printf "%.1f", b - a }')
mem end
kill -TERM $PP; gone tpm-cuse-proxy; kv proxy_exit $?
exit 0
EOF
} >"$VM_WORK/guest.sh"

vm_run_checked "$VM_WORK/guest.sh"
db=$O/load.db
q() { sqlite3 "$db" "$1"; }
TOTAL=$((CLIENTS * N))

check "persistent key for ReadPublic set up" [ "$(vm_get persistent)" = 0 ]
check "proxy in front of /dev/tpmrm0 started" [ "$(vm_get proxy_start)" = 0 ]
check "proxy exited on SIGTERM" [ "$(vm_get proxy_exit)" = 0 ]

# Clients: each exited 0 having checked every answer against its own command.
failed_clients=0
for k in $(seq "$CLIENTS"); do
	[ "$(vm_get "client_rc_$k")" = 0 ] || { failed_clients=$((failed_clients + 1)); head -3 "$O/err.$k" >&2; }
done
check "every client exited 0 ($failed_clients failed)" [ "$failed_clients" = 0 ]
answers=$(cat "$O"/out.* 2>/dev/null | awk '{n++; ok += $4; w += $12} END {print n + 0, ok + 0, w + 0}')
check "answers checked by $CLIENTS clients, right, none wrong (got clients/ok/wrong: $answers)" \
	[ "$answers" = "$CLIENTS $TOTAL 0" ]

# The proxy's own account, then the database.
stats=$(sed -n 's/.* \([0-9]*\) commands, \([0-9]*\) events recorded, \([0-9]*\) dropped.*/\1 \2 \3/p' "$O/proxy.log")
read -r rec_cmds _ rec_drop <<<"${stats:-x x x}"
echo "proxy: $rec_cmds commands recorded, $rec_drop dropped"
check "proxy recorded every command, dropped none (got ${stats:-no stats line})" \
	[ "$rec_cmds" = "$TOTAL" -a "$rec_drop" = 0 ]
check "database: $TOTAL commands (got $(q "SELECT count(*) FROM command"))" \
	[ "$(q "SELECT count(*) FROM command")" = "$TOTAL" ]
check "trace complete, nothing dropped" [ "$(q "SELECT status || '/' || dropped FROM trace")" = complete/0 ]
check "one client row per process ($CLIENTS tpmclient)" \
	[ "$(q "SELECT count(*) FROM client WHERE comm='tpmclient'")" = "$CLIENTS" ]
# Per client, by (client, seq): exactly the commands it sent and the answers it
# got, in its order. The log holds what the client sent and received, so this
# also proves that each recorded answer went to the client whose command it was.
bad=0
for k in $(seq "$CLIENTS"); do
	pid=$(sed -n "s/^$k //p" "$O/pids")
	id=$(q "SELECT id FROM client WHERE pid=$pid")
	q "SELECT hex(cmd) || ' ' || hex(rsp) FROM command WHERE client_id=${id:-0} ORDER BY seq" >"$VM_WORK/db.$k"
	[ "$(wc -l <"$O/log.$k")" = "$N" ] && cmp -s "$O/log.$k" "$VM_WORK/db.$k" ||
		{ bad=$((bad + 1)); echo "client $k (pid $pid, client_id ${id:-none}) differs" >&2; }
done
check "each client's rows are its $N commands and answers, in its order ($bad differ)" [ "$bad" = 0 ]
check "sequence numbers unique, no gaps" \
	[ "$(q "SELECT count(DISTINCT seq) = count(*) AND max(seq) = count(*) FROM (SELECT seq FROM command UNION ALL SELECT seq FROM event)")" = 1 ]
check "no command without a response, none malformed" \
	[ "$(q "SELECT count(*) FROM command WHERE rc IS NOT 0 OR flags & 10")" = 0 ]
check "all four kinds of command, evenly" \
	[ "$(q "SELECT group_concat(n) FROM (SELECT count(*) n FROM command GROUP BY cc ORDER BY cc)")" = \
		"$((TOTAL / 4)),$((TOTAL / 4)),$((TOTAL / 4)),$((TOTAL / 4))" ]
# Concurrency: every client's first command was submitted before any
# client's last answer came back, so all opens were being served at once.
overlap=$(q "SELECT (SELECT max(f) FROM (SELECT min(t_submit_ns) f FROM command GROUP BY client_id)) <
	(SELECT min(l) FROM (SELECT max(t_done_ns) l FROM command GROUP BY client_id))")
check "all $CLIENTS opens served at the same time" [ "$overlap" = 1 ]
check "integrity_check ok" [ "$(q 'PRAGMA integrity_check')" = ok ]
check "tpmtrace verify" "$TPMTRACE" verify "$db" >/dev/null

# Memory: "start" before any client, "load" once a second, "end" after all.
read -r _ _ rss0 hwm0 < <(grep '^start ' "$O/mem")
n_load=$(grep -c '^load ' "$O/mem")
read -r _ t_mid rss_mid _ < <(grep '^load ' "$O/mem" | sed -n "$(((n_load + 1) / 2))p")
read -r _ _ rss1 hwm1 < <(grep '^end ' "$O/mem")
hwm_max=$(awk '$4 > m {m = $4} END {print m + 0}' "$O/mem")
echo "proxy memory: start VmRSS ${rss0:-?} kB; mid-run (${t_mid:-?}s) VmRSS ${rss_mid:-?} kB;" \
	"end VmRSS ${rss1:-?} kB VmHWM ${hwm1:-?} kB; $n_load samples under load"
echo "load: $TOTAL commands by $CLIENTS clients in $(vm_get load_seconds)s (guest clock)"
case ${TPMTRACE_TEST_BUILD:-} in
*asan*) echo "memory bound not checked: ASan's shadow memory and quarantine dominate" ;;
*)
	check "proxy memory sampled before, under load ($n_load) and after" \
		[ -n "${rss0:-}" -a -n "${rss_mid:-}" -a -n "${rss1:-}" ]
	check "proxy peak memory bounded (VmHWM $hwm_max kB <= $HWM_MAX_KB kB)" [ "$hwm_max" -le $HWM_MAX_KB ]
	check "proxy RSS growth over the run bounded ($((${rss1:-0} - ${rss0:-0})) kB <= $GROWTH_MAX_KB kB)" \
		[ $((${rss1:-0} - ${rss0:-0})) -le $GROWTH_MAX_KB ]
	check "proxy RSS growth over the second half bounded ($((${rss1:-0} - ${rss_mid:-0})) kB <= $HALF_GROWTH_MAX_KB kB)" \
		[ $((${rss1:-0} - ${rss_mid:-0})) -le $HALF_GROWTH_MAX_KB ]
	;;
esac

if [ "$fail" != 0 ]; then
	echo "--- results ---" >&2
	cat "$O/results" "$O/proxy.log" >&2
fi
echo "boot-to-result: ${VM_ELAPSED}s"
finish
